//! Watch streams: framing the bytes of a watch response into events, and the typed
//! [`WatchEvent`] (see "Efficient detection of changes", "Watch bookmarks", "Streaming lists").
//!
//! Three framings, each a push decoder that keeps leftovers between chunks:
//! - [`JsonFramer`]: `application/json`, one JSON object per event, chunk boundaries anywhere
//!   (many events per chunk, one event across many chunks);
//! - [`CborSeqFramer`]: `application/cbor-seq` (RFC 8742), items back to back;
//! - [`ProtobufFramer`]: `application/vnd.kubernetes.protobuf;stream=watch`, each frame a 4-byte
//!   big-endian length and a `WatchEvent` message.
//!
//! Invariants: scanning is incremental (each byte is looked at a bounded number of times however
//! the stream is chunked, and an event is decoded once, when complete); nothing is allocated from
//! a length prefix, only from bytes received; errors name the event number (1-based) and the byte
//! offset in the whole stream; [`finish`](JsonFramer::finish) reports a stream that ended inside
//! an event as truncated at byte N. After an error a framer keeps returning it.

use crate::api::cbor::{decode_cbor, CborEncoding, Writer, SELF_DESCRIBED_TAG};
use crate::api::error::DecodeError;
use crate::api::error::Format;
use crate::api::json::decode_json;
use crate::api::lazy::LazyObject;
use crate::api::list::ResourceVersion;
use crate::api::media_type::{Essence, MediaType};
use crate::api::protobuf::{decode_watch_event, ProtobufWatchEvent};
use crate::api::status::{status_from_document, Status};
use crate::api::value::{Map, Value, MAX_DEPTH};
use crate::api::view::{opt_str, shape, ViewError};

/// The annotation on the BOOKMARK that ends the initial events of a streaming list.
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// One change seen by a watch. The object of an ADDED, MODIFIED or DELETED event is read lazily
/// ([`LazyObject`]): its head at once, the whole tree on demand.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEvent {
    Added(LazyObject),
    Modified(LazyObject),
    Deleted(LazyObject),
    Bookmark(Bookmark),
    /// An in-stream error, e.g. 410 Expired when the watch started from a compacted version.
    Error(Box<Status>),
}

/// A BOOKMARK: only the resource version (and annotations) of an object of the watched type.
#[derive(Debug, Clone, PartialEq)]
pub struct Bookmark {
    pub resource_version: Option<ResourceVersion>,
    /// Carries `k8s.io/initial-events-end: "true"`: the initial state of a streaming list is done.
    pub initial_events_end: bool,
    pub object: Value,
}

impl WatchEvent {
    /// Reads a `{"type": …, "object": …}` event document (a copy of it: [`WatchEvent::from_value`]
    /// takes the document and moves its object into the event).
    pub fn from_document(document: &Value) -> Result<WatchEvent, ViewError> {
        WatchEvent::from_value(document.clone())
    }

    /// Reads a `{"type": …, "object": …}` event document, moving its object into the event
    /// (what a watch decoder does with each event it frames: no copy of the object is made).
    pub fn from_value(mut document: Value) -> Result<WatchEvent, ViewError> {
        let event_type = opt_str(&document, "type", "$")?.unwrap_or_default();
        let object = match &mut document {
            Value::Object(map) => map.remove("object"),
            _ => None,
        };
        let object = match object {
            Some(object @ Value::Object(_)) => object,
            Some(other) => return Err(shape("$.object", "an object", &other)),
            None => return Err(shape("$.object", "an object", &Value::Null)),
        };
        match event_type.as_str() {
            "ADDED" => Ok(WatchEvent::Added(LazyObject::from_value(object))),
            "MODIFIED" => Ok(WatchEvent::Modified(LazyObject::from_value(object))),
            "DELETED" => Ok(WatchEvent::Deleted(LazyObject::from_value(object))),
            "BOOKMARK" => Ok(WatchEvent::Bookmark(Bookmark {
                resource_version: object
                    .at(&["metadata", "resourceVersion"])
                    .and_then(Value::as_str)
                    .map(ResourceVersion::new),
                // A Table watch wraps the bookmark object in a one-row Table.
                initial_events_end: watched_object(&object)
                    .at(&["metadata", "annotations", INITIAL_EVENTS_END_ANNOTATION])
                    .and_then(Value::as_str)
                    == Some("true"),
                object,
            })),
            "ERROR" => status_from_document(&object).map(|s| WatchEvent::Error(Box::new(s))),
            other => Err(ViewError::Shape {
                path: "$.type".to_string(),
                expected: "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR".to_string(),
                found: format!("{other:?}"),
            }),
        }
    }

    /// The `type` as on the wire.
    pub fn event_type(&self) -> &'static str {
        match self {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            WatchEvent::Bookmark(_) => "BOOKMARK",
            WatchEvent::Error(_) => "ERROR",
        }
    }

    /// The object of an ADDED, MODIFIED or DELETED event.
    pub fn object(&self) -> Option<&LazyObject> {
        match self {
            WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => Some(o),
            WatchEvent::Bookmark(_) | WatchEvent::Error(_) => None,
        }
    }

    /// The resource version to resume the watch from after this event.
    pub fn resource_version(&self) -> Option<ResourceVersion> {
        match self {
            WatchEvent::Bookmark(b) => b.resource_version.clone(),
            WatchEvent::Error(_) => None,
            other => other.object().and_then(LazyObject::own_resource_version).map(ResourceVersion::new),
        }
    }
}

/// Whether `object` is a server-side `Table` (`meta.k8s.io`), as each event of a Table watch
/// (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`) carries.
pub fn is_table(object: &Value) -> bool {
    object.get("kind").and_then(Value::as_str) == Some("Table")
        && object.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("meta.k8s.io/"))
}

