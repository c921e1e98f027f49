//! Serializing response bodies the way the real server writes them: compact JSON ending in `\n`
//! with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go does, indented JSON when the client asks
//! for `pretty` (or is a browser, curl or wget and does not say `pretty=false`), YAML, and CBOR
//! in the server's form through the library's encoder (tag 55799, byte strings, `[]byte` fields
//! as tag 22, keys shuffled per response as the real server's encoder does), and protobuf
//! through [`crate::encoding::protobuf`] (an object that does not fit its message is a 500 Status).

use std::io;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use bytes::Bytes;
use kube_wire::codec::cbor::{encode_cbor, encode_cbor_json, CborEncoding, CborWriter};
use kube_wire::codec::value::{Map as DocMap, Value as Doc};
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::encoding::negotiate::Format;
use crate::rules::status::{ApiError, Status};

/// Escapes the characters Go's encoder escapes; otherwise serde_json's compact form.
struct GoEscapes<F>(F);

impl<F: Formatter> Formatter for GoEscapes<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut start = 0;
        // Only ASCII `<`, `>`, `&` and the three-byte U+2028 and U+2029 (E2 80 A8, E2 80 A9) are
        // escaped: a byte scan finds them (0xE2 never occurs inside another character's UTF-8),
        // so most fragments are written whole.
        while let Some(at) = bytes[start..].iter().position(|b| matches!(b, b'<' | b'>' | b'&' | 0xE2)) {
            let i = start + at;
            let (escaped, len): (&[u8], usize) = match &bytes[i..] {
                [b'<', ..] => (b"\\u003c", 1),
                [b'>', ..] => (b"\\u003e", 1),
                [b'&', ..] => (b"\\u0026", 1),
                [0xE2, 0x80, 0xA8, ..] => (b"\\u2028", 3),
                [0xE2, 0x80, 0xA9, ..] => (b"\\u2029", 3),
                // Another character starting with E2 (such as U+2026 or U+2192): written as is.
                _ => {
                    writer.write_all(&bytes[start..i + 1])?;
                    start = i + 1;
                    continue;
                }
            };
            writer.write_all(&bytes[start..i])?;
            writer.write_all(escaped)?;
            start = i + len;
        }
        writer.write_all(&bytes[start..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

struct Compact;
impl Formatter for Compact {}

/// JSON bytes ending in a newline.
pub fn json<T: Serialize + ?Sized>(value: &T, pretty: bool) -> Vec<u8> {
    json_with_capacity(value, pretty, 256)
}

/// [`json`] into a buffer that starts with `capacity` bytes (the expected size: no regrowing).
pub fn json_with_capacity<T: Serialize + ?Sized>(value: &T, pretty: bool, capacity: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity);
    let written = if pretty {
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoEscapes(PrettyFormatter::with_indent(b"  ")));
        value.serialize(&mut ser)
    } else {
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoEscapes(Compact));
        value.serialize(&mut ser)
    };
    match written {
        Ok(()) => {
            out.push(b'\n');
            out
        }
        Err(e) => format!("{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":\"encoding failed: {}\",\"reason\":\"InternalError\",\"code\":500}}\n", e.to_string().replace('"', "'")).into_bytes(),
    }
}

pub fn yaml<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    match serde_yaml::to_string(value) {
        Ok(s) => s.into_bytes(),
        Err(e) => {
            format!("kind: Status\napiVersion: v1\nstatus: Failure\nmessage: 'encoding failed: {e}'\ncode: 500\n")
                .into_bytes()
        }
    }
}

/// A response body; only protobuf can fail (a value that does not fit its message).
pub fn body<T: Serialize + ?Sized>(format: Format, value: &T, pretty: bool) -> Result<Bytes, ApiError> {
    Ok(Bytes::from(match format {
        Format::Json => json(value, pretty),
        Format::Yaml => yaml(value),
        Format::Cbor => cbor(value),
        Format::Protobuf => protobuf(&serde_json::to_value(value).unwrap_or(serde_json::Value::Null))?,
    }))
}

/// The protobuf body of an object or list, or the 500 that says which field does not fit.
pub fn protobuf(tree: &serde_json::Value) -> Result<Vec<u8>, ApiError> {
    crate::encoding::protobuf::encode_object(tree).map_err(|e| cannot_encode(tree, &e))
}

/// One protobuf watch frame, or the 500 that says which field does not fit.
pub fn protobuf_event(event_type: &str, tree: &serde_json::Value) -> Result<Vec<u8>, ApiError> {
    crate::encoding::protobuf::watch_frame(event_type, tree).map_err(|e| cannot_encode(tree, &e))
}

