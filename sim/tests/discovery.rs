//! Discovery: the served documents list the same resources as the shared real ones.

mod common;

use std::collections::BTreeSet;

use common::{shared_json, Sim};
use serde_json::Value;

fn names(list: &Value) -> BTreeSet<String> {
    list["resources"].as_array().into_iter().flatten().filter_map(|r| r["name"].as_str().map(str::to_string)).collect()
}

#[tokio::test]
async fn version_and_legacy_discovery_match_the_shared_documents() {
    let sim = Sim::start(&[]);
    let (code, version) = sim.get_json("/version").await;
    assert_eq!(code, 200);
    assert_eq!(version["major"], "1");
    let (_, api) = sim.get_json("/api").await;
    assert_eq!(api["versions"], serde_json::json!(["v1"]));
    let (_, core) = sim.get_json("/api/v1").await;
    assert_eq!(names(&core), names(&shared_json("discovery/api__v1.json")));
    assert!(core.get("apiVersion").is_none(), "/api/v1 has no apiVersion, as served");
    let (_, apps) = sim.get_json("/apis/apps/v1").await;
    assert_eq!(names(&apps), names(&shared_json("discovery/apis__apps__v1.json")));
    let (_, groups) = sim.get_json("/apis").await;
    let served: BTreeSet<&str> =
        groups["groups"].as_array().into_iter().flatten().filter_map(|g| g["name"].as_str()).collect();
    assert!(served.contains("apps") && served.contains("example.com"), "{served:?}");
    let (_, group) = sim.get_json("/apis/example.com").await;
    assert_eq!(group["preferredVersion"]["groupVersion"], "example.com/v1");
}

#[tokio::test]
async fn aggregated_discovery_lists_the_shared_groups_and_the_crd() {
    let sim = Sim::start(&[]);
    let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let resp = sim.get_with("/apis", accept).await;
    assert_eq!(resp.headers()["content-type"], "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    let etag = resp.headers()["etag"].to_str().expect("etag is text").to_string();
    let (_, doc) = common::json_of(resp).await;
    let shared = shared_json("discovery/aggregated_v2.json");
    let resources = |d: &Value, group: &str| -> BTreeSet<String> {
        d["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|g| g["metadata"]["name"] == group)
            .flat_map(|g| g["versions"].as_array().cloned().unwrap_or_default())
            .flat_map(|v| v["resources"].as_array().cloned().unwrap_or_default())
            .filter_map(|r| r["resource"].as_str().map(str::to_string))
            .collect()
    };
    for group in ["apps", "batch", "coordination.k8s.io", "apiextensions.k8s.io"] {
        assert_eq!(resources(&doc, group), resources(&shared, group), "group {group}");
    }
    assert_eq!(resources(&doc, "example.com"), ["widgets".to_string()].into_iter().collect());
    let again = sim
        .client
        .get(sim.url("/apis"))
        .header("Accept", accept)
        .header("If-None-Match", etag)
        .send()
        .await
        .expect("request");
    assert_eq!(again.status().as_u16(), 304);
    // Like kube-apiserver 1.36, v2beta1 is no longer served: the Accept's fallback answers.
    let v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    let (_, legacy) = common::json_of(sim.get_with("/apis", v2beta1).await).await;
    assert_eq!(legacy["kind"], common::recorded_body("03-discovery-apis-aggregated-v2beta1.txt")["kind"]);
    let core = sim.get_with("/api", accept).await;
    let (_, core) = common::json_of(core).await;
    assert_eq!(core["items"][0]["versions"][0]["version"], "v1");
}

#[tokio::test]
async fn legacy_discovery_only_answers_an_aggregated_accept_with_its_json_fallback_or_406() {
    let sim = Sim::start(&["--legacy-discovery-only"]);
    let aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    // The explorer's and kubectl's Accept: the aggregated document first, plain JSON after it.
    for accept in [
        format!("{aggregated},application/json"),
        format!("application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,{aggregated};q=0.9,application/json;q=0.8"),
    ] {
        for (path, kind) in [("/api", "APIVersions"), ("/apis", "APIGroupList")] {
            let resp = sim.get_with(path, &accept).await;
            assert_eq!(resp.status().as_u16(), 200, "{path} {accept}");
            assert_eq!(resp.headers()["content-type"], "application/json", "{path} {accept}");
            assert!(resp.headers().get("etag").is_none(), "legacy discovery has no Etag: {path}");
            let (_, doc) = common::json_of(resp).await;
            assert_eq!(doc["kind"], kind, "{path} {accept}");
        }
    }
    let (_, groups) = common::json_of(sim.get_with("/apis", &format!("{aggregated},application/json")).await).await;
    let served: BTreeSet<&str> =
        groups["groups"].as_array().into_iter().flatten().filter_map(|g| g["name"].as_str()).collect();
    assert!(served.contains("apps") && served.contains("example.com"), "{served:?}");
    // Nothing left to fall back on: 406, as the legacy handler's negotiation answers.
    for path in ["/api", "/apis"] {
        let (code, status) = common::json_of(sim.get_with(path, aggregated).await).await;
        assert_eq!((code, status["reason"].as_str()), (406, Some("NotAcceptable")), "{path}");
    }
    // The group-version documents a legacy client reads next are served as before.
    let (code, apps) = sim.get_json("/apis/apps/v1").await;
    assert_eq!(code, 200);
    assert_eq!(names(&apps), names(&shared_json("discovery/apis__apps__v1.json")));
    // Without the flag the same Accept gets the aggregated document.
    let default = Sim::start(&["--dataset", "empty"]);
    let resp = default.get_with("/apis", aggregated).await;
    assert_eq!(resp.headers()["content-type"], aggregated);
}

#[tokio::test]
async fn openapi_v3_serves_the_built_in_group_versions() {
    let sim = Sim::start(&["--dataset", "empty"]);
    let (_, index) = sim.get_json("/openapi/v3").await;
    for p in ["api/v1", "apis/apps/v1", "apis/batch/v1", "apis/example.com/v1"] {
        let url = index["paths"][p]["serverRelativeURL"].as_str().unwrap_or_else(|| panic!("{p} listed"));
        let (code, doc) = sim.get_json(url).await;
        assert_eq!(code, 200, "{url}");
        assert!(doc["components"]["schemas"].as_object().is_some_and(|s| !s.is_empty()), "{url}");
    }
}

#[tokio::test]
async fn health_endpoints_answer_ok() {
    let sim = Sim::start(&["--dataset", "empty"]);
    for path in ["/healthz", "/livez", "/readyz"] {
        let resp = sim.get(path).await;
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        assert_eq!(resp.text().await.expect("body"), "ok");
    }
}
