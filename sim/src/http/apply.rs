//! Server-side apply (`application/apply-patch+yaml`): `fieldManager` required, the applied
//! configuration merged into the live object by field ownership, fields the manager stopped
//! applying removed, conflicts with other managers answered 409 with `FieldManagerConflict`
//! causes unless `force=true`, which moves ownership.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use crate::app::App;
use crate::http::write::after::after_write;
use crate::http::write::body::{decode_cbor, decode_yaml};
use crate::http::write::options::{options_invalid, FieldValidation, WriteOptions};
use crate::http::write::reply::success;
use crate::http::write::update::{finish_update, How};
use crate::http::{Ctx, ResourcePath};
use crate::rules::fields::{self, Entry, FieldPath, FieldSet};
use crate::rules::patch;
use crate::rules::status::{bad_request, invalid, ApiError, ApiResult, Cause, Details, FieldError, Status};
use crate::store::lifecycle::stamp_new;
use crate::store::object::{self, meta_mut};

/// The fields an apply configuration sets: leaves and keyed items, not the maps around them.
fn apply_set(config: &Value, status_only: bool) -> FieldSet {
    let all = if status_only { fields::status_set(config) } else { fields::field_set(config, false) };
    all.into_iter()
        .filter(|p| {
            let n = p.len();
            let map_marker = n >= 2 && p[n - 1] == "." && p[n - 2].starts_with("f:");
            !(map_marker || (n == 1 && p[0] == "."))
        })
        .collect()
}

/// `.spec.ports[name="http"].port`, as conflicts are reported.
fn display_path(p: &FieldPath) -> String {
    let mut out = String::new();
    for el in p {
        if let Some(f) = el.strip_prefix("f:") {
            out.push('.');
            out.push_str(f);
        } else if let Some(k) = el.strip_prefix("k:") {
            let parts: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(k)
                .map(|m| m.iter().map(|(a, b)| format!("{a}={b}")).collect())
                .unwrap_or_default();
            out.push_str(&format!("[{}]", parts.join(",")));
        } else if let Some(v) = el.strip_prefix("v:") {
            out.push_str(&format!("[={v}]"));
        }
    }
    out
}

/// Removes the field at `p` from `obj` (a leaf, a keyed item or a set item).
fn remove_at(obj: &mut Value, p: &FieldPath) {
    let mut path = p.clone();
    if path.last().is_some_and(|l| l == ".") {
        path.pop();
    }
    let Some(last) = path.pop() else { return };
    let parent = if path.is_empty() { Some(&mut *obj) } else { value_at_mut(obj, &path) };
    let Some(parent) = parent else { return };
    remove_child(parent, &last);
    let emptied = match parent {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    // A map or list the manager's removals emptied goes too, as with apply in the real server.
    if emptied && path.len() > 1 && path.last().is_some_and(|l| l.starts_with("f:")) {
        remove_at(obj, &path);
    }
}

/// Removes what the manager applied last time and not this time (`p`) unless a manager still
/// owns it, then adds back the items under it that the new configuration or another manager owns:
/// structured-merge-diff's `prune` followed by `addBackOwnedItems` (kubernetes-sigs/
/// structured-merge-diff merge/update.go). Applying `{"data":{}}` and then `{"data":{"k":"v"}}`
/// thus keeps `data.k` (the old set owned `data` as an empty leaf, the new one owns `data.k`).
fn prune(obj: &mut Value, p: &FieldPath, kept: &FieldSet) {
    let mut p = p.clone();
    if p.last().is_some_and(|l| l == ".") {
        p.pop();
    }
    if p.is_empty() || kept.contains(&p) {
        return;
    }
    let owned_below = kept.iter().any(|q| q.len() > p.len() && q[..p.len()] == p[..]);
    if !owned_below {
        remove_at(obj, &p);
        return;
    }
    let keys: Vec<String> = match fields::value_at(obj, &p) {
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        // A list item under an owned path stays whole: its items are keyed by their own fields.
        _ => return,
    };
    for key in keys {
        let mut child = p.clone();
        child.push(format!("f:{key}"));
        prune(obj, &child, kept);
    }
}

fn remove_child(parent: &mut Value, last: &str) {
    if let Some(f) = last.strip_prefix("f:") {
        if let Some(m) = parent.as_object_mut() {
            m.remove(f);
        }
    } else if let Some(list) = parent.as_array_mut() {
        let target = fields::value_at(&Value::Array(list.clone()), &[last.to_string()]).cloned();
        if let Some(t) = target {
            if let Some(i) = list.iter().position(|x| *x == t) {
                list.remove(i);
            }
        }
    }
}

fn value_at_mut<'a>(obj: &'a mut Value, p: &[String]) -> Option<&'a mut Value> {
    let mut cur = obj;
    for el in p {
        if let Some(f) = el.strip_prefix("f:") {
            cur = cur.as_object_mut()?.get_mut(f)?;
        } else {
            let found = fields::value_at(cur, std::slice::from_ref(el))?.clone();
            cur = cur.as_array_mut()?.iter_mut().find(|x| **x == found)?;
        }
    }
    Some(cur)
}

