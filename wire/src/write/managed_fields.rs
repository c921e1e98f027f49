//! Field ownership under server-side apply: the `metadata.managedFields` entries of an object
//! (manager, operation, apiVersion, time, subresource) with their `FieldsV1` sets flattened into
//! owned field paths, a lookup of which managers own a field of the object, and the per-field
//! conflicts of a 409 apply answer (causes of type `FieldManagerConflict`).
//!
//! `FieldsV1` is a trie: `f:<name>` is a member, `k:<json object>` a list item identified by its
//! keys, `v:<json value>` a set item, `i:<n>` a list item by position, and `.` inside a node means
//! the node itself is owned. Paths print as the server prints them in conflict messages:
//! `.spec.containers[name="web"].image`, `.metadata.finalizers[="a"]`, `.spec.args[0]`.
//!
//! Invariants: every owned path of an entry is listed once, in the document's order; a key or
//! value the server wrote as JSON is parsed as JSON, never guessed; a malformed entry is an error
//! naming the entry, not a silently shorter list.

use std::fmt;

use crate::codec::json::decode_json;
use crate::codec::value::{Value, ValueKind};
use crate::view::status::{Status, StatusExt};
use crate::write::diff::pointer_segments;

/// One step of an owned field path.
#[derive(Debug, Clone, PartialEq)]
pub enum PathElement {
    /// A member of an object (`f:name`).
    Field(String),
    /// A list item identified by the values of its keys (`k:{"name":"web"}`).
    Key(Vec<(String, Value)>),
    /// A set item identified by its value (`v:"a"`).
    Value(Value),
    /// A list item by position (`i:0`).
    Index(usize),
}

/// A path to an owned field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldPath(pub Vec<PathElement>);

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for element in &self.0 {
            match element {
                PathElement::Field(name) => write!(f, ".{name}")?,
                PathElement::Key(keys) => {
                    let keys: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, "[{}]", keys.join(","))?;
                }
                PathElement::Value(value) => write!(f, "[={value}]")?,
                PathElement::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// What a manager did to own its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManagedOperation {
    /// Server-side apply.
    Apply,
    /// Create, update or a non-apply patch.
    Update,
    /// A value this version does not know.
    Other(String),
}

/// One `metadata.managedFields` entry with its fields flattened.
#[derive(Debug, Clone, PartialEq)]
pub struct ManagedFieldsEntry {
    pub manager: String,
    pub operation: ManagedOperation,
    pub api_version: String,
    /// RFC 3339 time of the manager's last change, as the server wrote it.
    pub time: Option<String>,
    /// The subresource written through (`status`, `scale`), if any.
    pub subresource: Option<String>,
    /// The owned paths, in the order the server listed them.
    pub fields: Vec<FieldPath>,
}

/// A `managedFields` list that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManagedFieldsError {
    #[error("expected metadata.managedFields to be a list, found {0}")]
    NotAList(ValueKind),
    /// `expected` names the member the entry lacks ("a manager").
    #[error("managedFields[{index}]: expected {expected}")]
    BadEntry { index: usize, expected: &'static str },
    #[error("managedFields[{index}]: unsupported fieldsType {found:?} (only FieldsV1 is defined)")]
    FieldsType { index: usize, found: String },
    #[error("expected a FieldsV1 key (f:, k:, v:, i: or .), found {0:?}")]
    BadKey(String),
}

/// The managed-fields entries of an object (none when it has no `metadata.managedFields`).
pub fn managed_fields(object: &Value) -> Result<Vec<ManagedFieldsEntry>, ManagedFieldsError> {
    let entries = match object.at(&["metadata", "managedFields"]) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(entries)) => entries,
        Some(other) => return Err(ManagedFieldsError::NotAList(other.kind())),
    };
    entries.iter().enumerate().map(|(index, entry)| read_entry(index, entry)).collect()
}

fn read_entry(index: usize, entry: &Value) -> Result<ManagedFieldsEntry, ManagedFieldsError> {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_string);
    let manager = text("manager").ok_or(ManagedFieldsError::BadEntry { index, expected: "a manager" })?;
    let operation = match text("operation").as_deref() {
        Some("Apply") => ManagedOperation::Apply,
        Some("Update") => ManagedOperation::Update,
        Some(other) => ManagedOperation::Other(other.to_string()),
        None => return Err(ManagedFieldsError::BadEntry { index, expected: "an operation" }),
    };
    match text("fieldsType").as_deref() {
        Some("FieldsV1") | None => {}
        Some(other) => return Err(ManagedFieldsError::FieldsType { index, found: other.to_string() }),
    }
    let fields = match entry.get("fieldsV1") {
        Some(fields) => flatten_fields_v1(fields)?,
        None => Vec::new(),
    };
    Ok(ManagedFieldsEntry {
        manager,
        operation,
        api_version: text("apiVersion").unwrap_or_default(),
        time: text("time"),
        subresource: text("subresource"),
        fields,
    })
}

