//! The `pods/eviction` subresource (`POST …/pods/NAME/eviction`, a `policy/v1` or `v1beta1`
//! `Eviction`), after `pkg/registry/core/pod/storage/eviction.go`: a pod that is Pending, ended
//! or already terminating is deleted at once; otherwise the PodDisruptionBudget that selects it
//! (more than one is the real 500) must allow a disruption: its status must be current
//! (`observedGeneration`, else 429 "is still being processed" with `Retry-After: 10`), and with
//! `disruptionsAllowed` at 0 the answer is 429 TooManyRequests "Cannot evict pod as it would
//! violate the pod's disruption budget." with a `DisruptionBudget` cause naming the budget
//! (`disruptionDeniedMessage`); else the budget is charged (`disruptionsAllowed` - 1, the pod in
//! `disruptedPods`) and the pod gets the `DisruptionTarget` condition and is deleted gracefully
//! with the Eviction's `deleteOptions`. A not-ready pod whose budget is otherwise met goes
//! without charge (`IfHealthyBudget`, or `AlwaysAllow`). Success is 201 with a Success Status.
//! `dryRun` checks everything and changes nothing.

use std::sync::Arc;

use axum::response::Response;
use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::is_ready;
use crate::controllers::disruption::{self, set_condition};
use crate::http::write::after::after_write;
use crate::http::write::body::{decode_object, Decoded};
use crate::http::write::delete::delete_options;
use crate::http::{Ctx, ResourcePath};
use crate::rules::selector::object_selector_matches;
use crate::rules::status::{bad_request, not_found, ApiResult, Cause, Details, Status};
use crate::store::deletion::{delete_in, DeleteOptions, Deleted};
use crate::store::{object, Txn};

const MESSAGE: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

pub fn evict(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let Decoded { value: eviction, .. } = decode_object(ctx, body)?;
    let kind_ok = eviction["kind"].as_str().is_none_or(|k| k == "Eviction");
    if !kind_ok {
        return Err(bad_request(format!("not a Eviction object: {}", eviction["kind"].as_str().unwrap_or_default())));
    }
    if object::name(&eviction) != name {
        return Err(bad_request("name in URL does not match name in Eviction object"));
    }
    let mut opts = match eviction.get("deleteOptions").filter(|o| o.is_object()) {
        Some(o) => delete_options(ctx, &serde_json::to_vec(o).unwrap_or_default())?,
        None => delete_options(ctx, b"")?,
    };
    opts.dry_run = opts.dry_run || ctx.query.get("dryRun").is_some_and(|d| d == "All");
    let rt = path.rt.clone();
    let ns = path.namespace.clone().unwrap_or_default();
    let deleted = app.store.write(|txn| evict_in(app, txn, &rt, &ns, name, &opts))?;
    if let Some(pod) = deleted {
        let gone = app.store.read().get("/pods", &ns, name).is_none();
        after_write(app, &rt, &pod, gone);
    }
    let mut status = Status::success(Details::default());
    status.details = None;
    status.code = 201;
    Ok(crate::http::status_response(ctx, &status))
}

/// The eviction inside one write: the pod deleted (its last state), or the refusal.
fn evict_in(
    app: &Arc<App>,
    txn: &mut Txn<'_>,
    rt: &crate::store::registry::ResourceType,
    ns: &str,
    name: &str,
    opts: &DeleteOptions,
) -> ApiResult<Option<Value>> {
    let pod = txn.get("/pods", ns, name).ok_or_else(|| not_found(rt, name))?;
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    let ignore_budget = matches!(phase, "Succeeded" | "Failed" | "Pending") || object::is_deleting(&pod);
    if !ignore_budget {
        let budgets: Vec<Value> = txn
            .state()
            .list(disruption::KEY, Some(ns))
            .iter()
            .filter(|b| object_selector_matches(&b["spec"]["selector"], &pod))
            .map(|b| b.as_ref().clone())
            .collect();
        if budgets.len() > 1 {
            return Err(Status::failure(
                500,
                "",
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            )
            .into());
        }
        if let Some(budget) = budgets.first() {
            charge(txn, budget, &pod, opts.dry_run)?;
        }
    }
    if opts.dry_run {
        return Ok(None);
    }
    let mut marked = pod.as_ref().clone();
    mark_disruption_target(&mut marked);
    txn.put("/pods", marked);
    match delete_in(app, txn, rt, ns, name, opts)? {
        Deleted::Gone(p) | Deleted::Pending(p) => Ok(Some(p.as_ref().clone())),
    }
}