/// The object a watch event (or a cached entry) is about: `object` itself, or for a one-row
/// `Table` (each event of a Table watch, BOOKMARKs included) the object of its row, a
/// `PartialObjectMetadata` or the full object by `includeObject`. A Table row without an object
/// (`includeObject=None`) or with several rows gives the Table itself, which has no uid or name.
pub fn watched_object(object: &Value) -> &Value {
    if !is_table(object) {
        return object;
    }
    match object.get("rows").and_then(Value::as_array) {
        Some([row]) => match row.get("object") {
            Some(inner @ Value::Object(_)) => inner,
            _ => object,
        },
        _ => object,
    }
}

/// A watch stream that could not be framed or decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StreamError {
    #[error("event {event}: {source}")]
    Decode {
        event: usize,
        #[source]
        source: DecodeError,
    },
    #[error("event {event}: {source}")]
    Event {
        event: usize,
        #[source]
        source: ViewError,
    },
    #[error("stream truncated at byte {offset}: expected the rest of event {event}, found end of stream")]
    Truncated { event: usize, offset: usize },
}

/// What every framer keeps between chunks: the bytes not framed yet, how many bytes of the stream
/// came before them, how many events were framed, and the error that ended the stream (a framer
/// that failed stays failed, so a caller cannot resume in the middle of a broken event).
#[derive(Debug, Default)]
struct Backlog {
    buffer: Vec<u8>,
    /// Bytes of the stream drained before `buffer[0]`.
    consumed: usize,
    events: usize,
    failed: Option<StreamError>,
}

impl Backlog {
    /// Appends `chunk`, unless the stream already failed.
    fn take(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        self.buffer.extend_from_slice(chunk);
        Ok(())
    }

    /// Forgets the first `framed` bytes of the buffer.
    fn release(&mut self, framed: usize) {
        self.buffer.drain(..framed);
        self.consumed += framed;
    }

    /// Remembers a failure, so that later chunks get the same error.
    fn settle<T>(&mut self, result: Result<T, StreamError>) -> Result<T, StreamError> {
        result.inspect_err(|e| self.failed = Some(e.clone()))
    }

    /// The end of the stream: its failure, or `Truncated` when it stopped `inside_event`.
    fn finish(&self, inside_event: bool) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if inside_event {
            return Err(StreamError::Truncated { event: self.events + 1, offset: self.consumed + self.buffer.len() });
        }
        Ok(())
    }
}

/// Frames a JSON watch stream into event documents.
#[derive(Debug, Default)]
pub struct JsonFramer {
    backlog: Backlog,
    /// How far into `buffer` the scanner has looked.
    scan: usize,
    /// Where the value being scanned starts, once its first byte was seen.
    start: Option<usize>,
    depth: usize,
    in_string: bool,
    escape: bool,
}

impl JsonFramer {
    pub fn new() -> Self {
        JsonFramer::default()
    }

    /// Takes the next chunk; returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Value>, StreamError> {
        self.push_with(chunk, None, &mut |bytes, offset, event| {
            decode_json(bytes).map_err(|source| StreamError::Decode { event, source: source.shifted(offset) })
        })
    }

    /// Takes the next chunk; `decode` reads each event it completed (its bytes, their offset in
    /// the stream and the event's number). `first`, if given, is tried on the bytes from each
    /// event's start: when it reads an event whole it says how many bytes it took, and the
    /// framer goes on from there without looking at them (see [`WatchDecoder::push`]); when it
    /// does not, the framer finds the event's end byte by byte, and `decode` reads it.
    fn push_with<T>(
        &mut self,
        chunk: &[u8],
        first: Option<&mut PrefixReader<'_, T>>,
        decode: &mut EventReader<'_, T>,
    ) -> Result<Vec<T>, StreamError> {
        self.backlog.take(chunk)?;
        let result = self.scan_events(first, decode);
        self.drain();
        self.backlog.settle(result)
    }

    /// Ends the stream: an error if it stopped inside an event.
    pub fn finish(&self) -> Result<(), StreamError> {
        self.backlog.finish(self.start.is_some() || self.backlog.buffer.iter().any(|b| !b.is_ascii_whitespace()))
    }

    fn scan_events<T>(
        &mut self,
        mut first: Option<&mut PrefixReader<'_, T>>,
        decode: &mut EventReader<'_, T>,
    ) -> Result<Vec<T>, StreamError> {
        let mut events = Vec::new();
        while self.scan < self.backlog.buffer.len() {
            let i = self.scan;
            let byte = self.backlog.buffer[i];
            self.scan += 1;
            let Some(start) = self.start else {
                match byte {
                    b' ' | b'\t' | b'\r' | b'\n' => {}
                    b'{' => {
                        let number = self.backlog.events + 1;
                        let offset = self.backlog.consumed + i;
                        let read = first.as_mut().and_then(|first| first(&self.backlog.buffer[i..], offset, number));
                        if let Some((len, event)) = read {
                            self.backlog.events = number;
                            self.scan = i + len;
                            events.push(event?);
                            continue;
                        }
                        self.start = Some(i);
                        self.depth = 1;
                    }
                    _ => {
                        let offset = self.backlog.consumed + i;
                        let found = crate::api::error::describe_byte(&self.backlog.buffer, i);
                        let source =
                            DecodeError::new(crate::api::error::Format::Json, "'{' starting an event", found, offset);
                        return Err(StreamError::Decode { event: self.backlog.events + 1, source });
                    }
                }
                continue;
            };
            if self.in_string {
                match (self.escape, byte) {
                    (true, _) => self.escape = false,
                    (false, b'\\') => self.escape = true,
                    (false, b'"') => self.in_string = false,
                    // Most of an object's bytes are inside strings: jump to the next quote or
                    // backslash (each byte is still looked at once).
                    _ => match memchr::memchr2(b'"', b'\\', &self.backlog.buffer[self.scan..]) {
                        Some(next) => {
                            self.scan += next + 1;
                            match self.backlog.buffer[self.scan - 1] {
                                b'"' => self.in_string = false,
                                _ => self.escape = true,
                            }
                        }
                        None => self.scan = self.backlog.buffer.len(),
                    },
                }
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
            if self.depth == 0 {
                self.start = None;
                self.backlog.events += 1;
                let offset = self.backlog.consumed + start;
                events.push(decode(&self.backlog.buffer[start..=i], offset, self.backlog.events)?);
            }
        }
        Ok(events)
    }

    fn drain(&mut self) {
        let keep_from = self.start.unwrap_or(self.scan);
        self.backlog.release(keep_from);
        self.scan -= keep_from;
        self.start = self.start.map(|s| s - keep_from);
    }
}

