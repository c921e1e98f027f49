//! Serializing response bodies the way the real server writes them: compact JSON ending in `\n`
//! with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go does, indented JSON when the client asks
//! for `pretty` (or is a browser, curl or wget and does not say `pretty=false`), YAML, and CBOR
//! in the server's form through the library's encoder (tag 55799, byte strings, `[]byte` fields
//! as tag 22, keys shuffled per response as the real server's encoder does).

use std::io;

use bytes::Bytes;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use kube_api_explorer::api::cbor::{encode_cbor, CborEncoding};
use kube_api_explorer::api::value::{Map as DocMap, Value as Doc};

use crate::negotiate::Format;

/// Escapes the characters Go's encoder escapes; otherwise serde_json's compact form.
struct GoEscapes<F>(F);

impl<F: Formatter> Formatter for GoEscapes<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            let escaped = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&fragment.as_bytes()[start..i])?;
            writer.write_all(escaped.as_bytes())?;
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
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
    let mut out = Vec::with_capacity(256);
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

pub fn body<T: Serialize + ?Sized>(format: Format, value: &T, pretty: bool) -> Bytes {
    Bytes::from(match format {
        Format::Json => json(value, pretty),
        Format::Yaml => yaml(value),
        Format::Cbor => cbor(value),
    })
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
    encode_cbor(&document(tree, None), CborEncoding::SERVER.shuffled(rand::random()))
}

/// One CBOR watch event, `55799({type, object: 55799(object)})` as the server frames it: the
/// event map is encoded by the library around a null placeholder for the object, which is then
/// replaced by the object's own self-described encoding.
pub fn cbor_event<T: Serialize + ?Sized>(event_type: &str, object: &T) -> Vec<u8> {
    cbor_event_around(event_type, cbor(object))
}

/// [`cbor_event`] of a document (a stored object).
pub fn cbor_event_document(event_type: &str, object: &serde_json::Value) -> Vec<u8> {
    cbor_event_around(event_type, cbor_document(object))
}

fn cbor_event_around(event_type: &str, object: Vec<u8>) -> Vec<u8> {
    let mut wrapper = DocMap::new();
    wrapper.insert("type", Doc::String(event_type.to_string()));
    wrapper.insert("object", Doc::Null);
    let mut out = encode_cbor(&Doc::Object(wrapper), CborEncoding::SERVER);
    // The placeholder is the last item written: CBOR null, one byte.
    if out.last() == Some(&0xf6) {
        out.pop();
        out.extend(object);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_like_go_and_ends_with_newline() {
        let out = json(&serde_json::json!({"a": "<b>&"}), false);
        assert_eq!(out, b"{\"a\":\"\\u003cb\\u003e\\u0026\"}\n");
    }

    #[test]
    fn secret_data_is_tag_22_bytes_in_cbor() {
        let secret = serde_json::json!({"kind": "Secret", "data": {"k": "aGk="}});
        let decoded = kube_api_explorer::api::cbor::decode_cbor(&cbor(&secret)).expect("decodes");
        assert_eq!(decoded.get("data").and_then(|d| d.get("k")), Some(&Doc::Bytes(b"hi".to_vec())));
        let list = serde_json::json!({"kind": "SecretList", "items": [{"data": {"k": "aGk="}}]});
        let decoded = kube_api_explorer::api::cbor::decode_cbor(&cbor(&list)).expect("decodes");
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
        let event = kube_api_explorer::api::cbor::decode_cbor(&bytes).expect("decodes");
        assert_eq!(event.get("type").and_then(|t| t.as_str()), Some("ADDED"));
    }

    #[test]
    fn a_stored_documents_cbor_event_is_the_same_event_as_through_serde() {
        let secret =
            serde_json::json!({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}, "data": {"k": "aGk="}});
        let decode = |bytes: &[u8]| kube_api_explorer::api::cbor::decode_cbor(bytes).expect("decodes");
        let direct = decode(&cbor_event_document("MODIFIED", &secret));
        // Key order is random in every encoding, so the trees are compared regardless of order.
        assert!(direct.equivalent(&decode(&cbor_event("MODIFIED", &secret))), "{direct:?}");
        assert!(decode(&cbor_document(&secret)).equivalent(&decode(&cbor(&secret))));
        let object = direct.get("object").and_then(|o| o.get("data")).and_then(|d| d.get("k")).cloned();
        assert_eq!(object, Some(Doc::Bytes(b"hi".to_vec())), "the Secret's data stays bytes");
    }

    #[test]
    fn pretty_json_indents_by_two() {
        let out = json(&serde_json::json!({"a": 1}), true);
        assert_eq!(out, b"{\n  \"a\": 1\n}\n");
    }
}
