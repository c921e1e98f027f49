//! Protobuf decoded in full: the object (or list) inside a `runtime.Unknown` envelope read as its
//! k8s-pb message and turned into the JSON the server writes for it (the crate `kube-pb-json`,
//! which kube-sim shares), as the document model the other representations give.
//!
//! Only the on-demand wasm part `protobuf` (`ui::lazy`) and `kube-decode` call this: prost and
//! the generated code of every built-in message stay out of the page load. Invariant: a type
//! without a message (a custom resource, a type of an aggregated API server, one newer than
//! k8s-pb) is an error naming its apiVersion and kind, never a guess; the envelope is still
//! what [`super::protobuf`] reads.

use crate::codec::protobuf::{Envelope, ProtobufWatchEvent};
use crate::codec::value::{Map, Value};

/// Why an envelope's object could not be decoded in full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InFullError {
    /// No message is known for the type.
    #[error(
        "{api_version} {kind} has no protobuf message here: custom resources, the types of aggregated API servers \
         and types newer than the explorer's k8s-pb messages have none"
    )]
    NoMessage { api_version: String, kind: String },
    /// The raw bytes are not a valid message of the type the envelope names; `problem` is
    /// prost's account of it (the message and field it was reading).
    #[error("the {api_version} {kind} message could not be decoded: {problem}")]
    Message { api_version: String, kind: String, problem: String },
}

/// The envelope's object as a document, with its apiVersion and kind.
pub fn object_in_full(envelope: &Envelope) -> Result<Value, InFullError> {
    use kube_pb_json::DecodeError;
    match kube_pb_json::raw_to_json(&envelope.api_version, &envelope.kind, &envelope.raw) {
        Ok(json) => Ok(Value::from(json)),
        Err(DecodeError::NoMessage { api_version, kind }) => Err(InFullError::NoMessage { api_version, kind }),
        Err(DecodeError::Message { api_version, kind, error }) => {
            Err(InFullError::Message { api_version, kind, problem: error })
        }
        // raw_to_json reads no envelope, so nothing else can come; say what did if it ever does.
        Err(other) => Err(InFullError::Message {
            api_version: envelope.api_version.clone(),
            kind: envelope.kind.clone(),
            problem: other.to_string(),
        }),
    }
}

/// A watch event as a JSON watch writes it: `{"type": …, "object": {…}}`.
pub fn event_in_full(event: &ProtobufWatchEvent) -> Result<Value, InFullError> {
    let mut map = Map::new();
    map.insert("type", Value::String(event.event_type.clone()));
    map.insert("object", object_in_full(&event.object)?);
    Ok(Value::Object(map))
}

/// [`object_in_full`] and [`event_in_full`] as a value: what the edge hands to the core (the live
/// view's watch decoder, its list pages) once the on-demand part that holds the messages has
/// arrived. The core cannot call them itself without pulling prost and every message into the
/// page load.
#[derive(Debug, Clone, Copy)]
pub struct InFullDecoder {
    object: fn(&Envelope) -> Result<Value, InFullError>,
    event: fn(&ProtobufWatchEvent) -> Result<Value, InFullError>,
}

impl InFullDecoder {
    /// The decoder of the k8s-pb messages; made only by code of the on-demand part (and by
    /// native callers).
    pub fn of_k8s_pb() -> InFullDecoder {
        InFullDecoder { object: object_in_full, event: event_in_full }
    }

    /// The envelope's object as a document, with its apiVersion and kind.
    pub fn object(&self, envelope: &Envelope) -> Result<Value, InFullError> {
        (self.object)(envelope)
    }

    /// A watch event as a JSON watch writes it: `{"type": …, "object": {…}}`.
    pub fn event(&self, event: &ProtobufWatchEvent) -> Result<Value, InFullError> {
        (self.event)(event)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codec::json::decode_json;
    use crate::codec::protobuf::decode_envelope;
    use crate::testdata::shared_file;
    use crate::watch::{Framer, ProtobufFramer};

    /// The document as serde_json's tree without null fields (Go writes a required field that is
    /// unset as `null`, the protobuf form leaves it out) and without `spec.priority` and
    /// `metadata.deletionGracePeriodSeconds`: the vectors' pods set them to 0, pointers the
    /// protobuf form cannot tell from unset (kube-pb-json's tests list each difference).
    pub(crate) fn comparable(value: &Value) -> serde_json::Value {
        fn strip(value: &mut serde_json::Value) {
            match value {
                serde_json::Value::Object(map) => {
                    map.retain(|_, v| !v.is_null());
                    if let Some(spec) = map.get_mut("spec").and_then(serde_json::Value::as_object_mut) {
                        spec.remove("priority");
                    }
                    if let Some(meta) = map.get_mut("metadata").and_then(serde_json::Value::as_object_mut) {
                        meta.remove("deletionGracePeriodSeconds");
                    }
                    map.values_mut().for_each(strip);
                }
                serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
                _ => {}
            }
        }
        let mut json = value.to_serde_json();
        strip(&mut json);
        json
    }

    #[track_caller]
    fn check(vector: &str, json: &str) {
        let envelope = decode_envelope(&shared_file(vector)).expect("an envelope");
        let got = object_in_full(&envelope).expect("decodes in full");
        let want = decode_json(&shared_file(json)).expect("json");
        assert_eq!(comparable(&got), comparable(&want), "{vector} against {json}");
    }

    #[test]
    fn a_pod_and_a_pod_list_decode_to_their_json() {
        check("kube/vectors/pod.pb", "kube/vectors/pod.json");
        check("kube/vectors/podlist.pb", "kube/vectors/podlist.json");
    }

    #[test]
    fn every_event_of_a_protobuf_watch_decodes_to_the_json_watchs_event() {
        let mut framer = ProtobufFramer::new();
        let events = framer.push(&shared_file("kube/vectors/watch.pbstream")).expect("frames");
        let lines = shared_file("kube/vectors/watch.jsonl");
        let want: Vec<Value> =
            lines.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| decode_json(l).expect("json")).collect();
        assert_eq!(events.len(), want.len());
        for (event, want) in events.iter().zip(want) {
            assert_eq!(comparable(&event_in_full(event).expect("decodes")), comparable(&want));
        }
    }

    #[test]
    fn a_custom_resource_has_no_message_and_says_which_type() {
        let envelope = Envelope { api_version: "example.com/v1".into(), kind: "Widget".into(), ..Envelope::default() };
        let err = object_in_full(&envelope).expect_err("no message");
        assert_eq!(err, InFullError::NoMessage { api_version: "example.com/v1".into(), kind: "Widget".into() });
        assert!(err.to_string().contains("example.com/v1 Widget"), "{err}");
    }

    #[test]
    fn a_cut_message_names_its_type_and_what_prost_was_reading() {
        let mut envelope = decode_envelope(&shared_file("kube/vectors/pod.pb")).expect("an envelope");
        envelope.raw.truncate(envelope.raw.len() / 2);
        match object_in_full(&envelope) {
            Err(InFullError::Message { api_version, kind, problem }) => {
                assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Pod"));
                assert!(problem.contains("failed to decode Protobuf message"), "{problem}");
            }
            other => panic!("{other:?}"),
        }
    }
}
