//! Writes: the recorded write exchanges of a real server replayed against kube-sim give the same
//! status and the same kind of body; plus update conflicts, strategic merge, apply, dry-run,
//! deletion with finalizers, grace periods and cascades, and subresources.

mod common;

use common::{assert_status_shape, json_of, recorded_body, recorded_status, Sim, WatchLines};
use serde_json::{json, Value};

/// Exchanges whose request works against the demo dataset as it did against the real server.
const REPLAYED: &[&str] = &[
    "11-create-widget-duplicate-409.txt",
    "100-json-patch-test-op-fails-422.txt",
    "102-json-patch-bad-path-422.txt",
    "104-strategic-merge-patch-on-cr-415.txt",
    "106-merge-patch-invalid-value-422.txt",
    "108-patch-nonexistent-merge-404.txt",
    "113-patch-with-rv-precondition-409.txt",
    "157-unsupported-request-content-type-415.txt",
    "17-create-namespace-mismatch-400.txt",
    "73-ssa-missing-fieldManager-422.txt",
    "75-ssa-force-on-merge-patch-422.txt",
    "80-fieldValidation-Strict-unknown-field-400.txt",
    "86-fieldValidation-invalid-value-422.txt",
    "88-fieldValidation-Strict-merge-patch-unknown-422.txt",
    "92-dryRun-invalid-value-422.txt",
    "141-delete-404.txt",
    "14-create-widget-defaulting-replicas.txt",
    "15-create-widget-generateName.txt",
    "82-fieldValidation-Warn-unknown-field-201-Warning.txt",
    "84-fieldValidation-default-201.txt",
    "90-dryRun-All-create-201.txt",
    "145-deletecollection-labelSelector.txt",
    "120-scale-get.txt",
];

/// Of those, the ones whose message does not depend on server state.
const SAME_MESSAGE: &[&str] = &[
    "11-create-widget-duplicate-409.txt",
    "100-json-patch-test-op-fails-422.txt",
    "104-strategic-merge-patch-on-cr-415.txt",
    "106-merge-patch-invalid-value-422.txt",
    "108-patch-nonexistent-merge-404.txt",
    "113-patch-with-rv-precondition-409.txt",
    "157-unsupported-request-content-type-415.txt",
    "17-create-namespace-mismatch-400.txt",
    "73-ssa-missing-fieldManager-422.txt",
    "75-ssa-force-on-merge-patch-422.txt",
    "80-fieldValidation-Strict-unknown-field-400.txt",
    "86-fieldValidation-invalid-value-422.txt",
    "92-dryRun-invalid-value-422.txt",
    "141-delete-404.txt",
];

#[tokio::test]
async fn recorded_write_exchanges_replay_with_the_same_status_and_body_kind() {
    let sim = Sim::start(&[]);
    for file in REPLAYED {
        let resp = sim.replay(file).await;
        let code = resp.status().as_u16();
        let warnings: Vec<String> =
            resp.headers().get_all("warning").iter().filter_map(|v| v.to_str().ok().map(str::to_string)).collect();
        let (_, body) = json_of(resp).await;
        assert_eq!(code, recorded_status(file), "{file}: {body}");
        let recorded = recorded_body(file);
        assert_eq!(body["kind"], recorded["kind"], "{file}");
        if recorded["kind"] == "Status" {
            assert_status_shape(&body, &recorded);
            if SAME_MESSAGE.contains(file) {
                assert_eq!(body["message"], recorded["message"], "{file}");
                assert_eq!(body["details"], recorded["details"], "{file}");
            }
        } else if recorded["metadata"]["resourceVersion"].is_null() {
            assert!(body["metadata"]["resourceVersion"].is_null(), "{file}: dry-run objects have no resourceVersion");
            assert!(body["metadata"]["uid"].is_string(), "{file}: generated fields are still generated");
        }
        if file.contains("Warning") || file.contains("default-201") {
            assert_eq!(
                warnings,
                ["299 - \"unknown field \\\"spec.bogus\\\"\"", "299 - \"unknown field \\\"spec.extra\\\"\""],
                "{file}"
            );
        }
        if file.starts_with("14-") {
            assert_eq!(body["spec"]["replicas"], 1, "schema default applied");
        }
        if file.starts_with("15-") {
            assert!(body["metadata"]["name"].as_str().is_some_and(|n| n.starts_with("w-gen-") && n.len() == 11));
        }
    }
    let (code, _) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets/w-dry").await;
    assert_eq!(code, 404, "dry-run did not persist");
}

