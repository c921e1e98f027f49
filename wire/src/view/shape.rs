//! What the typed views share: the error a view gives when a document does not have the shape it
//! needs ([`ViewError`]), and small readers of optional fields that produce it.
//!
//! Invariant: a reader never panics on a document of the wrong shape; it names the JSON path,
//! what it expected there and what it found.

use std::fmt;

use crate::codec::value::{Value, ValueKind};

/// A decoded document that does not have the shape a view needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    #[error("expected {expected} at {path}, found {found}")]
    Shape { path: String, expected: Expected, found: Found },
    #[error("expected kind {expected}, found {found:?}")]
    Kind { expected: String, found: String },
}

/// What a view expected at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// A value of this kind.
    Kind(ValueKind),
    /// An object with `metadata` (the whole document of one object).
    ObjectWithMetadata,
    /// A collection with `metadata` (a list's whole document).
    CollectionWithMetadata,
    /// A `Status`.
    Status,
    /// One of the watch event types.
    WatchEventType,
}

/// What a view found at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A value of this kind.
    Kind(ValueKind),
    /// A value shown as it is, or a parser library's words about it.
    Verbatim(String),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Kind(kind) => kind.fmt(f),
            Expected::ObjectWithMetadata => f.write_str("an object with metadata"),
            Expected::CollectionWithMetadata => f.write_str("a collection with metadata"),
            Expected::Status => f.write_str("a Status"),
            Expected::WatchEventType => write!(f, "{} or {}", WATCH_EVENT_TYPES[..4].join(", "), WATCH_EVENT_TYPES[4]),
        }
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Kind(kind) => kind.fmt(f),
            Found::Verbatim(text) => f.write_str(text),
        }
    }
}

/// The `type` of a watch event, each as on the wire.
pub const WATCH_EVENT_TYPES: [&str; 5] = ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"];

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
        Some(other) => Err(shape(&format!("{path}.{key}"), ValueKind::String, other)),
    }
}

/// An integer member; absent or null is `None`.
pub(crate) fn opt_int(object: &Value, key: &str, path: &str) -> Result<Option<i64>, ViewError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => {
            value.as_i64().map(Some).ok_or_else(|| shape(&format!("{path}.{key}"), ValueKind::Integer, value))
        }
    }
}

/// An array member; absent or null is `None`.
pub(crate) fn opt_array<'a>(object: &'a Value, key: &str, path: &str) -> Result<Option<&'a [Value]>, ViewError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(shape(&format!("{path}.{key}"), ValueKind::Array, other)),
    }
}

pub(crate) fn shape(path: &str, expected: ValueKind, found: &Value) -> ViewError {
    ViewError::Shape { path: path.to_string(), expected: Expected::Kind(expected), found: Found::Kind(found.kind()) }
}

/// Reads a whole document into a serde type (e.g. a `k8s-openapi` struct) through its JSON form.
pub(crate) fn from_document<T: serde::de::DeserializeOwned>(
    document: &Value,
    path: &str,
    expected: Expected,
) -> Result<T, ViewError> {
    serde_json::from_value(document.to_serde_json()).map_err(|e| ViewError::Shape {
        path: path.to_string(),
        expected,
        found: Found::Verbatim(e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::decode_json;

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
            from_document(&doc, "$", Expected::ObjectWithMetadata);
        assert!(meta.is_ok());
        let bad: Result<Vec<String>, _> = from_document(&doc, "$", Expected::Kind(ValueKind::Array));
        assert!(bad.is_err());
        assert_eq!(Expected::WatchEventType.to_string(), "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR");
    }
}
