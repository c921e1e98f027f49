//! Who changed which field ("Server-Side Apply", field management): each field path of an object
//! with the manager that owns it, from `metadata.managedFields`, and, between two versions of the
//! object seen on a watch, which managers' entries moved and which fields they gained or lost.
//!
//! A `fieldsV1` document is a tree (the structured-merge-diff "FieldsV1" format): a key `f:NAME`
//! is the field NAME of a map or struct, `k:{…}` the list item whose key fields have those
//! values, `v:VALUE` the set item equal to VALUE, `i:N` the list item at index N, and `.` the
//! node itself (a field owned as a whole while its children are listed too). A leaf `{}` is an
//! owned field. Paths are written as `kubectl-blame` and the concepts page write them:
//! `.spec.containers[name="web"].image`, `.metadata.finalizers[="example.com/x"]`, `.items[2]`.

use std::collections::{BTreeMap, BTreeSet};

use crate::i18n::{Localized, Msg, Text};
use kube_wire::codec::value::Value;

/// One manager's entry of `managedFields`, with the field paths it owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagerEntry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    /// `status`, `scale`…, empty for the main resource.
    pub subresource: String,
    pub api_version: String,
    /// When the entry last moved (RFC 3339), empty when not given.
    pub time: String,
    /// The owned paths, sorted, each with its JSON pointer in the object (`None` where the
    /// object does not hold it).
    pub fields: BTreeMap<String, Option<String>>,
}

/// A field path and the entry that owns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedField {
    pub path: String,
    pub manager: String,
    pub operation: String,
    pub subresource: String,
    pub time: String,
}

/// Why `managedFields` could not be read, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldsError {
    /// `metadata.managedFields` (or an entry, or a `fieldsV1` node) is not what the format says.
    NotAnObject { at: String },
    /// A `fieldsV1` key that is none of `f:`, `k:`, `v:`, `i:` or `.`.
    UnknownKey { at: String, key: String },
    /// A `k:` or `v:` key whose rest is not JSON, or an `i:` key that is not a number.
    BadKey { at: String, key: String },
}

impl Localized for FieldsError {
    fn text(&self) -> Text {
        match self {
            FieldsError::NotAnObject { at } => Text::new(Msg::FieldsNotAnObject).with("at", at),
            FieldsError::UnknownKey { at, key } => Text::new(Msg::FieldsUnknownKey).with("at", at).with("key", key),
            FieldsError::BadKey { at, key } => Text::new(Msg::FieldsBadKey).with("at", at).with("key", key),
        }
    }
}

/// One step down a `fieldsV1` tree: how it is written, and the JSON pointer token of the same
/// place in the object (`None` where the object does not hold it).
struct Step {
    display: String,
    token: Option<String>,
}

/// Whether `item` has every key field of `keys` with its value.
fn has_keys(item: &Value, keys: &serde_json::Map<String, serde_json::Value>) -> bool {
    keys.iter().all(|(k, v)| item.get(k).is_some_and(|x| x.to_serde_json() == *v))
}

/// The step of one `fieldsV1` key below `here` (the object's value at that place), `None` for
/// `.`, or why the key is not one.
fn step(key: &str, at: &str, here: Option<&Value>) -> Result<Option<Step>, FieldsError> {
    let bad = || FieldsError::BadKey { at: at.to_owned(), key: key.to_owned() };
    let json = |rest: &str| serde_json::from_str::<serde_json::Value>(rest).map_err(|_| bad());
    let items = here.and_then(Value::as_array).unwrap_or_default();
    let index_where = |found: Option<usize>| found.map(|i| i.to_string());
    if key == "." {
        return Ok(None);
    }
    let (display, token) = if let Some(name) = key.strip_prefix("f:") {
        (format!(".{name}"), here.and_then(|h| h.get(name)).map(|_| name.replace('~', "~0").replace('/', "~1")))
    } else if let Some(rest) = key.strip_prefix("k:") {
        let serde_json::Value::Object(fields) = json(rest)? else { return Err(bad()) };
        let shown: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        (format!("[{}]", shown.join(",")), index_where(items.iter().position(|item| has_keys(item, &fields))))
    } else if let Some(rest) = key.strip_prefix("v:") {
        let wanted = json(rest)?;
        (format!("[={wanted}]"), index_where(items.iter().position(|item| item.to_serde_json() == wanted)))
    } else if let Some(rest) = key.strip_prefix("i:") {
        let i = rest.parse::<usize>().map_err(|_| bad())?;
        (format!("[{i}]"), (i < items.len()).then(|| i.to_string()))
    } else {
        return Err(FieldsError::UnknownKey { at: at.to_owned(), key: key.to_owned() });
    };
    Ok(Some(Step { display, token }))
}

/// Where a walk is: the path as written, and the same place in the object.
#[derive(Clone)]
struct Place<'a> {
    display: String,
    pointer: Option<String>,
    value: Option<&'a Value>,
}

/// Every path a `fieldsV1` tree owns (its leaves, and the nodes it marks with `.`), with its
/// JSON pointer in `document` where the document holds it, into `out`.
pub fn walk(node: &Value, document: &Value, out: &mut BTreeMap<String, Option<String>>) -> Result<(), FieldsError> {
    walk_at(node, Place { display: String::new(), pointer: Some(String::new()), value: Some(document) }, out)
}

