//! JSON bodies: `application/json` to and from [`Value`].
//!
//! Decoding follows Go's `encoding/json` as Kubernetes uses it: a repeated key keeps the last
//! value, a number without fraction or exponent that fits `i64` is an integer, anything else a
//! float. Encoding writes the Kubernetes form: compact, HTML characters escaped, `\n` at the end.
//! Nesting is bounded by [`MAX_DEPTH`](crate::codec::value::MAX_DEPTH).

use serde::de::DeserializeSeed;

use crate::codec::value::{DuplicateKeys, Value, ValueSeed, MAX_DEPTH, TOO_DEEP};
use crate::error::{describe_byte, end_of_input, DecodeError, Format, Token};

/// Decodes one JSON document (surrounding whitespace allowed, nothing else after it).
pub fn decode_json(input: &[u8]) -> Result<Value, DecodeError> {
    let mut deserializer = serde_json::Deserializer::from_slice(input);
    // The seed bounds nesting at MAX_DEPTH, as the CBOR and YAML decoders do; serde_json's own
    // limit is one level lower and would refuse the JSON text of a CBOR value at the limit.
    deserializer.disable_recursion_limit();
    let seed = ValueSeed { duplicates: DuplicateKeys::LastWins, depth: 0 };
    let value = seed.deserialize(&mut deserializer).map_err(|e| json_error(input, &e))?;
    deserializer.end().map_err(|e| json_error(input, &e))?;
    Ok(value)
}

/// The Kubernetes JSON response body of `value`: compact text ending in `\n`.
pub fn encode_json(value: &Value) -> Vec<u8> {
    let mut text = value.to_json();
    text.push('\n');
    text.into_bytes()
}

/// Turns a `serde_json` error (line and column) into a [`DecodeError`] with a byte offset.
pub(crate) fn json_error(input: &[u8], error: &serde_json::Error) -> DecodeError {
    let offset = if error.is_eof() { input.len() } else { byte_offset(input, error.line(), error.column()) };
    let text = error.to_string();
    let message = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => text.as_str(),
    };
    let (expected, found) = split_message(message);
    let found = match found {
        Some(found) => found,
        None if error.is_eof() => end_of_input(),
        None => describe_byte(input, offset),
    };
    DecodeError::new(Format::Json, expected, found, offset)
}

/// Splits a parser message into what was expected and, if it says, what was found: the
/// messages this project knows (serde_json's and [`ValueSeed`]'s) as [`Token`]s, any other in the
/// library's own words.
pub(crate) fn split_message(message: &str) -> (Token, Option<Token>) {
    // The seed's own words, compared as text (the token's `Display` would put every token's
    // English into the page load for this one comparison).
    if message == TOO_DEEP {
        return (nesting_at_most(), Some(Token::DeeperNesting));
    }
    if message.starts_with("EOF while parsing") {
        return (Token::CompleteJson, Some(end_of_input()));
    }
    let known = match message {
        "trailing characters" => Some(Token::EndOfInput),
        "trailing comma" => Some(Token::AfterComma),
        "expected ident" => Some(Token::Literal),
        "expected value" => Some(Token::JsonValue),
        "key must be a string" => Some(Token::StringKey),
        "invalid number" | "number out of range" => Some(Token::NumberInRange),
        "recursion limit exceeded" => return (nesting_at_most(), None),
        _ => None,
    };
    if let Some(expected) = known {
        return (expected, None);
    }
    let message = message.strip_prefix("expected ").unwrap_or(message);
    match message.split_once(", found ") {
        Some((expected, found)) => match (expected, found) {
            ("a finite number", number) => (Token::FiniteNumber, Some(number.into())),
            ("unique keys", twice) => match twice.strip_prefix("key ").and_then(|k| k.strip_suffix(" twice")) {
                Some(key) => (Token::UniqueKeys, Some(Token::KeyTwice(key.to_owned()))),
                None => (expected.into(), Some(found.into())),
            },
            _ => (expected.into(), Some(found.into())),
        },
        None => (message.into(), None),
    }
}

/// What a value nested deeper than [`MAX_DEPTH`] was expected to be.
fn nesting_at_most() -> Token {
    Token::NestingAtMost(MAX_DEPTH)
}

