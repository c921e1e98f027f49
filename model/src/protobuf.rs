//! A protobuf body to show decoded in full (by the on-demand part `ui::protobuf`): a response's
//! envelope, or a captured body or watch stream. What it shows: the document decoded in full, or
//! why not (naming the apiVersion and kind) with the envelope, which is always readable.

use std::sync::Arc;

use kube_wire::body::{decode_body, decode_body_in_full, decode_watch_body, decode_watch_body_in_full, BodyError};
use kube_wire::codec::protobuf::Envelope;
use kube_wire::codec::protobuf_full::object_in_full;
pub use kube_wire::codec::protobuf_full::InFullDecoder;
use kube_wire::codec::value::Value;
use kube_wire::error::Format;
use kube_wire::media_type::MediaType;

/// Whether an answer says its type has no protobuf form (a custom resource, a type of an
/// aggregated API server): protobuf was asked for first (`accept`, the request's header), and the
/// server answered with another type (the JSON fallback) or 406 Not Acceptable, as the real
/// server does (real-apiserver 43b).
pub fn protobuf_not_served(accept: &str, status: u16, content_type: Option<&MediaType>) -> bool {
    let is_protobuf = |m: &MediaType| m.essence.format() == Some(Format::Protobuf);
    let asked = accept.split(',').next().and_then(|first| first.trim().parse::<MediaType>().ok());
    if !asked.as_ref().is_some_and(is_protobuf) {
        return false;
    }
    status == 406 || ((200..300).contains(&status) && !content_type.is_some_and(is_protobuf))
}

/// The decoder of protobuf objects a reflector reads protobuf list pages and watches with: to be
/// called only from the on-demand part (`ui::protobuf`), so that the messages stay out of the
/// page load.
pub fn objects_decoder() -> InFullDecoder {
    InFullDecoder::of_k8s_pb()
}

/// What to decode in full.
#[derive(Debug, Clone, PartialEq)]
pub enum ProtobufBody {
    /// A response's envelope; `raw` (the body's bytes) enables the hex view.
    Envelope { envelope: Arc<Envelope>, raw: Option<Arc<[u8]>> },
    /// A captured body of a protobuf media type (`;stream=watch` for a watch).
    Captured { media_type: MediaType, bytes: Arc<[u8]> },
}

/// What a protobuf body shows.
#[derive(Debug, Clone, PartialEq)]
pub enum InFull {
    /// The object or list, or the watch's events (`{"type","object"}` each).
    Decoded(Value),
    /// Why not, and the envelope (or the events with their envelopes) when the body has one.
    NotDecoded { why: BodyError, envelope: Option<Value> },
}

impl ProtobufBody {
    /// A captured body to decode in full, when `media_type` is a protobuf one.
    pub fn captured(media_type: &MediaType, bytes: Arc<[u8]>) -> Option<ProtobufBody> {
        (media_type.essence.format() == Some(Format::Protobuf))
            .then(|| ProtobufBody::Captured { media_type: media_type.clone(), bytes })
    }

    /// Decodes the body in full.
    pub fn in_full(&self) -> InFull {
        let decoded = match self {
            ProtobufBody::Envelope { envelope, .. } => object_in_full(envelope).map_err(BodyError::from),
            ProtobufBody::Captured { media_type, bytes } if media_type.is_watch_stream() => {
                decode_watch_body_in_full(media_type, bytes).map(Value::Array)
            }
            ProtobufBody::Captured { media_type, bytes } => decode_body_in_full(media_type, bytes),
        };
        match decoded {
            Ok(document) => InFull::Decoded(document),
            Err(why) => InFull::NotDecoded { why, envelope: self.envelope() },
        }
    }

    /// What the envelope (or each event's) says, when the body is readable that far.
    fn envelope(&self) -> Option<Value> {
        match self {
            ProtobufBody::Envelope { envelope, .. } => Some(envelope.summary()),
            ProtobufBody::Captured { media_type, bytes } if media_type.is_watch_stream() => {
                decode_watch_body(media_type, bytes).ok().map(Value::Array)
            }
            ProtobufBody::Captured { media_type, bytes } => decode_body(media_type, bytes).ok().map(|d| d.to_value()),
        }
    }