fn conflict_error(conflicts: &BTreeMap<String, Vec<(String, String)>>) -> ApiError {
    let total: usize = conflicts.values().map(Vec::len).sum();
    let mut causes = Vec::new();
    let mut parts = Vec::new();
    for (manager, list) in conflicts {
        for (path, message) in list {
            causes.push(Cause { reason: "FieldManagerConflict".into(), message: message.clone(), field: path.clone() });
        }
        if list.len() == 1 {
            parts.push(format!("{}: {}", list[0].1, list[0].0));
        } else {
            let lines: Vec<String> = list.iter().map(|(p, _)| format!("- {p}")).collect();
            parts.push(format!("conflicts with \"{manager}\":\n{}", lines.join("\n")));
        }
    }
    let noun = if total == 1 { "conflict" } else { "conflicts" };
    Status::failure(409, "Conflict", format!("Apply failed with {total} {noun}: {}", parts.join("\n")))
        .with_details(Details { causes, ..Details::default() })
        .into()
}

pub fn apply(
    app: &Arc<App>,
    ctx: &Ctx,
    path: &ResourcePath,
    name: &str,
    body: &[u8],
    opts: &WriteOptions,
    cbor: bool,
) -> ApiResult<Response> {
    let rt = path.rt.clone();
    if !opts.manager_given {
        return Err(options_invalid(
            "PatchOptions",
            vec![FieldError::required("fieldManager", "is required for apply patch")],
        ));
    }
    let decoded = if cbor {
        decode_cbor(body).map_err(|e| bad_request(format!("error decoding CBOR: {e}")))?
    } else {
        decode_yaml(body).map_err(|e| bad_request(format!("error decoding YAML: {e}")))?
    };
    let mut config = decoded.value;
    if !config.is_object() {
        return Err(bad_request("error decoding YAML: the apply configuration is not an object"));
    }
    for (field, want) in [("apiVersion", rt.api_version()), ("kind", rt.kind.clone())] {
        match config[field].as_str() {
            Some(v) if v == want => {}
            Some(v) => {
                return Err(bad_request(format!(
                    "{field} in the apply configuration ({v}) does not match the endpoint ({want})"
                )))
            }
            None => return Err(invalid(&rt.group, &rt.kind, name, &[FieldError::required(field, "")])),
        }
    }
    match object::name(&config) {
        "" => {
            meta_mut(&mut config).insert("name".into(), json!(name));
        }
        n if n != name => {
            return Err(bad_request(format!(
                "the name of the object ({n}) does not match the name on the URL ({name})"
            )));
        }
        _ => {}
    }
    let ns = path.namespace.clone().unwrap_or_default();
    if rt.namespaced {
        meta_mut(&mut config).insert("namespace".into(), json!(ns));
    }
    let unknown = app.schemas.unknown_fields(&rt, &config);
    // kube-apiserver makes a custom resource's apply configuration a typed object of the CRD's
    // schema before any field validation, so an undeclared field fails it with a 500 whatever
    // fieldValidation says (recorded: 78b-ssa-unknown-field-fieldValidation-Ignore-500; Strict
    // and Warn recorded against a real 1.36 server for #39).
    if let Some(field) = unknown.first().filter(|f| rt.custom.is_some() && !f.starts_with("metadata.")) {
        return Err(Status::failure(
            500,
            "",
            format!(
                "failed to create typed patch object (/{name}; {}, Kind={}): .{field}: field not declared in schema",
                rt.api_version(),
                rt.kind
            ),
        )
        .into());
    }
    let problems: Vec<String> = if opts.validation == FieldValidation::Ignore {
        Vec::new()
    } else {
        unknown.into_iter().map(|f| format!("unknown field \"{f}\"")).collect()
    };
    if opts.validation == FieldValidation::Strict && !problems.is_empty() {
        return Err(bad_request(format!(
            "{} in version \"{}\" cannot be handled as a {}: strict decoding error: {}",
            rt.kind,
            rt.version,
            rt.kind,
            problems.join(", ")
        )));
    }
    let status_only = path.subresource.as_deref() == Some("status");
    let applied = apply_set(&config, status_only);
    let key = rt.storage_key();
    let schema = app.schemas.root(&rt).cloned();
    let now = object::now_string();
    let av = rt.api_version();
    let force = opts.force == Some(true);
    let (stored, created) = app.store.write(|txn| -> ApiResult<(Value, bool)> {
        let Some(live) = txn.get(&key, &ns, name) else {
            if status_only {
                return Err(crate::rules::status::not_found(&rt, name));
            }
            let mut obj = config.clone();
            app.schemas.apply_defaults(&rt, &mut obj);
            let errors = app.schemas.validate_values(&rt, &obj);
            if !errors.is_empty() {
                return Err(invalid(&rt.group, &rt.kind, name, &errors));
            }
            stamp_new(&rt, &mut obj, &opts.manager);
            crate::http::write::create::allocate(txn, &rt, &mut obj)?;
            let entry = Entry {
                manager: opts.manager.clone(),
                operation: "Apply".into(),
                api_version: av.clone(),
                time: now.clone(),
                subresource: None,
                set: applied.clone(),
            };
            fields::set_entries(&mut obj, &[entry]);
            if opts.dry_run {
                return Ok((obj, true));
            }
            let exists = txn.get("/namespaces", "", &ns).is_some() || !rt.namespaced;
            if !exists {
                return Err(Status::failure(404, "NotFound", format!("namespaces \"{ns}\" not found")).into());
            }
            return Ok(((*txn.put(&key, obj)).clone(), true));
        };
        let live_v = crate::http::with_version(&rt, &live);
        let sub = path.subresource.clone();
        let mut entries = fields::entries(&live_v);
        let mut conflicts: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for e in
            entries.iter().filter(|e| !(e.manager == opts.manager && e.operation == "Apply") && e.subresource == sub)
        {
            for p in e.set.intersection(&applied).filter(|p| p.last().is_some_and(|l| l != ".")) {
                if fields::value_at(&live_v, p) != fields::value_at(&config, p) {
                    let message = if e.operation == "Apply" {
                        format!("conflict with \"{}\"", e.manager)
                    } else {
                        format!("conflict with \"{}\" using {}", e.manager, e.api_version)
                    };
                    conflicts.entry(e.manager.clone()).or_default().push((display_path(p), message));
                }
            }
        }
        if !conflicts.is_empty() && !force {
            return Err(conflict_error(&conflicts));
        }
        let mut merged = patch::apply_merge(&app.schemas, schema.as_ref(), &live_v, &config);
        let previous: FieldSet = entries
            .iter()
            .find(|e| e.manager == opts.manager && e.operation == "Apply" && e.subresource == sub)
            .map(|e| e.set.clone())
            .unwrap_or_default();
        let mut kept = applied.clone();
        for e in entries.iter().filter(|e| !(e.manager == opts.manager && e.operation == "Apply")) {
            kept.extend(e.set.iter().cloned());
        }
        for p in previous.difference(&applied) {
            prune(&mut merged, p, &kept);
        }
        for e in entries.iter_mut().filter(|e| !(e.manager == opts.manager && e.operation == "Apply")) {
            e.set.retain(|p| fields::value_at(&live_v, p) == fields::value_at(&merged, p) || !applied.contains(p));
        }
        entries.retain(|e| !(e.manager == opts.manager && e.operation == "Apply" && e.subresource == sub));
        entries.push(Entry {
            manager: opts.manager.clone(),
            operation: "Apply".into(),
            api_version: av.clone(),
            time: now.clone(),
            subresource: sub.clone(),
            set: applied.clone(),
        });
        let how = How { opts, subresource: sub.as_deref(), managed: Some(entries) };
        let new = finish_update(app, txn, &rt, &live, merged, how)?;
        Ok((new, false))
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
    }
    let code = if created { StatusCode::CREATED } else { StatusCode::OK };
    success(ctx, &rt, &stored, code, &problems)
}
