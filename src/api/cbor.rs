//! CBOR bodies (`application/cbor`, `application/apply-patch+cbor`, items of
//! `application/cbor-seq`) to and from [`Value`], with the Kubernetes rules on top of RFC 8949.
//!
//! `ciborium-ll` reads and writes item heads; the rules are ours (see `kube/README.md`):
//! - the self-described tag 55799 is unwrapped wherever it appears (the server puts it on every
//!   top-level item and on a watch event's embedded object);
//! - byte strings are text: decoded as UTF-8 with each invalid byte replaced by U+FFFD, as Go's
//!   JSON encoder does; text strings must be valid UTF-8; map keys must be either;
//! - tag 22 around a byte string is raw bytes ([`Value::Bytes`], base64 in JSON);
//! - integers must fit `i64`; bignums (tags 2, 3), other tags, NaN, infinities and simple values
//!   other than `false`, `true`, `null` are refused; floats of any width stay floats;
//! - a map that repeats a key is refused; definite and indefinite lengths are both accepted.
//!
//! Invariants: no allocation is sized from a length prefix beyond the bytes actually present,
//! nesting is bounded by [`MAX_DEPTH`], and every error carries the byte offset of the item.
//!
//! The encoder writes either form Kubernetes reads ([`CborEncoding::CLIENT`], as client-go writes
//! request bodies) or the form the server writes ([`CborEncoding::SERVER`]: tag 55799 first, byte
//! strings for keys and text, definite lengths, shortest exact floats, optionally shuffled keys).

use ciborium_ll::{Decoder, Encoder, Header};

use crate::api::error::{describe_byte, DecodeError, Format, END_OF_INPUT};
use crate::api::lazy::{FastEvent, Member, Scanned, Spot};
use crate::api::value::{DuplicateKeys, Map, MapBuilder, Value, MAX_DEPTH};

/// The self-described CBOR tag (`d9 d9 f7`).
pub const SELF_DESCRIBED_TAG: u64 = 55799;
/// "Expected conversion to base64": the tag Kubernetes puts around `[]byte` values.
pub const BASE64_TAG: u64 = 22;
/// The three bytes of the self-described tag as it appears on the wire.
pub const SELF_DESCRIBED_PREFIX: [u8; 3] = [0xd9, 0xd9, 0xf7];

const SIMPLE_FALSE: u8 = 20;
const SIMPLE_TRUE: u8 = 21;
const SIMPLE_NULL: u8 = 22;

/// Decodes one CBOR data item that must fill `input` exactly.
pub fn decode_cbor(input: &[u8]) -> Result<Value, DecodeError> {
    let (value, used) = decode_cbor_prefix(input)?;
    if used != input.len() {
        return Err(DecodeError::new(Format::Cbor, "end of input", describe_byte(input, used), used));
    }
    Ok(value)
}

/// Decodes the first CBOR data item of `input` and says how many bytes it took (the rest may be
/// the next item of a CBOR sequence).
pub fn decode_cbor_prefix(input: &[u8]) -> Result<(Value, usize), DecodeError> {
    let mut reader = Reader { input, pos: 0 };
    let value = reader.item(0)?;
    Ok((value, reader.pos))
}

/// Reads items from a slice: each head through `ciborium-ll` (which decides what it means), the
/// string contents in place, so a string the caller only checks or skips is never copied.
struct Reader<'a> {
    input: &'a [u8],
    /// Offset of the next unread byte.
    pos: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum StringKind {
    Bytes,
    Text,
}

impl<'a> Reader<'a> {
    fn error(&self, expected: impl Into<String>, found: impl Into<String>, offset: usize) -> DecodeError {
        DecodeError::new(Format::Cbor, expected, found, offset)
    }

    fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// The next item head and its offset.
    fn pull(&mut self) -> Result<(usize, Header), DecodeError> {
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
            Err(ciborium_ll::Error::Io(_)) => Err(self.error("a CBOR data item", END_OF_INPUT, self.input.len())),
            Err(ciborium_ll::Error::Syntax(offset)) => {
                let offset = at + offset;
                Err(self.error("a well-formed CBOR item head", describe_byte(self.input, offset), offset))
            }
        }
    }

    /// The next `len` bytes of string data, in place.
    fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        if len > self.remaining() {
            return Err(self.error(format!("{len} bytes of string data"), END_OF_INPUT, self.input.len()));
        }
        let bytes = &self.input[self.pos..self.pos + len];
        self.pos += len;
        Ok(bytes)
    }

    fn item(&mut self, depth: usize) -> Result<Value, DecodeError> {
        let (at, header) = self.pull()?;
        self.value(at, header, depth)
    }

    fn value(&mut self, at: usize, header: Header, depth: usize) -> Result<Value, DecodeError> {
        let nests = match header {
            Header::Array(_) | Header::Map(_) => true,
            Header::Tag(tag) => tag != SELF_DESCRIBED_TAG,
            _ => false,
        };
        if depth >= MAX_DEPTH && nests {
            return Err(self.error(format!("nesting at most {MAX_DEPTH} deep"), "deeper nesting", at));
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
                        let expected = format!("at most {MAX_DEPTH} self-described tags in a row");
                        return Err(self.error(expected, "more", at));
                    }
                }
            }
            Header::Tag(BASE64_TAG) => match self.pull()? {
                (inner, Header::Bytes(len)) => Ok(Value::Bytes(self.string(inner, len, StringKind::Bytes)?)),
                (inner, other) => Err(self.error("a byte string inside tag 22", describe_header(other), inner)),
            },
            Header::Tag(tag @ (2 | 3)) => {
                Err(self.error("an integer within int64", format!("a bignum (tag {tag})"), at))
            }
            Header::Tag(tag) => Err(self.error("a supported tag (55799 or 22)", format!("tag {tag}"), at)),
            Header::Positive(n) => {
                i64::try_from(n).map(Value::Int).map_err(|_| self.error("an integer within int64", n.to_string(), at))
            }
            Header::Negative(n) => match i64::try_from(n) {
                Ok(n) => Ok(Value::Int(-1 - n)),
                Err(_) => Err(self.error("an integer within int64", format!("-{}", u128::from(n) + 1), at)),
            },
            Header::Float(f) if f.is_finite() => Ok(Value::Float(f)),
            Header::Float(f) => Err(self.error("a finite float", f.to_string(), at)),
            Header::Simple(SIMPLE_FALSE) => Ok(Value::Bool(false)),
            Header::Simple(SIMPLE_TRUE) => Ok(Value::Bool(true)),
            Header::Simple(SIMPLE_NULL) => Ok(Value::Null),
            Header::Simple(other) => Err(self.error("false, true or null", describe_header(Header::Simple(other)), at)),
            Header::Break => Err(self.error("a data item", "a break (0xff)", at)),
            Header::Bytes(len) => Ok(Value::String(go_lossy_utf8(self.string(at, len, StringKind::Bytes)?))),
            Header::Text(len) => {
                let content = self.pos;
                let bytes = self.string(at, len, StringKind::Text)?;
                String::from_utf8(bytes).map(Value::String).map_err(|e| {
                    let offset = content + e.utf8_error().valid_up_to();
                    self.error("valid UTF-8 in a text string", "an invalid byte sequence", offset)
                })
            }
            Header::Array(len) => self.array(len, depth),
            Header::Map(len) => self.map(len, depth),
        }
    }

    /// Reads the content of a byte or text string whose head was at `at`.
    fn string(&mut self, at: usize, len: Option<usize>, kind: StringKind) -> Result<Vec<u8>, DecodeError> {
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
                            return Err(self.error(
                                format!("a definite chunk of the indefinite string at byte {at}, or a break"),
                                describe_header(other),
                                chunk,
                            ))
                        }
                    }
                }
            }
        }
    }

    fn definite_string(&mut self, len: usize) -> Result<Vec<u8>, DecodeError> {
        self.take(len).map(<[u8]>::to_vec)
    }

    fn array(&mut self, len: Option<usize>, depth: usize) -> Result<Value, DecodeError> {
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

    fn map(&mut self, len: Option<usize>, depth: usize) -> Result<Value, DecodeError> {
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
                    Err(_) => return Err(self.error("valid UTF-8 in a text string", "an invalid byte sequence", at)),
                },
                other => return Err(self.error("a byte or text string map key", describe_header(other), at)),
            };
            let value = self.item(depth + 1)?;
            builder
                .insert(key, value)
                .map_err(|key| self.error("unique map keys", format!("key {key:?} again"), at))?;
            count += 1;
        }
        Ok(Value::Object(builder.finish()))
    }
}

/// The fast pass over one CBOR watch event (see [`crate::api::lazy`]): the whole event checked by
/// the rules [`decode_cbor`] applies, without building the object; `None` when the event is not
/// an ADDED, MODIFIED or DELETED event with an object, or anything in it is refused (the full
/// decoder then decides and names the error). The same pass as [`scan_cbor_prefix`], which must
/// take all of `input`.
pub(crate) fn scan_cbor_event(input: &[u8], offset: usize) -> Option<FastEvent> {
    scan_cbor_prefix(input, offset).filter(|(len, _)| *len == input.len()).and_then(|(_, fast)| fast)
}

/// The fast pass over the CBOR event that `bytes` start with (more may follow it, or it may be
/// cut short): `None` when no whole event that keeps the rules is there (the framer then finds
/// its end and the full decoder reads it); else how many bytes the event took, with the event
/// when the fast pass takes it (`None`: the full decoder reads those bytes).
pub(crate) fn scan_cbor_prefix(bytes: &[u8], offset: usize) -> Option<(usize, Option<FastEvent>)> {
    let mut reader = Reader { input: bytes, pos: 0 };
    let mut scanned = Scanned::default();
    reader.scan(Spot::Event, 0, &mut scanned).ok()?;
    let event = &bytes[..reader.pos];
    Some((event.len(), scanned.into_event(Format::Cbor, event, offset)))
}

