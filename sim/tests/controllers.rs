//! The controllers behind the API, end to end over HTTP: the eviction subresource against the
//! demo's PodDisruptionBudget, the scheduler with a cordoned cluster, and the demo's
//! StatefulSet, DaemonSet and CronJob coming up by themselves.

mod common;

use std::time::Duration;

use common::{json_of, names, Sim};
use serde_json::{json, Value};

/// Polls `path` until `ready` holds of its JSON (30 s at most).
async fn until(sim: &Sim, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..150 {
        let (_, v) = sim.get_json(path).await;
        if ready(&v) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{path} never got there: {}", sim.get_json(path).await.1);
}

async fn evict(sim: &Sim, ns: &str, pod: &str) -> (u16, Value) {
    let body = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": pod, "namespace": ns}});
    json_of(
        sim.send("POST", &format!("/api/v1/namespaces/{ns}/pods/{pod}/eviction"), "application/json", body.to_string())
            .await,
    )
    .await
}

#[tokio::test]
async fn an_eviction_honours_the_budget_with_the_real_429_and_succeeds_with_201() {
    let sim = Sim::start(&[]);
    let budget = until(&sim, "/apis/policy/v1/namespaces/demo/poddisruptionbudgets/web", |b| {
        b["status"]["disruptionsAllowed"] == 1
    })
    .await;
    assert_eq!(budget["status"]["currentHealthy"], 3);
    assert_eq!(budget["status"]["conditions"][0]["reason"], "SufficientPods");
    let pods = names(&sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await.1);
    let (code, ok) = evict(&sim, "demo", &pods[0]).await;
    assert_eq!(
        (code, ok),
        (201, json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}))
    );
    let (_, gone) = sim.get_json(&format!("/api/v1/namespaces/demo/pods/{}", pods[0])).await;
    let target = gone["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "DisruptionTarget")
        .cloned();
    assert!(gone["metadata"]["deletionTimestamp"].is_string() || gone["kind"] == "Status", "{gone}");
    if gone["kind"] == "Pod" {
        assert_eq!(target.expect("a DisruptionTarget condition")["reason"], "EvictionByEvictionAPI");
    }
    // The budget is spent: the next eviction is refused until a replacement is ready. The
    // eviction only spends it (`checkAndDecrement` leaves currentHealthy as it was, and the refusal's
    // cause then names no counts); the controller's next round counts the evicted pod out.
    until(&sim, "/apis/policy/v1/namespaces/demo/poddisruptionbudgets/web", |b| b["status"]["currentHealthy"] == 2)
        .await;
    let (code, refused) = evict(&sim, "demo", &pods[1]).await;
    assert_eq!(code, 429, "{refused}");
    assert_eq!(refused["reason"], "TooManyRequests");
    assert_eq!(refused["message"], "Cannot evict pod as it would violate the pod's disruption budget.");
    assert_eq!(refused["details"]["causes"][0]["reason"], "DisruptionBudget");
    let cause = refused["details"]["causes"][0]["message"].as_str().unwrap_or_default();
    assert!(cause.starts_with("The disruption budget web needs 2 healthy pods and has "), "{cause}");
    // The Deployment replaced the evicted pod; once it is ready, one disruption is allowed again.
    until(&sim, "/apis/policy/v1/namespaces/demo/poddisruptionbudgets/web", |b| b["status"]["disruptionsAllowed"] == 1)
        .await;
    let (code, missing) = evict(&sim, "demo", "nope").await;
    assert_eq!((code, missing["message"].as_str()), (404, Some("pods \"nope\" not found")));
    let mismatch = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}});
    let (code, bad) = json_of(
        sim.send(
            "POST",
            &format!("/api/v1/namespaces/demo/pods/{}/eviction", pods[1]),
            "application/json",
            mismatch.to_string(),
        )
        .await,
    )
    .await;
    assert_eq!((code, bad["message"].as_str()), (400, Some("name in URL does not match name in Eviction object")));
}

#[tokio::test]
async fn evicting_needs_create_on_pods_eviction() {
    let sim = Sim::start(&["--as", "viewer"]);
    let pods = names(&sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await.1);
    let (code, refused) = evict(&sim, "demo", &pods[0]).await;
    assert_eq!(code, 403);
    assert_eq!(
        refused["message"],
        format!("pods \"{}\" is forbidden: User \"viewer\" cannot create resource \"pods/eviction\" in API group \"\" in the namespace \"demo\"", pods[0])
    );
}

