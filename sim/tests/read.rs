//! GET of objects and lists: JSON shapes, Table, PartialObjectMetadata, 404s.

mod common;

use common::{assert_status_shape, recorded_body, Sim};

const TABLE: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

#[tokio::test]
async fn lists_and_gets_demo_objects() {
    let sim = Sim::start(&[]);
    let (code, pods) = sim.get_json("/api/v1/namespaces/demo/pods").await;
    assert_eq!(code, 200);
    assert_eq!(pods["kind"], "PodList");
    let items = pods["items"].as_array().expect("items");
    assert!(!items.is_empty());
    assert!(items[0].get("kind").is_none(), "typed list items carry no kind");
    let name = items[0]["metadata"]["name"].as_str().expect("name");
    let (code, pod) = sim.get_json(&format!("/api/v1/namespaces/demo/pods/{name}")).await;
    assert_eq!(code, 200);
    assert_eq!(pod["kind"], "Pod");
    assert!(pod["metadata"]["uid"].is_string() && pod["metadata"]["managedFields"].is_array());
    let (_, widgets) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets").await;
    assert_eq!(widgets["kind"], "WidgetList");
    assert_eq!(widgets["items"][0]["kind"], "Widget", "custom resource list items keep kind");
    let (_, nodes) = sim.get_json("/api/v1/nodes").await;
    assert_eq!(nodes["items"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn responses_are_compact_json_ending_in_newline() {
    let sim = Sim::start(&[]);
    let resp = sim.get("/api/v1/namespaces").await;
    assert_eq!(resp.headers()["content-type"], "application/json");
    let body = resp.text().await.expect("body");
    assert!(body.ends_with("}\n") && !body.contains("\n  "), "compact: {}", &body[..80.min(body.len())]);
}

#[tokio::test]
async fn table_lists_have_columns_rows_and_partial_metadata() {
    let sim = Sim::start(&[]);
    let resp = sim.get_with("/apis/example.com/v1/namespaces/default/widgets?limit=2", TABLE).await;
    assert_eq!(resp.headers()["content-type"], "application/json");
    let (_, table) = common::json_of(resp).await;
    let recorded = recorded_body("30-table-list.txt");
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["columnDefinitions"], recorded["columnDefinitions"], "CRD printer columns as the real server");
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert!(table["metadata"]["continue"].is_string());
    let (_, pods) = common::json_of(sim.get_with("/api/v1/pods?includeObject=None", TABLE).await).await;
    let names: Vec<&str> =
        pods["columnDefinitions"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(&names[..5], ["Name", "Ready", "Status", "Restarts", "Age"]);
    assert!(pods["rows"][0]["object"].is_null());
    let (_, cms) = common::json_of(sim.get_with("/api/v1/namespaces/demo/configmaps/web-config", TABLE).await).await;
    assert_eq!(cms["rows"][0]["cells"][1], 2);
    let (_, leases) = common::json_of(sim.get_with("/apis/coordination.k8s.io/v1/leases", TABLE).await).await;
    let default_cols: Vec<&str> =
        leases["columnDefinitions"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(default_cols, ["Name", "Created At"]);
}

#[tokio::test]
async fn partial_object_metadata_list() {
    let sim = Sim::start(&[]);
    let accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json";
    let (_, list) =
        common::json_of(sim.get_with("/apis/example.com/v1/namespaces/default/widgets?limit=2", accept).await).await;
    let recorded = recorded_body("40-partialobjectmetadata-list.txt");
    assert_eq!(list["kind"], recorded["kind"]);
    assert_eq!(list["apiVersion"], recorded["apiVersion"]);
    assert_eq!(list["items"][0]["kind"], "PartialObjectMetadata");
    assert!(list["items"][0].get("spec").is_none());
}

#[tokio::test]
async fn unknown_paths_are_plain_text_404_and_missing_objects_are_status_404() {
    let sim = Sim::start(&[]);
    for path in [
        "/apis/example.com/v1/namespaces/default/sprockets",
        "/apis/nope.io/v1",
        "/api/v2",
        "/api/v1/namespaces/default/nodes/node-1",
    ] {
        let resp = sim.get(path).await;
        assert_eq!(resp.status().as_u16(), 404, "{path}");
        assert_eq!(resp.headers()["content-type"], "text/plain; charset=utf-8", "{path}");
        assert_eq!(resp.text().await.expect("body").trim_end(), "404 page not found");
    }
    let (code, status) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets/w-06").await;
    assert_eq!(code, 404);
    assert_status_shape(&status, &recorded_body("141-delete-404.txt"));
    assert_eq!(status["message"], "widgets.example.com \"w-06\" not found");
    assert_eq!(status["details"], serde_json::json!({"name": "w-06", "group": "example.com", "kind": "widgets"}));
}

#[tokio::test]
async fn protobuf_is_served_for_built_in_types_and_is_406_or_json_for_custom_resources() {
    let sim = Sim::start(&[]);
    let resp = sim.get_with("/api/v1/namespaces", "application/vnd.kubernetes.protobuf").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/vnd.kubernetes.protobuf");
    let body = resp.bytes().await.expect("body");
    assert!(body.starts_with(b"k8s\0\x0a\x13\x0a\x02v1\x12\x0dNamespaceList"), "{:x?}", &body[..24]);
    // A custom resource has no message (real-apiserver 43b): 406, its Status in protobuf.
    let widget = "/apis/example.com/v1/namespaces/default/widgets/w-01";
    let resp = sim.get_with(widget, "application/vnd.kubernetes.protobuf").await;
    assert_eq!(resp.status().as_u16(), 406);
    assert_eq!(resp.headers()["content-type"], "application/vnd.kubernetes.protobuf");
    assert!(resp.bytes().await.expect("body").starts_with(b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Status"));
    let resp = sim.get_with(widget, "application/vnd.kubernetes.protobuf, application/json").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let resp = sim.get_with("/api/v1/namespaces/default", "application/yaml").await;
    assert_eq!(resp.headers()["content-type"], "application/yaml");
    assert!(resp.text().await.expect("body").contains("kind: Namespace"));
}

#[tokio::test]
async fn a_deprecated_version_serves_the_same_objects_with_a_warning() {
    let sim = Sim::start(&[]);
    let resp = sim.get("/apis/example.com/v1beta1/namespaces/default/widgets/w-01").await;
    let warning = resp.headers().get("warning").and_then(|v| v.to_str().ok()).map(str::to_string);
    assert_eq!(
        warning.as_deref(),
        Some("299 - \"example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget\"")
    );
    let (_, w) = common::json_of(resp).await;
    assert_eq!(w["apiVersion"], "example.com/v1beta1");
    assert_eq!(w["spec"]["size"], "small");
    let (_, group) = sim.get_json("/apis/example.com").await;
    assert_eq!(group["versions"].as_array().map(Vec::len), Some(2));
    assert_eq!(group["preferredVersion"]["version"], "v1");
    let (_, table) = common::json_of(sim.get_with("/apis/example.com/v1beta1/widgets", TABLE).await).await;
    let cols: Vec<&str> =
        table["columnDefinitions"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(cols, ["Name", "Age"], "a version without printer columns gets Name and Age");
}

#[tokio::test]
async fn local_origins_get_the_recorded_cors_headers() {
    let sim = Sim::start(&[]);
    let resp = sim
        .client
        .get(sim.url("/apis/example.com/v1/namespaces/default/widgets/w-01"))
        .header("Origin", "http://localhost:5173")
        .send()
        .await
        .expect("get");
    let recorded = common::shared_dir().join("kube/real-apiserver/151-cors-simple-get-localhost.txt");
    let text = std::fs::read_to_string(recorded).expect("recording");
    for name in [
        "access-control-allow-origin",
        "access-control-allow-credentials",
        "access-control-allow-headers",
        "access-control-allow-methods",
        "access-control-expose-headers",
    ] {
        let want = text
            .lines()
            .find_map(|l| l.split_once(": ").filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.to_string()));
        let got = resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        assert_eq!(got, want, "{name}");
    }
    let other = sim.client.get(sim.url("/version")).header("Origin", "https://evil.example").send().await.expect("get");
    assert!(other.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn yaml_bodies_both_ways_and_tables_with_whole_objects() {
    let sim = Sim::start(&[]);
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  greeting: hello\n";
    let resp = sim
        .client
        .post(sim.url("/api/v1/namespaces/default/configmaps"))
        .header("Content-Type", "application/yaml")
        .header("Accept", "application/yaml")
        .body(yaml)
        .send()
        .await
        .expect("post");
    assert_eq!(resp.status().as_u16(), 201);
    assert_eq!(resp.headers()["content-type"], "application/yaml");
    let back: serde_json::Value = serde_yaml::from_str(&resp.text().await.expect("body")).expect("YAML answer");
    assert_eq!(back["data"]["greeting"], "hello");
    let (_, table) =
        common::json_of(sim.get_with("/api/v1/namespaces/default/configmaps?includeObject=Object", TABLE).await).await;
    let row = table["rows"].as_array().into_iter().flatten().find(|r| r["cells"][0] == "from-yaml").expect("row");
    assert_eq!(row["object"]["kind"], "ConfigMap");
    assert_eq!(row["object"]["data"]["greeting"], "hello");
}

#[tokio::test]
async fn metadata_only_watch_events() {
    let sim = Sim::start(&[]);
    let resp = sim
        .get_with("/api/v1/namespaces?watch=1", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
        .await;
    let mut w = common::WatchLines::new(resp);
    let e = w.next(30).await.expect("event");
    assert_eq!(e["object"]["kind"], "PartialObjectMetadata");
    assert!(e["object"].get("spec").is_none());
    let (_, state) = sim.get_json("/_sim/state").await;
    assert_eq!(state["openStreams"], 1);
}

#[tokio::test]
async fn the_demo_cluster_has_the_same_names_on_every_start() {
    let names = |list: serde_json::Value| -> Vec<String> {
        list["items"]
            .as_array()
            .into_iter()
            .flatten()
            // The pods the dataset holds; the StatefulSet's and DaemonSet's come up after the start.
            .filter(|i| {
                !matches!(
                    i["metadata"]["ownerReferences"][0]["kind"].as_str(),
                    Some("StatefulSet" | "DaemonSet" | "Job")
                )
            })
            .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
            .collect()
    };
    let one = Sim::start(&[]);
    let two = Sim::start(&[]);
    let (_, a) = one.get_json("/api/v1/pods").await;
    let (_, b) = two.get_json("/api/v1/pods").await;
    assert_eq!(names(a), names(b));
}
