//! A small Deployment controller for writes made through the API: a Deployment owns one
//! ReplicaSet per pod template (older ones are scaled to zero), each ReplicaSet keeps
//! `spec.replicas` pods (new ones run through the simulated kubelet, extra ones terminate), and
//! the statuses count what exists and what is ready. It runs after the write that changed a
//! Deployment, and again whenever one of its pods becomes ready.
//!
//! As kube-controller-manager's deployment controller does, it numbers the ReplicaSets with the
//! `deployment.kubernetes.io/revision` annotation (a template that comes back, as after
//! `kubectl rollout undo`, takes the next number), records `status.observedGeneration`, and
//! keeps the `Available` and `Progressing` conditions with the real reasons and messages: what
//! `kubectl rollout status`, `kubectl rollout history|undo` and
//! `kubectl wait --for=condition=Available` read.

use std::sync::Arc;

use crate::controllers::control::{EventType, Recorded};
use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::dataset::{owner_ref, pod_from_template, stable_suffix};
use crate::controllers::kubelet::run_pod;
use crate::store::deletion::{delete_in, DeleteOptions};
use crate::store::lifecycle::stamp_new;
use crate::store::object::{self, meta_mut};
use crate::store::{Obj, Txn};

const DEPLOYMENTS: &str = "apps/deployments";
const REPLICASETS: &str = "apps/replicasets";
const PODS: &str = "/pods";
const REVISION: &str = "deployment.kubernetes.io/revision";

/// Brings a Deployment's ReplicaSets and pods in line with its spec.
pub fn reconcile(app: &Arc<App>, namespace: &str, name: &str) {
    let started = app.store.write(|txn| reconcile_in(app, txn, namespace, name));
    for pod in started {
        run_pod(app.clone(), namespace.to_string(), pod, pod_ready);
    }
}

fn owned(txn: &Txn<'_>, uid: &str, key: &str) -> Vec<Obj> {
    txn.state()
        .dependents(uid)
        .into_iter()
        .filter(|(k, _, _)| k == key)
        .filter_map(|(k, ns, n)| txn.get(&k, &ns, &n))
        .filter(|o| !object::is_deleting(o))
        .collect()
}

