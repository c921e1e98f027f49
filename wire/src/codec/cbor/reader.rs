//! Reading CBOR: [`decode_cbor`] builds a [`Value`] by the Kubernetes rules (see the module
//! [`crate::codec::cbor`]); the [`Reader`] also checks items by the same rules without
//! building them (`skip`), which the watch fast pass uses to step over what it does not keep.
//!
//! Invariants: no allocation is sized from a length prefix beyond the bytes actually present,
//! nesting is bounded by [`MAX_DEPTH`], and every error carries the byte offset of the item.

use ciborium_ll::{Decoder, Header};

use crate::codec::value::{DuplicateKeys, MapBuilder, Value, ValueKind, MAX_DEPTH};
use crate::error::{describe_byte, end_of_input, DecodeError, Format, Token};

/// The self-described CBOR tag (`d9 d9 f7`).
pub const SELF_DESCRIBED_TAG: u64 = 55799;
/// "Expected conversion to base64": the tag Kubernetes puts around `[]byte` values.
pub const BASE64_TAG: u64 = 22;
/// The three bytes of the self-described tag as it appears on the wire.
pub const SELF_DESCRIBED_PREFIX: [u8; 3] = [0xd9, 0xd9, 0xf7];

pub(crate) const SIMPLE_FALSE: u8 = 20;
pub(crate) const SIMPLE_TRUE: u8 = 21;
pub(crate) const SIMPLE_NULL: u8 = 22;

/// Decodes one CBOR data item that must fill `input` exactly.
pub fn decode_cbor(input: &[u8]) -> Result<Value, DecodeError> {
    let (value, used) = decode_cbor_prefix(input)?;
    if used != input.len() {
        return Err(DecodeError::new(Format::Cbor, Token::EndOfInput, describe_byte(input, used), used));
    }
    Ok(value)
}

/// Decodes the first CBOR data item of `input` and says how many bytes it took (the rest may be
/// the next item of a CBOR sequence).
pub fn decode_cbor_prefix(input: &[u8]) -> Result<(Value, usize), DecodeError> {
    let mut reader = Reader::new(input);
    let value = reader.item(0)?;
    Ok((value, reader.pos))
}

