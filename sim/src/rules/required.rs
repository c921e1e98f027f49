//! The built-in kinds' own validation that a schema cannot say, worded as kube-apiserver's
//! (k8s.io/kubernetes pkg/apis/core/validation/validation.go and pkg/apis/apps/validation):
//! a pod spec's containers (`validateContainers`: a name that is a unique RFC 1123 label, an
//! image), a workload's selector matching its template's labels, a Service's ports
//! (`ValidateService`), a ConfigMap's keys (`ValidateConfigMap`). The causes are the real
//! ones: `spec.containers[0].name: Required value`, and so on; the caller answers 422 Invalid.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::rules::status::FieldError;
use crate::store::registry::ResourceType;

const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const CONFIG_KEY: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/// The errors of `obj`, an `rt` object, beyond its schema's.
pub fn errors(rt: &ResourceType, obj: &Value) -> Vec<FieldError> {
    let mut out = Vec::new();
    // A spec that is not an object is the decoder's matter (kube-sim keeps such shapes readable).
    if obj.get("spec").is_some_and(|s| !s.is_object()) {
        return out;
    }
    match (rt.group.as_str(), rt.kind.as_str()) {
        ("", "Pod") => pod_spec(&obj["spec"], "spec", &mut out),
        ("", "PodTemplate") => pod_spec(&obj["template"]["spec"], "template.spec", &mut out),
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") => {
            workload(obj, &rt.kind.to_lowercase(), &mut out);
            pod_spec(&obj["spec"]["template"]["spec"], "spec.template.spec", &mut out);
            let restart = obj["spec"]["template"]["spec"]["restartPolicy"].as_str().unwrap_or("Always");
            if restart != "Always" {
                out.push(FieldError::not_supported("spec.template.spec.restartPolicy", restart, &["Always"]));
            }
        }
        ("batch", "Job") => pod_spec(&obj["spec"]["template"]["spec"], "spec.template.spec", &mut out),
        ("", "Service") => service(&obj["spec"], &mut out),
        ("", "ConfigMap" | "Secret") => config_keys(obj, &mut out),
        _ => {}
    }
    out
}

/// `validateContainers` for `containers` (required, at least one) and `initContainers`.
fn pod_spec(spec: &Value, at: &str, out: &mut Vec<FieldError>) {
    if !spec.is_object() {
        return;
    }
    let mut names = BTreeSet::new();
    for list in ["initContainers", "containers"] {
        let items = spec[list].as_array().map(Vec::as_slice).unwrap_or_default();
        if list == "containers" && items.is_empty() {
            out.push(FieldError::required(&format!("{at}.containers"), ""));
        }
        for (i, c) in items.iter().enumerate() {
            let here = format!("{at}.{list}[{i}]");
            match c["name"].as_str().unwrap_or_default() {
                "" => out.push(FieldError::required(&format!("{here}.name"), "")),
                name if !is_dns1123_label(name) => {
                    out.push(FieldError::invalid(&format!("{here}.name"), &json!(name), DNS1123_LABEL))
                }
                name if !names.insert(name.to_string()) => out.push(FieldError {
                    reason: "FieldValueDuplicate",
                    field: format!("{here}.name"),
                    detail: format!("Duplicate value: \"{name}\""),
                }),
                _ => {}
            }
            if c["image"].as_str().unwrap_or_default().is_empty() {
                out.push(FieldError::required(&format!("{here}.image"), ""));
            }
        }
    }
}

/// `ValidateDeploymentSpec` and its siblings: a selector, matching the template's labels.
fn workload(obj: &Value, kind: &str, out: &mut Vec<FieldError>) {
    let selector = &obj["spec"]["selector"];
    if selector.is_null() {
        out.push(FieldError::required("spec.selector", ""));
        return;
    }
    let labels = &obj["spec"]["template"]["metadata"]["labels"];
    let templated = json!({"metadata": {"labels": labels.clone()}});
    let empty = selector["matchLabels"].as_object().is_none_or(|m| m.is_empty())
        && selector["matchExpressions"].as_array().is_none_or(Vec::is_empty);
    if empty {
        out.push(FieldError::invalid("spec.selector", selector, format!("empty selector is invalid for {kind}")));
    } else if !crate::rules::selector::object_selector_matches(selector, &templated) {
        out.push(FieldError {
            reason: "FieldValueInvalid",
            field: "spec.template.metadata.labels".into(),
            detail: format!("Invalid value: {}: `selector` does not match template `labels`", go_map(labels)),
        });
    }
}

