//! Lists: paging over a consistent snapshot, continue tokens and their expiry, the
//! resourceVersion / resourceVersionMatch table, and label and field selectors.

mod common;

use common::{assert_status_shape, json_of, names, recorded_body, recorded_status, Sim};
use serde_json::{json, Value};

async fn create_configmap(sim: &Sim, ns: &str, name: &str, labels: Value) {
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}, "data": {"k": "v"}});
    let resp =
        sim.send("POST", &format!("/api/v1/namespaces/{ns}/configmaps"), "application/json", body.to_string()).await;
    assert_eq!(resp.status().as_u16(), 201, "create {name}");
}

#[tokio::test]
async fn paging_walks_a_consistent_snapshot() {
    let sim = Sim::start(&["--dataset", "empty"]);
    for i in 0..7 {
        create_configmap(&sim, "default", &format!("cm-{i}"), json!({"i": i.to_string()})).await;
    }
    let (_, first) = sim.get_json("/api/v1/namespaces/default/configmaps?limit=3").await;
    assert_eq!(names(&first), ["cm-0", "cm-1", "cm-2"]);
    assert_eq!(first["metadata"]["remainingItemCount"], 4);
    let rv = first["metadata"]["resourceVersion"].clone();
    create_configmap(&sim, "default", "cm-00-late", json!({})).await;
    sim.send("DELETE", "/api/v1/namespaces/default/configmaps/cm-5", "application/json", "").await;
    let token = first["metadata"]["continue"].as_str().expect("continue token");
    let (_, second) = sim.get_json(&format!("/api/v1/namespaces/default/configmaps?limit=3&continue={token}")).await;
    assert_eq!(names(&second), ["cm-3", "cm-4", "cm-5"], "pages come from the first page's snapshot");
    assert_eq!(second["metadata"]["resourceVersion"], rv);
    let token = second["metadata"]["continue"].as_str().expect("continue token");
    let (_, last) = sim.get_json(&format!("/api/v1/namespaces/default/configmaps?limit=3&continue={token}")).await;
    assert_eq!(names(&last), ["cm-6"]);
    assert_eq!(last["metadata"]["continue"], "", "the last page of a paged list says continue \"\"");
    assert!(last["metadata"].get("remainingItemCount").is_none());
    let (_, now) = sim.get_json("/api/v1/namespaces/default/configmaps").await;
    assert!(names(&now).contains(&"cm-00-late".to_string()) && !names(&now).contains(&"cm-5".to_string()));
    assert!(now["metadata"].get("continue").is_none());
}

#[tokio::test]
async fn continue_tokens_expire_with_410() {
    let sim = Sim::start(&["--continue-ttl", "1"]);
    let (_, first) = sim.get_json("/api/v1/pods?limit=2").await;
    let token = first["metadata"]["continue"].as_str().expect("continue token").to_string();
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    let (code, status) = sim.get_json(&format!("/api/v1/pods?limit=2&continue={token}")).await;
    assert_eq!(code, 410);
    assert_eq!(status["reason"], "Expired");
    assert_eq!(status["kind"], "Status");
}

#[tokio::test]
async fn invalid_list_options_get_the_real_status_codes() {
    let sim = Sim::start(&[]);
    for (file, path) in [
        ("24-list-invalid-continue-400.txt", "/apis/example.com/v1/namespaces/default/widgets?limit=2&continue=bogus"),
        ("25b-list-continue-with-explicit-rv-400.txt", "/apis/example.com/v1/namespaces/default/widgets?limit=2&resourceVersion=17&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTcsInN0YXJ0IjoiL3ctMDJcdTAwMDAifQ"),
    ] {
        let (code, body) = sim.get_json(path).await;
        assert_eq!(code, recorded_status(file), "{file}");
        assert_status_shape(&body, &recorded_body(file));
        assert_eq!(body["message"], recorded_body(file)["message"], "{file}");
    }
    let (code, body) = sim.get_json("/api/v1/pods?resourceVersionMatch=NotOlderThan").await;
    assert_eq!(code, 422);
    assert_eq!(body["details"]["causes"][0]["field"], "resourceVersionMatch");
    let (code, body) = sim.get_json("/api/v1/pods?resourceVersion=0&resourceVersionMatch=Exact").await;
    assert_eq!((code, body["reason"].as_str()), (422, Some("Invalid")));
    let (code, body) = sim.get_json("/api/v1/pods?resourceVersion=99999999").await;
    assert_eq!(code, 504);
    assert!(body["message"].as_str().is_some_and(|m| m.contains("Too large resource version")), "{body}");
    let (code, _) = sim.get_json("/api/v1/pods?limit=abc").await;
    assert_eq!(code, 400);
}

