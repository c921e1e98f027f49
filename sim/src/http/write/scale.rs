//! The `scale` subresource: read and written as an `autoscaling/v1` `Scale`.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use kube_wire::media_type::PatchType;
use serde_json::{json, Value};

use crate::http::write::after::after_write;
use crate::http::write::options::WriteOptions;
use crate::http::write::reply::patch_rejected;
use crate::http::{Ctx, ResourcePath};
use crate::rules::fields::{record_update, Writer};
use crate::rules::patch;
use crate::rules::status::{conflict, invalid, not_found, ApiResult, FieldError};
use crate::store::lifecycle::carry_over;
use crate::store::object::meta_mut;
use crate::store::registry::ResourceType;
use crate::{app::App, store::object};

/// The Scale view of an object (deployments, replicasets, statefulsets, the CRD).
pub fn scale_of(rt: &ResourceType, obj: &Value) -> Value {
    let meta = object::meta(obj);
    let mut status = json!({"replicas": obj["status"]["replicas"].as_i64().unwrap_or(0)});
    if !rt.is_custom() {
        if let Some(sel) = obj["spec"]["selector"]["matchLabels"].as_object() {
            let s: Vec<String> = sel.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect();
            status["selector"] = json!(s.join(","));
        }
    }
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"],
            "resourceVersion": meta["resourceVersion"], "creationTimestamp": meta["creationTimestamp"]},
        "spec": {"replicas": obj["spec"]["replicas"].as_i64().unwrap_or(1)}, "status": status})
}

pub fn scale_get(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str) -> ApiResult<Response> {
    let rt = &path.rt;
    let obj = app
        .store
        .read()
        .get(&rt.storage_key(), path.namespace.as_deref().unwrap_or_default(), name)
        .ok_or_else(|| not_found(rt, name))?;
    Ok(crate::http::json_response(ctx, StatusCode::OK, &scale_of(rt, &obj)))
}

pub fn scale_write(
    app: &Arc<App>,
    ctx: &Ctx,
    path: &ResourcePath,
    name: &str,
    put: Option<Value>,
    patch_body: Option<(PatchType, &[u8])>,
) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = WriteOptions::parse(ctx)?;
    let ns = path.namespace.clone().unwrap_or_default();
    let key = rt.storage_key();
    let scale = app.store.write(|txn| {
        let old = txn.get(&key, &ns, name).ok_or_else(|| not_found(&rt, name))?;
        let current = scale_of(&rt, &old);
        let wanted = match (&put, patch_body) {
            (Some(v), _) => v.clone(),
            (None, Some((PatchType::Json, b))) => patch::json_patch(&current, b).map_err(|_| patch_rejected())?,
            (None, Some((_, b))) => patch::merge_patch(&current, b).map_err(|_| patch_rejected())?,
            (None, None) => current.clone(),
        };
        if let Some(given) = wanted["metadata"]["resourceVersion"].as_str() {
            if !given.is_empty() && given != object::resource_version(&old) {
                return Err(conflict(
                    &rt,
                    name,
                    "the object has been modified; please apply your changes to the latest version and try again",
                ));
            }
        }
        let replicas = wanted["spec"]["replicas"]
            .as_i64()
            .ok_or_else(|| invalid("autoscaling", "Scale", name, &[FieldError::required("spec.replicas", "")]))?;
        if replicas < 0 {
            return Err(invalid(
                "autoscaling",
                "Scale",
                name,
                &[FieldError::invalid("spec.replicas", &json!(replicas), "must be greater than or equal to 0")],
            ));
        }
        let mut new = old.as_ref().clone();
        object::set_at(&mut new, &["spec", "replicas"], json!(replicas));
        if let Some(m) = meta_mut(&mut new).get_mut("resourceVersion") {
            *m = json!(object::resource_version(&old));
        }
        let now = object::now_string();
        let av = rt.api_version();
        let mut tracked = new.clone();
        carry_over(&rt, &old, &mut tracked, Some("scale"));
        record_update(
            Some(&old),
            &mut tracked,
            &Writer {
                manager: &opts.manager,
                operation: "Update",
                api_version: &av,
                subresource: Some("scale"),
                time: &now,
            },
        );
        let stored = if opts.dry_run || tracked == *old { tracked } else { (*txn.put(&key, tracked)).clone() };
        Ok(scale_of(&rt, &stored))
    })?;
    if !opts.dry_run {
        // Bound first: the read guard must be gone before the controller writes.
        let stored = app.store.read().get(&key, &ns, name);
        if let Some(obj) = stored {
            after_write(app, &rt, &obj, false);
        }
    }
    Ok(crate::http::json_response(ctx, StatusCode::OK, &scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    #[test]
    fn a_deployments_scale_carries_its_replicas_and_selector() {
        let registry = Registry::load().expect("registry");
        let deployments = registry.find("apps", "v1", "deployments").expect("deployments");
        let deployment = json!({
            "metadata": {"name": "web", "namespace": "demo", "uid": "u", "resourceVersion": "7"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web", "tier": "front"}}},
            "status": {"replicas": 2}
        });
        let scale = scale_of(&deployments, &deployment);
        assert_eq!(scale["kind"], "Scale");
        assert_eq!(scale["apiVersion"], "autoscaling/v1");
        assert_eq!(scale["spec"]["replicas"], 3);
        assert_eq!(scale["status"], json!({"replicas": 2, "selector": "app=web,tier=front"}));
        assert_eq!(scale["metadata"]["resourceVersion"], "7");
    }
}