/// Go's `%v` of a `map[string]string`, as the real message quotes the labels
/// (`map[string]string{"app":"x"}`).
fn go_map(labels: &Value) -> String {
    let pairs: Vec<String> = labels
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k:?}:{:?}", v.as_str().unwrap_or_default()))
        .collect();
    format!("map[string]string{{{}}}", pairs.join(", "))
}

/// `ValidateService`'s port rules: ports required unless ExternalName or headless, each port
/// in 1..=65535, names required (and unique) when there is more than one.
fn service(spec: &Value, out: &mut Vec<FieldError>) {
    let ty = spec["type"].as_str().unwrap_or("ClusterIP");
    let headless = spec["clusterIP"] == "None";
    let ports = spec["ports"].as_array().map(Vec::as_slice).unwrap_or_default();
    if ports.is_empty() && ty != "ExternalName" && !headless {
        out.push(FieldError::required("spec.ports", ""));
    }
    let mut names = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let name = p["name"].as_str().unwrap_or_default();
        if ports.len() > 1 && name.is_empty() {
            out.push(FieldError::required(&format!("spec.ports[{i}].name"), ""));
        } else if !name.is_empty() && !names.insert(name) {
            out.push(FieldError {
                reason: "FieldValueDuplicate",
                field: format!("spec.ports[{i}].name"),
                detail: format!("Duplicate value: \"{name}\""),
            });
        }
        let number = p["port"].as_i64().unwrap_or(0);
        if !(1..=65535).contains(&number) {
            out.push(FieldError::invalid(
                &format!("spec.ports[{i}].port"),
                &json!(number),
                "must be between 1 and 65535, inclusive",
            ));
        }
    }
}

/// `ValidateConfigMap` / `ValidateSecret`: every key of `data` (and `binaryData`) a config key.
fn config_keys(obj: &Value, out: &mut Vec<FieldError>) {
    for part in ["data", "binaryData", "stringData"] {
        for key in obj[part].as_object().into_iter().flatten().map(|(k, _)| k) {
            let ok = !key.is_empty()
                && key.len() <= 253
                && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                && key != "."
                && key != ".."
                && !key.starts_with("..");
            if !ok {
                out.push(FieldError::invalid(&format!("{part}[{key}]"), &json!(key), CONFIG_KEY));
            }
        }
    }
}

fn is_dns1123_label(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    fn causes(group: &str, version: &str, plural: &str, obj: Value) -> Vec<String> {
        let registry = Registry::load().expect("registry loads");
        let rt = registry.find(group, version, plural).expect("type");
        errors(&rt, &obj).into_iter().map(|e| format!("{}: {}", e.field, e.detail)).collect()
    }

    #[test]
    fn a_pod_container_needs_a_unique_label_name_and_an_image() {
        let pod = json!({"spec": {"containers": [{"name1": "x", "image": "nginx"}, {"name": "a", "image": "nginx"},
            {"name": "a", "image": ""}, {"name": "Bad_Name", "image": "nginx"}]}});
        assert_eq!(
            causes("", "v1", "pods", pod),
            [
                "spec.containers[0].name: Required value",
                "spec.containers[2].name: Duplicate value: \"a\"",
                "spec.containers[2].image: Required value",
                format!("spec.containers[3].name: Invalid value: \"Bad_Name\": {DNS1123_LABEL}").as_str(),
            ]
        );
        assert_eq!(causes("", "v1", "pods", json!({"spec": {}})), ["spec.containers: Required value"]);
    }

    #[test]
    fn a_deployment_template_is_validated_under_its_path() {
        let dep = json!({"spec": {"selector": {"matchLabels": {"app": "x"}},
            "template": {"metadata": {"labels": {"app": "y"}}, "spec": {"containers": [{"image": "nginx"}]}}}});
        assert_eq!(
            causes("apps", "v1", "deployments", dep),
            [
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: `selector` does not match template `labels`",
                "spec.template.spec.containers[0].name: Required value",
            ]
        );
    }

    #[test]
    fn service_ports_and_config_keys() {
        let svc = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 80}, {"port": 0, "name": "b"}]}});
        assert_eq!(
            causes("", "v1", "services", svc),
            [
                "spec.ports[0].name: Required value",
                "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive"
            ]
        );
        assert_eq!(
            causes("", "v1", "services", json!({"spec": {"type": "ClusterIP"}})),
            ["spec.ports: Required value"]
        );
        let cm = json!({"data": {"ok.key": "1", "bad key": "2"}});
        assert_eq!(
            causes("", "v1", "configmaps", cm),
            [format!("data[bad key]: Invalid value: \"bad key\": {CONFIG_KEY}")]
        );
    }
}
