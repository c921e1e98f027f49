//! Watch event objects read lazily: at arrival only what a live view needs is decoded (the
//! object's kind and metadata name, namespace, uid, resourceVersion, creationTimestamp; for a
//! server-side Table, the row's cells), and the event's wire bytes are kept; the whole object is
//! decoded on demand (an object view, a history diff), once.
//!
//! What is checked when (so that a malformed event is reported, not silently kept):
//! - JSON: at arrival, the whole event: UTF-8, syntax, nesting (serde_json walks every byte,
//!   skipping what it does not keep with [`IgnoredAny`]); a repeated key keeps its last value,
//!   as the full decoder does. Escapes inside skipped strings are checked for syntax only; a
//!   lone UTF-16 surrogate there is reported when the object is decoded.
//! - CBOR: at arrival, the whole event by the Kubernetes rules of [`crate::api::cbor`]
//!   (well-formedness, UTF-8 text, unique map keys, allowed tags and simple values, integers
//!   within int64, finite floats, nesting); only skipped strings are not copied.
//! - A fast pass that refuses an event hands it to the full decoder, whose error (with its byte
//!   offset in the stream) is the one reported; a fast pass that is stricter than the full
//!   decoder (serde_json's own nesting bound is one level lower) therefore costs time, not
//!   correctness.
//! - BOOKMARK and ERROR events, and anything but `ADDED`, `MODIFIED` and `DELETED` with an
//!   object, are decoded in full, exactly as before (they are rare and small).
//!
//! Invariant: a lazy object's head is what [`ObjectHead::of`] reads from its decoded tree, and
//! [`LazyObject::value`] is the tree the full decoder gives for the same bytes.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::api::cbor::decode_cbor;
use crate::api::error::{DecodeError, Format};
use crate::api::json::decode_json;
use crate::api::value::{DuplicateKeys, Value, ValueSeed};
use crate::api::watch::{is_table, watched_object, INITIAL_EVENTS_END_ANNOTATION};

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
    /// `metadata.annotations["k8s.io/initial-events-end"]` is `"true"`.
    pub initial_events_end: bool,
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
            initial_events_end: object
                .at(&["metadata", "annotations", INITIAL_EVENTS_END_ANNOTATION])
                .and_then(Value::as_str)
                == Some("true"),
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
    head: ObjectHead,
    /// Set when the object is a server-side Table.
    table: Option<Box<TableHead>>,
    body: Body,
}

#[derive(Clone)]
enum Body {
    /// Decoded already (a list page's item, or an event the fast pass handed over).
    Tree(Arc<Value>),
    /// The bytes of the whole event (`{"type": …, "object": …}`), `offset` bytes into its stream.
    Wire { format: Format, event: Arc<[u8]>, offset: usize, decoded: OnceLock<Result<Arc<Value>, DecodeError>> },
}

