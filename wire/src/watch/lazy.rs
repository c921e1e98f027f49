//! Watch event objects read lazily: at arrival only what a live view needs is decoded (the
//! object's kind and metadata name, namespace, uid, resourceVersion, creationTimestamp; for a
//! server-side Table, the row's cells; BOOKMARKs, whose initial-events-end annotation matters,
//! are decoded in full), and the event's wire bytes are kept; the whole object is
//! decoded on demand (an object view, a history diff), once.
//!
//! What is checked when (so that a malformed event is reported, not silently kept):
//! - JSON: at arrival, the whole event: UTF-8, syntax, nesting (serde_json walks every byte,
//!   skipping what it does not keep with [`IgnoredAny`]); a repeated key keeps its last value,
//!   as the full decoder does. Escapes inside skipped strings are checked for syntax only; a
//!   lone UTF-16 surrogate there is reported when the object is decoded.
//! - CBOR: at arrival, the whole event by the Kubernetes rules of [`crate::codec::cbor`]
//!   (well-formedness, UTF-8 text, allowed tags and simple values, integers within int64, finite
//!   floats, nesting), and unique keys in the maps the fast pass reads (the event, the object's
//!   own members, its metadata); in the members it steps over (spec, status, ...) a repeated key
//!   is found when the object is decoded, as a lone surrogate is in JSON (checking every key of
//!   every skipped map was a third of reading a list). Skipped strings are not copied.
//! - A fast pass that refuses an event hands it to the full decoder, whose error (with its byte
//!   offset in the stream) is the one reported; a fast pass that is stricter than the full
//!   decoder (serde_json's own nesting bound is one level lower) therefore costs time, not
//!   correctness.
//! - BOOKMARK and ERROR events, and anything but `ADDED`, `MODIFIED` and `DELETED` with an
//!   object, are decoded in full, exactly as before (they are rare and small).
//!
//! Invariant: a lazy object's head is what [`ObjectHead::of`] reads from its decoded tree, and
//! [`LazyObject::value`] is the tree the full decoder gives for the same bytes.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::codec::cbor::decode_cbor;
use crate::codec::json::decode_json;
use crate::codec::value::Value;
use crate::error::{DecodeError, Format, Token};
use crate::watch::object::{is_table, watched_object};

/// What a live view reads of an object without decoding it: its kind and metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectHead {
    pub kind: Option<String>,
    pub api_version: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub creation_timestamp: Option<String>,
}

impl ObjectHead {
    /// The head of a decoded object (a non-string member counts as absent, as everywhere else).
    pub fn of(object: &Value) -> ObjectHead {
        let text = |path: &[&str]| object.at(path).and_then(Value::as_str).map(str::to_owned);
        ObjectHead {
            kind: text(&["kind"]),
            api_version: text(&["apiVersion"]),
            name: text(&["metadata", "name"]),
            namespace: text(&["metadata", "namespace"]),
            uid: text(&["metadata", "uid"]),
            resource_version: text(&["metadata", "resourceVersion"]),
            creation_timestamp: text(&["metadata", "creationTimestamp"]),
        }
    }
}

/// What a server-side `Table` object (each event of an `as=Table` watch) carries besides its
/// row's object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableHead {
    /// The Table's own `metadata.resourceVersion`.
    pub resource_version: Option<String>,
    /// `columnDefinitions` as sent (the first event of a watch and list pages carry them).
    pub columns: Option<Value>,
    /// The cells of its only row (empty for a Table with another number of rows).
    pub cells: Vec<Value>,
    /// How many rows it has.
    pub rows: usize,
    /// Its only row carries an object, whose head is the lazy object's head.
    pub row_object: bool,
}

/// An object of a watch event or of a cache: its head at once, its tree on demand.
#[derive(Clone)]
pub struct LazyObject {
    /// The head of the object the event is about: the object, or a one-row Table's row object.
    pub(crate) head: ObjectHead,
    /// Set when the object is a server-side Table.
    pub(crate) table: Option<Box<TableHead>>,
    pub(crate) body: Body,
}

#[derive(Clone)]
pub(crate) enum Body {
    /// Decoded already (a list page's item, or an event the fast pass handed over).
    Tree(Arc<Value>),
    /// The bytes of the whole event (`{"type": …, "object": …}`), `offset` bytes into its stream.
    Wire { format: Format, event: Arc<[u8]>, offset: usize, decoded: OnceLock<Result<Arc<Value>, DecodeError>> },
    /// An item of a list body (see [`crate::watch::lazy_list`]): the object is
    /// `body[range]`, shared with the list's other items.
    Slice {
        format: Format,
        body: Arc<[u8]>,
        range: std::ops::Range<usize>,
        decoded: OnceLock<Result<Arc<Value>, DecodeError>>,
    },
}

impl fmt::Debug for LazyObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("LazyObject");
        out.field("head", &self.head).field("table", &self.table);
        match &self.body {
            Body::Tree(tree) => out.field("tree", tree),
            Body::Wire { format, event, .. } => out.field("wire", &format_args!("{format}, {} bytes", event.len())),
            Body::Slice { format, range, .. } => out.field("slice", &format_args!("{format}, bytes {range:?}")),
        };
        out.finish()
    }
}

