use std::time::Duration;

use serde_json::{json, Value};

use super::*;
use crate::auth::{demo_users, Users, AUTHENTICATED};
use crate::cli::Dataset;
use crate::rules::status::ApiError;
use crate::store::registry::Registry;
use crate::store::Store;

fn store_with(objects: &[(&str, Value)]) -> Store {
    let store = Store::new(Duration::from_secs(300), 1000, Duration::from_secs(300));
    store.write(|txn| {
        for (key, obj) in objects {
            txn.put(key, obj.clone());
        }
    });
    store
}

fn demo_store() -> Store {
    let registry = Registry::load().expect("registry");
    let store = Store::new(Duration::from_secs(300), 1000, Duration::from_secs(300));
    store.write(|txn| crate::controllers::dataset::load(txn, &registry, Dataset::Demo, true));
    store
}

fn user(name: &str, groups: &[&str]) -> UserInfo {
    UserInfo { username: name.into(), groups: groups.iter().map(|g| g.to_string()).collect(), ..UserInfo::default() }
}

fn res(verb: &str, group: &str, resource: &str, sub: &str, ns: &str, name: &str) -> Attributes {
    Attributes::Resource(ResourceAttributes {
        verb: verb.into(),
        group: group.into(),
        resource: resource.into(),
        subresource: sub.into(),
        namespace: ns.into(),
        name: name.into(),
    })
}

fn path(verb: &str, path: &str) -> Attributes {
    Attributes::NonResource { verb: verb.into(), path: path.into() }
}

#[track_caller]
fn check_rule(rule: Value, attributes: Attributes, expect: bool) {
    assert_eq!(PolicyRule::from_json(&rule).allows(&attributes), expect, "{rule} for {attributes:?}");
}

#[test]
fn rules_match_verbs_groups_resources_subresources_and_names() {
    let pods = json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]});
    check_rule(pods.clone(), res("get", "", "pods", "", "demo", "p"), true);
    check_rule(pods.clone(), res("delete", "", "pods", "", "demo", "p"), false);
    check_rule(pods.clone(), res("get", "apps", "pods", "", "demo", "p"), false);
    check_rule(pods.clone(), res("get", "", "pods", "log", "demo", "p"), false);
    check_rule(
        json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods/log"]}),
        res("get", "", "pods", "log", "", "p"),
        true,
    );
    check_rule(
        json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}),
        res("escalate", "x.io", "things", "y", "", ""),
        true,
    );
    let any_status = json!({"verbs": ["update"], "apiGroups": ["apps"], "resources": ["*/status"]});
    check_rule(any_status.clone(), res("update", "apps", "deployments", "status", "demo", "web"), true);
    check_rule(any_status.clone(), res("update", "apps", "deployments", "scale", "demo", "web"), false);
    check_rule(any_status, res("update", "apps", "deployments", "", "demo", "web"), false);
    let scale = json!({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["deployments/scale"]});
    check_rule(scale, res("patch", "apps", "deployments", "scale", "demo", "web"), true);
    let named =
        json!({"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["web-config"]});
    check_rule(named.clone(), res("get", "", "configmaps", "", "demo", "web-config"), true);
    check_rule(named.clone(), res("get", "", "configmaps", "", "demo", "other"), false);
    check_rule(named, res("list", "", "configmaps", "", "demo", ""), false);
    let urls = json!({"verbs": ["get"], "nonResourceURLs": ["/healthz", "/apis/*"]});
    check_rule(urls.clone(), path("get", "/healthz"), true);
    check_rule(urls.clone(), path("get", "/healthz/ping"), false);
    check_rule(urls.clone(), path("get", "/apis/apps/v1"), true);
    check_rule(urls.clone(), path("post", "/apis/apps/v1"), false);
    check_rule(urls.clone(), res("get", "", "pods", "", "", ""), false);
    check_rule(json!({"verbs": ["*"], "nonResourceURLs": ["*"]}), path("delete", "/metrics"), true);
    check_rule(pods, path("get", "/api"), false);
}

fn role_ref(kind: &str, name: &str) -> Value {
    json!({"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": name})
}

fn binding(kind: &str, ns: &str, name: &str, role: Value, subjects: Value) -> Value {
    let mut meta = json!({"name": name});
    if !ns.is_empty() {
        meta["namespace"] = json!(ns);
    }
    json!({"kind": kind, "metadata": meta, "roleRef": role, "subjects": subjects})
}

fn role(name: &str, ns: &str, rules: Value) -> Value {
    let mut meta = json!({"name": name});
    if !ns.is_empty() {
        meta["namespace"] = json!(ns);
    }
    json!({"metadata": meta, "rules": rules})
}

#[test]
fn bindings_apply_to_users_groups_and_service_accounts_in_their_scope() {
    let read_pods = json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]);
    let store = store_with(&[
        (CLUSTER_ROLES, role("pod-reader", "", read_pods.clone())),
        (
            ROLES,
            role("cm-writer", "demo", json!([{"verbs": ["create"], "apiGroups": [""], "resources": ["configmaps"]}])),
        ),
        (
            CLUSTER_ROLE_BINDINGS,
            binding(
                "ClusterRoleBinding",
                "",
                "ops-read",
                role_ref("ClusterRole", "pod-reader"),
                json!([{"kind": "Group", "name": "ops"}]),
            ),
        ),
        (
            ROLE_BINDINGS,
            binding(
                "RoleBinding",
                "demo",
                "jane-read",
                role_ref("ClusterRole", "pod-reader"),
                json!([{"kind": "User", "name": "jane"}]),
            ),
        ),
        (
            ROLE_BINDINGS,
            binding(
                "RoleBinding",
                "demo",
                "ci",
                role_ref("Role", "cm-writer"),
                json!([{"kind": "ServiceAccount", "name": "ci"}]),
            ),
        ),
    ]);
    let state = store.read();
    let jane = user("jane", &[AUTHENTICATED]);
    let ops = user("olga", &["ops", AUTHENTICATED]);
    let ci = user("system:serviceaccount:demo:ci", &[AUTHENTICATED]);
    let list_in = |ns: &str| res("list", "", "pods", "", ns, "");
    assert_eq!(
        authorize(&state, &jane, &list_in("demo")),
        Decision::Allow {
            reason: r#"RBAC: allowed by RoleBinding "jane-read/demo" of ClusterRole "pod-reader" to User "jane""#
                .into()
        }
    );
    assert_eq!(authorize(&state, &jane, &list_in("shop")), Decision::Deny { reason: String::new() });
    assert_eq!(authorize(&state, &jane, &list_in("")), Decision::Deny { reason: String::new() });
    assert_eq!(
        authorize(&state, &ops, &list_in("")),
        Decision::Allow {
            reason: r#"RBAC: allowed by ClusterRoleBinding "ops-read" of ClusterRole "pod-reader" to Group "ops""#
                .into()
        }
    );
    assert_eq!(
        authorize(&state, &ci, &res("create", "", "configmaps", "", "demo", "")),
        Decision::Allow {
            reason: r#"RBAC: allowed by RoleBinding "ci/demo" of Role "cm-writer" to ServiceAccount "ci/demo""#.into()
        }
    );
    assert!(matches!(authorize(&state, &ci, &res("create", "", "configmaps", "", "shop", "")), Decision::Deny { .. }));
    assert_eq!(
        authorize(&state, &user("root", &["system:masters"]), &path("delete", "/x")),
        Decision::Allow { reason: String::new() }
    );
    let r = rules(&state, &jane, "demo");
    assert_eq!(r.resource_rules, [json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]})]);
    assert!(r.non_resource_rules.is_empty() && !r.incomplete && r.evaluation_error.is_none());
    assert!(rules(&state, &jane, "shop").resource_rules.is_empty());
}