fn is_ready(pod: &Value) -> bool {
    pod["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// A ReplicaSet's template is its Deployment's plus the pod-template-hash label.
fn same_template(rs_template: &Value, template: &Value) -> bool {
    let mut t = rs_template.clone();
    if let Some(labels) = t.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        labels.remove("pod-template-hash");
    }
    t == *template
}

/// Stores `new` if it differs from `old`.
fn put_if_changed(txn: &mut Txn<'_>, key: &str, old: &Value, new: Value) {
    if *old != new {
        txn.put(key, new);
    }
}

fn reconcile_in(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str) -> Vec<String> {
    let Some(dep) = txn.get(DEPLOYMENTS, ns, name) else { return Vec::new() };
    if object::is_deleting(&dep) {
        return Vec::new();
    }
    let (Some(rs_rt), Some(pod_rt)) = (app.registry.by_storage_key(REPLICASETS), app.registry.by_storage_key(PODS))
    else {
        return Vec::new();
    };
    let desired = dep["spec"]["replicas"].as_i64().unwrap_or(1).max(0);
    let template = dep["spec"]["template"].clone();
    let mut started = Vec::new();
    // A paused Deployment scales but does not roll out: a template with no ReplicaSet of its
    // own waits, and the newest ReplicaSet stays the current one.
    let paused = dep["spec"]["paused"] == true;
    let replicasets = owned(txn, object::uid(&dep), REPLICASETS);
    let existing = replicasets.iter().find(|rs| same_template(&rs["spec"]["template"], &template)).or_else(|| {
        if paused {
            replicasets.iter().max_by_key(|rs| revision(rs))
        } else {
            None
        }
    });
    let hash = stable_suffix(&template.to_string(), 10);
    let rs_name = existing.map(|rs| object::name(rs).to_string()).unwrap_or_else(|| format!("{name}-{hash}"));
    let surge = max_surge(&dep, desired);
    // The newest revision among the others; the current ReplicaSet keeps its number only while
    // it is the newest (a template that comes back is a new revision).
    let others_max = owned(txn, object::uid(&dep), REPLICASETS)
        .iter()
        .filter(|rs| object::name(rs) != rs_name)
        .map(|rs| revision(rs))
        .max()
        .unwrap_or(0);
    let created = !paused && txn.get(REPLICASETS, ns, &rs_name).is_none();
    if created {
        let mut t = template.clone();
        object::set_at(&mut t, &["metadata", "labels", "pod-template-hash"], json!(hash));
        let mut selector = dep["spec"]["selector"].clone();
        object::set_at(&mut selector, &["matchLabels", "pod-template-hash"], json!(hash));
        let mut labels = t["metadata"]["labels"].clone();
        if !labels.is_object() {
            labels = json!({});
        }
        let mut rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs_name, "namespace": ns, "labels": labels,
                "annotations": {"deployment.kubernetes.io/desired-replicas": desired.to_string(),
                    "deployment.kubernetes.io/max-replicas": (desired + surge).to_string(),
                    REVISION: (others_max + 1).to_string()},
                "ownerReferences": [owner_ref("apps/v1", "Deployment", &dep)]},
            "spec": {"replicas": desired, "selector": selector, "template": t}, "status": {"replicas": 0}});
        copy_annotations(&dep, &mut rs);
        stamp_new(&rs_rt, &mut rs, "kube-controller-manager");
        let rs = txn.put(REPLICASETS, rs);
        let message = format!("Scaled up replica set {} from 0 to {desired}", object::name(&rs));
        record_event(app, txn, &dep, "ScalingReplicaSet", &message, "deployment-controller");
    }
    let mut total = 0;
    let mut ready = 0;
    let mut updated = 0;
    let mut current_revision = None;
    let mut revived = false;
    for rs in owned(txn, object::uid(&dep), REPLICASETS) {
        let current = object::name(&rs) == rs_name;
        let want = if current { desired } else { 0 };
        let mut rs_new = rs.as_ref().clone();
        object::set_at(&mut rs_new, &["spec", "replicas"], json!(want));
        let had = rs["spec"]["replicas"].as_i64().unwrap_or(0);
        if had != want {
            let direction = if want > had { "up" } else { "down" };
            let message = format!("Scaled {direction} replica set {} from {had} to {want}", object::name(&rs));
            record_event(app, txn, &dep, "ScalingReplicaSet", &message, "deployment-controller");
        }
        if current {
            revived = revision(&rs) <= others_max && !created;
            if revision(&rs) <= others_max {
                object::set_at(
                    &mut rs_new,
                    &["metadata", "annotations", REVISION],
                    json!((others_max + 1).to_string()),
                );
            }
            object::set_at(
                &mut rs_new,
                &["metadata", "annotations", "deployment.kubernetes.io/desired-replicas"],
                json!(desired.to_string()),
            );
            object::set_at(
                &mut rs_new,
                &["metadata", "annotations", "deployment.kubernetes.io/max-replicas"],
                json!((desired + surge).to_string()),
            );
        }
        let mut pods = owned(txn, object::uid(&rs), PODS);
        pods.sort_by(|a, b| object::name(a).cmp(object::name(b)));
        while (pods.len() as i64) > want {
            let Some(extra) = pods.pop() else { break };
            let opts = DeleteOptions { grace: Some(1), ..DeleteOptions::default() };
            // A pod that is already going away is fine.
            if delete_in(app, txn, &pod_rt, ns, object::name(&extra), &opts).is_ok() {
                let message = format!("Deleted pod: {}", object::name(&extra));
                record_event(app, txn, &rs, "SuccessfulDelete", &message, "replicaset-controller");
            }
        }
        let mut n = 0;
        while (pods.len() as i64) < want {
            let pod_name = format!(
                "{}-{}",
                object::name(&rs),
                stable_suffix(&format!("{}/{}/{n}", object::uid(&rs), pods.len()), 5)
            );
            n += 1;
            if txn.get(PODS, ns, &pod_name).is_some() {
                continue;
            }
            // Unscheduled: the simulated scheduler binds it when the kubelet picks it up.
            let mut pod = pod_from_template(&rs_new, &pod_name, ns, "", false);
            meta_mut(&mut pod).insert("generateName".into(), json!(format!("{}-", object::name(&rs))));
            crate::rules::defaults::apply(&pod_rt, &mut pod);
            stamp_new(&pod_rt, &mut pod, "kube-controller-manager");
            pods.push(txn.put(PODS, pod));
            record_event(
                app,
                txn,
                &rs,
                "SuccessfulCreate",
                &format!("Created pod: {pod_name}"),
                "replicaset-controller",
            );
            started.push(pod_name);
        }
        let rs_ready = pods.iter().filter(|p| is_ready(p)).count() as i64;
        object::set_at(&mut rs_new, &["status", "replicas"], json!(pods.len()));
        object::set_at(&mut rs_new, &["status", "fullyLabeledReplicas"], json!(pods.len()));
        object::set_at(&mut rs_new, &["status", "readyReplicas"], json!(rs_ready));
        object::set_at(&mut rs_new, &["status", "availableReplicas"], json!(rs_ready));
        let rs_generation = rs["metadata"]["generation"].clone();
        object::set_at(&mut rs_new, &["status", "observedGeneration"], rs_generation);
        if current {
            current_revision = rs_new["metadata"]["annotations"][REVISION].as_str().map(str::to_string);
        }
        put_if_changed(txn, REPLICASETS, &rs, rs_new);
        total += pods.len() as i64;
        ready += rs_ready;
        if current {
            updated = pods.len() as i64;
        }
    }
    let mut dep_new = dep.as_ref().clone();
    if let Some(rev) = current_revision {
        object::set_at(&mut dep_new, &["metadata", "annotations", REVISION], json!(rev));
    }
    let counts = Counts { replicas: total, updated, ready, available: ready };
    let status = deployment_status(
        &dep,
        &counts,
        &NewReplicaSet { name: &rs_name, created, revived },
        desired,
        &object::now_string(),
    );
    dep_new["status"] = status;
    put_if_changed(txn, DEPLOYMENTS, &dep, dep_new);
    started
}

