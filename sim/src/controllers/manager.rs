//! The controller manager: watches every change the store commits, as kube-controller-manager's
//! informers do, and runs the controllers the change concerns: a StatefulSet, DaemonSet, Job or
//! CronJob when it or one of its pods or Jobs changes, the PodDisruptionBudgets whose selector
//! matches a changed pod (and those of a namespace whose workloads scale), every DaemonSet and
//! every unscheduled pod when a node changes, and a node's `node.kubernetes.io/unschedulable`
//! taint when it is cordoned or uncordoned (the node lifecycle controller's), and a Service's
//! EndpointSlices when it, one of its slices, or what a slice is made of in a pod it selects
//! changes. A controller can
//! ask to run again later (a CronJob's next schedule, a Job's deadline, a budget's recheck):
//! those timers are checked every second. A controller round that changes nothing writes
//! nothing, so the changes it makes come back once and settle.
//!
//! (The Deployment controller still runs in step with the writes, `http/write/after.rs`.)

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use crate::app::App;
use crate::controllers::control::{self, controller_of, Outcome, NODES, PODS};
use crate::controllers::{cronjobs, daemonsets, deployments, disruption, endpointslices, jobs, kubelet, statefulsets};
use crate::store::{object, Change, ChangeKind};

/// Something a controller keeps in line, by namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    StatefulSet(String, String),
    DaemonSet(String, String),
    Job(String, String),
    CronJob(String, String),
    Budget(String, String),
    /// A Service's EndpointSlices.
    Service(String, String),
    /// A pod waiting for a node.
    Unscheduled(String, String),
    Node(String),
}

/// Starts the manager; it runs every controller once over what the dataset holds.
pub fn start(app: Arc<App>) {
    let mut rx = app.store.subscribe();
    tokio::spawn(async move {
        let mut timers: HashMap<Target, DateTime<Utc>> = HashMap::new();
        let mut queue: BTreeSet<Target> = everything(&app);
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            for target in std::mem::take(&mut queue) {
                let outcome = run(&app, &target);
                for (ns, name) in outcome.started {
                    kubelet::run_pod(app.clone(), ns, name, deployments::pod_ready);
                }
                match outcome.again_after {
                    Some(after) => {
                        let at = object::now() + after;
                        let entry = timers.entry(target).or_insert(at);
                        *entry = (*entry).min(at);
                    }
                    None => {
                        timers.remove(&target);
                    }
                }
            }
            tokio::select! {
                change = rx.recv() => match change {
                    Ok(c) => queue.extend(targets_of(&app, &c)),
                    Err(RecvError::Lagged(_)) => queue.extend(everything(&app)),
                    Err(RecvError::Closed) => return,
                },
                _ = tick.tick() => {
                    let now = object::now();
                    let due: Vec<Target> = timers.iter().filter(|(_, at)| **at <= now).map(|(t, _)| t.clone()).collect();
                    for t in due {
                        timers.remove(&t);
                        queue.insert(t);
                    }
                }
            }
            loop {
                match rx.try_recv() {
                    Ok(c) => queue.extend(targets_of(&app, &c)),
                    Err(TryRecvError::Lagged(_)) => queue.extend(everything(&app)),
                    Err(_) => break,
                }
            }
        }
    });
}

fn run(app: &Arc<App>, target: &Target) -> Outcome {
    let now = object::now();
    match target {
        Target::StatefulSet(ns, name) => app.store.write(|txn| statefulsets::reconcile(app, txn, ns, name)).into(),
        Target::DaemonSet(ns, name) => app.store.write(|txn| daemonsets::reconcile(app, txn, ns, name)).into(),
        Target::Job(ns, name) => app.store.write(|txn| jobs::reconcile(app, txn, ns, name, now)),
        Target::CronJob(ns, name) => app.store.write(|txn| cronjobs::reconcile(app, txn, ns, name, now)),
        Target::Budget(ns, name) => app.store.write(|txn| disruption::reconcile(app, txn, ns, name, now)),
        Target::Service(ns, name) => app.store.write(|txn| endpointslices::reconcile(app, txn, ns, name)),
        Target::Unscheduled(ns, name) => {
            let waiting =
                app.store.read().get(PODS, ns, name).is_some_and(|p| {
                    !object::is_deleting(&p) && p["spec"]["nodeName"].as_str().is_none_or(str::is_empty)
                });
            if waiting {
                kubelet::run_pod(app.clone(), ns.clone(), name.clone(), deployments::pod_ready);
            }
            Outcome::default()
        }
        Target::Node(name) => {
            app.store.write(|txn| {
                let Some(node) = txn.get(NODES, "", name) else { return };
                let next = with_unschedulable_taint(&node);
                if next != *node {
                    txn.put(NODES, next);
                }
            });
            Outcome::default()
        }
    }
}

/// The node with the `node.kubernetes.io/unschedulable:NoSchedule` taint exactly while it is
/// cordoned (`taintNodeByCondition` of the node lifecycle controller).
pub fn with_unschedulable_taint(node: &Value) -> Value {
    const KEY: &str = "node.kubernetes.io/unschedulable";
    let cordoned = node["spec"]["unschedulable"] == true;
    let mut taints: Vec<Value> = node["spec"]["taints"].as_array().cloned().unwrap_or_default();
    let has = taints.iter().any(|t| t["key"] == KEY);
    let mut next = node.clone();
    match (cordoned, has) {
        (true, false) => taints.push(json!({"key": KEY, "effect": "NoSchedule"})),
        (false, true) => taints.retain(|t| t["key"] != KEY),
        _ => return next,
    }
    if taints.is_empty() {
        if let Some(spec) = next["spec"].as_object_mut() {
            spec.remove("taints");
        }
    } else {
        next["spec"]["taints"] = json!(taints);
    }
    next
}

