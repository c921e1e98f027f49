//! The RBAC objects a cluster starts with, and the ClusterRole aggregation controller.
//!
//! - Every dataset gets kube-apiserver's bootstrap policy that matters here: `cluster-admin`
//!   (bound to `system:masters`), the aggregated `admin`, `edit` and `view` with the
//!   `system:aggregate-to-*` roles they gather (rules as in Kubernetes 1.36, minus the
//!   long-gone `extensions` group), and `system:discovery`, `system:basic-user` and
//!   `system:public-info-viewer`, which let every authenticated user read discovery, `/version`
//!   and `/openapi`, and ask the self reviews.
//! - The demo dataset adds what its users `admin`, `dev` and `viewer` (`auth::demo_users`) may
//!   do, as objects anyone can list, and ClusterRoles that aggregate the widgets custom resource
//!   into `view` and `edit`.
//! - [`aggregate`] fills the `rules` of every ClusterRole with an `aggregationRule` from the
//!   ClusterRoles its label selectors match, as kube-controller-manager's
//!   clusterrole-aggregation controller does; it runs after every ClusterRole write.

use serde_json::{json, Value};

use crate::auth::rbac::{CLUSTER_ROLES, CLUSTER_ROLE_BINDINGS, GROUP, ROLE_BINDINGS};
use crate::rules::fields::{record_update, Writer};
use crate::store::object;
use crate::store::Txn;

const AGGREGATE_TO: &str = "rbac.authorization.k8s.io/aggregate-to-";
const CONTROLLER: &str = "clusterrole-aggregation-controller";
const READ: &[&str] = &["get", "list", "watch"];
const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];

/// An object to store: its storage key, the object, and the manager that writes it.
pub type Seed = (&'static str, Value, &'static str);

/// The bootstrap ClusterRoles and ClusterRoleBindings (run [`aggregate`] once they are stored).
pub fn bootstrap() -> Vec<Seed> {
    let mut seeds: Vec<Seed> = bootstrap_roles().into_iter().map(|r| (CLUSTER_ROLES, r, "kube-apiserver")).collect();
    for (name, subjects) in [
        ("cluster-admin", vec![group("system:masters")]),
        ("system:discovery", vec![group("system:authenticated")]),
        ("system:basic-user", vec![group("system:authenticated")]),
        ("system:public-info-viewer", vec![group("system:authenticated"), group("system:unauthenticated")]),
    ] {
        let mut binding = cluster_role_binding(name, name, subjects);
        bootstrapped(&mut binding);
        seeds.push((CLUSTER_ROLE_BINDINGS, binding, "kube-apiserver"));
    }
    seeds
}

/// The demo users' rights: `admin` is a cluster admin, `viewer` may view everything,
/// `dev` may edit in `demo`, view in `shop` and `default`, and list namespaces; `view` and
/// `edit` gather the widgets custom resource (run [`aggregate`] once they are stored).
pub fn demo() -> Vec<Seed> {
    let widgets = |name: &str, to: &str, verbs: &[&str]| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name, "labels": {format!("{AGGREGATE_TO}{to}"): "true"}},
            "rules": [rule(&["example.com"], &["widgets"], verbs)]})
    };
    let write_and_read: Vec<&str> = WRITE.iter().chain(READ).copied().collect();
    let mut seeds: Vec<Seed> = vec![
        (CLUSTER_ROLES, widgets("widgets-view", "view", READ), "kubectl-create"),
        (CLUSTER_ROLES, widgets("widgets-edit", "edit", &write_and_read), "kubectl-create"),
        (
            CLUSTER_ROLES,
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "namespace-reader"}, "rules": [rule(&[""], &["namespaces"], READ)]}),
            "kubectl-create",
        ),
    ];
    for (name, role, user) in [
        ("admin", "cluster-admin", "admin"),
        ("viewer", "view", "viewer"),
        ("dev-namespaces", "namespace-reader", "dev"),
    ] {
        seeds.push((CLUSTER_ROLE_BINDINGS, cluster_role_binding(name, role, vec![named_user(user)]), "kubectl-create"));
    }
    for (ns, name, role) in
        [("demo", "dev-edit", "edit"), ("shop", "dev-view", "view"), ("default", "dev-view", "view")]
    {
        let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": ns},
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role},
            "subjects": [named_user("dev")]});
        seeds.push((ROLE_BINDINGS, binding, "kubectl-create"));
    }
    seeds
}

