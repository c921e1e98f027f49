//! Who changed which field, over the versions of one object the app has seen on its watch: for
//! each new version, the managers whose `managedFields` entry moved and the fields that changed
//! (with the value before and after and the manager that owns each now), and one field's history
//! across the versions. Pure: a sequence of versions in, changes out.
//!
//! The versions are what [`crate::history::ObjectHistory`] keeps (bounded, oldest first). Two
//! versions in a row with the same `resourceVersion` (the object read, then listed by its watch)
//! are one. The structural diff is [`kube_wire::write::diff::diff_objects`] without the server's
//! bookkeeping (`managedFields`, `resourceVersion`, `generation`); a changed field is named as
//! its owner's entry names it (`.data.colour`, `.spec.ports[name="http"].port`) where an entry
//! owns exactly that place, else by its JSON pointer read as a path.

use kube_wire::codec::value::Value;
use kube_wire::discovery::ResourceType;
use kube_wire::reflector::{Change, ReflectorConfig};
use kube_wire::request::{Collection, RequestError};
use kube_wire::write::diff::{diff_objects, display_pointer, pointer_segments, ChangeKind, DiffOptions};

use crate::field_owners::{entries, moves, owner_of, FieldsError, ManagerEntry, ManagerMove, OwnedField};
use crate::i18n::{Localized, Msg, Text};

/// Why one object cannot be watched for its field owners' changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnersError {
    /// Discovery does not list `list` and `watch` for the object's resource.
    NotWatchable {
        plural: String,
    },
    Request(RequestError),
}

impl Localized for OwnersError {
    fn text(&self) -> Text {
        match self {
            OwnersError::NotWatchable { plural } => Text::new(Msg::OwnersNotWatchable).with("plural", plural),
            OwnersError::Request(error) => error.text(),
        }
    }
}

/// The watch of the one object `name` of `resource` in `namespace`: its collection selected by
/// `metadata.name` (every API server indexes it), as `kubectl get --watch NAME` asks.
pub fn watch_plan(
    resource: &ResourceType,
    namespace: Option<&str>,
    name: &str,
) -> Result<ReflectorConfig, OwnersError> {
    if !(resource.supports("list") && resource.supports("watch")) {
        return Err(OwnersError::NotWatchable { plural: resource.plural.clone() });
    }
    let collection = Collection::new(resource, namespace).map_err(OwnersError::Request)?;
    let mut config = ReflectorConfig::new(collection);
    config.field_selector = Some(format!("metadata.name={name}"));
    Ok(config)
}

/// One field that changed between two versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedField {
    /// As its owner's entry names it, or its JSON pointer read as a path.
    pub path: String,
    pub kind: ChangeKind,
    /// The value before and after, as compact JSON (`None` where it was or is absent).
    pub before: Option<String>,
    pub after: Option<String>,
    /// The manager owning the field after the change (before it, for a removed field); `None`
    /// when no entry owns it.
    pub manager: Option<String>,
}

/// What one version changed against the version seen before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionChange {
    /// The new version's `resourceVersion`.
    pub resource_version: String,
    /// The managers whose entry moved (new, gone, another time or other fields).
    pub moved: Vec<ManagerMove>,
    /// The fields that changed, depth first.
    pub fields: Vec<ChangedField>,
}

/// A version with its entries read.
struct Read<'a> {
    resource_version: &'a str,
    document: &'a Value,
    entries: Vec<ManagerEntry>,
}

/// The versions with their entries, one per `resourceVersion` in a row.
fn read<'a>(versions: &[&'a Value]) -> Result<Vec<Read<'a>>, FieldsError> {
    let mut out: Vec<Read<'a>> = Vec::new();
    for document in versions {
        let resource_version =
            document.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).unwrap_or_default();
        if out.last().is_some_and(|last| last.resource_version == resource_version && !resource_version.is_empty()) {
            continue;
        }
        out.push(Read { resource_version, document, entries: entries(document)? });
    }
    Ok(out)
}

/// The path an entry of `entries` gives the place `pointer`, if one owns exactly that place.
fn owned_path(entries: &[ManagerEntry], pointer: &str) -> Option<String> {
    entries
        .iter()
        .flat_map(|e| e.fields.iter())
        .find(|(_, p)| p.as_deref() == Some(pointer))
        .map(|(path, _)| path.clone())
}

/// Each version's changes against the one before it, the newest first (the first version seen
/// has nothing to compare with).
pub fn changes(versions: &[&Value]) -> Result<Vec<VersionChange>, FieldsError> {
    let read = read(versions)?;
    let options = DiffOptions { ignore_managed_fields: true, ignore_status: false, ignore_server_fields: true };
    let mut out: Vec<VersionChange> = read
        .windows(2)
        .map(|pair| {
            let (was, now) = (&pair[0], &pair[1]);
            let fields = diff_objects(was.document, now.document, options)
                .changes
                .into_iter()
                .map(|change| {
                    let side = if change.kind == ChangeKind::Removed { &was.entries } else { &now.entries };
                    ChangedField {
                        path: owned_path(side, &change.path)
                            .unwrap_or_else(|| format!(".{}", display_pointer(&change.path))),
                        kind: change.kind,
                        before: change.old.as_ref().map(Value::to_json),
                        after: change.new.as_ref().map(Value::to_json),
                        manager: owner_of(side, &change.path).map(|e| e.manager.clone()),
                    }
                })
                .collect();
            VersionChange {
                resource_version: now.resource_version.to_owned(),
                moved: moves(&was.entries, &now.entries),
                fields,
            }
        })
        .collect();
    out.reverse();
    Ok(out)
}

