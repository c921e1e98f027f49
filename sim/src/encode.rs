//! Serializing response bodies the way the real server writes them: compact JSON ending in `\n`
//! with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go does, indented JSON when the client asks
//! for `pretty` (or is a browser, curl or wget and does not say `pretty=false`), and YAML.

use std::io;

use bytes::Bytes;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::negotiate::Format;

/// Escapes the characters Go's encoder escapes; otherwise serde_json's compact form.
struct GoEscapes<F>(F);

impl<F: Formatter> Formatter for GoEscapes<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            let escaped = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&fragment.as_bytes()[start..i])?;
            writer.write_all(escaped.as_bytes())?;
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

struct Compact;
impl Formatter for Compact {}

/// JSON bytes ending in a newline.
pub fn json<T: Serialize + ?Sized>(value: &T, pretty: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    let written = if pretty {
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoEscapes(PrettyFormatter::with_indent(b"  ")));
        value.serialize(&mut ser)
    } else {
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoEscapes(Compact));
        value.serialize(&mut ser)
    };
    match written {
        Ok(()) => {
            out.push(b'\n');
            out
        }
        Err(e) => format!("{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":\"encoding failed: {}\",\"reason\":\"InternalError\",\"code\":500}}\n", e.to_string().replace('"', "'")).into_bytes(),
    }
}

pub fn yaml<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    match serde_yaml::to_string(value) {
        Ok(s) => s.into_bytes(),
        Err(e) => {
            format!("kind: Status\napiVersion: v1\nstatus: Failure\nmessage: 'encoding failed: {e}'\ncode: 500\n")
                .into_bytes()
        }
    }
}

pub fn body<T: Serialize + ?Sized>(format: Format, value: &T, pretty: bool) -> Bytes {
    Bytes::from(match format {
        Format::Json => json(value, pretty),
        Format::Yaml => yaml(value),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_like_go_and_ends_with_newline() {
        let out = json(&serde_json::json!({"a": "<b>&"}), false);
        assert_eq!(out, b"{\"a\":\"\\u003cb\\u003e\\u0026\"}\n");
    }

    #[test]
    fn pretty_json_indents_by_two() {
        let out = json(&serde_json::json!({"a": 1}), true);
        assert_eq!(out, b"{\n  \"a\": 1\n}\n");
    }
}