/// The 500 of an object kube-sim cannot write in protobuf (the real server always can: its objects
/// are Go structs; kube-sim's are JSON trees that a patch may have taken off the schema).
fn cannot_encode(tree: &serde_json::Value, e: &crate::encoding::protobuf::EncodeError) -> ApiError {
    let kind = tree["kind"].as_str().unwrap_or("object");
    let name = tree["metadata"]["name"].as_str().map(|n| format!(" {n:?}")).unwrap_or_default();
    Status::failure(500, "InternalError", format!("unable to encode {kind}{name} as protobuf: {e}")).into()
}

/// The `[]byte` fields of a kind: their JSON form is base64 text, their CBOR form tag 22.
fn byte_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "Secret" => &["data"],
        "ConfigMap" => &["binaryData"],
        _ => &[],
    }
}

/// The library's document model of `v`, with `[]byte` fields as bytes. `kind` is the kind of an
/// object without one of its own (items of a typed list).
fn document(v: &serde_json::Value, kind: Option<&str>) -> Doc {
    let serde_json::Value::Object(m) = v else { return Doc::from_serde_json(v) };
    let own = m.get("kind").and_then(serde_json::Value::as_str).or(kind);
    let item_kind = own.and_then(|k| k.strip_suffix("List"));
    let bytes = own.map(byte_fields).unwrap_or_default();
    let mut out = DocMap::new();
    for (k, child) in m {
        let value = match child {
            serde_json::Value::Object(entries) if bytes.contains(&k.as_str()) => {
                let mut b = DocMap::new();
                for (name, text) in entries {
                    let decoded = text.as_str().and_then(|t| STANDARD.decode(t).ok());
                    b.insert(name.clone(), decoded.map(Doc::Bytes).unwrap_or_else(|| Doc::from_serde_json(text)));
                }
                Doc::Object(b)
            }
            serde_json::Value::Array(items) if k == "items" => {
                Doc::Array(items.iter().map(|i| document(i, item_kind)).collect())
            }
            serde_json::Value::Array(rows) if k == "rows" => {
                Doc::Array(rows.iter().map(|r| document(r, None)).collect())
            }
            serde_json::Value::Object(_) if k == "object" => document(child, None),
            other => Doc::from_serde_json(other),
        };
        out.insert(k.clone(), value);
    }
    Doc::Object(out)
}

/// CBOR in the server's form, keys in a fresh random order for every response.
pub fn cbor<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    cbor_document(&serde_json::to_value(value).unwrap_or(serde_json::Value::Null))
}

/// [`cbor`] of a document (a stored object), read as it is rather than copied through serde.
pub fn cbor_document(tree: &serde_json::Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_cbor_document(tree, rand::random(), &mut out);
    out
}

/// Appends the self-described CBOR of a document with its keys shuffled from `seed`.
fn write_cbor_document(tree: &serde_json::Value, seed: u64, out: &mut Vec<u8>) {
    let encoding = CborEncoding::SERVER.shuffled(seed);
    if is_plain(tree) {
        // No part of it is written differently from its JSON tree: encoded straight from it.
        encode_cbor_json(tree, encoding, out);
    } else {
        out.extend(encode_cbor(&document(tree, None), encoding));
    }
}

/// A list of stored objects as a list body writes them: items of a typed list without their
/// `kind` and `apiVersion` (`typed`), every item's `apiVersion` as the list's.
pub struct ListOf<'a> {
    pub kind: &'a str,
    pub api_version: &'a str,
    pub metadata: &'a serde_json::Map<String, serde_json::Value>,
    pub items: &'a [crate::store::Obj],
    pub typed: bool,
}

/// [`cbor`] of a list of stored objects, written straight from their trees: the serde path
/// copies the whole list into one tree and then into the library's document model before a
/// byte is written (a 500-pod page took 80 ms against JSON's 21).
pub fn cbor_list(list: &ListOf) -> Vec<u8> {
    let mut w = CborWriter::new(CborEncoding::SERVER.shuffled(rand::random()));
    let mut members = ["kind", "apiVersion", "metadata", "items"];
    w.order(&mut members);
    w.map(members.len());
    for member in members {
        w.text(member);
        match member {
            "kind" => w.text(list.kind),
            "apiVersion" => w.text(list.api_version),
            "metadata" => w.json(&serde_json::Value::Object(list.metadata.clone())),
            _ => {
                w.array(list.items.len());
                for item in list.items {
                    cbor_list_item(&mut w, item, list);
                }
            }
        }
    }
    w.finish()
}

