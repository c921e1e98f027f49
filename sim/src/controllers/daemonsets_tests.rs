//! Transcripts of the DaemonSet controller: the set, its pods, revisions and the nodes in; the
//! actions and status out.

use super::*;

fn now() -> DateTime<Utc> {
    object::parse_time("2026-03-01T10:00:00Z").expect("time")
}

fn ds(image: &str, generation: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "kube-system", "uid": "ds-uid", "generation": 1,
            "annotations": {TEMPLATE_GENERATION: generation}},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "revisionHistoryLimit": 10,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": image}]}}},
        "status": {}})
}

fn node(name: &str, cordoned: bool) -> Value {
    json!({"metadata": {"name": name, "labels": {}}, "spec": {"unschedulable": cordoned},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}})
}

fn counter() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("p{n}")
    }
}

fn pod_on(ds: &Value, node: &str, ready: bool) -> Value {
    let hash = revisions::template_hash(&ds["spec"]["template"], None);
    let mut p = new_pod(ds, &hash, node);
    p["metadata"]["name"] = json!(format!("agent-{node}"));
    p["metadata"]["creationTimestamp"] = json!("2026-03-01T09:00:00Z");
    p["spec"]["nodeName"] = json!(node);
    p["status"] =
        json!({"phase": "Running", "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]});
    p
}

fn revision(ds: &Value, n: i64) -> Value {
    let hash = revisions::template_hash(&ds["spec"]["template"], None);
    let mut r =
        revisions::new_revision(ds, &revisions::revision_name(ds, &hash), json!({}), revisions::template_patch(ds), n);
    r["metadata"]["labels"] = json!({"app": "agent", POD_REVISION_LABEL: hash});
    r
}

fn status_of(actions: &Actions) -> Value {
    actions.updates.iter().find(|(k, _)| *k == KEY).map(|(_, s)| s["status"].clone()).unwrap_or(Value::Null)
}

#[test]
fn one_pod_per_node_even_a_cordoned_one_pinned_by_node_affinity() {
    let d = ds("agent:1", "1");
    let nodes = [node("node-1", false), node("node-2", true)];
    let actions = plan(&d, &[], &[], &nodes, now(), &mut counter());
    let rev = revision(&d, 1);
    assert_eq!(
        actions.transcript(),
        [
            format!("create ControllerRevision {}", object::name(&rev)),
            "create Pod agent-p1".into(),
            "create Pod agent-p2".into(),
            "update DaemonSet agent".into(),
            "event Normal SuccessfulCreate: Created pod: agent-p1".into(),
            "event Normal SuccessfulCreate: Created pod: agent-p2".into(),
        ]
    );
    let pod = &actions.creates[2].1;
    assert_eq!(
        pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            [0]["matchFields"][0]["values"],
        json!(["node-2"])
    );
    assert!(pod["spec"]["tolerations"]
        .as_array()
        .expect("tolerations")
        .iter()
        .any(|t| t["key"] == "node.kubernetes.io/unschedulable"));
    assert_eq!(pod["metadata"]["labels"][POD_REVISION_LABEL], rev["metadata"]["labels"][POD_REVISION_LABEL]);
    assert_eq!(pod["metadata"]["labels"]["pod-template-generation"], "1");
    assert_eq!(
        status_of(&actions),
        json!({"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 2,
        "numberReady": 0, "observedGeneration": 1, "numberUnavailable": 2})
    );
}

#[test]
fn a_rolling_update_replaces_one_node_at_a_time() {
    let old = ds("agent:1", "1");
    let new = ds("agent:2", "2");
    let nodes = [node("node-1", false), node("node-2", false), node("node-3", false)];
    let revs = vec![revision(&old, 1)];
    let pods: Vec<Value> = ["node-1", "node-2", "node-3"].iter().map(|n| pod_on(&old, n, true)).collect();
    let actions = plan(&new, &pods, &revs, &nodes, now(), &mut counter());
    let lines = actions.transcript();
    assert!(lines.contains(&"delete Pod agent-node-1".to_string()), "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("delete Pod")).count(), 1, "{lines:?}");
    let st = status_of(&actions);
    assert_eq!(
        (st["desiredNumberScheduled"].clone(), st["numberReady"].clone(), st.get("updatedNumberScheduled")),
        (json!(3), json!(3), None)
    );
    // node-1's old pod is terminating: its replacement is made; node-2 waits for it.
    let mut terminating = pods[0].clone();
    terminating["metadata"]["deletionTimestamp"] = json!("2026-03-01T10:00:01Z");
    let pods2 = vec![terminating, pods[1].clone(), pods[2].clone()];
    let revs2 = vec![revision(&old, 1), revision(&new, 2)];
    let lines = plan(&new, &pods2, &revs2, &nodes, now(), &mut counter()).transcript();
    assert!(lines.contains(&"create Pod agent-p1".to_string()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("delete Pod")), "{lines:?}");
    // The replacement is ready: node-2 is next.
    let pods3 = vec![pod_on(&new, "node-1", true), pods[1].clone(), pods[2].clone()];
    let actions = plan(&new, &pods3, &revs2, &nodes, now(), &mut counter());
    assert!(actions.transcript().contains(&"delete Pod agent-node-2".to_string()));
    assert_eq!(status_of(&actions)["updatedNumberScheduled"], 1);
}

#[test]
fn on_delete_keeps_old_pods_and_a_failed_pod_is_killed() {
    let mut d = ds("agent:2", "2");
    d["spec"]["updateStrategy"] = json!({"type": "OnDelete"});
    let old = ds("agent:1", "1");
    let nodes = [node("node-1", false)];
    let lines =
        plan(&d, &[pod_on(&old, "node-1", true)], &[revision(&old, 1)], &nodes, now(), &mut counter()).transcript();
    assert!(!lines.iter().any(|l| l.starts_with("delete Pod")), "{lines:?}");
    let mut failed = pod_on(&d, "node-1", false);
    failed["status"]["phase"] = json!("Failed");
    let lines = plan(&d, &[failed], &[revision(&d, 1)], &nodes, now(), &mut counter()).transcript();
    assert!(lines.contains(&"delete Pod agent-node-1".to_string()), "{lines:?}");
    assert!(lines.contains(&"event Warning FailedDaemonPod: Found failed daemon pod kube-system/agent-node-1 on node node-1, will try to kill it".to_string()));
}

#[test]
fn a_node_the_template_does_not_fit_loses_its_pod() {
    let mut d = ds("agent:1", "1");
    d["spec"]["template"]["spec"]["nodeSelector"] = json!({"role": "edge"});
    let nodes = [node("node-1", false)];
    let stray = pod_on(&ds("agent:1", "1"), "node-1", true);
    let actions = plan(&d, &[stray], &[], &nodes, now(), &mut counter());
    assert!(actions.transcript().contains(&"delete Pod agent-node-1".to_string()));
    assert_eq!(status_of(&actions)["numberMisscheduled"], 1);
    assert_eq!(status_of(&actions)["desiredNumberScheduled"], 0);
}