/// A Normal Event about `about` from a kube-controller-manager controller, as
/// `kubectl describe` and `kubectl events` show them (counted again when it repeats).
fn record_event(app: &App, txn: &mut Txn<'_>, about: &Value, reason: &str, message: &str, component: &'static str) {
    let recorded = Recorded {
        about: about.clone(),
        kind: EventType::Normal,
        reason: reason.into(),
        message: message.into(),
        component,
    };
    crate::controllers::control::record(app, txn, &recorded, object::now());
}

/// The Deployment's annotations a ReplicaSet it makes carries, as the real controller copies them
/// (`SetNewReplicaSetAnnotations` and `skipCopyAnnotation` in kubernetes
/// `pkg/controller/deployment/util/deployment_util.go`): all but kubectl's last applied
/// configuration and the controller's own bookkeeping. So `kubernetes.io/change-cause` reaches
/// the revision it describes, as `kubectl rollout history` shows it.
fn copy_annotations(dep: &Value, rs: &mut Value) {
    const SKIP: [&str; 6] = [
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    ];
    let Some(annotations) = dep["metadata"]["annotations"].as_object() else { return };
    for (key, value) in annotations.iter().filter(|(k, _)| !SKIP.contains(&k.as_str())) {
        object::set_at(rs, &["metadata", "annotations", key.as_str()], value.clone());
    }
}

fn revision(rs: &Value) -> i64 {
    rs["metadata"]["annotations"][REVISION].as_str().and_then(|r| r.parse().ok()).unwrap_or(0)
}

/// Pods of a Deployment as its status counts them.
struct Counts {
    replicas: i64,
    updated: i64,
    ready: i64,
    available: i64,
}