/// Reads or skips the value of one map member: the reader, the member's key, its depth.
type MapEntry<'e, 'a> = dyn FnMut(&mut Reader<'a>, &[u8], usize) -> Result<(), DecodeError> + 'e;

/// Up to this many keys of a map are checked for repeats by comparison, beyond it by hashing.
const LINEAR_KEYS: usize = 16;

impl<'a> Reader<'a> {
    /// `header` (read at `at`), or the first head after the self-described tags it starts
    /// (bounded as [`Reader::value`] bounds them).
    fn untag(&mut self, at: usize, header: Header) -> Result<(usize, Header), DecodeError> {
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
                return Err(self.error(format!("at most {MAX_DEPTH} self-described tags in a row"), "more", at));
            }
        }
    }

    /// Checks the next item at `depth` without building it.
    fn skip_item(&mut self, depth: usize) -> Result<(), DecodeError> {
        let (at, header) = self.pull()?;
        self.skip(at, header, depth)
    }

    /// Checks an item by the rules of [`Reader::value`] without building it.
    fn skip(&mut self, at: usize, header: Header, depth: usize) -> Result<(), DecodeError> {
        match header {
            Header::Tag(SELF_DESCRIBED_TAG) => {
                let (at, header) = self.untag(at, header)?;
                self.skip(at, header, depth)
            }
            Header::Array(_) | Header::Map(_) | Header::Tag(_) if depth >= MAX_DEPTH => {
                Err(self.error(format!("nesting at most {MAX_DEPTH} deep"), "deeper nesting", at))
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
                    return Err(self.error(format!("{len} bytes of string data"), END_OF_INPUT, self.input.len()));
                }
                if let Err(e) = std::str::from_utf8(&self.input[content..content + len]) {
                    let offset = content + e.valid_up_to();
                    return Err(self.error("valid UTF-8 in a text string", "an invalid byte sequence", offset));
                }
                self.advance(len)
            }
            Header::Tag(BASE64_TAG) => match self.pull()? {
                (_, Header::Bytes(Some(len))) => self.advance(len),
                (inner, header @ Header::Bytes(None)) => self.value(inner, header, depth).map(drop),
                (inner, other) => Err(self.error("a byte string inside tag 22", describe_header(other), inner)),
            },
            // Everything else allocates nothing worth saving, or is an error: the rules of
            // `value` itself.
            other => self.value(at, other, depth).map(drop),
        }
    }

    /// Steps over `len` bytes of string data.
    fn advance(&mut self, len: usize) -> Result<(), DecodeError> {
        self.take(len).map(drop)
    }

    /// Walks a map at `depth` whose head was read: each key is checked as [`Reader::map`] checks
    /// it (a byte or valid UTF-8 text string, unique) and `entry` reads or skips its value.
    /// (One copy of it serves every caller: `entry` is a trait object, the bundle stays small.)
    #[inline(never)]
    fn walk_map(&mut self, len: Option<usize>, depth: usize, entry: &mut MapEntry<'_, 'a>) -> Result<(), DecodeError> {
        // The keys seen: those read in place (most) on the stack, the few others beside them,
        // a hash index once the map is large.
        // Each with a tag of its length, first and last byte, compared before the bytes are (a
        // pod's event has a few hundred keys: comparing each with the keys before it, byte by
        // byte, was a good part of reading the event).
        let tag = |key: &[u8]| {
            (key.len() as u32) << 16 | u32::from(*key.first().unwrap_or(&0)) << 8 | u32::from(*key.last().unwrap_or(&0))
        };
        let mut small: [(u32, &'a [u8]); LINEAR_KEYS] = [(0, &[]); LINEAR_KEYS];
        let mut small_len = 0;
        let mut owned: Vec<Vec<u8>> = Vec::new();
        // (The same map type as `MapBuilder`'s index: no new hashing code in the bundle.)
        let mut index: Option<std::collections::HashMap<String, usize>> = None;
        let mut count = 0;
        loop {
            if len == Some(count) {
                return Ok(());
            }
            let (at, header) = self.pull()?;
            let key: std::borrow::Cow<'a, [u8]> = match header {
                Header::Break if len.is_none() => return Ok(()),
                Header::Bytes(Some(n)) | Header::Text(Some(n)) if n <= self.remaining() => {
                    let start = self.pos;
                    let bytes = &self.input[start..start + n];
                    self.advance(n)?;
                    match (std::str::from_utf8(bytes).is_ok(), header) {
                        (true, _) => std::borrow::Cow::Borrowed(bytes),
                        (false, Header::Bytes(_)) => go_lossy_utf8(bytes.to_vec()).into_bytes().into(),
                        (false, _) => {
                            return Err(self.error("valid UTF-8 in a text string", "an invalid byte sequence", at))
                        }
                    }
                }
                Header::Bytes(len) => go_lossy_utf8(self.string(at, len, StringKind::Bytes)?).into_bytes().into(),
                Header::Text(len) => match String::from_utf8(self.string(at, len, StringKind::Text)?) {
                    Ok(key) => key.into_bytes().into(),
                    Err(_) => return Err(self.error("valid UTF-8 in a text string", "an invalid byte sequence", at)),
                },
                other => return Err(self.error("a byte or text string map key", describe_header(other), at)),
            };
            entry(self, &key, depth + 1)?;
            let repeated = match &mut index {
                Some(index) => index.insert(String::from_utf8_lossy(&key).into_owned(), 0).is_some(),
                None => {
                    let key_tag = tag(&key);
                    small[..small_len].iter().any(|(t, k)| *t == key_tag && **k == *key)
                        || owned.iter().any(|k| **k == *key)
                }
            };
            if repeated {
                let key = String::from_utf8_lossy(&key).into_owned();
                return Err(self.error("unique map keys", format!("key {key:?} again"), at));
            }
            if index.is_none() {
                match key {
                    std::borrow::Cow::Borrowed(key) if small_len < LINEAR_KEYS => {
                        small[small_len] = (tag(key), key);
                        small_len += 1;
                    }
                    key => owned.push(key.into_owned()),
                }
                if small_len + owned.len() > LINEAR_KEYS {
                    let mut large = std::collections::HashMap::new();
                    for key in small[..small_len].iter().map(|(_, key)| *key).chain(owned.iter().map(Vec::as_slice)) {
                        large.insert(String::from_utf8_lossy(key).into_owned(), 0);
                    }
                    index = Some(large);
                    owned.clear();
                }
            }
            count += 1;
        }
    }

    /// Reads the next item at `depth`, a member the fast pass looks inside, into `scanned` by
    /// what [`Spot::member`] says; the whole item is checked.
    fn scan(&mut self, spot: Spot, depth: usize, scanned: &mut Scanned) -> Result<(), DecodeError> {
        let (at, header) = self.pull()?;
        self.scan_at(spot, depth, scanned, at, header)
    }

    /// [`Reader::scan`] of an item whose head was read.
    fn scan_at(
        &mut self,
        spot: Spot,
        depth: usize,
        scanned: &mut Scanned,
        at: usize,
        header: Header,
    ) -> Result<(), DecodeError> {
        let (at, header) = self.untag(at, header)?;
        let nested = depth >= MAX_DEPTH;
        match header {
            Header::Map(len) if spot != Spot::Rows && !nested => {
                scanned.enter(spot, true);
                self.walk_map(len, depth, &mut |reader, key, depth| match spot.member(key) {
                    Member::Text(field) => {
                        let value = reader.item(depth)?;
                        scanned.text(field, value.as_str());
                        Ok(())
                    }
                    Member::Value(field) => {
                        let value = reader.item(depth)?;
                        scanned.value(field, value);
                        Ok(())
                    }
                    Member::Enter(inner) => reader.scan(inner, depth, scanned),
                    Member::Skip => reader.skip_item(depth),
                })
            }
            Header::Array(len) if spot == Spot::Rows && !nested => {
                scanned.enter(Spot::Rows, true);
                let mut rows = 0;
                while len != Some(rows) {
                    let (at, header) = self.pull()?;
                    match header {
                        Header::Break if len.is_none() => break,
                        // The first row is read; the others checked.
                        _ if rows == 0 => self.scan_at(Spot::Row, depth + 1, scanned, at, header)?,
                        _ => self.skip(at, header, depth + 1)?,
                    }
                    rows += 1;
                }
                scanned.rows = Some(rows);
                Ok(())
            }
            other => {
                scanned.enter(spot, false);
                self.skip(at, other, depth)
            }
        }
    }
}

