//! [`WatchDecoder`]: frames and types the events of a JSON or CBOR watch response, each read by
//! the fast pass from its first byte where it can ([`crate::api::watch::fast`]).

use crate::api::codec::cbor::decode_cbor;
use crate::api::codec::json::decode_json;
use crate::api::error::Format;
use crate::api::media_type::{Essence, MediaType};
use crate::api::watch::cbor_framer::CborSeqFramer;
use crate::api::watch::event::WatchEvent;
use crate::api::watch::framer::{Framer, StreamError};
use crate::api::watch::json_framer::JsonFramer;
use crate::i18n::{Localized, Msg, Text};

/// A watch response body type the typed decoder cannot frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedStream(pub String);

impl Localized for UnsupportedStream {
    fn text(&self) -> Text {
        Text::new(Msg::UnsupportedWatchStream).with("found", &self.0)
    }
}

crate::localized_display!(UnsupportedStream);

impl std::error::Error for UnsupportedStream {}

/// Frames and types the events of a JSON or CBOR watch response: what the client feeds chunks
/// to. (Protobuf watches carry objects this app does not decode; use [`ProtobufFramer`].)
#[derive(Debug)]
pub struct WatchDecoder {
    framer: Framing,
}

#[derive(Debug)]
enum Framing {
    Json(JsonFramer),
    Cbor(CborSeqFramer),
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

    /// Takes the next chunk; returns the typed events it completed (read lazily: see
    /// [`crate::api::watch::lazy`]).
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
        }
    }

    /// Ends the stream: an error if it stopped inside an event.
    pub fn finish(&self) -> Result<(), StreamError> {
        match &self.framer {
            Framing::Json(f) => f.finish(),
            Framing::Cbor(f) => f.finish(),
        }
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
        Format::Cbor => crate::api::watch::fast_cbor::scan_cbor_prefix(bytes, offset)?,
        _ => crate::api::watch::fast::scan_json_prefix(bytes, offset)?,
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
        Format::Cbor => crate::api::watch::fast_cbor::scan_cbor_event(bytes, offset),
        _ => crate::api::watch::fast::scan_json_event(bytes, offset),
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
