//! The StatefulSet controller, after `pkg/controller/statefulset/stateful_set_control.go`:
//! pods `<set>-<ordinal>` made from the revision their ordinal belongs to, created in ordinal
//! order one at a time (each waits for the one before to be Running and Ready) under
//! `OrderedReady` or all at once under `Parallel`, extra ordinals removed from the highest down;
//! a RollingUpdate replaces the pods not at the update revision from the highest ordinal down to
//! `partition`, one at a time, waiting for each replacement to be healthy; `OnDelete` only uses
//! the update revision for pods it recreates. ControllerRevisions record each template
//! (`revisions`), the status counts `replicas`, `readyReplicas`, `availableReplicas`,
//! `currentReplicas`, `updatedReplicas` and names `currentRevision` and `updateRevision`
//! (current becomes update once every pod is updated and ready, `completeRollingUpdate`), and
//! the Events are `stateful_pod_control.go`'s (`create Pod web-0 in StatefulSet web successful`).
//!
//! Not simulated: volumeClaimTemplates (no PersistentVolumeClaims are made), `maxUnavailable`,
//! `ordinals.start`, and adoption of orphaned pods and revisions.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::{self, int, is_available, is_ready, label, Actions, EventType, PODS, REVISIONS};
use crate::controllers::revisions::{self, POD_REVISION_LABEL};
use crate::store::{object, Txn};

pub const KEY: &str = "apps/statefulsets";
const COMPONENT: &str = "statefulset-controller";

/// Brings a StatefulSet's pods and revisions in line with its spec; the pods it created, for
/// the kubelet.
pub fn reconcile(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str) -> Vec<(String, String)> {
    let Some(set) = txn.get(KEY, ns, name) else { return Vec::new() };
    let pods = control::owned(txn, PODS, &set, true);
    let revisions = control::owned(txn, REVISIONS, &set, false);
    let actions = plan(&set, &pods, &revisions, object::now());
    control::apply(app, txn, actions)
}

/// The ordinal of a pod of `set` (`getParentNameAndOrdinal`), if its name is `<set>-<n>`.
fn ordinal(set: &Value, pod: &Value) -> Option<usize> {
    object::name(pod).strip_prefix(object::name(set))?.strip_prefix('-')?.parse().ok()
}

fn is_running_and_ready(pod: &Value) -> bool {
    control::phase(pod) == "Running" && is_ready(pod)
}

fn is_healthy(pod: &Value) -> bool {
    is_running_and_ready(pod) && !object::is_deleting(pod)
}

/// One round of the controller for `set`, its pods (terminating ones included) and revisions.
pub fn plan(set: &Value, pods: &[Value], revisions: &[Value], now: DateTime<Utc>) -> Actions {
    let mut actions = Actions::default();
    let mut revisions = revisions.to_vec();
    revisions::sort(&mut revisions);
    let collisions = int(&set["status"]["collisionCount"], 0);
    let data = revisions::template_patch(set);
    let name = revisions::revision_name(set, &revisions::data_hash(&data, collisions));
    let mut labels = set["spec"]["template"]["metadata"]["labels"].clone();
    object::set_at(&mut labels, &[revisions::HASH_LABEL], json!(name.rsplit('-').next().unwrap_or_default()));
    let candidate = revisions::new_revision(set, &name, labels, data, 0);
    let update = revisions::update_revision(&revisions, candidate, &mut actions);
    let current = revisions
        .iter()
        .find(|r| set["status"]["currentRevision"].as_str() == Some(object::name(r)))
        .cloned()
        .unwrap_or_else(|| update.clone());
    let status = pods_round(set, pods, &current, &update, now, &mut actions);
    let mut live = vec![object::name(&current).to_string(), object::name(&update).to_string()];
    live.extend(pods.iter().filter_map(|p| label(p, POD_REVISION_LABEL)).map(str::to_string));
    let limit = int(&set["spec"]["revisionHistoryLimit"], 10);
    let all: Vec<Value> = revisions.iter().filter(|r| object::name(r) != object::name(&update)).cloned().collect();
    revisions::truncate(&all, &live, limit, &mut actions);
    if set["status"] != status {
        let mut next = set.clone();
        next["status"] = status;
        actions.updates.push((KEY, next));
    }
    actions
}

/// The counts of the status, as `updateStatefulSet` keeps them while it acts.
#[derive(Default)]
struct Counts {
    replicas: i64,
    ready: i64,
    available: i64,
    current: i64,
    updated: i64,
}

/// A new pod of `set` at `ordinal` from `template`, labelled with its revision
/// (`newVersionedStatefulSetPod`, `updateIdentity`).
fn new_pod(set: &Value, template: &Value, revision: &str, ordinal: usize) -> Value {
    let name = format!("{}-{ordinal}", object::name(set));
    let mut pod = control::pod_from_template(set, template, Some(&name));
    for (k, v) in [
        (POD_REVISION_LABEL, revision.to_string()),
        ("statefulset.kubernetes.io/pod-name", name.clone()),
        ("apps.kubernetes.io/pod-index", ordinal.to_string()),
    ] {
        object::set_at(&mut pod, &["metadata", "labels", k], json!(v));
    }
    pod["spec"]["hostname"] = json!(name);
    if let Some(service) = set["spec"]["serviceName"].as_str().filter(|s| !s.is_empty()) {
        pod["spec"]["subdomain"] = json!(service);
    }
    pod
}