/// The owned paths of a `FieldsV1` set: every node marked `.` and every leaf.
pub fn flatten_fields_v1(fields: &Value) -> Result<Vec<FieldPath>, ManagedFieldsError> {
    let mut out = Vec::new();
    flatten(fields, &mut Vec::new(), &mut out)?;
    Ok(out)
}

fn flatten(node: &Value, path: &mut Vec<PathElement>, out: &mut Vec<FieldPath>) -> Result<(), ManagedFieldsError> {
    let Some(members) = node.as_object().filter(|m| !m.is_empty()) else {
        if !path.is_empty() {
            out.push(FieldPath(path.clone()));
        }
        return Ok(());
    };
    for (key, child) in members.iter() {
        if key == "." {
            out.push(FieldPath(path.clone()));
            continue;
        }
        path.push(parse_key(key)?);
        flatten(child, path, out)?;
        path.pop();
    }
    Ok(())
}

fn parse_key(key: &str) -> Result<PathElement, ManagedFieldsError> {
    let bad = || ManagedFieldsError::BadKey(key.to_string());
    let (prefix, rest) = key.split_once(':').ok_or_else(bad)?;
    match prefix {
        "f" => Ok(PathElement::Field(rest.to_string())),
        "k" => match decode_json(rest.as_bytes()) {
            Ok(Value::Object(keys)) => Ok(PathElement::Key(keys.entries().to_vec())),
            _ => Err(bad()),
        },
        "v" => decode_json(rest.as_bytes()).map(PathElement::Value).map_err(|_| bad()),
        "i" => rest.parse().map(PathElement::Index).map_err(|_| bad()),
        _ => Err(bad()),
    }
}

/// How much of a field a manager owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// The field itself, or an enclosing field owned as a whole.
    Whole,
    /// Some fields inside it.
    Part,
}

/// A manager owning (part of) a field.
#[derive(Debug, Clone, PartialEq)]
pub struct Owner<'a> {
    pub entry: &'a ManagedFieldsEntry,
    pub ownership: Ownership,
}

/// Which managers own the field at JSON `pointer` of `object` (list items are matched by their
/// keys, values or positions, as the owned paths name them).
pub fn owners_of<'a>(entries: &'a [ManagedFieldsEntry], object: &Value, pointer: &str) -> Vec<Owner<'a>> {
    let segments = pointer_segments(pointer);
    let mut owners = Vec::new();
    for entry in entries {
        let mut ownership = None;
        for (i, field) in entry.fields.iter().enumerate() {
            let Some(matched) = matched_prefix(&field.0, object, &segments) else { continue };
            let found = if matched == segments.len() && matched == field.0.len() {
                Some(Ownership::Whole)
            } else if matched == field.0.len() {
                // An enclosing field: owned whole only if nothing inside it is listed (a leaf).
                let leaf = !entry.fields.iter().enumerate().any(|(j, other)| {
                    j != i && other.0.len() > field.0.len() && other.0[..field.0.len()] == field.0[..]
                });
                leaf.then_some(Ownership::Whole)
            } else if matched == segments.len() {
                Some(Ownership::Part)
            } else {
                None
            };
            ownership = match (ownership, found) {
                (Some(Ownership::Whole), _) | (_, Some(Ownership::Whole)) => Some(Ownership::Whole),
                (a, b) => a.or(b),
            };
        }
        if let Some(ownership) = ownership {
            owners.push(Owner { entry, ownership });
        }
    }
    owners
}

