//! The DaemonSet controller, after `pkg/controller/daemon/daemon_controller.go` and `update.go`:
//! one pod on every node its template fits (`nodeShouldRunDaemonPod`: node selector, affinity,
//! taints, with the tolerations the controller adds to every daemon pod, so a cordoned node
//! keeps its pod), pinned to its node by `metadata.name` node affinity for the scheduler to bind
//! (`ReplaceDaemonSetPodNodeNameNodeAffinity`); failed pods deleted to be replaced, extra pods
//! removed; a RollingUpdate deletes old pods while at most `maxUnavailable` nodes lack an
//! available updated pod, the replacement made once the old one is terminating (the
//! `maxSurge: 0` path); OnDelete leaves old pods alone. ControllerRevisions are named
//! `<ds>-<hash>` with the template hash that the pods carry as `controller-revision-hash`
//! (beside `pod-template-generation`), and the status counts `desiredNumberScheduled`,
//! `currentNumberScheduled`, `numberReady`, `numberAvailable`, `updatedNumberScheduled`,
//! `numberMisscheduled` and `numberUnavailable` as `updateDaemonSetStatus` does. Events are the
//! pod control's: `Created pod: NAME`, `Deleted pod: NAME`.
//!
//! Not simulated: `maxSurge` above zero (treated as zero), adoption of orphans.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::{
    self, int, is_available, is_ready, label, Actions, EventType, NODES, PODS, REVISIONS,
};
use crate::controllers::revisions::{self, POD_REVISION_LABEL};
use crate::controllers::scheduler;
use crate::store::strategy::TEMPLATE_GENERATION;
use crate::store::{lifecycle::random_suffix, object, Txn};

pub const KEY: &str = "apps/daemonsets";
const COMPONENT: &str = "daemonset-controller";
const GENERATION_LABEL: &str = "pod-template-generation";

/// Brings a DaemonSet's pods and revisions in line with its spec and the nodes.
pub fn reconcile(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str) -> Vec<(String, String)> {
    let Some(ds) = txn.get(KEY, ns, name) else { return Vec::new() };
    let pods = control::owned(txn, PODS, &ds, true);
    let revisions = control::owned(txn, REVISIONS, &ds, false);
    let nodes: Vec<Value> = txn.state().list(NODES, None).iter().map(|n| n.as_ref().clone()).collect();
    let actions = plan(&ds, &pods, &revisions, &nodes, object::now(), &mut random_suffix);
    control::apply(app, txn, actions)
}

/// The tolerations `util.AddOrUpdateDaemonPodTolerations` gives every daemon pod.
fn daemon_tolerations(template: &Value) -> Value {
    let mut tolerations: Vec<Value> = template["spec"]["tolerations"].as_array().cloned().unwrap_or_default();
    for (key, effect) in [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ] {
        if !tolerations.iter().any(|t| t["key"] == key && t["effect"] == effect) {
            tolerations.push(json!({"key": key, "operator": "Exists", "effect": effect}));
        }
    }
    json!(tolerations)
}

/// The daemon pod for `node`, before it has a name.
fn new_pod(ds: &Value, hash: &str, node: &str) -> Value {
    let mut pod = control::pod_from_template(ds, &ds["spec"]["template"], None);
    let generation = ds["metadata"]["annotations"][TEMPLATE_GENERATION].as_str().unwrap_or("1").to_string();
    object::set_at(&mut pod, &["metadata", "labels", POD_REVISION_LABEL], json!(hash));
    object::set_at(&mut pod, &["metadata", "labels", GENERATION_LABEL], json!(generation));
    pod["spec"]["tolerations"] = daemon_tolerations(&ds["spec"]["template"]);
    pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        json!({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]});
    pod
}

/// The node a daemon pod is for: its `nodeName`, or the node its affinity pins it to
/// (`util.GetTargetNodeName`).
fn target_node(pod: &Value) -> Option<String> {
    if let Some(n) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        return Some(n.to_string());
    }
    let terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"]
        .as_array()?;
    terms.iter().flat_map(|t| t["matchFields"].as_array().cloned().unwrap_or_default()).find_map(|f| {
        (f["key"] == "metadata.name" && f["operator"] == "In")
            .then(|| f["values"][0].as_str().map(str::to_string))
            .flatten()
    })
}

