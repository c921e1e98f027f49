//! The simulated kubelet: a pod created through the API is scheduled (Pending), starts a second
//! later (Running, not ready) and is Ready a second after that, with Events for each step.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::store::Txn;
use crate::{app::App, controllers::dataset};

/// How long each stage of a starting pod takes.
pub const STAGE: Duration = Duration::from_secs(1);

/// A pod on its way to Ready.
pub struct Starting {
    pub namespace: String,
    pub name: String,
    pub node: String,
    pub stage: u8,
}

/// Runs pod `namespace`/`name` to Ready, then calls `ready` with it (a ready pod of a Deployment
/// changes the Deployment's counts: the controller passes its own reaction, so that the kubelet
/// knows no controller).
pub fn run_pod(app: Arc<App>, namespace: String, name: String, ready: fn(&Arc<App>, &str, &str)) {
    tokio::spawn(async move {
        let node = app
            .store
            .read()
            .get("/pods", &namespace, &name)
            .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
            .unwrap_or_else(|| "node-1".into());
        let mut pod = Starting { namespace, name, node, stage: 0 };
        app.store.write(|txn| {
            let message = format!("Successfully assigned {}/{} to {}", pod.namespace, pod.name, pod.node);
            record_event(&app, txn, &pod.namespace, &pod.name, "Scheduled", &message);
        });
        loop {
            tokio::time::sleep(STAGE).await;
            if !app.store.write(|txn| advance(&app, txn, &mut pod)) {
                break;
            }
        }
        ready(&app, &pod.namespace, &pod.name);
    });
}

pub fn record_event(app: &App, txn: &mut Txn<'_>, ns: &str, pod: &str, reason: &str, message: &str) {
    let Some(rt) = app.registry.by_storage_key("/events") else { return };
    let mut e = dataset::event(ns, pod, "Pod", reason, message);
    crate::store::lifecycle::stamp_new(&rt, &mut e, "kubelet");
    txn.put("/events", e);
}

/// Moves a starting pod one step; false once it is Ready (or gone).
pub fn advance(app: &App, txn: &mut Txn<'_>, p: &mut Starting) -> bool {
    let Some(pod) = txn.get("/pods", &p.namespace, &p.name) else { return false };
    let mut next: Value = pod.as_ref().clone();
    p.stage += 1;
    match p.stage {
        1 => {
            next["status"] = dataset::running_status_with(&next, &p.node, false);
            txn.put("/pods", next);
            record_event(app, txn, &p.namespace, &p.name, "Started", "Started container");
            true
        }
        _ => {
            next["status"] = dataset::running_status_with(&next, &p.node, true);
            if let Some(ip) = pod["status"]["podIP"].as_str() {
                next["status"]["podIP"] = json!(ip);
                next["status"]["podIPs"] = json!([{"ip": ip}]);
            }
            txn.put("/pods", next);
            false
        }
    }
}