impl fmt::Debug for LazyObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("LazyObject");
        out.field("head", &self.head).field("table", &self.table);
        match &self.body {
            Body::Tree(tree) => out.field("tree", tree),
            Body::Wire { format, event, .. } => out.field("wire", &format_args!("{format}, {} bytes", event.len())),
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
            Body::Wire { decoded, .. } => decoded.get().is_some(),
        }
    }

    /// How many bytes of the wire the object keeps (0 for a decoded one).
    pub fn wire_len(&self) -> usize {
        match &self.body {
            Body::Tree(_) => 0,
            Body::Wire { event, .. } => event.len(),
        }
    }

    /// The whole object, decoded on the first call and kept. An error names what was expected
    /// and its byte offset in the watch stream.
    pub fn value(&self) -> Result<Arc<Value>, DecodeError> {
        match &self.body {
            Body::Tree(tree) => Ok(tree.clone()),
            Body::Wire { format, event, offset, decoded } => {
                decoded.get_or_init(|| decode_event_object(*format, event).map_err(|e| e.shifted(*offset))).clone()
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
        _ => Err(DecodeError::new(format, "an object member \"object\"", "none", 0)),
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

/// What the fast pass read of one ADDED, MODIFIED or DELETED event.
#[derive(Debug)]
pub(crate) struct FastEvent {
    pub(crate) event_type: FastType,
    pub(crate) object: LazyObject,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FastType {
    Added,
    Modified,
    Deleted,
}

impl FastType {
    pub(crate) fn of(text: &str) -> Option<FastType> {
        match text {
            "ADDED" => Some(FastType::Added),
            "MODIFIED" => Some(FastType::Modified),
            "DELETED" => Some(FastType::Deleted),
            _ => None,
        }
    }
}

/// What a fast pass collected of an object, before it becomes a [`LazyObject`].
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub(crate) head: ObjectHead,
    pub(crate) columns: Option<Value>,
    /// `rows` was an array of this many.
    pub(crate) rows: Option<usize>,
    /// The first row's cells (when an array) and object head (when an object).
    pub(crate) first_cells: Option<Vec<Value>>,
    pub(crate) first_object: Option<ObjectHead>,
}

impl Scanned {
    /// The lazy object for these parts and the event's bytes.
    pub(crate) fn into_lazy(self, format: Format, event: &[u8], offset: usize) -> LazyObject {
        let table = self.head.kind.as_deref() == Some("Table")
            && self.head.api_version.as_deref().is_some_and(|v| v.starts_with("meta.k8s.io/"));
        let (head, table) = if table {
            let rows = self.rows.unwrap_or(0);
            let cells = if rows == 1 { self.first_cells.unwrap_or_default() } else { Vec::new() };
            let own_version = self.head.resource_version.clone();
            let (head, row_object) = match (rows, self.first_object) {
                (1, Some(inner)) => (inner, true),
                _ => (self.head, false),
            };
            let table = TableHead { resource_version: own_version, columns: self.columns, cells, rows, row_object };
            (head, Some(Box::new(table)))
        } else {
            (self.head, None)
        };
        let body = Body::Wire { format, event: Arc::from(event), offset, decoded: OnceLock::new() };
        LazyObject { head, table, body }
    }
}

/// The fast pass over one JSON event: `None` when the event is not an ADDED, MODIFIED or DELETED
/// event with an object, or anything in it is refused: then the full decoder decides.
pub(crate) fn scan_json_event(event: &[u8], offset: usize) -> Option<FastEvent> {
    let text = std::str::from_utf8(event).ok()?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let scanned = EventSeed.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    let (Some(event_type), Some(object)) = (scanned.0, scanned.1) else { return None };
    Some(FastEvent { event_type, object: object.into_lazy(Format::Json, event, offset) })
}

/// A string member, or `None` for any other value (skipped).
struct OptText;

impl<'de> DeserializeSeed<'de> for OptText {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for OptText {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

fn owned(text: Option<Cow<'_, str>>) -> Option<String> {
    text.map(Cow::into_owned)
}

/// `{"type": …, "object": …}`: the type when it is a fast one, and the object's parts.
struct EventSeed;

impl<'de> DeserializeSeed<'de> for EventSeed {
    type Value = (Option<FastType>, Option<Scanned>);

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EventSeed {
    type Value = (Option<FastType>, Option<Scanned>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a watch event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut event_type, mut object) = (None, None);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "type" => event_type = map.next_value_seed(OptText)?.as_deref().and_then(FastType::of),
                "object" => object = map.next_value_seed(ObjectSeed { table_parts: true })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((event_type, object))
    }
}

/// An object's head (and with `table_parts`, its Table columns and first row); `None` for a value
/// that is not an object.
#[derive(Clone, Copy)]
struct ObjectSeed {
    table_parts: bool,
}

impl<'de> DeserializeSeed<'de> for ObjectSeed {
    type Value = Option<Scanned>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ObjectSeed {
    type Value = Option<Scanned>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut scanned = Scanned::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "kind" => scanned.head.kind = owned(map.next_value_seed(OptText)?),
                "apiVersion" => scanned.head.api_version = owned(map.next_value_seed(OptText)?),
                "metadata" => map.next_value_seed(MetadataSeed(&mut scanned.head))?,
                "columnDefinitions" if self.table_parts => {
                    let columns = map.next_value_seed(ValueSeed { duplicates: DuplicateKeys::LastWins, depth: 2 })?;
                    scanned.columns = columns.as_array().is_some().then_some(columns);
                }
                "rows" if self.table_parts => map.next_value_seed(RowsSeed(&mut scanned))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(scanned))
    }
}

/// `metadata`: the head's fields; anything else in it is skipped.
struct MetadataSeed<'a>(&'a mut ObjectHead);

impl<'de> DeserializeSeed<'de> for MetadataSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MetadataSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.visit_unit()
    }

    /// Not an object: no metadata (a repeated member replaces an earlier one).
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        *self.0 =
            ObjectHead { kind: self.0.kind.take(), api_version: self.0.api_version.take(), ..ObjectHead::default() };
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.visit_unit()
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let head = self.0;
        let (kind, api_version) = (head.kind.take(), head.api_version.take());
        *head = ObjectHead { kind, api_version, ..ObjectHead::default() };
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let slot = match &*key {
                "name" => &mut head.name,
                "namespace" => &mut head.namespace,
                "uid" => &mut head.uid,
                "resourceVersion" => &mut head.resource_version,
                "creationTimestamp" => &mut head.creation_timestamp,
                "annotations" => {
                    head.initial_events_end = map.next_value_seed(AnnotationsSeed)?;
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = owned(map.next_value_seed(OptText)?);
        }
        Ok(())
    }
}

/// `metadata.annotations`: whether the initial-events-end annotation is `"true"`.
struct AnnotationsSeed;

impl<'de> DeserializeSeed<'de> for AnnotationsSeed {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnnotationsSeed {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut end = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == INITIAL_EVENTS_END_ANNOTATION {
                end = map.next_value_seed(OptText)?.as_deref() == Some("true");
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(end)
    }
}

/// A Table's `rows`: how many, and the first one's cells and object head.
struct RowsSeed<'a>(&'a mut Scanned);

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.rows = None;
        self.0.first_cells = None;
        self.0.first_object = None;
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let scanned = self.0;
        let (mut cells, mut object) = (None, None);
        let first = seq.next_element_seed(RowSeed { cells: &mut cells, object: &mut object })?.is_some();
        let mut rows = usize::from(first);
        while seq.next_element::<IgnoredAny>()?.is_some() {
            rows += 1;
        }
        scanned.rows = Some(rows);
        scanned.first_cells = cells;
        scanned.first_object = object;
        Ok(())
    }
}

