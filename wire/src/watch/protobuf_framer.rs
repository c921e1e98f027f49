//! Framing a protobuf watch (`application/vnd.kubernetes.protobuf;stream=watch`): each frame a
//! 4-byte big-endian length and a `WatchEvent` message.

use crate::codec::protobuf::{decode_watch_event, ProtobufWatchEvent};
use crate::watch::framer::{Backlog, Framer, Size, StreamError, MAX_EVENT_BYTES};

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
}

impl Framer for ProtobufFramer {
    type Event = ProtobufWatchEvent;

    fn push(&mut self, chunk: &[u8]) -> Result<Vec<ProtobufWatchEvent>, StreamError> {
        self.backlog.take(chunk)?;
        let mut events = Vec::new();
        let mut start = 0;
        let mut result = Ok(());
        while let Some(prefix) = self.backlog.buffer.get(start..start + FRAME_PREFIX) {
            let len = prefix.iter().fold(0u64, |a, b| a << 8 | u64::from(*b));
            if len > MAX_EVENT_BYTES as u64 {
                // Refused as announced: nothing of a 1 GB frame is waited for or kept.
                result = Err(self.backlog.too_large(start, Size::Announced(len)));
                break;
            }
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

    fn finish(&self) -> Result<(), StreamError> {
        self.backlog.finish(!self.backlog.buffer.is_empty())
    }
}