/// Reads items from a slice: each head through `ciborium-ll` (which decides what it means), the
/// string contents in place, so a string the caller only checks or skips is never copied.
pub(crate) struct Reader<'a> {
    pub(crate) input: &'a [u8],
    /// Offset of the next unread byte.
    pub(crate) pos: usize,
    /// The keys of the maps being walked (see [`Reader::walk_map`]), each map's on top of its
    /// parent's: one buffer for the whole input, no map needs its own.
    keys: Vec<(u32, &'a [u8])>,
    /// The arrays and maps open in [`Reader::skip_deferring_keys`]: items left, and whether a map.
    frames: Vec<(usize, bool)>,
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum StringKind {
    Bytes,
    Text,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `input`.
    pub(crate) fn new(input: &'a [u8]) -> Reader<'a> {
        Reader { input, pos: 0, keys: Vec::new(), frames: Vec::new() }
    }

    pub(crate) fn error(&self, expected: impl Into<Token>, found: impl Into<Token>, offset: usize) -> DecodeError {
        DecodeError::new(Format::Cbor, expected, found, offset)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// The next item head and its offset.
    pub(crate) fn pull(&mut self) -> Result<(usize, Header), DecodeError> {
        // Most heads are integers, strings, arrays, maps and tags of a definite argument: read in
        // place (a watch event has hundreds of them). The rest (floats, simple values, breaks,
        // indefinite lengths, reserved or cut-short heads) are read by `ciborium-ll`.
        let at = self.pos;
        if let Some(&initial) = self.input.get(at) {
            let (major, minor) = (initial >> 5, initial & 0x1f);
            let size = match minor {
                0..=23 => 0,
                24 => 1,
                25 => 2,
                26 => 4,
                27 => 8,
                _ => usize::MAX,
            };
            if major <= 6 && size != usize::MAX {
                if let Some(bytes) = self.input.get(at + 1..at + 1 + size) {
                    let argument = match size {
                        0 => u64::from(minor),
                        _ => bytes.iter().fold(0u64, |a, b| a << 8 | u64::from(*b)),
                    };
                    let len = usize::try_from(argument).ok();
                    let header = match (major, len) {
                        (0, _) => Some(Header::Positive(argument)),
                        (1, _) => Some(Header::Negative(argument)),
                        (2, Some(len)) => Some(Header::Bytes(Some(len))),
                        (3, Some(len)) => Some(Header::Text(Some(len))),
                        (4, Some(len)) => Some(Header::Array(Some(len))),
                        (5, Some(len)) => Some(Header::Map(Some(len))),
                        (6, _) => Some(Header::Tag(argument)),
                        _ => None,
                    };
                    if let Some(header) = header {
                        self.pos = at + 1 + size;
                        return Ok((at, header));
                    }
                }
            }
        }
        let rest = self.input.get(at..).unwrap_or_default();
        let mut decoder = Decoder::from(rest);
        match decoder.pull() {
            Ok(header) => {
                self.pos = at + decoder.offset();
                Ok((at, header))
            }
            Err(ciborium_ll::Error::Io(_)) => Err(self.error(Token::CborItem, end_of_input(), self.input.len())),
            Err(ciborium_ll::Error::Syntax(offset)) => {
                let offset = at + offset;
                Err(self.error(Token::CborHead, describe_byte(self.input, offset), offset))
            }
        }
    }

    /// The next `len` bytes of string data, in place.
    pub(crate) fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        if len > self.remaining() {
            return Err(self.error(Token::StringBytes(len), end_of_input(), self.input.len()));
        }
        let bytes = &self.input[self.pos..self.pos + len];
        self.pos += len;
        Ok(bytes)
    }

    pub(crate) fn item(&mut self, depth: usize) -> Result<Value, DecodeError> {
        let (at, header) = self.pull()?;
        self.value(at, header, depth)
    }

    pub(crate) fn value(&mut self, at: usize, header: Header, depth: usize) -> Result<Value, DecodeError> {
        let nests = match header {
            Header::Array(_) | Header::Map(_) => true,
            Header::Tag(tag) => tag != SELF_DESCRIBED_TAG,
            _ => false,
        };
        if depth >= MAX_DEPTH && nests {
            return Err(self.error(Token::NestingAtMost(MAX_DEPTH), Token::DeeperNesting, at));
        }
        match header {
            // The self-described tag marks a value without nesting it: the server's form wraps a
            // value the client's form does not, and both must decode at the same depths. A run
            // of such tags is bounded on its own, without recursion.
            Header::Tag(SELF_DESCRIBED_TAG) => {
                let mut run = 1;
                loop {
                    let (at, header) = self.pull()?;
                    if header != Header::Tag(SELF_DESCRIBED_TAG) {
                        return self.value(at, header, depth);
                    }
                    run += 1;
                    if run > MAX_DEPTH {
                        let expected = Token::SelfDescribedRun(MAX_DEPTH);
                        return Err(self.error(expected, Token::More, at));
                    }
                }
            }
            Header::Tag(BASE64_TAG) => match self.pull()? {
                (inner, Header::Bytes(len)) => Ok(Value::Bytes(self.string(inner, len, StringKind::Bytes)?)),
                (inner, other) => Err(self.error(Token::BytesInsideTag22, describe_header(other), inner)),
            },
            Header::Tag(tag @ (2 | 3)) => Err(self.error(Token::Int64, Token::Bignum(tag), at)),
            Header::Tag(tag) => Err(self.error(Token::SupportedTag, Token::Tag(tag), at)),
            Header::Positive(n) => i64::try_from(n)
                .map(Value::Int)
                .map_err(|_| self.error(Token::Int64, Token::Verbatim(n.to_string()), at)),
            Header::Negative(n) => match i64::try_from(n) {
                Ok(n) => Ok(Value::Int(-1 - n)),
                Err(_) => Err(self.error(Token::Int64, Token::Verbatim(format!("-{}", u128::from(n) + 1)), at)),
            },
            Header::Float(f) if f.is_finite() => Ok(Value::Float(f)),
            Header::Float(f) => Err(self.error(Token::FiniteFloat, Token::Verbatim(f.to_string()), at)),
            Header::Simple(SIMPLE_FALSE) => Ok(Value::Bool(false)),
            Header::Simple(SIMPLE_TRUE) => Ok(Value::Bool(true)),
            Header::Simple(SIMPLE_NULL) => Ok(Value::Null),
            Header::Simple(other) => Err(self.error(Token::CborLiteral, describe_header(Header::Simple(other)), at)),
            Header::Break => Err(self.error(Token::DataItem, Token::Break, at)),
            Header::Bytes(len) => Ok(Value::String(go_lossy_utf8(self.string(at, len, StringKind::Bytes)?))),
            Header::Text(len) => {
                let content = self.pos;
                let bytes = self.string(at, len, StringKind::Text)?;
                String::from_utf8(bytes).map(Value::String).map_err(|e| {
                    let offset = content + e.utf8_error().valid_up_to();
                    self.error(Token::ValidUtf8, Token::InvalidSequence, offset)
                })
            }
            Header::Array(len) => self.array(len, depth),
            Header::Map(len) => self.map(len, depth),
        }
    }

    /// Reads the content of a byte or text string whose head was at `at`.
    pub(crate) fn string(&mut self, at: usize, len: Option<usize>, kind: StringKind) -> Result<Vec<u8>, DecodeError> {
        match len {
            Some(len) => self.definite_string(len),
            None => {
                let mut out = Vec::new();
                loop {
                    match self.pull()? {
                        (_, Header::Break) => return Ok(out),
                        (_, Header::Bytes(Some(len))) if kind == StringKind::Bytes => {
                            out.extend(self.definite_string(len)?)
                        }
                        (_, Header::Text(Some(len))) if kind == StringKind::Text => {
                            out.extend(self.definite_string(len)?)
                        }
                        (chunk, other) => {
                            return Err(self.error(Token::DefiniteChunk(at), describe_header(other), chunk))
                        }
                    }
                }
            }
        }
    }

    pub(crate) fn definite_string(&mut self, len: usize) -> Result<Vec<u8>, DecodeError> {
        self.take(len).map(<[u8]>::to_vec)
    }

    pub(crate) fn array(&mut self, len: Option<usize>, depth: usize) -> Result<Value, DecodeError> {
        match len {
            Some(len) => {
                // Every item takes at least one byte, so this bounds the allocation by the input.
                let mut items = Vec::with_capacity(len.min(self.remaining()));
                for _ in 0..len {
                    items.push(self.item(depth + 1)?);
                }
                Ok(Value::Array(items))
            }
            None => {
                let mut items = Vec::new();
                loop {
                    match self.pull()? {
                        (_, Header::Break) => return Ok(Value::Array(items)),
                        (at, header) => items.push(self.value(at, header, depth + 1)?),
                    }
                }
            }
        }
    }

    pub(crate) fn map(&mut self, len: Option<usize>, depth: usize) -> Result<Value, DecodeError> {
        let mut builder = MapBuilder::new(DuplicateKeys::Reject);
        let mut count = 0;
        loop {
            if len == Some(count) {
                break;
            }
            let (at, header) = self.pull()?;
            let key = match header {
                Header::Break if len.is_none() => break,
                Header::Bytes(len) => go_lossy_utf8(self.string(at, len, StringKind::Bytes)?),
                Header::Text(len) => match String::from_utf8(self.string(at, len, StringKind::Text)?) {
                    Ok(key) => key,
                    Err(_) => return Err(self.error(Token::ValidUtf8, Token::InvalidSequence, at)),
                },
                other => return Err(self.error(Token::MapKey, describe_header(other), at)),
            };
            let value = self.item(depth + 1)?;
            builder
                .insert(key, value)
                .map_err(|key| self.error(Token::UniqueMapKeys, Token::KeyAgain(format!("{key:?}")), at))?;
            count += 1;
        }
        Ok(Value::Object(builder.finish()))
    }
}

/// Reads or skips the value of one map member: the reader, the member's key, its depth.
pub(crate) type MapEntry<'e, 'a> = dyn FnMut(&mut Reader<'a>, &[u8], usize) -> Result<(), DecodeError> + 'e;

/// Up to this many keys of a map are checked for repeats by comparison, beyond it by hashing.
const LINEAR_KEYS: usize = 48;

impl<'a> Reader<'a> {
    /// `header` (read at `at`), or the first head after the self-described tags it starts
    /// (bounded as [`Reader::value`] bounds them).
    pub(crate) fn untag(&mut self, at: usize, header: Header) -> Result<(usize, Header), DecodeError> {
        if header != Header::Tag(SELF_DESCRIBED_TAG) {
            return Ok((at, header));
        }
        let mut run = 1;
        loop {
            let (at, header) = self.pull()?;
            if header != Header::Tag(SELF_DESCRIBED_TAG) {
                return Ok((at, header));
            }
            run += 1;
            if run > MAX_DEPTH {
                return Err(self.error(Token::SelfDescribedRun(MAX_DEPTH), Token::More, at));
            }
        }
    }

    /// Checks the next item at `depth` without building it.
    pub(crate) fn skip_item(&mut self, depth: usize) -> Result<(), DecodeError> {
        let (at, header) = self.pull()?;
        self.skip(at, header, depth)
    }

    /// Checks an item by the rules of [`Reader::value`] without building it.
    pub(crate) fn skip(&mut self, at: usize, header: Header, depth: usize) -> Result<(), DecodeError> {
        match header {
            Header::Tag(SELF_DESCRIBED_TAG) => {
                let (at, header) = self.untag(at, header)?;
                self.skip(at, header, depth)
            }
            Header::Array(_) | Header::Map(_) | Header::Tag(_) if depth >= MAX_DEPTH => {
                Err(self.error(Token::NestingAtMost(MAX_DEPTH), Token::DeeperNesting, at))
            }
            Header::Array(len) => {
                let mut count = 0;
                while len != Some(count) {
                    match self.pull()? {
                        (_, Header::Break) if len.is_none() => return Ok(()),
                        (at, header) => self.skip(at, header, depth + 1)?,
                    }
                    count += 1;
                }
                Ok(())
            }
            Header::Map(len) => self.walk_map(len, depth, &mut |reader, _, depth| reader.skip_item(depth)),
            Header::Bytes(Some(len)) => self.advance(len),
            Header::Text(Some(len)) => {
                let content = self.pos;
                if len > self.remaining() {
                    return Err(self.error(Token::StringBytes(len), end_of_input(), self.input.len()));
                }
                if let Err(e) = std::str::from_utf8(&self.input[content..content + len]) {
                    let offset = content + e.valid_up_to();
                    return Err(self.error(Token::ValidUtf8, Token::InvalidSequence, offset));
                }
                self.advance(len)
            }
            Header::Tag(BASE64_TAG) => match self.pull()? {
                (_, Header::Bytes(Some(len))) => self.advance(len),
                (inner, header @ Header::Bytes(None)) => self.value(inner, header, depth).map(drop),
                (inner, other) => Err(self.error(Token::BytesInsideTag22, describe_header(other), inner)),
            },
            // Everything else allocates nothing worth saving, or is an error: the rules of
            // `value` itself.
            other => self.value(at, other, depth).map(drop),
        }
    }

    /// Steps over the next item at `depth` as [`Reader::skip_item`] does, except that the keys of
    /// the maps inside it are not checked for repeats (nor, when they are byte strings, for
    /// UTF-8): those are found when the item is decoded, as a JSON body's lone surrogates are.
    /// The fast passes step over what they do not keep this way. Iterative over definite-length
    /// arrays and maps, strings stepped over by their length; anything else (tags, text,
    /// indefinite lengths, floats, simple values) by the rules of [`Reader::skip`].
    pub(crate) fn skip_deferring_keys(&mut self, depth: usize) -> Result<(), DecodeError> {
        let base = self.frames.len();
        let skipped = self.skip_frames(depth, base);
        self.frames.truncate(base);
        skipped
    }

    fn skip_frames(&mut self, depth: usize, base: usize) -> Result<(), DecodeError> {
        // Items left in the innermost open array or map (a map's keys and values both count).
        let (mut left, mut in_map) = (1usize, false);
        loop {
            while left == 0 {
                if self.frames.len() == base {
                    return Ok(());
                }
                (left, in_map) = self.frames.pop().unwrap_or((0, false));
            }
            let key = in_map && left % 2 == 0;
            left -= 1;
            let level = depth + (self.frames.len() - base);
            let (at, header) = self.pull()?;
            match header {
                Header::Bytes(Some(len)) => self.advance(len)?,
                Header::Text(_) | Header::Bytes(None) if key => self.skip(at, header, level)?,
                other if key => return Err(self.error(Token::MapKey, describe_header(other), at)),
                Header::Array(Some(len)) | Header::Map(Some(len)) if level < MAX_DEPTH => {
                    let map = matches!(header, Header::Map(_));
                    let items = if map { len.checked_mul(2) } else { Some(len) };
                    // Every item takes a byte at least: more than the input holds cannot be.
                    let Some(items) = items.filter(|n| *n <= self.remaining().saturating_mul(2)) else {
                        return Err(self.error(Token::Items(len), end_of_input(), self.input.len()));
                    };
                    self.frames.push((left, in_map));
                    (left, in_map) = (items, map);
                }
                Header::Positive(n) | Header::Negative(n) if n <= i64::MAX as u64 => {}
                other => self.skip(at, other, level)?,
            }
        }
    }

    /// Steps over `len` bytes of string data.
    pub(crate) fn advance(&mut self, len: usize) -> Result<(), DecodeError> {
        self.take(len).map(drop)
    }

    /// Walks a map at `depth` whose head was read: each key is checked as [`Reader::map`] checks
    /// it (a byte or valid UTF-8 text string, unique) and `entry` reads or skips its value.
    /// (One copy of it serves every caller: `entry` is a trait object, the bundle stays small.)
    #[inline(never)]
    pub(crate) fn walk_map(
        &mut self,
        len: Option<usize>,
        depth: usize,
        entry: &mut MapEntry<'_, 'a>,
    ) -> Result<(), DecodeError> {
        // The keys seen: those read in place (most) on the reader's key stack above the maps
        // around this one, the few others beside them, a hash index once the map is large.
        // Each with a tag of its length, first and last byte, compared before the bytes are (a
        // pod's event has a few hundred keys: comparing each with the keys before it, byte by
        // byte, was a good part of reading the event).
        let tag = |key: &[u8]| {
            (key.len() as u32) << 16 | u32::from(*key.first().unwrap_or(&0)) << 8 | u32::from(*key.last().unwrap_or(&0))
        };
        let base = self.keys.len();
        let mut owned: Vec<Vec<u8>> = Vec::new();
        // (The same map type as `MapBuilder`'s index: no new hashing code in the bundle.)
        let mut index: Option<std::collections::HashMap<String, usize>> = None;
        let mut count = 0;
        let walked = loop {
            if len == Some(count) {
                break Ok(());
            }
            let (at, header) = self.pull()?;
            let key: std::borrow::Cow<'a, [u8]> = match header {
                Header::Break if len.is_none() => break Ok(()),
                Header::Bytes(Some(n)) | Header::Text(Some(n)) if n <= self.remaining() => {
                    let start = self.pos;
                    let bytes = &self.input[start..start + n];
                    self.advance(n)?;
                    // Keys are ASCII but for the rare label or annotation: the word-at-a-time
                    // check first.
                    match (bytes.is_ascii() || std::str::from_utf8(bytes).is_ok(), header) {
                        (true, _) => std::borrow::Cow::Borrowed(bytes),
                        (false, Header::Bytes(_)) => go_lossy_utf8(bytes.to_vec()).into_bytes().into(),
                        (false, _) => break Err(self.error(Token::ValidUtf8, Token::InvalidSequence, at)),
                    }
                }
                Header::Bytes(len) => match self.string(at, len, StringKind::Bytes) {
                    Ok(bytes) => go_lossy_utf8(bytes).into_bytes().into(),
                    Err(e) => break Err(e),
                },
                Header::Text(len) => match self.string(at, len, StringKind::Text).map(String::from_utf8) {
                    Ok(Ok(key)) => key.into_bytes().into(),
                    Ok(Err(_)) => break Err(self.error(Token::ValidUtf8, Token::InvalidSequence, at)),
                    Err(e) => break Err(e),
                },
                other => break Err(self.error(Token::MapKey, describe_header(other), at)),
            };
            if let Err(e) = entry(self, &key, depth + 1) {
                break Err(e);
            }
            let repeated = match &mut index {
                Some(index) => index.insert(String::from_utf8_lossy(&key).into_owned(), 0).is_some(),
                None => {
                    let key_tag = tag(&key);
                    self.keys[base..].iter().any(|(t, k)| *t == key_tag && **k == *key)
                        || owned.iter().any(|k| **k == *key)
                }
            };
            if repeated {
                let key = String::from_utf8_lossy(&key).into_owned();
                break Err(self.error(Token::UniqueMapKeys, Token::KeyAgain(format!("{key:?}")), at));
            }
            if index.is_none() {
                match key {
                    std::borrow::Cow::Borrowed(key) => self.keys.push((tag(key), key)),
                    key => owned.push(key.into_owned()),
                }
                if self.keys.len() - base + owned.len() > LINEAR_KEYS {
                    let mut large = std::collections::HashMap::new();
                    for key in self.keys[base..].iter().map(|(_, key)| *key).chain(owned.iter().map(Vec::as_slice)) {
                        large.insert(String::from_utf8_lossy(key).into_owned(), 0);
                    }
                    index = Some(large);
                    owned.clear();
                    self.keys.truncate(base);
                }
            }
            count += 1;
        };
        self.keys.truncate(base);
        walked
    }
}

/// Names an item head for an error message.
pub(crate) fn describe_header(header: Header) -> Token {
    match header {
        Header::Positive(n) => Token::Integer(i128::from(n)),
        Header::Negative(n) => Token::Integer(-1 - i128::from(n)),
        Header::Float(f) => Token::Float(f.to_string()),
        Header::Simple(23) => Token::Verbatim("undefined".to_owned()),
        Header::Simple(n) => Token::SimpleValue(n),
        Header::Tag(t) => Token::Tag(t),
        Header::Break => Token::Break,
        Header::Bytes(_) => Token::Kind(ValueKind::Bytes),
        Header::Text(_) => Token::TextString,
        Header::Array(_) => Token::Kind(ValueKind::Array),
        Header::Map(_) => Token::Map,
    }
}

/// UTF-8 text of `bytes` with each invalid byte replaced by U+FFFD, as Go's JSON encoder does
/// (Rust's `from_utf8_lossy` would merge some sequences into one replacement).
pub fn go_lossy_utf8(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let bytes = error.into_bytes();
            let mut out = String::with_capacity(bytes.len() + 8);
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(valid) => {
                        out.push_str(valid);
                        break;
                    }
                    Err(e) => {
                        let (valid, after) = rest.split_at(e.valid_up_to());
                        out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                        let bad = e.error_len().unwrap_or(after.len());
                        out.extend(std::iter::repeat_n('\u{fffd}', bad));
                        rest = &after[bad..];
                    }
                }
            }
            out
        }
    }
}
