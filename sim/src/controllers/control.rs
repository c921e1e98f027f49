//! What the workload controllers share: the actions a controller's plan asks for (objects to
//! create, replace or delete, Events to record), applied to the store in one write; controller
//! references; the hashes that name ControllerRevisions; pods made from a template as
//! `controller.GetPodFromTemplate` makes them; and the pod facts (ready, available, terminal)
//! that `podutil` answers in kube-controller-manager.
//!
//! A plan is a pure function of the objects it reads and the time it is given, so the tests
//! feed it a state and read back its actions as a transcript (`Actions::transcript`).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::app::App;
use crate::store::deletion::{delete_in, DeleteOptions};
use crate::store::lifecycle::stamp_new;
use crate::store::object::{self, meta_mut};
pub use crate::store::pod::{is_terminal, phase};
use crate::store::Txn;

pub use crate::controllers::recorder::{record, EventType, Recorded};

pub const PODS: &str = "/pods";
pub const NODES: &str = "/nodes";
pub const REVISIONS: &str = "apps/controllerrevisions";

/// An object to delete.
#[derive(Debug, Clone, PartialEq)]
pub struct Removal {
    pub key: &'static str,
    pub namespace: String,
    pub name: String,
    /// `None`: the object's own grace period (a pod's `terminationGracePeriodSeconds`).
    pub grace: Option<i64>,
    pub propagation: Option<&'static str>,
}

