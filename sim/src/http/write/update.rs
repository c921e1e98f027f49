//! **update** (`PUT`), and the step every write that replaces an object ends with: the stored
//! fields carried over, the resourceVersion precondition (409), generation and managedFields.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use crate::http::write::after::after_write;
use crate::http::write::body::{check_type, decode_check, decode_object, field_problems, strict_error, Decoded};
use crate::http::write::options::{FieldValidation, WriteOptions};
use crate::http::write::reply::success;
use crate::http::write::scale::scale_write;
use crate::http::{Ctx, ResourcePath};
use crate::rules::fields::{record_update, Entry, Writer};
use crate::rules::status::{bad_request, conflict, invalid, not_found, ApiResult};
use crate::store::deletion::remove_now;
use crate::store::lifecycle::carry_over;
use crate::store::registry::ResourceType;
use crate::store::Txn;
use crate::{app::App, store::object};

/// Who writes and through which subresource; `managed` carries apply's computed entries.
pub struct How<'a> {
    pub opts: &'a WriteOptions,
    pub subresource: Option<&'a str>,
    pub managed: Option<Vec<Entry>>,
}

/// The second half of every update: checks, managedFields, the stored write (or not, for
/// dry-run), and removal when the last finalizer of a deleting object goes.
pub fn finish_update(
    app: &Arc<App>,
    txn: &mut Txn<'_>,
    rt: &ResourceType,
    old: &Value,
    mut new: Value,
    how: How<'_>,
) -> ApiResult<Value> {
    let How { opts, subresource, managed } = how;
    let name = object::name(old).to_string();
    let ns = object::namespace(old).to_string();
    if let Some(given) = object::meta(&new)["resourceVersion"].as_str() {
        if !given.is_empty() && given != object::resource_version(old) {
            return Err(conflict(
                rt,
                &name,
                "the object has been modified; please apply your changes to the latest version and try again",
            ));
        }
    }
    if object::name(&new) != name && !object::name(&new).is_empty() {
        return Err(bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({name})",
            object::name(&new)
        )));
    }
    carry_over(rt, old, &mut new, subresource);
    app.schemas.apply_defaults(rt, &mut new);
    let errors = app.schemas.validate_values(rt, &new);
    if !errors.is_empty() {
        return Err(invalid(&rt.group, &rt.kind, &name, &errors));
    }
    match managed {
        Some(entries) => {
            let entries: Vec<Entry> = entries
                .into_iter()
                .map(|mut e| {
                    e.set.retain(|p| crate::rules::fields::value_at(&new, p).is_some());
                    e
                })
                .collect();
            crate::rules::fields::set_entries(&mut new, &entries);
        }
        None => {
            let now = object::now_string();
            let av = rt.api_version();
            record_update(
                Some(old),
                &mut new,
                &Writer { manager: &opts.manager, operation: "Update", api_version: &av, subresource, time: &now },
            );
        }
    }
    if opts.dry_run {
        return Ok(new);
    }
    if new == *old {
        return Ok(new);
    }
    let key = rt.storage_key();
    if object::is_deleting(&new) && object::finalizers(&new).is_empty() {
        let gone = txn.put(&key, new);
        remove_now(app, txn, rt, &ns, &name);
        return Ok((*gone).clone());
    }
    Ok((*txn.put(&key, new)).clone())
}

pub fn update(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = WriteOptions::parse(ctx)?;
    let Decoded { value: mut obj, duplicates } = decode_object(ctx, body)?;
    let sub = path.subresource.as_deref();
    if sub == Some("scale") {
        return scale_write(app, ctx, path, name, Some(obj), None);
    }
    check_type(&rt, &mut obj)?;
    decode_check(app, &rt, &obj)?;
    let problems = field_problems(app, &rt, &obj, &duplicates, &opts);
    if opts.validation == FieldValidation::Strict && !problems.is_empty() {
        return Err(strict_error(&rt, &problems));
    }
    let ns = path.namespace.clone().unwrap_or_default();
    let key = rt.storage_key();
    let stored = app.store.write(|txn| {
        let old = txn.get(&key, &ns, name).ok_or_else(|| not_found(&rt, name))?;
        finish_update(app, txn, &rt, &old, obj, How { opts: &opts, subresource: sub, managed: None })
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
    }
    success(ctx, &rt, &stored, StatusCode::OK, &problems)
}
