//! The disruption controller, after `pkg/controller/disruption/disruption.go`: a
//! PodDisruptionBudget's status from the pods its selector matches in its namespace.
//! `expectedPods` is the number of pods (integer `minAvailable`) or the sum of the scales of
//! their controllers (`maxUnavailable`, percentage `minAvailable`: a Deployment through its
//! ReplicaSet, a ReplicaSet, a StatefulSet, a ReplicationController; any other controller, a
//! DaemonSet for one, is the sync failure "found no controllers for pod"); `desiredHealthy`
//! follows from the budget (percentages rounded up); `currentHealthy` counts the Ready pods that
//! are not being deleted nor recently evicted (`disruptedPods`, forgotten after two minutes or
//! once the pod goes); `disruptionsAllowed` is their difference, never below zero; the
//! `DisruptionAllowed` condition is `SufficientPods`/`InsufficientPods`, or `SyncFailed` with the
//! error (`failSafe`). Events: `NoPods`, `CalculateExpectedPodCountFailed`, `UnmanagedPods`.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::controllers::control::{self, controller_of, int, is_ready, Actions, EventType, Outcome, PODS};
use crate::rules::selector::object_selector_matches;
use crate::store::{object, Txn};

pub const KEY: &str = "policy/poddisruptionbudgets";
const COMPONENT: &str = "controllermanager";
/// How long an eviction keeps a pod out of the healthy count (`DeletionTimeout`).
const DELETION_TIMEOUT_SECONDS: i64 = 120;

/// Recomputes a budget's status.
pub fn reconcile(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str, now: DateTime<Utc>) -> Outcome {
    let Some(pdb) = txn.get(KEY, ns, name) else { return Outcome::default() };
    let pods: Vec<Value> = txn
        .state()
        .list(PODS, Some(ns))
        .into_iter()
        .filter(|p| object_selector_matches(&pdb["spec"]["selector"], p))
        .map(|p| p.as_ref().clone())
        .collect();
    let scale_of = |kind: &str, owner: &str| scale(txn, ns, kind, owner);
    let (actions, recheck) = plan(&pdb, &pods, &scale_of, now);
    control::apply(app, txn, actions);
    Outcome { started: Vec::new(), again_after: recheck.map(|t| t - now) }
}

/// The scale of a pod's controller, by its kind and name, and the uid that names it
/// (`finders`).
fn scale(txn: &Txn<'_>, ns: &str, kind: &str, name: &str) -> Option<(String, i64)> {
    let of = |key: &str, n: &str| txn.get(key, ns, n);
    let replicas = |o: &Value| int(&o["spec"]["replicas"], 1);
    match kind {
        "ReplicaSet" => {
            let rs = of("apps/replicasets", name)?;
            match controller_of(&rs).filter(|r| r["kind"] == "Deployment") {
                Some(dep_ref) => {
                    let dep = of("apps/deployments", dep_ref["name"].as_str()?)?;
                    Some((object::uid(&dep).to_string(), replicas(&dep)))
                }
                None => Some((object::uid(&rs).to_string(), replicas(&rs))),
            }
        }
        "StatefulSet" => of("apps/statefulsets", name).map(|o| (object::uid(&o).to_string(), replicas(&o))),
        "ReplicationController" => {
            of("/replicationcontrollers", name).map(|o| (object::uid(&o).to_string(), replicas(&o)))
        }
        _ => None,
    }
}

/// The scale of a pod's controller by its kind and name, with the uid that names the controller.
pub type ScaleOf<'a> = dyn Fn(&str, &str) -> Option<(String, i64)> + 'a;

/// `intstr.GetScaledValueFromIntOrPercent` rounding up.
fn scaled_up(v: &Value, total: i64) -> Result<i64, String> {
    match v {
        Value::Number(n) => Ok(n.as_i64().unwrap_or(0)),
        Value::String(s) => s
            .strip_suffix('%')
            .and_then(|p| p.parse::<i64>().ok())
            .map(|p| (p * total + 99) / 100)
            .ok_or_else(|| format!("invalid value for IntOrString: invalid type: string is not a percentage: {s}")),
        _ => Ok(0),
    }
}

/// `getExpectedPodCount`: (expected, desired healthy, unmanaged pods).
fn expected(pdb: &Value, pods: &[Value], scale_of: &ScaleOf) -> Result<(i64, i64, Vec<String>), String> {
    let spec = &pdb["spec"];
    let by_controllers = || -> Result<(i64, Vec<String>), String> {
        let mut scales: HashMap<String, i64> = HashMap::new();
        let mut unmanaged = Vec::new();
        for pod in pods {
            let Some(owner) = controller_of(pod) else {
                unmanaged.push(object::name(pod).to_string());
                continue;
            };
            let found =
                scale_of(owner["kind"].as_str().unwrap_or_default(), owner["name"].as_str().unwrap_or_default());
            let (uid, n) = found.ok_or_else(|| format!("found no controllers for pod \"{}\"", object::name(pod)))?;
            scales.insert(uid, n);
        }
        Ok((scales.values().sum(), unmanaged))
    };
    if !spec["maxUnavailable"].is_null() {
        let (count, unmanaged) = by_controllers()?;
        let max = scaled_up(&spec["maxUnavailable"], count)?;
        Ok((count, (count - max).max(0), unmanaged))
    } else if let Some(n) = spec["minAvailable"].as_i64() {
        Ok((pods.len() as i64, n, Vec::new()))
    } else if spec["minAvailable"].is_string() {
        let (count, unmanaged) = by_controllers()?;
        Ok((count, scaled_up(&spec["minAvailable"], count)?, unmanaged))
    } else {
        Ok((0, 0, Vec::new()))
    }
}