/// The ReplicaSet of the Deployment's current template: whether this round created it, or made
/// an older one current again (a new revision, as after `kubectl rollout undo`).
struct NewReplicaSet<'a> {
    name: &'a str,
    created: bool,
    revived: bool,
}

/// `intstr.GetScaledValueFromIntOrPercent`: an integer, or a percentage of `total` rounded up
/// or down.
fn scaled(v: &Value, total: i64, round_up: bool, default_percent: i64) -> i64 {
    match v {
        Value::Number(n) => n.as_i64().unwrap_or(0),
        Value::String(s) => {
            let percent = s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()).unwrap_or(default_percent);
            let scaled = percent * total;
            if round_up {
                (scaled + 99) / 100
            } else {
                scaled / 100
            }
        }
        _ => {
            let scaled = default_percent * total;
            if round_up {
                (scaled + 99) / 100
            } else {
                scaled / 100
            }
        }
    }
}

fn is_rolling_update(dep: &Value) -> bool {
    dep["spec"]["strategy"]["type"].as_str().is_none_or(|t| t == "RollingUpdate")
}

/// `deploymentutil.MaxSurge`: how many pods above `spec.replicas` a rolling update may run.
fn max_surge(dep: &Value, desired: i64) -> i64 {
    if !is_rolling_update(dep) {
        return 0;
    }
    scaled(&dep["spec"]["strategy"]["rollingUpdate"]["maxSurge"], desired, true, 25)
}

/// `deploymentutil.MaxUnavailable`: how many of `spec.replicas` may be unavailable while the
/// Deployment still counts as available (none for Recreate).
fn max_unavailable(dep: &Value, desired: i64) -> i64 {
    if !is_rolling_update(dep) || desired == 0 {
        return 0;
    }
    let surge = max_surge(dep, desired);
    let mut unavailable = scaled(&dep["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"], desired, false, 25);
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    unavailable.min(desired)
}

fn condition(kind: &str, status: &str, reason: &str, message: String, now: &str) -> Value {
    json!({"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
        "reason": reason, "message": message})
}

/// `deploymentutil.SetDeploymentCondition`: the same status and reason change nothing; the same
/// status keeps its transition time; the condition goes last.
fn set_condition(conditions: &mut Vec<Value>, mut new: Value) {
    if let Some(current) = conditions.iter().find(|c| c["type"] == new["type"]) {
        if current["status"] == new["status"] && current["reason"] == new["reason"] {
            return;
        }
        if current["status"] == new["status"] {
            new["lastTransitionTime"] = current["lastTransitionTime"].clone();
        }
    }
    conditions.retain(|c| c["type"] != new["type"]);
    conditions.push(new);
}