/// RFC 8949 diagnostic notation of the CBOR items in `input` (one item, or a CBOR sequence, one
/// item a line), indented for reading: what the decoded document hides is visible here, such as
/// the self-described tag `55799(...)` and byte strings (`h'6b696e64'`, with their text as a
/// comment) where JSON would have text. The output stops after about `max_chars` characters.
pub fn diagnostic(input: &[u8], max_chars: usize) -> Result<String, DecodeError> {
    let mut reader = Reader { input, pos: 0 };
    let mut out = String::new();
    while reader.pos < input.len() {
        if !out.is_empty() {
            out.push('\n');
        }
        match reader.diag_item(&mut out, Nesting::default(), max_chars) {
            Ok(()) => {}
            Err(Stop::Full) => {
                out.push_str(&format!("\n… (cut at {max_chars} characters)"));
                break;
            }
            Err(Stop::Invalid(error)) => return Err(error),
        }
    }
    Ok(out)
}

/// How deep an item is (bounded by [`MAX_DEPTH`]) and how far it is indented.
#[derive(Debug, Clone, Copy, Default)]
struct Nesting {
    depth: usize,
    indent: usize,
}

/// Why diagnostic output stopped early.
enum Stop {
    Full,
    Invalid(DecodeError),
}

impl From<DecodeError> for Stop {
    fn from(error: DecodeError) -> Self {
        Stop::Invalid(error)
    }
}

