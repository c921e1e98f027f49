//! A pod's phase as its kubelet reports it, and the status a kubelet writes when the pod's
//! containers stop: shared by the simulated kubelet (`controllers::kubelet`), the controllers and
//! graceful deletion (`store::deletion`), which stops a pod's containers before it goes.

use serde_json::{json, Value};

use crate::store::object;

pub fn phase(pod: &Value) -> &str {
    pod["status"]["phase"].as_str().unwrap_or_default()
}

/// Succeeded or Failed.
pub fn is_terminal(pod: &Value) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// The status of a pod whose containers exited with `code`: Succeeded or Failed, not ready.
pub fn terminated_status(pod: &Value, code: i64) -> Value {
    let now = object::now_string();
    let mut status = pod["status"].clone();
    let phase = if code == 0 { "Succeeded" } else { "Failed" };
    let reason = if code == 0 { "Completed" } else { "Error" };
    status["phase"] = json!(phase);
    let started = status["startTime"].clone();
    for cs in status["containerStatuses"].as_array_mut().into_iter().flatten() {
        cs["ready"] = json!(false);
        cs["started"] = json!(false);
        cs["state"] = json!({"terminated": {"exitCode": code, "reason": reason, "startedAt": started,
            "finishedAt": now, "containerID": cs["containerID"]}});
    }
    for c in status["conditions"].as_array_mut().into_iter().flatten() {
        if c["type"] == "Ready" || c["type"] == "ContainersReady" {
            c["status"] = json!("False");
            c["reason"] = json!("PodCompleted");
            c["lastTransitionTime"] = json!(now);
        }
        if c["type"] == "PodReadyToStartContainers" {
            c["status"] = json!("False");
        }
    }
    status
}