/// The status kube-controller-manager writes for these counts (`calculateStatus` and
/// `syncRolloutStatus` of its deployment controller): counts, `observedGeneration`, the
/// `Available` condition against `spec.replicas - maxUnavailable`, and `Progressing` with
/// `NewReplicaSetCreated`, `FoundNewReplicaSet`, `ReplicaSetUpdated` (while the counts move on)
/// and `NewReplicaSetAvailable` (once complete). A paused Deployment keeps its `Progressing`.
fn deployment_status(dep: &Value, counts: &Counts, new_rs: &NewReplicaSet<'_>, desired: i64, now: &str) -> Value {
    let old = &dep["status"];
    let mut conditions: Vec<Value> = old["conditions"].as_array().cloned().unwrap_or_default();
    let progressing = |conditions: &[Value]| conditions.iter().find(|c| c["type"] == "Progressing").cloned();
    let paused = dep["spec"]["paused"] == true;
    // `checkPausedConditions`: pausing and resuming are told in Progressing.
    let paused_before = progressing(&conditions).is_some_and(|c| c["reason"] == "DeploymentPaused");
    if paused && !paused_before {
        let message = "Deployment is paused".to_string();
        set_condition(&mut conditions, condition("Progressing", "Unknown", "DeploymentPaused", message, now));
    } else if !paused && paused_before {
        let message = "Deployment is resumed".to_string();
        set_condition(&mut conditions, condition("Progressing", "Unknown", "DeploymentResumed", message, now));
    }
    if new_rs.created {
        let message = format!("Created new replica set \"{}\"", new_rs.name);
        set_condition(&mut conditions, condition("Progressing", "True", "NewReplicaSetCreated", message, now));
    } else if progressing(&conditions).is_none() {
        let message = format!("Found new replica set \"{}\"", new_rs.name);
        set_condition(&mut conditions, condition("Progressing", "True", "FoundNewReplicaSet", message, now));
    }
    if counts.available >= desired - max_unavailable(dep, desired) {
        let message = "Deployment has minimum availability.".to_string();
        set_condition(&mut conditions, condition("Available", "True", "MinimumReplicasAvailable", message, now));
    } else {
        let message = "Deployment does not have minimum availability.".to_string();
        set_condition(&mut conditions, condition("Available", "False", "MinimumReplicasUnavailable", message, now));
    }
    let current = progressing(&conditions);
    let complete_before = counts.replicas == counts.updated
        && !new_rs.created
        && !new_rs.revived
        && current.as_ref().is_some_and(|c| c["reason"] == "NewReplicaSetAvailable");
    if !paused && !complete_before {
        let complete = counts.updated == desired && counts.replicas == desired && counts.available == desired;
        let old_count = |k: &str| old[k].as_i64().unwrap_or(0);
        // A revived ReplicaSet means the other one's pods were just scaled down.
        let moved = new_rs.revived
            || counts.updated > old_count("updatedReplicas")
            || counts.ready > old_count("readyReplicas")
            || counts.available > old_count("availableReplicas")
            || counts.replicas - counts.updated < old_count("replicas") - old_count("updatedReplicas");
        if complete {
            let message = format!("ReplicaSet \"{}\" has successfully progressed.", new_rs.name);
            set_condition(&mut conditions, condition("Progressing", "True", "NewReplicaSetAvailable", message, now));
        } else if moved && !new_rs.created {
            // The round that creates the ReplicaSet is where the real controller's counts have
            // not moved yet (its pods do not exist until the ReplicaSet controller runs).
            let message = format!("ReplicaSet \"{}\" is progressing.", new_rs.name);
            let mut c = condition("Progressing", "True", "ReplicaSetUpdated", message, now);
            if let Some(cur) = current.filter(|cur| cur["status"] == "True") {
                c["lastTransitionTime"] = cur["lastTransitionTime"].clone();
            }
            // Always replaced, so that lastUpdateTime says when the rollout last moved.
            conditions.retain(|c| c["type"] != "Progressing");
            conditions.push(c);
        }
    }
    let mut status = json!({
        "observedGeneration": dep["metadata"]["generation"].clone(),
        "replicas": counts.replicas,
        "updatedReplicas": counts.updated,
        "readyReplicas": counts.ready,
        "availableReplicas": counts.available,
    });
    // The ReplicaSets' `spec.replicas` add up to `desired` once the old ones are scaled down.
    let unavailable = (desired - counts.available).max(0);
    if unavailable > 0 {
        status["unavailableReplicas"] = json!(unavailable);
    }
    status["conditions"] = json!(conditions);
    status
}

