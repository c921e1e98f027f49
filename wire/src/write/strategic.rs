//! Strategic merge patch (`application/strategic-merge-patch+json`): building the two-way patch
//! between an old and a new object of a built-in kind, and applying such a patch to an object,
//! with the merge keys and strategies of the kind's OpenAPI schema ([`crate::schema`]).
//!
//! It follows `k8s.io/apimachinery/pkg/util/strategicpatch` as `kubectl edit` uses it: a list
//! whose field says `x-kubernetes-patch-strategy: merge` is merged item by item (objects by their
//! `x-kubernetes-patch-merge-key`, scalars as a set) instead of replaced; the patch carries only
//! changed items (keyed by the merge key), `{"$patch": "delete", key: ...}` for removed items,
//! `$deleteFromPrimitiveList/<field>` for removed scalars, `$setElementOrder/<field>` for the
//! order, and `$retainKeys` for maps whose strategy is `retainKeys`. Everything else is a JSON
//! merge patch: changed members carry their new value, removed ones `null`.
//!
//! The concepts page (`#patch-and-apply`): strategic merge patch works with built-in APIs only, not
//! with any API defined by a CustomResourceDefinition (the server answers 415). So a custom
//! resource is refused here with that reason, before any request is made.
//!
//! Invariant: for objects of a built-in kind, `apply(old, diff(old, new)) == new`.

use kube_core::GroupVersionKind;

use crate::codec::value::{Map, Value, ValueKind};
use crate::media_type::PatchType;
use crate::schema::{gvk_of, is_go_typed, OpenApiSchemas, SchemaNode};
use crate::write::diff::display_pointer;
use crate::write::patch::PatchBody;

const PATCH_DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

/// Why a strategic merge patch cannot be built or applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrategicError {
    #[error(
        "strategic merge patch is not supported for custom resources ({0}): an API defined by a \
         CustomResourceDefinition answers 415 Unsupported Media Type; use a JSON merge patch, a JSON patch or \
         server-side apply"
    )]
    CustomResource(String),
    #[error("no OpenAPI schema for {0}: load the OpenAPI v3 document of its group version")]
    UnknownKind(String),
    #[error("expected an object with apiVersion and kind, found {0}")]
    NoKind(ValueKind),
    #[error("expected every item of {path} to have its merge key {key:?}, found an item without it")]
    MissingMergeKey { path: String, key: String },
    #[error("expected a list of scalars, or of objects with a merge key, at {0}; found another list")]
    UnmergeableList(String),
    #[error("invalid strategic merge patch at {path}: {reason}")]
    BadPatch { path: String, reason: BadPatch },
}

/// What is wrong at one place of a strategic merge patch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadPatch {
    #[error("expected an object, found {0}")]
    ExpectedObject(ValueKind),
    /// The directive as the patch has it (a JSON value, or a quoted string).
    #[error("unknown $patch directive {0}")]
    UnknownDirective(String),
    /// A `$retainKeys`, `$deleteFromPrimitiveList/…` or `$setElementOrder/…` key.
    #[error("expected {0} to be a list")]
    NotAList(String),
    #[error("expected the merge key {0:?}")]
    ExpectedMergeKey(String),
}

/// Whether an API group's name is one Kubernetes itself serves (the core group, unqualified groups
/// such as `apps` and `batch`, and `*.k8s.io`): the guess for a kind whose schema is not loaded.
/// With its schema, the schema's name decides ([`is_go_typed`]): CustomResourceDefinitions may
/// define groups ending in `k8s.io` too (`gateway.networking.k8s.io`).
fn is_built_in_group(group: &str) -> bool {
    group.is_empty() || !group.contains('.') || group.ends_with(".k8s.io")
}

/// Strategic merge patching for one built-in kind.
#[derive(Debug, Clone, Copy)]
pub struct StrategicMerge<'a> {
    root: SchemaNode<'a>,
    set_element_order: bool,
}

