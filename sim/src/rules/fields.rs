//! managedFields: field sets in the FieldsV1 form (`f:name`, `k:{"name":"x"}`, `v:"a"`, `.`),
//! ownership per manager and operation, and how an Update or an Apply moves ownership.
//!
//! A path is a list of FieldsV1 elements; a trailing `.` marks ownership of the map itself.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

pub type FieldPath = Vec<String>;
pub type FieldSet = BTreeSet<FieldPath>;

/// Metadata fields the server manages itself and never records as owned.
const SYSTEM_META: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// The key element of a list item, when the list is a map keyed by well-known fields.
fn item_key(item: &Value, siblings: &[Value]) -> Option<String> {
    let keys: &[&[&str]] = &[&["containerPort", "protocol"], &["port", "protocol"], &["name"], &["type"], &["ip"]];
    let obj = item.as_object()?;
    for candidate in keys {
        if candidate.iter().all(|f| siblings.iter().all(|s| s.get(*f).is_some())) {
            let mut k = Map::new();
            for f in *candidate {
                if let Some(v) = obj.get(*f) {
                    k.insert((*f).to_string(), v.clone());
                } else if *f == "protocol" {
                    k.insert("protocol".into(), json!("TCP"));
                }
            }
            return Some(format!("k:{}", Value::Object(k)));
        }
    }
    None
}

fn is_set_list(field: &str) -> bool {
    matches!(field, "finalizers" | "tags")
}

fn walk(v: &Value, prefix: &mut FieldPath, out: &mut FieldSet, field: &str, mark_self: bool) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            if mark_self {
                let mut p = prefix.clone();
                p.push(".".into());
                out.insert(p);
            }
            for (k, child) in m {
                prefix.push(format!("f:{k}"));
                walk(child, prefix, out, k, true);
                prefix.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => {
            if items.iter().all(Value::is_object) {
                let keys: Option<Vec<String>> = items.iter().map(|i| item_key(i, items)).collect();
                if let Some(keys) = keys {
                    if mark_self {
                        let mut p = prefix.clone();
                        p.push(".".into());
                        out.insert(p);
                    }
                    for (k, item) in keys.into_iter().zip(items) {
                        prefix.push(k);
                        walk(item, prefix, out, "", true);
                        prefix.pop();
                    }
                    return;
                }
            } else if is_set_list(field) && items.iter().all(|i| !i.is_object() && !i.is_array()) {
                if mark_self {
                    let mut p = prefix.clone();
                    p.push(".".into());
                    out.insert(p);
                }
                for i in items {
                    let mut p = prefix.clone();
                    p.push(format!("v:{i}"));
                    out.insert(p);
                }
                return;
            }
            out.insert(prefix.clone());
        }
        _ => {
            out.insert(prefix.clone());
        }
    }
}

/// The fields an object sets, leaving out what the server manages (and `status` unless
/// `with_status`).
pub fn field_set(obj: &Value, with_status: bool) -> FieldSet {
    let mut out = FieldSet::new();
    let Some(top) = obj.as_object() else { return out };
    for (k, v) in top {
        match k.as_str() {
            "apiVersion" | "kind" => {}
            "status" if !with_status => {}
            "metadata" => {
                if let Some(m) = v.as_object() {
                    for (mk, mv) in m.iter().filter(|(mk, _)| !SYSTEM_META.contains(&mk.as_str())) {
                        let mut p = vec!["f:metadata".to_string(), format!("f:{mk}")];
                        walk(mv, &mut p, &mut out, mk, true);
                    }
                }
            }
            _ => {
                let mut p = vec![format!("f:{k}")];
                walk(v, &mut p, &mut out, k, true);
            }
        }
    }
    out
}

/// Only the status part of an object, for the status subresource's entries.
pub fn status_set(obj: &Value) -> FieldSet {
    let mut out = FieldSet::new();
    if let Some(s) = obj.get("status") {
        let mut p = vec!["f:status".to_string()];
        walk(s, &mut p, &mut out, "status", true);
    }
    out
}

pub fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in set {
        let mut cur = &mut root;
        for el in path {
            let entry = cur.entry(el.clone()).or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            match entry {
                Value::Object(m) => cur = m,
                _ => break,
            }
        }
    }
    Value::Object(root)
}

pub fn from_fields_v1(v: &Value) -> FieldSet {
    fn go(v: &Value, prefix: &mut FieldPath, out: &mut FieldSet) {
        match v.as_object() {
            Some(m) if !m.is_empty() => {
                for (k, child) in m {
                    prefix.push(k.clone());
                    go(child, prefix, out);
                    prefix.pop();
                }
            }
            _ => {
                if !prefix.is_empty() {
                    out.insert(prefix.clone());
                }
            }
        }
    }
    let mut out = FieldSet::new();
    go(v, &mut Vec::new(), &mut out);
    out
}

/// The value at a field path, following `k:` keys and `v:` set items.
pub fn value_at<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut cur = obj;
    for el in path {
        if el == "." {
            return Some(cur);
        }
        if let Some(f) = el.strip_prefix("f:") {
            cur = cur.as_object()?.get(f)?;
        } else if let Some(k) = el.strip_prefix("k:") {
            let key: Map<String, Value> = serde_json::from_str(k).ok()?;
            cur = cur.as_array()?.iter().find(|item| {
                key.iter().all(|(kk, kv)| {
                    item.get(kk) == Some(kv) || (kk == "protocol" && item.get(kk).is_none() && kv == "TCP")
                })
            })?;
        } else if let Some(v) = el.strip_prefix("v:") {
            let want: Value = serde_json::from_str(v).ok()?;
            cur = cur.as_array()?.iter().find(|item| **item == want)?;
        } else {
            return None;
        }
    }
    Some(cur)
}