#[test]
fn a_binding_to_a_missing_role_is_the_denial_reason() {
    let store = store_with(&[
        (
            CLUSTER_ROLE_BINDINGS,
            binding(
                "ClusterRoleBinding",
                "",
                "b1",
                role_ref("ClusterRole", "gone"),
                json!([{"kind": "User", "name": "jane"}]),
            ),
        ),
        (
            ROLE_BINDINGS,
            binding("RoleBinding", "demo", "b2", role_ref("Role", "absent"), json!([{"kind": "User", "name": "jane"}])),
        ),
    ]);
    let state = store.read();
    let jane = user("jane", &[AUTHENTICATED]);
    let Decision::Deny { reason } = authorize(&state, &jane, &res("get", "", "pods", "", "demo", "p")) else {
        panic!("denied");
    };
    assert_eq!(
        reason,
        r#"RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "absent" not found]"#
    );
    let ApiError::Status(s) = forbidden("jane", &res("get", "", "pods", "", "demo", "p"), &reason) else {
        panic!("a Status")
    };
    assert!(s.message.ends_with(r#"in the namespace "demo": RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "absent" not found]"#), "{}", s.message);
    let r = rules(&state, &jane, "shop");
    assert_eq!(r.evaluation_error.as_deref(), Some(r#"clusterrole.rbac.authorization.k8s.io "gone" not found"#));
}

#[track_caller]
fn check_forbidden(username: &str, attributes: Attributes, message: &str, details: Value) {
    let ApiError::Status(s) = forbidden(username, &attributes, "") else { panic!("a Status") };
    let body = serde_json::to_value(&*s).expect("serializes");
    assert_eq!(
        body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "Forbidden", "details": details, "code": 403})
    );
}

#[test]
fn denials_are_worded_as_kube_apiserver_words_them() {
    check_forbidden(
        "dev",
        res("list", "", "pods", "", "kube-system", ""),
        r#"pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "kube-system""#,
        json!({"kind": "pods"}),
    );
    check_forbidden(
        "viewer",
        res("delete", "", "pods", "", "demo", "web-1"),
        r#"pods "web-1" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the namespace "demo""#,
        json!({"name": "web-1", "kind": "pods"}),
    );
    check_forbidden(
        "dev",
        res("list", "", "nodes", "", "", ""),
        r#"nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope"#,
        json!({"kind": "nodes"}),
    );
    check_forbidden(
        "viewer",
        res("get", "", "pods", "log", "demo", "p"),
        r#"pods "p" is forbidden: User "viewer" cannot get resource "pods/log" in API group "" in the namespace "demo""#,
        json!({"name": "p", "kind": "pods"}),
    );
    check_forbidden("dev", path("get", "/metrics"), r#"forbidden: User "dev" cannot get path "/metrics""#, json!({}));
    check_forbidden(
        "viewer",
        res("watch", "apps", "deployments", "", "", ""),
        r#"deployments.apps is forbidden: User "viewer" cannot watch resource "deployments" in API group "apps" at the cluster scope"#,
        json!({"group": "apps", "kind": "deployments"}),
    );
    check_forbidden(
        "viewer",
        res("deletecollection", "", "configmaps", "", "demo", ""),
        r#"configmaps is forbidden: User "viewer" cannot deletecollection resource "configmaps" in API group "" in the namespace "demo""#,
        json!({"kind": "configmaps"}),
    );
    check_forbidden(
        "dev",
        res("impersonate", "", "users", "", "", "admin"),
        r#"users "admin" is forbidden: User "dev" cannot impersonate resource "users" in API group "" at the cluster scope"#,
        json!({"name": "admin", "kind": "users"}),
    );
    check_forbidden(
        "dev",
        res("update", "apps", "deployments", "scale", "shop", "cart"),
        r#"deployments.apps "cart" is forbidden: User "dev" cannot update resource "deployments/scale" in API group "apps" in the namespace "shop""#,
        json!({"name": "cart", "group": "apps", "kind": "deployments"}),
    );
}

#[test]
fn the_demo_users_have_the_rights_their_bindings_give() {
    let store = demo_store();
    let state = store.read();
    let users = Users::new(demo_users());
    let allowed = |name: &str, attributes: Attributes| {
        matches!(authorize(&state, &users.named(name), &attributes), Decision::Allow { .. })
    };
    for name in ["admin", "dev", "viewer"] {
        assert!(allowed(name, path("get", "/apis/apps/v1")), "{name} reads discovery");
        assert!(allowed(name, path("get", "/version")), "{name} reads /version");
        assert!(allowed(name, path("get", "/openapi/v3")), "{name} reads /openapi");
        assert!(allowed(name, res("create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", "")));
        assert!(allowed(name, res("create", "authentication.k8s.io", "selfsubjectreviews", "", "", "")));
        assert!(!allowed(name, path("get", "/metrics")) || name == "admin", "{name} and /metrics");
    }
    assert!(allowed("admin", res("delete", "", "nodes", "", "", "node-1")));
    assert!(allowed("admin", res("impersonate", "", "users", "", "", "dev")));
    assert!(allowed("dev", res("delete", "", "pods", "", "demo", "p")));
    assert!(allowed("dev", res("update", "apps", "deployments", "scale", "demo", "web")));
    assert!(allowed("dev", res("get", "", "secrets", "", "demo", "s")));
    assert!(allowed("dev", res("create", "example.com", "widgets", "", "demo", "")), "edit gathers widgets-edit");
    assert!(allowed("dev", res("list", "", "pods", "", "shop", "")));
    assert!(!allowed("dev", res("delete", "", "pods", "", "shop", "p")));
    assert!(!allowed("dev", res("list", "", "pods", "", "kube-system", "")));
    assert!(!allowed("dev", res("list", "", "nodes", "", "", "")));
    assert!(allowed("dev", res("list", "", "namespaces", "", "", "")));
    assert!(
        !allowed("dev", res("create", "rbac.authorization.k8s.io", "rolebindings", "", "demo", "")),
        "edit is not admin"
    );
    assert!(!allowed("dev", res("impersonate", "", "users", "", "", "admin")));
    assert!(allowed("dev", res("impersonate", "", "serviceaccounts", "", "demo", "default")));
    assert!(allowed("viewer", res("list", "", "pods", "", "kube-system", "")));
    assert!(allowed("viewer", res("get", "", "pods", "log", "demo", "p")));
    assert!(allowed("viewer", res("watch", "example.com", "widgets", "", "", "")), "view gathers widgets-view");
    assert!(!allowed("viewer", res("get", "", "secrets", "", "demo", "s")), "view cannot read secrets");
    assert!(!allowed("viewer", res("delete", "", "pods", "", "demo", "p")));
    assert!(!allowed("stranger", res("list", "", "pods", "", "demo", "")));
    assert!(allowed("stranger", path("get", "/api")));
    assert!(allowed(crate::auth::DEFAULT_USER, res("delete", "", "nodes", "", "", "node-1")));
    let r = rules(&state, &users.named("viewer"), "demo");
    assert!(r
        .resource_rules
        .contains(&json!({"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]})));
    assert!(r.non_resource_rules.iter().any(|n| n["nonResourceURLs"][0] == "/api"));
    let admin_rules = rules(&state, &users.named(crate::auth::DEFAULT_USER), "demo");
    assert_eq!(admin_rules.resource_rules[0], json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}));
}
