//! The simulated default-scheduler: a pod without `spec.nodeName` is bound to a node that fits,
//! or stays Pending with the `PodScheduled=False` condition and a `FailedScheduling` Event
//! worded as kube-scheduler words them (`pkg/scheduler/framework/types.go`, `FitError`).
//!
//! A node fits when it is Ready, is not cordoned (`spec.unschedulable`, the NodeUnschedulable
//! plugin) unless the pod tolerates `node.kubernetes.io/unschedulable`, matches the pod's
//! `nodeSelector` and required node affinity (labels, and `metadata.name` in `matchFields`, which
//! is how the DaemonSet controller pins its pods), and carries no NoSchedule/NoExecute taint the
//! pod does not tolerate. Among those, the node running the fewest pods wins (ties by name), a
//! stand-in for the real scoring plugins that spreads pods the same way on equal nodes.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::{record, EventType, Recorded, NODES, PODS};
use crate::store::object;
use crate::store::Txn;

const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";

/// Why a node does not fit, worded as the filter plugins' reasons.
const CORDONED: &str = "node(s) were unschedulable";
const AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
const NOT_READY: &str = "node(s) had untolerated taint {node.kubernetes.io/not-ready: }";

/// Where a pod goes: a node, or the message of why none fits.
pub fn place(pod: &Value, nodes: &[Value], load: &HashMap<String, usize>) -> Result<String, String> {
    if nodes.is_empty() {
        return Err("no nodes available to schedule pods".into());
    }
    let mut reasons: HashMap<String, usize> = HashMap::new();
    let mut fits: Vec<&Value> = Vec::new();
    for node in nodes {
        match misfit(pod, node) {
            Some(reason) => *reasons.entry(reason).or_default() += 1,
            None => fits.push(node),
        }
    }
    let best =
        fits.iter().min_by_key(|n| (load.get(object::name(n)).copied().unwrap_or(0), object::name(n).to_string()));
    if let Some(node) = best {
        return Ok(object::name(node).to_string());
    }
    let mut parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
    parts.sort();
    let total = nodes.len();
    Err(format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {total} Preemption is not helpful for scheduling.",
        parts.join(", ")
    ))
}

/// Whether `node` fits `pod` (the DaemonSet controller's `nodeShouldRunDaemonPod` asks the same
/// filters).
pub fn fits(pod: &Value, node: &Value) -> bool {
    misfit(pod, node).is_none()
}

/// The first filter a node fails for the pod, in the default plugin order.
fn misfit(pod: &Value, node: &Value) -> Option<String> {
    let spec = &pod["spec"];
    if node["spec"]["unschedulable"] == true && !tolerates(spec, UNSCHEDULABLE_TAINT, "NoSchedule") {
        return Some(CORDONED.into());
    }
    if !selector_fits(spec, node) {
        return Some(AFFINITY.into());
    }
    let ready = node["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True");
    if !ready && !tolerates(spec, "node.kubernetes.io/not-ready", "NoSchedule") {
        return Some(NOT_READY.into());
    }
    for taint in node["spec"]["taints"].as_array().into_iter().flatten() {
        let (key, effect) = (taint["key"].as_str().unwrap_or_default(), taint["effect"].as_str().unwrap_or_default());
        if key == UNSCHEDULABLE_TAINT || !matches!(effect, "NoSchedule" | "NoExecute") {
            continue;
        }
        if !tolerates(spec, key, effect) {
            let value = taint["value"].as_str().unwrap_or_default();
            return Some(format!("node(s) had untolerated taint {{{key}: {value}}}"));
        }
    }
    None
}

/// Whether the pod tolerates a taint of `key` and `effect` (any value).
fn tolerates(spec: &Value, key: &str, effect: &str) -> bool {
    spec["tolerations"].as_array().into_iter().flatten().any(|t| {
        let key_ok = t["key"].as_str().is_none_or(|k| k.is_empty() || k == key);
        let effect_ok = t["effect"].as_str().is_none_or(|e| e.is_empty() || e == effect);
        let op_ok = t["operator"] == "Exists" || t["key"].as_str() == Some(key);
        key_ok && effect_ok && op_ok
    })
}

/// `nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution` node affinity.
fn selector_fits(spec: &Value, node: &Value) -> bool {
    let labels = &node["metadata"]["labels"];
    let selector_ok = spec["nodeSelector"].as_object().into_iter().flatten().all(|(k, v)| labels[k.as_str()] == *v);
    let terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        .as_array();
    let affinity_ok = match terms {
        None => true,
        Some(terms) => terms.iter().any(|term| {
            let fields = term["matchFields"].as_array().into_iter().flatten().all(|r| {
                let value = if r["key"] == "metadata.name" { Some(object::name(node)) } else { None };
                requirement(r, value)
            });
            let exprs = term["matchExpressions"]
                .as_array()
                .into_iter()
                .flatten()
                .all(|r| requirement(r, r["key"].as_str().and_then(|k| labels[k].as_str())));
            fields && exprs
        }),
    };
    selector_ok && affinity_ok
}

