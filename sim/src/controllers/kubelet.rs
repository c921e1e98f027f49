//! The simulated kubelet: a pod created through the API is first bound by the scheduler
//! (`scheduler`), then starts a second later (Running, not ready) and is Ready a second after
//! that, with Events for each step. A pod of a Job runs to completion: after `--pod-run-seconds`
//! its containers exit, with code 0 unless their command says otherwise (`exit N`, `false`), and
//! the pod is Succeeded or Failed (`restartPolicy: Never`), or its container restarts in place
//! (`OnFailure`, counted in `restartCount`) until it succeeds or the Job gives up on it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::controllers::control::{self, EventType, Recorded};
use crate::controllers::scheduler::{self, Placement};
use crate::store::pod::terminated_status;
use crate::store::{object, Txn};
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

/// Schedules pod `namespace`/`name`, runs it to Ready, then calls `ready` with it (a ready pod of
/// a Deployment changes the Deployment's counts: the controller passes its own reaction, so that
/// the kubelet knows no controller); a pod of a Job then runs to its end. A pod no node fits
/// stays Pending: the controller manager hands it over again when the nodes change.
pub fn run_pod(app: Arc<App>, namespace: String, name: String, ready: fn(&Arc<App>, &str, &str)) {
    tokio::spawn(async move {
        let Placement::Bound(node) = app.store.write(|txn| scheduler::bind(&app, txn, &namespace, &name)) else {
            return;
        };
        let uid = app.store.read().get("/pods", &namespace, &name).map(|p| object::uid(&p).to_string());
        let Some(uid) = uid else { return };
        if !app.kubelet.claim(&uid) {
            return;
        }
        let mut pod = Starting { namespace, name, node, stage: 0 };
        let started =
            app.store.read().get("/pods", &pod.namespace, &pod.name).is_some_and(|p| p["status"]["phase"] != "Pending");
        if !started {
            loop {
                tokio::time::sleep(STAGE).await;
                if !app.store.write(|txn| advance(&app, txn, &mut pod)) {
                    break;
                }
            }
            ready(&app, &pod.namespace, &pod.name);
        }
        run_to_completion(&app, &pod.namespace, &pod.name, &uid).await;
        app.kubelet.release(&uid);
    });
}

/// Records an Event about `pod` as the kubelet does (the same one again counts up, as client-go's
/// correlator does: `control::record`).
pub fn record_event(app: &App, txn: &mut Txn<'_>, pod: &Value, kind: EventType, reason: &str, message: String) {
    let recorded = Recorded { about: pod.clone(), kind, reason: reason.into(), message, component: "kubelet" };
    control::record(app, txn, &recorded, object::now());
}

/// The kubelet's Events for each container it starts, in order (`kuberuntime_container.go`,
/// `kuberuntime_image.go`): the image pulled, the container created and started.
fn record_container_starts(app: &App, txn: &mut Txn<'_>, pod: &Value) {
    for container in pod["spec"]["containers"].as_array().into_iter().flatten() {
        let (name, image) =
            (container["name"].as_str().unwrap_or_default(), container["image"].as_str().unwrap_or_default());
        for (reason, message) in [
            ("Pulling", format!("Pulling image \"{image}\"")),
            ("Pulled", format!("Successfully pulled image \"{image}\" in 1s (1s including waiting)")),
            ("Created", format!("Created container {name}")),
            ("Started", format!("Started container {name}")),
        ] {
            record_event(app, txn, pod, EventType::Normal, reason, message);
        }
    }
}

