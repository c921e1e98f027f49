//! Transcripts of a namespace's picture: the lists asked, a Table read as pods, the picture drawn.

use kube_wire::discovery::Scope;
use kube_wire::testdata::{discovery_of, resource_type};
use serde_json::json;

use super::*;

fn value(json: serde_json::Value) -> Value {
    Value::from_serde_json(&json)
}

fn object(kind: &str, name: &str, uid: &str, owner: Option<&str>, extra: serde_json::Value) -> Value {
    let mut o = json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "demo", "uid": uid}});
    if let Some(owner) = owner {
        o["metadata"]["ownerReferences"] =
            json!([{"apiVersion": "apps/v1", "kind": "X", "name": "x", "uid": owner, "controller": true}]);
    }
    for (k, v) in extra.as_object().unwrap() {
        if k == "labels" {
            o["metadata"]["labels"] = v.clone();
        } else {
            o[k] = v.clone();
        }
    }
    value(o)
}

fn lines(nodes: &[Node], depth: usize, out: &mut Vec<String>) {
    for node in nodes {
        out.push(format!("{}{} {} {:?}", "  ".repeat(depth), node.object.kind, node.object.name, node.status));
        lines(&node.children, depth + 1, out);
    }
}

#[test]
fn one_list_per_served_type_the_pods_as_a_table() {
    let typed = |group: &str, plural: &str, kind: &str| {
        let mut resource = resource_type(group, "v1", plural, Scope::Namespaced);
        resource.kind = kind.into();
        resource.verbs = ["list", "watch"].iter().map(|v| v.to_string()).collect();
        resource
    };
    let discovery = discovery_of(vec![
        typed("apps", "deployments", "Deployment"),
        typed("", "services", "Service"),
        typed("", "pods", "Pod"),
    ]);
    let lists = plan(&discovery, "shop").unwrap();
    let shown: Vec<String> = lists.iter().map(|l| format!("{} {}", l.kind, l.request.path_and_query())).collect();
    assert_eq!(
        shown,
        [
            "Deployment /apis/apps/v1/namespaces/shop/deployments",
            "Service /api/v1/namespaces/shop/services",
            "Pod /api/v1/namespaces/shop/pods"
        ],
        "types not served here (ReplicaSets, slices…) are left out"
    );
    let accept = |l: &PictureList| {
        l.request.headers().iter().find(|(k, _)| k.eq_ignore_ascii_case("accept")).map(|(_, v)| v.clone())
    };
    assert!(accept(&lists[2]).is_some_and(|a| a.contains("as=Table")), "{:?}", accept(&lists[2]));
    assert!(accept(&lists[0]).is_some_and(|a| !a.contains("as=Table")));
}

#[test]
fn a_pods_table_reads_as_pods_with_kubectl_s_status_word() {
    let table = value(json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
    "columnDefinitions": [{"name": "Name"}, {"name": "Ready"}, {"name": "Status"}],
    "rows": [
        {"cells": ["web-1", "0/1", "CrashLoopBackOff"], "object": {"kind": "PartialObjectMetadata", "metadata": {"name": "web-1", "uid": "p1", "labels": {"app": "web"}}}},
        {"cells": ["lost", "0/1", "Pending"]}
    ]}));
    let pods = crate::relations::read_list("Pod", &table).unwrap();
    assert_eq!(pods.len(), 1, "a row without its object has no metadata to place it");
    assert_eq!(pods[0].at(&["status", "phase"]).and_then(Value::as_str), Some("CrashLoopBackOff"));
    assert_eq!(pods[0].at(&["metadata", "labels", "app"]).and_then(Value::as_str), Some("web"));
    assert_eq!(crate::relations::status(&pods[0]), Status::Word("CrashLoopBackOff".into()));
    // A server that could not make a Table answers a list: read as items.
    let list = value(
        json!({"kind": "PodList", "apiVersion": "v1", "items": [{"metadata": {"name": "a"}, "status": {"phase": "Running"}}]}),
    );
    assert_eq!(crate::relations::read_list("Pod", &list).unwrap().len(), 1);
    assert!(crate::relations::read_list("Pod", &value(json!({"kind": "Table"}))).is_err());
}

#[test]
fn workloads_lead_down_to_their_pods_and_services_to_the_pods_they_serve() {
    let web = json!({"app": "web"});
    let held = vec![
        (
            "Deployment",
            vec![object(
                "Deployment",
                "web",
                "d1",
                None,
                json!({"spec": {"replicas": 2}, "status": {"readyReplicas": 1}}),
            )],
        ),
        (
            "ReplicaSet",
            vec![
                object(
                    "ReplicaSet",
                    "web-new",
                    "r1",
                    Some("d1"),
                    json!({"spec": {"replicas": 2}, "status": {"readyReplicas": 1}}),
                ),
                object("ReplicaSet", "web-old", "r0", Some("d1"), json!({"spec": {"replicas": 0}})),
                object("ReplicaSet", "solo", "r9", None, json!({"spec": {"replicas": 1}})),
            ],
        ),
        (
            "StatefulSet",
            vec![object(
                "StatefulSet",
                "db",
                "s1",
                None,
                json!({"spec": {"replicas": 1}, "status": {"readyReplicas": 1}}),
            )],
        ),
        (
            "Pod",
            vec![
                object(
                    "Pod",
                    "web-new-a",
                    "p1",
                    Some("r1"),
                    json!({"labels": web.clone(), "status": {"phase": "Running"}}),
                ),
                object(
                    "Pod",
                    "web-new-b",
                    "p2",
                    Some("r1"),
                    json!({"labels": web.clone(), "status": {"phase": "Pending"}}),
                ),
                object("Pod", "db-0", "p3", Some("s1"), json!({"status": {"phase": "Running"}})),
                object("Pod", "solo-x", "p4", Some("r9"), json!({"status": {"phase": "Running"}})),
            ],
        ),
        (
            "Service",
            vec![
                object("Service", "web", "v1", None, json!({"spec": {"selector": {"app": "web"}}})),
                object("Service", "external", "v2", None, json!({"spec": {}})),
            ],
        ),
        (
            "EndpointSlice",
            vec![object(
                "EndpointSlice",
                "web-abcde",
                "e1",
                None,
                json!({"labels": {SERVICE_NAME: "web"},
                "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true}, "targetRef": {"kind": "Pod", "name": "web-new-a"}}]}),
            )],
        ),
    ];
    let picture = picture(&held);
    let mut out = Vec::new();
    lines(&picture.workloads, 0, &mut out);
    assert_eq!(
        out,
        [
            "Deployment web Ready { ready: 1, desired: 2 }",
            "  ReplicaSet web-new Ready { ready: 1, desired: 2 }",
            "    Pod web-new-a Word(\"Running\")",
            "    Pod web-new-b Word(\"Pending\")",
            "ReplicaSet solo Ready { ready: 0, desired: 1 }",
            "  Pod solo-x Word(\"Running\")",
            "StatefulSet db Ready { ready: 1, desired: 1 }",
            "  Pod db-0 Word(\"Running\")",
        ],
        "the Deployment's old, empty ReplicaSet is left out"
    );
    let mut out = Vec::new();
    lines(&picture.services, 0, &mut out);
    assert_eq!(
        out,
        [
            "Service external Unknown",
            "Service web Unknown",
            "  EndpointSlice web-abcde Ready { ready: 1, desired: 1 }",
            "    Pod web-new-a Word(\"Running\")",
            "  Pod web-new-b Word(\"Pending\")",
        ]
    );
    assert_eq!(super::picture(&[]), Picture::default());
}