/// One round of the controller: `suffix` names the pods it creates (random in the server).
pub fn plan(
    ds: &Value,
    pods: &[Value],
    revisions: &[Value],
    nodes: &[Value],
    now: DateTime<Utc>,
    suffix: &mut dyn FnMut() -> String,
) -> Actions {
    let mut actions = Actions::default();
    let mut revisions = revisions.to_vec();
    revisions::sort(&mut revisions);
    let collisions = ds["status"]["collisionCount"].as_i64();
    let hash = revisions::template_hash(&ds["spec"]["template"], collisions);
    let mut labels = ds["spec"]["template"]["metadata"]["labels"].clone();
    object::set_at(&mut labels, &[POD_REVISION_LABEL], json!(hash));
    let name = revisions::revision_name(ds, &hash);
    let candidate = revisions::new_revision(ds, &name, labels, revisions::template_patch(ds), 0);
    let current = revisions::update_revision(&revisions, candidate, &mut actions);
    let min_ready = int(&ds["spec"]["minReadySeconds"], 0);
    let mut per_node: Vec<(Value, Vec<Value>, bool)> = Vec::new();
    for node in nodes {
        let node_name = object::name(node);
        let mut on_node: Vec<Value> = pods
            .iter()
            .filter(|p| !object::is_deleting(p) && target_node(p).as_deref() == Some(node_name))
            .cloned()
            .collect();
        on_node.sort_by_key(|p| p["metadata"]["creationTimestamp"].as_str().unwrap_or_default().to_string());
        let should_run = scheduler::fits(&new_pod(ds, &hash, node_name), node);
        per_node.push((node.clone(), on_node, should_run));
    }
    if !object::is_deleting(ds) {
        manage(ds, &hash, &per_node, suffix, &mut actions);
        let rolling = ds["spec"]["updateStrategy"]["type"].as_str().is_none_or(|t| t == "RollingUpdate");
        if rolling {
            rolling_update(ds, &hash, &per_node, min_ready, now, &mut actions);
        }
    }
    let mut live = vec![object::name(&current).to_string()];
    live.extend(pods.iter().filter_map(|p| label(p, POD_REVISION_LABEL)).map(|h| revisions::revision_name(ds, h)));
    let others: Vec<Value> = revisions.iter().filter(|r| object::name(r) != object::name(&current)).cloned().collect();
    revisions::truncate(&others, &live, int(&ds["spec"]["revisionHistoryLimit"], 10), &mut actions);
    let status = status(ds, &hash, &per_node, min_ready, now);
    if ds["status"] != status {
        let mut next = ds.clone();
        next["status"] = status;
        actions.updates.push((KEY, next));
    }
    actions
}

/// `manage`: a pod where one should run and none does, failed and surplus pods deleted.
fn manage(
    ds: &Value,
    hash: &str,
    per_node: &[(Value, Vec<Value>, bool)],
    suffix: &mut dyn FnMut() -> String,
    actions: &mut Actions,
) {
    for (node, on_node, should_run) in per_node {
        let node_name = object::name(node);
        if !should_run {
            for p in on_node {
                delete_pod(ds, p, actions);
            }
            continue;
        }
        let (failed, running): (Vec<&Value>, Vec<&Value>) = on_node.iter().partition(|p| control::phase(p) == "Failed");
        for p in &failed {
            let message = format!(
                "Found failed daemon pod {}/{} on node {node_name}, will try to kill it",
                object::namespace(p),
                object::name(p)
            );
            actions.event(ds, EventType::Warning, "FailedDaemonPod", message, COMPONENT);
            delete_pod(ds, p, actions);
        }
        match running.len() {
            0 if failed.is_empty() => {
                let mut pod = new_pod(ds, hash, node_name);
                let name = format!("{}-{}", object::name(ds), suffix());
                pod["metadata"]["name"] = json!(name);
                actions.creates.push((PODS, pod));
                actions.event(ds, EventType::Normal, "SuccessfulCreate", format!("Created pod: {name}"), COMPONENT);
            }
            0 => {}
            _ => {
                // The oldest stays (sorted by creation above).
                for p in running.iter().skip(1) {
                    delete_pod(ds, p, actions);
                }
            }
        }
    }
}

