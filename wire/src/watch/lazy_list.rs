//! List bodies read lazily: one pass over a JSON or CBOR `…List` finds each item's bytes and
//! reads its head (kind, apiVersion and the metadata a live view keys and sorts by), as the watch
//! fast pass does for an event; the items stay bytes of the one shared body until an object is
//! opened, diffed or searched ([`LazyObject::value`]). A 10,000-pod list is then ready without
//! 10,000 trees, and held in about its wire size.
//!
//! What is checked when: the same as for lazy watch events (see [`crate::watch::lazy`]). The
//! JSON body's UTF-8 and syntax are checked at once (serde_json walks every byte of it, and the
//! body is checked for UTF-8 as a whole); escapes inside skipped strings are checked for syntax
//! only, and a lone UTF-16 surrogate there is reported when the item is decoded. A CBOR body is
//! checked by every rule of the full decoder but one: in the members of an item the pass steps
//! over, a repeated map key is reported when the item is decoded. Anything the fast pass does not take (a repeated
//! top-level member, an item that is not an object or is a server-side Table, a list whose kind
//! does not end in `List`, trailing bytes) goes to the full decoder, whose result (or error)
//! is the answer: [`read_list`] gives what [`ObjectList::from_document`] gives for the decoded
//! body, with each item as [`LazyObject::from_value`] would hold it.

use std::sync::{Arc, OnceLock};

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

use serde_json::value::RawValue;

use crate::codec::cbor::{decode_cbor, Reader};
use crate::codec::json::decode_json;
use crate::codec::value::{DuplicateKeys, Map, Value, ValueSeed, MAX_DEPTH};
use crate::error::{DecodeError, Format};
use crate::view::list::{List, ListMeta, ObjectList};
use crate::view::shape::ViewError;
use crate::watch::fast::{scan_json_object, Scanned, Spot};
use crate::watch::lazy::{Body, LazyObject};

#[cfg(test)]
#[path = "lazy_list_tests.rs"]
mod tests;

/// A collection whose items are lazy objects.
pub type LazyList = List<LazyObject>;

/// A list body read lazily together with its own members: what a document view of the list
/// writes around its items.
#[derive(Debug, Clone)]
pub struct ListDocument {
    /// The list's members in the body's order, as the full decoder reads them, except `items`,
    /// which holds an empty array in its place (or `null` where the body has `null`).
    pub head: Map,
    pub list: LazyList,
}

/// Why a list body could not be read: the full decoder's error, or the list shape's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Shape(#[from] ViewError),
    #[error("the list is not an object")]
    NotAnObject,
}

/// Reads a JSON or CBOR list body (`format` says which; anything else is decoded as JSON): the
/// fast pass when it takes the body, else the full decoder. The error is the full decoder's (or
/// the list shape's).
pub fn read_list(format: Format, body: Arc<[u8]>) -> Result<LazyList, ListError> {
    read_list_document(format, body).map(|document| document.list)
}

/// [`read_list`] with the list's own members.
pub fn read_list_document(format: Format, body: Arc<[u8]>) -> Result<ListDocument, ListError> {
    if let Some(document) = scan_list_document(format, &body) {
        return Ok(document);
    }
    let document = match format {
        Format::Cbor => decode_cbor(&body),
        _ => decode_json(&body),
    }?;
    let list = ObjectList::from_document(&document).map(LazyList::from)?;
    let Value::Object(members) = document else { return Err(ListError::NotAnObject) };
    let head = members
        .entries()
        .iter()
        .map(|(key, value)| match (key.as_str(), value) {
            ("items", Value::Array(_)) => (key.clone(), Value::Array(Vec::new())),
            _ => (key.clone(), value.clone()),
        })
        .collect();
    Ok(ListDocument { head, list })
}

/// The fast pass alone: the list, or `None` when the body is for the full decoder to read (see
/// the module's doc for when).
pub fn scan_list(format: Format, body: &Arc<[u8]>) -> Option<LazyList> {
    scan_list_document(format, body).map(|document| document.list)
}