/// Fills the rules of every aggregated ClusterRole from the ClusterRoles its selectors match
/// (in name order, each rule once, itself left out), until nothing changes: `view` is gathered
/// into `edit`, and `edit` into `admin`.
pub fn aggregate(txn: &mut Txn<'_>) {
    // Each round settles one more level of nesting; the bootstrap policy has three.
    for _ in 0..8 {
        let roles = txn.state().list(CLUSTER_ROLES, None);
        let mut changed = false;
        for role in roles.iter().filter(|r| r["aggregationRule"].is_object()) {
            let current = txn.get(CLUSTER_ROLES, "", object::name(role)).unwrap_or_else(|| role.clone());
            let selectors = current["aggregationRule"]["clusterRoleSelectors"].as_array().cloned().unwrap_or_default();
            let mut rules: Vec<Value> = Vec::new();
            for selector in &selectors {
                for other in txn.state().list(CLUSTER_ROLES, None) {
                    if object::name(&other) == object::name(&current)
                        || !crate::rules::selector::object_selector_matches(selector, &other)
                    {
                        continue;
                    }
                    for r in other["rules"].as_array().into_iter().flatten() {
                        if !rules.contains(r) {
                            rules.push(r.clone());
                        }
                    }
                }
            }
            if current["rules"].as_array().map(Vec::as_slice).unwrap_or_default() == rules.as_slice() {
                continue;
            }
            let mut new = current.as_ref().clone();
            new["rules"] = Value::Array(rules);
            let now = object::now_string();
            let w = Writer {
                manager: CONTROLLER,
                operation: "Apply",
                api_version: "rbac.authorization.k8s.io/v1",
                subresource: None,
                time: &now,
            };
            record_update(Some(&current), &mut new, &w);
            txn.put(CLUSTER_ROLES, new);
            changed = true;
        }
        if !changed {
            return;
        }
    }
}

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": groups, "resources": resources})
}

fn group(name: &str) -> Value {
    json!({"apiGroup": GROUP, "kind": "Group", "name": name})
}

fn named_user(name: &str) -> Value {
    json!({"apiGroup": GROUP, "kind": "User", "name": name})
}

fn cluster_role_binding(name: &str, role: &str, subjects: Vec<Value>) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role},
        "subjects": subjects})
}

/// The label and annotation kube-apiserver's bootstrap policy carries.
fn bootstrapped(obj: &mut Value) {
    object::set_at(obj, &["metadata", "labels", "kubernetes.io/bootstrapping"], json!("rbac-defaults"));
    object::set_at(obj, &["metadata", "annotations", "rbac.authorization.kubernetes.io/autoupdate"], json!("true"));
}

fn cluster_role(name: &str, aggregate_to: &[&str], rules: Vec<Value>) -> Value {
    let mut role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": name}, "rules": rules});
    bootstrapped(&mut role);
    for to in aggregate_to {
        object::set_at(&mut role, &["metadata", "labels", &format!("{AGGREGATE_TO}{to}")], json!("true"));
    }
    role
}

fn aggregated(name: &str, aggregate_to: &[&str], from: &str) -> Value {
    let mut role = cluster_role(name, aggregate_to, Vec::new());
    role["aggregationRule"] =
        json!({"clusterRoleSelectors": [{"matchLabels": {format!("{AGGREGATE_TO}{from}"): "true"}}]});
    role
}

