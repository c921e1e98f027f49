//! A small Deployment controller for writes made through the API: a Deployment owns one
//! ReplicaSet per pod template (older ones are scaled to zero), each ReplicaSet keeps
//! `spec.replicas` pods (new ones run through the simulated kubelet, extra ones terminate), and
//! the statuses count what exists and what is ready. It runs after the write that changed a
//! Deployment, and again whenever one of its pods becomes ready.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::activity::run_pod;
use crate::dataset::{owner_ref, pod_from_template, stable_suffix};
use crate::object::{self, meta_mut};
use crate::store::{Obj, Txn};
use crate::write::{delete_in, stamp_new, DeleteOptions};
use crate::App;

const DEPLOYMENTS: &str = "apps/deployments";
const REPLICASETS: &str = "apps/replicasets";
const PODS: &str = "/pods";

/// Brings a Deployment's ReplicaSets and pods in line with its spec.
pub fn reconcile(app: &Arc<App>, namespace: &str, name: &str) {
    let started = app.store.write(|txn| reconcile_in(app, txn, namespace, name));
    for pod in started {
        run_pod(app.clone(), namespace.to_string(), pod);
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
    let existing = owned(txn, object::uid(&dep), REPLICASETS)
        .into_iter()
        .find(|rs| same_template(&rs["spec"]["template"], &template));
    let hash = stable_suffix(&template.to_string(), 10);
    let rs_name = existing.map(|rs| object::name(&rs).to_string()).unwrap_or_else(|| format!("{name}-{hash}"));
    if txn.get(REPLICASETS, ns, &rs_name).is_none() {
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
                "ownerReferences": [owner_ref("apps/v1", "Deployment", &dep)]},
            "spec": {"replicas": desired, "selector": selector, "template": t}, "status": {"replicas": 0}});
        stamp_new(&rs_rt, &mut rs, "kube-controller-manager");
        txn.put(REPLICASETS, rs);
    }
    let mut total = 0;
    let mut ready = 0;
    let mut updated = 0;
    for rs in owned(txn, object::uid(&dep), REPLICASETS) {
        let current = object::name(&rs) == rs_name;
        let want = if current { desired } else { 0 };
        let mut rs_new = rs.as_ref().clone();
        object::set_at(&mut rs_new, &["spec", "replicas"], json!(want));
        let mut pods = owned(txn, object::uid(&rs), PODS);
        pods.sort_by(|a, b| object::name(a).cmp(object::name(b)));
        while (pods.len() as i64) > want {
            let Some(extra) = pods.pop() else { break };
            let opts = DeleteOptions { grace: Some(1), ..DeleteOptions::default() };
            // A pod that is already going away is fine.
            let _ = delete_in(app, txn, &pod_rt, ns, object::name(&extra), &opts);
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
            let node = format!("node-{}", pod_name.bytes().map(u32::from).sum::<u32>() % 3 + 1);
            let mut pod = pod_from_template(&rs_new, &pod_name, ns, &node, false);
            meta_mut(&mut pod).insert("generateName".into(), json!(format!("{}-", object::name(&rs))));
            stamp_new(&pod_rt, &mut pod, "kube-controller-manager");
            pods.push(txn.put(PODS, pod));
            started.push(pod_name);
        }
        let rs_ready = pods.iter().filter(|p| is_ready(p)).count() as i64;
        object::set_at(&mut rs_new, &["status", "replicas"], json!(pods.len()));
        object::set_at(&mut rs_new, &["status", "readyReplicas"], json!(rs_ready));
        object::set_at(&mut rs_new, &["status", "availableReplicas"], json!(rs_ready));
        put_if_changed(txn, REPLICASETS, &rs, rs_new);
        total += pods.len() as i64;
        ready += rs_ready;
        if current {
            updated = pods.len() as i64;
        }
    }
    let mut dep_new = dep.as_ref().clone();
    let generation = dep["metadata"]["generation"].clone();
    object::set_at(&mut dep_new, &["status", "observedGeneration"], generation);
    object::set_at(&mut dep_new, &["status", "replicas"], json!(total));
    object::set_at(&mut dep_new, &["status", "updatedReplicas"], json!(updated));
    object::set_at(&mut dep_new, &["status", "readyReplicas"], json!(ready));
    object::set_at(&mut dep_new, &["status", "availableReplicas"], json!(ready));
    put_if_changed(txn, DEPLOYMENTS, &dep, dep_new);
    started
}

/// The Deployment that owns a pod through its ReplicaSet, if any.
pub fn owning_deployment(txn: &Txn<'_>, pod: &Value) -> Option<String> {
    let ns = object::namespace(pod);
    let rs_ref = pod["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["kind"] == "ReplicaSet")?;
    let rs = txn.get(REPLICASETS, ns, rs_ref["name"].as_str()?)?;
    let dep_ref = rs["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["kind"] == "Deployment")?;
    Some(dep_ref["name"].as_str()?.to_string())
}