fn scan_list_document(format: Format, body: &Arc<[u8]>) -> Option<ListDocument> {
    let scanned = match format {
        Format::Cbor => scan_cbor_list(body),
        _ => scan_json_list(body),
    };
    scanned.map(|list| list.into_document(format, body))
}

impl From<ObjectList> for LazyList {
    /// A decoded list's items held as decoded lazy objects.
    fn from(list: ObjectList) -> LazyList {
        List {
            api_version: list.api_version,
            kind: list.kind,
            metadata: list.metadata,
            items: list.items.into_iter().map(LazyObject::from_value).collect(),
        }
    }
}

/// What the fast pass read of a list body: its members and each item's bytes and head.
#[derive(Default)]
struct ScannedList {
    api_version: Option<Value>,
    kind: Option<Value>,
    metadata: Option<Value>,
    items: Vec<(std::ops::Range<usize>, Scanned)>,
    /// Every member in order (`items` as an empty array, or `null`), for the list's document.
    head: Map,
    /// Each member once: a repeated one is the full decoder's to resolve.
    seen: [bool; 4],
}

impl ScannedList {
    /// Marks member `slot` read; `false` if it was read before.
    fn first(&mut self, slot: usize) -> bool {
        !std::mem::replace(&mut self.seen[slot], true)
    }

    /// The list as [`ObjectList::from_document`] reads the decoded body, or `None` where that
    /// would refuse it (the full decoder then says why).
    fn checked(self) -> Option<ScannedList> {
        let text = |v: &Option<Value>| match v {
            None => Some(String::new()),
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => None,
        };
        let kind = text(&self.kind)?;
        text(&self.api_version)?;
        if !kind.ends_with("List") {
            return None;
        }
        let document = Value::Object(
            [("metadata".to_string(), self.metadata.clone().unwrap_or(Value::Null))].into_iter().collect(),
        );
        ListMeta::from_document(&document).ok()?;
        let table = |s: &Scanned| {
            s.head.kind.as_deref() == Some("Table")
                && s.head.api_version.as_deref().is_some_and(|v| v.starts_with("meta.k8s.io/"))
        };
        if self.items.iter().any(|(_, s)| !s.object || table(s)) {
            return None;
        }
        Some(self)
    }

    /// Keeps `value` as member `key` of the list's head (a repeated key keeps its first place
    /// and its last value, as the full decoder does).
    fn keep(&mut self, key: &str, value: Value) {
        self.head.insert(key, value);
    }

    fn into_document(mut self, format: Format, body: &Arc<[u8]>) -> ListDocument {
        let head = std::mem::take(&mut self.head);
        ListDocument { head, list: self.into_list(format, body) }
    }

    fn into_list(self, format: Format, body: &Arc<[u8]>) -> LazyList {
        let text = |v: Option<Value>| match v {
            Some(Value::String(s)) => s,
            _ => String::new(),
        };
        let document =
            Value::Object([("metadata".to_string(), self.metadata.unwrap_or(Value::Null))].into_iter().collect());
        let items = self
            .items
            .into_iter()
            .map(|(range, scanned)| LazyObject {
                head: scanned.head,
                table: None,
                body: Body::Slice { format, body: body.clone(), range, decoded: OnceLock::new() },
            })
            .collect();
        List {
            api_version: text(self.api_version),
            kind: text(self.kind),
            metadata: ListMeta::from_document(&document).unwrap_or_default(),
            items,
        }
    }
}

/// Which member of a list a key is: its slot in [`ScannedList::seen`].
fn member(key: &[u8]) -> Option<usize> {
    match key {
        b"apiVersion" => Some(0),
        b"kind" => Some(1),
        b"metadata" => Some(2),
        b"items" => Some(3),
        _ => None,
    }
}

/// The fast pass over a JSON list body; `None` when the full decoder must decide.
fn scan_json_list(body: &[u8]) -> Option<ScannedList> {
    // serde_json does not check the UTF-8 of the strings it skips.
    std::str::from_utf8(body).ok()?;
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let raw = TopSeed.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    let base = body.as_ptr() as usize;
    let mut scanned = raw.list;
    for item in raw.items.unwrap_or_default() {
        let text = item.get().as_bytes();
        let start = text.as_ptr() as usize - base;
        let head = scan_json_object(text)?;
        scanned.items.push((start..start + text.len(), head));
    }
    scanned.checked()
}

