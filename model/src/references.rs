//! What an object refers to by name (#36 item 2's reference relations), read from the object
//! alone, with no request: a pod's node and service account, the ConfigMaps and Secrets it
//! mounts, reads into its environment or pulls images with, and the claims of its volumes (an
//! ephemeral volume's claim is named `POD-VOLUME`, as the ephemeral volume controller names
//! it); the same from a workload's pod template; a claim's volume and storage class, a volume's
//! claim; an autoscaler's target; an Ingress's Services, TLS Secrets and class.
//!
//! Each object once, in the order kubectl describe shows such fields: the node, the service
//! account, then ConfigMaps, Secrets, claims, each sorted by name.
//!
//! How each is ([`status_lists`], [`statuses`]): one list per type and namespace, by
//! `metadata.name` when it is one object, metadata only where the object's status says nothing
//! (a ConfigMap, a Secret: found or not), so a pod that names ten Secrets costs one request; an
//! object a list does not hold is [`Status::Missing`], the classic reason a pod does not start.

use std::collections::{BTreeMap, BTreeSet};

use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::Value;
use kube_wire::discovery::Discovery;
use kube_wire::params::{ListOptions, ListParams};
use kube_wire::request::{Collection, Request};

use crate::relations::{status, Related, Status};
use crate::view_state::{Fallback, Reading, Representation};

fn text<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    value.at(path).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn items<'a>(value: &'a Value, path: &[&str]) -> impl Iterator<Item = &'a Value> {
    value.at(path).and_then(Value::as_array).unwrap_or_default().iter()
}

