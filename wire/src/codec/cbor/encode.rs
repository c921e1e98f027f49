//! Writing CBOR: the form Kubernetes clients write ([`CborEncoding::CLIENT`]) or the form the
//! server writes ([`CborEncoding::SERVER`]: tag 55799 first, byte strings for keys and text,
//! definite lengths, shortest exact floats, optionally shuffled keys).

use ciborium_ll::{Encoder, Header};

use crate::codec::cbor::reader::{BASE64_TAG, SELF_DESCRIBED_TAG, SIMPLE_FALSE, SIMPLE_NULL, SIMPLE_TRUE};
use crate::codec::value::{Map, Value};

/// How to write CBOR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CborEncoding {
    /// Start with the self-described tag 55799 (the server always does).
    pub self_described: bool,
    /// Which string type carries keys and text.
    pub strings: StringType,
    pub key_order: KeyOrder,
}

/// The CBOR string type used for keys and text values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringType {
    /// Major type 2, as Kubernetes writes every string.
    Byte,
    /// Major type 3, as other CBOR encoders write text.
    Text,
}

/// The order in which map keys are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// The order of the [`Map`].
    Wire,
    /// A pseudo-random order from `seed`, as a real API server shuffles keys (same seed, same
    /// bytes; the encoder has no clock or entropy source).
    Shuffled { seed: u64 },
}

impl CborEncoding {
    /// Request bodies as client-go writes them (`application/cbor`, `apply-patch+cbor`): no
    /// 55799 prefix, byte-string keys and text.
    pub const CLIENT: CborEncoding =
        CborEncoding { self_described: false, strings: StringType::Byte, key_order: KeyOrder::Wire };
    /// Response bodies as the API server writes them (key order kept; see [`Self::shuffled`]).
    pub const SERVER: CborEncoding =
        CborEncoding { self_described: true, strings: StringType::Byte, key_order: KeyOrder::Wire };

    /// The same encoding with keys in a shuffled order.
    #[must_use]
    pub fn shuffled(self, seed: u64) -> CborEncoding {
        CborEncoding { key_order: KeyOrder::Shuffled { seed }, ..self }
    }
}

/// Encodes `value` as one CBOR data item. [`Value::Bytes`] becomes tag 22 around a byte string,
/// so the server reads it back as the same `[]byte`; floats use the shortest exact width.
pub fn encode_cbor(value: &Value, encoding: CborEncoding) -> Vec<u8> {
    let mut writer = Writer::new(encoding);
    if encoding.self_described {
        writer.head(Header::Tag(SELF_DESCRIBED_TAG));
    }
    writer.value(value);
    writer.finish()
}

/// Appends to `out` exactly what [`encode_cbor`] writes for [`Value::from_serde_json`]`(value)`
/// (the same bytes for the same encoding and seed), without building that [`Value`] first: the
/// simulated server encodes its stored objects this way.
pub fn encode_cbor_json(value: &serde_json::Value, encoding: CborEncoding, out: &mut Vec<u8>) {
    let mut writer = Writer { bytes: std::mem::take(out), ..Writer::new(encoding) };
    if encoding.self_described {
        writer.head(Header::Tag(SELF_DESCRIBED_TAG));
    }
    let mut json = JsonWriter { writer, entries: Vec::new() };
    json.value(value);
    *out = json.writer.finish();
}

/// [`Writer`] over serde_json values. `entries` holds the members of the maps being written, each
/// map's (shuffled) members on top of its parent's, so that no map needs its own allocation.
struct JsonWriter<'a> {
    writer: Writer,
    entries: Vec<(&'a str, &'a serde_json::Value)>,
}

impl<'a> JsonWriter<'a> {
    /// As [`Writer::value`] of [`Value::from_serde_json`].
    fn value(&mut self, value: &'a serde_json::Value) {
        let w = &mut self.writer;
        match value {
            serde_json::Value::Null => w.head(Header::Simple(SIMPLE_NULL)),
            serde_json::Value::Bool(false) => w.head(Header::Simple(SIMPLE_FALSE)),
            serde_json::Value::Bool(true) => w.head(Header::Simple(SIMPLE_TRUE)),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) if i >= 0 => w.head(Header::Positive(i.unsigned_abs())),
                Some(i) => w.head(Header::Negative(i.unsigned_abs() - 1)),
                None => w.head(Header::Float(n.as_f64().unwrap_or(0.0))),
            },
            serde_json::Value::String(s) => w.text(s),
            serde_json::Value::Array(items) => {
                w.head(Header::Array(Some(items.len())));
                for item in items {
                    self.value(item);
                }
            }
            serde_json::Value::Object(map) => {
                w.head(Header::Map(Some(map.len())));
                let base = self.entries.len();
                self.entries.extend(map.iter().map(|(k, v)| (k.as_str(), v)));
                // The swaps of `Writer::map`, on the members instead of their indices.
                if let KeyOrder::Shuffled { .. } = w.encoding.key_order {
                    for i in (1..map.len()).rev() {
                        let j = (w.next_random() % (i as u64 + 1)) as usize;
                        self.entries.swap(base + i, base + j);
                    }
                }
                for at in base..base + map.len() {
                    let (key, child) = self.entries[at];
                    self.writer.text(key);
                    self.value(child);
                }
                self.entries.truncate(base);
            }
        }
    }
}

