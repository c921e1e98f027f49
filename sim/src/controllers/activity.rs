//! `--activity`: keeps the demo cluster alive so watches show a steady flow of events. Every
//! second node leases are renewed; every few seconds a pod owned by a ReplicaSet is replaced: the
//! old one terminates gracefully, a new one appears Pending, starts Running, then becomes Ready,
//! with Events recording each step.
//!
//! `POST /_sim/churn?rate=N&seconds=S[&namespace=NS]` (benchmarks): modifies N pods per second
//! for S seconds, N × S changes in all (an annotation counts them), so watches see a steady flow of MODIFIED
//! events at a chosen rate; `rate=0` stops a running churn.

use std::sync::Arc;
use std::time::Duration;

use rand::seq::IndexedRandom;
use serde_json::json;

use crate::app::App;
use crate::controllers::control::{self, EventType, Recorded};
use crate::controllers::dataset;
use crate::controllers::kubelet::{advance, Starting};
use crate::store::deletion::{delete_in, DeleteOptions};
use crate::store::object::{self, meta_mut};
use crate::store::Txn;

const TICK: Duration = Duration::from_secs(1);
/// A pod is replaced every this many ticks.
const REPLACE_EVERY: u64 = 3;

pub fn start(app: Arc<App>) {
    tokio::spawn(async move {
        let mut ticks: u64 = 0;
        let mut starting: Vec<Starting> = Vec::new();
        let mut interval = tokio::time::interval(TICK);
        loop {
            interval.tick().await;
            ticks += 1;
            app.store.write(|txn| {
                renew_leases(txn);
                expire_events(txn);
                starting.retain_mut(|p| advance(&app, txn, p));
                if ticks.is_multiple_of(REPLACE_EVERY) {
                    if let Some(p) = replace_a_pod(&app, txn) {
                        starting.push(p);
                    }
                }
            });
        }
    });
}

fn renew_leases(txn: &mut Txn<'_>) {
    for lease in txn.state().list("coordination.k8s.io/leases", Some("kube-node-lease")) {
        let mut l = lease.as_ref().clone();
        object::set_at(&mut l, &["spec", "renewTime"], json!(object::micro_timestamp(object::now())));
        txn.put("coordination.k8s.io/leases", l);
    }
}

/// Events live for an hour in a real cluster; the simulated one keeps ten minutes of them so
/// that a long `--activity` run does not grow without bound.
const EVENT_TTL_SECONDS: i64 = 600;

fn expire_events(txn: &mut Txn<'_>) {
    let now = object::now();
    for e in txn.state().list("/events", None) {
        let last = e["lastTimestamp"].as_str().and_then(object::parse_time);
        if last.is_some_and(|t| (now - t).num_seconds() > EVENT_TTL_SECONDS) {
            txn.remove("/events", object::namespace(&e), object::name(&e));
        }
    }
}

fn replace_a_pod(app: &Arc<App>, txn: &mut Txn<'_>) -> Option<Starting> {
    let pods: Vec<_> = txn
        .state()
        .list("/pods", None)
        .into_iter()
        .filter(|p| !object::is_deleting(p) && p["status"]["phase"] == "Running")
        .filter(|p| p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet")
        .collect();
    let victim = pods.choose(&mut rand::rng())?.clone();
    let ns = object::namespace(&victim).to_string();
    let rs_name = victim["metadata"]["ownerReferences"][0]["name"].as_str()?.to_string();
    let rs = txn.get("apps/replicasets", &ns, &rs_name)?;
    let pods_rt = app.registry.by_storage_key("/pods")?;
    let grace = DeleteOptions { grace: Some(1), ..DeleteOptions::default() };
    delete_in(app, txn, &pods_rt, &ns, object::name(&victim), &grace).ok()?;
    let name = format!("{rs_name}-{}", &object::new_uid()[..5]);
    let node = format!("node-{}", rand::random_range(1..=3));
    let mut pod = dataset::pod_from_template(&rs, &name, &ns, &node, false);
    meta_mut(&mut pod).insert("generateName".into(), json!(format!("{rs_name}-")));
    crate::store::lifecycle::stamp_new(&pods_rt, &mut pod, "kube-controller-manager");
    let stored = txn.put("/pods", pod);
    let message = format!("Successfully assigned {ns}/{name} to {node}");
    let scheduled = Recorded {
        about: (*stored).clone(),
        kind: EventType::Normal,
        reason: "Scheduled".into(),
        message,
        component: "default-scheduler",
    };
    control::record(app, txn, &scheduled, object::now());
    Some(Starting { namespace: ns, name, node, stage: 0 })
}

/// How often the churn writes: its rate is spread over these ticks.
const CHURN_TICK: Duration = Duration::from_millis(10);

/// Modifies `rate` pods per second (of `namespace`, or all) for `seconds`, round-robin, until a
/// later churn starts or `generation` moves on. Returns how many pods take part.
pub fn churn(app: Arc<App>, rate: u64, seconds: u64, namespace: Option<String>, generation: u64) -> usize {
    let pods: Vec<(String, String)> = app
        .store
        .read()
        .list("/pods", namespace.as_deref())
        .iter()
        .map(|p| (object::namespace(p).to_string(), object::name(p).to_string()))
        .collect();
    let count = pods.len();
    if rate == 0 || pods.is_empty() {
        return count;
    }
    tokio::spawn(async move {
        let started = tokio::time::Instant::now();
        let mut interval = tokio::time::interval(CHURN_TICK);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let (mut done, mut next) = (0u64, 0usize);
        // Exactly rate × seconds changes: a slow tick catches up, also after the last second.
        let total = rate.saturating_mul(seconds);
        while done < total && app.faults.churn_generation() == generation {
            interval.tick().await;
            let due = ((started.elapsed().as_secs_f64() * rate as f64) as u64).min(total);
            let batch = due.saturating_sub(done).min(rate.max(100));
            app.store.write(|txn| {
                for _ in 0..batch {
                    let (ns, name) = &pods[next % pods.len()];
                    next += 1;
                    let Some(pod) = txn.get("/pods", ns, name) else { continue };
                    let mut changed = pod.as_ref().clone();
                    let n = changed["metadata"]["annotations"]["kube-sim/churn"]
                        .as_str()
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(0);
                    if !changed["metadata"]["annotations"].is_object() {
                        changed["metadata"]["annotations"] = json!({});
                    }
                    changed["metadata"]["annotations"]["kube-sim/churn"] = json!((n + 1).to_string());
                    txn.put("/pods", changed);
                }
            });
            done += batch;
        }
    });
    count
}