/// `checkAndDecrement` (with the not-ready shortcut before it).
fn charge(txn: &mut Txn<'_>, budget: &Value, pod: &Value, dry_run: bool) -> ApiResult<()> {
    let st = &budget["status"];
    let (current, desired) = (st["currentHealthy"].as_i64().unwrap_or(0), st["desiredHealthy"].as_i64().unwrap_or(0));
    if !is_ready(pod)
        && (budget["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow" || (current >= desired && desired > 0))
    {
        return Ok(());
    }
    let name = object::name(budget);
    if st["observedGeneration"].as_i64().unwrap_or(0) < budget["metadata"]["generation"].as_i64().unwrap_or(0) {
        return Err(too_many(
            format!("The disruption budget {name} is still being processed by the server."),
            Some(10),
        ));
    }
    let allowed = st["disruptionsAllowed"].as_i64().unwrap_or(0);
    if allowed < 0 {
        return Err(forbidden(name, "pdb disruptions allowed is negative"));
    }
    if st["disruptedPods"].as_object().is_some_and(|d| d.len() > 2000) {
        return Err(forbidden(name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller"));
    }
    if allowed == 0 {
        return Err(too_many(denied_message(budget), None));
    }
    if dry_run {
        return Ok(());
    }
    let mut next = budget.clone();
    next["status"]["disruptionsAllowed"] = json!(allowed - 1);
    if allowed - 1 == 0 {
        let observed = next["status"]["observedGeneration"].clone();
        set_condition(&mut next["status"], "False", "InsufficientPods", "", observed, object::now());
    }
    object::set_at(&mut next, &["status", "disruptedPods", object::name(pod)], json!(object::now_string()));
    txn.put(disruption::KEY, next);
    Ok(())
}

/// `disruptionDeniedMessage`.
fn denied_message(budget: &Value) -> String {
    let name = object::name(budget);
    let st = &budget["status"];
    let condition = st["conditions"].as_array().into_iter().flatten().find(|c| c["type"] == "DisruptionAllowed");
    let message = condition.and_then(|c| c["message"].as_str()).unwrap_or_default();
    let failed = condition.is_some_and(|c| c["status"] == "False") && !message.is_empty();
    let reason = condition.and_then(|c| c["reason"].as_str()).unwrap_or_default();
    let (current, desired) = (st["currentHealthy"].as_i64().unwrap_or(0), st["desiredHealthy"].as_i64().unwrap_or(0));
    if failed && reason == "SyncFailed" {
        format!("The disruption budget {name} does not allow evicting pods currently because it failed sync: {message}")
    } else if current <= desired {
        format!("The disruption budget {name} needs {desired} healthy pods and has {current} currently")
    } else if failed {
        format!("The disruption budget {name} does not allow evicting pods currently ({reason}): {message}")
    } else {
        format!("The disruption budget {name} does not allow evicting pods currently")
    }
}

fn too_many(cause: String, retry_after: Option<u64>) -> crate::rules::status::ApiError {
    Status::failure(429, "TooManyRequests", MESSAGE)
        .with_details(Details {
            causes: vec![Cause { reason: "DisruptionBudget".into(), message: cause, field: String::new() }],
            retry_after_seconds: retry_after,
            ..Details::default()
        })
        .into()
}

fn forbidden(name: &str, why: &str) -> crate::rules::status::ApiError {
    Status::failure(403, "Forbidden", format!("poddisruptionbudgets.policy \"{name}\" is forbidden: {why}"))
        .with_details(Details {
            name: name.into(),
            group: "policy".into(),
            kind: "poddisruptionbudgets".into(),
            ..Details::default()
        })
        .into()
}

/// The `DisruptionTarget` condition the eviction puts on the pod before deleting it.
fn mark_disruption_target(pod: &mut Value) {
    let mut conditions: Vec<Value> = pod["status"]["conditions"].as_array().cloned().unwrap_or_default();
    let since = conditions
        .iter()
        .find(|c| c["type"] == "DisruptionTarget" && c["status"] == "True")
        .map(|c| c["lastTransitionTime"].clone())
        .unwrap_or_else(|| json!(object::now_string()));
    conditions.retain(|c| c["type"] != "DisruptionTarget");
    conditions
        .push(json!({"type": "DisruptionTarget", "status": "True", "lastProbeTime": null, "lastTransitionTime": since,
        "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}));
    object::set_at(pod, &["status", "conditions"], json!(conditions));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(status: Value) -> Value {
        json!({"metadata": {"name": "web-pdb", "generation": 1}, "status": status})
    }

    #[test]
    fn a_refusal_names_the_budget_as_the_api_server_does() {
        let short = budget(json!({"currentHealthy": 2, "desiredHealthy": 2, "disruptionsAllowed": 0}));
        assert_eq!(denied_message(&short), "The disruption budget web-pdb needs 2 healthy pods and has 2 currently");
        let failed =
            budget(json!({"currentHealthy": 3, "desiredHealthy": 0, "conditions": [{"type": "DisruptionAllowed",
            "status": "False", "reason": "SyncFailed", "message": "found no controllers for pod \"x\""}]}));
        assert_eq!(
            denied_message(&failed),
            "The disruption budget web-pdb does not allow evicting pods currently because it failed sync: found no controllers for pod \"x\""
        );
        assert_eq!(
            denied_message(&budget(json!({"currentHealthy": 3, "desiredHealthy": 1}))),
            "The disruption budget web-pdb does not allow evicting pods currently"
        );
    }

    #[test]
    fn the_429_carries_the_disruption_budget_cause_and_no_field() {
        let crate::rules::status::ApiError::Status(s) = too_many("why".into(), None) else { panic!("a Status") };
        let body = serde_json::to_value(&*s).expect("json");
        assert_eq!(body["code"], 429);
        assert_eq!(body["reason"], "TooManyRequests");
        assert_eq!(body["message"], MESSAGE);
        assert_eq!(body["details"], json!({"causes": [{"reason": "DisruptionBudget", "message": "why"}]}));
    }

    #[test]
    fn the_pod_is_marked_as_a_disruption_target() {
        let mut pod = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        mark_disruption_target(&mut pod);
        assert_eq!(pod["status"]["conditions"][1]["reason"], "EvictionByEvictionAPI");
        assert_eq!(pod["status"]["conditions"][1]["message"], "Eviction API: evicting");
    }
}
