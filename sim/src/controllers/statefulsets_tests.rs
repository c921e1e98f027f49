//! Transcripts of the StatefulSet controller: a state in (the set, its pods and revisions), the
//! actions and status out.

use super::*;

fn now() -> DateTime<Utc> {
    object::parse_time("2026-03-01T10:00:00Z").expect("time")
}

fn set(replicas: i64, image: &str, strategy: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "demo", "uid": "set-uid", "generation": 2},
        "spec": {"replicas": replicas, "serviceName": "db", "podManagementPolicy": "OrderedReady",
            "updateStrategy": strategy, "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": image}]}}},
        "status": {}})
}

fn rolling(partition: i64) -> Value {
    json!({"type": "RollingUpdate", "rollingUpdate": {"partition": partition}})
}

/// The revision `plan` makes for `set`, stored as number `n`.
fn revision_of(set: &Value, n: i64) -> Value {
    let actions = plan(set, &[], &[], now());
    let (_, mut rev) = actions.creates.into_iter().find(|(k, _)| *k == REVISIONS).expect("a revision is made");
    rev["revision"] = json!(n);
    rev["metadata"]["creationTimestamp"] = json!(format!("2026-03-01T0{n}:00:00Z"));
    rev
}

fn pod(set: &Value, ordinal: usize, revision: &Value, ready: bool) -> Value {
    let mut p = new_pod(set, &revisions::template_of(revision), object::name(revision), ordinal);
    p["status"] =
        json!({"phase": "Running", "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]});
    p
}

fn status_of(actions: &Actions) -> Value {
    actions.updates.iter().find(|(k, _)| *k == KEY).map(|(_, s)| s["status"].clone()).unwrap_or(Value::Null)
}

#[test]
fn a_new_set_records_its_revision_and_creates_the_first_pod_only() {
    let s = set(3, "postgres:16", rolling(0));
    let actions = plan(&s, &[], &[], now());
    let rev = revision_of(&s, 1);
    let rev_name = object::name(&rev);
    assert_eq!(
        actions.transcript(),
        [
            format!("create ControllerRevision {rev_name}"),
            "create Pod db-0".into(),
            "update StatefulSet db".into(),
            "event Normal SuccessfulCreate: create Pod db-0 in StatefulSet db successful".into(),
        ]
    );
    let created = &actions.creates[1].1;
    assert_eq!(created["metadata"]["labels"]["controller-revision-hash"], rev_name);
    assert_eq!(created["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"], "db-0");
    assert_eq!(created["metadata"]["labels"]["apps.kubernetes.io/pod-index"], "0");
    assert_eq!(
        (created["spec"]["hostname"].as_str(), created["spec"]["subdomain"].as_str()),
        (Some("db-0"), Some("db"))
    );
    assert_eq!(rev["revision"], 1);
    assert_eq!(rev["metadata"]["labels"]["app"], "db");
    assert!(rev["metadata"]["labels"]["controller.kubernetes.io/hash"].is_string());
    assert_eq!(
        status_of(&actions),
        json!({"observedGeneration": 2, "replicas": 1, "availableReplicas": 0, "currentRevision": rev_name,
            "updateRevision": rev_name, "collisionCount": 0, "currentReplicas": 1, "updatedReplicas": 1})
    );
}

#[test]
fn the_next_ordinal_waits_for_the_one_before_to_be_ready() {
    let s = set(3, "postgres:16", rolling(0));
    let rev = revision_of(&s, 1);
    let waiting = plan(&s, &[pod(&s, 0, &rev, false)], std::slice::from_ref(&rev), now());
    assert_eq!(waiting.transcript(), ["update StatefulSet db"]);
    let next = plan(&s, &[pod(&s, 0, &rev, true)], std::slice::from_ref(&rev), now());
    assert_eq!(
        next.transcript(),
        [
            "create Pod db-1",
            "update StatefulSet db",
            "event Normal SuccessfulCreate: create Pod db-1 in StatefulSet db successful"
        ]
    );
}

#[test]
fn a_rolling_update_replaces_the_highest_ordinal_first_and_waits_for_it() {
    let old = set(3, "postgres:16", rolling(0));
    let r1 = revision_of(&old, 1);
    let mut s = set(3, "postgres:17", rolling(0));
    s["status"] = json!({"currentRevision": object::name(&r1), "currentReplicas": 3});
    let pods: Vec<Value> = (0..3).map(|o| pod(&old, o, &r1, true)).collect();
    let actions = plan(&s, &pods, std::slice::from_ref(&r1), now());
    let r2 = revision_of(&s, 2);
    assert_eq!(
        actions.transcript(),
        [
            format!("create ControllerRevision {}", object::name(&r2)),
            "update StatefulSet db".into(),
            "delete Pod db-2".into(),
            "event Normal SuccessfulDelete: delete Pod db-2 in StatefulSet db successful".into(),
        ]
    );
    let st = status_of(&actions);
    assert_eq!(
        (st["currentRevision"].as_str(), st["updateRevision"].as_str()),
        (Some(object::name(&r1)), Some(object::name(&r2)))
    );
    assert_eq!(st["currentReplicas"], 2, "the deleted pod is no longer current");
    // db-2 came back at the new revision but is not ready yet: nothing else moves.
    let revs = vec![r1.clone(), r2.clone()];
    let pods = vec![pod(&old, 0, &r1, true), pod(&old, 1, &r1, true), pod(&s, 2, &r2, false)];
    assert_eq!(plan(&s, &pods, &revs, now()).transcript(), ["update StatefulSet db"]);
    let pods = vec![pod(&old, 0, &r1, true), pod(&old, 1, &r1, true), pod(&s, 2, &r2, true)];
    assert!(plan(&s, &pods, &revs, now()).transcript().contains(&"delete Pod db-1".to_string()));
    // All updated and ready: the update revision becomes the current one.
    let pods: Vec<Value> = (0..3).map(|o| pod(&s, o, &r2, true)).collect();
    let done = status_of(&plan(&s, &pods, &revs, now()));
    assert_eq!(done["currentRevision"], object::name(&r2));
    assert_eq!(
        (done["currentReplicas"].clone(), done["updatedReplicas"].clone(), done["readyReplicas"].clone()),
        (json!(3), json!(3), json!(3))
    );
}

#[test]
fn a_partition_keeps_the_lower_ordinals_at_the_current_revision() {
    let old = set(3, "postgres:16", rolling(2));
    let r1 = revision_of(&old, 1);
    let mut s = set(3, "postgres:17", rolling(2));
    s["status"] = json!({"currentRevision": object::name(&r1)});
    let r2 = revision_of(&s, 2);
    let revs = vec![r1.clone(), r2.clone()];
    let pods = vec![pod(&old, 0, &r1, true), pod(&old, 1, &r1, true), pod(&s, 2, &r2, true)];
    let actions = plan(&s, &pods, &revs, now());
    assert_eq!(actions.transcript(), ["update StatefulSet db"], "db-1 is below the partition");
    // A pod below the partition that is recreated comes back at the current revision.
    let actions = plan(&s, &[pod(&old, 0, &r1, true), pod(&s, 2, &r2, true)], &revs, now());
    assert_eq!(actions.creates[0].1["metadata"]["labels"]["controller-revision-hash"], object::name(&r1));
}

#[test]
fn scaling_down_removes_the_highest_ordinal_one_at_a_time() {
    let s = set(1, "postgres:16", rolling(0));
    let rev = revision_of(&s, 1);
    let pods: Vec<Value> = (0..3).map(|o| pod(&s, o, &rev, true)).collect();
    assert_eq!(
        plan(&s, &pods, std::slice::from_ref(&rev), now()).transcript(),
        [
            "update StatefulSet db",
            "delete Pod db-2",
            "event Normal SuccessfulDelete: delete Pod db-2 in StatefulSet db successful"
        ]
    );
}

#[test]
fn on_delete_replaces_nothing_but_recreates_at_the_update_revision() {
    let old = set(2, "postgres:16", json!({"type": "OnDelete"}));
    let r1 = revision_of(&old, 1);
    let s = set(2, "postgres:17", json!({"type": "OnDelete"}));
    let r2 = revision_of(&s, 2);
    let revs = vec![r1.clone(), r2.clone()];
    let actions = plan(&s, &[pod(&old, 0, &r1, true), pod(&old, 1, &r1, true)], &revs, now());
    assert_eq!(actions.transcript(), ["update StatefulSet db"]);
    let actions = plan(&s, &[pod(&old, 0, &r1, true)], &revs, now());
    assert_eq!(actions.creates[0].1["metadata"]["labels"]["controller-revision-hash"], object::name(&r2));
}

#[test]
fn a_failed_pod_is_deleted_to_be_recreated() {
    let s = set(1, "postgres:16", rolling(0));
    let rev = revision_of(&s, 1);
    let mut failed = pod(&s, 0, &rev, false);
    failed["status"]["phase"] = json!("Failed");
    assert_eq!(
        plan(&s, &[failed], std::slice::from_ref(&rev), now()).transcript(),
        [
            "update StatefulSet db",
            "delete Pod db-0",
            "event Warning RecreatingFailedPod: StatefulSet demo/db is recreating failed Pod db-0",
            "event Normal SuccessfulDelete: delete Pod db-0 in StatefulSet db successful"
        ]
    );
}