#[tokio::test]
async fn the_demo_workloads_come_up_and_a_cordoned_cluster_keeps_new_pods_pending() {
    let sim = Sim::start(&[]);
    let sts = until(&sim, "/apis/apps/v1/namespaces/shop/statefulsets/db", |s| s["status"]["readyReplicas"] == 2).await;
    assert_eq!(sts["status"]["currentRevision"], sts["status"]["updateRevision"]);
    let pods = sim.get_json("/api/v1/namespaces/shop/pods?labelSelector=app%3Ddb").await.1;
    assert_eq!(names(&pods), ["db-0", "db-1"]);
    let revision = pods["items"][0]["metadata"]["labels"]["controller-revision-hash"].clone();
    let (code, rev) = sim
        .get_json(&format!(
            "/apis/apps/v1/namespaces/shop/controllerrevisions/{}",
            revision.as_str().unwrap_or_default()
        ))
        .await;
    assert_eq!((code, rev["revision"].clone()), (200, json!(1)));
    assert_eq!(rev["data"]["spec"]["template"]["$patch"], "replace");
    until(&sim, "/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy", |d| d["status"]["numberAvailable"] == 3)
        .await;
    for node in ["node-1", "node-2", "node-3"] {
        let (code, _) = json_of(
            sim.send(
                "PATCH",
                &format!("/api/v1/nodes/{node}"),
                "application/strategic-merge-patch+json",
                r#"{"spec":{"unschedulable":true}}"#,
            )
            .await,
        )
        .await;
        assert_eq!(code, 200);
    }
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waiting"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let (code, created) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/pods", "application/json", pod.to_string()).await).await;
    assert_eq!(code, 201);
    assert!(created["spec"].get("nodeName").is_none(), "the scheduler binds, not the create");
    let pending = until(&sim, "/api/v1/namespaces/default/pods/waiting", |p| {
        p["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "PodScheduled" && c["status"] == "False")
    })
    .await;
    let condition = pending["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "PodScheduled")
        .cloned()
        .unwrap_or_default();
    assert_eq!(condition["reason"], "Unschedulable");
    assert_eq!(
        condition["message"],
        "0/3 nodes are available: 3 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
    let node = until(&sim, "/api/v1/nodes/node-2", |n| !n["spec"]["taints"].is_null()).await;
    assert_eq!(node["spec"]["taints"], json!([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]));
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/api/v1/nodes/node-2",
            "application/strategic-merge-patch+json",
            r#"{"spec":{"unschedulable":false}}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let running = until(&sim, "/api/v1/namespaces/default/pods/waiting", |p| p["status"]["phase"] == "Running").await;
    assert_eq!(running["spec"]["nodeName"], "node-2");
}

#[tokio::test]
async fn a_service_s_endpoint_slice_follows_its_pods_and_prints_as_the_real_table() {
    let sim = Sim::start(&[]);
    let slices =
        "/apis/discovery.k8s.io/v1/namespaces/demo/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb";
    let ready = |list: &Value| -> Vec<String> {
        let endpoints = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|s| s["endpoints"].as_array().into_iter().flatten());
        let mut names: Vec<String> = endpoints
            .filter(|e| e["conditions"]["ready"] == true)
            .filter_map(|e| e["targetRef"]["name"].as_str().map(str::to_owned))
            .collect();
        names.sort();
        names
    };
    let list = until(&sim, slices, |l| ready(l).len() == 3).await;
    let (_, pods) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    let mut web = names(&pods);
    web.sort();
    assert_eq!(ready(&list), web, "the slice names the Service's pods");
    let slice = &list["items"][0];
    assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Service");
    assert_eq!(slice["ports"], json!([{"name": "http", "port": 80, "protocol": "TCP"}]));

    // A pod deleted: the slice loses it (the ReplicaSet's new pod takes its place once it has an IP).
    let gone = web[0].clone();
    let deleted = sim
        .send("DELETE", &format!("/api/v1/namespaces/demo/pods/{gone}?gracePeriodSeconds=0"), "application/json", "")
        .await;
    assert_eq!(deleted.status().as_u16(), 200);
    until(&sim, slices, |l| !ready(l).contains(&gone) && ready(l).len() == 3).await;

    // The Table: name, address type, ports and the first three addresses, as kubectl prints them.
    let table = sim.get_with(slices, "application/json;as=Table;v=v1;g=meta.k8s.io").await;
    let (_, table) = json_of(table).await;
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(columns, ["Name", "AddressType", "Ports", "Endpoints", "Age"]);
    let cells = &table["rows"][0]["cells"];
    assert_eq!((&cells[1], &cells[2]), (&json!("IPv4"), &json!("80")));
    assert_eq!(cells[3].as_str().map(|a| a.split(',').count()), Some(3));

    // The Service deleted: its slices go.
    let svc = sim.send("DELETE", "/api/v1/namespaces/demo/services/web", "application/json", "").await;
    assert_eq!(svc.status().as_u16(), 200);
    until(&sim, slices, |l| l["items"].as_array().is_some_and(Vec::is_empty)).await;
}
