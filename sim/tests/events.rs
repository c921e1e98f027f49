//! Events: core `v1` and `events.k8s.io/v1` are one collection in two shapes (an Event written
//! through either is read through both), and each group's field labels select them, as
//! kube-apiserver's `pkg/apis/events/v1/conversion.go` and `pkg/registry/core/event/strategy.go`.

mod common;

use common::{json_of, Sim};
use serde_json::{json, Value};

const CORE: &str = "/api/v1/namespaces/demo/events";
const GROUP: &str = "/apis/events.k8s.io/v1/namespaces/demo/events";

async fn post(sim: &Sim, path: &str, body: Value) -> (u16, Value) {
    json_of(sim.send("POST", path, "application/json", body.to_string()).await).await
}

fn items(list: &Value) -> Vec<Value> {
    list["items"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_core_event_is_read_through_events_k8s_io_by_regarding() {
    let sim = Sim::start(&[]);
    let core = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.one"},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "demo", "uid": "uid-web"},
        "reason": "Pulled", "message": "Container image pulled", "type": "Normal", "count": 2,
        "source": {"component": "kubelet"}, "reportingComponent": "kubelet", "reportingInstance": "node-1",
        "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:09Z"});
    let (code, _) = post(&sim, CORE, core).await;
    assert_eq!(code, 201);
    let (code, list) = sim.get_json(&format!("{GROUP}?fieldSelector=regarding.uid%3Duid-web")).await;
    assert_eq!(code, 200, "{list}");
    let found = items(&list);
    assert_eq!(found.len(), 1, "{list}");
    // List items carry no apiVersion (as kube-apiserver's): the shape says which version it is.
    let event = &found[0];
    assert_eq!(event["regarding"]["name"], "web");
    assert_eq!(event["note"], "Container image pulled");
    assert_eq!(event["reportingController"], "kubelet");
    assert_eq!(event["deprecatedCount"], 2);
    let (_, one) = sim.get_json(&format!("{GROUP}/web.one")).await;
    assert_eq!(one["note"], "Container image pulled", "{one}");
    assert_eq!(one["apiVersion"], "events.k8s.io/v1");
    assert!(one.get("involvedObject").is_none() && one.get("message").is_none(), "{one}");
    let (_, by_controller) =
        sim.get_json(&format!("{GROUP}?fieldSelector=reportingController%3Dkubelet,reason%3DPulled")).await;
    assert!(items(&by_controller).iter().any(|e| e["metadata"]["name"] == "web.one"));
}

#[tokio::test]
async fn an_events_k8s_io_event_is_read_as_core() {
    let sim = Sim::start(&[]);
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "api.two"},
        "regarding": {"apiVersion": "v1", "kind": "Pod", "name": "api", "namespace": "demo", "uid": "uid-api"},
        "reason": "BackOff", "note": "Back-off restarting failed container", "type": "Warning",
        "action": "Restarting", "reportingController": "kubelet", "reportingInstance": "node-2",
        "eventTime": "2026-01-01T00:00:00.000000Z"});
    let (code, created) = post(&sim, GROUP, event).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["note"], "Back-off restarting failed container");
    let (_, list) = sim.get_json(&format!("{CORE}?fieldSelector=involvedObject.uid%3Duid-api")).await;
    let found = items(&list);
    assert_eq!(found.len(), 1, "{list}");
    assert_eq!(found[0]["message"], "Back-off restarting failed container");
    assert_eq!(found[0]["involvedObject"]["name"], "api");
    assert_eq!(found[0]["reportingComponent"], "kubelet");
    assert!(found[0].get("regarding").is_none());
}

#[tokio::test]
async fn each_group_takes_only_its_own_field_labels() {
    let sim = Sim::start(&[]);
    let (code, status) = sim.get_json(&format!("{GROUP}?fieldSelector=involvedObject.uid%3Dx")).await;
    assert_eq!(code, 400);
    assert_eq!(status["message"], "field label not supported: involvedObject.uid");
    let (code, status) = sim.get_json(&format!("{CORE}?fieldSelector=regarding.uid%3Dx")).await;
    assert_eq!(code, 400);
    assert_eq!(status["message"], "field label not supported: regarding.uid");
    for label in ["involvedObject.kind", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"] {
        let (code, status) = sim.get_json(&format!("{CORE}?fieldSelector={label}%3Dx")).await;
        assert_eq!(code, 200, "{label}: {status}");
    }
}