    /// The body's bytes, for the hex view.
    pub fn raw(&self) -> Option<Arc<[u8]>> {
        match self {
            ProtobufBody::Envelope { raw, .. } => raw.clone(),
            ProtobufBody::Captured { bytes, .. } => Some(bytes.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::codec::protobuf::decode_envelope;
    use kube_wire::codec::protobuf_full::InFullError;
    use kube_wire::testdata::shared_file;

    fn captured(media_type: &str, file: &str) -> ProtobufBody {
        let media_type: MediaType = media_type.parse().expect("media type");
        ProtobufBody::captured(&media_type, Arc::from(shared_file(file))).expect("a protobuf type")
    }

    #[test]
    fn protobuf_not_served_is_a_fallback_or_a_406_to_a_protobuf_request() {
        let (protobuf, json) = (MediaType::protobuf(), MediaType::json());
        let asked = "application/vnd.kubernetes.protobuf,application/json";
        assert!(protobuf_not_served(asked, 200, Some(&json)), "the JSON fallback");
        assert!(protobuf_not_served("application/vnd.kubernetes.protobuf", 406, Some(&protobuf)), "406 in protobuf");
        assert!(!protobuf_not_served(asked, 200, Some(&protobuf)), "served");
        assert!(!protobuf_not_served(asked, 404, Some(&json)), "another failure");
        assert!(!protobuf_not_served("application/json", 406, Some(&json)), "protobuf not asked for");
    }

    #[test]
    fn a_response_envelope_shows_its_pod_decoded_in_full() {
        let envelope = Arc::new(decode_envelope(&shared_file("kube/vectors/pod.pb")).expect("envelope"));
        match (ProtobufBody::Envelope { envelope, raw: None }).in_full() {
            InFull::Decoded(pod) => assert!(pod.get("spec").and_then(|s| s.get("containers")).is_some()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_captured_watch_shows_each_event_with_its_object() {
        let body = captured("application/vnd.kubernetes.protobuf;stream=watch", "kube/vectors/watch.pbstream");
        match body.in_full() {
            InFull::Decoded(Value::Array(events)) => {
                assert_eq!(events.len(), 4);
                let types: Vec<_> = events.iter().filter_map(|e| e.get("type").and_then(Value::as_str)).collect();
                assert_eq!(types, ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(body.raw().is_some_and(|raw| !raw.is_empty()));
    }

    #[test]
    fn a_type_without_a_message_says_so_and_keeps_its_envelope() {
        let envelope = Envelope { api_version: "example.com/v1".into(), kind: "Widget".into(), ..Envelope::default() };
        match (ProtobufBody::Envelope { envelope: Arc::new(envelope), raw: None }).in_full() {
            InFull::NotDecoded {
                why: BodyError::InFull(InFullError::NoMessage { kind, .. }),
                envelope: Some(summary),
            } => {
                assert_eq!(kind, "Widget");
                assert_eq!(summary.get("kind").and_then(Value::as_str), Some("Widget"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_objects_decoder_reads_a_watch_frames_pod() {
        let mut framer = kube_wire::watch::ProtobufFramer::new();
        let events =
            kube_wire::watch::Framer::push(&mut framer, &shared_file("kube/vectors/watch.pbstream")).expect("frames");
        let event = objects_decoder().event(&events[0]).expect("decodes");
        assert_eq!(event.get("type").and_then(Value::as_str), Some("ADDED"));
        assert_eq!(event.at(&["object", "kind"]).and_then(Value::as_str), Some("Pod"));
    }

    #[test]
    fn only_a_protobuf_media_type_is_decoded_in_full() {
        assert!(ProtobufBody::captured(&MediaType::cbor(), Arc::from(&b""[..])).is_none());
    }

    #[test]
    fn a_captured_body_that_is_no_protobuf_has_no_envelope_to_show() {
        let body = ProtobufBody::Captured { media_type: MediaType::protobuf(), bytes: Arc::from(&b"{}"[..]) };
        assert!(matches!(body.in_full(), InFull::NotDecoded { why: BodyError::Decode(_), envelope: None }));
    }
}