impl<'a> StrategicMerge<'a> {
    /// The patcher of `gvk`, refusing custom resources and kinds without a loaded schema.
    pub fn for_kind(schemas: &'a OpenApiSchemas, gvk: &GroupVersionKind) -> Result<Self, StrategicError> {
        let name = format!("{}.{}/{}", gvk.kind, gvk.group, gvk.version);
        let built_in = match schemas.kind_schema_name(gvk) {
            Some(schema) => is_go_typed(schema),
            None => is_built_in_group(&gvk.group),
        };
        if !built_in {
            return Err(StrategicError::CustomResource(name));
        }
        schemas
            .kind(gvk)
            .map(|root| StrategicMerge { root, set_element_order: true })
            .ok_or(StrategicError::UnknownKind(name))
    }

    /// The patcher of `object`'s kind.
    pub fn for_object(schemas: &'a OpenApiSchemas, object: &Value) -> Result<Self, StrategicError> {
        let gvk = gvk_of(object).ok_or_else(|| StrategicError::NoKind(object.kind()))?;
        StrategicMerge::for_kind(schemas, &gvk)
    }

    /// The same patcher, building patches without `$setElementOrder` directives: smaller, but the
    /// server appends new list items at the end instead of where the new object has them.
    #[must_use]
    pub fn without_element_order(self) -> Self {
        StrategicMerge { set_element_order: false, ..self }
    }

    /// The two-way strategic merge patch from `old` to `new` (an empty object when they are
    /// equal), with `$setElementOrder` directives as `kubectl edit` sends them.
    pub fn diff(&self, old: &Value, new: &Value) -> Result<Value, StrategicError> {
        match (old, new) {
            (Value::Object(old), Value::Object(new)) => {
                Ok(Value::Object(diff_maps(old, new, Some(self.root), false, "", self.set_element_order)?))
            }
            (_, new) => Err(StrategicError::NoKind(new.kind())),
        }
    }

    /// The patch as a request body.
    pub fn patch_body(&self, old: &Value, new: &Value) -> Result<PatchBody, StrategicError> {
        Ok(PatchBody { patch_type: PatchType::StrategicMerge, body: self.diff(old, new)? })
    }

    /// `original` with a strategic merge `patch` applied, as the API server applies it.
    pub fn apply(&self, original: &Value, patch: &Value) -> Result<Value, StrategicError> {
        match (original, patch) {
            (Value::Object(original), Value::Object(patch)) => {
                Ok(Value::Object(apply_map(original.clone(), patch, Some(self.root), "")?))
            }
            (_, patch) => {
                Err(StrategicError::BadPatch { path: String::new(), reason: BadPatch::ExpectedObject(patch.kind()) })
            }
        }
    }
}

