//! Authentication and RBAC over HTTP: bearer tokens (the demo users and a `--users` file),
//! requests without credentials as the `--as` user, impersonation allowed and denied, 401 for
//! a bad token, and every verb allowed or refused with kube-apiserver's 403, as the stored
//! Roles, ClusterRoles and bindings say, live.

mod common;

use common::{Sim, WatchLines};
use serde_json::{json, Value};

/// A request as `token` (none: without credentials) with extra headers and a JSON body.
async fn call(
    sim: &Sim,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, String) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("valid method");
    let mut req = sim.client.request(method.clone(), sim.url(path));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if let Some(b) = body {
        let content_type =
            if method == reqwest::Method::PATCH { "application/merge-patch+json" } else { "application/json" };
        req = req.header("Content-Type", content_type).body(b.to_string());
    }
    let resp = req.send().await.expect("request succeeds");
    let code = resp.status().as_u16();
    (code, resp.text().await.expect("body arrives"))
}

async fn call_json(sim: &Sim, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
    let (code, text) = call(sim, method, path, token, &[], body).await;
    (code, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

fn forbidden(message: &str, details: Value) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
        "reason": "Forbidden", "details": details, "code": 403})
}

async fn whoami(sim: &Sim, token: Option<&str>, headers: &[(&str, &str)]) -> (u16, Value) {
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    let (code, text) =
        call(sim, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", token, headers, Some(body)).await;
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|_| json!(text));
    (code, value["status"]["userInfo"].clone())
}

fn configmap(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
}

#[tokio::test]
async fn an_unknown_token_is_401_unauthorized_as_kube_apiserver_words_it() {
    let sim = Sim::start(&[]);
    let unauthorized = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
    for path in ["/api/v1/namespaces/demo/pods", "/version", "/apis"] {
        assert_eq!(
            call_json(&sim, "GET", path, Some("not-a-token"), None).await,
            (401, unauthorized.clone()),
            "{path}"
        );
    }
    let (code, _) = call(&sim, "GET", "/api", None, &[("Authorization", "Bearer ")], None).await;
    assert_eq!(code, 401, "an empty bearer token");
    let (code, _) = call(&sim, "GET", "/api/v1/nodes", None, &[("Authorization", "Basic dTpw")], None).await;
    assert_eq!(code, 200, "a scheme kube-apiserver does not read is no credentials: the --as user");
}

#[tokio::test]
async fn tokens_name_the_demo_users_and_whoami_says_who() {
    let sim = Sim::start(&[]);
    assert_eq!(
        whoami(&sim, None, &[]).await,
        (201, json!({"username": "kube-sim-admin", "groups": ["system:masters", "system:authenticated"]}))
    );
    assert_eq!(
        whoami(&sim, Some("dev-token"), &[]).await,
        (201, json!({"username": "dev", "uid": "1001", "groups": ["system:authenticated"]}))
    );
    assert_eq!(whoami(&sim, Some("viewer-token"), &[]).await.1["username"], "viewer");
    assert_eq!(whoami(&sim, Some("admin-token"), &[]).await.1["username"], "admin");
}

