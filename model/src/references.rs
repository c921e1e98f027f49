//! What an object refers to by name (#36 item 2's reference relations), read from the object
//! alone, with no request: a pod's node and service account, the ConfigMaps and Secrets it
//! mounts, reads into its environment or pulls images with, and the claims of its volumes (an
//! ephemeral volume's claim is named `POD-VOLUME`, as the ephemeral volume controller names
//! it); the same from a workload's pod template; a claim's volume and storage class, a volume's
//! claim; an autoscaler's target; an Ingress's Services, TLS Secrets and class.
//!
//! Each object once, in the order kubectl describe shows such fields: the node, the service
//! account, then ConfigMaps, Secrets, claims, each sorted by name.

use std::collections::BTreeSet;

use kube_wire::codec::value::Value;

use crate::relations::Related;

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
}
