//! Watches: initial events, live changes, resourceVersion semantics, 410 in-stream, bookmarks,
//! sendInitialEvents, timeouts, selectors, Table events, and cut streams.

mod common;

use common::{json_of, recorded_body, Sim, WatchLines};
use serde_json::json;

async fn watch(sim: &Sim, path: &str) -> WatchLines {
    let resp = sim.get(path).await;
    assert_eq!(resp.status().as_u16(), 200, "{path}");
    assert_eq!(resp.headers()["content-type"], "application/json");
    WatchLines::new(resp)
}

async fn create_widget(sim: &Sim, name: &str, color: &str) {
    let body = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "labels": {"color": color}}, "spec": {"size": "small", "color": color}});
    let resp =
        sim.send("POST", "/apis/example.com/v1/namespaces/default/widgets", "application/json", body.to_string()).await;
    assert_eq!(resp.status().as_u16(), 201);
}

#[tokio::test]
async fn watch_sends_initial_state_then_changes_as_they_happen() {
    let sim = Sim::start(&[]);
    let mut w = watch(&sim, "/apis/example.com/v1/namespaces/default/widgets?watch=1").await;
    for name in ["w-01", "w-02", "w-03"] {
        let e = w.next(30).await.expect("initial event");
        assert_eq!((e["type"].as_str(), e["object"]["metadata"]["name"].as_str()), (Some("ADDED"), Some(name)));
    }
    create_widget(&sim, "w-live", "red").await;
    let e = w.next(30).await.expect("live event");
    assert_eq!(e["type"], "ADDED");
    assert_eq!(e["object"]["metadata"]["name"], "w-live");
    let patch = sim
        .send(
            "PATCH",
            "/apis/example.com/v1/namespaces/default/widgets/w-live",
            "application/merge-patch+json",
            r#"{"spec":{"color":"blue"}}"#,
        )
        .await;
    assert_eq!(patch.status().as_u16(), 200);
    let e = w.next(30).await.expect("modified");
    assert_eq!((e["type"].as_str(), e["object"]["spec"]["color"].as_str()), (Some("MODIFIED"), Some("blue")));
    sim.send("DELETE", "/apis/example.com/v1/namespaces/default/widgets/w-live", "application/json", "").await;
    let e = w.next(30).await.expect("deleted");
    assert_eq!(e["type"], "DELETED");
}

#[tokio::test]
async fn watch_from_an_exact_version_replays_only_later_changes() {
    let sim = Sim::start(&[]);
    let (_, list) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets").await;
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    create_widget(&sim, "w-after", "green").await;
    let mut w =
        watch(&sim, &format!("/apis/example.com/v1/namespaces/default/widgets?watch=1&resourceVersion={rv}")).await;
    let e = w.next(30).await.expect("replayed event");
    assert_eq!((e["type"].as_str(), e["object"]["metadata"]["name"].as_str()), (Some("ADDED"), Some("w-after")));
}

#[tokio::test]
async fn a_compacted_version_gets_an_in_stream_410() {
    let sim = Sim::start(&[]);
    create_widget(&sim, "w-old", "red").await;
    sim.client.post(sim.url("/_sim/compact")).send().await.expect("compact");
    let mut w = watch(&sim, "/apis/example.com/v1/namespaces/default/widgets?watch=1&resourceVersion=2").await;
    let e = w.next(30).await.expect("error event");
    let recorded = recorded_body("65-watch-rv-too-old-410-in-stream.txt");
    assert_eq!(e["type"], recorded["type"]);
    for key in ["kind", "apiVersion", "status", "reason", "code"] {
        assert_eq!(e["object"][key], recorded["object"][key], "{key}");
    }
    assert!(w.next(30).await.is_none(), "the stream ends after the ERROR");
}