/// A target from a namespace and a name.
type MakeTarget = fn(String, String) -> Target;

/// Every target of what the store holds (at start, and after missing changes).
fn everything(app: &App) -> BTreeSet<Target> {
    let state = app.store.read();
    let mut out = BTreeSet::new();
    let kinds: [(&str, MakeTarget); 6] = [
        (statefulsets::KEY, Target::StatefulSet),
        (daemonsets::KEY, Target::DaemonSet),
        (jobs::KEY, Target::Job),
        (cronjobs::KEY, Target::CronJob),
        (disruption::KEY, Target::Budget),
        (endpointslices::SERVICES, Target::Service),
    ];
    for (key, target) in kinds {
        for o in state.list(key, None) {
            out.insert(target(object::namespace(&o).to_string(), object::name(&o).to_string()));
        }
    }
    for o in state.list(NODES, None) {
        out.insert(Target::Node(object::name(&o).to_string()));
    }
    out
}

/// The targets a committed change concerns.
fn targets_of(app: &App, c: &Change) -> Vec<Target> {
    let (ns, name) = (c.namespace.clone(), object::name(&c.object).to_string());
    match c.key.as_str() {
        statefulsets::KEY => vec![Target::StatefulSet(ns, name)],
        daemonsets::KEY => vec![Target::DaemonSet(ns, name)],
        cronjobs::KEY => vec![Target::CronJob(ns, name)],
        disruption::KEY => vec![Target::Budget(ns, name)],
        jobs::KEY => {
            let mut out = vec![Target::Job(ns.clone(), name)];
            out.extend(owner_target(&c.object, &ns));
            out
        }
        PODS => {
            let mut out: Vec<Target> = owner_target(&c.object, &ns).into_iter().collect();
            out.extend(budgets_of(app, &ns, Some(&c.object), c.prev.as_deref()));
            if c.kind == ChangeKind::Deleted || endpointslices::endpoint_fields_changed(&c.object, c.prev.as_deref()) {
                out.extend(services_of(app, &ns, &c.object, c.prev.as_deref()));
            }
            out
        }
        endpointslices::SERVICES => vec![Target::Service(ns, name)],
        endpointslices::KEY => match control::label(&c.object, endpointslices::SERVICE_NAME) {
            Some(service) => vec![Target::Service(ns, service.to_string())],
            None => Vec::new(),
        },
        "apps/deployments" | "apps/replicasets" => budgets_of(app, &ns, None, None),
        "apps/controllerrevisions" => owner_target(&c.object, &ns).into_iter().collect(),
        NODES => {
            let state = app.store.read();
            let mut out = vec![Target::Node(name)];
            for ds in state.list(daemonsets::KEY, None) {
                out.push(Target::DaemonSet(object::namespace(&ds).to_string(), object::name(&ds).to_string()));
            }
            for p in state.list(PODS, None) {
                if p["spec"]["nodeName"].as_str().is_none_or(str::is_empty) && !object::is_deleting(&p) {
                    out.push(Target::Unscheduled(object::namespace(&p).to_string(), object::name(&p).to_string()));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The controller of an object, as a target.
fn owner_target(obj: &Value, ns: &str) -> Option<Target> {
    let owner = controller_of(obj)?;
    let name = owner["name"].as_str()?.to_string();
    let ns = ns.to_string();
    match owner["kind"].as_str()? {
        "StatefulSet" => Some(Target::StatefulSet(ns, name)),
        "DaemonSet" => Some(Target::DaemonSet(ns, name)),
        "Job" => Some(Target::Job(ns, name)),
        "CronJob" => Some(Target::CronJob(ns, name)),
        _ => None,
    }
}

/// The Services of `ns` whose selector matches `pod` or `prev`.
fn services_of(app: &App, ns: &str, pod: &Value, prev: Option<&Value>) -> Vec<Target> {
    let state = app.store.read();
    state
        .list(endpointslices::SERVICES, Some(ns))
        .into_iter()
        .filter(|s| {
            endpointslices::selector(s).is_some_and(|sel| {
                [Some(pod), prev]
                    .into_iter()
                    .flatten()
                    .any(|p| crate::rules::selector::object_selector_matches(&sel, p))
            })
        })
        .map(|s| Target::Service(ns.to_string(), object::name(&s).to_string()))
        .collect()
}

/// The budgets of `ns` whose selector matches `obj` or `prev` (all of them without a pod).
fn budgets_of(app: &App, ns: &str, obj: Option<&Value>, prev: Option<&Value>) -> Vec<Target> {
    let state = app.store.read();
    state
        .list(disruption::KEY, Some(ns))
        .into_iter()
        .filter(|b| {
            let selector = &b["spec"]["selector"];
            obj.is_none()
                || [obj, prev]
                    .into_iter()
                    .flatten()
                    .any(|p| crate::rules::selector::object_selector_matches(selector, p))
        })
        .map(|b| Target::Budget(ns.to_string(), object::name(&b).to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cordoned_node_is_tainted_and_an_uncordoned_one_is_not() {
        let node = json!({"metadata": {"name": "n"}, "spec": {"unschedulable": true}});
        let tainted = with_unschedulable_taint(&node);
        assert_eq!(
            tainted["spec"]["taints"],
            json!([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}])
        );
        assert_eq!(with_unschedulable_taint(&tainted), tainted, "once is enough");
        let mut back = tainted.clone();
        back["spec"]["unschedulable"] = json!(false);
        assert!(with_unschedulable_taint(&back)["spec"].get("taints").is_none());
    }
}
