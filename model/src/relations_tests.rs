use super::*;
use kube_wire::discovery::Scope;
use kube_wire::testdata::{discovery_of, resource_type};
use serde_json::json;

fn value(json: serde_json::Value) -> Value {
    Value::from_serde_json(&json)
}

fn discovery() -> Discovery {
    let typed = |group: &str, plural: &str, kind: &str| {
        let mut resource = resource_type(group, "v1", plural, Scope::Namespaced);
        resource.kind = kind.into();
        resource.verbs = ["list", "watch", "get"].iter().map(|v| v.to_string()).collect();
        resource
    };
    discovery_of(vec![
        typed("apps", "replicasets", "ReplicaSet"),
        typed("", "pods", "Pod"),
        typed("batch", "jobs", "Job"),
        typed("discovery.k8s.io", "endpointslices", "EndpointSlice"),
    ])
}

/// A Deployment as a real API server returns it (apps/v1, defaulted selector).
fn deployment() -> Value {
    value(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "demo", "uid": "u-dep"},
        "spec": {"replicas": 10, "selector": {"matchLabels": {"app": "web", "tier": "front"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "canary"]},
                                 {"key": "legacy", "operator": "DoesNotExist"}]}},
        "status": {"readyReplicas": 9, "replicas": 10}}))
}

fn owned(kind: &str, name: &str, uid: &str, owner: &str, extra: serde_json::Value) -> serde_json::Value {
    let mut object = json!({"metadata": {"name": name, "namespace": "demo", "uid": uid,
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": "x", "uid": owner,
            "controller": true, "blockOwnerDeletion": true}]}});
    for (key, value) in extra.as_object().unwrap() {
        object[key] = value.clone();
    }
    object
}

/// The plan's requests as lines: method, path and query.
fn plan_lines(document: &Value) -> Vec<String> {
    match plan(&discovery(), document) {
        Ok(p) => p.lists.iter().map(|l| format!("{} {}", l.kind, l.request.path_and_query())).collect(),
        Err(e) => vec![format!("error {e:?}")],
    }
}

fn tree_lines(nodes: &[Node], depth: usize, out: &mut Vec<String>) {
    for node in nodes {
        out.push(format!("{}{} {} {:?}", "  ".repeat(depth), node.object.kind, node.object.name, node.status));
        tree_lines(&node.children, depth + 1, out);
    }
}

#[test]
fn a_deployment_costs_two_lists_whatever_its_pods() {
    let lines = plan_lines(&deployment());
    assert_eq!(
        lines,
        [
            "ReplicaSet /apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb%2Cenv+in+%28canary%2Cprod%29%2C%21legacy%2Ctier%3Dfront",
            "Pod /api/v1/namespaces/demo/pods?labelSelector=app%3Dweb%2Cenv+in+%28canary%2Cprod%29%2C%21legacy%2Ctier%3Dfront",
        ]
    );
    // 3 ReplicaSets and 10 pods: the same 2 requests; the tree is built from their items.
    let replica_sets: Vec<serde_json::Value> = (0..3)
        .map(|i| {
            owned(
                "Deployment",
                &format!("web-{i}"),
                &format!("u-rs{i}"),
                "u-dep",
                json!({"spec": {"replicas": 5}, "status": {"readyReplicas": i}}),
            )
        })
        .collect();
    let mut pods: Vec<serde_json::Value> = (0..10)
        .map(|i| {
            owned(
                "ReplicaSet",
                &format!("web-{}-p{i}", i % 2),
                &format!("u-p{i}"),
                &format!("u-rs{}", i % 2),
                json!({"status": {"phase": "Running"}}),
            )
        })
        .collect();
    // Selected by the labels but controlled by someone else: left out.
    pods.push(owned("ReplicaSet", "stranger", "u-s", "u-other", json!({})));
    let list = |kind: &str, items: Vec<serde_json::Value>| {
        items_of(&value(json!({"apiVersion": "v1", "kind": format!("{kind}List"), "items": items})), kind)
    };
    let lists = [list("ReplicaSet", replica_sets), list("Pod", pods)];
    let nodes = tree(Shape::Owned, "u-dep", &lists);
    let mut out = Vec::new();
    tree_lines(&nodes, 0, &mut out);
    assert_eq!(out.len(), 13, "{out:#?}");
    assert_eq!(out[0], "ReplicaSet web-0 Ready { ready: 0, desired: 5 }");
    assert_eq!(out[1], "  Pod web-0-p0 Word(\"Running\")");
    assert_eq!(out[12], "ReplicaSet web-2 Ready { ready: 2, desired: 5 }");
    assert!(!out.iter().any(|l| l.contains("stranger")));
    assert_eq!(nodes[0].children.len() + nodes[1].children.len(), 10);
    // The pods as a Table (their metadata and kubectl's STATUS), the ReplicaSets whole.
    let planned = plan(&discovery(), &deployment()).unwrap();
    let accept = |l: &DependentList| {
        l.request
            .headers()
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("accept"))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert!(accept(&planned.lists[1]).contains("as=Table"), "{}", accept(&planned.lists[1]));
    assert!(!accept(&planned.lists[0]).contains("as=Table"));
}

fn items_of(list: &Value, kind: &str) -> Vec<Value> {
    items(list, kind).unwrap()
}