impl Reader<'_> {
    fn diag_item(&mut self, out: &mut String, nesting: Nesting, max: usize) -> Result<(), Stop> {
        let (at, header) = self.pull()?;
        self.diag_value(out, at, header, nesting, max)
    }

    /// The items of an array, or the key-value pairs of a map, one a line, up to a break when
    /// the length is indefinite.
    fn diag_entries(
        &mut self,
        out: &mut String,
        len: Option<usize>,
        pairs: bool,
        nesting: Nesting,
        max: usize,
    ) -> Result<(), Stop> {
        let pad = |out: &mut String, depth: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n("  ", depth));
        };
        let mut count = 0usize;
        loop {
            let (at, header) = match len {
                Some(len) if count == len => break,
                Some(_) => self.pull()?,
                None => match self.pull()? {
                    (_, Header::Break) => break,
                    pulled => pulled,
                },
            };
            if count > 0 {
                out.push(',');
            }
            let inner = Nesting { depth: nesting.depth + 1, indent: nesting.indent + 1 };
            pad(out, inner.indent);
            self.diag_value(out, at, header, inner, max)?;
            if pairs {
                out.push_str(": ");
                self.diag_item(out, inner, max)?;
            }
            count += 1;
        }
        if count > 0 {
            pad(out, nesting.indent);
        }
        Ok(())
    }

    fn diag_value(
        &mut self,
        out: &mut String,
        at: usize,
        header: Header,
        nesting: Nesting,
        max: usize,
    ) -> Result<(), Stop> {
        use std::fmt::Write;
        let depth = nesting.depth;
        if out.len() > max {
            return Err(Stop::Full);
        }
        let nests = matches!(header, Header::Array(_) | Header::Map(_) | Header::Tag(_));
        if depth >= MAX_DEPTH && nests {
            return Err(self.error(format!("nesting at most {MAX_DEPTH} deep"), "deeper nesting", at).into());
        }
        match header {
            Header::Positive(n) => {
                let _ = write!(out, "{n}");
            }
            Header::Negative(n) => {
                let _ = write!(out, "-{}", u128::from(n) + 1);
            }
            Header::Float(f) if f.is_nan() => out.push_str("NaN"),
            Header::Float(f) if f.is_infinite() => out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" }),
            Header::Float(f) => {
                let _ = write!(out, "{f:?}");
            }
            Header::Simple(SIMPLE_FALSE) => out.push_str("false"),
            Header::Simple(SIMPLE_TRUE) => out.push_str("true"),
            Header::Simple(SIMPLE_NULL) => out.push_str("null"),
            Header::Simple(23) => out.push_str("undefined"),
            Header::Simple(n) => {
                let _ = write!(out, "simple({n})");
            }
            Header::Break => return Err(self.error("a data item", "a break (0xff)", at).into()),
            Header::Tag(tag) => {
                let _ = write!(out, "{tag}(");
                // A tag nests (bounded like arrays and maps) but does not indent.
                self.diag_item(out, Nesting { depth: depth + 1, ..nesting }, max)?;
                out.push(')');
            }
            Header::Bytes(len) => {
                let bytes = self.string(at, len, StringKind::Bytes)?;
                out.push_str(if len.is_none() { "(_ h'" } else { "h'" });
                for b in &bytes {
                    let _ = write!(out, "{b:02x}");
                }
                out.push('\'');
                if len.is_none() {
                    out.push(')');
                }
                if let Ok(text) = std::str::from_utf8(&bytes) {
                    if !text.is_empty() && !text.contains('/') && !text.chars().any(char::is_control) {
                        let _ = write!(out, " /{text}/");
                    }
                }
            }
            Header::Text(len) => {
                let bytes = self.string(at, len, StringKind::Text)?;
                let text = String::from_utf8(bytes).map_err(|e| {
                    self.error("a UTF-8 text string", format!("invalid UTF-8 at {}", e.utf8_error().valid_up_to()), at)
                })?;
                out.push_str(&serde_json::to_string(&text).unwrap_or_default());
            }
            Header::Array(len) => {
                out.push_str(if len.is_none() { "[_" } else { "[" });
                self.diag_entries(out, len, false, nesting, max)?;
                out.push(']');
            }
            Header::Map(len) => {
                out.push_str(if len.is_none() { "{_" } else { "{" });
                self.diag_entries(out, len, true, nesting, max)?;
                out.push('}');
            }
        }
        Ok(())
    }
}