#[tokio::test]
async fn resource_version_semantics_for_list() {
    let sim = Sim::start(&["--dataset", "empty"]);
    for i in 0..3 {
        create_configmap(&sim, "default", &format!("a-{i}"), json!({})).await;
    }
    let (_, all) = sim.get_json("/api/v1/namespaces/default/configmaps?resourceVersion=0&limit=1").await;
    assert_eq!(names(&all).len(), 3, "resourceVersion=0 ignores limit");
    let rv: u64 = all["metadata"]["resourceVersion"].as_str().and_then(|r| r.parse().ok()).expect("rv");
    create_configmap(&sim, "default", "a-3", json!({})).await;
    let (code, exact) = sim
        .get_json(&format!("/api/v1/namespaces/default/configmaps?resourceVersion={rv}&resourceVersionMatch=Exact"))
        .await;
    assert_eq!(code, 200);
    assert_eq!(names(&exact), ["a-0", "a-1", "a-2"], "Exact serves the list as it was");
    assert_eq!(exact["metadata"]["resourceVersion"], rv.to_string());
    let (_, newer) = sim
        .get_json(&format!(
            "/api/v1/namespaces/default/configmaps?resourceVersion={rv}&resourceVersionMatch=NotOlderThan&limit=2"
        ))
        .await;
    assert_eq!(names(&newer), ["a-0", "a-1"]);
    assert_eq!(newer["metadata"]["remainingItemCount"], 2);
    sim.client.post(sim.url("/_sim/compact")).send().await.expect("compact");
    let (code, gone) = sim
        .get_json(&format!("/api/v1/namespaces/default/configmaps?resourceVersion={rv}&resourceVersionMatch=Exact"))
        .await;
    assert_eq!(code, 410, "{gone}");
    assert_eq!(gone["reason"], "Expired");
}

