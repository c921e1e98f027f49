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
use crate::api::watch::{is_table, watched_object};

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

/// Where a fast pass stands in an event: what the members there are to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spot {
    /// `{"type": …, "object": …}`.
    Event,
    /// The event's object (`row: false`) or the object of a Table's first row.
    Object {
        row: bool,
    },
    Metadata {
        row: bool,
    },
    /// A Table's `rows`: an array whose first element is read.
    Rows,
    Row,
}

/// What a fast pass does with one member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member {
    /// A string to keep (any other value is checked, skipped and kept as absent).
    Text(Field),
    /// A whole (small) value to keep: `columnDefinitions`, a row's `cells`.
    Value(Field),
    /// Look inside.
    Enter(Spot),
    Skip,
}

/// Which field of [`Scanned`] a kept member fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Type,
    Kind { row: bool },
    ApiVersion { row: bool },
    Name { row: bool },
    Namespace { row: bool },
    Uid { row: bool },
    ResourceVersion { row: bool },
    Created { row: bool },
    Columns,
    Cells,
}

impl Spot {
    /// What to do with member `key` here.
    pub(crate) fn member(self, key: &[u8]) -> Member {
        match (self, key) {
            (Spot::Event, b"type") => Member::Text(Field::Type),
            (Spot::Event, b"object") => Member::Enter(Spot::Object { row: false }),
            (Spot::Object { row }, b"kind") => Member::Text(Field::Kind { row }),
            (Spot::Object { row }, b"apiVersion") => Member::Text(Field::ApiVersion { row }),
            (Spot::Object { row }, b"metadata") => Member::Enter(Spot::Metadata { row }),
            (Spot::Object { row: false }, b"columnDefinitions") => Member::Value(Field::Columns),
            (Spot::Object { row: false }, b"rows") => Member::Enter(Spot::Rows),
            (Spot::Metadata { row }, b"name") => Member::Text(Field::Name { row }),
            (Spot::Metadata { row }, b"namespace") => Member::Text(Field::Namespace { row }),
            (Spot::Metadata { row }, b"uid") => Member::Text(Field::Uid { row }),
            (Spot::Metadata { row }, b"resourceVersion") => Member::Text(Field::ResourceVersion { row }),
            (Spot::Metadata { row }, b"creationTimestamp") => Member::Text(Field::Created { row }),
            (Spot::Row, b"cells") => Member::Value(Field::Cells),
            (Spot::Row, b"object") => Member::Enter(Spot::Object { row: true }),
            _ => Member::Skip,
        }
    }
}

/// What a fast pass collected of an event, before it becomes a [`LazyObject`].
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub(crate) event_type: Option<FastType>,
    /// The event's `object` is an object.
    pub(crate) object: bool,
    pub(crate) head: ObjectHead,
    pub(crate) columns: Option<Value>,
    /// `rows` was an array of this many.
    pub(crate) rows: Option<usize>,
    /// The first row's cells (when an array) and object head (when an object).
    pub(crate) first_cells: Option<Vec<Value>>,
    pub(crate) first_object: Option<ObjectHead>,
}

impl Scanned {
    fn head_mut(&mut self, row: bool) -> &mut ObjectHead {
        if row {
            self.first_object.get_or_insert_with(ObjectHead::default)
        } else {
            &mut self.head
        }
    }

    /// Starts reading `spot` again (a repeated member replaces the earlier one): what it holds
    /// is forgotten; `container` says whether it is the map (or for `rows`, the array) it
    /// should be, else it stays absent.
    pub(crate) fn enter(&mut self, spot: Spot, container: bool) {
        match spot {
            Spot::Event => {}
            Spot::Object { row: false } => {
                *self = Scanned { event_type: self.event_type, object: container, ..Scanned::default() };
            }
            Spot::Object { row: true } => {
                self.first_object = container.then(ObjectHead::default);
            }
            Spot::Metadata { row } => {
                let head = self.head_mut(row);
                let (kind, api_version) = (head.kind.take(), head.api_version.take());
                *head = ObjectHead { kind, api_version, ..ObjectHead::default() };
            }
            Spot::Rows => {
                self.rows = container.then_some(0);
                self.first_cells = None;
                self.first_object = None;
            }
            Spot::Row => {
                self.first_cells = None;
                self.first_object = None;
            }
        }
    }

