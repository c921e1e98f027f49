//! YAML bodies: `application/yaml` (and the body of `application/apply-patch+yaml`) to and from
//! [`Value`].
//!
//! Decoding follows `sigs.k8s.io/yaml`: one document, a repeated key is an error, non-string keys
//! become their text, and the YAML 1.1 scalars of the parser apply. Encoding writes the JSON data
//! model as YAML (a float `1.0` becomes `1`, bytes become base64 text), as the server's YAML
//! encoder converts from JSON.

use serde::de::DeserializeSeed;

use crate::codec::json::split_message;
use crate::codec::value::{DuplicateKeys, Value, ValueSeed};
use crate::error::{describe_byte, end_of_input, DecodeError, Format, Token};

/// Decodes one YAML document.
pub fn decode_yaml(input: &[u8]) -> Result<Value, DecodeError> {
    let deserializer = serde_yaml::Deserializer::from_slice(input);
    let seed = ValueSeed { duplicates: DuplicateKeys::Reject, depth: 0 };
    seed.deserialize(deserializer).map_err(|e| yaml_error(input, &e))
}

/// The YAML text of `value`.
pub fn encode_yaml(value: &Value) -> Result<Vec<u8>, EncodeYamlError> {
    serde_yaml::to_string(value).map(String::into_bytes).map_err(|e| EncodeYamlError(e.to_string()))
}

/// A value the YAML emitter refused.
/// Why a value cannot be written as YAML (the YAML library's words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot write YAML: {0}")]
pub struct EncodeYamlError(pub String);

fn yaml_error(input: &[u8], error: &serde_yaml::Error) -> DecodeError {
    let offset = error.location().map_or(input.len(), |l| l.index()).min(input.len());
    let text = error.to_string();
    let message = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => text.as_str(),
    };
    let (expected, found) = match split_message(message) {
        // The scanner's own wording ("did not find expected key", "could not find expected ':'
        // ..., while scanning a simple key") says what it found wrong.
        (text, None) if error.location().is_some() => {
            let detail = match text {
                Token::Verbatim(words) => Token::Verbatim(words.replace(" at line ", " near line ")),
                other => other,
            };
            let near = Token::Near { near: Box::new(describe_byte(input, offset)), detail: Box::new(detail) };
            (Token::WellFormedYaml, near)
        }
        (text, None) => (text, end_of_input()),
        (expected, Some(found)) => (expected, found),
    };
    DecodeError::new(Format::Yaml, expected, found, offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::decode_json;

    #[track_caller]
    fn check(input: &str, expect: Result<&str, &str>) {
        let got = decode_yaml(input.as_bytes()).map(|v| v.to_json()).map_err(|e| e.to_string());
        assert_eq!(got.as_deref().map_err(String::as_str), expect);
    }

    #[test]
    fn decodes_mappings_in_order_with_yaml_scalars() {
        check("b: 1\na: 1.5\nc: [x, null, true]\n", Ok(r#"{"b":1,"a":1.5,"c":["x",null,true]}"#));
        check("1: one\ntrue: yes\n", Ok(r#"{"1":"one","true":"yes"}"#));
    }

    #[test]
    fn a_repeated_key_is_refused() {
        let error = decode_yaml(b"a: 1\na: 2\n").expect_err("duplicate");
        assert_eq!(error.format, Format::Yaml);
        assert!(error.to_string().contains("\"a\""), "{error}");
    }

    #[test]
    fn a_syntax_error_names_its_offset() {
        let error = decode_yaml(b"a: [1, 2\n").expect_err("unclosed");
        assert_eq!(error.format, Format::Yaml);
        assert!(error.offset <= 9);
        let error = decode_yaml(b"a:\n  b: 1\n c d\ne: 2\n").expect_err("bad indentation");
        assert_eq!(error.expected.to_string(), "well-formed YAML", "{error}");
    }

    #[test]
    fn encoding_writes_the_json_data_model() {
        let value = decode_json(br#"{"a":1.0,"b":"x"}"#).expect("valid");
        assert_eq!(encode_yaml(&value).expect("encodes"), b"a: 1\nb: x\n");
    }

    #[test]
    fn the_error_type_says_yaml_cannot_be_written() {
        assert_eq!(EncodeYamlError("x".into()).to_string(), "cannot write YAML: x");
    }

    #[test]
    fn every_shared_yaml_vector_equals_its_json_form() {
        for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
            let yaml = crate::testdata::shared_file(&format!("kube/vectors/{name}.yaml"));
            let json = crate::testdata::shared_file(&format!("kube/vectors/{name}.json"));
            let from_yaml = decode_yaml(&yaml).unwrap_or_else(|e| panic!("{name}: {e}"));
            let from_json = decode_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(from_yaml.equivalent(&from_json), "{name}");
        }
    }
}
