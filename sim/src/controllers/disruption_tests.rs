//! Transcripts of the disruption controller: a budget and its pods in, the status out.

use super::*;

fn now() -> DateTime<Utc> {
    object::parse_time("2026-03-01T10:00:00Z").expect("time")
}

fn pdb(spec: Value) -> Value {
    let mut spec = spec;
    spec["selector"] = json!({"matchLabels": {"app": "web"}});
    json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web-pdb", "namespace": "demo", "uid": "pdb-uid", "generation": 1}, "spec": spec})
}

fn pod(name: &str, ready: bool, owner_kind: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "demo", "labels": {"app": "web"},
            "ownerReferences": [{"kind": owner_kind, "name": "web-rs", "uid": "rs-uid", "controller": true}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}})
}

fn deployment_of_three(kind: &str, _name: &str) -> Option<(String, i64)> {
    (kind == "ReplicaSet").then(|| ("dep-uid".to_string(), 3))
}

fn status_of(actions: &Actions) -> Value {
    actions.updates.first().map(|(_, p)| p["status"].clone()).unwrap_or(Value::Null)
}

#[test]
fn min_available_counts_the_ready_pods_against_the_number() {
    let pods = [pod("a", true, "ReplicaSet"), pod("b", true, "ReplicaSet"), pod("c", true, "ReplicaSet")];
    let (actions, recheck) = plan(&pdb(json!({"minAvailable": 2})), &pods, &deployment_of_three, now());
    assert_eq!(recheck, None);
    assert_eq!(
        status_of(&actions),
        json!({"observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
            "conditions": [{"type": "DisruptionAllowed", "status": "True", "lastTransitionTime": "2026-03-01T10:00:00Z",
                "reason": "SufficientPods", "message": "", "observedGeneration": 1}]})
    );
    let (actions, _) = plan(&pdb(json!({"minAvailable": 2})), &pods[..2], &deployment_of_three, now());
    let st = status_of(&actions);
    assert_eq!(
        (st["disruptionsAllowed"].clone(), st["conditions"][0]["reason"].clone()),
        (json!(0), json!("InsufficientPods"))
    );
}

#[test]
fn max_unavailable_reads_the_scale_of_the_pods_controller() {
    let pods = [pod("a", true, "ReplicaSet"), pod("b", false, "ReplicaSet"), pod("c", true, "ReplicaSet")];
    let (actions, _) = plan(&pdb(json!({"maxUnavailable": 1})), &pods, &deployment_of_three, now());
    let st = status_of(&actions);
    assert_eq!(
        (st["expectedPods"].clone(), st["desiredHealthy"].clone(), st["currentHealthy"].clone()),
        (json!(3), json!(2), json!(2))
    );
    assert_eq!(st["disruptionsAllowed"], 0);
    let (actions, _) = plan(&pdb(json!({"minAvailable": "50%"})), &pods, &deployment_of_three, now());
    assert_eq!(status_of(&actions)["desiredHealthy"], 2, "50% of 3 rounds up");
}

#[test]
fn a_daemon_sets_pods_cannot_be_counted_and_the_budget_fails_safe() {
    let pods = [pod("agent-x", true, "DaemonSet")];
    let (actions, _) = plan(&pdb(json!({"maxUnavailable": 1})), &pods, &deployment_of_three, now());
    let st = status_of(&actions);
    assert_eq!(st["disruptionsAllowed"], 0);
    assert_eq!(st["conditions"][0]["reason"], "SyncFailed");
    assert_eq!(st["conditions"][0]["message"], "found no controllers for pod \"agent-x\"");
    assert_eq!(
        actions.transcript()[1],
        "event Warning CalculateExpectedPodCountFailed: Failed to calculate the number of expected pods: found no controllers for pod \"agent-x\""
    );
}

#[test]
fn an_evicted_pod_is_not_healthy_until_its_record_expires() {
    let mut budget = pdb(json!({"minAvailable": 1}));
    budget["status"] = json!({"disruptedPods": {"a": "2026-03-01T09:59:30Z", "b": "2026-03-01T09:00:00Z"}});
    let pods = [pod("a", true, "ReplicaSet"), pod("b", true, "ReplicaSet")];
    let (actions, recheck) = plan(&budget, &pods, &deployment_of_three, now());
    let st = status_of(&actions);
    assert_eq!(st["currentHealthy"], 1, "a was evicted 30 s ago");
    assert_eq!(st["disruptedPods"], json!({"a": "2026-03-01T09:59:30Z"}), "b's record expired");
    assert_eq!(recheck, object::parse_time("2026-03-01T10:01:30Z"));
}

#[test]
fn an_unchanged_budget_is_left_alone_and_no_pods_is_told_once() {
    let (actions, _) = plan(&pdb(json!({"minAvailable": 1})), &[], &deployment_of_three, now());
    assert_eq!(
        actions.transcript(),
        ["update PodDisruptionBudget web-pdb", "event Normal NoPods: No matching pods found"]
    );
    let mut settled = pdb(json!({"minAvailable": 1}));
    settled["status"] = status_of(&actions);
    let (again, _) = plan(&settled, &[], &deployment_of_three, now());
    assert!(again.is_empty(), "{:?}", again.transcript());
}