/// One Table row: its cells (when an array) and its object's head (when an object).
struct RowSeed<'a> {
    cells: &'a mut Option<Vec<Value>>,
    object: &'a mut Option<ObjectHead>,
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "cells" => {
                    let cells = map.next_value_seed(ValueSeed { duplicates: DuplicateKeys::LastWins, depth: 4 })?;
                    *self.cells = match cells {
                        Value::Array(items) => Some(items),
                        _ => None,
                    };
                }
                "object" => {
                    *self.object = map.next_value_seed(ObjectSeed { table_parts: false })?.map(|s| s.head);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::cbor::{scan_cbor_event, CborEncoding};
    use crate::api::media_type::MediaType;
    use crate::api::testdata::{dechunked_body, real_apiserver_body, shared_file};
    use crate::api::watch::{encode_cbor_event, CborSeqFramer, JsonFramer, StreamError, WatchDecoder, WatchEvent};

    /// The events of a stream read as before lazy decoding: each decoded in full, then typed.
    fn fully(format: Format, bytes: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
        let documents = match format {
            Format::Cbor => CborSeqFramer::new().push(bytes)?,
            _ => JsonFramer::new().push(bytes)?,
        };
        documents
            .into_iter()
            .enumerate()
            .map(|(i, d)| WatchEvent::from_value(d).map_err(|source| StreamError::Event { event: i + 1, source }))
            .collect()
    }

    fn lazily(format: Format, bytes: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
        let content_type = if format == Format::Cbor { MediaType::cbor_seq() } else { MediaType::json() };
        let mut decoder = WatchDecoder::new(&content_type).expect("decoder");
        let events = decoder.push(bytes)?;
        decoder.finish()?;
        Ok(events)
    }

    fn streams() -> Vec<(Format, String, Vec<u8>)> {
        let mut streams = Vec::new();
        for name in [
            "kube/vectors/watch.jsonl",
            "kube/cbor/foobar_watch.source.jsonl",
            "kube/cbor/watch_pods.source.jsonl",
            "kube/cbor/watch_pods_sendInitialEvents.source.jsonl",
        ] {
            streams.push((Format::Json, name.to_string(), shared_file(name)));
        }
        for name in [
            "61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt",
            "65-watch-rv-too-old-410-in-stream.txt",
            "67-watch-table.txt",
        ] {
            streams.push((Format::Json, name.to_string(), real_apiserver_body(name)));
        }
        let raw = shared_file("kube/recordings/client-go/dynamic-testdata/TestGoldenResponse/responses/events");
        streams.push((Format::Json, "client-go events".to_string(), dechunked_body(&raw).0));
        for name in [
            "kube/vectors/watch.cborseq",
            "kube/cbor/foobar_watch.cbor-seq",
            "kube/cbor/watch_pods.cbor-seq",
            "kube/cbor/watch_pods_sendInitialEvents.cbor-seq",
        ] {
            streams.push((Format::Cbor, name.to_string(), shared_file(name)));
        }
        streams.push((Format::Cbor, "69-watch-cbor.txt".to_string(), real_apiserver_body("69-watch-cbor.txt")));
        streams
    }

    #[test]
    fn every_recorded_stream_reads_lazily_as_it_decodes_in_full() {
        let mut fast = 0;
        for (format, name, bytes) in streams() {
            let lazy = lazily(format, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            // Every ADDED, MODIFIED and DELETED event took the fast pass: nothing decoded yet.
            for event in &lazy {
                if let Some(object) = event.object() {
                    assert!(!object.is_decoded() && object.wire_len() > 0, "{name}: {event:?}");
                    fast += 1;
                }
            }
            // The same heads, Table parts and (decoded now) trees as the full decoder's.
            assert_eq!(lazy, fully(format, &bytes).expect("full"), "{name}");
        }
        assert!(fast > 40, "{fast} events took the fast pass");
    }

    #[test]
    fn an_object_is_decoded_once_on_demand() {
        let events = lazily(Format::Json, &shared_file("kube/vectors/watch.jsonl")).expect("events");
        let object = events[0].object().expect("an object");
        assert!(!object.is_decoded());
        let first = object.value().expect("tree");
        assert!(object.is_decoded());
        assert!(Arc::ptr_eq(&first, &object.value().expect("tree")));
        assert_eq!(object.head(), &ObjectHead::of(&first));
        assert_eq!(object.head().name.as_deref(), Some("web-7d4b9c8f5-x2x9q"));
        assert_eq!(object.head().creation_timestamp.as_deref(), Some("2024-05-01T12:00:00Z"));
    }

    /// Checks that the fast pass over `event` either refuses it or reads what the full decoder
    /// reads: a fast pass that accepted what the full decoder refuses would keep a malformed
    /// object.
    #[track_caller]
    fn check_against_full(format: Format, event: &[u8], at: usize) {
        let (fast, full) = match format {
            Format::Cbor => (scan_cbor_event(event, 0), decode_cbor(event)),
            _ => (scan_json_event(event, 0), decode_json(event)),
        };
        let Some(fast) = fast else { return };
        let full = full.unwrap_or_else(|e| panic!("{format} change at byte {at}: fast pass took what fails: {e}"));
        let object = full.get("object").expect("an object");
        assert_eq!(fast.object.value().as_deref(), Ok(object), "{format} change at byte {at}");
        assert_eq!(fast.object.head(), &ObjectHead::of(watched_object(object)), "{format} change at byte {at}");
        assert_eq!(fast.object, LazyObject::from_value(object.clone()), "{format} change at byte {at}");
    }

    #[test]
    fn every_one_byte_change_of_an_event_is_refused_or_read_as_the_full_decoder_reads_it() {
        let jsonl = shared_file("kube/vectors/watch.jsonl");
        let table = real_apiserver_body("67-watch-table.txt");
        let json_events: Vec<&[u8]> = [&jsonl[..], &table[..]]
            .into_iter()
            .flat_map(|stream| stream.split(|b| *b == b'\n').find(|l| !l.is_empty()))
            .collect();
        for event in json_events {
            for at in 0..event.len() {
                for byte in [b'"', b'{', b'}', b']', b',', b'\\', b'x', 0xff] {
                    let mut changed = event.to_vec();
                    changed[at] = byte;
                    check_against_full(Format::Json, &changed, at);
                }
            }
        }
        let cborseq = shared_file("kube/vectors/watch.cborseq");
        let (first, used) = crate::api::cbor::decode_cbor_prefix(&cborseq).expect("an item");
        assert!(first.get("object").is_some());
        let event = &cborseq[..used];
        for at in 0..event.len() {
            for byte in [0x00, 0x18, 0x1f, 0x41, 0x5f, 0x61, 0x7f, 0x9f, 0xa2, 0xbf, 0xc2, 0xd6, 0xd9, 0xf7, 0xfb, 0xff]
            {
                let mut changed = event.to_vec();
                changed[at] = byte;
                check_against_full(Format::Cbor, &changed, at);
            }
        }
    }

    fn json_event(object: &str) -> Vec<u8> {
        format!("{{\"type\":\"MODIFIED\",\"object\":{object}}}\n").into_bytes()
    }

    #[test]
    fn a_malformed_json_object_is_reported_at_arrival_naming_the_event_and_the_byte() {
        let good = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a","resourceVersion":"1"}}"#);
        let bad =
            json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"},"spec":{"containers":[{"name":"c",}]}}"#);
        let stream = [good.clone(), bad].concat();
        let error = lazily(Format::Json, &stream).expect_err("malformed");
        let at = stream.windows(2).position(|w| w == b",}").expect("the stray comma") + 1;
        assert_eq!(
            error.to_string(),
            format!("event 2: invalid JSON: expected another member or element after ',', found '}}' at byte {at}")
        );
        assert_eq!(stream[at], b'}');
        assert_eq!(Err(error), fully(Format::Json, &stream));
        // Invalid UTF-8 in a string the fast pass would skip is refused at arrival too.
        let mut bytes = json_event(r#"{"kind":"Pod","metadata":{"name":"c"},"spec":{"note":"x"}}"#);
        let x = bytes.iter().rposition(|b| *b == b'x').expect("x");
        bytes[x] = 0xff;
        let error = lazily(Format::Json, &bytes).expect_err("not UTF-8");
        assert!(error.to_string().starts_with("event 1: invalid JSON: "), "{error}");
        assert_eq!(Err(error), fully(Format::Json, &bytes));
    }

    #[test]
    fn a_lone_surrogate_escape_in_a_skipped_json_string_is_reported_when_the_object_is_decoded() {
        let good = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a"}}"#);
        let odd = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"},"spec":{"note":"\ud800"}}"#);
        let stream = [good.clone(), odd.clone()].concat();
        let events = lazily(Format::Json, &stream).expect("the syntax is valid: both events arrive");
        let object = events[1].object().expect("an object");
        assert_eq!(object.head().uid.as_deref(), Some("u-b"));
        let error = object.value().expect_err("a lone surrogate is not text");
        let full = decode_json(&odd).expect_err("the full decoder refuses it");
        assert_eq!(error, full.clone().shifted(good.len()), "the offset is the stream's");
        assert!(error.to_string().starts_with("invalid JSON: expected "), "{error}");
    }

    /// A server-form CBOR event whose `spec` is `spec`.
    fn cbor_event(spec: Value, encoding: CborEncoding) -> Vec<u8> {
        let object = decode_json(br#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","uid":"u-p"}}"#);
        let Ok(Value::Object(mut object)) = object else { panic!("an object") };
        object.insert("spec", spec);
        encode_cbor_event("ADDED", &Value::Object(object), encoding)
    }

    #[test]
    fn a_cbor_object_breaking_the_kubernetes_rules_is_refused_at_arrival() {
        let spec = decode_json(br#"{"aa":1,"ab":"xyz"}"#).expect("json");
        let good = cbor_event(spec.clone(), CborEncoding::CLIENT);
        assert!(lazily(Format::Cbor, &good).is_ok_and(|events| events[0].object().is_some_and(|o| !o.is_decoded())));
        // A repeated key deep in the object.
        let mut repeated = good.clone();
        let key =
            repeated.windows(3).rposition(|w| w[1..] == *b"ab" && (w[0] == 0x62 || w[0] == 0x42)).expect("key ab");
        repeated[key + 2] = b'a';
        let error = lazily(Format::Cbor, &repeated).expect_err("a repeated key");
        assert_eq!(
            error.to_string(),
            format!("event 1: invalid CBOR: expected unique map keys, found key \"aa\" again at byte {key}")
        );
        assert_eq!(Err(error), fully(Format::Cbor, &repeated));
        // Invalid UTF-8 in a text string the fast pass skips.
        let mut text = good.clone();
        let at = text.windows(3).rposition(|w| w == b"xyz").expect("xyz");
        text[at - 1] = 0x63; // a text string of 3 bytes, whatever string type the encoding used
        text[at + 1] = 0xff;
        let error = lazily(Format::Cbor, &text).expect_err("not UTF-8");
        assert_eq!(
            error.to_string(),
            format!("event 1: invalid CBOR: expected valid UTF-8 in a text string, found an invalid byte sequence at byte {}", at + 1)
        );
        assert_eq!(Err(error), fully(Format::Cbor, &text));
        // What the rules allow deep in an object is read as the full decoder reads it.
        for spec in [Value::Bytes(vec![1, 2]), Value::Int(i64::MIN), Value::Float(0.5), Value::Null, Value::Bool(true)]
        {
            let bytes = cbor_event(spec, CborEncoding::SERVER);
            assert_eq!(lazily(Format::Cbor, &bytes), fully(Format::Cbor, &bytes));
        }
        // A bignum (tag 2) where an integer was.
        let mut bignum = cbor_event(Value::Int(7), CborEncoding::CLIENT);
        let seven = bignum.iter().rposition(|b| *b == 0x07).expect("7");
        bignum.splice(seven..=seven, [0xc2, 0x41, 0x07]);
        let error = lazily(Format::Cbor, &bignum).expect_err("a bignum");
        assert!(error.to_string().contains("expected an integer within int64, found a bignum"), "{error}");
        assert_eq!(Err(error), fully(Format::Cbor, &bignum));
    }
}