/// What one round of a controller asks the API for, in order: creations, replacements (a status
/// or a relabelled object), deletions, then Events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Actions {
    pub creates: Vec<(&'static str, Value)>,
    pub updates: Vec<(&'static str, Value)>,
    pub deletes: Vec<Removal>,
    pub events: Vec<Recorded>,
}

impl Actions {
    pub fn event(&mut self, about: &Value, kind: EventType, reason: &str, message: String, component: &'static str) {
        self.events.push(Recorded { about: about.clone(), kind, reason: reason.into(), message, component });
    }

    pub fn delete(&mut self, key: &'static str, obj: &Value, grace: Option<i64>) {
        self.deletes.push(Removal {
            key,
            namespace: object::namespace(obj).to_string(),
            name: object::name(obj).to_string(),
            grace,
            propagation: None,
        });
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        *self == Actions::default()
    }

    /// One line per action, for tests: `create Pod web-0`, `update StatefulSet web`,
    /// `delete Pod web-2`, `event Normal SuccessfulCreate: create Pod web-0 in StatefulSet web
    /// successful`.
    #[cfg(test)]
    pub fn transcript(&self) -> Vec<String> {
        let named = |o: &Value| {
            let name = object::name(o);
            let name = if name.is_empty() { o["metadata"]["generateName"].as_str().unwrap_or_default() } else { name };
            format!("{} {name}", o["kind"].as_str().unwrap_or("?"))
        };
        let mut out: Vec<String> = self.creates.iter().map(|(_, o)| format!("create {}", named(o))).collect();
        out.extend(self.updates.iter().map(|(_, o)| format!("update {}", named(o))));
        out.extend(self.deletes.iter().map(|d| format!("delete {} {}", kind_of_key(d.key), d.name)));
        out.extend(self.events.iter().map(|e| format!("event {} {}: {}", e.kind.as_str(), e.reason, e.message)));
        out
    }
}

#[cfg(test)]
fn kind_of_key(key: &str) -> &str {
    match key {
        PODS => "Pod",
        REVISIONS => "ControllerRevision",
        "batch/jobs" => "Job",
        _ => key,
    }
}

/// What a controller round asks of the manager: pods for the kubelet, and when to run again.
#[derive(Debug, Default)]
pub struct Outcome {
    pub started: Vec<(String, String)>,
    pub again_after: Option<chrono::Duration>,
}

impl From<Vec<(String, String)>> for Outcome {
    fn from(started: Vec<(String, String)>) -> Outcome {
        Outcome { started, again_after: None }
    }
}

/// Applies a plan's actions in one write; returns the names of the pods it created (for the
/// simulated kubelet to run). A creation in a namespace that is going away is skipped, as the
/// API server refuses it.
pub fn apply(app: &Arc<App>, txn: &mut Txn<'_>, actions: Actions) -> Vec<(String, String)> {
    let mut started = Vec::new();
    for (key, mut obj) in actions.creates {
        let ns = object::namespace(&obj).to_string();
        if !ns.is_empty() && txn.get("/namespaces", "", &ns).is_none_or(|n| object::is_deleting(&n)) {
            continue;
        }
        let Some(rt) = app.registry.by_storage_key(key) else { continue };
        if object::name(&obj).is_empty() {
            let prefix = obj["metadata"]["generateName"].as_str().unwrap_or_default().to_string();
            let name = format!("{prefix}{}", crate::store::lifecycle::random_suffix());
            meta_mut(&mut obj).insert("name".into(), json!(name));
        }
        if txn.get(key, &ns, object::name(&obj)).is_some() {
            continue;
        }
        crate::rules::defaults::apply(&rt, &mut obj);
        stamp_new(&rt, &mut obj, "kube-controller-manager");
        let stored = txn.put(key, obj);
        if key == PODS {
            started.push((ns, object::name(&stored).to_string()));
        }
    }
    for (key, obj) in actions.updates {
        let (ns, name) = (object::namespace(&obj).to_string(), object::name(&obj).to_string());
        let current = txn.get(key, &ns, &name);
        if current.is_some_and(|c| *c != obj) {
            let finished = object::is_deleting(&obj) && object::finalizers(&obj).is_empty();
            txn.put(key, obj);
            // The last finalizer gone: the object goes, as after an update through the API.
            if let (true, Some(rt)) = (finished, app.registry.by_storage_key(key)) {
                crate::store::deletion::remove_now(app, txn, &rt, &ns, &name);
            }
        }
    }
    for d in actions.deletes {
        let Some(rt) = app.registry.by_storage_key(d.key) else { continue };
        let opts = DeleteOptions {
            grace: d.grace,
            propagation: d.propagation.map(str::to_string),
            ..DeleteOptions::default()
        };
        // An object that is already gone is what the controller wanted.
        let _ = delete_in(app, txn, &rt, &d.namespace, &d.name, &opts);
    }
    for e in actions.events {
        record(app, txn, &e, object::now());
    }
    started
}

/// `metav1.NewControllerRef`: the owner reference a controller puts on what it makes.
pub fn controller_ref(owner: &Value) -> Value {
    json!({"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": object::name(owner),
        "uid": object::uid(owner), "controller": true, "blockOwnerDeletion": true})
}

/// The owner reference with `controller: true`, if any (`metav1.GetControllerOf`).
pub fn controller_of(obj: &Value) -> Option<&Value> {
    obj["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["controller"] == true)
}

/// Whether `obj` is controlled by `owner` (by uid).
pub fn is_controlled_by(obj: &Value, owner: &Value) -> bool {
    controller_of(obj).is_some_and(|r| r["uid"] == object::uid(owner))
}

/// The objects under `key` in `owner`'s namespace that `owner` controls, not being deleted
/// unless `with_deleting`, in name order.
pub fn owned(txn: &Txn<'_>, key: &str, owner: &Value, with_deleting: bool) -> Vec<Value> {
    txn.state()
        .dependents(object::uid(owner))
        .into_iter()
        .filter(|(k, _, _)| k == key)
        .filter_map(|(k, ns, n)| txn.get(&k, &ns, &n))
        .filter(|o| is_controlled_by(o, owner) && (with_deleting || !object::is_deleting(o)))
        .map(|o| o.as_ref().clone())
        .collect()
}

/// `controller.GetPodFromTemplate`: a pod with the template's labels, annotations, finalizers
/// and spec, controlled by `owner`; `generateName` is `owner-` unless a name is given.
pub fn pod_from_template(owner: &Value, template: &Value, name: Option<&str>) -> Value {
    let mut meta = json!({"namespace": object::namespace(owner), "ownerReferences": [controller_ref(owner)]});
    for k in ["labels", "annotations", "finalizers"] {
        if let Some(v) = template["metadata"].get(k).filter(|v| !v.is_null()) {
            meta[k] = v.clone();
        }
    }
    match name {
        Some(n) => meta["name"] = json!(n),
        None => meta["generateName"] = json!(format!("{}-", object::name(owner))),
    }
    let spec = if template["spec"].is_object() { template["spec"].clone() } else { json!({}) };
    let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec});
    pod["status"] = json!({"phase": "Pending", "qosClass": qos_class(&pod["spec"])});
    pod
}