fn requirement(r: &Value, value: Option<&str>) -> bool {
    let values: Vec<&str> = r["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    match r["operator"].as_str().unwrap_or_default() {
        "In" => value.is_some_and(|v| values.contains(&v)),
        "NotIn" => value.is_none_or(|v| !values.contains(&v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        _ => false,
    }
}

/// What scheduling did to a pod.
#[derive(Debug, PartialEq, Eq)]
pub enum Placement {
    /// On this node (bound now or before).
    Bound(String),
    /// No node fits; the pod waits.
    Pending,
    /// Gone, or being deleted.
    Gone,
}

/// Binds pod `ns`/`name` if it has no node yet, as kube-scheduler and its `pods/binding` call
/// do: `spec.nodeName`, the `PodScheduled` condition and the `Scheduled` Event.
pub fn bind(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str) -> Placement {
    let Some(pod) = txn.get(PODS, ns, name) else { return Placement::Gone };
    if object::is_deleting(&pod) {
        return Placement::Gone;
    }
    if let Some(node) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        return Placement::Bound(node.to_string());
    }
    let nodes: Vec<Value> = txn.state().list(NODES, None).iter().map(|n| n.as_ref().clone()).collect();
    let load = txn.state().node_load().clone();
    let now = object::now_string();
    let mut next = pod.as_ref().clone();
    let (placement, event) = match place(&pod, &nodes, &load) {
        Ok(node) => {
            next["spec"]["nodeName"] = json!(node);
            set_scheduled(
                &mut next,
                json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": now}),
            );
            let message = format!("Successfully assigned {ns}/{name} to {node}");
            (Placement::Bound(node), (EventType::Normal, "Scheduled", message))
        }
        Err(message) => {
            set_scheduled(
                &mut next,
                json!({"type": "PodScheduled", "status": "False", "lastProbeTime": null,
                "lastTransitionTime": now, "reason": "Unschedulable", "message": message}),
            );
            (Placement::Pending, (EventType::Warning, "FailedScheduling", message))
        }
    };
    if *pod != next {
        txn.put(PODS, next.clone());
    }
    let (kind, reason, message) = event;
    let e = Recorded { about: next, kind, reason: reason.into(), message, component: "default-scheduler" };
    record(app, txn, &e, object::now());
    placement
}

/// Replaces the pod's `PodScheduled` condition, keeping its transition time if its status stays.
fn set_scheduled(pod: &mut Value, mut condition: Value) {
    let mut conditions: Vec<Value> = pod["status"]["conditions"].as_array().cloned().unwrap_or_default();
    if let Some(old) = conditions.iter().find(|c| c["type"] == "PodScheduled") {
        if old["status"] == condition["status"] {
            condition["lastTransitionTime"] = old["lastTransitionTime"].clone();
        }
    }
    conditions.retain(|c| c["type"] != "PodScheduled");
    conditions.push(condition);
    object::set_at(pod, &["status", "conditions"], json!(conditions));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, extra: Value) -> Value {
        let mut n = json!({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        if let Some(m) = extra.as_object() {
            for (k, v) in m {
                n["spec"][k] = v.clone();
            }
        }
        n
    }

    fn pod(spec: Value) -> Value {
        json!({"metadata": {"name": "p", "namespace": "demo"}, "spec": spec})
    }

    #[test]
    fn a_pod_goes_to_the_least_loaded_schedulable_node() {
        let nodes =
            [node("node-1", json!({})), node("node-2", json!({"unschedulable": true})), node("node-3", json!({}))];
        let load = HashMap::from([("node-1".to_string(), 4), ("node-3".to_string(), 2)]);
        assert_eq!(place(&pod(json!({})), &nodes, &load), Ok("node-3".into()));
        assert_eq!(place(&pod(json!({})), &nodes, &HashMap::new()), Ok("node-1".into()), "ties go by name");
    }

    #[test]
    fn a_pod_that_fits_nowhere_gets_the_fit_error_message() {
        let nodes = [node("node-1", json!({"unschedulable": true})), node("node-2", json!({"unschedulable": true}))];
        assert_eq!(
            place(&pod(json!({})), &nodes, &HashMap::new()),
            Err("0/2 nodes are available: 2 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.".into())
        );
        let picky = pod(json!({"nodeSelector": {"disk": "ssd"}}));
        let mixed = [node("node-1", json!({"unschedulable": true})), node("node-2", json!({}))];
        assert_eq!(
            place(&picky, &mixed, &HashMap::new()),
            Err("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.".into())
        );
        assert_eq!(place(&picky, &[], &HashMap::new()), Err("no nodes available to schedule pods".into()));
    }

    #[test]
    fn a_daemon_pod_is_pinned_by_match_fields_and_tolerates_a_cordon() {
        let pinned = pod(json!({
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}]}}},
            "tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}));
        let nodes = [node("node-1", json!({})), node("node-2", json!({"unschedulable": true}))];
        assert_eq!(place(&pinned, &nodes, &HashMap::new()), Ok("node-2".into()));
    }

    #[test]
    fn an_untolerated_taint_keeps_a_pod_off_a_node() {
        let tainted = [node("node-1", json!({"taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]}))];
        assert_eq!(
            place(&pod(json!({})), &tainted, &HashMap::new()),
            Err("0/1 nodes are available: 1 node(s) had untolerated taint {gpu: yes}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.".into())
        );
        let tolerant =
            pod(json!({"tolerations": [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}]}));
        assert_eq!(place(&tolerant, &tainted, &HashMap::new()), Ok("node-1".into()));
    }
}