impl PartialEq for LazyObject {
    /// The same head and the same tree (however each was obtained).
    fn eq(&self, other: &LazyObject) -> bool {
        self.head == other.head && self.table == other.table && self.value() == other.value()
    }
}

impl LazyObject {
    /// An object decoded already.
    pub fn from_value(object: Value) -> LazyObject {
        let (head, table) = heads_of(&object);
        LazyObject { head, table, body: Body::Tree(Arc::new(object)) }
    }

    /// The head of the object this is about (a one-row Table's row object).
    pub fn head(&self) -> &ObjectHead {
        &self.head
    }

    /// The Table parts, when this is a server-side Table.
    pub fn table(&self) -> Option<&TableHead> {
        self.table.as_deref()
    }

    /// Takes the column definitions (they are the same for every row and kept once elsewhere).
    pub fn take_columns(&mut self) -> Option<Value> {
        self.table.as_mut().and_then(|t| t.columns.take())
    }

    /// The object's own `metadata.resourceVersion` (a Table's, for a Table).
    pub fn own_resource_version(&self) -> Option<&str> {
        match &self.table {
            Some(table) => table.resource_version.as_deref(),
            None => self.head.resource_version.as_deref(),
        }
    }

    /// Whether the tree is at hand without decoding.
    pub fn is_decoded(&self) -> bool {
        match &self.body {
            Body::Tree(_) => true,
            Body::Wire { decoded, .. } | Body::Slice { decoded, .. } => decoded.get().is_some(),
        }
    }

    /// How many bytes of the wire the object keeps (0 for a decoded one; a list item's own bytes,
    /// which it shares with the list's other items).
    pub fn wire_len(&self) -> usize {
        match &self.body {
            Body::Tree(_) => 0,
            Body::Wire { event, .. } => event.len(),
            Body::Slice { range, .. } => range.len(),
        }
    }

    /// The whole object, decoded on the first call and kept. An error names what was expected
    /// and its byte offset in the watch stream.
    pub fn value(&self) -> Result<Arc<Value>, DecodeError> {
        match &self.body {
            Body::Tree(tree) => Ok(tree.clone()),
            Body::Wire { decoded, .. } | Body::Slice { decoded, .. } => {
                decoded.get_or_init(|| self.decode_wire()).clone()
            }
        }
    }

    /// The whole object without keeping it: the tree when one is kept, else decoded now and
    /// dropped with the caller's `Arc` (a list shown as text reads each item once, and stays
    /// held in its wire size).
    pub fn value_unkept(&self) -> Result<Arc<Value>, DecodeError> {
        match &self.body {
            Body::Tree(tree) => Ok(tree.clone()),
            Body::Wire { decoded, .. } | Body::Slice { decoded, .. } => match decoded.get() {
                Some(kept) => kept.clone(),
                None => self.decode_wire(),
            },
        }
    }

    fn decode_wire(&self) -> Result<Arc<Value>, DecodeError> {
        match &self.body {
            Body::Tree(tree) => Ok(tree.clone()),
            Body::Wire { format, event, offset, .. } => {
                decode_event_object(*format, event).map_err(|e| e.shifted(*offset))
            }
            Body::Slice { format, body, range, .. } => {
                let bytes = &body[range.clone()];
                let object = match format {
                    Format::Cbor => decode_cbor(bytes),
                    _ => decode_json(bytes),
                };
                object.map(Arc::new).map_err(|e| e.shifted(range.start))
            }
        }
    }
}

/// The object member of a whole event's bytes, decoded in full.
fn decode_event_object(format: Format, event: &[u8]) -> Result<Arc<Value>, DecodeError> {
    let document = match format {
        Format::Cbor => decode_cbor(event)?,
        _ => decode_json(event)?,
    };
    let object = match document {
        Value::Object(mut map) => map.remove("object"),
        _ => None,
    };
    match object {
        Some(object @ Value::Object(_)) => Ok(Arc::new(object)),
        // The fast pass saw an object here: the bytes are the same, so this cannot happen.
        _ => Err(DecodeError::new(format, Token::ObjectMember("\"object\""), Token::None, 0)),
    }
}

/// The head of the watched object and the Table parts of a decoded object.
fn heads_of(object: &Value) -> (ObjectHead, Option<Box<TableHead>>) {
    let head = ObjectHead::of(watched_object(object));
    if !is_table(object) {
        return (head, None);
    }
    let rows = object.get("rows").and_then(Value::as_array).unwrap_or_default();
    let cells = match rows {
        [row] => row.get("cells").and_then(Value::as_array).map(<[Value]>::to_vec).unwrap_or_default(),
        _ => Vec::new(),
    };
    let table = TableHead {
        resource_version: object.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).map(str::to_owned),
        columns: object.get("columnDefinitions").filter(|c| c.as_array().is_some()).cloned(),
        cells,
        rows: rows.len(),
        row_object: !std::ptr::eq(watched_object(object), object),
    };
    (head, Some(Box::new(table)))
}