fn child_path(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn shown(path: &str) -> String {
    match display_pointer(path) {
        shown if shown.is_empty() => "the object".to_string(),
        shown => shown,
    }
}

/// A map with its members sorted by key, as Go marshals a patch.
fn sorted(map: Map) -> Map {
    let mut entries = map.entries().to_vec();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

fn diff_maps(
    original: &Map,
    modified: &Map,
    schema: Option<SchemaNode<'_>>,
    retain_keys: bool,
    path: &str,
    set_order: bool,
) -> Result<Map, StrategicError> {
    let mut patch = Map::new();
    for (key, new) in modified.iter() {
        let field = schema.and_then(|s| s.property(key));
        let strategy = field.map(SchemaNode::patch_strategy).unwrap_or_default();
        let here = child_path(path, key);
        let Some(old) = original.get(key) else {
            patch.insert(key, new.clone());
            continue;
        };
        match (old, new) {
            (Value::Object(_), Value::Object(new_map)) if strategy.replace => {
                if !old.equivalent(new) {
                    let mut replacement = new_map.clone();
                    replacement.insert(PATCH_DIRECTIVE, Value::String("replace".into()));
                    patch.insert(key, Value::Object(replacement));
                }
            }
            (Value::Object(old_map), Value::Object(new_map)) => {
                let sub = diff_maps(old_map, new_map, field, strategy.retain_keys, &here, set_order)?;
                if !sub.is_empty() {
                    patch.insert(key, Value::Object(sub));
                }
            }
            (Value::Array(old_items), Value::Array(new_items)) if strategy.merge => {
                let items = field.and_then(SchemaNode::items);
                let merge_key = field.and_then(SchemaNode::patch_merge_key);
                let lists = diff_lists(old_items, new_items, items, merge_key, &here, set_order)?;
                if !lists.patch.is_empty() {
                    patch.insert(key, Value::Array(lists.patch));
                }
                if !lists.delete.is_empty() {
                    patch.insert(format!("{DELETE_FROM_PRIMITIVE_LIST}{key}"), Value::Array(lists.delete));
                }
                if let Some(order) = lists.order.filter(|_| set_order) {
                    patch.insert(format!("{SET_ELEMENT_ORDER}{key}"), Value::Array(order));
                }
            }
            _ if old.equivalent(new) => {}
            _ => {
                patch.insert(key, new.clone());
            }
        }
    }
    for (key, _) in original.iter() {
        if modified.get(key).is_none() {
            patch.insert(key, Value::Null);
        }
    }
    if retain_keys && !patch.is_empty() {
        let mut keep: Vec<&str> = modified.iter().filter(|(_, v)| !matches!(v, Value::Null)).map(|(k, _)| k).collect();
        keep.sort_unstable();
        patch.insert(RETAIN_KEYS, Value::Array(keep.into_iter().map(|k| Value::String(k.into())).collect()));
    }
    Ok(sorted(patch))
}

/// The parts of a patch for one merged list.
struct ListPatch {
    /// Changed and new items, then `$patch: delete` items (lists of objects); new scalars.
    patch: Vec<Value>,
    /// Removed scalars (`$deleteFromPrimitiveList`).
    delete: Vec<Value>,
    /// `$setElementOrder`, when anything changed.
    order: Option<Vec<Value>>,
}

fn diff_lists(
    original: &[Value],
    modified: &[Value],
    items: Option<SchemaNode<'_>>,
    merge_key: Option<&str>,
    path: &str,
    set_order: bool,
) -> Result<ListPatch, StrategicError> {
    let all = || original.iter().chain(modified);
    if !all().all(is_scalar) {
        return match merge_key {
            Some(key) if all().all(|v| matches!(v, Value::Object(_))) => {
                diff_lists_of_maps(original, modified, items, key, path, set_order)
            }
            _ => Err(StrategicError::UnmergeableList(shown(path))),
        };
    }
    let added: Vec<Value> = modified.iter().filter(|m| !original.iter().any(|o| o.equivalent(m))).cloned().collect();
    let removed: Vec<Value> = original.iter().filter(|o| !modified.iter().any(|m| m.equivalent(o))).cloned().collect();
    let same = original.len() == modified.len() && original.iter().zip(modified).all(|(a, b)| a.equivalent(b));
    let order = (!removed.is_empty() || !same).then(|| modified.to_vec());
    Ok(ListPatch { patch: added, delete: removed, order })
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Object(_) | Value::Array(_))
}

fn merge_key_of<'v>(item: &'v Value, key: &str, path: &str) -> Result<&'v Value, StrategicError> {
    item.get(key).ok_or_else(|| StrategicError::MissingMergeKey { path: shown(path), key: key.to_string() })
}