#[tokio::test]
async fn send_initial_events_ends_with_the_annotated_bookmark() {
    let sim = Sim::start(&[]);
    let mut w = watch(&sim, "/apis/example.com/v1/namespaces/default/widgets?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true").await;
    let mut added = 0;
    loop {
        let e = w.next(30).await.expect("event");
        if e["type"] == "BOOKMARK" {
            assert_eq!(e["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
            assert_eq!(e["object"]["kind"], "Widget");
            break;
        }
        assert_eq!(e["type"], "ADDED");
        added += 1;
    }
    assert_eq!(added, 3);
    let (code, status) =
        json_of(sim.get("/apis/example.com/v1/namespaces/default/widgets?watch=1&sendInitialEvents=true").await).await;
    assert_eq!(code, 422);
    assert_eq!(status["message"], recorded_body("63-watch-sendInitialEvents-without-rvmatch-422.txt")["message"]);
}

#[tokio::test]
async fn periodic_bookmarks_and_timeout_seconds() {
    // A quiet cluster: the demo's controllers write in its first seconds, moving the bookmarks'
    // resourceVersion on.
    let sim = Sim::start(&["--bookmark-interval", "1", "--dataset", "empty"]);
    let (_, list) = sim.get_json("/api/v1/namespaces").await;
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    let mut w = watch(
        &sim,
        &format!("/api/v1/namespaces?watch=1&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=3"),
    )
    .await;
    let e = w.next(30).await.expect("bookmark");
    assert_eq!(e["type"], "BOOKMARK");
    assert_eq!(e["object"]["metadata"]["resourceVersion"], rv);
    while let Some(e) = w.next(30).await {
        assert_eq!(e["type"], "BOOKMARK");
    }
}

#[tokio::test]
async fn selectors_on_watches_turn_leaving_objects_into_deletes() {
    let sim = Sim::start(&[]);
    let mut w = watch(
        &sim,
        "/apis/example.com/v1/namespaces/default/widgets?watch=1&labelSelector=color%3Dred&resourceVersion=0",
    )
    .await;
    create_widget(&sim, "w-blue", "blue").await;
    create_widget(&sim, "w-red", "red").await;
    let e = w.next(30).await.expect("only red");
    assert_eq!(e["object"]["metadata"]["name"], "w-red");
    sim.send(
        "PATCH",
        "/apis/example.com/v1/namespaces/default/widgets/w-red",
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"color":"blue"}}}"#,
    )
    .await;
    let e = w.next(30).await.expect("leaves the selection");
    assert_eq!((e["type"].as_str(), e["object"]["metadata"]["name"].as_str()), (Some("DELETED"), Some("w-red")));
}

#[tokio::test]
async fn table_watch_sends_columns_once() {
    let sim = Sim::start(&["--bookmark-interval", "1"]);
    let resp = sim
        .get_with(
            "/apis/example.com/v1/namespaces/default/widgets?watch=1&resourceVersion=0&allowWatchBookmarks=true",
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        )
        .await;
    let mut w = WatchLines::new(resp);
    let first = w.next(30).await.expect("first");
    assert_eq!(first["object"]["kind"], "Table");
    assert!(first["object"]["columnDefinitions"].is_array());
    let second = w.next(30).await.expect("second");
    assert!(second["object"]["columnDefinitions"].is_null());
    loop {
        let e = w.next(30).await.expect("bookmark comes");
        if e["type"] == "BOOKMARK" {
            assert!(e["object"]["columnDefinitions"].is_null());
            assert_eq!(e["object"]["rows"][0]["cells"][0], "");
            break;
        }
    }
}

/// As `kubectl get -w` and the explorer's live Table watch it: a streaming list of Tables with full
/// objects; the shape follows the real server's recording `67-watch-table.txt`.
#[tokio::test]
async fn table_streaming_list_carries_one_row_per_event_and_ends_initial_events_in_the_row() {
    let sim = Sim::start(&[]);
    let resp = sim
        .get_with(
            "/apis/example.com/v1/namespaces/default/widgets?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true&includeObject=Object",
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
        )
        .await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let mut w = WatchLines::new(resp);
    let mut added = 0;
    loop {
        let e = w.next(30).await.expect("an initial event");
        let table = &e["object"];
        assert_eq!((table["kind"].as_str(), table["apiVersion"].as_str()), (Some("Table"), Some("meta.k8s.io/v1")));
        assert_eq!(table["columnDefinitions"].is_array(), added == 0, "columns only in the first event: {e}");
        let rows = table["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 1);
        let object = &rows[0]["object"];
        if e["type"] == "BOOKMARK" {
            assert_eq!(object["kind"], "PartialObjectMetadata");
            assert_eq!(object["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
            assert_eq!(table["metadata"]["resourceVersion"], object["metadata"]["resourceVersion"]);
            break;
        }
        assert_eq!(e["type"], "ADDED");
        assert_eq!(object["kind"], "Widget", "includeObject=Object: the whole object");
        assert!(object["spec"].is_object());
        assert_eq!(table["metadata"]["resourceVersion"], object["metadata"]["resourceVersion"]);
        assert_eq!(rows[0]["cells"][0], object["metadata"]["name"]);
        added += 1;
    }
    assert!(added >= 3, "the demo widgets");
    create_widget(&sim, "w-table", "teal").await;
    let e = w.next(30).await.expect("live event");
    assert_eq!(e["type"], "ADDED");
    assert!(e["object"]["columnDefinitions"].is_null());
    assert_eq!(e["object"]["rows"][0]["object"]["metadata"]["name"], "w-table");
}

#[tokio::test]
async fn drop_watches_cuts_open_streams() {
    let sim = Sim::start(&[]);
    let mut w = watch(&sim, "/api/v1/namespaces?watch=1").await;
    w.next(30).await.expect("initial event");
    let resp = sim.client.post(sim.url("/_sim/drop-watches")).send().await.expect("drop");
    assert_eq!(resp.status().as_u16(), 200);
    while let Ok(Some(_)) = w.try_next(30).await {}
}

#[tokio::test]
async fn legacy_watch_path_watches_one_object() {
    let sim = Sim::start(&[]);
    let mut w = watch(&sim, "/apis/example.com/v1/watch/namespaces/default/widgets/w-02").await;
    let e = w.next(30).await.expect("the object");
    assert_eq!(e["object"]["metadata"]["name"], "w-02");
    sim.send(
        "PATCH",
        "/apis/example.com/v1/namespaces/default/widgets/w-01",
        "application/merge-patch+json",
        r#"{"spec":{"color":"x"}}"#,
    )
    .await;
    sim.send(
        "PATCH",
        "/apis/example.com/v1/namespaces/default/widgets/w-02",
        "application/merge-patch+json",
        r#"{"spec":{"color":"y"}}"#,
    )
    .await;
    let e = w.next(30).await.expect("its change");
    assert_eq!((e["type"].as_str(), e["object"]["metadata"]["name"].as_str()), (Some("MODIFIED"), Some("w-02")));
}

#[tokio::test]
async fn activity_keeps_events_flowing() {
    let sim = Sim::start(&["--activity"]);
    let (_, list) = sim.get_json("/api/v1/pods").await;
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    let mut w = watch(&sim, &format!("/api/v1/pods?watch=1&resourceVersion={rv}")).await;
    let mut kinds = std::collections::BTreeSet::new();
    while kinds.len() < 3 {
        let e = w.next(60).await.expect("activity produces pod events");
        kinds.insert(e["type"].as_str().unwrap_or_default().to_string());
    }
    assert!(kinds.contains("ADDED") && kinds.contains("MODIFIED") && kinds.contains("DELETED"), "{kinds:?}");
}

#[tokio::test]
async fn history_older_than_the_window_is_forgotten_without_writes() {
    let sim = Sim::start(&["--history", "1"]);
    let (_, list) = sim.get_json("/api/v1/namespaces").await;
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "tick"}});
    sim.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", cm.to_string()).await;
    let mut expired = false;
    for _ in 0..40 {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let mut w = watch(
            &sim,
            &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=1"),
        )
        .await;
        if let Some(e) = w.next(30).await {
            if e["type"] == "ERROR" {
                assert_eq!(e["object"]["code"], 410);
                expired = true;
                break;
            }
        }
    }
    assert!(expired, "a watch from before the 1 s history window gets 410 within 10 s");
}

