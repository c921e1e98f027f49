//! The review APIs behind `kubectl auth whoami` and `kubectl auth can-i [--list]`: served in
//! both discovery forms, answered for the requesting user from the RBAC authorizer, never stored.

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
async fn whoami_names_the_default_user_and_its_groups() {
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

async fn post_as(sim: &Sim, token: &str, path: &str, body: Value) -> (u16, Value) {
    let resp = sim
        .client
        .post(sim.url(path))
        .bearer_auth(token)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("request succeeds");
    json_of(resp).await
}

fn access_review(spec: Value) -> Value {
    json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec})
}

#[tokio::test]
async fn access_reviews_answer_from_the_authorizer_and_are_not_stored() {
    let sim = Sim::start(&[]);
    let path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let spec = json!({"resourceAttributes": {"namespace": "demo", "verb": "delete", "group": "apps", "resource": "deployments"}});
    let (code, review) = post(&sim, path, access_review(spec.clone())).await;
    assert_eq!(code, 201);
    assert_eq!(review["spec"], spec, "the spec comes back as sent");
    assert_eq!(
        review["status"],
        json!({"allowed": true}),
        "system:masters is allowed with no reason, as kube-apiserver"
    );
    let (code, review) = post_as(&sim, "dev-token", path, access_review(spec.clone())).await;
    assert_eq!(code, 201);
    assert_eq!(
        review["status"],
        json!({"allowed": true, "reason": "RBAC: allowed by RoleBinding \"dev-edit/demo\" of ClusterRole \"edit\" to User \"dev\""})
    );
    let (_, review) = post_as(&sim, "viewer-token", path, access_review(spec)).await;
    assert_eq!(review["status"], json!({"allowed": false}));
    let log =
        json!({"resourceAttributes": {"namespace": "demo", "verb": "get", "resource": "pods", "subresource": "log"}});
    let (_, review) = post_as(&sim, "viewer-token", path, access_review(log)).await;
    assert_eq!(review["status"]["allowed"], true);
    let (_, review) = post_as(
        &sim,
        "viewer-token",
        path,
        access_review(json!({"nonResourceAttributes": {"path": "/healthz", "verb": "get"}})),
    )
    .await;
    assert_eq!(review["status"]["allowed"], true);
    let (_, review) = post_as(
        &sim,
        "viewer-token",
        path,
        access_review(json!({"nonResourceAttributes": {"path": "/metrics", "verb": "get"}})),
    )
    .await;
    assert_eq!(review["status"], json!({"allowed": false}));
    let (code, status) = post(&sim, path, json!({"kind": "SelfSubjectAccessReview", "spec": {}})).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(status["details"]["causes"][0]["field"], "spec.resourceAttributes");
    let (code, _) = sim.get_json(path).await;
    assert_eq!(code, 405, "reviews are create-only");
}

#[tokio::test]
async fn the_rules_review_lists_the_users_rules_in_a_namespace() {
    let sim = Sim::start(&[]);
    let path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
    let review = |ns: &str| json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": ns}});
    let (code, admin) = post(&sim, path, review("demo")).await;
    assert_eq!(code, 201);
    assert_eq!(admin["spec"], json!({"namespace": "demo"}));
    assert_eq!(admin["status"]["resourceRules"][0], json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}));
    assert_eq!(admin["status"]["nonResourceRules"][0], json!({"verbs": ["*"], "nonResourceURLs": ["*"]}));
    assert_eq!(admin["status"]["incomplete"], false);
    let has =
        |review: &Value, rule: Value| review["status"]["resourceRules"].as_array().is_some_and(|r| r.contains(&rule));
    let delete_pods = json!({"verbs": ["create", "delete", "deletecollection", "patch", "update"], "apiGroups": [""],
        "resources": ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]});
    let (_, dev_demo) = post_as(&sim, "dev-token", path, review("demo")).await;
    assert!(has(&dev_demo, delete_pods.clone()), "{dev_demo}");
    assert_eq!(dev_demo["status"]["incomplete"], false);
    let (_, dev_shop) = post_as(&sim, "dev-token", path, review("shop")).await;
    assert!(!has(&dev_shop, delete_pods), "{dev_shop}");
    let (code, status) = post_as(&sim, "dev-token", path, review("")).await;
    assert_eq!((code, status["message"].clone()), (400, json!("no namespace on request")));
}