/// Frames a CBOR sequence (`application/cbor-seq`) into event documents.
#[derive(Debug, Default)]
pub struct CborSeqFramer {
    backlog: Backlog,
    scanner: ItemScanner,
}

impl CborSeqFramer {
    pub fn new() -> Self {
        CborSeqFramer::default()
    }

    /// Takes the next chunk; returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Value>, StreamError> {
        self.push_with(chunk, None, &mut |bytes, offset, event| {
            decode_cbor(bytes).map_err(|source| StreamError::Decode { event, source: source.shifted(offset) })
        })
    }

    /// Takes the next chunk; `decode` reads each event it completed. `first`, as for
    /// [`JsonFramer`], is tried on the bytes from each event's start before the framer steps
    /// through them.
    fn push_with<T>(
        &mut self,
        chunk: &[u8],
        mut first: Option<&mut PrefixReader<'_, T>>,
        decode: &mut EventReader<'_, T>,
    ) -> Result<Vec<T>, StreamError> {
        self.backlog.take(chunk)?;
        let mut events = Vec::new();
        let mut start = 0;
        let mut result = Ok(());
        loop {
            // An event the framer has not begun to step through.
            if self.scanner.pos <= start && start < self.backlog.buffer.len() {
                let number = self.backlog.events + 1;
                let offset = self.backlog.consumed + start;
                let read = first.as_mut().and_then(|first| first(&self.backlog.buffer[start..], offset, number));
                if let Some((len, event)) = read {
                    self.backlog.events = number;
                    start += len;
                    match event {
                        Ok(event) => events.push(event),
                        Err(error) => {
                            result = Err(error);
                            break;
                        }
                    }
                    continue;
                }
            }
            let Some(end) = self.scanner.advance(&self.backlog.buffer, start) else { break };
            self.backlog.events += 1;
            match decode(&self.backlog.buffer[start..end], self.backlog.consumed + start, self.backlog.events) {
                Ok(event) => events.push(event),
                Err(error) => {
                    result = Err(error);
                    break;
                }
            }
            start = end;
        }
        self.backlog.release(start);
        self.scanner.rebase(start);
        self.backlog.settle(result.map(|()| events))
    }

    /// Ends the stream: an error if it stopped inside an event.
    pub fn finish(&self) -> Result<(), StreamError> {
        self.backlog.finish(!self.backlog.buffer.is_empty())
    }
}

/// Reads one framed event: its bytes, their offset in the stream, its number (1-based).
type EventReader<'a, T> = dyn FnMut(&[u8], usize, usize) -> Result<T, StreamError> + 'a;

/// Tries to read one event from the start of the bytes given (which may end inside it, or hold
/// more events after it), at its offset in the stream, with its number: the bytes it took and the
/// event, or `None` to leave it to the framer.
type PrefixReader<'a, T> = dyn FnMut(&[u8], usize, usize) -> Option<(usize, Result<T, StreamError>)> + 'a;

/// Finds where a CBOR data item ends without decoding it, resumable across chunks: a stack of
/// how many items each open container still needs, and how many string bytes remain to skip.
#[derive(Debug, Default)]
struct ItemScanner {
    /// Position in the buffer of the next unscanned byte.
    pos: usize,
    /// Items still needed per open container; `None` for indefinite length (ends with a break).
    open: Vec<Option<u64>>,
    skip: u64,
}

impl ItemScanner {
    /// Scans the item starting at `start` as far as `buffer` goes; `Some(end)` once it is complete
    /// (or malformed: then the decoder reports why).
    fn advance(&mut self, buffer: &[u8], start: usize) -> Option<usize> {
        if self.pos < start {
            self.pos = start;
        }
        loop {
            if self.skip > 0 {
                let available = (buffer.len() - self.pos) as u64;
                let step = self.skip.min(available);
                self.pos += step as usize;
                self.skip -= step;
                if self.skip > 0 {
                    return None;
                }
                if self.item_done() {
                    return Some(self.finish_item());
                }
                continue;
            }
            let &initial = buffer.get(self.pos)?;
            let (major, minor) = (initial >> 5, initial & 0x1f);
            let extra = match minor {
                0..=23 | 31 => 0,
                24 => 1,
                25 => 2,
                26 => 4,
                27 => 8,
                _ => return Some(self.malformed(buffer)),
            };
            if buffer.len() - self.pos < 1 + extra {
                return None;
            }
            let argument = match extra {
                0 => u64::from(minor),
                n => buffer[self.pos + 1..self.pos + 1 + n].iter().fold(0u64, |a, b| a << 8 | u64::from(*b)),
            };
            self.pos += 1 + extra;
            let indefinite = minor == 31;
            let opens = matches!((major, indefinite), (2..=5, true) | (4 | 5, false));
            if opens && self.open.len() > MAX_DEPTH {
                // Deeper than the decoder allows: let it report the nesting error now.
                return Some(self.malformed(buffer));
            }
            let done = match (major, indefinite) {
                (0 | 1, false) | (7, false) => true,
                (2 | 3, false) => {
                    self.skip = argument;
                    argument == 0
                }
                (2..=5, true) => self.open_container(None),
                (4, false) => argument == 0 || self.open_container(Some(argument)),
                (5, false) => argument == 0 || self.open_container(Some(argument.saturating_mul(2))),
                (6, false) => false,
                (7, true) => match self.open.last() {
                    Some(None) => {
                        self.open.pop();
                        true
                    }
                    _ => return Some(self.malformed(buffer)),
                },
                _ => return Some(self.malformed(buffer)),
            };
            if done && self.skip == 0 && self.item_done() {
                return Some(self.finish_item());
            }
        }
    }

