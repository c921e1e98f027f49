//! What a watch event's object is about: the object itself, or for the one-row `Table` of a
//! Table watch, the object of its row.

use crate::codec::value::Value;

/// Whether `object` is a server-side `Table` (`meta.k8s.io`), as each event of a Table watch
/// (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`) carries.
pub fn is_table(object: &Value) -> bool {
    object.get("kind").and_then(Value::as_str) == Some("Table")
        && object.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("meta.k8s.io/"))
}

/// The object a watch event (or a cached entry) is about: `object` itself, or for a one-row
/// `Table` (each event of a Table watch, BOOKMARKs included) the object of its row, a
/// `PartialObjectMetadata` or the full object by `includeObject`. A Table row without an object
/// (`includeObject=None`) or with several rows gives the Table itself, which has no uid or name.
pub fn watched_object(object: &Value) -> &Value {
    if !is_table(object) {
        return object;
    }
    match object.get("rows").and_then(Value::as_array) {
        Some([row]) => match row.get("object") {
            Some(inner @ Value::Object(_)) => inner,
            _ => object,
        },
        _ => object,
    }
}
