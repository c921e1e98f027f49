//! The review APIs behind `kubectl auth whoami` and `kubectl auth can-i [--list]`: served in
//! both discovery forms, answered for the one fixed user kube-sim knows, never stored.

mod common;

use common::{json_of, Sim};
use serde_json::{json, Value};

async fn post(sim: &Sim, path: &str, body: Value) -> (u16, Value) {
    json_of(sim.send("POST", path, "application/json", body.to_string()).await).await
}

#[tokio::test]
async fn the_review_types_are_in_legacy_and_aggregated_discovery() {
    let sim = Sim::start(&[]);
    for (gv, names) in [
        ("authentication.k8s.io/v1", vec!["selfsubjectreviews"]),
        ("authorization.k8s.io/v1", vec!["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
    ] {
        let (code, list) = sim.get_json(&format!("/apis/{gv}")).await;
        assert_eq!(code, 200, "{gv}");
        for name in &names {
            let r = list["resources"].as_array().into_iter().flatten().find(|r| r["name"] == *name);
            let r = r.unwrap_or_else(|| panic!("{name} in /apis/{gv}: {list}"));
            assert_eq!(r["verbs"], json!(["create"]), "{name}");
            assert_eq!(r["namespaced"], false, "{name}");
        }
    }
    let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    let (code, doc) = json_of(sim.get_with("/apis", accept).await).await;
    assert_eq!(code, 200);
    let resources = |group: &str| -> Vec<String> {
        doc["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|g| g["metadata"]["name"] == group)
            .flat_map(|g| g["versions"][0]["resources"].as_array().cloned().unwrap_or_default())
            .filter_map(|r| r["resource"].as_str().map(str::to_string))
            .collect()
    };
    assert!(resources("authentication.k8s.io").contains(&"selfsubjectreviews".to_string()));
    assert!(resources("authorization.k8s.io").contains(&"selfsubjectaccessreviews".to_string()));
    assert!(resources("authorization.k8s.io").contains(&"selfsubjectrulesreviews".to_string()));
}

#[tokio::test]
async fn whoami_names_the_fixed_user_and_its_groups() {
    let sim = Sim::start(&[]);
    let (code, review) = post(
        &sim,
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "metadata": {}}),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(review["kind"], "SelfSubjectReview");
    assert_eq!(review["apiVersion"], "authentication.k8s.io/v1");
    assert_eq!(
        review["status"]["userInfo"],
        json!({"username": "kube-sim-admin", "groups": ["system:masters", "system:authenticated"]})
    );
}

#[tokio::test]
async fn access_reviews_allow_everything_and_say_why_and_are_not_stored() {
    let sim = Sim::start(&[]);
    let path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let spec = json!({"resourceAttributes": {"namespace": "demo", "verb": "delete", "group": "apps", "resource": "deployments"}});
    let (code, review) = post(
        &sim,
        path,
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec}),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(review["spec"], spec, "the spec comes back as sent");
    assert_eq!(review["status"]["allowed"], true);
    let reason = review["status"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("kube-sim-admin") && reason.contains("system:masters"), "{reason}");
    let (code, review) = post(
        &sim,
        path,
        json!({"kind": "SelfSubjectAccessReview", "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}}),
    )
    .await;
    assert_eq!((code, review["status"]["allowed"].clone()), (201, json!(true)));
    let (code, status) = post(&sim, path, json!({"kind": "SelfSubjectAccessReview", "spec": {}})).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(status["details"]["causes"][0]["field"], "spec.resourceAttributes");
    let (code, _) = sim.get_json(path).await;
    assert_eq!(code, 405, "reviews are create-only");
}

#[tokio::test]
async fn the_rules_review_lists_everything_and_is_complete() {
    let sim = Sim::start(&[]);
    let (code, review) = post(
        &sim,
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "demo"}}),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(review["spec"], json!({"namespace": "demo"}));
    assert_eq!(review["status"]["resourceRules"], json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]));
    assert_eq!(review["status"]["nonResourceRules"], json!([{"verbs": ["*"], "nonResourceURLs": ["*"]}]));
    assert_eq!(review["status"]["incomplete"], false);
}
