//! Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) to JSON, shared by kube-sim (which
//! reads protobuf request bodies with it) and the explorer (which shows protobuf responses and
//! watch streams decoded in full, in a wasm part of their own).
//!
//! A body is the `k8s\0` magic, then a `runtime.Unknown` whose `typeMeta` names the apiVersion and
//! kind and whose `raw` holds the object's message. The messages are decoded with k8s-pb (kube-rs's
//! prost bindings of the Kubernetes .proto files) and turned into the JSON the real server writes
//! for the same object by `generated.rs` (`tools/gen-protobuf-json.py`, from k8s-pb and
//! k8s-openapi) plus the hand-written JSON forms of the few messages whose JSON is not an object
//! of their fields (`to_json`). Objects and their `…List` kinds of the stable built-in groups,
//! `PartialObjectMetadata(List)` and `Status` have a message; custom resources and types of
//! aggregated API servers have none (the server answers them in JSON, or 406).
//!
//! Go's JSON encoder leaves out the fields a client did not set (`omitempty`), while the
//! protobuf encoder writes every non-pointer field: a field whose value is the zero of its type
//! (empty string, `false`, `0`, an empty list or map, the zero time) is left out here, unless
//! the field is required or its zero differs from leaving it out (a pointer, or a server
//! default other than zero: `spec.replicas: 0` stays). A pointer set to a zero that equals its
//! default (`immutable: false`) is left out, which the real server would keep.
//!
//! A string field whose bytes are not UTF-8 reads with U+FFFD for each bad byte, as the real
//! server's JSON writes it (`lenient`), where prost alone would refuse the message.
//!
//! Invariants: nothing here panics on any input; a body that is not what it should be is a
//! [`DecodeError`] naming what was expected and where (the message path prost reports).

mod generated;
mod lenient;
mod to_json;

pub use to_json::{go_duration, is_zero};

use prost::Message;
use serde_json::{json, Value};
use to_json::ToJson;

use k8s_pb::apimachinery::pkg::apis::meta::v1::WatchEvent;
use k8s_pb::apimachinery::pkg::runtime::{RawExtension, Unknown};

/// The four bytes every protobuf body starts with.
pub const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body could not be turned into JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The body does not start with the magic (the real server's words).
    #[error("provided object is not a Kubernetes protobuf message: the body does not start with \"k8s\\x00\"")]
    NoMagic,
    /// The `runtime.Unknown` after the magic is not a valid message.
    #[error("runtime.Unknown envelope: {0}")]
    Envelope(String),
    /// The envelope says its raw bytes are encoded (compressed), which no server does.
    #[error("unsupported contentEncoding {0:?} in the runtime.Unknown envelope")]
    ContentEncoding(String),
    /// The envelope names no kind.
    #[error("Object 'Kind' is missing in the runtime.Unknown envelope")]
    MissingKind,
    /// No message is known for the type: a custom resource, a type of an aggregated API server,
    /// or one newer than k8s-pb (the real server's words).
    #[error("no kind \"{kind}\" is registered for version \"{api_version}\" in protobuf")]
    NoMessage { api_version: String, kind: String },
    /// The raw bytes are not a valid message of the type the envelope names.
    #[error("{api_version} {kind}: {error}")]
    Message { api_version: String, kind: String, error: String },
    /// A watch frame is not a valid `WatchEvent`, or its object is not a valid body.
    #[error("watch event: {0}")]
    WatchEvent(String),
}

/// Reads a `k8s\0` + `runtime.Unknown` body into the object's (or list's) JSON, with apiVersion
/// and kind set from the envelope's typeMeta.
pub fn decode_object(body: &[u8]) -> Result<Value, DecodeError> {
    let rest = body.strip_prefix(MAGIC).ok_or(DecodeError::NoMagic)?;
    let unknown = Unknown::decode(rest).map_err(|e| DecodeError::Envelope(e.to_string()))?;
    if let Some(encoding) = unknown.content_encoding.filter(|e| !e.is_empty()) {
        return Err(DecodeError::ContentEncoding(encoding));
    }
    let type_meta = unknown.type_meta.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    if kind.is_empty() {
        return Err(DecodeError::MissingKind);
    }
    raw_to_json(&api_version, &kind, unknown.raw.as_deref().unwrap_or_default())
}

/// The JSON of `raw`, the message of an object (or list) of `api_version` `kind` as an envelope
/// carries it, with apiVersion and kind set.
pub fn raw_to_json(api_version: &str, kind: &str, raw: &[u8]) -> Result<Value, DecodeError> {
    let no_message = || DecodeError::NoMessage { api_version: api_version.to_owned(), kind: kind.to_owned() };
    let mut value = generated::object_to_json(api_version, kind, raw).ok_or_else(no_message)?.map_err(|e| {
        DecodeError::Message { api_version: api_version.to_owned(), kind: kind.to_owned(), error: e.to_string() }
    })?;
    if let Some(m) = value.as_object_mut() {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(kind));
    }
    // The protobuf message of a metadata-only list's item has no TypeMeta, but the real server
    // sets it on every item before writing (apiserver/pkg/endpoints/handlers/response.go,
    // `asPartialObjectMetadataList`), so its JSON has it (real-apiserver 40 and 42).
    if kind == "PartialObjectMetadataList" {
        let items = value.get_mut("items").and_then(Value::as_array_mut);
        for item in items.into_iter().flatten().filter_map(Value::as_object_mut) {
            item.insert("apiVersion".into(), json!(api_version));
            item.insert("kind".into(), json!("PartialObjectMetadata"));
        }
    }
    Ok(value)
}

/// Whether objects or lists of `api_version` `kind` have a message here.
pub fn has_message(api_version: &str, kind: &str) -> bool {
    generated::object_to_json(api_version, kind, &[]).is_some()
}

/// One frame of a protobuf watch (`;stream=watch`, without its 4-byte length): a `WatchEvent`
/// whose object's raw bytes carry a full body. Its JSON is what a JSON watch writes for the same
/// event: `{"type": …, "object": {…}}`.
pub fn watch_event_to_json(frame: &[u8]) -> Result<Value, DecodeError> {
    let event = WatchEvent::decode(frame).map_err(|e| DecodeError::WatchEvent(e.to_string()))?;
    let raw = event.object.and_then(|o| o.raw).unwrap_or_default();
    let object = decode_object(&raw).map_err(|e| DecodeError::WatchEvent(format!("object: {e}")))?;
    Ok(json!({"type": event.r#type.unwrap_or_default(), "object": object}))
}

/// An embedded object: JSON bytes, or a nested protobuf body (read by [`decode_object`], which is
/// why this impl lives here and not with the other forms in `to_json`). Bytes that are neither
/// give no value.
impl ToJson for RawExtension {
    fn to_json(&self) -> Value {
        let raw = self.raw.as_deref().unwrap_or_default();
        if raw.starts_with(MAGIC) {
            return decode_object(raw).unwrap_or(Value::Null);
        }
        serde_json::from_slice(raw).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests;