fn bootstrap_roles() -> Vec<Value> {
    let non_resource = |urls: &[&str]| json!({"verbs": ["get"], "nonResourceURLs": urls});
    let write_and_read: Vec<&str> = WRITE.iter().chain(READ).copied().collect();
    vec![
        cluster_role(
            "cluster-admin",
            &[],
            vec![rule(&["*"], &["*"], &["*"]), json!({"verbs": ["*"], "nonResourceURLs": ["*"]})],
        ),
        aggregated("admin", &[], "admin"),
        aggregated("edit", &["admin"], "edit"),
        aggregated("view", &["edit"], "view"),
        cluster_role(
            "system:aggregate-to-admin",
            &["admin"],
            vec![
                rule(&["authorization.k8s.io"], &["localsubjectaccessreviews"], &["create"]),
                rule(&[GROUP], &["rolebindings", "roles"], &write_and_read),
            ],
        ),
        cluster_role(
            "system:aggregate-to-edit",
            &["edit"],
            vec![
                rule(
                    &[""],
                    &["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
                    READ,
                ),
                rule(&[""], &["serviceaccounts"], &["impersonate"]),
                rule(&[""], &["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], WRITE),
                rule(&[""], &["pods/eviction"], &["create"]),
                rule(
                    &[""],
                    &[
                        "configmaps",
                        "events",
                        "persistentvolumeclaims",
                        "replicationcontrollers",
                        "replicationcontrollers/scale",
                        "secrets",
                        "serviceaccounts",
                        "services",
                        "services/proxy",
                    ],
                    WRITE,
                ),
                rule(&[""], &["serviceaccounts/token"], &["create"]),
                rule(
                    &["apps"],
                    &[
                        "daemonsets",
                        "deployments",
                        "deployments/rollback",
                        "deployments/scale",
                        "replicasets",
                        "replicasets/scale",
                        "statefulsets",
                        "statefulsets/scale",
                    ],
                    WRITE,
                ),
                rule(&["autoscaling"], &["horizontalpodautoscalers"], WRITE),
                rule(&["batch"], &["cronjobs", "jobs"], WRITE),
                rule(&["policy"], &["poddisruptionbudgets"], WRITE),
                rule(&["networking.k8s.io"], &["ingresses", "networkpolicies"], WRITE),
                rule(&["coordination.k8s.io"], &["leases"], &write_and_read),
            ],
        ),
        cluster_role(
            "system:aggregate-to-view",
            &["view"],
            vec![
                rule(
                    &[""],
                    &[
                        "configmaps",
                        "endpoints",
                        "persistentvolumeclaims",
                        "persistentvolumeclaims/status",
                        "pods",
                        "replicationcontrollers",
                        "replicationcontrollers/scale",
                        "serviceaccounts",
                        "services",
                        "services/status",
                    ],
                    READ,
                ),
                rule(
                    &[""],
                    &[
                        "bindings",
                        "events",
                        "limitranges",
                        "namespaces/status",
                        "pods/log",
                        "pods/status",
                        "replicationcontrollers/status",
                        "resourcequotas",
                        "resourcequotas/status",
                    ],
                    READ,
                ),
                rule(&[""], &["namespaces"], READ),
                rule(&["discovery.k8s.io"], &["endpointslices"], READ),
                rule(
                    &["apps"],
                    &[
                        "controllerrevisions",
                        "daemonsets",
                        "daemonsets/status",
                        "deployments",
                        "deployments/scale",
                        "deployments/status",
                        "replicasets",
                        "replicasets/scale",
                        "replicasets/status",
                        "statefulsets",
                        "statefulsets/scale",
                        "statefulsets/status",
                    ],
                    READ,
                ),
                rule(&["autoscaling"], &["horizontalpodautoscalers", "horizontalpodautoscalers/status"], READ),
                rule(&["batch"], &["cronjobs", "cronjobs/status", "jobs", "jobs/status"], READ),
                rule(&["policy"], &["poddisruptionbudgets", "poddisruptionbudgets/status"], READ),
                rule(&["networking.k8s.io"], &["ingresses", "ingresses/status", "networkpolicies"], READ),
            ],
        ),
        cluster_role(
            "system:discovery",
            &[],
            vec![non_resource(&[
                "/api",
                "/api/*",
                "/apis",
                "/apis/*",
                "/healthz",
                "/livez",
                "/openapi",
                "/openapi/*",
                "/readyz",
                "/version",
                "/version/",
            ])],
        ),
        cluster_role(
            "system:basic-user",
            &[],
            vec![
                rule(&["authorization.k8s.io"], &["selfsubjectaccessreviews", "selfsubjectrulesreviews"], &["create"]),
                rule(&["authentication.k8s.io"], &["selfsubjectreviews"], &["create"]),
            ],
        ),
        cluster_role(
            "system:public-info-viewer",
            &[],
            vec![non_resource(&["/healthz", "/livez", "/readyz", "/version", "/version/"])],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::store::Store;

    fn labelled(name: &str, labels: Value, rules: Value) -> Value {
        json!({"metadata": {"name": name, "labels": labels}, "rules": rules})
    }

    fn rules_of(store: &Store, name: &str) -> Value {
        store.read().get(CLUSTER_ROLES, "", name).map(|r| r["rules"].clone()).unwrap_or_default()
    }

    #[test]
    fn aggregated_roles_gather_the_rules_their_selectors_match_nested_and_live() {
        let store = Store::new(Duration::from_secs(300), 1000, Duration::from_secs(300));
        let a = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]});
        let b = json!({"verbs": ["list"], "apiGroups": ["apps"], "resources": ["deployments"]});
        store.write(|txn| {
            txn.put(
                CLUSTER_ROLES,
                json!({"metadata": {"name": "outer"}, "aggregationRule": {"clusterRoleSelectors": [
                    {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["inner", "leaf"]}]}]}}),
            );
            txn.put(
                CLUSTER_ROLES,
                json!({"metadata": {"name": "inner", "labels": {"tier": "inner"}}, "aggregationRule": {
                    "clusterRoleSelectors": [{"matchLabels": {"feeds": "inner"}}]}}),
            );
            txn.put(CLUSTER_ROLES, labelled("leaf-b", json!({"feeds": "inner"}), json!([b.clone()])));
            txn.put(CLUSTER_ROLES, labelled("leaf-a", json!({"feeds": "inner", "tier": "leaf"}), json!([a.clone()])));
            txn.put(CLUSTER_ROLES, labelled("other", json!({"feeds": "elsewhere"}), json!([{"verbs": ["*"]}])));
            aggregate(txn);
        });
        assert_eq!(rules_of(&store, "inner"), json!([a, b]), "in name order: leaf-a, then leaf-b");
        assert_eq!(rules_of(&store, "outer"), json!([a, b]), "inner's and leaf-a's rules, each once");
        let managers =
            store.read().get(CLUSTER_ROLES, "", "outer").map(|r| r["metadata"]["managedFields"][0]["manager"].clone());
        assert_eq!(managers, Some(json!(CONTROLLER)));
        store.write(|txn| {
            txn.remove(CLUSTER_ROLES, "", "leaf-b");
            aggregate(txn);
        });
        assert_eq!(rules_of(&store, "inner"), json!([a]));
        assert_eq!(rules_of(&store, "outer"), json!([a]));
        let rv = store.current_rv();
        store.write(aggregate);
        assert_eq!(store.current_rv(), rv, "nothing to change, nothing written");
    }

    #[test]
    fn the_bootstrap_view_cannot_read_secrets_and_edit_gathers_view() {
        let store = Store::new(Duration::from_secs(300), 1000, Duration::from_secs(300));
        store.write(|txn| {
            for (key, obj, _) in bootstrap() {
                txn.put(key, obj);
            }
            aggregate(txn);
        });
        let names = |role: &str| -> Vec<String> {
            rules_of(&store, role)
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|r| r["resources"].as_array().cloned().unwrap_or_default())
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect()
        };
        assert!(names("view").contains(&"pods/log".to_string()));
        assert!(!names("view").contains(&"secrets".to_string()));
        assert!(names("edit").contains(&"secrets".to_string()) && names("edit").contains(&"pods/log".to_string()));
        assert!(
            names("admin").contains(&"rolebindings".to_string()) && names("admin").contains(&"pods/log".to_string())
        );
    }
}
