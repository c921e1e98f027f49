//! The one error every decoder returns: what was expected, what came, and where.
//!
//! Invariant: `offset` is a byte offset into the input the decoder was given (for streams, into
//! the whole stream), so a user can find the spot in a hex dump of the body.

use std::fmt;

use crate::codec::value::ValueKind;

/// The wire format a decoder was reading when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    Yaml,
    Cbor,
    Protobuf,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Json => "JSON",
            Format::Yaml => "YAML",
            Format::Cbor => "CBOR",
            Format::Protobuf => "protobuf",
        })
    }
}

/// A body that could not be decoded: what was expected and what came, each a [`Token`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {format}: expected {expected}, found {found} at byte {offset}")]
pub struct DecodeError {
    pub format: Format,
    pub expected: Token,
    pub found: Token,
    pub offset: usize,
}

impl DecodeError {
    pub fn new(format: Format, expected: impl Into<Token>, found: impl Into<Token>, offset: usize) -> Self {
        DecodeError { format, expected: expected.into(), found: found.into(), offset }
    }

    /// Whether the input simply stopped too early (more bytes could make it valid).
    pub fn is_end_of_input(&self) -> bool {
        self.found == Token::EndOfInput
    }

    /// The same error with its offset moved by `base` (a decoder that ran on a slice of a stream).
    #[must_use]
    pub fn shifted(mut self, base: usize) -> Self {
        self.offset += base;
        self
    }
}

/// Something a decoder expected or found, in the words of the format: a kind of item, a limit, a
/// byte, or a parser library's own words ([`Token::Verbatim`]). Its `Display` is English; the
/// app words it in the language shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A parser library's own words (or a value shown as it is): the same in every language.
    Verbatim(String),
    /// A kind of document value ("an array").
    Kind(ValueKind),
    EndOfInput,
    Byte(u8),
    /// Where a YAML scanner stopped, and what it said.
    Near {
        near: Box<Token>,
        detail: Box<Token>,
    },
    None,
    More,
    CompleteJson,
    AfterComma,
    /// JSON's literals.
    Literal,
    /// CBOR's simple values, in the order of their codes.
    CborLiteral,
    JsonValue,
    StringKey,
    NumberInRange,
    NestingAtMost(usize),
    DeeperNesting,
    WellFormedYaml,
    DataItem,
    Break,
    Utf8Text,
    InvalidUtf8At(usize),
    CborItem,
    CborHead,
    StringBytes(usize),
    BytesInsideTag22,
    Int64,
    Bignum(u64),
    SupportedTag,
    Tag(u64),
    FiniteFloat,
    ValidUtf8,
    InvalidSequence,
    /// A chunk of the indefinite-length string that starts at this byte.
    DefiniteChunk(usize),
    MapKey,
    UniqueMapKeys,
    /// A repeated map key, as Rust's `{:?}` quotes it.
    KeyAgain(String),
    SelfDescribedRun(usize),
    Items(usize),
    /// A CBOR integer head (negative ones reach -2^64).
    Integer(i128),
    /// A CBOR float head, as Rust prints the `f64`.
    Float(String),
    SimpleValue(u8),
    TextString,
    Map,
    /// The protobuf magic prefix, in hex and as text.
    MagicPrefix(&'static str),
    StatusWireType,
    OtherWireType,
    LengthDelimited,
    Fixed64,
    Fixed32,
    /// `len` bytes of a field of the kind `what`.
    BytesOf {
        len: u64,
        what: Box<Token>,
    },
    WatchEventType,
    WatchEventObject,
    Utf8String,
    InvalidUtf8,
    VarintByte,
    Varint64,
    VarintLength,
    LongerOne,
    FieldNumber,
    Field(u64),
    WireTypes,
    WireType(u64),
    /// An object member by its quoted name (`"object"`).
    ObjectMember(&'static str),
    /// The brace that starts a JSON watch event.
    EventStart(&'static str),
    UniqueKeys,
    KeyTwice(String),
    FiniteNumber,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Verbatim(x) => write!(f, "{x}"),
            Token::Kind(x) => write!(f, "{x}"),
            Token::EndOfInput => f.write_str("end of input"),
            Token::Byte(x) => write!(f, "byte 0x{x:02x}"),
            Token::Near { near, detail } => write!(f, "{near} ({detail})"),
            Token::None => f.write_str("none"),
            Token::More => f.write_str("more"),
            Token::CompleteJson => f.write_str("a complete JSON value"),
            Token::AfterComma => f.write_str("another member or element after ','"),
            Token::Literal => f.write_str("true, false or null"),
            Token::CborLiteral => f.write_str("false, true or null"),
            Token::JsonValue => f.write_str("a JSON value"),
            Token::StringKey => f.write_str("a string key"),
            Token::NumberInRange => f.write_str("a number within range"),
            Token::NestingAtMost(x) => write!(f, "nesting at most {x} deep"),
            Token::DeeperNesting => f.write_str("deeper nesting"),
            Token::WellFormedYaml => f.write_str("well-formed YAML"),
            Token::DataItem => f.write_str("a data item"),
            Token::Break => f.write_str("a break (0xff)"),
            Token::Utf8Text => f.write_str("a UTF-8 text string"),
            Token::InvalidUtf8At(x) => write!(f, "invalid UTF-8 at {x}"),
            Token::CborItem => f.write_str("a CBOR data item"),
            Token::CborHead => f.write_str("a well-formed CBOR item head"),
            Token::StringBytes(x) => write!(f, "{x} bytes of string data"),
            Token::BytesInsideTag22 => f.write_str("a byte string inside tag 22"),
            Token::Int64 => f.write_str("an integer within int64"),
            Token::Bignum(x) => write!(f, "a bignum (tag {x})"),
            Token::SupportedTag => f.write_str("a supported tag (55799 or 22)"),
            Token::Tag(x) => write!(f, "tag {x}"),
            Token::FiniteFloat => f.write_str("a finite float"),
            Token::ValidUtf8 => f.write_str("valid UTF-8 in a text string"),
            Token::InvalidSequence => f.write_str("an invalid byte sequence"),
            Token::DefiniteChunk(x) => write!(f, "a definite chunk of the indefinite string at byte {x}, or a break"),
            Token::MapKey => f.write_str("a byte or text string map key"),
            Token::UniqueMapKeys => f.write_str("unique map keys"),
            Token::KeyAgain(x) => write!(f, "key {x} again"),
            Token::SelfDescribedRun(x) => write!(f, "at most {x} self-described tags in a row"),
            Token::Items(x) => write!(f, "{x} items"),
            Token::Integer(x) => write!(f, "the integer {x}"),
            Token::Float(x) => write!(f, "the float {x}"),
            Token::SimpleValue(x) => write!(f, "simple value {x}"),
            Token::TextString => f.write_str("a text string"),
            Token::Map => f.write_str("a map"),
            Token::MagicPrefix(x) => write!(f, "the magic prefix {x}"),
            Token::StatusWireType => f.write_str("a Status field of its wire type"),
            Token::OtherWireType => f.write_str("another wire type"),
            Token::LengthDelimited => f.write_str("a length-delimited field"),
            Token::Fixed64 => f.write_str("a fixed64 field"),
            Token::Fixed32 => f.write_str("a fixed32 field"),
            Token::BytesOf { len, what } => write!(f, "{len} bytes of {what}"),
            Token::WatchEventType => f.write_str("a WatchEvent type (field 1)"),
            Token::WatchEventObject => f.write_str("a WatchEvent object (field 2.1)"),
            Token::Utf8String => f.write_str("a UTF-8 string"),
            Token::InvalidUtf8 => f.write_str("invalid UTF-8"),
            Token::VarintByte => f.write_str("a varint byte"),
            Token::Varint64 => f.write_str("a varint within 64 bits"),
            Token::VarintLength => f.write_str("a varint of at most 10 bytes"),
            Token::LongerOne => f.write_str("a longer one"),
            Token::FieldNumber => f.write_str("a field number above 0"),
            Token::Field(x) => write!(f, "field {x}"),
            Token::WireTypes => f.write_str("wire type 0, 1, 2 or 5"),
            Token::WireType(x) => write!(f, "wire type {x}"),
            Token::ObjectMember(x) => write!(f, "an object member {x}"),
            Token::EventStart(x) => write!(f, "{x} starting an event"),
            Token::UniqueKeys => f.write_str("unique keys"),
            Token::KeyTwice(x) => write!(f, "key {x} twice"),
            Token::FiniteNumber => f.write_str("a finite number"),
        }
    }
}

