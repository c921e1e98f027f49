//! The /_sim admin endpoints and the faults they inject, plus bad requests that must get the
//! real server's Status rather than a hang or a panic.

mod common;

use std::time::Duration;

use common::{json_of, Sim, WatchLines};

async fn admin(sim: &Sim, path: &str) -> serde_json::Value {
    let resp = sim.client.post(sim.url(path)).send().await.expect("admin request");
    assert_eq!(resp.status().as_u16(), 200, "{path}");
    json_of(resp).await.1
}

#[tokio::test]
async fn fail_answers_the_next_requests_with_a_status_and_retry_after() {
    let sim = Sim::start(&[]);
    admin(&sim, "/_sim/fail?status=429&count=2&retryAfter=7").await;
    for _ in 0..2 {
        let resp = sim.get("/api/v1/pods").await;
        assert_eq!(resp.status().as_u16(), 429);
        assert_eq!(resp.headers()["retry-after"], "7");
        let (_, status) = json_of(resp).await;
        assert_eq!(
            (status["kind"].as_str(), status["reason"].as_str(), status["code"].as_u64()),
            (Some("Status"), Some("TooManyRequests"), Some(429))
        );
        assert_eq!(status["details"]["retryAfterSeconds"], 7);
    }
    assert_eq!(sim.get("/api/v1/pods").await.status().as_u16(), 200);
    admin(&sim, "/_sim/fail?status=500&count=1").await;
    let resp = sim.get("/version").await;
    assert_eq!(resp.status().as_u16(), 500);
    assert!(resp.headers().get("retry-after").is_none());
    let (_, state) = sim.get_json("/_sim/state").await;
    assert!(state["counts"]["/pods"].as_u64().is_some_and(|n| n > 0));
    assert!(state["resourceVersion"].is_string());
}

#[tokio::test]
async fn fail_with_watches_true_holds_off_watches_only() {
    let sim = Sim::start(&[]);
    admin(&sim, "/_sim/fail?status=503&count=2&retryAfter=3&watches=true").await;
    assert_eq!(sim.get("/api/v1/pods").await.status().as_u16(), 200, "a list goes through");
    let held = sim.get("/api/v1/pods?watch=true&resourceVersion=1").await;
    assert_eq!((held.status().as_u16(), held.headers()["retry-after"].to_str().ok()), (503, Some("3")));
    assert_eq!(sim.get("/api/v1/watch/pods").await.status().as_u16(), 503, "the old watch path too");
    assert_eq!(sim.get("/api/v1/configmaps").await.status().as_u16(), 200);
    let (_, state) = sim.get_json("/_sim/state").await;
    assert!(state["resourceVersion"].is_string());
}

#[tokio::test]
async fn truncate_next_cuts_the_body_in_the_middle() {
    let sim = Sim::start(&[]);
    admin(&sim, "/_sim/truncate-next").await;
    let resp = sim.get("/api/v1/pods").await;
    assert_eq!(resp.status().as_u16(), 200);
    let body = resp.bytes().await;
    match body {
        Err(_) => {}
        Ok(b) => assert!(serde_json::from_slice::<serde_json::Value>(&b).is_err(), "truncated body must not parse"),
    }
    let (code, _) = sim.get_json("/api/v1/pods").await;
    assert_eq!(code, 200, "only the next response is cut");
}

#[tokio::test]
async fn slow_delays_body_chunks_and_zero_turns_it_off() {
    let sim = Sim::start(&[]);
    admin(&sim, "/_sim/slow?ms=50").await;
    let (code, list) = sim.get_json("/api/v1/pods").await;
    assert_eq!(code, 200, "slow bodies still arrive whole");
    assert_eq!(list["kind"], "PodList");
    let (_, off) = json_of(sim.client.post(sim.url("/_sim/slow?ms=0")).send().await.expect("slow off")).await;
    assert_eq!(off["ms"], 0);
}

#[tokio::test]
async fn compact_makes_older_versions_gone() {
    let sim = Sim::start(&[]);
    let (_, list) = sim.get_json("/api/v1/namespaces").await;
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    let cm = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    sim.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", cm.to_string()).await;
    let state = admin(&sim, "/_sim/compact").await;
    assert!(state["compactedResourceVersion"].is_string());
    let mut w = WatchLines::new(sim.get(&format!("/api/v1/namespaces?watch=1&resourceVersion={rv}")).await);
    let e = w.next(30).await.expect("error event");
    assert_eq!((e["type"].as_str(), e["object"]["code"].as_u64()), (Some("ERROR"), Some(410)));
}