/// The Deployment that owns a pod through its ReplicaSet, if any.
pub fn owning_deployment(txn: &Txn<'_>, pod: &Value) -> Option<String> {
    let ns = object::namespace(pod);
    let rs_ref = pod["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["kind"] == "ReplicaSet")?;
    let rs = txn.get(REPLICASETS, ns, rs_ref["name"].as_str()?)?;
    let dep_ref = rs["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["kind"] == "Deployment")?;
    Some(dep_ref["name"].as_str()?.to_string())
}

/// A pod became Ready: the Deployment that owns it (through its ReplicaSet), if any, counts it,
/// in a round of its own that counts every pod ready by the time it runs (one round is queued at
/// a time: a round reads every pod of the Deployment, so a round for each of N pods would be
/// N² reads).
pub fn pod_ready(app: &Arc<App>, namespace: &str, name: &str) {
    let owner = app.store.write(|txn| {
        let pod = txn.get(PODS, namespace, name)?;
        owning_deployment(txn, &pod)
    });
    let Some(deployment) = owner else { return };
    if !app.kubelet.queue_count(namespace, &deployment) {
        return;
    }
    let (app, namespace) = (app.clone(), namespace.to_string());
    tokio::spawn(async move {
        tokio::task::yield_now().await;
        app.kubelet.counting(&namespace, &deployment);
        reconcile(&app, &namespace, &deployment);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_max_unavailable(strategy: Value, desired: i64, expect: (i64, i64)) {
        let dep = json!({"spec": {"strategy": strategy}});
        assert_eq!((max_surge(&dep, desired), max_unavailable(&dep, desired)), expect, "{strategy}, {desired}");
    }

    #[test]
    fn surge_rounds_up_and_unavailable_rounds_down_as_deploymentutil_does() {
        check_max_unavailable(
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}),
            3,
            (1, 0),
        );
        check_max_unavailable(
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}),
            10,
            (3, 2),
        );
        check_max_unavailable(
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}),
            3,
            (0, 1),
        );
        check_max_unavailable(
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 5}}),
            3,
            (1, 3),
        );
        check_max_unavailable(json!({"type": "Recreate"}), 3, (0, 0));
        check_max_unavailable(Value::Null, 4, (1, 1));
    }

    fn conditions(status: &Value) -> Vec<(String, String, String)> {
        status["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (s("type"), s("status"), s("reason"))
            })
            .collect()
    }

    #[test]
    fn a_rollout_goes_from_created_through_updated_to_available() {
        let rs = NewReplicaSet { name: "web-2", created: true, revived: false };
        let mut dep = json!({"metadata": {"generation": 2}, "spec": {"replicas": 2},
            "status": {"replicas": 2, "updatedReplicas": 0, "readyReplicas": 2, "availableReplicas": 2}});
        let counts = Counts { replicas: 2, updated: 2, ready: 0, available: 0 };
        let status = deployment_status(&dep, &counts, &rs, 2, "t1");
        assert_eq!(status["observedGeneration"], 2);
        assert_eq!(status["unavailableReplicas"], 2);
        assert_eq!(
            conditions(&status),
            [
                ("Progressing".into(), "True".into(), "NewReplicaSetCreated".into()),
                ("Available".into(), "False".into(), "MinimumReplicasUnavailable".into())
            ]
        );
        dep["status"] = status;
        let rs = NewReplicaSet { name: "web-2", created: false, revived: false };
        let counts = Counts { replicas: 2, updated: 2, ready: 1, available: 1 };
        let status = deployment_status(&dep, &counts, &rs, 2, "t2");
        assert_eq!(
            conditions(&status),
            [
                // 25% of 2 rounds down: no pod may be missing.
                ("Available".into(), "False".into(), "MinimumReplicasUnavailable".into()),
                ("Progressing".into(), "True".into(), "ReplicaSetUpdated".into())
            ]
        );
        assert_eq!(status["conditions"][1]["lastTransitionTime"], "t1", "still progressing since t1");
        assert_eq!(status["conditions"][1]["lastUpdateTime"], "t2");
        assert_eq!(status["conditions"][1]["message"], "ReplicaSet \"web-2\" is progressing.");
        dep["status"] = status;
        let counts = Counts { replicas: 2, updated: 2, ready: 2, available: 2 };
        let status = deployment_status(&dep, &counts, &rs, 2, "t3");
        assert_eq!(status["conditions"][1]["reason"], "NewReplicaSetAvailable");
        assert_eq!(status["conditions"][1]["message"], "ReplicaSet \"web-2\" has successfully progressed.");
        assert!(status.get("unavailableReplicas").is_none());
        dep["status"] = status.clone();
        assert_eq!(deployment_status(&dep, &counts, &rs, 2, "t4"), status, "a complete rollout stays as it is");
    }
}
