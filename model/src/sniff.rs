//! Guessing the media type of a captured body from its first bytes, for the "decode a captured
//! body" tool, when the person does not say what it is.

use crate::i18n::{Localized, Msg, Text};
use kube_wire::body::{decode_body, decode_watch_body};
use kube_wire::codec::cbor::SELF_DESCRIBED_PREFIX;
use kube_wire::codec::protobuf::MAGIC;
use kube_wire::codec::value::Value;
use kube_wire::media_type::MediaType;

/// The media type `body` most likely has: CBOR when it starts with the self-described tag (a
/// CBOR sequence when more than one item follows is the decoder's business), protobuf when it
/// starts with the `k8s\0` magic, JSON when its first non-blank byte opens a JSON value, and YAML
/// otherwise.
pub fn sniff(body: &[u8]) -> MediaType {
    if body.starts_with(&SELF_DESCRIBED_PREFIX) {
        return MediaType::cbor();
    }
    if body.starts_with(&MAGIC) {
        return MediaType::protobuf();
    }
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') | Some(b'[') | Some(b'"') => MediaType::json(),
        _ => MediaType::yaml(),
    }
}

/// Decodes a captured body as `choice` says (a media type, or `auto` to [`sniff`] it): a watch
/// stream as the array of its events, anything else as its document. The error names `source`
/// (a file name, or "pasted text"), the media type and what the decoder expected where.
pub fn decode_captured(choice: &str, source: &str, bytes: &[u8]) -> Result<(MediaType, Value), Text> {
    let media_type = if choice == "auto" { sniff(bytes) } else { choice.parse::<MediaType>().map_err(|e| e.text())? };
    let watch = media_type.is_watch_stream() || choice == "application/json;stream=watch";
    let decoded = if watch {
        decode_watch_body(&media_type, bytes).map(Value::Array)
    } else {
        decode_body(&media_type, bytes).map(|d| d.to_value())
    };
    match decoded {
        Ok(document) => Ok((media_type, document)),
        Err(error) => Err(Text::new(Msg::DecodeNotValid)
            .with("source", source)
            .with("media_type", &media_type)
            .with_text("error", error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::testdata::shared_file;

    #[track_caller]
    fn check(path: &str, expect: MediaType) {
        assert_eq!(sniff(&shared_file(path)), expect, "{path}");
    }

    #[test]
    fn every_vector_is_recognised_by_its_first_bytes() {
        check("kube/vectors/pod.json", MediaType::json());
        check("kube/vectors/pod.yaml", MediaType::yaml());
        check("kube/vectors/pod.cbor", MediaType::cbor());
        check("kube/vectors/pod.pb", MediaType::protobuf());
        check("kube/cbor/podlist_kube-system.cbor", MediaType::cbor());
    }

    #[test]
    fn leading_blanks_do_not_hide_json() {
        assert_eq!(sniff(b"\n  {\"kind\":\"Pod\"}"), MediaType::json());
        assert_eq!(sniff(b""), MediaType::yaml());
    }

    #[test]
    fn a_captured_body_is_decoded_as_chosen_or_as_sniffed() {
        let (media_type, document) = decode_captured("auto", "pasted text", br#"{"kind":"Pod"}"#).expect("json");
        assert_eq!(media_type, MediaType::json());
        assert_eq!(document.get("kind").and_then(Value::as_str), Some("Pod"));
        let (_, events) = decode_captured(
            "application/json;stream=watch",
            "pasted text",
            b"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\"}}\n{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\"}}\n",
        )
        .expect("a watch stream");
        assert_eq!(events.as_array().map(<[Value]>::len), Some(2));
        let error = decode_captured("application/json", "body.json", b"{\"kind\":").expect_err("cut short");
        assert!(error.to_string().starts_with("body.json is not valid application/json: "), "{error}");
        assert!(decode_captured("not a type", "x", b"").expect_err("bad type").to_string().contains("not a type"));
    }
}
