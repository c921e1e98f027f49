//! The one error every decoder returns: what was expected, what came, and where.
//!
//! Invariant: `offset` is a byte offset into the input the decoder was given (for streams, into
//! the whole stream), so a user can find the spot in a hex dump of the body.

use std::fmt;

use crate::i18n::{Localized, Msg, Text};

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

/// A body that could not be decoded. What was expected and what came are catalogue texts (`a map
/// key`, `end of input`), or a parser library's own words ([`Text::verbatim`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub format: Format,
    pub expected: Text,
    pub found: Text,
    pub offset: usize,
}

impl Localized for DecodeError {
    fn text(&self) -> Text {
        Text::new(Msg::DecodeInvalid)
            .with("format", self.format)
            .with_text("expected", &self.expected)
            .with_text("found", &self.found)
            .with("offset", self.offset)
    }
}

crate::localized_display!(DecodeError);

impl std::error::Error for DecodeError {}

impl DecodeError {
    pub fn new(format: Format, expected: impl Into<Text>, found: impl Into<Text>, offset: usize) -> Self {
        DecodeError { format, expected: expected.into(), found: found.into(), offset }
    }

    /// Whether the input simply stopped too early (more bytes could make it valid).
    pub fn is_end_of_input(&self) -> bool {
        self.found.msg == Msg::DecodeEndOfInput
    }

    /// The same error with its offset moved by `base` (a decoder that ran on a slice of a stream).
    #[must_use]
    pub fn shifted(mut self, base: usize) -> Self {
        self.offset += base;
        self
    }
}

/// What `found` says when the input ran out.
pub fn end_of_input() -> Text {
    Text::new(Msg::DecodeEndOfInput)
}

/// Describes the byte at `offset` for an error message: a printable character or its hex value.
pub fn describe_byte(input: &[u8], offset: usize) -> Text {
    match input.get(offset) {
        None => end_of_input(),
        Some(&b) if b.is_ascii_graphic() => Text::verbatim(format!("'{}'", b as char)),
        Some(&b) => Text::new(Msg::DecodeByte).with("byte", format!("0x{b:02x}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_expected_found_and_offset() {
        let error = DecodeError::new(Format::Cbor, Msg::DecodeMapKey.text(), Msg::KindArray.text(), 7);
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
}