/// Creates, replaces and deletes pods for one round; returns the status.
fn pods_round(
    set: &Value,
    pods: &[Value],
    current: &Value,
    update: &Value,
    now: DateTime<Utc>,
    actions: &mut Actions,
) -> Value {
    let replicas = int(&set["spec"]["replicas"], 1).max(0) as usize;
    let (current_name, update_name) = (object::name(current), object::name(update));
    let min_ready = int(&set["spec"]["minReadySeconds"], 0);
    let mut counts = Counts::default();
    let mut slots: Vec<Option<Value>> = vec![None; replicas];
    let mut condemned: Vec<(usize, Value)> = Vec::new();
    for pod in pods {
        counts.replicas += 1;
        if is_running_and_ready(pod) {
            counts.ready += 1;
            if is_available(pod, min_ready, now) {
                counts.available += 1;
            }
        }
        if !object::is_deleting(pod) {
            counts.current += i64::from(label(pod, POD_REVISION_LABEL) == Some(current_name));
            counts.updated += i64::from(label(pod, POD_REVISION_LABEL) == Some(update_name));
        }
        match ordinal(set, pod) {
            Some(o) if o < replicas => slots[o] = Some(pod.clone()),
            Some(o) => condemned.push((o, pod.clone())),
            None => {}
        }
    }
    condemned.sort_by_key(|(o, _)| *o);
    let rolling = set["spec"]["updateStrategy"]["type"].as_str().is_none_or(|t| t == "RollingUpdate");
    let partition = int(&set["spec"]["updateStrategy"]["rollingUpdate"]["partition"], 0).max(0) as usize;
    let template_for = |ordinal: usize| {
        let from_current = rolling
            && ((set["spec"]["updateStrategy"]["rollingUpdate"].is_null()
                && (ordinal as i64) < int(&set["status"]["currentReplicas"], 0))
                || (!set["spec"]["updateStrategy"]["rollingUpdate"].is_null() && ordinal < partition));
        if from_current {
            (revisions::template_of(current), current_name)
        } else {
            (revisions::template_of(update), update_name)
        }
    };
    if !object::is_deleting(set) {
        let monotonic = set["spec"]["podManagementPolicy"] != "Parallel";
        let mut stop = false;
        for (o, slot) in slots.iter_mut().enumerate() {
            if stop {
                break;
            }
            if let Some(pod) = slot.as_ref().filter(|p| control::is_terminal(p) && !object::is_deleting(p)) {
                let message = format!(
                    "StatefulSet {}/{} is recreating failed Pod {}",
                    object::namespace(set),
                    object::name(set),
                    object::name(pod)
                );
                actions.event(set, EventType::Warning, "RecreatingFailedPod", message, COMPONENT);
                delete_pod(set, pod, actions);
                counts.replicas -= 1;
                *slot = None;
                continue;
            }
            match slot {
                None => {
                    let (template, revision) = template_for(o);
                    let pod = new_pod(set, &template, revision, o);
                    let message =
                        format!("create Pod {} in StatefulSet {} successful", object::name(&pod), object::name(set));
                    actions.creates.push((PODS, pod));
                    actions.event(set, EventType::Normal, "SuccessfulCreate", message, COMPONENT);
                    counts.replicas += 1;
                    counts.current += i64::from(revision == current_name);
                    counts.updated += i64::from(revision == update_name);
                    stop = monotonic;
                }
                Some(pod) => stop = monotonic && !is_healthy(pod),
            }
        }
        if !stop {
            for (_, pod) in condemned.iter().rev() {
                if object::is_deleting(pod) {
                    if monotonic {
                        stop = true;
                        break;
                    }
                    continue;
                }
                delete_pod(set, pod, actions);
                if monotonic {
                    stop = true;
                    break;
                }
            }
        }
        if rolling && !stop {
            for slot in slots.iter().skip(partition).rev() {
                let Some(pod) = slot else { break };
                if label(pod, POD_REVISION_LABEL) != Some(update_name) && !object::is_deleting(pod) {
                    delete_pod(set, pod, actions);
                    counts.current -= i64::from(label(pod, POD_REVISION_LABEL) == Some(current_name));
                    break;
                }
                if !is_healthy(pod) {
                    break;
                }
            }
        }
    }
    status(set, &counts, current_name, update_name, rolling)
}

fn delete_pod(set: &Value, pod: &Value, actions: &mut Actions) {
    let message = format!("delete Pod {} in StatefulSet {} successful", object::name(pod), object::name(set));
    actions.delete(PODS, pod, None);
    actions.event(set, EventType::Normal, "SuccessfulDelete", message, COMPONENT);
}

/// The status `updateStatefulSetStatus` writes, zero counts left out as Go's `omitempty` does.
fn status(set: &Value, c: &Counts, current: &str, update: &str, rolling: bool) -> Value {
    let (mut current_count, mut current) = (c.current, current);
    // `completeRollingUpdate`.
    if rolling && c.updated == c.replicas && c.ready == c.replicas {
        current_count = c.updated;
        current = update;
    }
    let mut s = json!({"observedGeneration": set["metadata"]["generation"], "replicas": c.replicas,
        "availableReplicas": c.available, "currentRevision": current, "updateRevision": update,
        "collisionCount": int(&set["status"]["collisionCount"], 0)});
    for (k, v) in [("readyReplicas", c.ready), ("currentReplicas", current_count), ("updatedReplicas", c.updated)] {
        if v != 0 {
            s[k] = json!(v);
        }
    }
    s
}

#[cfg(test)]
#[path = "statefulsets_tests.rs"]
mod tests;
