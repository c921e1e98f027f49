//! What the three framers share: the [`Framer`] interface (push a chunk, get the events it
//! completed; finish the stream), the [`StreamError`] they report, and the backlog of bytes not
//! framed yet.

use crate::codec::protobuf_full::InFullError;
use crate::error::DecodeError;
use crate::view::shape::ViewError;

/// A push decoder of a watch stream: it takes the stream chunk by chunk, wherever the chunks
/// are cut, keeps what it has not framed yet, and gives the events each chunk completed.
///
/// Implemented by [`JsonFramer`](crate::watch::json_framer::JsonFramer),
/// [`CborSeqFramer`](crate::watch::cbor_framer::CborSeqFramer) and
/// [`ProtobufFramer`](crate::watch::protobuf_framer::ProtobufFramer).
pub trait Framer: Default {
    /// What one framed event is.
    type Event;

    /// Takes the next chunk; returns the events it completed. After an error the framer keeps
    /// returning it.
    fn push(&mut self, chunk: &[u8]) -> Result<Vec<Self::Event>, StreamError>;

    /// Ends the stream: an error if it stopped inside an event (or had failed).
    fn finish(&self) -> Result<(), StreamError>;
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
    /// An event larger than [`MAX_EVENT_BYTES`]: announced so (a protobuf length prefix), or not
    /// ended after that many bytes (a JSON line or CBOR item that goes on). The stream is cut
    /// there, so that a server cannot make the page hold an endless event.
    #[error("event {event} at byte {offset}: expected at most {limit} bytes, found {found}")]
    TooLarge { event: usize, offset: usize, limit: usize, found: Size },
    /// A protobuf event's object could not be decoded in full (a type without a message, or bytes
    /// that are not its message).
    #[error("event {event}: {source}")]
    InFull {
        event: usize,
        #[source]
        source: InFullError,
    },
}

/// The most bytes one watch event may take: 16 MiB, ten times the API server's default limit
/// on a stored object (etcd's `--max-request-bytes`, 1.5 MiB). Beyond it a stream is cut with
/// [`StreamError::TooLarge`], so that a framer holds at most this plus one chunk.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// How large an event was found to be: announced by its length prefix, or more than the bytes
/// read so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Announced(u64),
    MoreThan(usize),
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Announced(bytes) => write!(f, "{bytes} bytes announced by its length prefix"),
            Size::MoreThan(bytes) => write!(f, "more than {bytes} bytes with no end in sight"),
        }
    }
}

/// What every framer keeps between chunks: the bytes not framed yet, how many bytes of the stream
/// came before them, how many events were framed, and the error that ended the stream (a framer
/// that failed stays failed, so a caller cannot resume in the middle of a broken event).
#[derive(Debug, Default)]
pub(crate) struct Backlog {
    pub(crate) buffer: Vec<u8>,
    /// Bytes of the stream drained before `buffer[0]`.
    pub(crate) consumed: usize,
    pub(crate) events: usize,
    pub(crate) failed: Option<StreamError>,
}

impl Backlog {
    /// Appends `chunk`, unless the stream already failed or the event not framed yet (all the
    /// buffer holds between pushes) has grown past [`MAX_EVENT_BYTES`].
    pub(crate) fn take(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.buffer.len() > MAX_EVENT_BYTES {
            let found = Size::MoreThan(self.buffer.len());
            return self.settle(Err(self.too_large(0, found)));
        }
        self.buffer.extend_from_slice(chunk);
        Ok(())
    }

    /// The event starting at `start` of the buffer is larger than [`MAX_EVENT_BYTES`].
    pub(crate) fn too_large(&self, start: usize, found: Size) -> StreamError {
        StreamError::TooLarge { event: self.events + 1, offset: self.consumed + start, limit: MAX_EVENT_BYTES, found }
    }

    /// Forgets the first `framed` bytes of the buffer.
    pub(crate) fn release(&mut self, framed: usize) {
        self.buffer.drain(..framed);
        self.consumed += framed;
    }

    /// Remembers a failure, so that later chunks get the same error.
    pub(crate) fn settle<T>(&mut self, result: Result<T, StreamError>) -> Result<T, StreamError> {
        result.inspect_err(|e| self.failed = Some(e.clone()))
    }

    /// The end of the stream: its failure, or `Truncated` when it stopped `inside_event`.
    pub(crate) fn finish(&self, inside_event: bool) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if inside_event {
            return Err(StreamError::Truncated { event: self.events + 1, offset: self.consumed + self.buffer.len() });
        }
        Ok(())
    }
}

/// Reads one framed event: its bytes, their offset in the stream, its number (1-based).
pub(crate) type EventReader<'a, T> = dyn FnMut(&[u8], usize, usize) -> Result<T, StreamError> + 'a;

/// Tries to read one event from the start of the bytes given (which may end inside it, or hold
/// more events after it), at its offset in the stream, with its number: the bytes it took and the
/// event, or `None` to leave it to the framer.
pub(crate) type PrefixReader<'a, T> = dyn FnMut(&[u8], usize, usize) -> Option<(usize, Result<T, StreamError>)> + 'a;