fn diff_lists_of_maps(
    original: &[Value],
    modified: &[Value],
    items: Option<SchemaNode<'_>>,
    key: &str,
    path: &str,
    set_order: bool,
) -> Result<ListPatch, StrategicError> {
    let mut patch = Vec::new();
    for (index, new) in modified.iter().enumerate() {
        let id = merge_key_of(new, key, path)?;
        let old = original.iter().find(|o| o.get(key).is_some_and(|k| k.equivalent(id)));
        match (old, new) {
            (Some(Value::Object(old)), Value::Object(new_map)) => {
                let here = child_path(path, &index.to_string());
                let sub = diff_maps(old, new_map, items, false, &here, set_order)?;
                if !sub.is_empty() {
                    let mut item = sub;
                    item.insert(key, id.clone());
                    patch.push(Value::Object(sorted(item)));
                }
            }
            _ => patch.push(new.clone()),
        }
    }
    let mut order_changed = original.len() != modified.len();
    for (old, new) in original.iter().zip(modified) {
        order_changed |= !merge_key_of(old, key, path)?.equivalent(merge_key_of(new, key, path)?);
    }
    for old in original {
        let id = merge_key_of(old, key, path)?;
        if !modified.iter().any(|m| m.get(key).is_some_and(|k| k.equivalent(id))) {
            let mut deletion = Map::new();
            deletion.insert(PATCH_DIRECTIVE, Value::String("delete".into()));
            deletion.insert(key, id.clone());
            patch.push(Value::Object(deletion));
        }
    }
    let order = (!patch.is_empty() || order_changed).then(|| {
        modified
            .iter()
            .filter_map(|m| m.get(key))
            .map(|id| Value::Object([(key.to_string(), id.clone())].into_iter().collect()))
            .collect()
    });
    Ok(ListPatch { patch, delete: Vec::new(), order })
}

fn bad(path: &str, reason: BadPatch) -> StrategicError {
    StrategicError::BadPatch { path: shown(path), reason }
}

fn apply_map(
    mut original: Map,
    patch: &Map,
    schema: Option<SchemaNode<'_>>,
    path: &str,
) -> Result<Map, StrategicError> {
    match patch.get(PATCH_DIRECTIVE) {
        None => {}
        Some(Value::String(d)) if d == "replace" => {
            let mut replacement = patch.clone();
            replacement.remove(PATCH_DIRECTIVE);
            return Ok(replacement);
        }
        Some(Value::String(d)) if d == "delete" => return Ok(Map::new()),
        Some(other) => return Err(bad(path, BadPatch::UnknownDirective(other.to_string()))),
    }
    if let Some(keep) = patch.get(RETAIN_KEYS) {
        let keep = keep.as_array().ok_or_else(|| bad(path, BadPatch::NotAList(RETAIN_KEYS.to_owned())))?;
        let names: Vec<&str> = keep.iter().filter_map(Value::as_str).collect();
        let drop: Vec<String> =
            original.iter().filter(|(k, _)| !names.contains(k)).map(|(k, _)| k.to_string()).collect();
        for key in drop {
            original.remove(&key);
        }
    }
    for (key, value) in patch.iter() {
        if let Some(field) = key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
            let remove = value.as_array().ok_or_else(|| bad(path, BadPatch::NotAList(key.to_owned())))?;
            if let Some(Value::Array(items)) = original.get(field) {
                let kept: Vec<Value> =
                    items.iter().filter(|i| !remove.iter().any(|r| r.equivalent(i))).cloned().collect();
                original.insert(field, Value::Array(kept));
            }
        }
    }
    for (key, value) in patch.iter() {
        if key.starts_with('$') {
            continue;
        }
        let here = child_path(path, key);
        if matches!(value, Value::Null) {
            original.remove(key);
            continue;
        }
        let field = schema.and_then(|s| s.property(key));
        let strategy = field.map(SchemaNode::patch_strategy).unwrap_or_default();
        let merged = match (original.get(key), value) {
            (Some(Value::Object(old)), Value::Object(p)) => Value::Object(apply_map(old.clone(), p, field, &here)?),
            (None, Value::Object(p)) => Value::Object(apply_map(Map::new(), p, field, &here)?),
            (Some(Value::Array(old)), Value::Array(p)) if strategy.merge => {
                Value::Array(merge_lists(old.clone(), p, field, &here)?)
            }
            (None, Value::Array(p)) if strategy.merge => Value::Array(merge_lists(Vec::new(), p, field, &here)?),
            _ => value.clone(),
        };
        original.insert(key, merged);
    }
    for (key, order) in patch.iter() {
        if let Some(field) = key.strip_prefix(SET_ELEMENT_ORDER) {
            let order = order.as_array().ok_or_else(|| bad(path, BadPatch::NotAList(key.to_owned())))?;
            let merge_key = schema.and_then(|s| s.property(field)).and_then(SchemaNode::patch_merge_key);
            if let Some(Value::Array(items)) = original.get(field) {
                let reordered = reorder(items, order, merge_key);
                original.insert(field, Value::Array(reordered));
            }
        }
    }
    Ok(original)
}