#[tokio::test]
async fn bad_requests_get_statuses_not_hangs() {
    let sim = Sim::start(&[]);
    let (code, status) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", "{not json").await).await;
    assert_eq!((code, status["reason"].as_str()), (400, Some("BadRequest")));
    let (code, status) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/configmaps", "text/plain", "hello").await).await;
    assert_eq!((code, status["reason"].as_str()), (415, Some("UnsupportedMediaType")));
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
            "application/json-patch+json",
            "{}",
        )
        .await,
    )
    .await;
    assert_eq!(code, 400, "a JSON Patch must be an array");
    for limit in ["-5", "0", "99999999999"] {
        let (code, list) = sim.get_json(&format!("/api/v1/pods?limit={limit}")).await;
        assert_eq!(code, 200, "limit={limit}");
        assert!(list["metadata"].get("continue").is_none() || list["metadata"]["continue"] == "");
    }
    let (code, _) = sim.get_json("/api/v1/pods?limit=lots").await;
    assert_eq!(code, 400);
    let resp = sim.get_with("/api/v1/pods", "text/html").await;
    assert_eq!(resp.status().as_u16(), 406);
    let (code, _) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/configmaps/x", "application/json", "{}").await).await;
    assert_eq!(code, 400, "POST to a named object");
    let (code, _) =
        json_of(sim.send("PUT", "/api/v1/namespaces/default/configmaps/x", "application/json", "[1,2]").await).await;
    assert_eq!(code, 400);
    let (code, _) = json_of(
        sim.send("POST", "/api/v1/namespaces/nowhere/configmaps", "application/json", r#"{"metadata":{"name":"a"}}"#)
            .await,
    )
    .await;
    assert_eq!(code, 404);
    let (code, status) = json_of(
        sim.send(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "application/json",
            r#"{"metadata":{"name":"Bad_Name"}}"#,
        )
        .await,
    )
    .await;
    assert_eq!((code, status["reason"].as_str()), (422, Some("Invalid")));
    let resp = tokio::time::timeout(Duration::from_secs(30), sim.get("/api/v1/namespaces/default/pods/%ff%fe"))
        .await
        .expect("answers");
    assert_eq!(resp.status().as_u16(), 404);
}

#[tokio::test]
async fn absurd_numbers_do_not_crash_the_server() {
    let sim = Sim::start(&[]);
    let (_, pods) = sim.get_json("/api/v1/namespaces/demo/pods").await;
    let pod = pods["items"][0]["metadata"]["name"].as_str().expect("pod").to_string();
    let (code, _) = json_of(
        sim.send(
            "DELETE",
            &format!("/api/v1/namespaces/demo/pods/{pod}?gracePeriodSeconds=9223372036854775807"),
            "application/json",
            "",
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let resp = sim.get("/api/v1/namespaces?watch=1&timeoutSeconds=9223372036854775807").await;
    assert_eq!(resp.status().as_u16(), 200);
    drop(resp);
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let (code, _) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/configmaps", "application/json", deep).await).await;
    assert_eq!(code, 400);
    assert_eq!(sim.get("/version").await.status().as_u16(), 200, "still serving");
}

#[tokio::test]
async fn odd_shapes_written_by_clients_do_not_break_later_operations() {
    let sim = Sim::start(&[]);
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web",
            "application/merge-patch+json",
            r#"{"spec":"not a map"}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web/scale",
            "application/merge-patch+json",
            r#"{"spec":{"replicas":2}}"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 200);
    let (code, _) = json_of(
        sim.send("PATCH", "/api/v1/namespaces/shop/status", "application/merge-patch+json", r#"{"status":"odd"}"#)
            .await,
    )
    .await;
    assert_eq!(code, 200);
    let (code, _) = json_of(sim.send("DELETE", "/api/v1/namespaces/shop", "application/json", "").await).await;
    assert_eq!(code, 200);
    let (code, _) = json_of(
        sim.send(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/api",
            "application/json-patch+json",
            r#"[{"op":"replace","path":"","value":[1]}]"#,
        )
        .await,
    )
    .await;
    assert_eq!(code, 422, "a patch that makes the object a list is rejected");
    let (code, list) = sim.get_json("/apis/apps/v1/deployments").await;
    assert_eq!(code, 200, "{list}");
    let (code, _) = sim.get_json("/apis/apps/v1/deployments").await;
    assert_eq!(code, 200);
    let resp = sim.get_with("/apis/apps/v1/deployments", "application/json;as=Table;v=v1;g=meta.k8s.io").await;
    assert_eq!(resp.status().as_u16(), 200);
}

#[tokio::test]
async fn churn_modifies_pods_at_the_asked_rate_and_rate_zero_stops_it() {
    let sim = Sim::start(&[]);
    // The demo namespace: the controllers' own pods (the StatefulSet, DaemonSet and CronJob
    // ones, still coming up) are elsewhere.
    let (_, list) = sim.get_json("/api/v1/namespaces/demo/pods").await;
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv").to_string();
    let mut w = WatchLines::new(sim.get(&format!("/api/v1/namespaces/demo/pods?watch=1&resourceVersion={rv}")).await);
    let started = admin(&sim, "/_sim/churn?rate=200&seconds=30&namespace=demo").await;
    assert_eq!(started["rate"], 200);
    assert!(started["pods"].as_u64().is_some_and(|n| n > 0), "{started}");
    let begin = std::time::Instant::now();
    for _ in 0..100 {
        let e = w.next(30).await.expect("a churn event");
        assert_eq!(e["type"], "MODIFIED");
        assert!(e["object"]["metadata"]["annotations"]["kube-sim/churn"].is_string(), "{e}");
    }
    // 100 events at 200 per second: about half a second, certainly not all at once nor stalled.
    let elapsed = begin.elapsed();
    assert!(elapsed >= Duration::from_millis(250), "too fast: {elapsed:?}");
    let stopped = admin(&sim, "/_sim/churn?rate=0").await;
    assert_eq!(stopped["rate"], 0);
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Drain what was sent before the stop, then nothing more comes.
    while w.try_next(0).await.ok().flatten().is_some() {}
    let later = w.try_next(1).await.ok().flatten();
    assert!(later.is_none(), "no more changes after rate=0: {later:?}");
    let resp = sim.client.post(sim.url("/_sim/churn?rate=fast")).send().await.expect("bad churn");
    assert_eq!(resp.status().as_u16(), 400);
}