/// A parser library's own words ([`Token::Verbatim`]).
impl From<&str> for Token {
    fn from(text: &str) -> Token {
        Token::Verbatim(text.to_owned())
    }
}

impl From<String> for Token {
    fn from(text: String) -> Token {
        Token::Verbatim(text)
    }
}

impl From<ValueKind> for Token {
    fn from(kind: ValueKind) -> Token {
        Token::Kind(kind)
    }
}

/// What `found` says when the input ran out.
pub fn end_of_input() -> Token {
    Token::EndOfInput
}

/// Describes the byte at `offset` for an error message: a printable character or its hex value.
pub fn describe_byte(input: &[u8], offset: usize) -> Token {
    match input.get(offset) {
        None => end_of_input(),
        Some(&b) if b.is_ascii_graphic() => Token::Verbatim(format!("'{}'", b as char)),
        Some(&b) => Token::Byte(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_expected_found_and_offset() {
        let error = DecodeError::new(Format::Cbor, Token::MapKey, ValueKind::Array, 7);
        assert_eq!(error.to_string(), "invalid CBOR: expected a byte or text string map key, found an array at byte 7");
        assert!(!error.is_end_of_input());
        assert_eq!(error.shifted(10).offset, 17);
    }

    #[test]
    fn a_byte_is_described_as_a_character_or_in_hex() {
        assert_eq!(describe_byte(b"a\x01", 0).to_string(), "'a'");
        assert_eq!(describe_byte(b"a\x01", 1).to_string(), "byte 0x01");
        assert_eq!(describe_byte(b"a", 1).to_string(), "end of input");
        assert!(DecodeError::new(Format::Json, "x", describe_byte(b"", 0), 0).is_end_of_input());
        assert_eq!(Format::Protobuf.to_string(), "protobuf");
        assert_eq!(Format::Yaml.to_string(), "YAML");
    }

    #[test]
    fn tokens_inside_tokens_read_as_one_phrase() {
        let near = Token::Near { near: Box::new(Token::Byte(9)), detail: Box::new("did not find expected key".into()) };
        assert_eq!(near.to_string(), "byte 0x09 (did not find expected key)");
        let bytes = Token::BytesOf { len: 8, what: Box::new(Token::Fixed64) };
        assert_eq!(bytes.to_string(), "8 bytes of a fixed64 field");
        assert_eq!(Token::Integer(-18446744073709551616).to_string(), "the integer -18446744073709551616");
    }
}