/// The pod's QoS class from its containers' requests and limits (`qos.GetPodQOS`, simplified to
/// cpu and memory).
pub fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> = spec["containers"].as_array().into_iter().flatten().collect();
    let has_any = containers.iter().any(|c| {
        c["resources"]["requests"].as_object().is_some_and(|m| !m.is_empty())
            || c["resources"]["limits"].as_object().is_some_and(|m| !m.is_empty())
    });
    if !has_any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        ["cpu", "memory"].iter().all(|r| {
            let limit = &c["resources"]["limits"][r];
            !limit.is_null() && (c["resources"]["requests"][r].is_null() || c["resources"]["requests"][r] == *limit)
        })
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

fn condition_true(pod: &Value, kind: &str) -> bool {
    pod["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] == "True")
}

/// `podutil.IsPodReady`.
pub fn is_ready(pod: &Value) -> bool {
    condition_true(pod, "Ready")
}

/// `podutil.IsPodAvailable`: ready for at least `min_ready` seconds.
pub fn is_available(pod: &Value, min_ready: i64, now: DateTime<Utc>) -> bool {
    if !is_ready(pod) {
        return false;
    }
    if min_ready <= 0 {
        return true;
    }
    let since = pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready")
        .and_then(|c| c["lastTransitionTime"].as_str())
        .and_then(object::parse_time);
    since.is_some_and(|t| t + chrono::Duration::seconds(min_ready) <= now)
}

/// `controller.FilterActivePods`: not terminal and not being deleted.
pub fn is_active(pod: &Value) -> bool {
    !is_terminal(pod) && !object::is_deleting(pod)
}

/// FNV-1 (32-bit) over `bytes`, as `hash/fnv.New32` writes it.
pub fn fnv1_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| h.wrapping_mul(0x0100_0193) ^ u32::from(*b))
}

/// FNV-1a (32-bit), as `hash/fnv.New32a`.
pub fn fnv1a_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

/// `rand.SafeEncodeString(fmt.Sprint(hash))`: each decimal digit mapped into the alphabet
/// without vowels, so `3129414823` becomes `7d5988f67`-like names.
pub fn safe_encode(hash: u32) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    hash.to_string().bytes().map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char).collect()
}

/// A label value of an object, if set.
pub fn label<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj["metadata"]["labels"][key].as_str()
}

/// An integer field, or `default` when absent.
pub fn int(v: &Value, default: i64) -> i64 {
    v.as_i64().unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_encoded_as_the_history_package_names_revisions() {
        // The recorded 1.34 revision `test-776999688b` has this alphabet: digits 0-9 become
        // 4 5 6 7 8 9 b c d f.
        assert_eq!(safe_encode(3_129_414_823), "756f858d67");
        assert_eq!(safe_encode(0), "4");
        assert_eq!(fnv1_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1_32(b"a"), 0x050c_5d7e);
    }

    #[test]
    fn a_pod_from_a_template_is_controlled_by_its_owner_and_named_after_it() {
        let owner = json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "kube-system", "uid": "u1"}});
        let template = json!({"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a",
            "resources": {"requests": {"cpu": "10m"}}}]}});
        let pod = pod_from_template(&owner, &template, None);
        assert_eq!(pod["metadata"]["generateName"], "agent-");
        assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
        assert_eq!(pod["metadata"]["ownerReferences"][0]["controller"], true);
        assert_eq!(pod["metadata"]["labels"]["app"], "agent");
        assert_eq!(pod["status"], json!({"phase": "Pending", "qosClass": "Burstable"}));
        assert_eq!(pod_from_template(&owner, &template, Some("agent-0"))["metadata"]["name"], "agent-0");
        assert_eq!(qos_class(&json!({"containers": [{"name": "a"}]})), "BestEffort");
        let limits = json!({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]});
        assert_eq!(qos_class(&limits), "Guaranteed");
    }
}
