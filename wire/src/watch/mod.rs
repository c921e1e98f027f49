//! Watch streams: framing the bytes of a watch response into events, and the typed
//! [`WatchEvent`] (see "Efficient detection of changes", "Watch bookmarks", "Streaming lists").
//!
//! Three framings, each a push decoder that keeps leftovers between chunks:
//! - [`JsonFramer`]: `application/json`, one JSON object per event, chunk boundaries anywhere
//!   (many events per chunk, one event across many chunks);
//! - [`CborSeqFramer`]: `application/cbor-seq` (RFC 8742), items back to back;
//! - [`ProtobufFramer`]: `application/vnd.kubernetes.protobuf;stream=watch`, each frame a 4-byte
//!   big-endian length and a `WatchEvent` message ([`WatchDecoder::protobuf`] types its events
//!   as a JSON watch's, with the protobuf decoder the edge hands it).
//!
//! Invariants: scanning is incremental (each byte is looked at a bounded number of times however
//! the stream is chunked, and an event is decoded once, when complete); nothing is allocated from
//! a length prefix, only from bytes received; errors name the event number (1-based) and the byte
//! offset in the whole stream; [`finish`](JsonFramer::finish) reports a stream that ended inside
//! an event as truncated at byte N. After an error a framer keeps returning it.

pub mod cbor_framer;
pub mod decoder;
pub mod event;
pub mod fast;
pub mod fast_cbor;
pub mod framer;
pub mod json_framer;
pub mod lazy;
pub mod lazy_list;
#[cfg(test)]
mod lazy_tests;
pub mod object;
pub mod protobuf_framer;
#[cfg(test)]
mod protobuf_tests;
#[cfg(test)]
mod tests;

pub use cbor_framer::CborSeqFramer;
pub use decoder::{UnsupportedStream, WatchDecoder};
pub use event::{encode_cbor_event, encode_json_event, Bookmark, WatchEvent, INITIAL_EVENTS_END_ANNOTATION};
pub use framer::{Framer, Size, StreamError, MAX_EVENT_BYTES};
pub use json_framer::JsonFramer;
pub use object::{is_table, watched_object};
pub use protobuf_framer::ProtobufFramer;