/// How many leading elements of `path` and `segments` (a pointer into `object`) agree: the
/// shorter length when one is a prefix of the other, `None` when they diverge.
fn matched_prefix(path: &[PathElement], object: &Value, segments: &[String]) -> Option<usize> {
    let mut node = Some(object);
    for (element, segment) in path.iter().zip(segments) {
        let index = segment.parse::<usize>().ok();
        let item = index.and_then(|n| node.and_then(Value::as_array).and_then(|items| items.get(n)));
        let same = match element {
            PathElement::Field(name) => name == segment,
            PathElement::Index(n) => index == Some(*n),
            PathElement::Value(value) => item.is_some_and(|item| item.equivalent(value)),
            PathElement::Key(keys) => {
                item.is_some_and(|item| keys.iter().all(|(k, v)| item.get(k).is_some_and(|x| x.equivalent(v))))
            }
        };
        if !same {
            return None;
        }
        node = match element {
            PathElement::Field(name) => node.and_then(|n| n.get(name)),
            _ => item,
        };
    }
    Some(path.len().min(segments.len()))
}

/// The entries that list `field`, written as the server writes it in a conflict (e.g.
/// `.spec.replicas`): who else to ask, or whose ownership `force` would take.
pub fn owners_of_field<'a>(entries: &'a [ManagedFieldsEntry], field: &str) -> Vec<&'a ManagedFieldsEntry> {
    entries.iter().filter(|entry| entry.fields.iter().any(|path| path.to_string() == field)).collect()
}

/// One field of a server-side apply conflict: who owns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldConflict {
    /// The field as the server names it, e.g. `.spec.replicas`.
    pub field: String,
    /// The manager that owns it (from `conflict with "NAME"`).
    pub manager: String,
    /// The cause's message as sent.
    pub message: String,
}

/// The per-field conflicts of a 409 `Conflict` apply answer (empty for any other status).
pub fn apply_conflicts(status: &Status) -> Vec<FieldConflict> {
    if status.code != 409 || status.reason != "Conflict" {
        return Vec::new();
    }
    status
        .causes()
        .iter()
        .filter(|cause| cause.reason == "FieldManagerConflict")
        .map(|cause| FieldConflict {
            field: cause.field.clone(),
            manager: conflict_manager(&cause.message).unwrap_or_default(),
            message: cause.message.clone(),
        })
        .collect()
}

