//! Framing a JSON watch stream (`application/json`): one JSON object per event, chunk boundaries
//! anywhere (many events per chunk, one event across many chunks).

use crate::codec::json::decode_json;
use crate::codec::value::Value;
use crate::error::{DecodeError, Token};
use crate::watch::framer::{Backlog, EventReader, Framer, PrefixReader, StreamError};

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

    /// Takes the next chunk; `decode` reads each event it completed (its bytes, their offset in
    /// the stream and the event's number). `first`, if given, is tried on the bytes from each
    /// event's start: when it reads an event whole it says how many bytes it took, and the
    /// framer goes on from there without looking at them (see [`WatchDecoder::push`]); when it
    /// does not, the framer finds the event's end byte by byte, and `decode` reads it.
    pub(crate) fn push_with<T>(
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
                        let found = crate::error::describe_byte(&self.backlog.buffer, i);
                        let source = DecodeError::new(crate::error::Format::Json, event_start(), found, offset);
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

impl Framer for JsonFramer {
    type Event = Value;

    fn push(&mut self, chunk: &[u8]) -> Result<Vec<Value>, StreamError> {
        self.push_with(chunk, None, &mut |bytes, offset, event| {
            decode_json(bytes).map_err(|source| StreamError::Decode { event, source: source.shifted(offset) })
        })
    }

    fn finish(&self) -> Result<(), StreamError> {
        self.backlog.finish(self.start.is_some() || self.backlog.buffer.iter().any(|b| !b.is_ascii_whitespace()))
    }
}

/// What a JSON watch stream must have where an event begins.
fn event_start() -> Token {
    Token::EventStart("'{'")
}