    /// A kept string member (`None`: another value stood there).
    pub(crate) fn text(&mut self, field: Field, text: Option<&str>) {
        let owned = || text.map(str::to_owned);
        match field {
            Field::Type => self.event_type = text.and_then(FastType::of),
            Field::Kind { row } => self.head_mut(row).kind = owned(),
            Field::ApiVersion { row } => self.head_mut(row).api_version = owned(),
            Field::Name { row } => self.head_mut(row).name = owned(),
            Field::Namespace { row } => self.head_mut(row).namespace = owned(),
            Field::Uid { row } => self.head_mut(row).uid = owned(),
            Field::ResourceVersion { row } => self.head_mut(row).resource_version = owned(),
            Field::Created { row } => self.head_mut(row).creation_timestamp = owned(),
            Field::Columns | Field::Cells => {}
        }
    }

    /// A kept value member.
    pub(crate) fn value(&mut self, field: Field, value: Value) {
        match (field, value) {
            (Field::Columns, columns @ Value::Array(_)) => self.columns = Some(columns),
            (Field::Columns, _) => self.columns = None,
            (Field::Cells, Value::Array(cells)) => self.first_cells = Some(cells),
            (Field::Cells, _) => self.first_cells = None,
            _ => {}
        }
    }

    /// The event read, with the lazy object for its bytes.
    pub(crate) fn into_event(self, format: Format, event: &[u8], offset: usize) -> Option<FastEvent> {
        let event_type = self.event_type?;
        if !self.object {
            return None;
        }
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
        Some(FastEvent { event_type, object: LazyObject { head, table, body } })
    }
}

impl FastEvent {
    pub(crate) fn into_watch_event(self) -> crate::api::watch::WatchEvent {
        use crate::api::watch::WatchEvent;
        match self.event_type {
            FastType::Added => WatchEvent::Added(self.object),
            FastType::Modified => WatchEvent::Modified(self.object),
            FastType::Deleted => WatchEvent::Deleted(self.object),
        }
    }
}

/// The fast pass over the JSON event that `bytes` start with (more bytes may follow it, or the
/// event may not be complete yet): `None` when it is not whole and well-formed UTF-8 JSON there
/// (the framer then finds its end and the full decoder reads it); else how many bytes the event
/// took, with the event when it is an ADDED, MODIFIED or DELETED event with an object the fast
/// pass takes (`None`: the full decoder reads those bytes).
pub(crate) fn scan_json_prefix(bytes: &[u8], offset: usize) -> Option<(usize, Option<FastEvent>)> {
    // A stream deserializer, as it says where the value it read ends.
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<ScannedEvent>();
    let ScannedEvent(scanned) = values.next()?.ok()?;
    let len = values.byte_offset();
    let event = bytes.get(..len)?;
    // serde_json does not check the UTF-8 of the strings it skips.
    std::str::from_utf8(event).ok()?;
    Some((len, scanned.into_event(Format::Json, event, offset)))
}

/// The fast pass over one whole JSON event (the framer found its end): `None` when it is not an
/// ADDED, MODIFIED or DELETED event with an object, or anything in it is refused: then the full
/// decoder decides. The same pass as [`scan_json_prefix`], which must take all of `event`.
pub(crate) fn scan_json_event(event: &[u8], offset: usize) -> Option<FastEvent> {
    scan_json_prefix(event, offset).filter(|(len, _)| *len == event.len()).and_then(|(_, fast)| fast)
}

/// What the fast pass read of a whole JSON event.
struct ScannedEvent(Scanned);

impl<'de> serde::Deserialize<'de> for ScannedEvent {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<ScannedEvent, D::Error> {
        let mut scanned = Scanned::default();
        SpotSeed { spot: Spot::Event, scanned: &mut scanned }.deserialize(deserializer)?;
        Ok(ScannedEvent(scanned))
    }
}