#[tokio::test]
async fn label_selectors_support_every_operator() {
    let sim = Sim::start(&["--dataset", "empty"]);
    create_configmap(&sim, "default", "front", json!({"app": "web", "tier": "front"})).await;
    create_configmap(&sim, "default", "back", json!({"app": "web", "tier": "back"})).await;
    create_configmap(&sim, "default", "plain", json!({"app": "db"})).await;
    for (selector, expect) in [
        ("app=web", vec!["back", "front"]),
        ("app==web,tier!=front", vec!["back"]),
        ("tier in (front,back)", vec!["back", "front"]),
        ("tier notin (front)", vec!["back", "plain"]),
        ("tier", vec!["back", "front"]),
        ("!tier", vec!["plain"]),
    ] {
        let q: String = url_encode(selector);
        let (code, list) =
            sim.get_json(&format!("/api/v1/namespaces/default/configmaps?labelSelector={q}&limit=1")).await;
        assert_eq!(code, 200, "{selector}");
        let mut got = names(&list);
        let mut token = list["metadata"]["continue"].as_str().unwrap_or_default().to_string();
        assert!(list["metadata"].get("remainingItemCount").is_none(), "no remainingItemCount with selectors");
        while !token.is_empty() {
            let (_, more) = sim
                .get_json(&format!("/api/v1/namespaces/default/configmaps?labelSelector={q}&limit=1&continue={token}"))
                .await;
            got.extend(names(&more));
            token = more["metadata"]["continue"].as_str().unwrap_or_default().to_string();
        }
        got.sort();
        assert_eq!(got, expect, "{selector}");
    }
    let (code, _) = sim.get_json("/api/v1/configmaps?labelSelector=app%20in%20web").await;
    assert_eq!(code, 400);
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn field_selectors_per_type() {
    let sim = Sim::start(&[]);
    let (_, pods) = sim.get_json("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1").await;
    assert!(!names(&pods).is_empty());
    assert!(pods["items"].as_array().into_iter().flatten().all(|p| p["spec"]["nodeName"] == "node-1"));
    let (_, running) =
        sim.get_json("/api/v1/pods?fieldSelector=status.phase%3DRunning,metadata.namespace%3Dshop").await;
    assert!(running["items"].as_array().into_iter().flatten().all(|p| p["metadata"]["namespace"] == "shop"));
    let (_, one) =
        sim.get_json("/apis/example.com/v1/namespaces/default/widgets?fieldSelector=metadata.name%3Dw-02").await;
    assert_eq!(names(&one), ["w-02"]);
    let (_, red) = sim.get_json("/apis/example.com/v1/widgets?fieldSelector=spec.color%3Dred").await;
    assert_eq!(names(&red), ["w-01", "w-03"], "the CRD's selectableFields");
    let (code, status) = sim.get_json("/api/v1/pods?fieldSelector=spec.bogus%3Dx").await;
    assert_eq!(code, 400);
    assert_eq!(status["message"], "field label not supported: spec.bogus");
}

/// The real field-selector parser skips empty terms (apimachinery/pkg/fields/selector.go,
/// `parseSelector`: `if part == "" { continue }`), so `metadata.name=x,` as kr8s sends it selects
/// `x`; label selectors stay strict (apimachinery/pkg/labels/selector.go: "found ','").
#[tokio::test]
async fn an_empty_field_selector_term_is_skipped_and_a_label_one_is_not() {
    let sim = Sim::start(&[]);
    let (code, one) =
        sim.get_json("/apis/example.com/v1/namespaces/default/widgets?fieldSelector=metadata.name%3Dw-02%2C").await;
    assert_eq!(code, 200, "{one}");
    assert_eq!(names(&one), ["w-02"]);
    let (code, both) = sim
        .get_json("/apis/example.com/v1/widgets?fieldSelector=%2Cspec.color%3Dred%2C%2Cmetadata.namespace%3Ddefault")
        .await;
    assert_eq!(code, 200, "{both}");
    assert!(names(&both).iter().all(|n| n == "w-01" || n == "w-03"), "{both}");
    let (code, status) = sim.get_json("/api/v1/pods?labelSelector=app%3Dweb%2C").await;
    assert_eq!(code, 400, "{status}");
}

#[tokio::test]
async fn scale_dataset_pages_through_ten_thousand_pods() {
    let sim = Sim::start(&["--dataset", "scale:10000"]);
    let mut token = String::new();
    let mut total = 0;
    let mut pages = 0;
    loop {
        let path = if token.is_empty() {
            "/api/v1/pods?limit=500".to_string()
        } else {
            format!("/api/v1/pods?limit=500&continue={token}")
        };
        let resp = sim.client.get(sim.url(&path)).header("Accept-Encoding", "gzip").send().await.expect("page");
        assert_eq!(resp.status().as_u16(), 200);
        if pages == 0 {
            assert_eq!(
                resp.headers().get("content-encoding").map(|v| v.to_str().unwrap_or_default()),
                Some("gzip"),
                "a 500-pod page is over 128 KiB"
            );
        }
        let raw = sim.get(&path).await;
        let (_, page) = json_of(raw).await;
        total += page["items"].as_array().map(Vec::len).unwrap_or(0);
        pages += 1;
        token = page["metadata"]["continue"].as_str().unwrap_or_default().to_string();
        if token.is_empty() {
            break;
        }
    }
    assert!(total >= 10_000, "{total} pods");
    assert!(pages >= 20);
    let small = sim
        .client
        .get(sim.url("/api/v1/namespaces/default"))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .expect("get");
    assert!(small.headers().get("content-encoding").is_none(), "small bodies are not compressed");
}

#[tokio::test]
async fn a_resource_version_with_a_limit_and_no_match_reads_exactly_there() {
    let sim = Sim::start(&["--dataset", "empty"]);
    create_configmap(&sim, "default", "b-0", json!({})).await;
    let (_, before) = sim.get_json("/api/v1/namespaces/default/configmaps").await;
    let rv = before["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    create_configmap(&sim, "default", "b-1", json!({})).await;
    let (_, exact) =
        sim.get_json(&format!("/api/v1/namespaces/default/configmaps?resourceVersion={rv}&limit=10")).await;
    assert_eq!(names(&exact), ["b-0"], "limit + resourceVersion without a match is Exact");
    let (_, newer) = sim.get_json(&format!("/api/v1/namespaces/default/configmaps?resourceVersion={rv}")).await;
    assert_eq!(names(&newer), ["b-0", "b-1"], "without a limit it is NotOlderThan");
}