/// `rollingUpdate` with no surge: old pods go while fewer than `maxUnavailable` nodes lack an
/// available updated pod; an old pod that is not available is replaced at once.
fn rolling_update(
    ds: &Value,
    hash: &str,
    per_node: &[(Value, Vec<Value>, bool)],
    min_ready: i64,
    now: DateTime<Utc>,
    actions: &mut Actions,
) {
    let desired = per_node.iter().filter(|(_, _, run)| *run).count() as i64;
    let max_unavailable = max_unavailable(ds, desired);
    let mut unavailable = 0;
    let mut replace_now: Vec<&Value> = Vec::new();
    let mut candidates: Vec<&Value> = Vec::new();
    for (_, on_node, _) in per_node.iter().filter(|(_, _, run)| *run) {
        let new = on_node.iter().find(|p| label(p, POD_REVISION_LABEL) == Some(hash));
        let old = on_node.iter().find(|p| label(p, POD_REVISION_LABEL) != Some(hash));
        match (new, old) {
            (None, None) | (Some(_), Some(_)) => unavailable += 1,
            (Some(new), None) => unavailable += i64::from(!is_available(new, min_ready, now)),
            (None, Some(old)) if !is_available(old, min_ready, now) => replace_now.push(old),
            (None, Some(_)) if unavailable >= max_unavailable => {}
            (None, Some(old)) => candidates.push(old),
        }
    }
    let remaining = (max_unavailable - unavailable).clamp(0, candidates.len() as i64) as usize;
    for p in replace_now.into_iter().chain(candidates.into_iter().take(remaining)) {
        delete_pod(ds, p, actions);
    }
}

/// `maxUnavailable` of the RollingUpdate, scaled to the desired pods (rounded up, at least one
/// when there is no surge).
fn max_unavailable(ds: &Value, desired: i64) -> i64 {
    let v = &ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"];
    let n = match v {
        Value::String(s) => s.trim_end_matches('%').parse::<i64>().map(|p| (p * desired + 99) / 100).unwrap_or(1),
        _ => int(v, 1),
    };
    n.max(1)
}

fn delete_pod(ds: &Value, pod: &Value, actions: &mut Actions) {
    actions.delete(PODS, pod, None);
    actions.event(ds, EventType::Normal, "SuccessfulDelete", format!("Deleted pod: {}", object::name(pod)), COMPONENT);
}

/// `updateDaemonSetStatus`, zero counts of `omitempty` fields left out.
fn status(ds: &Value, hash: &str, per_node: &[(Value, Vec<Value>, bool)], min_ready: i64, now: DateTime<Utc>) -> Value {
    let (mut desired, mut current, mut misscheduled, mut ready, mut available, mut updated) = (0, 0, 0, 0, 0, 0);
    for (_, on_node, should_run) in per_node {
        match (should_run, on_node.first()) {
            (true, None) => desired += 1,
            (true, Some(pod)) => {
                desired += 1;
                current += 1;
                if is_ready(pod) {
                    ready += 1;
                    available += i64::from(is_available(pod, min_ready, now));
                }
                updated += i64::from(label(pod, POD_REVISION_LABEL) == Some(hash));
            }
            (false, Some(_)) => misscheduled += 1,
            (false, None) => {}
        }
    }
    let mut s = json!({"currentNumberScheduled": current, "numberMisscheduled": misscheduled,
        "desiredNumberScheduled": desired, "numberReady": ready, "observedGeneration": ds["metadata"]["generation"]});
    for (k, v) in [
        ("updatedNumberScheduled", updated),
        ("numberAvailable", available),
        ("numberUnavailable", desired - available),
    ] {
        if v != 0 {
            s[k] = json!(v);
        }
    }
    if let Some(c) = ds["status"]["collisionCount"].as_i64() {
        s["collisionCount"] = json!(c);
    }
    s
}

#[cfg(test)]
#[path = "daemonsets_tests.rs"]
mod tests;
