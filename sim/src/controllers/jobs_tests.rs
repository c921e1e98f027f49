//! Transcripts of the Job controller: the Job and its pods in, the actions and status out.

use super::*;

fn now() -> DateTime<Utc> {
    object::parse_time("2026-03-01T10:00:00Z").expect("time")
}

fn job(spec: Value) -> Value {
    let mut spec = spec;
    spec["template"] = json!({"metadata": {"labels": {"job-name": "pi"}}, "spec": {"restartPolicy": "Never",
        "containers": [{"name": "pi", "image": "perl"}]}});
    for (k, v) in [("parallelism", json!(1)), ("backoffLimit", json!(6))] {
        if spec[k].is_null() {
            spec[k] = v;
        }
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "demo", "uid": "job-uid"},
        "spec": spec, "status": {"startTime": "2026-03-01T09:59:00Z"}})
}

fn pod(name: &str, phase: &str, finished_at: &str) -> Value {
    let mut p = json!({"kind": "Pod", "metadata": {"name": name, "namespace": "demo", "finalizers": [TRACKING_FINALIZER],
            "ownerReferences": [{"kind": "Job", "name": "pi", "uid": "job-uid", "controller": true}]},
        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": if phase == "Running" { "True" } else { "False" }}]}});
    if !finished_at.is_empty() {
        p["status"]["containerStatuses"] = json!([{"state": {"terminated": {"finishedAt": finished_at}}}]);
    }
    p
}

fn counter() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("p{n}")
    }
}

fn status_of(actions: &Actions) -> Value {
    actions.updates.iter().find(|(k, _)| *k == KEY).map(|(_, s)| s["status"].clone()).unwrap_or(Value::Null)
}

