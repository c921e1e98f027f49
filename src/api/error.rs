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

/// A body that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub format: Format,
    pub expected: String,
    pub found: String,
    pub offset: usize,
}

impl Localized for DecodeError {
    fn text(&self) -> Text {
        Text::new(Msg::DecodeInvalid)
            .with("format", self.format)
            .with("expected", &self.expected)
            .with("found", &self.found)
            .with("offset", self.offset)
    }
}

crate::localized_display!(DecodeError);

impl std::error::Error for DecodeError {}

impl DecodeError {
    pub fn new(format: Format, expected: impl Into<String>, found: impl Into<String>, offset: usize) -> Self {
        DecodeError { format, expected: expected.into(), found: found.into(), offset }
    }

    /// Whether the input simply stopped too early (more bytes could make it valid).
    pub fn is_end_of_input(&self) -> bool {
        self.found == END_OF_INPUT
    }

    /// The same error with its offset moved by `base` (a decoder that ran on a slice of a stream).
    #[must_use]
    pub fn shifted(mut self, base: usize) -> Self {
        self.offset += base;
        self
    }
}

/// What `found` says when the input ran out.
pub const END_OF_INPUT: &str = "end of input";

/// Describes the byte at `offset` for an error message: a printable character or its hex value.
pub fn describe_byte(input: &[u8], offset: usize) -> String {
    match input.get(offset) {
        None => END_OF_INPUT.to_string(),
        Some(&b) if b.is_ascii_graphic() => format!("'{}'", b as char),
        Some(&b) => format!("byte 0x{b:02x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_expected_found_and_offset() {
        let error = DecodeError::new(Format::Cbor, "a map key", "an array", 7);
        assert_eq!(error.to_string(), "invalid CBOR: expected a map key, found an array at byte 7");
        assert!(!error.is_end_of_input());
        assert_eq!(error.shifted(10).offset, 17);
    }

    #[test]
    fn a_byte_is_described_as_a_character_or_in_hex() {
        assert_eq!(describe_byte(b"a\x01", 0), "'a'");
        assert_eq!(describe_byte(b"a\x01", 1), "byte 0x01");
        assert_eq!(describe_byte(b"a", 1), "end of input");
        assert!(DecodeError::new(Format::Json, "x", describe_byte(b"", 0), 0).is_end_of_input());
        assert_eq!(Format::Protobuf.to_string(), "protobuf");
        assert_eq!(Format::Yaml.to_string(), "YAML");
    }
}
