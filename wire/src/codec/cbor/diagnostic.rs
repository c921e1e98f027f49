//! RFC 8949 diagnostic notation of CBOR items: what a decoded document hides (the
//! self-described tag, byte strings where JSON has text) made visible for a person.

use ciborium_ll::Header;

use crate::codec::cbor::reader::{Reader, StringKind, SIMPLE_FALSE, SIMPLE_NULL, SIMPLE_TRUE};
use crate::codec::value::MAX_DEPTH;
use crate::error::{DecodeError, Token};

/// RFC 8949 diagnostic notation of the CBOR items in `input` (one item, or a CBOR sequence, one
/// item a line), indented for reading: what the decoded document hides is visible here, such as
/// the self-described tag `55799(...)` and byte strings (`h'6b696e64'`, with their text as a
/// comment) where JSON would have text. The output stops after about `max_chars` characters.
pub fn diagnostic(input: &[u8], max_chars: usize) -> Result<String, DecodeError> {
    let mut reader = Reader::new(input);
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
            return Err(self.error(Token::NestingAtMost(MAX_DEPTH), Token::DeeperNesting, at).into());
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
            Header::Break => return Err(self.error(Token::DataItem, Token::Break, at).into()),
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
                let text = String::from_utf8(bytes)
                    .map_err(|e| self.error(Token::Utf8Text, Token::InvalidUtf8At(e.utf8_error().valid_up_to()), at))?;
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
