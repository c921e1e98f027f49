use super::*;

fn rule(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> ResourceRule {
    let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    ResourceRule {
        verbs: owned(verbs),
        api_groups: owned(groups),
        resources: owned(resources),
        resource_names: owned(names),
    }
}

fn question(verb: &str, group: &str, resource: &str) -> Question {
    Question(ResourceAttributes {
        verb: verb.into(),
        group: group.into(),
        resource: resource.into(),
        subresource: None,
        namespace: Some("demo".into()),
        name: None,
    })
}

fn resource_type(group: &str, plural: &str, kind: &str, scope: Scope, verbs: &[&str]) -> ResourceType {
    ResourceType {
        group: group.into(),
        version: "v1".into(),
        plural: plural.into(),
        singular: String::new(),
        kind: kind.into(),
        scope,
        verbs: verbs.iter().map(|v| v.to_string()).collect(),
        short_names: Vec::new(),
        categories: Vec::new(),
        subresources: Vec::new(),
    }
}

#[test]
fn a_rule_matches_verb_group_and_resource_exactly_or_by_star() {
    let edit = rule(&["get", "list", "patch"], &["apps"], &["deployments"], &[]);
    assert!(rule_covers(&edit, &question("patch", "apps", "deployments")));
    assert!(!rule_covers(&edit, &question("delete", "apps", "deployments")), "verb");
    assert!(!rule_covers(&edit, &question("patch", "", "deployments")), "group");
    assert!(!rule_covers(&edit, &question("patch", "apps", "replicasets")), "resource");
    let admin = rule(&["*"], &["*"], &["*"], &[]);
    assert!(rule_covers(&admin, &question("deletecollection", "example.com", "widgets")));
    assert!(rule_covers(&admin, &question("get", "", "pods").subresource("log")), "* covers subresources");
}

#[test]
fn a_subresource_needs_its_own_rule_or_a_star_slash_rule() {
    let pods = rule(&["get"], &[""], &["pods"], &[]);
    assert!(!rule_covers(&pods, &question("get", "", "pods").subresource("log")), "pods does not cover pods/log");
    let log = rule(&["get"], &[""], &["pods/log"], &[]);
    assert!(rule_covers(&log, &question("get", "", "pods").subresource("log")));
    assert!(!rule_covers(&log, &question("get", "", "pods")), "pods/log does not cover pods");
    let any_scale = rule(&["patch"], &["apps"], &["*/scale"], &[]);
    assert!(rule_covers(&any_scale, &question("patch", "apps", "deployments").subresource("scale")));
    assert!(!rule_covers(&any_scale, &question("patch", "apps", "deployments")));
}

#[test]
fn resource_names_cover_only_questions_naming_one_of_them() {
    let one = rule(&["get", "list", "update"], &[""], &["configmaps"], &["app"]);
    assert!(rule_covers(&one, &question("update", "", "configmaps").named("app")));
    assert!(!rule_covers(&one, &question("update", "", "configmaps").named("other")));
    assert!(!rule_covers(&one, &question("list", "", "configmaps")), "a list names no object");
}

#[test]
fn an_incomplete_review_never_denies() {
    let complete =
        RulesReview { resource_rules: vec![rule(&["get"], &[""], &["pods"], &[])], ..RulesReview::default() };
    assert_eq!(decide(&complete, &question("get", "", "pods")), Decision::Allowed);
    assert_eq!(decide(&complete, &question("delete", "", "pods")), Decision::Denied);
    let incomplete = RulesReview { incomplete: true, ..complete };
    assert_eq!(
        decide(&incomplete, &question("get", "", "pods")),
        Decision::Allowed,
        "a rule that is there still counts"
    );
    assert_eq!(decide(&incomplete, &question("delete", "", "pods")), Decision::Unknown);
}

#[test]
fn a_namespace_s_no_is_a_cluster_scope_no_and_its_yes_proves_nothing() {
    let review =
        RulesReview { resource_rules: vec![rule(&["get", "list"], &[""], &["pods"], &[])], ..RulesReview::default() };
    let mut all = question("list", "", "pods");
    all.namespace = None;
    assert_eq!(decide_cluster_scope(&review, &all), Decision::Unknown, "the rule may come from a RoleBinding");
    all.verb = "delete".into();
    assert_eq!(decide_cluster_scope(&review, &all), Decision::Denied, "no ClusterRoleBinding grants it either");
    let incomplete = RulesReview { incomplete: true, ..review };
    assert_eq!(decide_cluster_scope(&incomplete, &all), Decision::Unknown);
}

#[test]
fn questions_are_said_in_words_and_as_kubectl_auth_can_i() {
    let deployments = resource_type("apps", "deployments", "Deployment", Scope::Namespaced, &["patch"]);
    let patch = Question::on("patch", &deployments, Some("demo"));
    assert_eq!(patch.words(true).to_string(), "patch deployments of apps in demo");
    assert_eq!(patch.kubectl(true), "kubectl auth can-i patch deployments.apps -n demo");
    let all = Question::on("list", &deployments, None);
    assert_eq!(all.words(true).to_string(), "list deployments of apps in all namespaces");
    assert_eq!(all.kubectl(true), "kubectl auth can-i list deployments.apps -A");
    let namespaces = resource_type("", "namespaces", "Namespace", Scope::Cluster, &["delete"]);
    let delete = Question::on("delete", &namespaces, Some("demo")).named("shop");
    assert_eq!(delete.namespace, None, "a cluster-scoped type has no namespace");
    assert_eq!(delete.words(false).to_string(), "delete namespaces \"shop\" (cluster-scoped)");
    assert_eq!(delete.kubectl(false), "kubectl auth can-i delete namespaces/shop");
    let pods = resource_type("", "pods", "Pod", Scope::Namespaced, &["get"]);
    let log = Question::on("get", &pods, Some("my ns")).named("web-1").subresource("log");
    assert_eq!(log.kubectl(true), "kubectl auth can-i get pods/web-1 --subresource=log -n 'my ns'");
    assert_eq!(
        log,
        Question(ResourceAttributes {
            verb: "get".into(),
            group: String::new(),
            resource: "pods".into(),
            subresource: Some("log".into()),
            namespace: Some("my ns".into()),
            name: Some("web-1".into()),
        })
    );
}

fn status(code: u16, message: &str, name: &str) -> Status {
    serde_json::from_value(serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": "Forbidden", "code": code, "details": {"name": name},
    }))
    .expect("a Status")
}