    /// Opens a container; the item it starts is not done yet.
    fn open_container(&mut self, count: Option<u64>) -> bool {
        self.open.push(count);
        false
    }

    /// One item finished at the current level; true when the top-level item is complete.
    fn item_done(&mut self) -> bool {
        loop {
            match self.open.last_mut() {
                None => return true,
                Some(None) => return false,
                Some(Some(n)) => {
                    *n -= 1;
                    if *n > 0 {
                        return false;
                    }
                    self.open.pop();
                }
            }
        }
    }

    fn malformed(&mut self, buffer: &[u8]) -> usize {
        self.open.clear();
        self.skip = 0;
        self.pos = buffer.len();
        self.pos
    }

    fn finish_item(&mut self) -> usize {
        self.open.clear();
        self.pos
    }

    fn rebase(&mut self, drained: usize) {
        self.pos = self.pos.saturating_sub(drained);
    }
}

/// Frames a protobuf watch (`;stream=watch`) into events.
#[derive(Debug, Default)]
pub struct ProtobufFramer {
    backlog: Backlog,
}

/// The size of a protobuf watch frame's length prefix.
const FRAME_PREFIX: usize = 4;

impl ProtobufFramer {
    pub fn new() -> Self {
        ProtobufFramer::default()
    }

    /// Takes the next chunk; returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<ProtobufWatchEvent>, StreamError> {
        self.backlog.take(chunk)?;
        let mut events = Vec::new();
        let mut start = 0;
        let mut result = Ok(());
        while let Some(prefix) = self.backlog.buffer.get(start..start + FRAME_PREFIX) {
            let len = prefix.iter().fold(0u64, |a, b| a << 8 | u64::from(*b));
            // Checked: on wasm32 a 4 GB length would overflow usize arithmetic.
            let end = usize::try_from(len).ok().and_then(|len| (start + FRAME_PREFIX).checked_add(len));
            let Some(payload) = end.and_then(|end| self.backlog.buffer.get(start + FRAME_PREFIX..end)) else { break };
            self.backlog.events += 1;
            match decode_watch_event(payload, self.backlog.consumed + start + FRAME_PREFIX) {
                Ok(event) => events.push(event),
                Err(source) => {
                    result = Err(StreamError::Decode { event: self.backlog.events, source });
                    break;
                }
            }
            start += FRAME_PREFIX + payload.len();
        }
        self.backlog.release(start);
        self.backlog.settle(result.map(|()| events))
    }

    /// Ends the stream: an error if it stopped inside a frame.
    pub fn finish(&self) -> Result<(), StreamError> {
        self.backlog.finish(!self.backlog.buffer.is_empty())
    }
}

/// A watch response body type the typed decoder cannot frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a JSON or CBOR sequence watch stream, found {0}")]
pub struct UnsupportedStream(pub String);

/// Frames and types the events of a JSON or CBOR watch response: what the client feeds chunks
/// to. (Protobuf watches carry objects this app does not decode; use [`ProtobufFramer`].)
#[derive(Debug)]
pub struct WatchDecoder {
    framer: Framer,
}

#[derive(Debug)]
enum Framer {
    Json(JsonFramer),
    Cbor(CborSeqFramer),
}

impl WatchDecoder {
    /// The decoder for a watch response of `content_type`.
    pub fn new(content_type: &MediaType) -> Result<WatchDecoder, UnsupportedStream> {
        let framer = match content_type.essence {
            Essence::Json => Framer::Json(JsonFramer::new()),
            Essence::CborSeq | Essence::Cbor => Framer::Cbor(CborSeqFramer::new()),
            _ => return Err(UnsupportedStream(content_type.to_string())),
        };
        Ok(WatchDecoder { framer })
    }