/// `NAME` out of `conflict with "NAME"` (optionally followed by ` using API/VERSION`).
fn conflict_manager(message: &str) -> Option<String> {
    let rest = message.split_once("conflict with \"")?.1;
    rest.split_once('"').map(|(name, _)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{real_apiserver_body, shared_file};
    use crate::view::status::status_from_document;

    fn paths(entry: &ManagedFieldsEntry) -> Vec<String> {
        entry.fields.iter().map(FieldPath::to_string).collect()
    }

    #[track_caller]
    fn check(fields: &str, expect: Result<&[&str], &str>) {
        let got = decode_json(fields.as_bytes())
            .map_err(|e| e.to_string())
            .and_then(|v| flatten_fields_v1(&v).map_err(|e| e.to_string()))
            .map(|paths| paths.iter().map(FieldPath::to_string).collect::<Vec<_>>());
        let expect = expect.map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>()).map_err(str::to_string);
        assert_eq!(got, expect);
    }

    #[test]
    fn fields_v1_flattens_into_owned_paths() {
        check(
            r#"{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}},"f:args":{"i:0":{}},"f:tags":{"v:\"x\"":{}}}}"#,
            Ok(&[
                ".metadata.labels",
                ".metadata.labels.app",
                ".spec.containers[name=\"web\"]",
                ".spec.containers[name=\"web\"].image",
                ".spec.args[0]",
                ".spec.tags[=\"x\"]",
            ]),
        );
        check(r#"{"x:y":{}}"#, Err("expected a FieldsV1 key (f:, k:, v:, i: or .), found \"x:y\""));
        check(r#"{"k:[1]":{}}"#, Err("expected a FieldsV1 key (f:, k:, v:, i: or .), found \"k:[1]\""));
        check("{}", Ok(&[]));
    }

    #[test]
    fn the_managed_fields_of_a_real_pod_name_each_manager_and_its_fields() {
        let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
        let entries = managed_fields(&pod).expect("managed fields");
        assert_eq!(entries.len(), 2);
        let controller = &entries[0];
        assert_eq!(controller.manager, "kube-controller-manager");
        assert_eq!(controller.operation, ManagedOperation::Update);
        assert_eq!(controller.time.as_deref(), Some("2024-05-01T12:00:00Z"));
        assert_eq!(
            paths(controller),
            [
                ".metadata.generateName",
                ".metadata.labels",
                ".metadata.labels.app",
                ".metadata.labels.pod-template-hash",
                ".metadata.ownerReferences",
                ".metadata.ownerReferences[uid=\"9b2e4f60-1c3d-4e5f-8a7b-0c1d2e3f4a5b\"]",
                ".spec.containers[name=\"web\"]",
                ".spec.containers[name=\"web\"].image",
                ".spec.containers[name=\"web\"].name",
            ]
        );
        assert_eq!(entries[1].subresource.as_deref(), Some("status"));
        let owners = |pointer: &str| -> Vec<(String, Ownership)> {
            owners_of(&entries, &pod, pointer).iter().map(|o| (o.entry.manager.clone(), o.ownership)).collect()
        };
        assert_eq!(owners("/spec/containers/0/image"), [("kube-controller-manager".to_string(), Ownership::Whole)]);
        assert_eq!(owners("/spec/containers/0"), [("kube-controller-manager".to_string(), Ownership::Whole)]);
        assert_eq!(owners("/spec"), [("kube-controller-manager".to_string(), Ownership::Part)]);
        assert_eq!(owners("/status/podIP"), [("kubelet".to_string(), Ownership::Whole)]);
        assert!(owners("/spec/containers/0/resources").is_empty());
    }

    #[test]
    fn a_real_apply_answer_lists_keyed_items_set_values_and_two_managers() {
        let widget = decode_json(&real_apiserver_body("72-ssa-force-fieldManager-b-200.txt")).expect("widget");
        let entries = managed_fields(&widget).expect("managed fields");
        let managers: Vec<(&str, &ManagedOperation)> =
            entries.iter().map(|e| (e.manager.as_str(), &e.operation)).collect();
        assert_eq!(managers, [("mgr-a", &ManagedOperation::Apply), ("mgr-b", &ManagedOperation::Apply)]);
        assert!(paths(&entries[0]).contains(&".spec.ports[name=\"http\"].port".to_string()));
        assert!(paths(&entries[0]).contains(&".spec.tags[=\"z\"]".to_string()));
        assert_eq!(paths(&entries[1]), [".spec.color", ".spec.size"]);
        let owners = owners_of(&entries, &widget, "/spec/size");
        assert_eq!(owners.len(), 1);
        assert_eq!(owners[0].entry.manager, "mgr-b");
        let by_field: Vec<&str> = owners_of_field(&entries, ".spec.size").iter().map(|e| e.manager.as_str()).collect();
        assert_eq!(by_field, ["mgr-b"]);
        assert_eq!(owners_of_field(&entries, ".spec.ports[name=\"http\"].port").len(), 1);
        assert!(owners_of_field(&entries, ".spec.nothing").is_empty());
    }

    #[test]
    fn a_real_apply_conflict_names_the_field_and_its_manager() {
        let body = decode_json(&real_apiserver_body("79-ssa-dryRun-All-conflict-409.txt")).expect("status");
        let status = status_from_document(&body).expect("status");
        assert_eq!(
            apply_conflicts(&status),
            [FieldConflict {
                field: ".spec.size".into(),
                manager: "mgr-b".into(),
                message: "conflict with \"mgr-b\"".into()
            }]
        );
        assert_eq!(conflict_manager("conflict with \"a\" using example.com/v1").as_deref(), Some("a"));
        let not_found = decode_json(br#"{"kind":"Status","code":404,"reason":"NotFound"}"#).expect("json");
        assert!(apply_conflicts(&status_from_document(&not_found).expect("status")).is_empty());
    }

    #[test]
    fn malformed_entries_are_refused_with_their_index() {
        let object = |managed: &str| {
            decode_json(format!(r#"{{"metadata":{{"managedFields":{managed}}}}}"#).as_bytes()).expect("json")
        };
        assert_eq!(managed_fields(&object("{}")), Err(ManagedFieldsError::NotAList(ValueKind::Object)));
        assert_eq!(
            managed_fields(&object(r#"[{"operation":"Apply"}]"#)),
            Err(ManagedFieldsError::BadEntry { index: 0, expected: "a manager" })
        );
        assert_eq!(
            managed_fields(&object(r#"[{"manager":"m","operation":"Apply","fieldsType":"FieldsV2"}]"#))
                .map_err(|e| e.to_string()),
            Err("managedFields[0]: unsupported fieldsType \"FieldsV2\" (only FieldsV1 is defined)".into())
        );
        let other = managed_fields(&object(r#"[{"manager":"m","operation":"Patch"}]"#)).expect("entry");
        assert_eq!(other[0].operation, ManagedOperation::Other("Patch".into()));
        assert!(managed_fields(&Value::Null).expect("no metadata").is_empty());
    }
}