#[tokio::test]
async fn a_viewer_reads_but_every_write_verb_is_forbidden() {
    let sim = Sim::start(&[]);
    let viewer = Some("viewer-token");
    let (code, list) = call_json(&sim, "GET", "/api/v1/namespaces/demo/pods", viewer, None).await;
    assert_eq!(code, 200, "list: {list}");
    let pod = list["items"][0]["metadata"]["name"].as_str().expect("a pod").to_string();
    for path in [
        format!("/api/v1/namespaces/demo/pods/{pod}"),
        format!("/api/v1/namespaces/demo/pods/{pod}/log"),
        "/api/v1/pods".to_string(),
        "/apis/apps/v1/namespaces/demo/deployments/web/scale".to_string(),
        "/apis/example.com/v1/widgets".to_string(),
    ] {
        let (code, body) = call(&sim, "GET", &path, viewer, &[], None).await;
        assert_eq!(code, 200, "{path}: {body}");
    }
    let cases: Vec<(&str, String, Option<Value>, Value)> = vec![
        (
            "POST",
            "/api/v1/namespaces/demo/configmaps".into(),
            Some(configmap("x")),
            forbidden(
                r#"configmaps is forbidden: User "viewer" cannot create resource "configmaps" in API group "" in the namespace "demo""#,
                json!({"kind": "configmaps"}),
            ),
        ),
        (
            "PUT",
            "/api/v1/namespaces/demo/configmaps/web-config".into(),
            Some(configmap("web-config")),
            forbidden(
                r#"configmaps "web-config" is forbidden: User "viewer" cannot update resource "configmaps" in API group "" in the namespace "demo""#,
                json!({"name": "web-config", "kind": "configmaps"}),
            ),
        ),
        (
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web/scale".into(),
            Some(json!({"spec": {"replicas": 1}})),
            forbidden(
                r#"deployments.apps "web" is forbidden: User "viewer" cannot patch resource "deployments/scale" in API group "apps" in the namespace "demo""#,
                json!({"name": "web", "group": "apps", "kind": "deployments"}),
            ),
        ),
        (
            "DELETE",
            format!("/api/v1/namespaces/demo/pods/{pod}"),
            None,
            forbidden(
                &format!(
                    r#"pods "{pod}" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the namespace "demo""#
                ),
                json!({"name": pod, "kind": "pods"}),
            ),
        ),
        (
            "DELETE",
            "/api/v1/namespaces/demo/configmaps".into(),
            None,
            forbidden(
                r#"configmaps is forbidden: User "viewer" cannot deletecollection resource "configmaps" in API group "" in the namespace "demo""#,
                json!({"kind": "configmaps"}),
            ),
        ),
        (
            "GET",
            "/api/v1/namespaces/demo/secrets".into(),
            None,
            forbidden(
                r#"secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" in the namespace "demo""#,
                json!({"kind": "secrets"}),
            ),
        ),
        (
            "GET",
            "/metrics".into(),
            None,
            forbidden(r#"forbidden: User "viewer" cannot get path "/metrics""#, json!({})),
        ),
    ];
    for (method, path, body, expect) in cases {
        assert_eq!(call_json(&sim, method, &path, viewer, body).await, (403, expect), "{method} {path}");
    }
    let (code, cm) = call_json(&sim, "GET", "/api/v1/namespaces/demo/configmaps/web-config", viewer, None).await;
    assert_eq!((code, cm["data"]["LOG_LEVEL"].clone()), (200, json!("info")), "nothing was written");
}

#[tokio::test]
async fn dev_edits_in_demo_views_in_shop_and_is_refused_elsewhere_even_to_watch() {
    let sim = Sim::start(&[]);
    let dev = Some("dev-token");
    let (code, _) = call_json(&sim, "POST", "/api/v1/namespaces/demo/configmaps", dev, Some(configmap("dev-cm"))).await;
    assert_eq!(code, 201);
    let patch = json!({"data": {"k": "w"}});
    let (code, _) = call_json(&sim, "PATCH", "/api/v1/namespaces/demo/configmaps/dev-cm", dev, Some(patch)).await;
    assert_eq!(code, 200);
    let (code, _) = call_json(&sim, "DELETE", "/api/v1/namespaces/demo/configmaps/dev-cm", dev, None).await;
    assert_eq!(code, 200);
    let (code, _) = call_json(&sim, "GET", "/api/v1/namespaces/shop/pods", dev, None).await;
    assert_eq!(code, 200, "view in shop");
    let (code, _) = call_json(&sim, "GET", "/api/v1/namespaces", dev, None).await;
    assert_eq!(code, 200, "dev may list namespaces");
    let (code, body) = call_json(&sim, "POST", "/api/v1/namespaces/shop/configmaps", dev, Some(configmap("x"))).await;
    assert_eq!((code, body["reason"].clone()), (403, json!("Forbidden")));
    assert_eq!(
        call_json(&sim, "GET", "/api/v1/nodes", dev, None).await,
        (
            403,
            forbidden(
                r#"nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope"#,
                json!({"kind": "nodes"})
            )
        )
    );
    assert_eq!(
        call_json(&sim, "GET", "/api/v1/namespaces/kube-system/pods", dev, None).await,
        (
            403,
            forbidden(
                r#"pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "kube-system""#,
                json!({"kind": "pods"})
            )
        )
    );
    assert_eq!(
        call_json(&sim, "GET", "/api/v1/namespaces/kube-system/pods?watch=true", dev, None).await,
        (
            403,
            forbidden(
                r#"pods is forbidden: User "dev" cannot watch resource "pods" in API group "" in the namespace "kube-system""#,
                json!({"kind": "pods"})
            )
        )
    );
    // An allowed watch streams.
    let resp = sim
        .client
        .get(sim.url("/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=0"))
        .bearer_auth("dev-token")
        .send()
        .await
        .expect("watch starts");
    assert_eq!(resp.status().as_u16(), 200);
    let mut events = WatchLines::new(resp);
    assert_eq!(events.next(10).await.expect("an event")["type"], "ADDED");
}

#[tokio::test]
async fn requests_without_credentials_are_the_as_user() {
    let sim = Sim::start(&["--as", "dev"]);
    assert_eq!(
        whoami(&sim, None, &[]).await,
        (201, json!({"username": "dev", "uid": "1001", "groups": ["system:authenticated"]}))
    );
    let (code, _) = call(&sim, "GET", "/api/v1/nodes", None, &[], None).await;
    assert_eq!(code, 403);
    let (code, _) = call(&sim, "GET", "/api/v1/nodes", Some("admin-token"), &[], None).await;
    assert_eq!(code, 200, "a token still names its user");
    let sim = Sim::start(&["--as", "someone"]);
    assert_eq!(whoami(&sim, None, &[]).await.1, json!({"username": "someone", "groups": ["system:authenticated"]}));
    let (code, _) = call(&sim, "GET", "/api/v1/namespaces/demo/pods", None, &[], None).await;
    assert_eq!(code, 403, "nobody bound someone");
    let (code, _) = call(&sim, "GET", "/apis/apps/v1", None, &[], None).await;
    assert_eq!(code, 200, "every authenticated user reads discovery");
}

#[tokio::test]
async fn impersonation_needs_the_impersonate_verb() {
    let sim = Sim::start(&[]);
    assert_eq!(
        whoami(&sim, Some("admin-token"), &[("Impersonate-User", "dev")]).await,
        (201, json!({"username": "dev", "groups": ["system:authenticated"]}))
    );
    assert_eq!(
        whoami(&sim, None, &[("Impersonate-User", "jane"), ("Impersonate-Group", "devs")]).await.1,
        json!({"username": "jane", "groups": ["devs", "system:authenticated"]})
    );
    let (code, _) = call(&sim, "GET", "/api/v1/nodes", None, &[("Impersonate-User", "viewer")], None).await;
    assert_eq!(code, 403, "the impersonated user's rights apply");
    let (code, text) =
        call(&sim, "GET", "/api/v1/namespaces/demo/pods", Some("dev-token"), &[("Impersonate-User", "admin")], None)
            .await;
    assert_eq!(code, 403);
    let body: Value = serde_json::from_str(&text).expect("a Status");
    assert_eq!(
        body,
        forbidden(
            r#"users "admin" is forbidden: User "dev" cannot impersonate resource "users" in API group "" at the cluster scope"#,
            json!({"name": "admin", "kind": "users"})
        )
    );
    let headers = [("Impersonate-User", "system:serviceaccount:demo:default"), ("Impersonate-Group", "system:masters")];
    let (code, text) = call(&sim, "GET", "/api", Some("dev-token"), &headers, None).await;
    assert_eq!(code, 403, "{text}");
    assert!(
        text.contains(r#"groups \"system:masters\" is forbidden: User \"dev\" cannot impersonate resource \"groups\""#),
        "{text}"
    );
    // The edit role lets dev impersonate service accounts of its namespace.
    assert_eq!(
        whoami(&sim, Some("dev-token"), &[("Impersonate-User", "system:serviceaccount:demo:default")]).await,
        (
            201,
            json!({"username": "system:serviceaccount:demo:default",
                "groups": ["system:serviceaccounts", "system:serviceaccounts:demo", "system:authenticated"]})
        )
    );
    let (code, text) = call(&sim, "GET", "/api", None, &[("Impersonate-Group", "x")], None).await;
    assert_eq!(
        (code, text.as_str()),
        (500, "Internal Server Error: \"/api\": requested [{Group  x    }] without impersonating a user\n")
    );
}

#[tokio::test]
async fn rbac_objects_written_through_the_api_take_effect_at_once() {
    let file = std::env::temp_dir().join(format!("kube-sim-users-{}.csv", std::process::id()));
    std::fs::write(&file, "# token,user,uid,groups\njane-token,jane,42,\"qa,ops\"\n").expect("users file");
    let sim = Sim::start(&["--users", file.to_str().expect("utf-8 path")]);
    let jane = Some("jane-token");
    assert_eq!(
        whoami(&sim, jane, &[]).await.1,
        json!({"username": "jane", "uid": "42", "groups": ["qa", "ops", "system:authenticated"]})
    );
    let list = "/api/v1/namespaces/shop/configmaps";
    assert_eq!(call(&sim, "GET", list, jane, &[], None).await.0, 403);
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "cm-reader", "namespace": "shop"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]});
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "qa-reads", "namespace": "shop"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "qa"}]});
    let rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/shop";
    assert_eq!(call(&sim, "POST", &format!("{rbac}/rolebindings"), jane, &[], Some(binding.clone())).await.0, 403);
    assert_eq!(call(&sim, "POST", &format!("{rbac}/roles"), Some("admin-token"), &[], Some(role)).await.0, 201);
    assert_eq!(
        call(&sim, "POST", &format!("{rbac}/rolebindings"), Some("admin-token"), &[], Some(binding)).await.0,
        201
    );
    assert_eq!(call(&sim, "GET", list, jane, &[], None).await.0, 200);
    assert_eq!(call(&sim, "GET", "/api/v1/namespaces/demo/configmaps", jane, &[], None).await.0, 403, "only in shop");
    assert_eq!(call(&sim, "DELETE", &format!("{rbac}/roles/cm-reader"), None, &[], None).await.0, 200);
    let (code, body) = call_json(&sim, "GET", list, jane, None).await;
    assert_eq!(code, 403);
    assert_eq!(
        body["message"],
        r#"configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "shop": RBAC: role.rbac.authorization.k8s.io "cm-reader" not found"#
    );
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn a_cluster_role_labelled_for_view_is_aggregated_into_view() {
    let sim = Sim::start(&[]);
    assert_eq!(call(&sim, "GET", "/api/v1/nodes", Some("viewer-token"), &[], None).await.0, 403);
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "nodes-view", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]});
    let roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    assert_eq!(call(&sim, "POST", roles, None, &[], Some(role)).await.0, 201);
    assert_eq!(call(&sim, "GET", "/api/v1/nodes", Some("viewer-token"), &[], None).await.0, 200);
    let (_, view) = call_json(&sim, "GET", &format!("{roles}/view"), None, None).await;
    let rule = json!({"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]});
    assert!(view["rules"].as_array().is_some_and(|r| r.contains(&rule)), "{view}");
    let (_, admin) = call_json(&sim, "GET", &format!("{roles}/admin"), None, None).await;
    assert!(admin["rules"].as_array().is_some_and(|r| r.contains(&rule)), "view → edit → admin: {admin}");
    assert_eq!(call(&sim, "DELETE", &format!("{roles}/nodes-view"), None, &[], None).await.0, 200);
    assert_eq!(call(&sim, "GET", "/api/v1/nodes", Some("viewer-token"), &[], None).await.0, 403);
}

#[tokio::test]
async fn the_rbac_types_are_in_discovery_and_the_demo_bindings_can_be_listed() {
    let sim = Sim::start(&[]);
    let (code, list) = sim.get_json("/apis/rbac.authorization.k8s.io/v1").await;
    assert_eq!(code, 200);
    let names: Vec<&str> =
        list["resources"].as_array().into_iter().flatten().filter_map(|r| r["name"].as_str()).collect();
    for name in ["clusterrolebindings", "clusterroles", "rolebindings", "roles"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let (code, bindings) = sim.get_json("/apis/rbac.authorization.k8s.io/v1/rolebindings").await;
    assert_eq!(code, 200);
    let found: Vec<String> = bindings["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            format!(
                "{}/{}",
                b["metadata"]["namespace"].as_str().unwrap_or(""),
                b["metadata"]["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(found, ["default/dev-view", "demo/dev-edit", "shop/dev-view"]);
    let (code, crb) = sim.get_json("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin").await;
    assert_eq!(code, 200);
    assert_eq!(
        crb["subjects"],
        json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:masters"}])
    );
}
