//! What the typed views share: the error a view gives when a document does not have the shape it
//! needs ([`ViewError`]), and small readers of optional fields that produce it.
//!
//! Invariant: a reader never panics on a document of the wrong shape; it names the JSON path,
//! what it expected there and what it found.

use crate::api::codec::value::Value;
use crate::i18n::{Localized, Msg, Text};

/// A decoded document that does not have the shape a view needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewError {
    Shape { path: String, expected: Text, found: Text },
    Kind { expected: String, found: String },
}

impl Localized for ViewError {
    fn text(&self) -> Text {
        match self {
            ViewError::Shape { path, expected, found } => {
                Text::new(Msg::ViewShape).with_text("expected", expected).with("path", path).with_text("found", found)
            }
            ViewError::Kind { expected, found } => {
                Text::new(Msg::ViewKind).with("expected", expected).with("found", format!("{found:?}"))
            }
        }
    }
}

crate::localized_display!(ViewError);

impl std::error::Error for ViewError {}

/// The `kind` of a document, if it has one.
pub fn kind_of(document: &Value) -> Option<&str> {
    document.get("kind").and_then(Value::as_str)
}

/// Checks that `document` is an object of kind `expected`.
pub(crate) fn expect_kind(document: &Value, expected: &str) -> Result<(), ViewError> {
    match kind_of(document) {
        Some(kind) if kind == expected => Ok(()),
        other => Err(ViewError::Kind { expected: expected.to_string(), found: other.unwrap_or_default().to_string() }),
    }
}

/// A string member; absent or null is `None`, another type is an error.
pub(crate) fn opt_str(object: &Value, key: &str, path: &str) -> Result<Option<String>, ViewError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(shape(&format!("{path}.{key}"), Msg::KindString, other)),
    }
}

/// An integer member; absent or null is `None`.
pub(crate) fn opt_int(object: &Value, key: &str, path: &str) -> Result<Option<i64>, ViewError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value.as_i64().map(Some).ok_or_else(|| shape(&format!("{path}.{key}"), Msg::KindInteger, value)),
    }
}

/// An array member; absent or null is `None`.
pub(crate) fn opt_array<'a>(object: &'a Value, key: &str, path: &str) -> Result<Option<&'a [Value]>, ViewError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(shape(&format!("{path}.{key}"), Msg::KindArray, other)),
    }
}

pub(crate) fn shape(path: &str, expected: Msg, found: &Value) -> ViewError {
    ViewError::Shape { path: path.to_string(), expected: expected.into(), found: found.kind_text() }
}

/// Reads a whole document into a serde type (e.g. a `k8s-openapi` struct) through its JSON form.
pub(crate) fn from_document<T: serde::de::DeserializeOwned>(
    document: &Value,
    path: &str,
    expected: Msg,
) -> Result<T, ViewError> {
    serde_json::from_value(document.to_serde_json()).map_err(|e| ViewError::Shape {
        path: path.to_string(),
        expected: expected.into(),
        found: Text::verbatim(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::codec::json::decode_json;

    #[test]
    fn field_readers_accept_absent_and_null_and_name_wrong_types() {
        let doc = decode_json(br#"{"kind":"X","s":"a","n":null,"i":3,"a":[1],"bad":true}"#).expect("valid");
        assert_eq!(kind_of(&doc), Some("X"));
        assert_eq!(expect_kind(&doc, "X"), Ok(()));
        assert_eq!(expect_kind(&doc, "Y"), Err(ViewError::Kind { expected: "Y".into(), found: "X".into() }));
        assert_eq!(opt_str(&doc, "s", "$"), Ok(Some("a".into())));
        assert_eq!(opt_str(&doc, "n", "$"), Ok(None));
        assert_eq!(opt_int(&doc, "i", "$"), Ok(Some(3)));
        assert_eq!(opt_array(&doc, "a", "$").map(|a| a.map(<[Value]>::len)), Ok(Some(1)));
        assert_eq!(
            opt_str(&doc, "bad", "$").map_err(|e| e.to_string()),
            Err("expected a string at $.bad, found a boolean".to_string())
        );
        assert!(opt_int(&doc, "s", "$").is_err());
        assert!(opt_array(&doc, "s", "$").is_err());
        let meta: Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, _> =
            from_document(&doc, "$", Msg::ViewObjectWithMetadata);
        assert!(meta.is_ok());
        let bad: Result<Vec<String>, _> = from_document(&doc, "$", Msg::KindArray);
        assert!(bad.is_err());
    }
}