#[test]
fn each_kind_lists_its_dependents() {
    let job = value(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "pi", "namespace": "demo", "uid": "u-job"},
        "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u-job"}}}}));
    assert_eq!(
        plan_lines(&job),
        ["Pod /api/v1/namespaces/demo/pods?labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Du-job"]
    );
    let cron = value(json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "nightly", "namespace": "demo", "uid": "u-cron"},
        "spec": {"jobTemplate": {"spec": {}}}}));
    assert_eq!(
        plan_lines(&cron),
        [
            "Job /apis/batch/v1/namespaces/demo/jobs",
            "Pod /api/v1/namespaces/demo/pods?labelSelector=batch.kubernetes.io%2Fjob-name"
        ]
    );
    let config_map = value(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "demo", "uid": "u-c"}}));
    assert_eq!(plan_lines(&config_map), Vec::<String>::new());
    let no_selector = value(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "demo", "uid": "u-db"}, "spec": {}}));
    assert_eq!(plan_lines(&no_selector), [r#"error BadSelector("spec.selector: missing")"#]);
    let bad_operator = value(json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "d", "namespace": "demo", "uid": "u-d"},
        "spec": {"selector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}}));
    assert_eq!(plan_lines(&bad_operator), [r#"error BadSelector("spec.selector: operator \"Near\" with 0 values")"#]);
    let no_uid = value(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"}}));
    assert_eq!(plan_lines(&no_uid), ["error NoUid"]);
    let without_jobs = discovery_of(vec![]);
    assert!(matches!(plan(&without_jobs, &cron), Err(RelationsError::NotServed(what)) if what == "batch/v1/jobs"));
}

#[test]
fn a_real_pods_owners_lead_up() {
    let pod: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/kube/vectors/pod.json"))
            .or_else(|_| std::fs::read_to_string("/work/shared/kube/vectors/pod.json"))
            .unwrap(),
    )
    .unwrap();
    let pod = value(pod);
    let up = owners(&pod);
    assert_eq!(
        up,
        [Related {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            namespace: Some("default".into()),
            name: "web-7d4b9c8f5".into()
        }]
    );
    assert_eq!(status(&pod), Status::Word("Running".into()));
    // The controller comes first whatever the order on the wire.
    let two = value(json!({"metadata": {"namespace": "n", "ownerReferences": [
        {"apiVersion": "v1", "kind": "Node", "name": "a", "uid": "1"},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "2", "controller": true}]}}));
    assert_eq!(owners(&two).iter().map(|o| o.kind.as_str()).collect::<Vec<_>>(), ["StatefulSet", "Node"]);
}

#[test]
fn a_service_lists_its_slices_by_name_and_its_pods_by_selector_and_shows_which_pods_serve() {
    let service = value(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "demo", "uid": "u-svc"},
        "spec": {"selector": {"tier": "front", "app": "web"}, "ports": [{"port": 80}]}}));
    assert_eq!(
        plan_lines(&service),
        [
            "EndpointSlice /apis/discovery.k8s.io/v1/namespaces/demo/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb",
            "Pod /api/v1/namespaces/demo/pods?labelSelector=app%3Dweb%2Ctier%3Dfront",
        ]
    );
    assert_eq!(plan(&discovery(), &service).unwrap().shape, Shape::Endpoints);
    let endpoint = |pod: &str, ready: Option<bool>| {
        let mut e = json!({"addresses": ["10.0.0.1"], "targetRef": {"kind": "Pod", "namespace": "demo", "name": pod}});
        if let Some(ready) = ready {
            e["conditions"] = json!({"ready": ready});
        }
        e
    };
    let slice = |name: &str, endpoints: serde_json::Value| json!({"metadata": {"name": name, "namespace": "demo", "uid": format!("u-{name}")}, "endpoints": endpoints});
    let pod = |name: &str, phase: &str| json!({"metadata": {"name": name, "namespace": "demo", "uid": format!("u-{name}")}, "status": {"phase": phase}});
    let list = |kind: &str, api_version: &str, items: Vec<serde_json::Value>| {
        items_of(&value(json!({"apiVersion": api_version, "kind": format!("{kind}List"), "items": items})), kind)
    };
    let lists = [
        list(
            "EndpointSlice",
            "discovery.k8s.io/v1",
            vec![
                slice("web-zz", json!([endpoint("web-c", Some(false))])),
                slice("web-aa", json!([endpoint("web-b", None), endpoint("web-a", Some(true))])),
                slice("web-empty", json!(null)),
            ],
        ),
        list(
            "Pod",
            "v1",
            vec![pod("web-a", "Running"), pod("web-b", "Running"), pod("web-c", "Running"), pod("web-d", "Pending")],
        ),
    ];
    let mut out = Vec::new();
    tree_lines(&tree(Shape::Endpoints, "u-svc", &lists), 0, &mut out);
    assert_eq!(
        out,
        [
            "EndpointSlice web-aa Ready { ready: 2, desired: 2 }",
            "  Pod web-a Word(\"Running\")",
            "  Pod web-b Word(\"Running\")",
            "EndpointSlice web-empty Ready { ready: 0, desired: 0 }",
            "EndpointSlice web-zz Ready { ready: 0, desired: 1 }",
            "  Pod web-c Word(\"Running\")",
            "Pod web-d Word(\"Pending\")",
        ]
    );
    // Without a selector its slices are someone else's and no pods are selected: the slices only.
    let bare = value(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "ext", "namespace": "demo", "uid": "u-ext"}, "spec": {"selector": {}}}));
    assert_eq!(
        plan_lines(&bare),
        ["EndpointSlice /apis/discovery.k8s.io/v1/namespaces/demo/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dext"]
    );
    // A kind named Service in another group is not a core Service.
    let other = value(json!({"apiVersion": "serving.knative.dev/v1", "kind": "Service",
        "metadata": {"name": "k", "namespace": "demo", "uid": "u-k"}}));
    assert_eq!(plan_lines(&other), Vec::<String>::new());
}
