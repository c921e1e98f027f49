//! [`WatchDecoder`]: frames and types the events of a JSON or CBOR watch response, each read by
//! the fast pass from its first byte where it can ([`crate::watch::fast`]), and of a
//! protobuf watch when the edge hands it the decoder of protobuf objects ([`InFullDecoder`]):
//! each frame's object becomes the document a JSON watch would carry, so the reflector sees the
//! same events whatever the wire.

use crate::codec::cbor::decode_cbor;
use crate::codec::json::decode_json;
use crate::codec::protobuf::ProtobufWatchEvent;
use crate::codec::protobuf_full::InFullDecoder;
use crate::error::Format;
use crate::media_type::{Essence, MediaType};
use crate::watch::cbor_framer::CborSeqFramer;
use crate::watch::event::WatchEvent;
use crate::watch::framer::{Framer, StreamError};
use crate::watch::json_framer::JsonFramer;
use crate::watch::protobuf_framer::ProtobufFramer;

/// A watch response body type the typed decoder cannot frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a JSON or CBOR sequence watch stream, found {0}")]
pub struct UnsupportedStream(pub String);

/// Frames and types the events of a JSON, CBOR or protobuf watch response: what the client feeds
/// chunks to.
#[derive(Debug)]
pub struct WatchDecoder {
    framer: Framing,
}

#[derive(Debug)]
enum Framing {
    Json(JsonFramer),
    Cbor(CborSeqFramer),
    Protobuf(ProtobufEvents),
}

/// A protobuf watch: the frames, each object decoded in full by `in_full`.
#[derive(Debug)]
struct ProtobufEvents {
    framer: ProtobufFramer,
    in_full: InFullDecoder,
    /// Events framed so far (the number of the next one's predecessor).
    events: usize,
    /// The error that ended the stream: after it the decoder keeps returning it.
    failed: Option<StreamError>,
}

impl WatchDecoder {
    /// The decoder for a watch response of `content_type`.
    pub fn new(content_type: &MediaType) -> Result<WatchDecoder, UnsupportedStream> {
        let framer = match content_type.essence {
            Essence::Json => Framing::Json(JsonFramer::new()),
            Essence::CborSeq | Essence::Cbor => Framing::Cbor(CborSeqFramer::new()),
            _ => return Err(UnsupportedStream(content_type.to_string())),
        };
        Ok(WatchDecoder { framer })
    }

    /// The decoder for a watch response of `content_type`; a protobuf watch
    /// (`;stream=watch`) is decoded with `protobuf` when the edge has it.
    pub fn for_response(
        content_type: &MediaType,
        protobuf: Option<InFullDecoder>,
    ) -> Result<WatchDecoder, UnsupportedStream> {
        match (&content_type.essence, protobuf) {
            (Essence::Protobuf, Some(in_full)) => Ok(WatchDecoder::protobuf(in_full)),
            _ => WatchDecoder::new(content_type),
        }
    }

    /// The decoder of a protobuf watch (`application/vnd.kubernetes.protobuf;stream=watch`):
    /// each frame's `WatchEvent`, its object decoded in full by `in_full` into the document a
    /// JSON watch would carry.
    pub fn protobuf(in_full: InFullDecoder) -> WatchDecoder {
        WatchDecoder {
            framer: Framing::Protobuf(ProtobufEvents {
                framer: ProtobufFramer::new(),
                in_full,
                events: 0,
                failed: None,
            }),
        }
    }

    /// Takes the next chunk; returns the typed events it completed (read lazily: see
    /// [`crate::watch::lazy`]).
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
        match &mut self.framer {
            // An event is read by the fast pass straight from its first byte, which also finds its
            // end: the framer does not walk the bytes of the events the fast pass reads (an event
            // cut by the chunk's end, or one the fast pass refuses, is framed byte by byte and
            // read as before).
            Framing::Json(f) => f.push_with(
                chunk,
                Some(&mut |bytes, offset, event| prefix_event(Format::Json, bytes, offset, event)),
                &mut |bytes, offset, event| typed_event(Format::Json, bytes, offset, event),
            ),
            Framing::Cbor(f) => f.push_with(
                chunk,
                Some(&mut |bytes, offset, event| prefix_event(Format::Cbor, bytes, offset, event)),
                &mut |bytes, offset, event| typed_event(Format::Cbor, bytes, offset, event),
            ),
            Framing::Protobuf(p) => p.push(chunk),
        }
    }

    /// Ends the stream: an error if it stopped inside an event.
    pub fn finish(&self) -> Result<(), StreamError> {
        match &self.framer {
            Framing::Json(f) => f.finish(),
            Framing::Cbor(f) => f.finish(),
            Framing::Protobuf(p) => match &p.failed {
                Some(error) => Err(error.clone()),
                None => p.framer.finish(),
            },
        }
    }
}

impl ProtobufEvents {
    fn push(&mut self, chunk: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut typed = Vec::new();
        let framed = self.framer.push(chunk);
        for frame in framed.iter().flatten() {
            match self.typed(frame) {
                Ok(event) => typed.push(event),
                Err(error) => {
                    self.failed = Some(error.clone());
                    return Err(error);
                }
            }
        }
        framed.map(|_| typed)
    }

    /// One framed event, its object decoded in full; errors name the event's number.
    fn typed(&mut self, frame: &ProtobufWatchEvent) -> Result<WatchEvent, StreamError> {
        self.events += 1;
        let event = self.events;
        let document = self.in_full.event(frame).map_err(|source| StreamError::InFull { event, source })?;
        WatchEvent::from_value(document).map_err(|source| StreamError::Event { event, source })
    }
}

/// The event `bytes` start with, read by the fast pass from its first byte (see
/// [`PrefixReader`]): the bytes it took, and the event typed (decoded in full when the fast pass
/// found its end but does not take it).
fn prefix_event(
    format: Format,
    bytes: &[u8],
    offset: usize,
    event: usize,
) -> Option<(usize, Result<WatchEvent, StreamError>)> {
    let (len, fast) = match format {
        Format::Cbor => crate::watch::fast_cbor::scan_cbor_prefix(bytes, offset)?,
        _ => crate::watch::fast::scan_json_prefix(bytes, offset)?,
    };
    let typed = match fast {
        Some(fast) => Ok(fast.into_watch_event()),
        None => full_event(format, &bytes[..len], offset, event),
    };
    Some((len, typed))
}

/// One framed event, typed: by the fast pass when it takes it, else decoded in full (whose errors,
/// with the event's number and stream offset, are the ones reported).
fn typed_event(format: Format, bytes: &[u8], offset: usize, event: usize) -> Result<WatchEvent, StreamError> {
    let fast = match format {
        Format::Cbor => crate::watch::fast_cbor::scan_cbor_event(bytes, offset),
        _ => crate::watch::fast::scan_json_event(bytes, offset),
    };
    match fast {
        Some(fast) => Ok(fast.into_watch_event()),
        None => full_event(format, bytes, offset, event),
    }
}

/// One framed event decoded in full: the errors name the event's number and stream offset.
fn full_event(format: Format, bytes: &[u8], offset: usize, event: usize) -> Result<WatchEvent, StreamError> {
    let document = match format {
        Format::Cbor => decode_cbor(bytes),
        _ => decode_json(bytes),
    };
    let document = document.map_err(|source| StreamError::Decode { event, source: source.shifted(offset) })?;
    WatchEvent::from_value(document).map_err(|source| StreamError::Event { event, source })
}