fn merge_lists(
    mut original: Vec<Value>,
    patch: &[Value],
    field: Option<SchemaNode<'_>>,
    path: &str,
) -> Result<Vec<Value>, StrategicError> {
    let directive = |item: &Value| item.get(PATCH_DIRECTIVE).and_then(Value::as_str).map(str::to_string);
    if patch.iter().any(|item| directive(item).as_deref() == Some("replace")) {
        return Ok(patch.iter().filter(|item| directive(item).is_none()).cloned().collect());
    }
    let items = field.and_then(SchemaNode::items);
    match field.and_then(SchemaNode::patch_merge_key) {
        Some(key) if patch.iter().all(|p| matches!(p, Value::Object(_))) => {
            for (index, item) in patch.iter().enumerate() {
                let here = child_path(path, &index.to_string());
                let id = item.get(key).ok_or_else(|| bad(&here, BadPatch::ExpectedMergeKey(key.to_owned())))?;
                let position = original.iter().position(|o| o.get(key).is_some_and(|k| k.equivalent(id)));
                let Value::Object(item_patch) = item else { continue };
                match (directive(item).as_deref(), position) {
                    (Some("delete"), _) => original.retain(|o| !o.get(key).is_some_and(|k| k.equivalent(id))),
                    (Some(other), _) => return Err(bad(&here, BadPatch::UnknownDirective(format!("{other:?}")))),
                    (None, Some(at)) => {
                        let existing = match &original[at] {
                            Value::Object(existing) => existing.clone(),
                            _ => Map::new(),
                        };
                        original[at] = Value::Object(apply_map(existing, item_patch, items, &here)?);
                    }
                    (None, None) => original.push(Value::Object(apply_map(Map::new(), item_patch, items, &here)?)),
                }
            }
        }
        _ => {
            for item in patch {
                if !original.iter().any(|o| o.equivalent(item)) {
                    original.push(item.clone());
                }
            }
        }
    }
    Ok(original)
}

/// `items` in the order `order` gives (by merge key, or by value for scalars); items the order
/// does not name keep their relative order after the named ones.
fn reorder(items: &[Value], order: &[Value], merge_key: Option<&str>) -> Vec<Value> {
    let matches = |item: &Value, entry: &Value| match merge_key {
        Some(key) => match (item.get(key), entry.get(key)) {
            (Some(a), Some(b)) => a.equivalent(b),
            _ => false,
        },
        None => item.equivalent(entry),
    };
    let mut placed = vec![false; items.len()];
    let mut out = Vec::with_capacity(items.len());
    for entry in order {
        if let Some(i) = (0..items.len()).find(|&i| !placed[i] && matches(&items[i], entry)) {
            placed[i] = true;
            out.push(items[i].clone());
        }
    }
    out.extend(items.iter().zip(&placed).filter(|(_, p)| !**p).map(|(item, _)| item.clone()));
    out
}

#[cfg(test)]
#[path = "strategic_tests.rs"]
mod tests;
