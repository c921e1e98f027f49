//! **create** (`POST`): a new object, named or `generateName`d, defaulted and validated.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use crate::http::write::after::after_write;
use crate::http::write::body::{check_type, decode_check, decode_object, field_problems, strict_error, Decoded};
use crate::http::write::options::{FieldValidation, WriteOptions};
use crate::http::write::reply::success;
use crate::http::{Ctx, ResourcePath};
use crate::rules::status::{bad_request, invalid, ApiResult, Details, FieldError, Status};
use crate::store::lifecycle::{has_status, is_crd, name_errors, prepare_crd, random_suffix, stamp_new};
use crate::store::object::meta_mut;
use crate::store::registry::ResourceType;
use crate::store::Txn;
use crate::{app::App, rules::status, store::object};

/// Ensures the namespace of a namespaced create exists and is not terminating.
pub fn check_namespace(txn: &Txn<'_>, rt: &ResourceType, ns: &str) -> ApiResult<()> {
    if !rt.namespaced {
        return Ok(());
    }
    match txn.get("/namespaces", "", ns) {
        None => Err(Status::failure(404, "NotFound", format!("namespaces \"{ns}\" not found"))
            .with_details(Details { name: ns.into(), kind: "namespaces".into(), ..Details::default() })
            .into()),
        Some(n) if object::is_deleting(&n) => Err(Status::failure(
            403,
            "Forbidden",
            format!(
                "{} \"{}\" is forbidden: unable to create new content in namespace {ns} because it is being terminated",
                rt.qualified_name(),
                ""
            ),
        )
        .into()),
        Some(_) => Ok(()),
    }
}

pub fn create(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = WriteOptions::parse(ctx)?;
    let Decoded { value: mut obj, duplicates } = decode_object(ctx, body)?;
    check_type(&rt, &mut obj)?;
    decode_check(app, &rt, &obj)?;
    let ns = path.namespace.clone().unwrap_or_default();
    {
        let meta = meta_mut(&mut obj);
        match meta.get("namespace").and_then(Value::as_str) {
            Some(given) if rt.namespaced && !given.is_empty() && given != ns => {
                return Err(bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ))
            }
            _ => {}
        }
        if rt.namespaced {
            meta.insert("namespace".into(), json!(ns));
        } else {
            meta.remove("namespace");
        }
        let name = meta.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        if name.is_empty() {
            match meta.get("generateName").and_then(Value::as_str) {
                Some(prefix) if !prefix.is_empty() => {
                    let generated = format!("{prefix}{}", random_suffix());
                    meta.insert("name".into(), json!(generated));
                }
                _ => {
                    return Err(invalid(
                        &rt.group,
                        &rt.kind,
                        "",
                        &[FieldError::required("metadata.name", "name or generateName is required")],
                    ))
                }
            }
        }
    }
    let name = object::name(&obj).to_string();
    let mut errors = name_errors(&name);
    let problems = field_problems(app, &rt, &obj, &duplicates, &opts);
    if opts.validation == FieldValidation::Strict && !problems.is_empty() {
        return Err(strict_error(&rt, &problems));
    }
    app.schemas.apply_defaults(&rt, &mut obj);
    errors.extend(app.schemas.validate_values(&rt, &obj));
    if !errors.is_empty() {
        return Err(invalid(&rt.group, &rt.kind, &name, &errors));
    }
    if rt.is_custom() && has_status(&rt) {
        if let Some(m) = obj.as_object_mut() {
            m.remove("status");
        }
    }
    if rt.group.is_empty() && rt.plural == "namespaces" {
        prepare_namespace(&mut obj, &name);
    }
    if is_crd(&rt) {
        prepare_crd(&mut obj)?;
    }
    let is_pod = rt.group.is_empty() && rt.plural == "pods";
    if is_pod {
        prepare_pod(&mut obj);
    }
    stamp_new(&rt, &mut obj, &opts.manager);
    let key = rt.storage_key();
    let stored = app.store.write(|txn| -> ApiResult<Value> {
        check_namespace(txn, &rt, &ns)?;
        if txn.get(&key, &ns, &name).is_some() {
            return Err(status::already_exists(&rt, &name));
        }
        let mut obj = obj;
        allocate(txn, &rt, &mut obj)?;
        if opts.dry_run {
            return Ok(obj);
        }
        Ok((*txn.put(&key, obj)).clone())
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
        if is_pod {
            crate::controllers::kubelet::run_pod(
                app.clone(),
                ns.clone(),
                name.clone(),
                crate::controllers::deployments::pod_ready,
            );
        }
    }
    success(ctx, &rt, &stored, StatusCode::CREATED, &problems)
}

/// What the REST storage of `rt` allocates for a new object from what the store holds (a
/// Service's cluster IP and node ports).
pub fn allocate(txn: &Txn<'_>, rt: &ResourceType, obj: &mut Value) -> ApiResult<()> {
    if rt.group.is_empty() && rt.plural == "services" {
        crate::rules::service::allocate(txn.state(), obj)
            .map_err(|errors| invalid(&rt.group, &rt.kind, object::name(obj), &errors))?;
    }
    Ok(())
}

/// A new pod starts Pending: unscheduled unless the client named its node; the simulated
/// scheduler and kubelet take it from there.
pub fn prepare_pod(obj: &mut Value) {
    obj["status"] = if obj["spec"]["nodeName"].as_str().is_none_or(str::is_empty) {
        json!({"phase": "Pending", "qosClass": crate::controllers::control::qos_class(&obj["spec"])})
    } else {
        crate::controllers::dataset::pending_status()
    };
}

pub fn prepare_namespace(obj: &mut Value, name: &str) {
    let meta = meta_mut(obj);
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(l) = labels.as_object_mut() {
        l.insert("kubernetes.io/metadata.name".into(), json!(name));
    }
    obj["spec"] = json!({"finalizers": ["kubernetes"]});
    obj["status"] = json!({"phase": "Active"});
}
