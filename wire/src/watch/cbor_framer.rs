//! Framing a CBOR sequence watch stream (`application/cbor-seq`, RFC 8742): items back to back,
//! each one's end found by a resumable scanner without decoding it.

use crate::codec::cbor::decode_cbor;
use crate::codec::value::{Value, MAX_DEPTH};
use crate::watch::framer::{Backlog, EventReader, Framer, PrefixReader, StreamError};

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

    /// Takes the next chunk; `decode` reads each event it completed. `first`, as for
    /// [`JsonFramer`], is tried on the bytes from each event's start before the framer steps
    /// through them.
    pub(crate) fn push_with<T>(
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
}

impl Framer for CborSeqFramer {
    type Event = Value;

    fn push(&mut self, chunk: &[u8]) -> Result<Vec<Value>, StreamError> {
        self.push_with(chunk, None, &mut |bytes, offset, event| {
            decode_cbor(bytes).map_err(|source| StreamError::Decode { event, source: source.shifted(offset) })
        })
    }

    fn finish(&self) -> Result<(), StreamError> {
        self.backlog.finish(!self.backlog.buffer.is_empty())
    }
}

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