fn condition_types(status: &Value) -> Vec<String> {
    status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_new_job_starts_its_first_pod_with_the_tracking_finalizer() {
    let mut j = job(json!({"completions": 2}));
    j["status"] = json!({});
    let (actions, again) = plan(&j, &[], now(), &mut counter());
    assert_eq!(again, None);
    assert_eq!(
        actions.transcript(),
        ["create Pod pi-p1", "update Job pi", "event Normal SuccessfulCreate: Created pod: pi-p1"]
    );
    assert_eq!(actions.creates[0].1["metadata"]["finalizers"], json!([TRACKING_FINALIZER]));
    assert_eq!(actions.creates[0].1["metadata"]["ownerReferences"][0]["kind"], "Job");
    assert_eq!(
        status_of(&actions),
        json!({"startTime": "2026-03-01T10:00:00Z", "active": 1, "ready": 0, "terminating": 0, "uncountedTerminatedPods": {}})
    );
}

#[test]
fn a_succeeded_pod_is_counted_let_go_and_followed_by_the_next() {
    let j = job(json!({"completions": 2}));
    let (actions, _) = plan(&j, &[pod("pi-a", "Succeeded", "2026-03-01T09:59:50Z")], now(), &mut counter());
    assert_eq!(
        actions.transcript(),
        ["create Pod pi-p1", "update Pod pi-a", "update Job pi", "event Normal SuccessfulCreate: Created pod: pi-p1"]
    );
    assert!(actions.updates[0].1["metadata"].get("finalizers").is_none());
    let st = status_of(&actions);
    assert_eq!((st["succeeded"].clone(), st["active"].clone()), (json!(1), json!(1)));
}

#[test]
fn enough_successes_complete_the_job_with_both_conditions() {
    let mut j = job(json!({"completions": 2}));
    j["status"]["succeeded"] = json!(1);
    let (actions, _) = plan(&j, &[pod("pi-b", "Succeeded", "2026-03-01T09:59:58Z")], now(), &mut counter());
    let st = status_of(&actions);
    assert_eq!(condition_types(&st), ["SuccessCriteriaMet", "Complete"]);
    assert_eq!(st["conditions"][1]["reason"], "CompletionsReached");
    assert_eq!(st["conditions"][1]["message"], "Reached expected number of succeeded pods");
    assert_eq!((st["succeeded"].clone(), st["completionTime"].clone()), (json!(2), json!("2026-03-01T10:00:00Z")));
    assert!(st.get("active").is_none());
    assert!(actions.transcript().contains(&"event Normal Completed: Job completed".to_string()));
    let mut done = j.clone();
    done["status"] = st;
    assert!(plan(&done, &[], now(), &mut counter()).0.is_empty(), "a finished Job is left alone");
}

#[test]
fn failures_beyond_the_backoff_limit_fail_the_job() {
    let mut j = job(json!({"completions": 1, "backoffLimit": 1}));
    j["status"]["failed"] = json!(1);
    let (actions, _) = plan(&j, &[pod("pi-b", "Failed", "2026-03-01T09:59:58Z")], now(), &mut counter());
    let st = status_of(&actions);
    assert_eq!(st["failed"], 2);
    assert_eq!(condition_types(&st), ["FailureTarget", "Failed"]);
    assert_eq!(st["conditions"][1]["reason"], "BackoffLimitExceeded");
    assert!(actions
        .transcript()
        .contains(&"event Warning BackoffLimitExceeded: Job has reached the specified backoff limit".to_string()));
}

#[test]
fn a_failure_target_waits_for_the_deleted_pods_before_failed() {
    let j = job(json!({"completions": 3, "parallelism": 2, "backoffLimit": 0}));
    let pods = [pod("pi-a", "Failed", "2026-03-01T09:59:58Z"), pod("pi-b", "Running", "")];
    let (actions, _) = plan(&j, &pods, now(), &mut counter());
    assert!(actions.transcript().contains(&"delete Pod pi-b".to_string()));
    let st = status_of(&actions);
    assert_eq!(condition_types(&st), ["FailureTarget"]);
    assert_eq!(
        (st["failed"].clone(), st["terminating"].clone()),
        (json!(2), json!(1)),
        "the running pod counts as failed"
    );
}

#[test]
fn a_failed_pod_is_replaced_after_the_back_off() {
    let j = job(json!({"completions": 1}));
    let (actions, again) = plan(&j, &[pod("pi-a", "Failed", "2026-03-01T09:59:59.5Z")], now(), &mut counter());
    assert!(actions.creates.is_empty());
    assert_eq!(again, Some(Duration::milliseconds(500)));
    let (actions, _) = plan(&j, &[pod("pi-a", "Failed", "2026-03-01T09:59:50Z")], now(), &mut counter());
    assert_eq!(actions.creates.len(), 1);
}

#[test]
fn suspending_deletes_the_active_pods() {
    let j = job(json!({"completions": 1, "suspend": true}));
    let (actions, _) = plan(&j, &[pod("pi-a", "Running", "")], now(), &mut counter());
    let lines = actions.transcript();
    assert!(lines.contains(&"delete Pod pi-a".to_string()), "{lines:?}");
    assert!(lines.contains(&"event Normal Suspended: Job suspended".to_string()), "{lines:?}");
    assert_eq!(condition_types(&status_of(&actions)), ["Suspended"]);
}

#[test]
fn an_active_deadline_fails_the_job_and_is_waited_for() {
    let j = job(json!({"completions": 1, "activeDeadlineSeconds": 30}));
    let (actions, again) = plan(&j, &[pod("pi-a", "Running", "")], now(), &mut counter());
    assert_eq!(condition_types(&status_of(&actions)), ["FailureTarget"], "started 60 s ago");
    assert_eq!(again, None);
    let j = job(json!({"completions": 1, "activeDeadlineSeconds": 90}));
    let (actions, again) = plan(&j, &[pod("pi-a", "Running", "")], now(), &mut counter());
    assert!(actions.is_empty() || condition_types(&status_of(&actions)).is_empty());
    assert_eq!(again, Some(Duration::seconds(30)));
}
