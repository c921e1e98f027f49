//! Whole response bodies by `Content-Type`: one entry point for a body that has fully arrived,
//! used by `kube-decode` and by tests (the client feeds streams chunk by chunk to
//! [`watch`](crate::watch) instead).
//!
//! Invariant: the media type alone picks the decoder; a body of a type the app cannot decode is
//! an error naming the type, never a guess.

use crate::codec::cbor::decode_cbor;
use crate::codec::json::decode_json;
use crate::codec::protobuf::{decode_envelope, Envelope};
use crate::codec::protobuf_full::{event_in_full, object_in_full, InFullError};
use crate::codec::value::Value;
use crate::codec::yaml::decode_yaml;
use crate::error::{DecodeError, Format};
use crate::media_type::MediaType;
use crate::view::table::{check_row_widths, RowWidth};
use crate::watch::Framer;
use crate::watch::{CborSeqFramer, JsonFramer, ProtobufFramer, StreamError};

/// A decoded body: a document, or a protobuf envelope (whose raw object is not decoded).
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    Document(Value),
    Envelope(Envelope),
}

impl Decoded {
    /// The document, or the envelope's summary, as the Kubernetes JSON form sees it.
    pub fn to_value(&self) -> Value {
        match self {
            Decoded::Document(value) => value.clone(),
            Decoded::Envelope(envelope) => envelope.summary(),
        }
    }
}