fn related(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> Related {
    Related {
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
        namespace: namespace.map(str::to_owned),
        name: name.to_owned(),
    }
}

/// The objects `document` refers to by name.
pub fn references(document: &Value) -> Vec<Related> {
    let namespace = text(document, &["metadata", "namespace"]);
    let api_version = text(document, &["apiVersion"]).unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    let kind = text(document, &["kind"]).unwrap_or_default();
    let name = text(document, &["metadata", "name"]).unwrap_or_default();
    let Some(spec) = document.get("spec") else { return Vec::new() };
    match (group, kind) {
        ("", "Pod") => pod_spec(spec, namespace, Some(name), true),
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
        | ("batch", "Job")
        | ("", "ReplicationController") => {
            spec.at(&["template", "spec"]).map_or_else(Vec::new, |pod| pod_spec(pod, namespace, None, false))
        }
        ("batch", "CronJob") => spec
            .at(&["jobTemplate", "spec", "template", "spec"])
            .map_or_else(Vec::new, |pod| pod_spec(pod, namespace, None, false)),
        ("", "PersistentVolumeClaim") => [
            text(spec, &["volumeName"]).map(|v| related("v1", "PersistentVolume", None, v)),
            text(spec, &["storageClassName"]).map(|c| related("storage.k8s.io/v1", "StorageClass", None, c)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        ("", "PersistentVolume") => {
            let claim = text(spec, &["claimRef", "name"])
                .map(|claim| related("v1", "PersistentVolumeClaim", text(spec, &["claimRef", "namespace"]), claim));
            let class =
                text(spec, &["storageClassName"]).map(|c| related("storage.k8s.io/v1", "StorageClass", None, c));
            [claim, class].into_iter().flatten().collect()
        }
        ("autoscaling", "HorizontalPodAutoscaler") => {
            let target = |key: &str| text(spec, &["scaleTargetRef", key]);
            match (target("apiVersion"), target("kind"), target("name")) {
                (Some(version), Some(kind), Some(name)) => vec![related(version, kind, namespace, name)],
                _ => Vec::new(),
            }
        }
        ("networking.k8s.io", "Ingress") => ingress(spec, namespace),
        _ => Vec::new(),
    }
}

/// What a pod spec refers to. `pod`: the pod's name, which names its ephemeral volumes' claims
/// (a template's pods have no name yet); `node`: whether the node counts (a template has none).
fn pod_spec(spec: &Value, namespace: Option<&str>, pod: Option<&str>, node: bool) -> Vec<Related> {
    let mut out = Vec::new();
    if node {
        if let Some(node) = text(spec, &["nodeName"]) {
            out.push(related("v1", "Node", None, node));
        }
    }
    if let Some(account) = text(spec, &["serviceAccountName"]).or_else(|| text(spec, &["serviceAccount"])) {
        out.push(related("v1", "ServiceAccount", namespace, account));
    }
    let (mut config_maps, mut secrets, mut claims) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for volume in items(spec, &["volumes"]) {
        config_maps.extend(text(volume, &["configMap", "name"]));
        secrets.extend(text(volume, &["secret", "secretName"]));
        claims.extend(text(volume, &["persistentVolumeClaim", "claimName"]).map(str::to_owned));
        if let (Some(pod), Some(volume_name), Some(_)) = (pod, text(volume, &["name"]), volume.get("ephemeral")) {
            claims.insert(format!("{pod}-{volume_name}"));
        }
        for source in items(volume, &["projected", "sources"]) {
            config_maps.extend(text(source, &["configMap", "name"]));
            secrets.extend(text(source, &["secret", "name"]));
        }
    }
    let containers =
        ["initContainers", "containers", "ephemeralContainers"].into_iter().flat_map(|key| items(spec, &[key]));
    for container in containers {
        for env in items(container, &["env"]) {
            config_maps.extend(text(env, &["valueFrom", "configMapKeyRef", "name"]));
            secrets.extend(text(env, &["valueFrom", "secretKeyRef", "name"]));
        }
        for from in items(container, &["envFrom"]) {
            config_maps.extend(text(from, &["configMapRef", "name"]));
            secrets.extend(text(from, &["secretRef", "name"]));
        }
    }
    secrets.extend(items(spec, &["imagePullSecrets"]).filter_map(|s| text(s, &["name"])));
    out.extend(config_maps.into_iter().map(|n| related("v1", "ConfigMap", namespace, n)));
    out.extend(secrets.into_iter().map(|n| related("v1", "Secret", namespace, n)));
    out.extend(claims.iter().map(|n| related("v1", "PersistentVolumeClaim", namespace, n)));
    out
}

/// An Ingress's backends' Services, its TLS Secrets and its class.
fn ingress(spec: &Value, namespace: Option<&str>) -> Vec<Related> {
    let mut services = BTreeSet::new();
    services.extend(text(spec, &["defaultBackend", "service", "name"]));
    for rule in items(spec, &["rules"]) {
        for path in items(rule, &["http", "paths"]) {
            services.extend(text(path, &["backend", "service", "name"]));
        }
    }
    let secrets: BTreeSet<&str> = items(spec, &["tls"]).filter_map(|t| text(t, &["secretName"])).collect();
    let mut out: Vec<Related> = services.into_iter().map(|s| related("v1", "Service", namespace, s)).collect();
    out.extend(secrets.into_iter().map(|s| related("v1", "Secret", namespace, s)));
    out.extend(text(spec, &["ingressClassName"]).map(|c| related("networking.k8s.io/v1", "IngressClass", None, c)));
    out
}

/// One list that says how some of the referenced objects are: those of one type in one namespace.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusList {
    /// The positions, in the references, of the objects this list answers for.
    pub of: Vec<usize>,
    /// The kind of its items.
    pub kind: String,
    pub request: Request,
}

/// Kinds whose status a link shows (read whole); the others are only found or not (read as
/// metadata).
fn has_status_word(kind: &str) -> bool {
    matches!(
        kind,
        "Node"
            | "PersistentVolumeClaim"
            | "PersistentVolume"
            | "Pod"
            | "Job"
            | "Deployment"
            | "ReplicaSet"
            | "StatefulSet"
            | "DaemonSet"
            | "ReplicationController"
    )
}

/// The lists that tell how `uses` are: one per type and namespace among those discovery serves
/// with `list` (the others stay [`Status::Unknown`]).
pub fn status_lists(discovery: &Discovery, uses: &[Related]) -> Vec<StatusList> {
    let mut groups: BTreeMap<(&str, &str, Option<&str>), Vec<usize>> = BTreeMap::new();
    for (at, object) in uses.iter().enumerate() {
        groups
            .entry((object.api_version.as_str(), object.kind.as_str(), object.namespace.as_deref()))
            .or_default()
            .push(at);
    }
    let mut lists = Vec::new();
    for ((api_version, kind, namespace), of) in groups {
        let Some(resource) = discovery.find_kind(api_version, kind).filter(|r| r.supports("list")) else { continue };
        let Ok(collection) = Collection::new(resource, resource.scoped(namespace)) else { continue };
        let field_selector = match of.as_slice() {
            [one] => Some(format!("metadata.name={}", uses[*one].name)),
            _ => None,
        };
        let Ok(params) = ListParams::new(ListOptions { field_selector, ..ListOptions::default() }) else { continue };
        let representation = if has_status_word(kind) { Representation::Json } else { Representation::Metadata };
        let accept = representation.accept(Reading::List, Fallback::Json);
        lists.push(StatusList {
            of,
            kind: kind.to_owned(),
            request: RequestBuilder::list(&collection, &params, &accept).build(),
        });
    }
    lists
}

/// How each of `uses` is, from what each of `lists` held (`None`: that list could not be read,
/// its objects stay [`Status::Unknown`]): its status word, or [`Status::Missing`] when its list
/// does not hold it.
pub fn statuses(uses: &[Related], lists: &[StatusList], read: &[Option<Vec<Value>>]) -> Vec<Status> {
    let mut out = vec![Status::Unknown; uses.len()];
    for (list, items) in lists.iter().zip(read) {
        let Some(items) = items else { continue };
        for &at in &list.of {
            let Some(object) = uses.get(at) else { continue };
            let found = items.iter().find(|item| text(item, &["metadata", "name"]) == Some(object.name.as_str()));
            out[at] = found.map_or(Status::Missing, status);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refs(json: serde_json::Value) -> Vec<String> {
        references(&Value::from_serde_json(&json))
            .into_iter()
            .map(|r| format!("{} {} {}/{}", r.api_version, r.kind, r.namespace.unwrap_or_default(), r.name))
            .collect()
    }

    #[test]
    fn a_pod_refers_to_its_node_account_config_secrets_and_claims_each_once() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "demo"},
            "spec": {"nodeName": "node-2", "serviceAccountName": "web",
                "imagePullSecrets": [{"name": "registry"}],
                "volumes": [
                    {"name": "config", "configMap": {"name": "web-config"}},
                    {"name": "tls", "secret": {"secretName": "web-tls"}},
                    {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
                    {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
                    {"name": "all", "projected": {"sources": [{"configMap": {"name": "extra"}}, {"secret": {"name": "web-tls"}}, {"serviceAccountToken": {"path": "t"}}]}},
                    {"name": "tmp", "emptyDir": {}}],
                "initContainers": [{"name": "init", "envFrom": [{"secretRef": {"name": "db"}}]}],
                "containers": [{"name": "web",
                    "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "a"}}},
                            {"name": "B", "valueFrom": {"secretKeyRef": {"name": "db", "key": "b"}}},
                            {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                    "envFrom": [{"configMapRef": {"name": "env"}}]}]}});
        assert_eq!(
            refs(pod),
            [
                "v1 Node /node-2",
                "v1 ServiceAccount demo/web",
                "v1 ConfigMap demo/env",
                "v1 ConfigMap demo/extra",
                "v1 ConfigMap demo/web-config",
                "v1 Secret demo/db",
                "v1 Secret demo/registry",
                "v1 Secret demo/web-tls",
                "v1 PersistentVolumeClaim demo/web-1-scratch",
                "v1 PersistentVolumeClaim demo/web-data",
            ]
        );
    }

    #[test]
    fn a_workload_refers_to_what_its_pod_template_uses_without_a_node() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "demo"},
            "spec": {"template": {"spec": {"serviceAccountName": "web", "nodeName": "ignored",
                "volumes": [{"name": "c", "configMap": {"name": "web-config"}}, {"name": "e", "ephemeral": {}}]}}}});
        assert_eq!(refs(deployment), ["v1 ServiceAccount demo/web", "v1 ConfigMap demo/web-config"]);
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "report", "namespace": "shop"},
            "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "r", "envFrom": [{"secretRef": {"name": "db"}}]}]}}}}}});
        assert_eq!(refs(cron), ["v1 Secret shop/db"]);
    }

    #[test]
    fn claims_volumes_autoscalers_and_ingresses_name_what_they_use() {
        let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "shop"},
            "spec": {"volumeName": "pv-1", "storageClassName": "standard"}});
        assert_eq!(refs(claim), ["v1 PersistentVolume /pv-1", "storage.k8s.io/v1 StorageClass /standard"]);
        let volume = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
            "spec": {"claimRef": {"kind": "PersistentVolumeClaim", "namespace": "shop", "name": "data"}}});
        assert_eq!(refs(volume), ["v1 PersistentVolumeClaim shop/data"]);
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web", "namespace": "demo"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}});
        assert_eq!(refs(hpa), ["apps/v1 Deployment demo/web"]);
        let ingress = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "site", "namespace": "demo"},
            "spec": {"ingressClassName": "nginx", "defaultBackend": {"service": {"name": "web", "port": {"number": 80}}},
                "tls": [{"secretName": "web-tls"}],
                "rules": [{"http": {"paths": [{"path": "/api", "backend": {"service": {"name": "api"}}}, {"path": "/", "backend": {"service": {"name": "web"}}}]}}]}});
        assert_eq!(
            refs(ingress),
            [
                "v1 Service demo/api",
                "v1 Service demo/web",
                "v1 Secret demo/web-tls",
                "networking.k8s.io/v1 IngressClass /nginx"
            ]
        );
        let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "demo"}, "spec": {"selector": {"app": "web"}}});
        assert!(refs(service).is_empty(), "a Service selects; it names nothing");
        assert!(refs(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})).is_empty(), "no spec");
    }

    #[test]
    fn one_list_per_type_and_namespace_tells_how_each_is_and_what_is_missing() {
        use kube_wire::discovery::Scope;
        use kube_wire::testdata::{discovery_of, resource_type};
        let typed = |plural: &str, kind: &str, scope: Scope| {
            let mut resource = resource_type("", "v1", plural, scope);
            resource.kind = kind.into();
            resource.verbs = ["list", "get"].iter().map(|v| v.to_string()).collect();
            resource
        };
        let discovery = discovery_of(vec![
            typed("nodes", "Node", Scope::Cluster),
            typed("configmaps", "ConfigMap", Scope::Namespaced),
            typed("secrets", "Secret", Scope::Namespaced),
        ]);
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "demo"},
            "spec": {"nodeName": "node-2", "serviceAccountName": "web",
                "volumes": [{"name": "a", "configMap": {"name": "web-config"}}, {"name": "b", "configMap": {"name": "gone"}},
                            {"name": "t", "secret": {"secretName": "web-tls"}}]}});
        let uses = references(&Value::from_serde_json(&pod));
        let lists = status_lists(&discovery, &uses);
        let lines: Vec<String> =
            lists.iter().map(|l| format!("{:?} {} {}", l.of, l.kind, l.request.path_and_query())).collect();
        // The ServiceAccount's type is not served here: no list, its status stays unknown.
        assert_eq!(
            lines,
            [
                "[2, 3] ConfigMap /api/v1/namespaces/demo/configmaps",
                "[0] Node /api/v1/nodes?fieldSelector=metadata.name%3Dnode-2",
                "[4] Secret /api/v1/namespaces/demo/secrets?fieldSelector=metadata.name%3Dweb-tls",
            ]
        );
        let accept = |l: &StatusList| {
            l.request.headers().iter().find(|(k, _)| k.eq_ignore_ascii_case("accept")).map(|(_, v)| v.to_string())
        };
        assert!(
            accept(&lists[0]).is_some_and(|a| a.contains("as=PartialObjectMetadataList")),
            "a ConfigMap: found or not"
        );
        assert!(
            accept(&lists[1]).is_some_and(|a| !a.contains("as=PartialObjectMetadata")),
            "a node's conditions are read"
        );
        let item = |kind: &str, name: &str, extra: serde_json::Value| {
            let mut o = json!({"kind": kind, "metadata": {"name": name}});
            for (k, v) in extra.as_object().unwrap() {
                o[k] = v.clone();
            }
            Value::from_serde_json(&o)
        };
        let read = vec![
            Some(vec![item("ConfigMap", "web-config", json!({})), item("ConfigMap", "other", json!({}))]),
            Some(vec![item(
                "Node",
                "node-2",
                json!({"spec": {"unschedulable": true},
                "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
            )]),
            None,
        ];
        assert_eq!(
            statuses(&uses, &lists, &read),
            [
                Status::Word("Ready,SchedulingDisabled".into()),
                Status::Unknown,
                Status::Missing,
                Status::Unknown,
                Status::Unknown,
            ]
        );
    }
}