fn cbor_list_item(w: &mut CborWriter, item: &serde_json::Value, list: &ListOf) {
    let own_kind = item.get("kind").and_then(serde_json::Value::as_str);
    let kind = own_kind.or(list.kind.strip_suffix("List"));
    let Some(members) = item.as_object().filter(|m| is_plain_members(m, kind)) else {
        // A `[]byte` field, or an object inside: through the document model, as `cbor` would.
        let ordered = crate::encoding::ordered::Ordered {
            value: item,
            order: crate::encoding::ordered::Order::Sorted,
            skip_type: list.typed,
            api_version: Some(list.api_version),
        };
        let tree = serde_json::to_value(&ordered).unwrap_or(serde_json::Value::Null);
        w.value(&document(&tree, kind));
        return;
    };
    let mut shown: Vec<(&str, &serde_json::Value)> = members
        .iter()
        .filter(|(k, _)| !(list.typed && matches!(k.as_str(), "kind" | "apiVersion")))
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    w.order(&mut shown);
    w.map(shown.len());
    for (key, value) in shown {
        w.text(key);
        if key == "apiVersion" {
            w.text(list.api_version);
        } else {
            w.json(value);
        }
    }
}

/// Whether [`document`] (of a value with no kind given) is the plain conversion of `v`: no
/// `[]byte` field of its kind, no list items, table rows or embedded object to look into.
fn is_plain(v: &serde_json::Value) -> bool {
    let serde_json::Value::Object(m) = v else { return true };
    is_plain_members(m, m.get("kind").and_then(serde_json::Value::as_str))
}

/// [`is_plain`] of an object's members, its kind being `kind`.
fn is_plain_members(m: &serde_json::Map<String, serde_json::Value>, kind: Option<&str>) -> bool {
    let bytes = kind.map(byte_fields).unwrap_or_default();
    !m.iter().any(|(k, child)| match child {
        serde_json::Value::Object(_) => k == "object" || bytes.contains(&k.as_str()),
        serde_json::Value::Array(_) => k == "items" || k == "rows",
        _ => false,
    })
}

/// One CBOR watch event, `55799({type, object: 55799(object)})` as the server frames it: the
/// event map is encoded by the library around a null placeholder for the object, which is then
/// replaced by the object's own self-described encoding.
pub fn cbor_event<T: Serialize + ?Sized>(event_type: &str, object: &T) -> Vec<u8> {
    let mut out = cbor_event_head(event_type, 0);
    out.extend(cbor(object));
    out
}

/// [`cbor_event`] of a document (a stored object), in a buffer that starts with `capacity` bytes.
pub fn cbor_event_document(event_type: &str, object: &serde_json::Value, capacity: usize) -> Vec<u8> {
    let mut out = cbor_event_head(event_type, capacity);
    write_cbor_document(object, rand::random(), &mut out);
    out
}