/// A body that could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BodyError {
    #[error("expected a JSON, YAML, CBOR or protobuf media type, found {0}")]
    Unsupported(String),
    #[error("expected a watch media type (JSON, CBOR or protobuf), found {0}: YAML has no watch framing")]
    NoWatchFraming(String),
    /// A YAML body reached a part of the program built without the YAML decoder
    /// ([`decode_body_with`]).
    #[error("a YAML body, and the YAML decoder is not loaded")]
    YamlNotLoaded,
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// A protobuf body whose object could not be decoded in full.
    #[error(transparent)]
    InFull(#[from] InFullError),
    /// Event `number` (from 1) of a protobuf watch could not be decoded in full.
    #[error("watch event {number}: {error}")]
    InFullEvent { number: usize, error: InFullError },
    /// A Table whose rows do not match its columns.
    #[error(transparent)]
    TableRows(#[from] RowWidth),
}

/// The most bytes of one whole answer the client reads: 128 MiB, several times a page of 5000
/// large objects (the largest page size the explorer asks for). A body that goes on past it is
/// cut there (a server that never ends its body would otherwise fill the page's memory).
pub const MAX_BODY_BYTES: usize = 128 * 1024 * 1024;

/// A whole body, taken chunk by chunk as it arrives, refused once it passes its limit.
#[derive(Debug)]
pub struct BoundedBody {
    bytes: Vec<u8>,
    limit: usize,
}

/// A body that passed its limit: `limit` bytes were kept, and more came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the answer was cut at {limit} bytes, the most the explorer reads of one answer, and it had not ended (a server that never ends its body does this)")]
pub struct BodyTooLarge {
    pub limit: usize,
}

impl BoundedBody {
    /// An empty body that takes at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        BoundedBody { bytes: Vec::new(), limit }
    }

    /// Appends `chunk`, or refuses it (keeping nothing of it) when the body would pass the limit.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), BodyTooLarge> {
        if chunk.len() > self.limit - self.bytes.len() {
            return Err(BodyTooLarge { limit: self.limit });
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    /// The bytes taken so far.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing was taken.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The whole body.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

fn format_of(content_type: &MediaType) -> Result<Format, BodyError> {
    content_type.essence.format().ok_or_else(|| BodyError::Unsupported(content_type.to_string()))
}

/// Decodes one non-streaming body.
pub fn decode_body(content_type: &MediaType, body: &[u8]) -> Result<Decoded, BodyError> {
    decode_body_with(content_type, body, |yaml| Ok(decode_yaml(yaml)?))
}

/// A YAML decoder for [`decode_body_with`].
pub type YamlDecoder = fn(&[u8]) -> Result<Value, BodyError>;

/// Like [`decode_body`], with the YAML decoder given: a program that keeps the YAML parser out of
/// one of its parts (the explorer's page load: the parser is a good part of it, and only the
/// screens that ask for YAML need it) passes one that refuses with [`BodyError::YamlNotLoaded`]
/// until that part is loaded.
/// A Table whose rows do not match its columns is refused ([`BodyError::TableRows`]).
pub fn decode_body_with(content_type: &MediaType, body: &[u8], yaml: YamlDecoder) -> Result<Decoded, BodyError> {
    let decoded = match format_of(content_type)? {
        Format::Json => Decoded::Document(decode_json(body)?),
        Format::Yaml => Decoded::Document(yaml(body)?),
        Format::Cbor => Decoded::Document(decode_cbor(body)?),
        Format::Protobuf => {
            let envelope = decode_envelope(body)?;
            match envelope.status()? {
                Some(status) => Decoded::Document(status),
                None => Decoded::Envelope(envelope),
            }
        }
    };
    if let Decoded::Document(document) = &decoded {
        check_row_widths(document)?;
    }
    Ok(decoded)
}

/// Frames and decodes a complete watch body into event documents (`{"type","object"}`; for
/// protobuf the object is the envelope summary). A body that ends inside an event is an error.
pub fn decode_watch_body(content_type: &MediaType, body: &[u8]) -> Result<Vec<Value>, BodyError> {
    Ok(match format_of(content_type)? {
        Format::Json => {
            let mut framer = JsonFramer::new();
            let events = framer.push(body)?;
            framer.finish()?;
            events
        }
        Format::Cbor => {
            let mut framer = CborSeqFramer::new();
            let events = framer.push(body)?;
            framer.finish()?;
            events
        }
        Format::Protobuf => {
            let mut framer = ProtobufFramer::new();
            let events = framer.push(body)?;
            framer.finish()?;
            events.iter().map(|e| e.summary()).collect()
        }
        Format::Yaml => return Err(BodyError::NoWatchFraming(content_type.to_string())),
    })
}

/// Like [`decode_body`], but a protobuf envelope's object is decoded in full (a Status too);
/// for the on-demand protobuf part and `kube-decode`.
pub fn decode_body_in_full(content_type: &MediaType, body: &[u8]) -> Result<Value, BodyError> {
    match decode_body(content_type, body)? {
        Decoded::Document(document) => Ok(document),
        Decoded::Envelope(envelope) => Ok(object_in_full(&envelope)?),
    }
}

/// Like [`decode_watch_body`], but each protobuf event's object is decoded in full, as a JSON
/// watch would carry it; an event that cannot be is an error naming its number.
pub fn decode_watch_body_in_full(content_type: &MediaType, body: &[u8]) -> Result<Vec<Value>, BodyError> {
    if format_of(content_type)? != Format::Protobuf {
        return decode_watch_body(content_type, body);
    }
    let mut framer = ProtobufFramer::new();
    let events = framer.push(body)?;
    framer.finish()?;
    events
        .iter()
        .enumerate()
        .map(|(i, event)| event_in_full(event).map_err(|error| BodyError::InFullEvent { number: i + 1, error }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::shared_file;

    #[test]
    fn each_format_goes_to_its_decoder() {
        for (content_type, name) in [
            ("application/json", "pod.json"),
            ("application/yaml", "pod.yaml"),
            ("application/cbor", "pod.cbor"),
            ("application/vnd.kubernetes.protobuf", "pod.pb"),
        ] {
            let media_type: MediaType = content_type.parse().expect("media type");
            let decoded = decode_body(&media_type, &shared_file(&format!("kube/vectors/{name}"))).expect("decodes");
            assert_eq!(decoded.to_value().get("kind").and_then(Value::as_str), Some("Pod"), "{name}");
        }
    }

    #[test]
    fn a_yaml_body_goes_to_the_decoder_given_and_no_other_does() {
        let refuse: YamlDecoder = |_| Err(BodyError::YamlNotLoaded);
        let yaml: MediaType = "application/yaml".parse().expect("media type");
        let pod = shared_file("kube/vectors/pod.yaml");
        assert_eq!(decode_body_with(&yaml, &pod, refuse), Err(BodyError::YamlNotLoaded));
        let json: MediaType = "application/json".parse().expect("media type");
        let decoded = decode_body_with(&json, &shared_file("kube/vectors/pod.json"), refuse).expect("JSON decodes");
        assert_eq!(decoded.to_value().get("kind").and_then(Value::as_str), Some("Pod"));
    }

    #[test]
    fn watch_bodies_frame_in_every_framing() {
        for (content_type, name) in [
            ("application/json", "watch.jsonl"),
            ("application/cbor-seq", "watch.cborseq"),
            ("application/vnd.kubernetes.protobuf;stream=watch", "watch.pbstream"),
        ] {
            let media_type: MediaType = content_type.parse().expect("media type");
            let events = decode_watch_body(&media_type, &shared_file(&format!("kube/vectors/{name}"))).expect("frames");
            assert_eq!(events.len(), 4, "{name}");
        }
    }

    #[test]
    fn unsupported_types_and_yaml_watches_are_refused() {
        let text: MediaType = "text/plain".parse().expect("media type");
        assert_eq!(decode_body(&text, b"x"), Err(BodyError::Unsupported("text/plain".into())));
        assert_eq!(
            decode_watch_body(&MediaType::yaml(), b"x").map_err(|e| e.to_string()),
            Err("expected a watch media type (JSON, CBOR or protobuf), found application/yaml: YAML has no watch framing".into())
        );
        assert!(matches!(decode_watch_body(&MediaType::json(), b"{"), Err(BodyError::Stream(_))));
        assert!(matches!(decode_body(&MediaType::cbor(), b""), Err(BodyError::Decode(_))));
    }

    #[test]
    fn in_full_a_protobuf_body_is_its_object_and_other_types_are_as_before() {
        let pod = decode_body_in_full(&MediaType::protobuf(), &shared_file("kube/vectors/pod.pb")).expect("decodes");
        assert_eq!(pod.get("kind").and_then(Value::as_str), Some("Pod"));
        assert!(pod.get("spec").and_then(|s| s.get("containers")).is_some(), "the spec is decoded");
        let json = decode_body_in_full(&MediaType::json(), &shared_file("kube/vectors/pod.json")).expect("decodes");
        assert_eq!(
            json,
            decode_body(&MediaType::json(), &shared_file("kube/vectors/pod.json")).expect("json").to_value()
        );
    }

    #[test]
    fn in_full_each_protobuf_watch_event_carries_its_object_and_a_bad_one_is_named_by_number() {
        let stream: MediaType = "application/vnd.kubernetes.protobuf;stream=watch".parse().expect("media type");
        let body = shared_file("kube/vectors/watch.pbstream");
        let events = decode_watch_body_in_full(&stream, &body).expect("decodes");
        assert_eq!(events.len(), 4);
        assert!(events.iter().all(|e| e.get("object").and_then(|o| o.get("metadata")).is_some()));

        // The second event's object renamed to a kind no message has: same bytes, same length.
        let mut renamed = body.clone();
        let first = 4 + u32::from_be_bytes(body[..4].try_into().expect("4 bytes")) as usize;
        let kind = memchr::memmem::find(&renamed[first..], b"Pod").expect("the second event is a pod") + first;
        renamed[kind..kind + 3].copy_from_slice(b"Pxd");
        match decode_watch_body_in_full(&stream, &renamed) {
            Err(BodyError::InFullEvent { number: 2, error: InFullError::NoMessage { kind, .. } }) => {
                assert_eq!(kind, "Pxd")
            }
            other => panic!("{other:?}"),
        }
    }
}