/// A member the fast pass looks inside, read into `scanned` by what [`Spot::member`] says.
struct SpotSeed<'s> {
    spot: Spot,
    scanned: &'s mut Scanned,
}

impl<'de> DeserializeSeed<'de> for SpotSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl SpotSeed<'_> {
    /// Not the container expected here: absent.
    fn other<E>(self) -> Result<(), E> {
        self.scanned.enter(self.spot, false);
        Ok(())
    }
}

impl<'de> Visitor<'de> for SpotSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.other()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.other()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.other()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.other()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.other()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.other()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.spot != Spot::Rows {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return self.other();
        }
        self.scanned.enter(Spot::Rows, true);
        let mut rows = 0;
        if seq.next_element_seed(SpotSeed { spot: Spot::Row, scanned: self.scanned })?.is_some() {
            rows += 1;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                rows += 1;
            }
        }
        self.scanned.rows = Some(rows);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.spot == Spot::Rows {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return self.other();
        }
        self.scanned.enter(self.spot, true);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match self.spot.member(key.as_bytes()) {
                // Kept members are read as the full decoder reads them, at about its depth
                // (cells 4 deep, columns 2): only its 128-level bound depends on that, and
                // serde_json's own bound, one level lower, holds the whole fast pass anyway.
                Member::Text(field) => {
                    let value = map.next_value_seed(ValueSeed { duplicates: DuplicateKeys::LastWins, depth: 3 })?;
                    self.scanned.text(field, value.as_str());
                }
                Member::Value(field) => {
                    let depth = if field == Field::Cells { 4 } else { 2 };
                    let value = map.next_value_seed(ValueSeed { duplicates: DuplicateKeys::LastWins, depth })?;
                    self.scanned.value(field, value);
                }
                Member::Enter(spot) => map.next_value_seed(SpotSeed { spot, scanned: self.scanned })?,
                Member::Skip => {
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

    /// The events of `bytes` fed to a decoder in chunks of `sizes` (cycled), each as its debug
    /// text (heads, Table parts, wire lengths: nothing decoded), or the error that ended them.
    fn chunked(format: Format, bytes: &[u8], sizes: &[usize]) -> Result<Vec<String>, StreamError> {
        let content_type = if format == Format::Cbor { MediaType::cbor_seq() } else { MediaType::json() };
        let mut decoder = WatchDecoder::new(&content_type).expect("decoder");
        let mut events = Vec::new();
        let mut at = 0;
        for size in sizes.iter().cycle() {
            if at >= bytes.len() {
                break;
            }
            let end = (at + size).min(bytes.len());
            events.extend(decoder.push(&bytes[at..end])?.iter().map(|e| format!("{e:?}")));
            at = end;
        }
        decoder.finish()?;
        Ok(events)
    }

    #[test]
    fn a_stream_reads_to_the_same_events_however_it_is_cut_into_chunks() {
        // The fast pass reads whole events from their first byte; an event cut by a chunk's end
        // is left to the framer, which finds its end in later chunks: nothing lost or repeated.
        for (format, name, bytes) in streams() {
            let whole = chunked(format, &bytes, &[bytes.len()]).unwrap_or_else(|e| panic!("{name}: {e}"));
            for sizes in [&[1][..], &[2], &[3], &[7], &[64], &[333], &[4096], &[1, 500, 13, 2048]] {
                assert_eq!(chunked(format, &bytes, sizes).as_ref(), Ok(&whole), "{name} in chunks of {sizes:?}");
            }
            if bytes.len() <= 16 * 1024 {
                for cut in 1..bytes.len() {
                    let two = chunked(format, &bytes, &[cut, bytes.len()]);
                    assert_eq!(two.as_ref(), Ok(&whole), "{name} cut at {cut}");
                }
            }
        }
        // A malformed event gets the same error (event number and stream offset) at any cut.
        let good = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a","resourceVersion":"1"}}"#);
        let bad = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"},"spec":{"c":[{"name":"c",}]}}"#);
        let stream = [good.clone(), good, bad].concat();
        let error = chunked(Format::Json, &stream, &[stream.len()]).expect_err("malformed");
        for size in 1..stream.len() {
            assert_eq!(chunked(Format::Json, &stream, &[size]).as_ref(), Err(&error), "chunks of {size}");
        }
        let mut repeated = cbor_event(Value::Int(1), CborEncoding::SERVER);
        // `spec` renamed `kind`: the object has that key twice.
        let spec = repeated.windows(4).position(|w| w == b"spec").expect("key spec");
        repeated[spec..spec + 4].copy_from_slice(b"kind");
        let stream = [cbor_event(Value::Int(2), CborEncoding::SERVER), repeated].concat();
        let error = chunked(Format::Cbor, &stream, &[stream.len()]).expect_err("a repeated key");
        assert!(error.to_string().starts_with("event 2: "), "{error}");
        for size in 1..stream.len() {
            assert_eq!(chunked(Format::Cbor, &stream, &[size]).as_ref(), Err(&error), "chunks of {size}");
        }
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
    fn the_json_fast_pass_reads_an_event_from_its_first_byte_and_says_where_it_ends() {
        let first = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a","resourceVersion":"7"}}"#);
        let second = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"}}"#);
        let stream = [first.clone(), second].concat();
        // The event, and its length up to its closing brace (not the newline or what follows).
        let (len, event) = scan_json_prefix(&stream, 100).expect("a whole event");
        assert_eq!(len, first.len() - 1);
        let event = event.expect("a MODIFIED event with an object");
        assert_eq!(event.event_type, FastType::Modified);
        assert_eq!(event.object.head().resource_version.as_deref(), Some("7"));
        assert_eq!(event.object.wire_len(), len);
        // An event the chunk cuts short is left to the framer, at every cut.
        for cut in 1..first.len() - 1 {
            assert!(scan_json_prefix(&first[..cut], 0).is_none(), "cut at {cut}");
        }
        // A whole event the fast pass does not take (a BOOKMARK) still has its end found.
        let bookmark = br#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}{"#;
        assert_eq!(scan_json_prefix(bookmark, 0).map(|(len, e)| (len, e.is_none())), Some((bookmark.len() - 1, true)));
        // Malformed JSON, or invalid UTF-8 in a string the pass skips, is left to the framer and
        // the full decoder (whose errors are the ones reported).
        assert!(scan_json_prefix(br#"{"type":"ADDED","object":{"a":1,}}"#, 0).is_none());
        let mut bytes = json_event(r#"{"kind":"Pod","metadata":{"name":"c"},"spec":{"note":"x"}}"#);
        let x = bytes.iter().rposition(|b| *b == b'x').expect("x");
        bytes[x] = 0xff;
        assert!(scan_json_prefix(&bytes, 0).is_none());
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

    #[test]
    fn the_cbor_fast_pass_reads_an_event_from_its_first_byte_and_says_where_it_ends() {
        let event = cbor_event(Value::Int(1), CborEncoding::SERVER);
        let stream = [event.clone(), event.clone()].concat();
        let (len, fast) = crate::api::cbor::scan_cbor_prefix(&stream, 40).expect("a whole event");
        assert_eq!(len, event.len());
        let fast = fast.expect("an ADDED event with an object");
        assert_eq!(fast.event_type, FastType::Added);
        assert_eq!(fast.object.head().uid.as_deref(), Some("u-p"));
        assert_eq!(fast.object.wire_len(), event.len());
        for cut in 0..event.len() {
            assert!(crate::api::cbor::scan_cbor_prefix(&event[..cut], 0).is_none(), "cut at {cut}");
        }
        // A whole event the fast pass does not take still has its end found.
        let object = decode_json(br#"{"kind":"Pod","metadata":{"resourceVersion":"9"}}"#).expect("json");
        let bookmark = encode_cbor_event("BOOKMARK", &object, CborEncoding::SERVER);
        let read = crate::api::cbor::scan_cbor_prefix(&[bookmark.clone(), event].concat(), 0);
        assert_eq!(read.map(|(len, fast)| (len, fast.is_none())), Some((bookmark.len(), true)));
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