    /// Takes the next chunk; returns the typed events it completed (read lazily: see
    /// [`crate::api::lazy`]).
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
        match &mut self.framer {
            // An event is read by the fast pass straight from its first byte, which also finds its
            // end: the framer does not walk the bytes of the events the fast pass reads (an event
            // cut by the chunk's end, or one the fast pass refuses, is framed byte by byte and
            // read as before).
            Framer::Json(f) => f.push_with(
                chunk,
                Some(&mut |bytes, offset, event| prefix_event(Format::Json, bytes, offset, event)),
                &mut |bytes, offset, event| typed_event(Format::Json, bytes, offset, event),
            ),
            Framer::Cbor(f) => f.push_with(
                chunk,
                Some(&mut |bytes, offset, event| prefix_event(Format::Cbor, bytes, offset, event)),
                &mut |bytes, offset, event| typed_event(Format::Cbor, bytes, offset, event),
            ),
        }
    }

    /// Ends the stream: an error if it stopped inside an event.
    pub fn finish(&self) -> Result<(), StreamError> {
        match &self.framer {
            Framer::Json(f) => f.finish(),
            Framer::Cbor(f) => f.finish(),
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
        Format::Cbor => crate::api::cbor::scan_cbor_prefix(bytes, offset)?,
        _ => crate::api::lazy::scan_json_prefix(bytes, offset)?,
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
        Format::Cbor => crate::api::cbor::scan_cbor_event(bytes, offset),
        _ => crate::api::lazy::scan_json_event(bytes, offset),
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

/// One event of a JSON watch as the server writes it: compact, one line.
pub fn encode_json_event(event_type: &str, object: &Value) -> Vec<u8> {
    let mut map = Map::new();
    map.insert("type", Value::String(event_type.to_string()));
    map.insert("object", object.clone());
    let mut text = Value::Object(map).to_json();
    text.push('\n');
    text.into_bytes()
}

/// One event of a CBOR watch as the server writes it: `55799({type, object: 55799({…})})` with
/// the encoding's string type and key order.
pub fn encode_cbor_event(event_type: &str, object: &Value, encoding: CborEncoding) -> Vec<u8> {
    let mut writer = Writer::new(encoding);
    if encoding.self_described {
        writer.head(ciborium_ll::Header::Tag(SELF_DESCRIBED_TAG));
    }
    writer.head(ciborium_ll::Header::Map(Some(2)));
    writer.text("type");
    writer.text(event_type);
    writer.text("object");
    if encoding.self_described {
        writer.head(ciborium_ll::Header::Tag(SELF_DESCRIBED_TAG));
    }
    writer.value(object);
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::status::StatusExt;
    use crate::api::testdata::{dechunked_body, real_apiserver_body, shared_file};

    #[test]
    fn a_recorded_table_watch_is_about_the_rows_objects_and_its_bookmark_ends_the_initial_events() {
        let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
        let events = decoder.push(&real_apiserver_body("67-watch-table.txt")).expect("frames");
        decoder.finish().expect("complete");
        assert!(events.iter().filter_map(WatchEvent::object).all(|o| o.table().is_some()));
        assert!(events.iter().filter_map(WatchEvent::object).all(|o| is_table(&o.value().expect("tree"))));
        let names: Vec<&str> =
            events.iter().filter_map(WatchEvent::object).filter_map(|o| o.head().name.as_deref()).collect();
        assert_eq!(names.first(), Some(&"w-01"));
        assert_eq!(names.iter().filter(|n| **n == "w-watch-t").count(), 3, "added, modified, deleted");
        // The first event alone carries the columns.
        let with_columns =
            events.iter().filter_map(WatchEvent::object).filter(|o| o.table().is_some_and(|t| t.columns.is_some()));
        assert_eq!(with_columns.count(), 1);
        let bookmarks: Vec<&Bookmark> = events
            .iter()
            .filter_map(|e| match e {
                WatchEvent::Bookmark(b) => Some(b),
                _ => None,
            })
            .collect();
        assert_eq!(bookmarks.len(), 2);
        assert!(bookmarks[0].initial_events_end, "the annotation is on the row's object");
        assert_eq!(bookmarks[0].resource_version, Some(ResourceVersion::new("26")));
        assert!(!bookmarks[1].initial_events_end);
        // A uid-bearing row object: the event is about it; the Table's version is the object's.
        let deleted = events.iter().rev().find(|e| e.event_type() == "DELETED").and_then(WatchEvent::object);
        let deleted = deleted.expect("a DELETED event");
        assert_eq!(deleted.head().uid.as_deref(), Some("3b94c478-72bb-4b77-adf4-304de6541a93"));
        assert_eq!(
            watched_object(&deleted.value().expect("tree")).at(&["metadata", "uid"]).and_then(Value::as_str),
            Some("3b94c478-72bb-4b77-adf4-304de6541a93")
        );
    }

    #[test]
    fn watched_object_looks_through_one_row_tables_only() {
        let plain = decode_json(br#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}"#).expect("json");
        assert!(!is_table(&plain));
        assert_eq!(watched_object(&plain), &plain);
        let no_object =
            decode_json(br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":["p"]}]}"#).expect("json");
        assert!(is_table(&no_object));
        assert_eq!(watched_object(&no_object), &no_object, "includeObject=None leaves nothing to look at");
        let two = decode_json(
            br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":[],"object":{"metadata":{"name":"a"}}},{"cells":[],"object":{"metadata":{"name":"b"}}}]}"#,
        )
        .expect("json");
        assert_eq!(watched_object(&two), &two);
        let custom =
            decode_json(br#"{"kind":"Table","apiVersion":"furniture.example.com/v1","rows":[]}"#).expect("json");
        assert!(!is_table(&custom), "a custom resource of kind Table is not a server-side Table");
    }

    fn json_streams() -> Vec<(String, Vec<u8>)> {
        let mut streams: Vec<(String, Vec<u8>)> = [
            "kube/vectors/watch.jsonl",
            "kube/cbor/foobar_watch.source.jsonl",
            "kube/cbor/watch_pods.source.jsonl",
            "kube/cbor/watch_pods_sendInitialEvents.source.jsonl",
        ]
        .iter()
        .map(|p| (p.to_string(), shared_file(p)))
        .collect();
        for name in [
            "61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt",
            "65-watch-rv-too-old-410-in-stream.txt",
            "67-watch-table.txt",
        ] {
            streams.push((name.to_string(), real_apiserver_body(name)));
        }
        let raw = shared_file("kube/recordings/client-go/dynamic-testdata/TestGoldenResponse/responses/events");
        streams.push(("client-go events".to_string(), dechunked_body(&raw).0));
        for name in ["watch_event-watch_pods.json", "watch_event-watch_pods_without_initial_events.json"] {
            let recording: serde_json::Value =
                serde_json::from_slice(&shared_file(&format!("kube/recordings/k8s-openapi-v1-34/{name}")))
                    .expect("json");
            let body = recording[0]["response_body"].as_str().expect("body").as_bytes().to_vec();
            streams.push((name.to_string(), body));
        }
        streams
    }

    fn cbor_streams() -> Vec<(String, Vec<u8>)> {
        let mut streams: Vec<(String, Vec<u8>)> = [
            "kube/vectors/watch.cborseq",
            "kube/cbor/foobar_watch.cbor-seq",
            "kube/cbor/watch_pods.cbor-seq",
            "kube/cbor/watch_pods_sendInitialEvents.cbor-seq",
        ]
        .iter()
        .map(|p| (p.to_string(), shared_file(p)))
        .collect();
        streams.push(("69-watch-cbor.txt".to_string(), real_apiserver_body("69-watch-cbor.txt")));
        streams
    }

    fn json_all(bytes: &[u8]) -> Vec<Value> {
        let mut framer = JsonFramer::new();
        let events = framer.push(bytes).expect("frames");
        framer.finish().expect("complete");
        events
    }

    fn cbor_all(bytes: &[u8]) -> Vec<Value> {
        let mut framer = CborSeqFramer::new();
        let events = framer.push(bytes).expect("frames");
        framer.finish().expect("complete");
        events
    }

    fn protobuf_all(bytes: &[u8]) -> Vec<ProtobufWatchEvent> {
        let mut framer = ProtobufFramer::new();
        let events = framer.push(bytes).expect("frames");
        framer.finish().expect("complete");
        events
    }

    /// Splits `bytes` at every point from `from` to `to` and checks the two pushes give `expect`.
    #[track_caller]
    fn check_splits<T: PartialEq + std::fmt::Debug>(
        name: &str,
        bytes: &[u8],
        range: std::ops::Range<usize>,
        frame: &dyn Fn(&[&[u8]]) -> Vec<T>,
        expect: &[T],
    ) {
        for split in range {
            let got = frame(&[&bytes[..split], &bytes[split..]]);
            assert!(got == expect, "{name}: split at {split} gives other events");
        }
    }

    fn json_chunks(chunks: &[&[u8]]) -> Vec<Value> {
        let mut framer = JsonFramer::new();
        let events = chunks.iter().flat_map(|c| framer.push(c).expect("frames")).collect();
        framer.finish().expect("complete");
        events
    }

    fn cbor_chunks(chunks: &[&[u8]]) -> Vec<Value> {
        let mut framer = CborSeqFramer::new();
        let events = chunks.iter().flat_map(|c| framer.push(c).expect("frames")).collect();
        framer.finish().expect("complete");
        events
    }

    fn protobuf_chunks(chunks: &[&[u8]]) -> Vec<ProtobufWatchEvent> {
        let mut framer = ProtobufFramer::new();
        let events = chunks.iter().flat_map(|c| framer.push(c).expect("frames")).collect();
        framer.finish().expect("complete");
        events
    }

    /// Every two-piece split of small streams. Large streams are fed one byte per chunk (every
    /// byte boundary a split at once) and split in two near every event boundary and at a stride:
    /// trying all of their split points in two pieces re-decodes the stream once per byte.
    #[track_caller]
    fn check_every_split<T: PartialEq + std::fmt::Debug>(
        name: &str,
        bytes: &[u8],
        boundaries: &[usize],
        frame: &dyn Fn(&[&[u8]]) -> Vec<T>,
    ) {
        let expect = frame(&[bytes]);
        if bytes.len() <= 12_000 {
            check_splits(name, bytes, 0..bytes.len() + 1, frame, &expect);
            return;
        }
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        assert!(frame(&bytewise) == expect, "{name}: one-byte chunks give other events");
        for &boundary in boundaries {
            let range = boundary.saturating_sub(3)..(boundary + 4).min(bytes.len() + 1);
            check_splits(name, bytes, range, frame, &expect);
        }
        for split in (0..bytes.len()).step_by(997) {
            check_splits(name, bytes, split..split + 1, frame, &expect);
        }
    }

    fn json_boundaries(bytes: &[u8]) -> Vec<usize> {
        bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1).collect()
    }

    fn cbor_boundaries(bytes: &[u8]) -> Vec<usize> {
        let mut ends = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let (_, used) = crate::api::cbor::decode_cbor_prefix(&bytes[at..]).expect("item");
            at += used;
            ends.push(at);
        }
        ends
    }

    #[test]
    fn every_recorded_json_stream_frames_the_same_at_every_split_point() {
        for (name, bytes) in json_streams() {
            let events = json_all(&bytes);
            let lines = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count();
            assert_eq!(events.len(), lines, "{name}");
            let boundaries = json_boundaries(&bytes);
            check_every_split(&name, &bytes, &boundaries, &json_chunks);
        }
    }

    #[test]
    fn every_recorded_cbor_stream_frames_the_same_at_every_split_point() {
        for (name, bytes) in cbor_streams() {
            let boundaries = cbor_boundaries(&bytes);
            assert_eq!(cbor_all(&bytes).len(), boundaries.len(), "{name}");
            check_every_split(&name, &bytes, &boundaries, &cbor_chunks);
        }
    }

    #[test]
    fn the_protobuf_stream_frames_the_same_at_every_split_point() {
        let bytes = shared_file("kube/vectors/watch.pbstream");
        let events = protobuf_all(&bytes);
        assert_eq!(events.len(), 4);
        assert!(events.iter().all(|e| e.object.kind == "Pod" || e.object.kind == "Status"));
        check_every_split("watch.pbstream", &bytes, &[], &protobuf_chunks);
    }

    #[test]
    fn cbor_watch_events_equal_their_json_source() {
        for (cbor, json) in [
            ("kube/vectors/watch.cborseq", "kube/vectors/watch.jsonl"),
            ("kube/cbor/foobar_watch.cbor-seq", "kube/cbor/foobar_watch.source.jsonl"),
            ("kube/cbor/watch_pods.cbor-seq", "kube/cbor/watch_pods.source.jsonl"),
            ("kube/cbor/watch_pods_sendInitialEvents.cbor-seq", "kube/cbor/watch_pods_sendInitialEvents.source.jsonl"),
        ] {
            let from_cbor = cbor_all(&shared_file(cbor));
            let from_json = json_all(&shared_file(json));
            assert_eq!(from_cbor.len(), from_json.len(), "{cbor}");
            assert!(from_cbor.iter().zip(&from_json).all(|(a, b)| a.equivalent(b)), "{cbor}");
        }
    }

    #[test]
    fn one_byte_chunks_give_the_same_events() {
        let bytes = shared_file("kube/cbor/watch_pods.source.jsonl");
        let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(json_chunks(&chunks), json_all(&bytes));
        let bytes = shared_file("kube/cbor/watch_pods.cbor-seq");
        let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(cbor_chunks(&chunks), cbor_all(&bytes));
    }

    #[test]
    fn the_real_chunking_of_a_watch_response_frames_the_same() {
        let raw = shared_file("kube/recordings/client-go/dynamic-testdata/TestGoldenResponse/responses/events");
        let (body, sizes) = dechunked_body(&raw);
        let mut chunks = Vec::new();
        let mut at = 0;
        for size in sizes {
            chunks.push(&body[at..at + size]);
            at += size;
        }
        assert_eq!(json_chunks(&chunks), json_all(&body));
    }

    fn typed(content_type: MediaType, bytes: &[u8]) -> Vec<WatchEvent> {
        let mut decoder = WatchDecoder::new(&content_type).expect("supported");
        let events = decoder.push(bytes).expect("events");
        decoder.finish().expect("complete");
        events
    }

    #[test]
    fn a_streaming_list_ends_its_initial_events_with_a_marked_bookmark() {
        for (content_type, bytes) in [
            (MediaType::json(), real_apiserver_body("61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt")),
            (MediaType::cbor_seq(), shared_file("kube/cbor/watch_pods_sendInitialEvents.cbor-seq")),
        ] {
            let events = typed(content_type, &bytes);
            let end = events
                .iter()
                .position(|e| matches!(e, WatchEvent::Bookmark(b) if b.initial_events_end))
                .expect("end marker");
            assert!(events[..end].iter().all(|e| matches!(e, WatchEvent::Added(_))));
            assert!(events[end].resource_version().is_some());
            assert_eq!(events[end].event_type(), "BOOKMARK");
            assert!(events[end].object().is_none());
        }
    }

    #[test]
    fn a_watch_from_a_compacted_version_gets_an_in_stream_410() {
        let events = typed(MediaType::json(), &real_apiserver_body("65-watch-rv-too-old-410-in-stream.txt"));
        match events.as_slice() {
            [WatchEvent::Error(status)] => assert!(status.is_expired()),
            other => panic!("expected one ERROR event, found {other:?}"),
        }
        assert_eq!(events[0].event_type(), "ERROR");
        assert_eq!(events[0].resource_version(), None);
    }

    #[test]
    fn added_modified_and_deleted_carry_their_object_and_version() {
        let events = typed(MediaType::json(), &shared_file("kube/vectors/watch.jsonl"));
        let types: Vec<&str> = events.iter().map(WatchEvent::event_type).collect();
        assert_eq!(types, ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);
        assert!(events[0].object().is_some());
        let tree = events[1].object().expect("an object").value().expect("tree");
        assert_eq!(
            events[1].resource_version(),
            tree.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).map(ResourceVersion::new)
        );
    }

    #[track_caller]
    fn check_event(document: &str, expect: Result<&str, &str>) {
        let value = decode_json(document.as_bytes()).expect("json");
        let got = WatchEvent::from_document(&value).map(|e| e.event_type()).map_err(|e| e.to_string());
        assert_eq!(got.as_deref().map_err(String::as_str), expect);
        // Taking the document gives the same event, or the same error, as reading a copy.
        assert_eq!(WatchEvent::from_value(value.clone()), WatchEvent::from_document(&value));
    }

    #[test]
    fn an_event_taken_by_value_holds_the_documents_object_unchanged() {
        for line in shared_file("kube/vectors/watch.jsonl").split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let document = decode_json(line).expect("json");
            let event = WatchEvent::from_value(document.clone()).expect("event");
            match &event {
                WatchEvent::Bookmark(bookmark) => assert_eq!(Some(&bookmark.object), document.get("object")),
                other => {
                    assert_eq!(other.object().map(|o| o.value().expect("tree")).as_deref(), document.get("object"))
                }
            }
        }
        // Not an object at all: the same error as an object without "object".
        check_event("[1]", Err("expected an object at $.object, found null"));
    }

    #[test]
    fn event_documents_need_a_known_type_and_an_object() {
        check_event(r#"{"type":"ADDED","object":{}}"#, Ok("ADDED"));
        check_event(r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}"#, Ok("BOOKMARK"));
        check_event(
            r#"{"type":"RENAMED","object":{}}"#,
            Err(r#"expected ADDED, MODIFIED, DELETED, BOOKMARK or ERROR at $.type, found "RENAMED""#),
        );
        check_event(r#"{"type":"ADDED"}"#, Err("expected an object at $.object, found null"));
        check_event(r#"{"type":"ADDED","object":1}"#, Err("expected an object at $.object, found an integer"));
        check_event(r#"{"type":"ERROR","object":{"kind":"Pod"}}"#, Err("expected kind Status, found \"Pod\""));
    }

    #[test]
    fn a_stream_ending_inside_an_event_is_truncated_at_its_last_byte() {
        let bytes = shared_file("kube/vectors/watch.jsonl");
        let mut framer = JsonFramer::new();
        let events = framer.push(&bytes[..bytes.len() - 10]).expect("frames");
        assert_eq!(events.len(), 3);
        assert_eq!(framer.finish(), Err(StreamError::Truncated { event: 4, offset: bytes.len() - 10 }));
        let bytes = shared_file("kube/vectors/watch.cborseq");
        let mut framer = CborSeqFramer::new();
        framer.push(&bytes[..100]).expect("frames");
        assert_eq!(
            framer.finish().map_err(|e| e.to_string()),
            Err("stream truncated at byte 100: expected the rest of event 1, found end of stream".to_string())
        );
        let mut framer = ProtobufFramer::new();
        framer.push(&[0, 0]).expect("frames");
        assert_eq!(framer.finish(), Err(StreamError::Truncated { event: 1, offset: 2 }));
    }

    #[test]
    fn malformed_events_name_their_number_and_offset_and_poison_the_framer() {
        let mut framer = JsonFramer::new();
        let error = framer.push(b"{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":,}\n").expect_err("malformed");
        assert_eq!(error.to_string(), "event 2: invalid JSON: expected a JSON value, found ',' at byte 37");
        assert_eq!(framer.push(b"{}"), Err(error.clone()));
        assert_eq!(framer.finish(), Err(error));
        let mut framer = JsonFramer::new();
        assert_eq!(
            framer.push(b"  [1]").map_err(|e| e.to_string()),
            Err("event 1: invalid JSON: expected '{' starting an event, found '[' at byte 2".to_string())
        );
        let mut framer = CborSeqFramer::new();
        let error = framer.push(&[0x01, 0xa1, 0x01, 0x02]).expect_err("integer key");
        assert!(matches!(error, StreamError::Decode { event: 2, ref source } if source.offset == 2), "{error}");
        assert!(framer.push(&[]).is_err());
        assert!(framer.finish().is_err());
        let mut framer = ProtobufFramer::new();
        let error = framer.push(&[0, 0, 0, 1, 0x0b]).expect_err("group");
        assert!(matches!(error, StreamError::Decode { event: 1, ref source } if source.offset == 4), "{error}");
        assert!(framer.push(&[]).is_err());
        assert!(framer.finish().is_err());
    }

    #[test]
    fn a_length_prefix_claiming_gigabytes_only_waits_for_bytes() {
        let mut framer = ProtobufFramer::new();
        assert_eq!(framer.push(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]), Ok(vec![]));
        assert_eq!(framer.finish(), Err(StreamError::Truncated { event: 1, offset: 7 }));
        let mut framer = CborSeqFramer::new();
        assert_eq!(framer.push(&[0x5b, 0, 0, 0, 1, 0, 0, 0, 0, 1]), Ok(vec![]));
        assert_eq!(framer.push(&[0x9b, 0xff]), Ok(vec![]));
        assert!(framer.finish().is_err());
    }

    #[test]
    fn absurd_cbor_nesting_is_reported_not_buffered() {
        let mut framer = CborSeqFramer::new();
        let error = framer.push(&[0x9f; 500]).expect_err("too deep");
        assert!(error.to_string().contains("nesting"), "{error}");
    }

    #[test]
    fn events_encode_as_the_server_writes_them() {
        let jsonl = shared_file("kube/vectors/watch.jsonl");
        let mut rewritten = Vec::new();
        for event in json_all(&jsonl) {
            let (Some(t), Some(o)) = (event.get("type").and_then(Value::as_str), event.get("object")) else {
                panic!("event")
            };
            rewritten.extend(encode_json_event(t, o));
        }
        assert!(rewritten == jsonl, "JSON events re-encode to the same bytes");
        let cborseq = shared_file("kube/vectors/watch.cborseq");
        let mut rewritten = Vec::new();
        for event in cbor_all(&cborseq) {
            let (Some(t), Some(o)) = (event.get("type").and_then(Value::as_str), event.get("object")) else {
                panic!("event")
            };
            rewritten.extend(encode_cbor_event(t, o, CborEncoding::SERVER));
        }
        assert!(rewritten == cborseq, "CBOR events re-encode to the same bytes");
    }

    #[test]
    fn only_json_and_cbor_watches_have_a_typed_decoder() {
        assert!(WatchDecoder::new(&MediaType::json()).is_ok());
        assert!(WatchDecoder::new(&MediaType::cbor()).is_ok());
        assert_eq!(
            WatchDecoder::new(&MediaType::protobuf_watch()).map(|_| ()).map_err(|e| e.to_string()),
            Err(
                "expected a JSON or CBOR sequence watch stream, found application/vnd.kubernetes.protobuf;stream=watch"
                    .to_string()
            )
        );
        let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
        let error = decoder.push(br#"{"type":"NOPE","object":{}}"#).expect_err("unknown type");
        assert!(matches!(error, StreamError::Event { event: 1, .. }));
    }
}