/// A server's CBOR written piece by piece: heads, then whole values, in the encoding's form (the
/// simulated server streams a list of its stored objects this way, without copying them into one
/// tree first). Nothing checks that the pieces make one well-formed item: a map head of `n` must be
/// followed by `n` keys and values.
pub struct CborWriter {
    writer: Writer,
}

impl CborWriter {
    /// A writer that starts with the self-described tag when `encoding` says so.
    pub fn new(encoding: CborEncoding) -> CborWriter {
        let mut writer = Writer::new(encoding);
        if encoding.self_described {
            writer.head(Header::Tag(SELF_DESCRIBED_TAG));
        }
        CborWriter { writer }
    }

    /// The head of a map of `len` entries.
    pub fn map(&mut self, len: usize) {
        self.writer.head(Header::Map(Some(len)));
    }

    /// The head of an array of `len` items.
    pub fn array(&mut self, len: usize) {
        self.writer.head(Header::Array(Some(len)));
    }

    /// A string (a key, or a text value), in the encoding's string type.
    pub fn text(&mut self, text: &str) {
        self.writer.text(text);
    }

    /// A value of the document model.
    pub fn value(&mut self, value: &Value) {
        self.writer.value(value);
    }

    /// A serde_json value, written as [`encode_cbor_json`] writes it.
    pub fn json(&mut self, value: &serde_json::Value) {
        let placeholder = Writer::new(self.writer.encoding);
        let writer = std::mem::replace(&mut self.writer, placeholder);
        let mut json = JsonWriter { writer, entries: Vec::new() };
        json.value(value);
        self.writer = json.writer;
    }

    /// Puts a map's members in the encoding's key order (shuffled, as the server does, or kept).
    pub fn order<T>(&mut self, members: &mut [T]) {
        if let KeyOrder::Shuffled { .. } = self.writer.encoding.key_order {
            for i in (1..members.len()).rev() {
                let j = (self.writer.next_random() % (i as u64 + 1)) as usize;
                members.swap(i, j);
            }
        }
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.writer.finish()
    }
}

/// Writes values; `pub(crate)` so the watch encoder can put an event map around an object.
pub(crate) struct Writer {
    bytes: Vec<u8>,
    encoding: CborEncoding,
    state: u64,
}

impl Writer {
    pub(crate) fn new(encoding: CborEncoding) -> Self {
        let state = match encoding.key_order {
            KeyOrder::Wire => 0,
            // xorshift needs a non-zero state.
            KeyOrder::Shuffled { seed } => seed | 1,
        };
        Writer { bytes: Vec::new(), encoding, state }
    }

    pub(crate) fn head(&mut self, header: Header) {
        // Writing into a Vec cannot fail.
        let _ = Encoder::from(&mut self.bytes).push(header);
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    pub(crate) fn text(&mut self, text: &str) {
        match self.encoding.strings {
            StringType::Byte => self.head(Header::Bytes(Some(text.len()))),
            StringType::Text => self.head(Header::Text(Some(text.len()))),
        }
        self.raw(text.as_bytes());
    }

    pub(crate) fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.head(Header::Simple(SIMPLE_NULL)),
            Value::Bool(false) => self.head(Header::Simple(SIMPLE_FALSE)),
            Value::Bool(true) => self.head(Header::Simple(SIMPLE_TRUE)),
            Value::Int(i) if *i >= 0 => self.head(Header::Positive(i.unsigned_abs())),
            Value::Int(i) => self.head(Header::Negative(i.unsigned_abs() - 1)),
            Value::Float(f) => self.head(Header::Float(*f)),
            Value::String(s) => self.text(s),
            Value::Bytes(b) => {
                self.head(Header::Tag(BASE64_TAG));
                self.head(Header::Bytes(Some(b.len())));
                self.raw(b);
            }
            Value::Array(items) => {
                self.head(Header::Array(Some(items.len())));
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(map) => self.map(map),
        }
    }

    fn map(&mut self, map: &Map) {
        self.head(Header::Map(Some(map.len())));
        let entries = map.entries();
        let mut order: Vec<usize> = (0..entries.len()).collect();
        if let KeyOrder::Shuffled { .. } = self.encoding.key_order {
            for i in (1..order.len()).rev() {
                let j = (self.next_random() % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
        }
        for i in order {
            let (key, value) = &entries[i];
            self.text(key);
            self.value(value);
        }
    }

    fn next_random(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.bytes
    }
}
