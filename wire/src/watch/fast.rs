//! The fast pass over a watch event: read from the event's first byte, it checks the whole event
//! by the rules of the full decoder without building the object, keeps what a live view needs
//! (see [`crate::watch::lazy`]) and finds the event's end; the JSON pass is here, the CBOR
//! one in [`crate::watch::fast_cbor`].

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::codec::value::{DuplicateKeys, Value, ValueSeed};
use crate::error::Format;
use crate::watch::event::WatchEvent;
use crate::watch::lazy::{Body, LazyObject, ObjectHead, TableHead};

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
    pub(crate) fn into_watch_event(self) -> WatchEvent {
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

/// The fast pass over one JSON object (a list item, whose text the caller has checked for UTF-8
/// and syntax): its head, or `None` when it is not an object or the pass refuses it.
pub(crate) fn scan_json_object(text: &[u8]) -> Option<Scanned> {
    let mut scanned = Scanned::default();
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    SpotSeed { spot: Spot::Object { row: false }, scanned: &mut scanned }.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    scanned.object.then_some(scanned)
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
