//! The patch types: JSON Patch (RFC 6902, `test` included), JSON merge patch (RFC 7386), and
//! strategic merge patch driven by the OpenAPI merge keys and strategies (`$patch: delete` /
//! `replace` / `merge`, `$retainKeys`, `$deleteFromPrimitiveList/…`, `$setElementOrder/…`).
//! The same keyed merge serves server-side apply.

use serde_json::{Map, Value};

use crate::rules::schema::Schemas;

/// Why a patch could not be applied.
#[derive(Debug, Clone)]
pub enum PatchError {
    /// The body is not a patch of this type (400).
    Malformed(String),
    /// The patch is well-formed but cannot be applied, e.g. a failed `test` (422).
    Rejected,
}

pub fn json_patch(target: &Value, body: &[u8]) -> Result<Value, PatchError> {
    let patch: json_patch::Patch = serde_json::from_slice(body).map_err(|e| PatchError::Malformed(e.to_string()))?;
    let mut doc = target.clone();
    json_patch::patch(&mut doc, &patch).map_err(|_| PatchError::Rejected)?;
    Ok(doc)
}

pub fn merge_patch(target: &Value, body: &[u8]) -> Result<Value, PatchError> {
    let patch: Value = serde_json::from_slice(body).map_err(|e| PatchError::Malformed(e.to_string()))?;
    if !patch.is_object() {
        return Err(PatchError::Malformed("patch body must be a JSON object".into()));
    }
    let mut doc = target.clone();
    json_patch::merge(&mut doc, &patch);
    Ok(doc)
}

/// Strategic merge of `patch` into `original` under `schema` (the type's root schema).
pub fn strategic_merge(
    schemas: &Schemas,
    schema: Option<&Value>,
    original: &Value,
    patch: &Value,
) -> Result<Value, PatchError> {
    if !patch.is_object() {
        return Err(PatchError::Malformed("patch body must be a JSON object".into()));
    }
    Ok(merge_map(schemas, schema, original, patch, true, true).unwrap_or(Value::Object(Map::new())))
}

fn directive(m: &Map<String, Value>) -> Option<&str> {
    m.get("$patch").and_then(Value::as_str)
}

/// Merges a map; `None` means the map itself is deleted.
fn merge_map(
    schemas: &Schemas,
    schema: Option<&Value>,
    original: &Value,
    patch: &Value,
    at_root: bool,
    strategic: bool,
) -> Option<Value> {
    let Value::Object(p) = patch else { return Some(patch.clone()) };
    match directive(p) {
        Some("delete") if strategic => return None,
        Some("replace") if strategic => {
            let mut m = p.clone();
            m.remove("$patch");
            return Some(Value::Object(m));
        }
        _ => {}
    }
    let mut out = match original {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let mut retain: Option<Vec<String>> = None;
    for (k, v) in p {
        if strategic {
            if k == "$patch" {
                continue;
            }
            if k == "$retainKeys" {
                retain = v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect());
                continue;
            }
            if k.starts_with("$setElementOrder/") {
                continue;
            }
            if let Some(field) = k.strip_prefix("$deleteFromPrimitiveList/") {
                if let (Some(Value::Array(list)), Some(remove)) = (out.get_mut(field), v.as_array()) {
                    list.retain(|item| !remove.contains(item));
                }
                continue;
            }
        }
        let child_schema = schema.and_then(|s| schemas.child(s, k, at_root));
        if v.is_null() {
            out.remove(k);
            continue;
        }
        let merged = match (out.get(k), v) {
            (Some(orig @ Value::Object(_)), Value::Object(_)) => {
                merge_map(schemas, child_schema, orig, v, false, strategic)
            }
            (None, Value::Object(_)) => merge_map(schemas, child_schema, &Value::Null, v, false, strategic),
            (Some(Value::Array(orig)), Value::Array(items)) => {
                Some(merge_list(schemas, child_schema, orig, items, strategic))
            }
            (None, Value::Array(items)) => Some(merge_list(schemas, child_schema, &[], items, strategic)),
            _ => Some(v.clone()),
        };
        match merged {
            Some(m) => out.insert(k.clone(), m),
            None => out.remove(k),
        };
    }
    if let Some(keep) = retain {
        out.retain(|k, _| keep.contains(k));
    }
    Some(Value::Object(out))
}

fn key_of(item: &Value, keys: &[String]) -> Option<Vec<Value>> {
    let m = item.as_object()?;
    Some(keys.iter().map(|k| m.get(k).cloned().unwrap_or(Value::Null)).collect())
}