/// One round for `pdb` over the pods its selector matches; the actions (the status, Events) and
/// when to look again (when an eviction record expires).
pub fn plan(pdb: &Value, pods: &[Value], scale_of: &ScaleOf, now: DateTime<Utc>) -> (Actions, Option<DateTime<Utc>>) {
    let mut actions = Actions::default();
    if pods.is_empty() {
        actions.event(pdb, EventType::Normal, "NoPods", "No matching pods found".into(), COMPONENT);
    }
    let mut status = pdb["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    let mut recheck = None;
    match expected(pdb, pods, scale_of) {
        Err(e) => {
            let message = format!("Failed to calculate the number of expected pods: {e}");
            actions.event(pdb, EventType::Warning, "CalculateExpectedPodCountFailed", message, COMPONENT);
            // `failSafe`: nothing may be disrupted while the budget cannot be computed.
            status["disruptionsAllowed"] = json!(0);
            let observed = status["observedGeneration"].clone();
            set_condition(&mut status, "False", "SyncFailed", &e, observed, now);
        }
        Ok((expected, desired, unmanaged)) => {
            if !unmanaged.is_empty() {
                let message = format!("Pods selected by this PodDisruptionBudget (selector: {}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", go_selector(&pdb["spec"]["selector"]));
                actions.event(pdb, EventType::Warning, "UnmanagedPods", message, COMPONENT);
            }
            let mut disrupted = Map::new();
            for pod in pods.iter().filter(|p| !object::is_deleting(p)) {
                let Some(at) = status["disruptedPods"][object::name(pod)].as_str().and_then(object::parse_time) else {
                    continue;
                };
                let until = at + Duration::seconds(DELETION_TIMEOUT_SECONDS);
                if until > now {
                    disrupted.insert(object::name(pod).to_string(), json!(object::timestamp(at)));
                    recheck = Some(recheck.map_or(until, |r: DateTime<Utc>| r.min(until)));
                }
            }
            let healthy = pods
                .iter()
                .filter(|p| !object::is_deleting(p) && !disrupted.contains_key(object::name(p)) && is_ready(p))
                .count() as i64;
            let allowed = if expected <= 0 { 0 } else { (healthy - desired).max(0) };
            let generation = pdb["metadata"]["generation"].clone();
            let conditions = status["conditions"].clone();
            status = json!({"observedGeneration": generation, "disruptionsAllowed": allowed, "currentHealthy": healthy,
                "desiredHealthy": desired, "expectedPods": expected});
            if !conditions.is_null() {
                status["conditions"] = conditions;
            }
            if !disrupted.is_empty() {
                status["disruptedPods"] = Value::Object(disrupted);
            }
            let (s, reason) = if allowed > 0 { ("True", "SufficientPods") } else { ("False", "InsufficientPods") };
            set_condition(&mut status, s, reason, "", generation, now);
        }
    }
    if pdb["status"] != status {
        let mut next = pdb.clone();
        next["status"] = status;
        actions.updates.push((KEY, next));
    } else {
        actions.events.clear();
    }
    (actions, recheck)
}

/// `apimeta.SetStatusCondition` of `DisruptionAllowed`: the transition time moves only with the
/// status.
pub fn set_condition(status: &mut Value, s: &str, reason: &str, message: &str, observed: Value, now: DateTime<Utc>) {
    let mut conditions: Vec<Value> = status["conditions"].as_array().cloned().unwrap_or_default();
    let old = conditions.iter().find(|c| c["type"] == "DisruptionAllowed").cloned();
    let since = match &old {
        Some(o) if o["status"] == s => o["lastTransitionTime"].clone(),
        _ => json!(object::timestamp(now)),
    };
    let mut c = json!({"type": "DisruptionAllowed", "status": s, "lastTransitionTime": since, "reason": reason, "message": message});
    if observed.as_i64().is_some_and(|g| g != 0) {
        c["observedGeneration"] = observed;
    }
    match conditions.iter_mut().find(|c| c["type"] == "DisruptionAllowed") {
        Some(slot) => *slot = c,
        None => conditions.push(c),
    }
    status["conditions"] = json!(conditions);
}

/// A label selector as Go's `%v` prints the struct (`&LabelSelector{MatchLabels:map[app:web,],MatchExpressions:[]LabelSelectorRequirement{},}`).
fn go_selector(selector: &Value) -> String {
    let labels: Vec<String> = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}:{},", v.as_str().unwrap_or_default()))
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{}}},MatchExpressions:[]LabelSelectorRequirement{{}},}}",
        labels.join("")
    )
}

#[cfg(test)]
#[path = "disruption_tests.rs"]
mod tests;