/// The event map up to its object: encoded with a null placeholder for it, which is dropped.
fn cbor_event_head(event_type: &str, capacity: usize) -> Vec<u8> {
    let mut wrapper = DocMap::new();
    wrapper.insert("type", Doc::String(event_type.to_string()));
    wrapper.insert("object", Doc::Null);
    let head = encode_cbor(&Doc::Object(wrapper), CborEncoding::SERVER);
    let mut out = Vec::with_capacity(capacity.max(head.len()));
    // The placeholder is the last item written: CBOR null, one byte.
    out.extend_from_slice(head.strip_suffix(&[0xf6]).unwrap_or(&head));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_written_straight_from_its_objects_is_the_list_the_serde_path_writes() {
        use kube_wire::codec::cbor::decode_cbor;
        let pod = serde_json::json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}, "spec": {"n": [1]}});
        let secret =
            serde_json::json!({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}, "data": {"k": "AAE="}});
        let widget = serde_json::json!({"kind": "Widget", "apiVersion": "x.io/v1beta1", "metadata": {"name": "w"}});
        let metadata = serde_json::json!({"resourceVersion": "7", "continue": "c"});
        let metadata = metadata.as_object().expect("an object");
        for (kind, api_version, typed, items) in [
            ("PodList", "v1", true, vec![pod.clone(), pod.clone()]),
            ("SecretList", "v1", true, vec![secret.clone()]),
            ("WidgetList", "x.io/v1", false, vec![widget.clone()]),
            ("PodList", "v1", true, vec![]),
        ] {
            let stored: Vec<crate::store::Obj> = items.iter().cloned().map(std::sync::Arc::new).collect();
            let list = ListOf { kind, api_version, metadata, items: &stored, typed };
            let straight = cbor_list(&list);
            let expected_items: Vec<serde_json::Value> = items
                .iter()
                .map(|item| {
                    let mut item = item.as_object().expect("an object").clone();
                    if typed {
                        item.remove("kind");
                        item.remove("apiVersion");
                    } else {
                        item.insert("apiVersion".into(), api_version.into());
                    }
                    serde_json::Value::Object(item)
                })
                .collect();
            let expected = serde_json::json!({
                "kind": kind, "apiVersion": api_version, "metadata": metadata, "items": expected_items,
            });
            let read = decode_cbor(&straight).expect("well-formed");
            assert!(read.equivalent(&decode_cbor(&cbor(&expected)).expect("well-formed")), "{kind}: {read:?}");
            assert!(straight.starts_with(&[0xd9, 0xd9, 0xf7]), "self-described");
        }
        // A Secret's data are byte strings (tag 22), as the serde path writes them.
        let stored = vec![std::sync::Arc::new(secret)];
        let list = ListOf { kind: "SecretList", api_version: "v1", metadata, items: &stored, typed: true };
        let read = decode_cbor(&cbor_list(&list)).expect("well-formed");
        let data = read.at(&["items"]).and_then(|i| i.as_array()).and_then(|i| i[0].at(&["data", "k"]));
        assert_eq!(data, Some(&kube_wire::codec::value::Value::Bytes(vec![0, 1])));
    }

    #[test]
    fn json_escapes_like_go_and_ends_with_newline() {
        let out = json(&serde_json::json!({"a": "<b>&"}), false);
        assert_eq!(out, b"{\"a\":\"\\u003cb\\u003e\\u0026\"}\n");
        let out = json(&serde_json::json!("\u{2192}\u{2028}x\u{2029}\u{2026}"), false);
        assert_eq!(String::from_utf8(out).expect("utf-8"), "\"\u{2192}\\u2028x\\u2029\u{2026}\"\n");
    }

    /// The escapes of Go's encoder on top of serde_json's output, as plain text replacement.
    fn go_reference(value: &serde_json::Value) -> String {
        let text = serde_json::to_string(value).expect("serializes");
        let escaped = text.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026");
        escaped.replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029") + "\n"
    }

    #[test]
    fn go_escapes_match_go_around_multibyte_characters_and_json_escapes() {
        let strings = [
            "",
            "plain text with nothing to escape",
            "<",
            "a<b>c&d",
            "<<>>&&",
            "\u{2028}",
            "x\u{2029}y",
            "\u{2028}\u{2029}\u{2028}",
            // Other characters that start with the byte E2 stay as they are.
            "\u{2026}\u{2192}\u{2027}\u{202A}\u{20AC}",
            "\u{2026}<\u{2028}&\u{2192}",
            "caf\u{e9} <na\u{ef}ve> & \u{65e5}\u{672c}\u{8a9e} \u{1F642}&",
            "\u{e2}\u{80}\u{a8} are three Latin-1 characters, not U+2028",
            "\"quoted\"\n\t<tab>\\back\u{1}slash\u{2028}\"",
            "\u{2028}\"",
            "end with E2 character \u{2192}",
        ];
        for s in strings {
            let value = serde_json::json!({ "k<&>": s, "list": [s, s] });
            let compact = json(&value, false);
            assert_eq!(String::from_utf8(compact).expect("utf-8"), go_reference(&value), "{s:?}");
            let back: serde_json::Value = serde_json::from_slice(&json(&value, true)).expect("pretty json parses");
            assert_eq!(back, value, "{s:?}");
        }
    }

    #[test]
    fn json_with_a_small_or_large_capacity_writes_the_same_bytes() {
        let value = serde_json::json!({"a": "<b>", "c": [1, 2.5, null, true], "d": "x".repeat(1000)});
        assert_eq!(json_with_capacity(&value, false, 0), json(&value, false));
        assert_eq!(json_with_capacity(&value, false, 1 << 16), json(&value, false));
    }

    #[test]
    fn secret_data_is_tag_22_bytes_in_cbor() {
        let secret = serde_json::json!({"kind": "Secret", "data": {"k": "aGk="}});
        let decoded = kube_wire::codec::cbor::decode_cbor(&cbor(&secret)).expect("decodes");
        assert_eq!(decoded.get("data").and_then(|d| d.get("k")), Some(&Doc::Bytes(b"hi".to_vec())));
        let list = serde_json::json!({"kind": "SecretList", "items": [{"data": {"k": "aGk="}}]});
        let decoded = kube_wire::codec::cbor::decode_cbor(&cbor(&list)).expect("decodes");
        let item = decoded.get("items").and_then(|i| i.as_array()).and_then(|a| a.first().cloned());
        assert_eq!(
            item.and_then(|i| i.get("data").and_then(|d| d.get("k")).cloned()),
            Some(Doc::Bytes(b"hi".to_vec()))
        );
    }

    #[test]
    fn cbor_events_tag_the_embedded_object() {
        let bytes = cbor_event("ADDED", &serde_json::json!({"kind": "Pod"}));
        assert_eq!(&bytes[..3], &[0xd9, 0xd9, 0xf7]);
        let tags = bytes.windows(3).filter(|w| *w == [0xd9, 0xd9, 0xf7]).count();
        assert_eq!(tags, 2, "the event and its object each carry 55799");
        let event = kube_wire::codec::cbor::decode_cbor(&bytes).expect("decodes");
        assert_eq!(event.get("type").and_then(|t| t.as_str()), Some("ADDED"));
    }

    #[test]
    fn a_stored_documents_cbor_event_is_the_same_event_as_through_serde() {
        let secret =
            serde_json::json!({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}, "data": {"k": "aGk="}});
        let decode = |bytes: &[u8]| kube_wire::codec::cbor::decode_cbor(bytes).expect("decodes");
        let direct = decode(&cbor_event_document("MODIFIED", &secret, 0));
        // Key order is random in every encoding, so the trees are compared regardless of order.
        assert!(direct.equivalent(&decode(&cbor_event("MODIFIED", &secret))), "{direct:?}");
        assert!(decode(&cbor_document(&secret)).equivalent(&decode(&cbor(&secret))));
        let object = direct.get("object").and_then(|o| o.get("data")).and_then(|d| d.get("k")).cloned();
        assert_eq!(object, Some(Doc::Bytes(b"hi".to_vec())), "the Secret's data stays bytes");
    }

    #[test]
    fn documents_encode_as_their_library_tree_whether_plain_or_not() {
        let documents = [
            serde_json::json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}, "status": {"phase": "Running"}}),
            serde_json::json!({"kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "aGk=", "bad": "%%"}}),
            serde_json::json!({"kind": "ConfigMap", "data": {"k": "aGk="}, "binaryData": {"b": "aGk="}}),
            serde_json::json!({"kind": "SecretList", "items": [{"data": {"k": "aGk="}}], "metadata": {}}),
            serde_json::json!({"kind": "Table", "rows": [{"cells": ["a"], "object": {"kind": "Secret", "data": {"k": "aGk="}}}]}),
            serde_json::json!({"type": "ADDED", "object": {"kind": "Secret", "data": {"k": "aGk="}}}),
            serde_json::json!({"kind": "Custom", "items": "not a list", "object": 1, "rows": {}}),
            serde_json::json!([1, "two", {"three": 3}]),
        ];
        for (d, doc) in documents.iter().enumerate() {
            for seed in [1, 2, 0xdead_beef_u64] {
                let mut direct = Vec::new();
                write_cbor_document(doc, seed, &mut direct);
                let through_tree = encode_cbor(&document(doc, None), CborEncoding::SERVER.shuffled(seed));
                assert_eq!(direct, through_tree, "document {d}, seed {seed}");
            }
        }
        assert!(is_plain(&documents[0]) && !is_plain(&documents[1]) && !is_plain(&documents[2]));
    }

    #[test]
    fn a_cbor_event_of_a_document_is_the_event_map_around_its_object() {
        let pod = serde_json::json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p"}});
        let bytes = cbor_event_document("MODIFIED", &pod, 4096);
        let mut wrapper = DocMap::new();
        wrapper.insert("type", Doc::String("MODIFIED".into()));
        wrapper.insert("object", Doc::Null);
        let head = encode_cbor(&Doc::Object(wrapper), CborEncoding::SERVER);
        assert_eq!(bytes[..head.len() - 1], head[..head.len() - 1]);
        let object = kube_wire::codec::cbor::decode_cbor(&bytes[head.len() - 1..]).expect("object decodes");
        assert!(object.equivalent(&Doc::from_serde_json(&pod)));
        assert_eq!(bytes.len(), cbor_event_document("MODIFIED", &pod, 0).len());
    }

    #[test]
    fn pretty_json_indents_by_two() {
        let out = json(&serde_json::json!({"a": 1}), true);
        assert_eq!(out, b"{\n  \"a\": 1\n}\n");
    }
}