/// The top level of a JSON list: its members, the items as borrowed raw text.
struct RawTop<'a> {
    list: ScannedList,
    items: Option<Vec<&'a RawValue>>,
}

struct TopSeed;

impl<'de> DeserializeSeed<'de> for TopSeed {
    type Value = RawTop<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<RawTop<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopSeed {
    type Value = RawTop<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTop<'de>, A::Error> {
        let mut top = RawTop { list: ScannedList::default(), items: None };
        let small = || ValueSeed { duplicates: DuplicateKeys::LastWins, depth: 1 };
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let Some(slot) = member(key.as_bytes()) else {
                let value = map.next_value_seed(small())?;
                top.list.keep(&key, value);
                continue;
            };
            if !top.list.first(slot) {
                return Err(de::Error::custom("a repeated list member"));
            }
            let value = match slot {
                0 => top.list.api_version.insert(map.next_value_seed(small())?).clone(),
                1 => top.list.kind.insert(map.next_value_seed(small())?).clone(),
                2 => top.list.metadata.insert(map.next_value_seed(small())?).clone(),
                _ => {
                    top.items = map.next_value::<Option<Vec<&'de RawValue>>>()?;
                    if top.items.is_some() {
                        Value::Array(Vec::new())
                    } else {
                        Value::Null
                    }
                }
            };
            top.list.keep(&key, value);
        }
        Ok(top)
    }
}

/// The fast pass over a CBOR list body; `None` when the full decoder must decide.
fn scan_cbor_list(body: &[u8]) -> Option<ScannedList> {
    let mut reader = Reader::new(body);
    let (at, header) = reader.pull().ok()?;
    let (_, header) = reader.untag(at, header).ok()?;
    let ciborium_ll::Header::Map(len) = header else { return None };
    let mut list = ScannedList::default();
    let mut refused = false;
    let walked = reader.walk_map(len, 0, &mut |reader, key, depth| {
        let Ok(name) = std::str::from_utf8(key) else {
            // A key the list's document could not name: the full decoder says what it makes of it.
            refused = true;
            return reader.skip_deferring_keys(depth);
        };
        let Some(slot) = member(key) else {
            let value = reader.item(depth)?;
            list.keep(name, value);
            return Ok(());
        };
        if !list.first(slot) {
            // The full decoder refuses a repeated key in CBOR: let it say so.
            refused = true;
            return reader.skip_item(depth);
        }
        let value = match slot {
            0 => list.api_version.insert(reader.item(depth)?).clone(),
            1 => list.kind.insert(reader.item(depth)?).clone(),
            2 => list.metadata.insert(reader.item(depth)?).clone(),
            _ => {
                let (at, header) = reader.pull()?;
                let (at_untagged, header) = reader.untag(at, header)?;
                match header {
                    ciborium_ll::Header::Array(len) if depth < MAX_DEPTH => {
                        let mut count = 0;
                        while len != Some(count) {
                            let (start, header) = reader.pull()?;
                            if header == ciborium_ll::Header::Break && len.is_none() {
                                break;
                            }
                            let mut scanned = Scanned::default();
                            reader.scan_at(Spot::Object { row: false }, depth + 1, &mut scanned, start, header)?;
                            list.items.push((start..reader.pos, scanned));
                            count += 1;
                        }
                        Value::Array(Vec::new())
                    }
                    ciborium_ll::Header::Simple(ciborium_ll::simple::NULL) => Value::Null,
                    other => {
                        refused = true;
                        reader.skip(at_untagged, other, depth)?;
                        Value::Null
                    }
                }
            }
        };
        list.keep(name, value);
        Ok(())
    });
    if walked.is_err() || refused || reader.pos != body.len() {
        return None;
    }
    list.checked()
}