#[tokio::test]
async fn a_watch_from_before_a_custom_type_was_served_is_too_old() {
    let sim = Sim::start(&["--dataset", "empty"]);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.tools.example.org"},
        "spec": {"group": "tools.example.org", "scope": "Cluster",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let resp = sim
        .send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd.to_string())
        .await;
    let (code, created) = json_of(resp).await;
    assert_eq!(code, 201, "{created}");
    let rv = created["metadata"]["resourceVersion"].as_str().expect("the CRD has a resourceVersion");
    // As 65-watch-rv-too-old-410-in-stream, whose resourceVersion is the CRD's create.
    let mut w = watch(&sim, &format!("/apis/tools.example.org/v1alpha1/gizmos?watch=1&resourceVersion={rv}")).await;
    let e = w.next(30).await.expect("an ERROR event");
    let recorded = recorded_body("65-watch-rv-too-old-410-in-stream.txt");
    for key in ["kind", "status", "reason", "code"] {
        assert_eq!(e["object"][key], recorded["object"][key], "{key}: {e}");
    }
    assert!(w.next(30).await.is_none(), "the stream ends after the ERROR");
    // From the first version after it, the watch is served.
    let next = rv.parse::<u64>().expect("a numeric resourceVersion") + 1;
    let gizmo =
        |name: &str| json!({"apiVersion": "tools.example.org/v1alpha1", "kind": "Gizmo", "metadata": {"name": name}});
    let path = "/apis/tools.example.org/v1alpha1/gizmos";
    let resp = sim.send("POST", path, "application/json", gizmo("g-01").to_string()).await;
    assert_eq!(resp.status().as_u16(), 201);
    let mut w = watch(&sim, &format!("{path}?watch=1&resourceVersion={next}")).await;
    let resp = sim.send("POST", path, "application/json", gizmo("g-02").to_string()).await;
    assert_eq!(resp.status().as_u16(), 201);
    let mut names = Vec::new();
    while !names.contains(&"g-02".to_string()) {
        let e = w.next(30).await.expect("the creates as events");
        assert_eq!(e["type"], "ADDED", "{e}");
        names.push(e["object"]["metadata"]["name"].as_str().unwrap_or_default().to_string());
    }
}

#[tokio::test]
async fn a_watch_from_version_0_with_bookmarks_ends_its_initial_events_with_the_annotated_bookmark() {
    let sim = Sim::start(&[]);
    // As 67-watch-table: resourceVersion=0 and allowWatchBookmarks, without sendInitialEvents.
    let mut w = watch(
        &sim,
        "/apis/example.com/v1/namespaces/default/widgets?watch=1&resourceVersion=0&allowWatchBookmarks=true",
    )
    .await;
    let mut added = 0;
    loop {
        let e = w.next(30).await.expect("event");
        if e["type"] == "BOOKMARK" {
            assert_eq!(e["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true", "{e}");
            break;
        }
        assert_eq!(e["type"], "ADDED");
        added += 1;
    }
    assert_eq!(added, 3);
}