fn merge_list(
    schemas: &Schemas,
    schema: Option<&Value>,
    original: &[Value],
    patch: &[Value],
    strategic: bool,
) -> Value {
    let Some(list_schema) = schema else { return Value::Array(clean(patch)) };
    if !schemas.merges(list_schema) {
        return Value::Array(clean(patch));
    }
    let item_schema = schemas.items(list_schema);
    match schemas.merge_keys(list_schema) {
        Some(keys) => {
            if strategic && patch.iter().any(|i| i.get("$patch").and_then(Value::as_str) == Some("replace")) {
                return Value::Array(
                    clean(patch).into_iter().filter(|i| i.as_object().is_some_and(|m| !m.is_empty())).collect(),
                );
            }
            let mut out: Vec<Value> = original.to_vec();
            for item in patch {
                let Some(k) = key_of(item, &keys) else { continue };
                let pos = out.iter().position(|o| key_of(o, &keys).as_ref() == Some(&k));
                let delete = strategic && item.get("$patch").and_then(Value::as_str) == Some("delete");
                match (pos, delete) {
                    (Some(i), true) => {
                        out.remove(i);
                    }
                    (None, true) => {}
                    (Some(i), false) => {
                        if let Some(m) = merge_map(schemas, item_schema, &out[i], item, false, strategic) {
                            out[i] = m;
                        }
                    }
                    (None, false) => {
                        if let Some(m) = merge_map(schemas, item_schema, &Value::Null, item, false, strategic) {
                            out.push(m);
                        }
                    }
                }
            }
            Value::Array(out)
        }
        None => {
            let mut out: Vec<Value> = original.to_vec();
            for item in patch {
                if !out.contains(item) {
                    out.push(item.clone());
                }
            }
            Value::Array(out)
        }
    }
}

/// Removes `$patch` directives left inside replaced values.
fn clean(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .map(|i| match i {
            Value::Object(m) => {
                let mut m = m.clone();
                m.remove("$patch");
                Value::Object(m)
            }
            other => other.clone(),
        })
        .collect()
}

/// Merges an apply configuration into the live object: maps recursively, keyed and set lists by
/// item, other lists replaced.
pub fn apply_merge(schemas: &Schemas, schema: Option<&Value>, live: &Value, config: &Value) -> Value {
    merge_map(schemas, schema, live, config, true, false).unwrap_or(Value::Object(Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod_schema(schemas: &Schemas) -> Value {
        let registry = crate::store::registry::Registry::load().expect("registry");
        let pods = registry.find("", "v1", "pods").expect("pods");
        schemas.root(&pods).cloned().expect("pod schema")
    }

    #[test]
    fn containers_merge_by_name_and_delete_directive_removes() {
        let schemas = Schemas::load().expect("schemas");
        let schema = pod_schema(&schemas);
        let live = json!({"spec": {"containers": [{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}]}});
        let patch = json!({"spec": {"containers": [{"name": "a", "image": "a:2"}, {"name": "b", "$patch": "delete"}, {"name": "c", "image": "c:1"}]}});
        let out = strategic_merge(&schemas, Some(&schema), &live, &patch).expect("merges");
        assert_eq!(
            out,
            json!({"spec": {"containers": [{"name": "a", "image": "a:2"}, {"name": "c", "image": "c:1"}]}})
        );
    }

    #[test]
    fn atomic_lists_are_replaced_and_null_deletes() {
        let schemas = Schemas::load().expect("schemas");
        let schema = pod_schema(&schemas);
        let live = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"containers": [{"name": "a", "args": ["x", "y"]}]}});
        let patch =
            json!({"metadata": {"labels": {"b": null}}, "spec": {"containers": [{"name": "a", "args": ["z"]}]}});
        let out = strategic_merge(&schemas, Some(&schema), &live, &patch).expect("merges");
        assert_eq!(
            out,
            json!({"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [{"name": "a", "args": ["z"]}]}})
        );
    }

    #[test]
    fn replace_directive_replaces_a_map() {
        let schemas = Schemas::load().expect("schemas");
        let live = json!({"data": {"a": "1", "b": "2"}});
        let patch = json!({"data": {"$patch": "replace", "c": "3"}});
        let out = strategic_merge(&schemas, None, &live, &patch).expect("merges");
        assert_eq!(out, json!({"data": {"c": "3"}}));
    }
}