fn walk_at(node: &Value, place: Place<'_>, out: &mut BTreeMap<String, Option<String>>) -> Result<(), FieldsError> {
    let shown = if place.display.is_empty() { ".".to_owned() } else { place.display.clone() };
    let Some(map) = node.as_object() else { return Err(FieldsError::NotAnObject { at: shown }) };
    if (map.is_empty() && !place.display.is_empty()) || map.get(".").is_some() {
        out.insert(shown.clone(), place.pointer.clone());
    }
    for (key, child) in map.iter() {
        let Some(step) = step(key, &shown, place.value)? else { continue };
        let pointer = match (&place.pointer, &step.token) {
            (Some(p), Some(t)) => Some(format!("{p}/{t}")),
            _ => None,
        };
        let value = pointer.as_ref().and_then(|_| {
            let token = step.token.as_deref().unwrap_or_default();
            match place.value? {
                v if v.as_array().is_some() => v.as_array()?.get(token.parse::<usize>().ok()?),
                v => v.get(&token.replace("~1", "/").replace("~0", "~")),
            }
        });
        walk_at(child, Place { display: format!("{}{}", place.display, step.display), pointer, value }, out)?;
    }
    Ok(())
}

/// The entry owning the place `pointer` (RFC 6901) of the object: the one whose owned path is
/// that place or the nearest above it.
pub fn owner_of<'a>(entries: &'a [ManagerEntry], pointer: &str) -> Option<&'a ManagerEntry> {
    entries
        .iter()
        .filter_map(|e| {
            let depth = e
                .fields
                .values()
                .flatten()
                .filter(|p| pointer == p.as_str() || pointer.starts_with(&format!("{p}/")))
                .map(String::len)
                .max()?;
            Some((depth, e))
        })
        .max_by_key(|(depth, _)| *depth)
        .map(|(_, e)| e)
}

/// The entries of `document`'s `managedFields`, in its order; none without the field.
pub fn entries(document: &Value) -> Result<Vec<ManagerEntry>, FieldsError> {
    let Some(list) = document.at(&["metadata", "managedFields"]) else { return Ok(Vec::new()) };
    let Some(list) = list.as_array() else {
        return Err(FieldsError::NotAnObject { at: "metadata.managedFields".into() });
    };
    list.iter()
        .enumerate()
        .map(|(i, entry)| {
            let at = format!("metadata.managedFields[{i}]");
            if entry.as_object().is_none() {
                return Err(FieldsError::NotAnObject { at });
            }
            let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let mut fields = BTreeMap::new();
            if let Some(tree) = entry.get("fieldsV1") {
                walk(tree, document, &mut fields).map_err(|e| within(e, &at))?;
            }
            Ok(ManagerEntry {
                manager: text("manager"),
                operation: text("operation"),
                subresource: text("subresource"),
                api_version: text("apiVersion"),
                time: text("time"),
                fields,
            })
        })
        .collect()
}

/// `error` with the entry it was found in before its path.
fn within(error: FieldsError, entry: &str) -> FieldsError {
    let at = |path: String| format!("{entry}.fieldsV1 {path}");
    match error {
        FieldsError::NotAnObject { at: path } => FieldsError::NotAnObject { at: at(path) },
        FieldsError::UnknownKey { at: path, key } => FieldsError::UnknownKey { at: at(path), key },
        FieldsError::BadKey { at: path, key } => FieldsError::BadKey { at: at(path), key },
    }
}

/// Each owned path with its owner, sorted by path (a path two managers share, such as one
/// applied by two appliers, is listed once per manager).
pub fn owned_fields(entries: &[ManagerEntry]) -> Vec<OwnedField> {
    let mut out: Vec<OwnedField> = entries
        .iter()
        .flat_map(|e| {
            e.fields.keys().map(move |path| OwnedField {
                path: path.clone(),
                manager: e.manager.clone(),
                operation: e.operation.clone(),
                subresource: e.subresource.clone(),
                time: e.time.clone(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.manager.cmp(&b.manager)));
    out
}

/// What one manager's entry did between two versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagerMove {
    pub manager: String,
    pub operation: String,
    pub subresource: String,
    pub time: String,
    /// Paths it owns now and did not before.
    pub gained: Vec<String>,
    /// Paths it owned before and does not now.
    pub lost: Vec<String>,
}

/// The entries that moved from `before` to `after` (new, gone, another time or other fields),
/// keyed as the API server keys them: manager, operation and subresource.
pub fn moves(before: &[ManagerEntry], after: &[ManagerEntry]) -> Vec<ManagerMove> {
    type Key = (String, String, String);
    let key = |e: &ManagerEntry| (e.manager.clone(), e.operation.clone(), e.subresource.clone());
    let old: BTreeMap<Key, &ManagerEntry> = before.iter().map(|e| (key(e), e)).collect();
    let new: BTreeMap<Key, &ManagerEntry> = after.iter().map(|e| (key(e), e)).collect();
    let keys: BTreeSet<&Key> = old.keys().chain(new.keys()).collect();
    let empty = BTreeMap::new();
    keys.into_iter()
        .filter_map(|k| {
            let (was, now) = (old.get(k), new.get(k));
            if was.map(|e| (&e.time, e.fields.keys().collect::<Vec<_>>()))
                == now.map(|e| (&e.time, e.fields.keys().collect::<Vec<_>>()))
            {
                return None;
            }
            let (was_fields, now_fields) = (was.map_or(&empty, |e| &e.fields), now.map_or(&empty, |e| &e.fields));
            Some(ManagerMove {
                manager: k.0.clone(),
                operation: k.1.clone(),
                subresource: k.2.clone(),
                time: now.or(was).map(|e| e.time.clone()).unwrap_or_default(),
                gained: now_fields.keys().filter(|p| !was_fields.contains_key(*p)).cloned().collect(),
                lost: was_fields.keys().filter(|p| !now_fields.contains_key(*p)).cloned().collect(),
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "field_owners_tests.rs"]
mod tests;