/// Names an item head for an error message.
fn describe_header(header: Header) -> String {
    match header {
        Header::Positive(n) => format!("the integer {n}"),
        Header::Negative(n) => format!("the integer -{}", u128::from(n) + 1),
        Header::Float(f) => format!("the float {f}"),
        Header::Simple(23) => "undefined".to_string(),
        Header::Simple(n) => format!("simple value {n}"),
        Header::Tag(t) => format!("tag {t}"),
        Header::Break => "a break (0xff)".to_string(),
        Header::Bytes(_) => "a byte string".to_string(),
        Header::Text(_) => "a text string".to_string(),
        Header::Array(_) => "an array".to_string(),
        Header::Map(_) => "a map".to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_head_reads_as_ciborium_reads_it() {
        // Each initial byte, followed by argument bytes or cut short at each length.
        let argument = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x12, 0x34, 0x56];
        for initial in 0..=255u8 {
            for available in 0..=argument.len() {
                let input: Vec<u8> = std::iter::once(initial).chain(argument[..available].iter().copied()).collect();
                let mut reader = Reader { input: &input, pos: 0 };
                let ours = reader.pull().map(|(at, header)| (at, format!("{header:?}"), reader.pos));
                let mut decoder = Decoder::from(&input[..]);
                let theirs = decoder.pull().map(|header| (0, format!("{header:?}"), decoder.offset()));
                match (&ours, &theirs) {
                    (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "head {input:02x?}"),
                    (Err(_), Err(_)) => {}
                    _ => panic!("head {input:02x?}: ours {ours:?}, ciborium's {theirs:?}"),
                }
            }
        }
        // A head after others is read at its offset.
        let input = [0x82, 0x19, 0x01, 0x00, 0x7a, 0, 0, 0, 0];
        let mut reader = Reader { input: &input, pos: 0 };
        assert!(matches!(reader.pull(), Ok((0, Header::Array(Some(2))))));
        assert!(matches!(reader.pull(), Ok((1, Header::Positive(256)))));
        assert!(matches!(reader.pull(), Ok((4, Header::Text(Some(0))))));
        assert_eq!(reader.pos, input.len());
    }

    #[test]
    fn diagnostic_notation_shows_tags_byte_strings_and_nesting() {
        // 55799({h'6b' ("k"): [1, -2, 1.5, "t"], "n": null}) in the server's form.
        let bytes =
            [0xd9, 0xd9, 0xf7, 0xa2, 0x41, b'k', 0x84, 0x01, 0x21, 0xf9, 0x3e, 0x00, 0x61, b't', 0x61, b'n', 0xf6];
        let text = diagnostic(&bytes, 1000).expect("valid");
        assert_eq!(text, "55799({\n  h'6b' /k/: [\n    1,\n    -2,\n    1.5,\n    \"t\"\n  ],\n  \"n\": null\n})");
        // A sequence: one item a line; indefinite lengths marked with `_`.
        assert_eq!(diagnostic(&[0x01, 0x9f, 0xff, 0xbf, 0xff], 100).expect("valid"), "1\n[_]\n{_}");
        assert_eq!(
            diagnostic(&[0xf7, 0xf0, 0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 100).expect("valid"),
            "undefined\nsimple(16)\n-18446744073709551616"
        );
    }

    #[test]
    fn diagnostic_notation_stops_at_its_limit_and_reports_bad_input_with_its_offset() {
        let long = encode_cbor(&Value::String("x".repeat(100)), CborEncoding::CLIENT);
        let mut many = Vec::new();
        for _ in 0..50 {
            many.extend_from_slice(&long);
        }
        let text = diagnostic(&many, 500).expect("valid");
        assert!(text.ends_with("… (cut at 500 characters)"), "{text}");
        assert!(text.len() < 800);
        let error = diagnostic(&[0x82, 0x01], 100).expect_err("truncated");
        assert_eq!(error.to_string(), decode_cbor(&[0x82, 0x01]).expect_err("truncated").to_string());
        assert!(diagnostic(&[0xff], 100).expect_err("break").to_string().contains("break"));
    }
    use crate::api::json::decode_json;
    use crate::api::testdata::shared_file;

    fn hex(text: &str) -> Vec<u8> {
        let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits
            .chunks(2)
            .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap_or("00"), 16).unwrap_or(0))
            .collect()
    }

    #[track_caller]
    fn check(input: &str, expect: Result<&str, &str>) {
        let got = decode_cbor(&hex(input)).map(|v| v.to_json()).map_err(|e| e.to_string());
        assert_eq!(got.as_deref().map_err(String::as_str), expect);
    }

    #[test]
    fn the_self_described_tag_is_unwrapped_and_byte_string_keys_are_text() {
        check("d9d9f7 a1 41 61 42 6869", Ok(r#"{"a":"hi"}"#));
        check("a1 61 61 d9d9f7 a1 61 62 01", Ok(r#"{"a":{"b":1}}"#));
    }

    #[test]
    fn text_strings_are_accepted_too() {
        check("a2 61 61 62 6869 41 62 f6", Ok(r#"{"a":"hi","b":null}"#));
    }

    #[test]
    fn tag_22_carries_raw_bytes_shown_as_base64() {
        let value = decode_cbor(&hex("a1 41 64 d6 43 000102")).expect("valid");
        assert_eq!(value.get("d"), Some(&Value::Bytes(vec![0, 1, 2])));
        assert_eq!(value.to_json(), r#"{"d":"AAEC"}"#);
        check("d6 61 61", Err("invalid CBOR: expected a byte string inside tag 22, found a text string at byte 1"));
    }

    #[test]
    fn float16_floats_stay_floats() {
        let value = decode_cbor(&hex("83 f9 3c00 f9 3e00 fa 3fc00000")).expect("valid");
        assert_eq!(value, Value::Array(vec![Value::Float(1.0), Value::Float(1.5), Value::Float(1.5)]));
    }

    #[test]
    fn integers_span_int64_and_nothing_beyond() {
        check("82 1b 7fffffffffffffff 3b 7fffffffffffffff", Ok("[9223372036854775807,-9223372036854775808]"));
        check(
            "1b 8000000000000000",
            Err("invalid CBOR: expected an integer within int64, found 9223372036854775808 at byte 0"),
        );
        check(
            "3b 8000000000000000",
            Err("invalid CBOR: expected an integer within int64, found -9223372036854775809 at byte 0"),
        );
        check("c2 41 01", Err("invalid CBOR: expected an integer within int64, found a bignum (tag 2) at byte 0"));
        check("c3 41 01", Err("invalid CBOR: expected an integer within int64, found a bignum (tag 3) at byte 0"));
    }

    #[test]
    fn nan_infinity_undefined_and_other_tags_are_refused() {
        check("f9 7e00", Err("invalid CBOR: expected a finite float, found NaN at byte 0"));
        check("f9 7c00", Err("invalid CBOR: expected a finite float, found inf at byte 0"));
        check("f7", Err("invalid CBOR: expected false, true or null, found undefined at byte 0"));
        check("f8 ff", Err("invalid CBOR: expected false, true or null, found simple value 255 at byte 0"));
        check("c1 1a 5f000000", Err("invalid CBOR: expected a supported tag (55799 or 22), found tag 1 at byte 0"));
    }

    #[test]
    fn duplicate_keys_are_refused_whatever_their_string_type() {
        check("a2 41 61 01 61 61 02", Err(r#"invalid CBOR: expected unique map keys, found key "a" again at byte 4"#));
    }

    #[test]
    fn map_keys_must_be_strings() {
        check("a1 01 02", Err("invalid CBOR: expected a byte or text string map key, found the integer 1 at byte 1"));
    }

    #[test]
    fn invalid_utf8_in_byte_strings_becomes_one_replacement_per_byte() {
        check("43 e282 41", Ok("\"\u{fffd}\u{fffd}A\""));
        assert_eq!(go_lossy_utf8(vec![b'a', 0xff, b'b', 0xe2]), "a\u{fffd}b\u{fffd}");
        check(
            "62 c328",
            Err("invalid CBOR: expected valid UTF-8 in a text string, found an invalid byte sequence at byte 1"),
        );
    }

    #[test]
    fn indefinite_lengths_are_accepted() {
        check("bf 5f 41 61 41 62 ff 9f 01 ff ff", Ok(r#"{"ab":[1]}"#));
        check("5f 61 61 ff", Err("invalid CBOR: expected a definite chunk of the indefinite string at byte 0, or a break, found a text string at byte 1"));
    }

    #[test]
    fn a_length_claiming_gigabytes_is_an_end_of_input_error_not_an_allocation() {
        let error = decode_cbor(&hex("5b 0000000100000000 41")).expect_err("truncated");
        assert!(error.is_end_of_input(), "{error}");
        assert_eq!(error.expected, "4294967296 bytes of string data");
        let error = decode_cbor(&hex("9b 00000000ffffffff 01")).expect_err("truncated");
        assert!(error.is_end_of_input());
        let error = decode_cbor(&hex("bb 00000000ffffffff 41 61 01")).expect_err("truncated");
        assert!(error.is_end_of_input());
    }

    #[test]
    fn nesting_is_bounded() {
        let mut deep = vec![0x81; MAX_DEPTH + 5];
        deep.push(0x01);
        let error = decode_cbor(&deep).expect_err("too deep");
        assert_eq!(error.offset, MAX_DEPTH);
        let mut tags: Vec<u8> = SELF_DESCRIBED_PREFIX.repeat(MAX_DEPTH + 1);
        tags.push(0x01);
        let error = decode_cbor(&tags).expect_err("too many tags");
        assert!(error.to_string().contains("self-described tags in a row"), "{error}");
    }

    #[test]
    fn a_value_nested_to_the_limit_decodes_in_the_server_form_too() {
        // Found by the cbor fuzz target: the server form's 55799 tag must not cost a level.
        let mut deep = vec![0x81; MAX_DEPTH];
        deep.push(0x01);
        let value = decode_cbor(&deep).expect("at the limit");
        let server = encode_cbor(&value, CborEncoding::SERVER);
        assert_eq!(decode_cbor(&server).expect("server form at the limit"), value);
    }

    #[test]
    fn truncated_items_and_trailing_bytes_are_errors() {
        check("a1 41", Err("invalid CBOR: expected 1 bytes of string data, found end of input at byte 2"));
        check("01 02", Err("invalid CBOR: expected end of input, found byte 0x02 at byte 1"));
        check("", Err("invalid CBOR: expected a CBOR data item, found end of input at byte 0"));
        check("1c", Err("invalid CBOR: expected a well-formed CBOR item head, found byte 0x1c at byte 0"));
        check("ff", Err("invalid CBOR: expected a data item, found a break (0xff) at byte 0"));
    }

    #[test]
    fn a_prefix_decode_reports_the_bytes_used() {
        let (value, used) = decode_cbor_prefix(&hex("01 02")).expect("valid");
        assert_eq!((value, used), (Value::Int(1), 1));
    }

    #[test]
    fn every_vector_decodes_to_the_tree_of_its_json_form() {
        for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
            let cbor = decode_cbor(&shared_file(&format!("kube/vectors/{name}.cbor")))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let json = decode_json(&shared_file(&format!("kube/vectors/{name}.json"))).expect("json");
            assert!(cbor.equivalent(&json), "{name}");
        }
        for name in ["foobar_create_201", "podlist_kube-system", "status_invalid_422", "table_namespaces_aks"] {
            let cbor =
                decode_cbor(&shared_file(&format!("kube/cbor/{name}.cbor"))).unwrap_or_else(|e| panic!("{name}: {e}"));
            let json = decode_json(&shared_file(&format!("kube/cbor/{name}.source.json"))).expect("json");
            assert!(cbor.equivalent(&json), "{name}");
        }
    }

    #[test]
    fn the_configmap_vector_keeps_its_binary_data_as_bytes() {
        let value = decode_cbor(&shared_file("kube/vectors/configmap.cbor")).expect("valid");
        let binary = value.get("binaryData").and_then(Value::as_object).expect("binaryData");
        assert!(binary.iter().all(|(_, v)| matches!(v, Value::Bytes(_))));
    }

    #[test]
    fn the_server_form_reproduces_the_real_server_bytes_in_wire_order() {
        for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
            let bytes = shared_file(&format!("kube/vectors/{name}.cbor"));
            let value = decode_cbor(&bytes).expect("valid");
            assert_eq!(encode_cbor(&value, CborEncoding::SERVER), bytes, "{name}");
        }
    }

    #[test]
    fn the_client_form_reproduces_client_go_apply_bytes() {
        let bytes = shared_file("kube/vectors/apply-pod.cbor");
        let value = decode_cbor(&bytes).expect("valid");
        assert_eq!(encode_cbor(&value, CborEncoding::CLIENT), bytes);
    }

    #[test]
    fn encoding_round_trips_and_uses_the_shortest_float() {
        let value = Value::Array(vec![Value::Float(1.5), Value::Int(-1), Value::Bytes(vec![7]), Value::Bool(false)]);
        let bytes = encode_cbor(&value, CborEncoding::CLIENT);
        assert_eq!(bytes, hex("84 f9 3e00 20 d6 41 07 f4"));
        assert_eq!(decode_cbor(&bytes), Ok(value));
        let text = CborEncoding { strings: StringType::Text, ..CborEncoding::CLIENT };
        assert_eq!(encode_cbor(&Value::String("a".into()), text), hex("61 61"));
    }

    #[test]
    fn serde_json_values_encode_to_the_same_bytes_as_their_library_tree() {
        let mut documents: Vec<serde_json::Value> = ["pod", "podlist", "configmap", "table", "status-410-expired"]
            .iter()
            .map(|name| {
                let value = decode_cbor(&shared_file(&format!("kube/vectors/{name}.cbor"))).expect("valid");
                serde_json::from_str(&value.to_json()).expect("json")
            })
            .collect();
        documents.push(serde_json::json!({
            "numbers": [0, 1, 23, 24, 255, 256, 65536, -1, -24, -25, i64::MIN, i64::MAX, u64::MAX, 1.5, 0.1, -2.5e-300, 1e300],
            "empty": {}, "none": [], "null": null, "flags": [true, false],
            "text": "caf\u{e9} \u{2028} <&>", "nested": {"b": {"c": {"d": [{"e": {}}, {"f": "g", "a": 1}]}}, "a": 2},
        }));
        documents.push(serde_json::json!("a lone string"));
        let text = CborEncoding { strings: StringType::Text, ..CborEncoding::CLIENT };
        let encodings = [
            CborEncoding::SERVER,
            CborEncoding::CLIENT,
            text,
            CborEncoding::SERVER.shuffled(1),
            CborEncoding::SERVER.shuffled(0x5eed_1234_abcd),
            text.shuffled(7),
        ];
        for (d, json) in documents.iter().enumerate() {
            let tree = Value::from_serde_json(json);
            for encoding in encodings {
                let mut out = b"prefix".to_vec();
                encode_cbor_json(json, encoding, &mut out);
                assert_eq!(&out[..6], b"prefix");
                assert_eq!(out[6..], encode_cbor(&tree, encoding), "document {d} in {encoding:?}");
            }
        }
    }

    #[test]
    fn shuffled_keys_change_the_order_but_not_the_tree() {
        let value = decode_cbor(&shared_file("kube/vectors/pod.cbor")).expect("valid");
        let a = encode_cbor(&value, CborEncoding::SERVER.shuffled(1));
        let b = encode_cbor(&value, CborEncoding::SERVER.shuffled(2));
        assert_ne!(a, b);
        assert_eq!(a, encode_cbor(&value, CborEncoding::SERVER.shuffled(1)));
        assert!(a.starts_with(&SELF_DESCRIBED_PREFIX));
        assert!(decode_cbor(&a).expect("valid").equivalent(&value));
        assert!(decode_cbor(&b).expect("valid").equivalent(&value));
    }
}