/// The byte offset of a 1-based line and column (serde_json counts columns in bytes).
fn byte_offset(input: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        input.iter().enumerate().filter(|(_, &b)| b == b'\n').nth(line - 2).map_or(input.len(), |(i, _)| i + 1)
    };
    (line_start + column.saturating_sub(1)).min(input.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, expect: Result<&str, &str>) {
        let got = decode_json(input.as_bytes()).map(|v| v.to_json()).map_err(|e| e.to_string());
        assert_eq!(got.as_deref().map_err(String::as_str), expect);
    }

    #[test]
    fn decodes_objects_keeping_key_order_and_number_kinds() {
        check(r#" {"b":1,"a":1.0,"c":[true,null,"x"]} "#, Ok(r#"{"b":1,"a":1,"c":[true,null,"x"]}"#));
        let value = decode_json(br#"{"i":1,"f":1.0,"big":18446744073709551615}"#).expect("valid");
        assert_eq!(value.get("i"), Some(&Value::Int(1)));
        assert_eq!(value.get("f"), Some(&Value::Float(1.0)));
        assert_eq!(value.get("big"), Some(&Value::Float(18446744073709551615.0)));
    }

    #[test]
    fn floats_round_trip_exactly_through_the_json_text() {
        // Found by fuzzing: the float16 0x0003 printed in Go's form must parse back to itself.
        for f in [1.7881393432617188e-7, 5.960464477539063e-8, 0.1, 1e21, 2.2250738585072014e-308] {
            assert_eq!(decode_json(Value::Float(f).to_json().as_bytes()), Ok(Value::Float(f)), "{f}");
        }
    }

    #[test]
    fn a_repeated_key_keeps_the_last_value_like_go() {
        check(r#"{"a":1,"b":2,"a":3}"#, Ok(r#"{"a":3,"b":2}"#));
    }

    #[test]
    fn errors_say_what_was_expected_what_came_and_where() {
        check(r#"{"a":1,}"#, Err("invalid JSON: expected another member or element after ',', found '}' at byte 7"));
        check("{\"a\":\n tru}", Err("invalid JSON: expected true, false or null, found '}' at byte 10"));
        check("[1, x]", Err("invalid JSON: expected a JSON value, found 'x' at byte 4"));
        check(r#"{"a":"#, Err("invalid JSON: expected a complete JSON value, found end of input at byte 5"));
        check(r#"{} x"#, Err("invalid JSON: expected end of input, found 'x' at byte 3"));
    }

    #[test]
    fn nesting_deeper_than_the_bound_is_refused() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        let error = decode_json(deep.as_bytes()).expect_err("too deep");
        assert_eq!(error.expected.to_string(), "nesting at most 128 deep");
        assert_eq!(error.expected, Token::NestingAtMost(128));
        let hostile = "[".repeat(1_000_000);
        assert!(decode_json(hostile.as_bytes()).is_err());
    }

    #[test]
    fn nesting_at_the_bound_decodes_as_in_cbor() {
        // Found by the cbor fuzz target: the JSON text of a CBOR value at the limit must decode.
        let at_limit = "[".repeat(128) + &"]".repeat(128);
        assert!(decode_json(at_limit.as_bytes()).is_ok());
        let over = "[".repeat(129) + &"]".repeat(129);
        let error = decode_json(over.as_bytes()).expect_err("one too deep");
        assert_eq!(
            (error.expected.to_string(), error.found),
            ("nesting at most 128 deep".into(), Token::DeeperNesting)
        );
    }

    #[test]
    fn encoding_writes_the_compact_form_with_a_newline() {
        let value = decode_json(br#"{ "a" : "<b>" }"#).expect("valid");
        assert_eq!(encode_json(&value), b"{\"a\":\"\\u003cb\\u003e\"}\n");
    }

    #[test]
    fn split_message_separates_expected_from_found() {
        assert_eq!(split_message("expected `,` or `]`"), (Token::Verbatim("`,` or `]`".into()), None));
        assert_eq!(split_message("a finite number, found inf"), (Token::FiniteNumber, Some("inf".into())));
        assert_eq!(
            split_message("unique keys, found key \"a\" twice"),
            (Token::UniqueKeys, Some(Token::KeyTwice("\"a\"".into())))
        );
        assert_eq!(split_message("trailing comma").0, Token::AfterComma);
    }

    #[test]
    fn every_shared_json_vector_decodes() {
        for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
            let bytes = crate::testdata::shared_file(&format!("kube/vectors/{name}.json"));
            let value = decode_json(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(value.get("kind").is_some(), "{name} has a kind");
        }
    }
}