#[tokio::test]
async fn put_with_a_stale_resource_version_is_409() {
    let sim = Sim::start(&[]);
    let (_, mut cm) = sim.get_json("/api/v1/namespaces/demo/configmaps/web-config").await;
    cm["data"]["LOG_LEVEL"] = json!("debug");
    let resp =
        sim.send("PUT", "/api/v1/namespaces/demo/configmaps/web-config", "application/json", cm.to_string()).await;
    let (code, updated) = json_of(resp).await;
    assert_eq!(code, 200);
    assert_ne!(updated["metadata"]["resourceVersion"], cm["metadata"]["resourceVersion"]);
    let resp =
        sim.send("PUT", "/api/v1/namespaces/demo/configmaps/web-config", "application/json", cm.to_string()).await;
    let (code, status) = json_of(resp).await;
    assert_eq!(code, 409);
    assert_eq!(status["reason"], "Conflict");
    let (_, now) = sim.get_json("/api/v1/namespaces/demo/configmaps/web-config").await;
    assert_eq!(now["data"]["LOG_LEVEL"], "debug", "the first PUT is visible to later GETs");
}

#[tokio::test]
async fn strategic_merge_patch_merges_containers_by_name() {
    let sim = Sim::start(&[]);
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.28"}, {"name": "sidecar", "image": "busybox"}]}}}});
    let resp = sim
        .send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web",
            "application/strategic-merge-patch+json",
            patch.to_string(),
        )
        .await;
    let (code, dep) = json_of(resp).await;
    assert_eq!(code, 200, "{dep}");
    let containers = dep["spec"]["template"]["spec"]["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 2);
    assert_eq!(containers[0]["image"], "nginx:1.28");
    assert_eq!(containers[0]["ports"][0]["containerPort"], 80, "fields not in the patch are kept");
    assert_eq!(dep["metadata"]["generation"], 2);
    let delete = json!({"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}}});
    let resp = sim
        .send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web",
            "application/strategic-merge-patch+json",
            delete.to_string(),
        )
        .await;
    let (_, dep) = json_of(resp).await;
    assert_eq!(dep["spec"]["template"]["spec"]["containers"].as_array().map(Vec::len), Some(1));
}

async fn apply(sim: &Sim, manager: &str, extra: &str, yaml: &str) -> (u16, Value) {
    let path = format!("/apis/example.com/v1/namespaces/default/widgets/w-ssa?fieldManager={manager}{extra}");
    json_of(sim.send("PATCH", &path, "application/apply-patch+yaml", yaml.to_string()).await).await
}

#[tokio::test]
async fn server_side_apply_tracks_managers_and_reports_conflicts() {
    let sim = Sim::start(&[]);
    let a = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-ssa\n  labels:\n    owner: mgr-a\nspec:\n  size: small\n  color: red\n";
    let (code, created) = apply(&sim, "mgr-a", "", a).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["managedFields"][0]["operation"], "Apply");
    let b = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-ssa\nspec:\n  size: large\n  color: blue\n";
    let (code, status) = apply(&sim, "mgr-b", "&dryRun=All", b).await;
    assert_eq!(code, 409);
    let causes = status["details"]["causes"].as_array().expect("causes");
    assert!(causes.iter().all(|c| c["reason"] == "FieldManagerConflict" && c["message"] == "conflict with \"mgr-a\""));
    let fields: Vec<&str> = causes.iter().filter_map(|c| c["field"].as_str()).collect();
    assert_eq!(fields, [".spec.color", ".spec.size"]);
    let (code, forced) = apply(&sim, "mgr-b", "&force=true", b).await;
    assert_eq!(code, 200);
    let recorded = recorded_body("72-ssa-force-fieldManager-b-200.txt");
    let managers = |v: &Value| -> Vec<(String, Value)> {
        v["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (e["manager"].as_str().unwrap_or_default().to_string(), e["fieldsV1"]["f:spec"].clone()))
            .collect()
    };
    let b_fields = managers(&forced).into_iter().find(|(m, _)| m == "mgr-b").map(|(_, f)| f);
    let recorded_b = managers(&recorded).into_iter().find(|(m, _)| m == "mgr-b").map(|(_, f)| f);
    assert_eq!(b_fields, recorded_b, "force moves size and color to mgr-b as the real server");
    assert_eq!(forced["spec"]["size"], "large");
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/example.com/v1/namespaces/default/widgets/w-ssa",
            "application/apply-patch+yaml",
            a.to_string(),
        )
        .await,
    )
    .await;
    assert_eq!(code, 422, "fieldManager is required");
}

