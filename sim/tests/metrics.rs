//! `metrics.k8s.io/v1beta1` as metrics-server serves it: listed by discovery (legacy and
//! aggregated) as an aggregated API is, NodeMetrics and PodMetrics in metrics-server's JSON
//! shape (timestamp, window, containers, canonical quantities), selectors, the errors, read-only
//! verbs, node sums, RBAC through `view`, and `--no-metrics`.

mod common;

use common::Sim;
use serde_json::Value;

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

fn quantity(text: &str) -> f64 {
    let split = text.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(text.len());
    let (n, suffix) = text.split_at(split);
    let n: f64 = n.parse().unwrap_or_else(|_| panic!("a quantity: {text}"));
    n * match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "Ki" => 1024.0,
        "Mi" => 1048576.0,
        other => panic!("unexpected suffix {other} in {text}"),
    }
}

#[tokio::test]
async fn discovery_lists_the_group_as_metrics_servers_apiservice_makes_it_appear() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let (_, groups) = sim.get_json("/apis").await;
    let group = groups["groups"].as_array().unwrap().iter().find(|g| g["name"] == "metrics.k8s.io").expect("listed");
    assert_eq!(group["preferredVersion"]["groupVersion"], "metrics.k8s.io/v1beta1");
    let (_, list) = sim.get_json("/apis/metrics.k8s.io/v1beta1").await;
    let names: Vec<(&str, &str, bool)> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["kind"].as_str().unwrap(), r["namespaced"].as_bool().unwrap()))
        .collect();
    assert_eq!(names, [("nodes", "NodeMetrics", false), ("pods", "PodMetrics", true)]);
    assert_eq!(list["resources"][0]["verbs"], serde_json::json!(["get", "list"]));
    let doc: Value = serde_json::from_str(&sim.get_with("/apis", AGGREGATED).await.text().await.unwrap()).unwrap();
    let item = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["metadata"]["name"] == "metrics.k8s.io")
        .expect("aggregated");
    assert_eq!(item["versions"][0]["version"], "v1beta1");
    assert_eq!(item["versions"][0]["freshness"], "Current");
    let (_, services) = sim.get_json("/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io").await;
    assert_eq!(services["status"]["conditions"][0]["type"], "Available");
}

#[tokio::test]
async fn pod_metrics_have_metrics_servers_shape_and_stay_within_requests() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let resp = sim.get("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods").await;
    let text = resp.text().await.unwrap();
    assert!(text.starts_with(r#"{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[{"metadata":{"name":"api-"#), "{text}");
    let list: Value = serde_json::from_str(&text).unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "api ×2 and web ×3");
    for item in items {
        let raw = item.to_string();
        assert!(raw.find("\"timestamp\"").unwrap() < raw.find("\"window\"").unwrap());
        assert_eq!(item["window"], "15s");
        let ts = chrono::DateTime::parse_from_rfc3339(item["timestamp"].as_str().unwrap()).unwrap();
        assert_eq!(ts.timestamp() % 15, 0, "the scrape falls on the resolution");
        let usage = &item["containers"][0]["usage"];
        let (cpu, memory) = (quantity(usage["cpu"].as_str().unwrap()), quantity(usage["memory"].as_str().unwrap()));
        assert!(cpu > 0.0 && cpu < 0.1 * 1.3 * 1.1 * 0.6 + 1e-9, "within the 100m request's swing: {usage}");
        assert!((0.44 * 134217728.0..=0.86 * 134217728.0).contains(&memory), "{usage}");
        assert!(item["metadata"]["labels"]["app"].is_string(), "the pod's labels");
    }
    let (code, selected) = sim.get_json("/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%3Dweb").await;
    assert_eq!(code, 200);
    assert_eq!(selected["items"].as_array().unwrap().len(), 3);
    let name = items[0]["metadata"]["name"].as_str().unwrap();
    let (code, one) = sim.get_json(&format!("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/{name}")).await;
    assert_eq!((code, one["kind"].as_str()), (200, Some("PodMetrics")));
}