#[test]
fn a_forbidden_message_is_read_back_into_its_question() {
    let refused = Forbidden::from_status(&status(
        403,
        r#"pods "web-1" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the namespace "demo""#,
        "web-1",
    ))
    .expect("kube-apiserver's wording");
    assert_eq!(refused.user, "viewer");
    assert_eq!(refused.verb, "delete");
    assert_eq!(refused.reason, None);
    assert_eq!(refused.question(), Some(question("delete", "", "pods").named("web-1")));

    let cluster = Forbidden::from_status(&status(
        403,
        r#"deployments.apps is forbidden: User "dev" cannot list resource "deployments" in API group "apps" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found"#,
        "",
    ))
    .expect("cluster scope, with a reason");
    assert_eq!(
        cluster.target,
        Target::Resource {
            group: "apps".into(),
            resource: "deployments".into(),
            subresource: None,
            namespace: None,
            name: None
        }
    );
    assert_eq!(cluster.reason.as_deref(), Some(r#"RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found"#));

    let log = Forbidden::from_status(&status(
        403,
        r#"pods "web-1" is forbidden: User "system:serviceaccount:demo:default" cannot get resource "pods/log" in API group "" in the namespace "demo""#,
        "web-1",
    ))
    .expect("a subresource");
    assert_eq!(log.user, "system:serviceaccount:demo:default");
    assert_eq!(log.question().and_then(|q| q.0.subresource), Some("log".into()));

    let path = Forbidden::from_status(&status(403, r#"forbidden: User "viewer" cannot get path "/metrics""#, ""))
        .expect("a non-resource URL");
    assert_eq!(path.target, Target::Path("/metrics".into()));
    assert_eq!(path.question(), None);
}

#[test]
fn escaped_markup_and_quotes_in_names_are_read_back() {
    let refused = Forbidden::from_status(&status(
        403,
        r#"configmaps is forbidden: User "a&lt;b\"c" cannot list resource "configmaps" in API group "" in the namespace "demo""#,
        "",
    ))
    .expect("escaped");
    assert_eq!(refused.user, "a<b\"c");
}

#[test]
fn other_statuses_and_other_wordings_are_not_read_as_forbidden() {
    assert_eq!(
        Forbidden::from_status(&status(404, r#"User "x" cannot get resource "pods" in API group """#, "")),
        None
    );
    assert_eq!(Forbidden::from_status(&status(403, "forbidden by an admission webhook", "")), None);
    assert_eq!(
        Forbidden::from_status(&status(403, r#"User "x" cannot get resource "pods" in API group "" somewhere"#, "")),
        None,
        "neither a namespace nor the cluster scope"
    );
    assert_eq!(Forbidden::from_status(&status(403, r#"User "unterminated cannot"#, "")), None);
}

#[test]
fn the_grant_is_a_role_and_binding_in_the_namespace_or_a_cluster_role() {
    let refused = Forbidden::from_status(&status(
        403,
        r#"deployments.apps "web" is forbidden: User "viewer" cannot patch resource "deployments/scale" in API group "apps" in the namespace "demo""#,
        "web",
    ))
    .expect("forbidden");
    let yaml = refused.grant_yaml();
    let documents: Vec<serde_json::Value> =
        yaml.split("---\n").map(|d| serde_yaml::from_str(d).expect("each document is YAML")).collect();
    assert_eq!(
        documents[0],
        serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "deployments-scale.apps-patch", "namespace": "demo"},
            "rules": [{"apiGroups": ["apps"], "resources": ["deployments/scale"], "resourceNames": ["web"], "verbs": ["patch"]}],
        })
    );
    assert_eq!(
        documents[1],
        serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "deployments-scale.apps-patch-viewer", "namespace": "demo"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployments-scale.apps-patch"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "viewer"}],
        })
    );
    let path = Forbidden::from_status(&status(403, r#"forbidden: User "viewer" cannot get path "/metrics""#, ""))
        .expect("forbidden");
    let cluster: serde_json::Value =
        serde_yaml::from_str(path.grant_yaml().split("---\n").next().expect("a document")).expect("yaml");
    assert_eq!(cluster["kind"], "ClusterRole");
    assert_eq!(cluster["metadata"], serde_json::json!({"name": "path-metrics-get"}));
    assert_eq!(cluster["rules"], serde_json::json!([{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]));
}

#[test]
fn the_matrix_has_a_cell_per_served_verb_filtered_and_sorted() {
    let types = [
        resource_type("apps", "deployments", "Deployment", Scope::Namespaced, &["get", "list", "patch"]),
        resource_type("", "pods", "Pod", Scope::Namespaced, &["get", "list", "delete"]),
        resource_type("", "namespaces", "Namespace", Scope::Cluster, &["get"]),
    ];
    let review = RulesReview {
        resource_rules: vec![rule(&["get", "list"], &["", "apps"], &["*"], &[])],
        ..RulesReview::default()
    };
    let mut asked = Vec::new();
    let rows = matrix(&types, Some("demo"), "", |q| {
        asked.push(q.clone());
        decide(&review, q)
    });
    let resources: Vec<&str> = rows.iter().map(|r| r.resource.as_str()).collect();
    assert_eq!(resources, ["deployments.apps", "namespaces", "pods"]);
    let pods = &rows[2];
    assert_eq!(pods.cells[0], Some(Decision::Allowed), "get");
    assert_eq!(pods.cells[2], None, "watch is not served");
    assert_eq!(pods.cells[6], Some(Decision::Denied), "delete");
    assert!(asked.iter().any(|q| q.resource == "namespaces" && q.namespace.is_none()), "cluster-scoped: no namespace");
    assert_eq!(matrix(&types, Some("demo"), "deploy", |_| Decision::Unknown).len(), 1, "by resource");
    assert_eq!(matrix(&types, Some("demo"), "POD", |_| Decision::Unknown).len(), 1, "by kind, any case");
}

#[test]
fn a_question_about_a_collection_or_an_object_carries_its_group_resource_namespace_name_and_subresource() {
    let deployments = resource_type("apps", "deployments", "Deployment", Scope::Namespaced, &["get", "patch"]);
    let collection = Collection::new(&deployments, Some("demo")).expect("a collection");
    let list = Question::collection("list", &collection);
    assert_eq!(
        list,
        Question(ResourceAttributes {
            verb: "list".into(),
            group: "apps".into(),
            resource: "deployments".into(),
            subresource: None,
            namespace: Some("demo".into()),
            name: None,
        })
    );
    let scale = collection.object("web").expect("an object").subresource("scale").expect("a subresource");
    let patch = Question::object("patch", &scale);
    assert_eq!(
        patch,
        Question(ResourceAttributes {
            verb: "patch".into(),
            group: "apps".into(),
            resource: "deployments".into(),
            subresource: Some("scale".into()),
            namespace: Some("demo".into()),
            name: Some("web".into()),
        })
    );
    assert_eq!(patch.kubectl(true), "kubectl auth can-i patch deployments.apps/web --subresource=scale -n demo");
    let plain = Question::object("get", &collection.object("web").expect("an object"));
    assert_eq!((plain.name.as_deref(), plain.subresource.as_deref()), (Some("web"), None));
}

#[test]
fn each_decision_has_its_own_matrix_mark() {
    let marks: Vec<&str> =
        [Decision::Allowed, Decision::Denied, Decision::Unknown, Decision::Pending].map(Decision::mark).to_vec();
    assert_eq!(marks, ["yes", "no", "?", "…"]);
}

#[test]
fn a_role_name_keeps_letters_digits_dots_and_dashes_and_dashes_the_rest() {
    let path = Forbidden::from_status(&status(
        403,
        r#"forbidden: User "viewer" cannot get path "/logs/kube_apiserver.log""#,
        "",
    ))
    .expect("a non-resource URL");
    let role: serde_json::Value =
        serde_yaml::from_str(path.grant_yaml().split("---\n").next().expect("a document")).expect("yaml");
    assert_eq!(role["metadata"]["name"], "path-logs-kube-apiserver.log-get", "'_' becomes '-', '.' is kept");
}

#[test]
fn the_matrix_filter_matches_the_resource_alone_or_the_kind_alone() {
    let types = [
        resource_type("apps", "deployments", "Deployment", Scope::Namespaced, &["get"]),
        resource_type("", "pods", "Pod", Scope::Namespaced, &["get"]),
        resource_type("networking.k8s.io", "networkpolicies", "NetworkPolicy", Scope::Namespaced, &["get"]),
    ];
    let rows = |filter: &str| -> Vec<String> {
        matrix(&types, Some("demo"), filter, |_| Decision::Unknown).into_iter().map(|r| r.resource).collect()
    };
    assert_eq!(rows("apps"), ["deployments.apps"], "the group is in the resource, not in the kind");
    assert_eq!(rows(" Policy "), ["networkpolicies.networking.k8s.io"], "the kind alone, trimmed, any case");
    assert_eq!(rows(""), ["deployments.apps", "networkpolicies.networking.k8s.io", "pods"]);
}