/// One step of a field's history: a version where its value or its owners differ from the
/// version before (the first version seen is always a step).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldStep {
    pub resource_version: String,
    /// The value, as compact JSON; `None` where the object does not hold it.
    pub value: Option<String>,
    /// The entries owning the path in that version (several appliers may share one).
    pub owners: Vec<OwnedField>,
}

/// The value at the JSON pointer `pointer` of `document`.
fn value_at<'a>(document: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer_segments(pointer).iter().try_fold(document, |here, segment| match here.as_array() {
        Some(items) => items.get(segment.parse::<usize>().ok()?),
        None => here.get(segment),
    })
}

/// The history of the owned path `path` (as an entry names it) across `versions`, oldest first.
/// In a version where no entry owns it, its place is the one it had where one last did.
pub fn field_history(versions: &[&Value], path: &str) -> Result<Vec<FieldStep>, FieldsError> {
    let mut steps: Vec<FieldStep> = Vec::new();
    let mut pointer: Option<String> = None;
    for version in read(versions)? {
        let owners: Vec<OwnedField> = version
            .entries
            .iter()
            .filter(|e| e.fields.contains_key(path))
            .map(|e| OwnedField {
                path: path.to_owned(),
                manager: e.manager.clone(),
                operation: e.operation.clone(),
                subresource: e.subresource.clone(),
                time: e.time.clone(),
            })
            .collect();
        if let Some(here) = version.entries.iter().find_map(|e| e.fields.get(path).cloned().flatten()) {
            pointer = Some(here);
        }
        let value = pointer.as_deref().and_then(|p| value_at(version.document, p)).map(Value::to_json);
        let owned_by = |owners: &[OwnedField]| -> Vec<(String, String, String)> {
            owners.iter().map(|o| (o.manager.clone(), o.operation.clone(), o.subresource.clone())).collect()
        };
        if steps.last().is_some_and(|last| last.value == value && owned_by(&last.owners) == owned_by(&owners)) {
            continue;
        }
        steps.push(FieldStep { resource_version: version.resource_version.to_owned(), value, owners });
    }
    Ok(steps)
}

/// How the version an object's screen shows stands against what its watch has seen since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// The newest version seen is the one shown (or nothing newer has arrived).
    Current,
    /// A newer version arrived: the `resourceVersion` shown and the newest's, and the managers
    /// whose entries moved on the way (the newest first, each named once), leaving out those that
    /// only lost fields (another manager's write took them).
    Changed { shown: String, newest: String, by: Vec<String> },
    /// The object was deleted on the server after the screen read it.
    Deleted,
}

/// Whether the object is gone after a step of its watch brought `changes`, given whether it was
/// gone before and whether the watch's cache holds it now: a delete says it is, an upsert that it
/// is not, and a completed sync (the server's whole answer, first or after a relist) says what the
/// cache holds. So an object its screen read that the watch's sync does not find is gone, also
/// when no delete was ever seen: the watch began after it went, or its first sync was cut before
/// it read a thing and the next one met a server that no longer has it (a replaced server, #41).
pub fn gone_after(gone: bool, changes: &[Change], cached: bool) -> bool {
    changes.iter().fold(gone, |gone, change| match change {
        Change::Delete(_) => true,
        Change::Upsert(_) => false,
        Change::InitialListComplete => !cached,
        Change::Columns | Change::State(_) | Change::Problem(_) => gone,
    })
}

/// How the version `shown` (as the screen read it) stands against `versions` (oldest first, as
/// the watch saw them) and whether the watch saw the object deleted since. Versions are compared
/// by `resourceVersion` only for equality, as the API concepts page asks (they are opaque).
pub fn freshness(shown: &Value, versions: &[&Value], deleted: bool) -> Freshness {
    if deleted {
        return Freshness::Deleted;
    }
    let rv = |v: &Value| v.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).map(str::to_owned);
    let (Some(shown_rv), Some(newest)) = (rv(shown), versions.last()) else {
        return Freshness::Current;
    };
    let newest_rv = rv(newest).unwrap_or_default();
    if newest_rv == shown_rv {
        return Freshness::Current;
    }
    // The versions after the one shown (all of them when it was not seen: it is older than the
    // first the watch kept, or the watch began after a change).
    let after = versions.iter().rposition(|v| rv(v).as_deref() == Some(shown_rv.as_str())).map_or(0, |i| i + 1);
    let mut by: Vec<String> = Vec::new();
    if let Ok(steps) = changes(&versions[after.saturating_sub(1)..]) {
        for step in steps.iter() {
            // A manager that only lost fields had them taken by another's write.
            for moved in step.moved.iter().filter(|m| !m.gained.is_empty() || m.lost.is_empty()) {
                if !by.contains(&moved.manager) {
                    by.push(moved.manager.clone());
                }
            }
        }
    }
    Freshness::Changed { shown: shown_rv, newest: newest_rv, by }
}

#[cfg(test)]
#[path = "field_owners_history_tests.rs"]
mod tests;