#[tokio::test]
async fn node_metrics_sum_their_pods_and_the_system() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let (_, nodes) = sim.get_json("/apis/metrics.k8s.io/v1beta1/nodes").await;
    let (_, pods) = sim.get_json("/apis/metrics.k8s.io/v1beta1/pods").await;
    let (_, core) = sim.get_json("/api/v1/pods").await;
    let node_of = |pod: &str| -> String {
        core["items"].as_array().unwrap().iter().find(|p| p["metadata"]["name"] == pod).unwrap()["spec"]["nodeName"]
            .as_str()
            .unwrap()
            .into()
    };
    for node in nodes["items"].as_array().unwrap() {
        let name = node["metadata"]["name"].as_str().unwrap();
        let on_node: f64 = pods["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| node_of(p["metadata"]["name"].as_str().unwrap()) == name)
            .map(|p| quantity(p["containers"][0]["usage"]["memory"].as_str().unwrap()))
            .sum();
        let memory = quantity(node["usage"]["memory"].as_str().unwrap());
        let overhead = memory - on_node;
        assert!((550.0 * 1048576.0..=800.0 * 1048576.0).contains(&overhead), "{name}: {memory} - {on_node}");
    }
}

#[tokio::test]
async fn errors_and_verbs_are_metrics_servers() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let (code, body) = sim.get_json("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/nope").await;
    assert_eq!((code, body["message"].as_str()), (404, Some("pod \"nope\" not found")));
    let (code, body) = sim.get_json("/apis/metrics.k8s.io/v1beta1/nodes/nope").await;
    assert_eq!((code, body["message"].as_str()), (404, Some("node \"nope\" not found")));
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fresh"},
        "spec": {"containers": [{"name": "app", "image": "busybox:1.37"}]}});
    sim.send("POST", "/api/v1/namespaces/demo/pods", "application/json", pod.to_string()).await;
    let (code, body) = sim.get_json("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/fresh").await;
    assert_eq!((code, body["message"].as_str()), (404, Some("pods.metrics.k8s.io \"demo/fresh\" not found")));
    let resp = sim.send("POST", "/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods", "application/json", "{}").await;
    assert_eq!(resp.status().as_u16(), 405);
    let (code, _) = sim.get_json("/apis/metrics.k8s.io/v1beta1/pods?watch=true").await;
    assert_eq!(code, 405);
}

#[tokio::test]
async fn kubectl_get_reads_metrics_servers_table() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    let resp = sim.get_with("/apis/metrics.k8s.io/v1beta1/nodes", accept).await;
    let table: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(table["kind"], "Table");
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "cpu", "memory", "Window"]);
    let row = &table["rows"][0]["cells"];
    assert_eq!((row[0].as_str(), row[3].as_str()), (Some("node-1"), Some("15s")));
    assert!(row[1].as_str().unwrap().ends_with('n') && row[2].as_str().unwrap().ends_with("Ki"), "{row}");
}

#[tokio::test]
async fn view_reads_metrics_through_the_aggregated_reader_role() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let resp = sim
        .client
        .get(sim.url("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods"))
        .bearer_auth("viewer-token")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let resp =
        sim.client.get(sim.url("/apis/metrics.k8s.io/v1beta1/nodes")).bearer_auth("dev-token").send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 403, "dev has no cluster-wide role");
}

#[tokio::test]
async fn without_metrics_server_the_group_is_not_served() {
    let sim = Sim::start(&["--dataset", "demo", "--no-metrics"]);
    let (_, groups) = sim.get_json("/apis").await;
    assert!(!groups["groups"].as_array().unwrap().iter().any(|g| g["name"] == "metrics.k8s.io"));
    let resp = sim.get("/apis/metrics.k8s.io/v1beta1/pods").await;
    assert_eq!(resp.status().as_u16(), 404);
    assert_eq!(resp.text().await.unwrap(), "404 page not found\n");
}
