//! Guessing the media type of a captured body from its first bytes, for the "decode a captured
//! body" tool, when the person does not say what it is.

use crate::api::codec::cbor::SELF_DESCRIBED_PREFIX;
use crate::api::codec::protobuf::MAGIC;
use crate::api::media_type::MediaType;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::testdata::shared_file;

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
}