#[tokio::test]
async fn dry_run_does_not_persist_or_notify_watchers() {
    let sim = Sim::start(&[]);
    let mut w = WatchLines::new(
        sim.get("/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=true").await,
    );
    let mut initial = 0;
    while initial < 2 {
        w.next(30).await.expect("initial");
        initial += 1;
    }
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dry"}, "data": {"a": "b"}});
    let (code, created) = json_of(
        sim.send("POST", "/api/v1/namespaces/demo/configmaps?dryRun=All", "application/json", body.to_string()).await,
    )
    .await;
    assert_eq!(code, 201);
    assert!(created["metadata"]["uid"].is_string());
    let (code, _) = json_of(
        sim.send("DELETE", "/api/v1/namespaces/demo/configmaps/web-config?dryRun=All", "application/json", "").await,
    )
    .await;
    assert_eq!(code, 200);
    let real = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "real"}});
    sim.send("POST", "/api/v1/namespaces/demo/configmaps", "application/json", real.to_string()).await;
    // The initial events end with the initial-events-end BOOKMARK (resourceVersion=0 with bookmarks).
    let e = loop {
        let e = w.next(30).await.expect("the real create");
        if e["type"] != "BOOKMARK" {
            break e;
        }
    };
    assert_eq!(e["object"]["metadata"]["name"], "real", "no event for the dry runs came first");
    let (code, _) = sim.get_json("/api/v1/namespaces/demo/configmaps/web-config").await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn finalizers_hold_deletion_until_the_last_one_goes() {
    let sim = Sim::start(&[]);
    let (code, _) = json_of(sim.replay("143-delete-with-finalizer-then-get.txt").await).await;
    assert_eq!(code, 201);
    let (code, held) = json_of(
        sim.send("DELETE", "/apis/example.com/v1/namespaces/default/widgets/w-fin", "application/json", "").await,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(held["kind"], "Widget", "a delete blocked by finalizers answers the object");
    assert!(held["metadata"]["deletionTimestamp"].is_string());
    let (code, _) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets/w-fin").await;
    assert_eq!(code, 200);
    let patch = r#"[{"op":"remove","path":"/metadata/finalizers"}]"#;
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/example.com/v1/namespaces/default/widgets/w-fin",
            "application/json-patch+json",
            patch,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let (code, _) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets/w-fin").await;
    assert_eq!(code, 404);
}

#[tokio::test]
async fn delete_preconditions_grace_and_cascades() {
    let sim = Sim::start(&[]);
    let body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "not-the-uid"}});
    let (code, status) = json_of(
        sim.send("DELETE", "/api/v1/namespaces/demo/configmaps/web-config", "application/json", body.to_string()).await,
    )
    .await;
    assert_eq!(code, 409, "{status}");
    let (_, pods) = sim.get_json("/api/v1/namespaces/shop/pods").await;
    let pod = pods["items"][0]["metadata"]["name"].as_str().expect("pod").to_string();
    let (code, terminating) =
        json_of(sim.send("DELETE", &format!("/api/v1/namespaces/shop/pods/{pod}"), "application/json", "").await).await;
    assert_eq!(code, 200);
    assert_eq!(terminating["metadata"]["deletionGracePeriodSeconds"], 30);
    let (_, rs) = sim.get_json("/apis/apps/v1/namespaces/demo/replicasets").await;
    let rs_name = rs["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["metadata"]["labels"]["app"] == "web")
        .and_then(|r| r["metadata"]["name"].as_str())
        .expect("web rs")
        .to_string();
    let (code, _) = json_of(
        sim.send(
            "DELETE",
            &format!("/apis/apps/v1/namespaces/demo/replicasets/{rs_name}?propagationPolicy=Orphan"),
            "application/json",
            "",
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let (_, orphans) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    assert_eq!(orphans["items"].as_array().map(Vec::len), Some(3));
    assert!(orphans["items"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|p| p["metadata"].get("ownerReferences").and_then(Value::as_array).is_none_or(Vec::is_empty)));
    let (code, _) =
        json_of(sim.send("DELETE", "/apis/apps/v1/namespaces/demo/deployments/api", "application/json", "").await)
            .await;
    assert_eq!(code, 200);
    let (_, api_pods) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dapi").await;
    assert_eq!(
        api_pods["items"].as_array().map(Vec::len),
        Some(0),
        "background propagation removes replicasets and pods"
    );
    let (code, ns) = json_of(sim.send("DELETE", "/api/v1/namespaces/shop", "application/json", "").await).await;
    assert_eq!(code, 200);
    assert_eq!(ns["status"]["phase"], "Terminating");
    let (_, left) = sim.get_json("/api/v1/namespaces/shop/configmaps").await;
    assert_eq!(left["items"].as_array().map(Vec::len), Some(0), "deleting a namespace deletes what is in it");
}

#[tokio::test]
async fn status_and_scale_subresources() {
    let sim = Sim::start(&[]);
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/example.com/v1/namespaces/default/widgets/w-01",
            "application/merge-patch+json",
            r#"{"status":{"phase":"Hacked"}}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let (_, w) = sim.get_json("/apis/example.com/v1/namespaces/default/widgets/w-01").await;
    assert!(w["status"]["phase"].is_null(), "the main resource ignores status");
    let (code, w) = json_of(
        sim.send(
            "PATCH",
            "/apis/example.com/v1/namespaces/default/widgets/w-01/status",
            "application/merge-patch+json",
            r#"{"status":{"phase":"Running","replicas":3}}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(w["status"]["phase"], "Running");
    let status_entry =
        w["metadata"]["managedFields"].as_array().into_iter().flatten().find(|e| e["subresource"] == "status");
    assert!(status_entry.is_some(), "status writes have their own managedFields entry");
    let (code, scale) = json_of(sim.send("PUT", "/apis/apps/v1/namespaces/demo/deployments/web/scale", "application/json", json!({"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": {"name": "web"}, "spec": {"replicas": 5}}).to_string()).await).await;
    assert_eq!(code, 200, "{scale}");
    assert_eq!(scale["spec"]["replicas"], 5);
    let (_, dep) = sim.get_json("/apis/apps/v1/namespaces/demo/deployments/web").await;
    assert_eq!(dep["spec"]["replicas"], 5);
}

#[tokio::test]
async fn pod_logs_and_follow() {
    let sim = Sim::start(&[]);
    let (_, pods) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    let pod = pods["items"][0]["metadata"]["name"].as_str().expect("pod").to_string();
    let resp = sim.get(&format!("/api/v1/namespaces/demo/pods/{pod}/log?tailLines=2")).await;
    assert_eq!(resp.headers()["content-type"], "text/plain");
    let text = resp.text().await.expect("log");
    assert_eq!(text.lines().count(), 2);
    let resp = sim.get(&format!("/api/v1/namespaces/demo/pods/{pod}/log?tailLines=0&follow=true")).await;
    let mut lines = WatchLines::new(resp);
    let more = lines.try_next(30).await;
    assert!(matches!(more, Err(ref e) if e.contains("not JSON")), "a followed log keeps sending lines: {more:?}");
}

async fn log_text(sim: &Sim, path: &str) -> (u16, String) {
    let resp = sim.get(path).await;
    (resp.status().as_u16(), resp.text().await.expect("log"))
}

#[tokio::test]
async fn a_log_reads_the_same_from_since_time_and_a_previous_run_comes_from_the_status() {
    let sim = Sim::start(&[]);
    let (_, pods) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    let pod = pods["items"][0].clone();
    let name = pod["metadata"]["name"].as_str().expect("pod").to_string();
    let base = format!("/api/v1/namespaces/demo/pods/{name}/log");
    let (code, all) = log_text(&sim, &format!("{base}?timestamps=true")).await;
    assert_eq!(code, 200, "{all}");
    let lines: Vec<&str> = all.lines().collect();
    assert!(lines.len() >= 3, "a started container has written its first lines: {all}");
    // Resuming from the second line's second gives that line and the ones after it, the same.
    let (stamp, _) = lines[1].split_once(' ').expect("stamped");
    let second = &stamp[..19];
    let (code, since) = log_text(&sim, &format!("{base}?timestamps=true&sinceTime={second}Z")).await;
    assert_eq!(code, 200, "{since}");
    let resumed: Vec<&str> = since.lines().collect();
    assert!(resumed.len() >= lines.len() - 1, "{since}");
    assert!(lines.iter().all(|l| resumed.contains(l) || l.split_once(' ').unwrap().0 < second), "{all} vs {since}");
    let (code, both) = log_text(&sim, &format!("{base}?sinceTime={second}Z&sinceSeconds=5")).await;
    assert_eq!((code, both.contains("at most one of sinceTime or sinceSeconds")), (400, true), "{both}");
    let (code, bad) = log_text(&sim, &format!("{base}?sinceTime=yesterday")).await;
    assert_eq!((code, bad.contains("parsing time \\\"yesterday\\\"")), (400, true), "{bad}");

    // No restart: no previous run, in the kubelet's words.
    let (code, none) = log_text(&sim, &format!("{base}?previous=true")).await;
    assert_eq!(code, 400, "{none}");
    let container = pod["spec"]["containers"][0]["name"].as_str().unwrap().to_string();
    assert!(
        none.contains(&format!("previous terminated container \\\"{container}\\\" in pod \\\"{name}\\\" not found")),
        "{none}"
    );
    // A status that records a terminated run: its log ends with the exit.
    let mut status = pod.clone();
    status["status"]["containerStatuses"][0]["restartCount"] = json!(1);
    status["status"]["containerStatuses"][0]["lastState"] = json!({"terminated": {"exitCode": 1, "reason": "Error",
        "startedAt": "2026-11-24T09:00:00Z", "finishedAt": "2026-11-24T09:00:10Z"}});
    let (code, body) = json_of(
        sim.send("PUT", &format!("/api/v1/namespaces/demo/pods/{name}/status"), "application/json", status.to_string())
            .await,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let (code, previous) = log_text(&sim, &format!("{base}?previous=true&timestamps=true&follow=true")).await;
    assert_eq!(code, 200, "{previous}");
    let last = previous.lines().last().expect("lines");
    assert!(last.starts_with("2026-11-24T09:00:10Z ") && last.contains("exiting"), "{previous}");
    assert_eq!(previous.lines().count(), 13, "three at the start and one a second until the exit: {previous}");
}

/// One request/response pair of the k8s-openapi recordings.
fn recorded_steps(file: &str) -> Vec<Value> {
    common::shared_json(&format!("recordings/k8s-openapi-v1-34/{file}")).as_array().cloned().unwrap_or_default()
}

fn image(v: &Value) -> Value {
    v["spec"]["template"]["spec"]["containers"][0]["image"].clone()
}

#[tokio::test]
async fn recorded_patch_deployment_session_replays_step_by_step() {
    let sim = Sim::start(&[]);
    for (i, step) in recorded_steps("patch-deployment.json").iter().enumerate() {
        let method = step["request_method"].as_str().expect("method");
        let url = step["request_url"].as_str().expect("url");
        let content_type = step["request_content_type"].as_str().unwrap_or("application/json");
        let body = step["request_body"].as_str().unwrap_or_default().to_string();
        let (code, got) = json_of(sim.send(method, url, content_type, body).await).await;
        let want: Value =
            serde_json::from_str(step["response_body"].as_str().expect("response")).expect("recorded JSON");
        assert_eq!(code, step["response_status_code"].as_u64().expect("code") as u16, "step {i} {method} {url}: {got}");
        assert_eq!(got["kind"], want["kind"], "step {i}");
        if want["kind"] == "Deployment" {
            assert_eq!(image(&got), image(&want), "step {i}: the patch had the same effect");
        }
        if want["kind"] == "Status" {
            assert_eq!(got["status"], want["status"], "step {i}");
            assert_eq!(got["details"]["name"], want["details"]["name"], "step {i}");
        }
    }
}

#[tokio::test]
async fn recorded_custom_resource_definition_session_replays_step_by_step() {
    let sim = Sim::start(&["--dataset", "empty"]);
    for (i, step) in recorded_steps("custom_resource_definition-test.json").iter().enumerate() {
        let method = step["request_method"].as_str().expect("method");
        let url = step["request_url"].as_str().expect("url");
        if url.contains("watch=true") {
            continue;
        }
        let content_type = step["request_content_type"].as_str().unwrap_or("application/json");
        let body = step["request_body"].as_str().unwrap_or_default().to_string();
        let (code, got) = json_of(sim.send(method, url, content_type, body).await).await;
        let want: Value =
            serde_json::from_str(step["response_body"].as_str().expect("response")).expect("recorded JSON");
        assert_eq!(code, step["response_status_code"].as_u64().expect("code") as u16, "step {i} {method} {url}: {got}");
        assert_eq!(got["kind"], want["kind"], "step {i}");
        if want["kind"] == "Status" {
            assert_status_shape(&got, &want);
            assert_eq!(got["details"]["kind"], want["details"]["kind"], "step {i}");
        }
        if want["kind"] == "FooBarList" {
            assert_eq!(got["items"].as_array().map(Vec::len), want["items"].as_array().map(Vec::len), "step {i}");
        }
        if i == 0 {
            let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
            let (_, disc) = json_of(sim.get_with("/apis", accept).await).await;
            let groups: Vec<&str> =
                disc["items"].as_array().into_iter().flatten().filter_map(|g| g["metadata"]["name"].as_str()).collect();
            assert!(
                groups.contains(&"k8s-openapi-tests-custom-resource-definition.com"),
                "a created CRD's group is discovered"
            );
        }
    }
    let gone = sim.get("/apis/k8s-openapi-tests-custom-resource-definition.com/v1/namespaces/default/foobars").await;
    assert_eq!(gone.status().as_u16(), 404, "deleting the CRD stops serving its type");
}

#[tokio::test]
async fn a_created_pod_is_scheduled_started_and_becomes_ready() {
    let sim = Sim::start(&[]);
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hello"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let mut w =
        WatchLines::new(sim.get("/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name%3Dhello").await);
    let (code, created) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/pods", "application/json", pod.to_string()).await).await;
    assert_eq!(code, 201);
    assert_eq!(created["status"]["phase"], "Pending");
    assert!(created["spec"].get("nodeName").is_none(), "the scheduler binds it after the create");
    let mut bound = false;
    loop {
        let e = w.next(30).await.expect("the pod moves on");
        bound |= e["object"]["spec"]["nodeName"].is_string();
        let ready = e["object"]["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Ready" && c["status"] == "True");
        if ready {
            assert_eq!(e["object"]["status"]["phase"], "Running");
            assert!(bound, "bound to a node before it runs");
            break;
        }
    }
}

#[tokio::test]
async fn scaling_a_deployment_adds_and_removes_pods_and_a_new_template_rolls_out() {
    let sim = Sim::start(&[]);
    let count_pods = |sim: &Sim| {
        let url = sim.url("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb");
        let client = sim.client.clone();
        async move {
            let (_, list) = json_of(client.get(url).send().await.expect("list")).await;
            list["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
                .count()
        }
    };
    assert_eq!(count_pods(&sim).await, 3);
    let (_, before) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web/scale",
            "application/merge-patch+json",
            r#"{"spec":{"replicas":5}}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(count_pods(&sim).await, 5, "scaling up creates pods in the same ReplicaSet");
    let (_, after) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    let names = |v: &Value| {
        v["items"].as_array().into_iter().flatten().map(|p| p["metadata"]["name"].clone()).collect::<Vec<_>>()
    };
    let after_names = names(&after);
    assert!(names(&before).iter().all(|n| after_names.contains(n)), "the existing pods stay");
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web",
            "application/merge-patch+json",
            r#"{"spec":{"replicas":1}}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(count_pods(&sim).await, 1, "scaling down terminates pods");
    let mut w = WatchLines::new(
        sim.get("/apis/apps/v1/namespaces/demo/deployments?watch=1&fieldSelector=metadata.name%3Dweb").await,
    );
    loop {
        let e = w.next(30).await.expect("deployment status follows its pods");
        if e["object"]["status"]["readyReplicas"] == 1 && e["object"]["status"]["replicas"] == 1 {
            break;
        }
    }
    let image = r#"{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.29"}]}}}}"#;
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web",
            "application/strategic-merge-patch+json",
            image,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let (_, rs) = sim.get_json("/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb").await;
    let replicas: Vec<i64> =
        rs["items"].as_array().into_iter().flatten().filter_map(|r| r["spec"]["replicas"].as_i64()).collect();
    assert_eq!(replicas.len(), 2, "a new template gets a new ReplicaSet");
    assert!(replicas.contains(&0) && replicas.contains(&1), "{replicas:?}");
}

fn condition<'a>(dep: &'a Value, kind: &str) -> &'a Value {
    dep["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == kind)
        .unwrap_or_else(|| panic!("a {kind} condition in {}", dep["status"]))
}

fn revision_of(rs: &Value) -> &str {
    rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_rollout_keeps_generation_revisions_and_the_deployment_conditions_as_kube_controller_manager_does() {
    let sim = Sim::start(&[]);
    let path = "/apis/apps/v1/namespaces/demo/deployments/web";
    let (_, dep) = sim.get_json(path).await;
    assert_eq!(dep["metadata"]["generation"], 1);
    assert_eq!(dep["status"]["observedGeneration"], 1);
    assert_eq!(condition(&dep, "Available")["reason"], "MinimumReplicasAvailable");
    assert_eq!(condition(&dep, "Available")["message"], "Deployment has minimum availability.");
    assert_eq!(condition(&dep, "Progressing")["reason"], "NewReplicaSetAvailable");

    let image = r#"{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.29"}]}}}}"#;
    let (code, patched) = json_of(sim.send("PATCH", path, "application/strategic-merge-patch+json", image).await).await;
    assert_eq!(code, 200);
    assert_eq!(patched["metadata"]["generation"], 2, "a spec change bumps the generation");
    let (_, dep) = sim.get_json(path).await;
    assert_eq!(dep["status"]["observedGeneration"], 2, "the controller has seen the new spec");
    assert_eq!(dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
    assert_eq!(condition(&dep, "Progressing")["reason"], "NewReplicaSetCreated");
    let created = condition(&dep, "Progressing")["message"].as_str().unwrap_or_default().to_string();
    assert!(created.starts_with("Created new replica set \"web-"), "{created}");

    let mut w = WatchLines::new(
        sim.get("/apis/apps/v1/namespaces/demo/deployments?watch=1&fieldSelector=metadata.name%3Dweb").await,
    );
    let done = loop {
        let e = w.next(30).await.expect("the rollout completes");
        if condition(&e["object"], "Progressing")["reason"] == "NewReplicaSetAvailable" {
            break e["object"].clone();
        }
    };
    assert_eq!(done["status"]["updatedReplicas"], 3);
    assert_eq!(done["status"]["availableReplicas"], 3);
    assert_eq!(condition(&done, "Available")["status"], "True");
    let new_rs = created.trim_start_matches("Created new replica set \"").trim_end_matches('"');
    assert_eq!(
        condition(&done, "Progressing")["message"],
        format!("ReplicaSet \"{new_rs}\" has successfully progressed.")
    );

    // What `kubectl rollout undo` sends: the previous ReplicaSet's template, which then becomes
    // revision 3 without a third ReplicaSet.
    let (_, list) = sim.get_json("/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb").await;
    let items = list["items"].as_array().cloned().unwrap_or_default();
    let old = items.iter().find(|rs| revision_of(rs) == "1").expect("revision 1 is kept");
    assert_eq!(items.iter().find(|rs| rs["metadata"]["name"] == new_rs).map(revision_of), Some("2"));
    let mut template = old["spec"]["template"].clone();
    template["metadata"]["labels"].as_object_mut().expect("labels").remove("pod-template-hash");
    let undo = json!([{"op": "replace", "path": "/spec/template", "value": template}]).to_string();
    let (code, _) = json_of(sim.send("PATCH", path, "application/json-patch+json", undo).await).await;
    assert_eq!(code, 200);
    let (_, list) = sim.get_json("/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb").await;
    let items = list["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 2, "the old ReplicaSet is reused");
    let back = items.iter().find(|rs| rs["metadata"]["name"] == old["metadata"]["name"]).expect("old ReplicaSet");
    assert_eq!(revision_of(back), "3");
    assert_eq!(back["spec"]["replicas"], 3);
    let (_, dep) = sim.get_json(path).await;
    assert_eq!(dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3");
    assert_eq!(dep["metadata"]["generation"], 3);

    // What `kubectl describe deployment` lists under Events.
    let (_, events) = sim.get_json("/api/v1/namespaces/demo/events?fieldSelector=involvedObject.name%3Dweb").await;
    let messages: Vec<&str> = events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["reason"] == "ScalingReplicaSet" && e["involvedObject"]["kind"] == "Deployment")
        .filter_map(|e| e["message"].as_str())
        .collect();
    let old_rs = old["metadata"]["name"].as_str().unwrap_or_default();
    for want in [
        format!("Scaled up replica set {new_rs} from 0 to 3"),
        format!("Scaled down replica set {old_rs} from 3 to 0"),
        format!("Scaled up replica set {old_rs} from 0 to 3"),
        format!("Scaled down replica set {new_rs} from 3 to 0"),
    ] {
        assert!(messages.contains(&want.as_str()), "{want:?} in {messages:?}");
    }
}

#[tokio::test]
async fn a_deleted_pod_of_a_deployment_is_replaced_and_a_paused_deployment_does_not_roll_out() {
    let sim = Sim::start(&[]);
    let live_pods = |list: &Value| -> Vec<String> {
        list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
            .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_string))
            .collect()
    };
    let (_, before) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dapi").await;
    let before = live_pods(&before);
    assert_eq!(before.len(), 2);
    let (code, _) = json_of(
        sim.send("DELETE", &format!("/api/v1/namespaces/demo/pods/{}", before[0]), "application/json", "").await,
    )
    .await;
    assert_eq!(code, 200);
    let (_, after) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dapi").await;
    let after = live_pods(&after);
    assert_eq!(after.len(), 2, "the ReplicaSet keeps its count: {after:?}");
    assert!(!after.contains(&before[0]) && after.contains(&before[1]), "{after:?}");
    let (code, _) = json_of(
        sim.send("DELETE", "/api/v1/namespaces/demo/pods?labelSelector=app%3Dapi", "application/json", "").await,
    )
    .await;
    assert_eq!(code, 200);
    let (_, again) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dapi").await;
    assert_eq!(live_pods(&again).len(), 2, "deletecollection too");

    let path = "/apis/apps/v1/namespaces/demo/deployments/api";
    let merge = |body: &'static str| sim.send("PATCH", path, "application/merge-patch+json", body);
    assert_eq!(merge(r#"{"spec":{"paused":true}}"#).await.status(), 200);
    let image = r#"{"spec":{"template":{"spec":{"containers":[{"name":"api","image":"ghcr.io/example/api:2.5.0"}]}}}}"#;
    let (code, _) = json_of(sim.send("PATCH", path, "application/strategic-merge-patch+json", image).await).await;
    assert_eq!(code, 200);
    let (_, rs) = sim.get_json("/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dapi").await;
    assert_eq!(rs["items"].as_array().map(Vec::len), Some(1), "no rollout while paused");
    let (_, dep) = sim.get_json(path).await;
    assert_eq!(condition(&dep, "Progressing")["reason"], "DeploymentPaused");
    assert_eq!(condition(&dep, "Progressing")["status"], "Unknown");
    assert_eq!(dep["status"]["observedGeneration"], dep["metadata"]["generation"]);
    assert_eq!(merge(r#"{"spec":{"paused":false}}"#).await.status(), 200);
    let (_, rs) = sim.get_json("/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dapi").await;
    assert_eq!(rs["items"].as_array().map(Vec::len), Some(2), "resuming rolls the new template out");
    let (_, dep) = sim.get_json(path).await;
    assert_eq!(condition(&dep, "Progressing")["reason"], "NewReplicaSetCreated");
}

#[tokio::test]
async fn apply_with_field_validation_ignore_of_an_undeclared_custom_field_is_500() {
    let sim = Sim::start(&[]);
    let (code, _) = apply(
        &sim,
        "mgr-a",
        "",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-ssa\nspec:\n  size: small\n",
    )
    .await;
    assert_eq!(code, 201);
    let yaml = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-ssa\nspec:\n  bogus: 1\n";
    let (code, status) = apply(&sim, "mgr-a", "&fieldValidation=Ignore", yaml).await;
    let recorded = "78b-ssa-unknown-field-fieldValidation-Ignore-500.txt";
    assert_eq!(code, recorded_status(recorded), "{status}");
    assert_eq!(status["message"], recorded_body(recorded)["message"]);
    assert!(status.get("reason").is_none(), "the recorded 500 has no reason: {status}");
}