/// Moves a starting pod one step; false once it is Ready (or gone).
pub fn advance(app: &App, txn: &mut Txn<'_>, p: &mut Starting) -> bool {
    let Some(pod) = txn.get("/pods", &p.namespace, &p.name) else { return false };
    if object::is_deleting(&pod) {
        return false;
    }
    let mut next: Value = pod.as_ref().clone();
    p.stage += 1;
    match p.stage {
        1 => {
            next["status"] = dataset::running_status_with(&next, &p.node, false);
            let stored = txn.put("/pods", next);
            record_container_starts(app, txn, &stored);
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

/// Whether a pod runs to an end: a pod of a Job.
pub fn runs_to_completion(pod: &Value) -> bool {
    pod["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["kind"] == "Job" && r["controller"] == true)
}

/// The exit code of a container as its command reads: the last `exit N` of a shell command, 1
/// for a command that is `false` (or runs it), else 0.
pub fn exit_code(container: &Value) -> i64 {
    let words: Vec<String> = ["command", "args"]
        .iter()
        .flat_map(|k| container[k].as_array().cloned().unwrap_or_default())
        .filter_map(|w| w.as_str().map(str::to_string))
        .flat_map(|w| {
            w.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(i) = words.iter().rposition(|w| w == "exit") {
        return words.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(0);
    }
    if words.iter().any(|w| w == "false" || w == "/bin/false") {
        return 1;
    }
    0
}

/// The pod's first non-zero container exit code, or 0.
fn pod_exit_code(pod: &Value) -> i64 {
    pod["spec"]["containers"].as_array().into_iter().flatten().map(exit_code).find(|c| *c != 0).unwrap_or(0)
}

/// Runs a Job's pod until its containers end; `OnFailure` restarts a failing container in place
/// (at most a few dozen times: the Job controller stops it sooner).
async fn run_to_completion(app: &Arc<App>, ns: &str, name: &str, uid: &str) {
    let Some(pod) = app.store.read().get("/pods", ns, name) else { return };
    if !runs_to_completion(&pod) || crate::store::pod::is_terminal(&pod) {
        return;
    }
    let run = Duration::from_secs(app.cli.pod_run_seconds);
    for _ in 0..50 {
        tokio::time::sleep(run).await;
        let go_on = app.store.write(|txn| {
            let Some(pod) = txn.get("/pods", ns, name).filter(|p| object::uid(p) == uid && !object::is_deleting(p))
            else {
                return false;
            };
            let code = pod_exit_code(&pod);
            let restart = code != 0 && pod["spec"]["restartPolicy"] == "OnFailure";
            let mut next = pod.as_ref().clone();
            next["status"] = if restart { restarted_status(&pod, code) } else { terminated_status(&pod, code) };
            let stored = txn.put("/pods", next);
            if restart {
                let container = stored["spec"]["containers"][0]["name"].as_str().unwrap_or_default().to_string();
                let message = format!("Back-off restarting failed container {container} in pod {name}_{ns}({uid})");
                record_event(app, txn, &stored, EventType::Warning, "BackOff", message);
            }
            restart
        });
        if !go_on {
            return;
        }
    }
}

/// The status of a pod whose container failed with `code` and starts again (`OnFailure`).
fn restarted_status(pod: &Value, code: i64) -> Value {
    let now = object::now_string();
    let mut status = pod["status"].clone();
    for cs in status["containerStatuses"].as_array_mut().into_iter().flatten() {
        let count = cs["restartCount"].as_i64().unwrap_or(0) + 1;
        cs["restartCount"] = json!(count);
        cs["lastState"] = json!({"terminated": {"exitCode": code, "reason": "Error", "startedAt": cs["state"]["running"]["startedAt"],
            "finishedAt": now, "containerID": cs["containerID"]}});
        cs["state"] = json!({"running": {"startedAt": now}});
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_containers_command_decides_its_exit_code() {
        for (container, code) in [
            (json!({"command": ["sh", "-c", "echo hi && sleep 10 && exit 1"]}), 1),
            (json!({"command": ["sh", "-c", "exit 3"]}), 3),
            (json!({"command": ["sh", "-c", "exit 1; exit 0"]}), 0),
            (json!({"command": ["false"]}), 1),
            (json!({"command": ["sh"], "args": ["-c", "date; false"]}), 1),
            (json!({"command": ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]}), 0),
            (json!({"image": "busybox"}), 0),
        ] {
            assert_eq!(exit_code(&container), code, "{container}");
        }
    }

    #[test]
    fn a_finished_pod_is_succeeded_or_failed_and_no_longer_ready() {
        let pod = json!({"spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Running", "startTime": "t0",
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [{"name": "c", "ready": true, "state": {"running": {"startedAt": "t0"}}}]}});
        let done = terminated_status(&pod, 0);
        assert_eq!(done["phase"], "Succeeded");
        assert_eq!(done["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
        assert_eq!(done["conditions"][0]["status"], "False");
        assert_eq!(done["conditions"][0]["reason"], "PodCompleted");
        assert_eq!(done["conditions"][1]["status"], "True", "still scheduled");
        let failed = terminated_status(&pod, 2);
        assert_eq!(failed["phase"], "Failed");
        assert_eq!(failed["containerStatuses"][0]["state"]["terminated"]["exitCode"], 2);
        let again = restarted_status(&pod, 1);
        assert_eq!(again["phase"], "Running");
        assert_eq!(again["containerStatuses"][0]["restartCount"], 1);
        assert_eq!(again["containerStatuses"][0]["lastState"]["terminated"]["exitCode"], 1);
    }
}