/// One managedFields entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub manager: String,
    pub operation: String,
    pub api_version: String,
    pub time: String,
    pub subresource: Option<String>,
    pub set: FieldSet,
}

impl Entry {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("manager".into(), json!(self.manager));
        m.insert("operation".into(), json!(self.operation));
        m.insert("apiVersion".into(), json!(self.api_version));
        m.insert("time".into(), json!(self.time));
        m.insert("fieldsType".into(), json!("FieldsV1"));
        m.insert("fieldsV1".into(), to_fields_v1(&self.set));
        if let Some(s) = &self.subresource {
            m.insert("subresource".into(), json!(s));
        }
        Value::Object(m)
    }

    pub fn from_value(v: &Value) -> Option<Entry> {
        Some(Entry {
            manager: v["manager"].as_str()?.to_string(),
            operation: v["operation"].as_str().unwrap_or("Update").to_string(),
            api_version: v["apiVersion"].as_str().unwrap_or_default().to_string(),
            time: v["time"].as_str().unwrap_or_default().to_string(),
            subresource: v["subresource"].as_str().map(str::to_string),
            set: from_fields_v1(&v["fieldsV1"]),
        })
    }
}

pub fn entries(obj: &Value) -> Vec<Entry> {
    obj["metadata"]["managedFields"].as_array().into_iter().flatten().filter_map(Entry::from_value).collect()
}

pub fn set_entries(obj: &mut Value, list: &[Entry]) {
    let values: Vec<Value> = list.iter().filter(|e| !e.set.is_empty()).map(Entry::to_value).collect();
    let meta = crate::store::object::meta_mut(obj);
    if values.is_empty() {
        meta.remove("managedFields");
    } else {
        meta.insert("managedFields".into(), Value::Array(values));
    }
}

/// Who a write is by and how it reaches the object.
#[derive(Debug, Clone)]
pub struct Writer<'a> {
    pub manager: &'a str,
    pub operation: &'a str,
    pub api_version: &'a str,
    pub subresource: Option<&'a str>,
    pub time: &'a str,
}

/// Records an Update (create, update, patch): the writer takes every field whose value it
/// changed, other managers lose those, and fields that are gone leave every set.
pub fn record_update(old: Option<&Value>, new: &mut Value, w: &Writer<'_>) {
    let status_only = w.subresource == Some("status");
    let new_set = if status_only { status_set(new) } else { field_set(new, false) };
    let changed: FieldSet = new_set
        .iter()
        .filter(|p| match old {
            None => true,
            Some(o) if p.last().is_some_and(|l| l == ".") => value_at(o, &p[..p.len() - 1]).is_none(),
            Some(o) => value_at(o, p) != value_at(new, p),
        })
        .cloned()
        .collect();
    let mut list = old.map(entries).unwrap_or_default();
    let present_status = status_set(new);
    let present_main = field_set(new, false);
    for e in list.iter_mut() {
        e.set.retain(|p| !changed.contains(p) && (present_main.contains(p) || present_status.contains(p)));
    }
    let subresource = w.subresource.map(str::to_string);
    match list.iter_mut().find(|e| e.manager == w.manager && e.operation == w.operation && e.subresource == subresource)
    {
        Some(e) => {
            if !changed.is_empty() {
                e.time = w.time.to_string();
            }
            e.set.extend(changed);
            e.api_version = w.api_version.to_string();
        }
        None => list.push(Entry {
            manager: w.manager.to_string(),
            operation: w.operation.to_string(),
            api_version: w.api_version.to_string(),
            time: w.time.to_string(),
            subresource,
            set: changed,
        }),
    }
    set_entries(new, &list);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_set_matches_the_recorded_widget() {
        let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w-01", "labels": {"app": "demo"}},
            "spec": {"color": "red", "ports": [{"name": "http", "port": 80}], "replicas": 1, "size": "small", "tags": ["a", "b"]}});
        let expect = json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {".": {}, "f:color": {}, "f:ports": {".": {}, "k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}},
                "f:replicas": {}, "f:size": {}, "f:tags": {".": {}, "v:\"a\"": {}, "v:\"b\"": {}}}});
        assert_eq!(to_fields_v1(&field_set(&obj, false)), expect);
        assert_eq!(from_fields_v1(&expect), field_set(&obj, false));
    }

    #[test]
    fn update_moves_changed_fields_to_the_writer() {
        let mut first = json!({"metadata": {"name": "a"}, "spec": {"x": 1, "y": 2}});
        let w = |m| Writer { manager: m, operation: "Update", api_version: "v1", subresource: None, time: "t" };
        record_update(None, &mut first, &w("one"));
        let mut second = first.clone();
        second["spec"]["y"] = json!(3);
        record_update(Some(&first), &mut second, &w("two"));
        let e = entries(&second);
        assert_eq!(e.len(), 2);
        assert!(e[0].set.contains(&vec!["f:spec".to_string(), "f:x".to_string()]));
        assert!(!e[0].set.contains(&vec!["f:spec".to_string(), "f:y".to_string()]));
        assert_eq!(e[1].set, [vec!["f:spec".to_string(), "f:y".to_string()]].into_iter().collect());
    }
}
