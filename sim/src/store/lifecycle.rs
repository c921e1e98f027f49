//! What a new object gets when it is stored (uid, timestamps, generation, the creator's
//! managedFields entry), names checked as the API server checks them, and a
//! CustomResourceDefinition prepared for serving: the store operations every writer shares (the
//! handlers, the controllers, the dataset).

use rand::Rng;
use serde_json::{json, Value};

use crate::rules::fields::{record_update, Writer};
use crate::rules::status::{invalid, ApiResult, FieldError};
use crate::store::object;
use crate::store::object::meta_mut;
use crate::store::registry::ResourceType;

pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

pub fn name_errors(name: &str) -> Vec<FieldError> {
    if valid_name(name) {
        return Vec::new();
    }
    vec![FieldError::invalid(
        "metadata.name",
        &json!(name),
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    )]
}

pub fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..5).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

/// The finalizer with which the apiextensions controller deletes a CRD's objects first.
pub const CRD_CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

pub fn is_crd(rt: &ResourceType) -> bool {
    rt.group == "apiextensions.k8s.io" && rt.plural == "customresourcedefinitions"
}

/// Checks a CustomResourceDefinition and fills the status the apiextensions controller sets.
pub fn prepare_crd(obj: &mut Value) -> ApiResult<()> {
    let name = object::name(obj).to_string();
    let spec = &obj["spec"];
    let group = spec["group"].as_str().unwrap_or_default().to_string();
    let plural = spec["names"]["plural"].as_str().unwrap_or_default().to_string();
    let mut errors = Vec::new();
    if name != format!("{plural}.{group}") {
        errors.push(FieldError::invalid("metadata.name", &json!(name), "must be spec.names.plural+\".\"+spec.group"));
    }
    if let Err(e) = crate::store::registry::check_crd(obj) {
        errors.push(FieldError::required("spec", e));
    }
    if !errors.is_empty() {
        return Err(invalid("apiextensions.k8s.io", "CustomResourceDefinition", &name, &errors));
    }
    let finalizers = meta_mut(obj).entry("finalizers").or_insert_with(|| json!([]));
    if let Some(list) = finalizers.as_array_mut() {
        if !list.iter().any(|f| f == CRD_CLEANUP) {
            list.push(json!(CRD_CLEANUP));
        }
    }
    let now = object::now_string();
    let stored: Vec<Value> = obj["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["storage"] == true)
        .map(|v| v["name"].clone())
        .collect();
    obj["status"] = json!({
        "acceptedNames": obj["spec"]["names"].clone(),
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": now},
            {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": now}
        ],
        "storedVersions": stored,
    });
    Ok(())
}

/// Fills the metadata a create sets: uid, creationTimestamp, generation and the creator's
/// managedFields entry.
pub fn stamp_new(rt: &ResourceType, obj: &mut Value, manager: &str) {
    let now = object::now_string();
    let api_version = rt.api_version();
    if let Some(m) = obj.as_object_mut() {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(rt.kind));
    }
    // Only types whose strategy tracks spec changes carry a generation (not namespaces, nodes
    // or services, for instance).
    let has_spec = rt.is_custom()
        || (obj.get("spec").is_some()
            && (matches!(rt.group.as_str(), "apps" | "batch" | "policy" | "autoscaling" | "networking.k8s.io")
                || rt.plural == "pods"));
    let meta = meta_mut(obj);
    meta.insert("uid".into(), json!(object::new_uid()));
    meta.insert("creationTimestamp".into(), json!(now));
    meta.remove("resourceVersion");
    meta.remove("managedFields");
    meta.remove("deletionTimestamp");
    meta.remove("deletionGracePeriodSeconds");
    if has_spec {
        meta.insert("generation".into(), json!(1));
    }
    crate::store::strategy::prepare_create(rt, obj);
    record_update(
        None,
        obj,
        &Writer { manager, operation: "Update", api_version: &api_version, subresource: None, time: &now },
    );
}

/// Whether the main resource ignores `status` (it has a status subresource).
pub fn has_status(rt: &ResourceType) -> bool {
    rt.subresource("status").is_some()
}

/// Carries what the server owns from the live object into a new version of it.
pub fn carry_over(rt: &ResourceType, old: &Value, new: &mut Value, subresource: Option<&str>) {
    let old_meta = object::meta(old).clone();
    let meta = meta_mut(new);
    for k in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "namespace",
        "name",
    ] {
        match old_meta.get(k) {
            Some(v) => meta.insert(k.into(), v.clone()),
            None => meta.remove(k),
        };
    }
    meta.remove("managedFields");
    if let Some(mf) = old_meta.get("managedFields") {
        meta.insert("managedFields".into(), mf.clone());
    }
    if subresource.is_none() && has_status(rt) {
        match old.get("status") {
            Some(s) => new["status"] = s.clone(),
            None => {
                if let Some(m) = new.as_object_mut() {
                    m.remove("status");
                }
            }
        }
    }
    if subresource == Some("status") {
        let status = new.get("status").cloned();
        let mut kept = old.clone();
        match status {
            Some(s) => kept["status"] = s,
            None => {
                if let Some(m) = kept.as_object_mut() {
                    m.remove("status");
                }
            }
        }
        *new = kept;
    }
    if subresource.is_none() {
        crate::store::strategy::prepare_update(rt, old, new);
    }
    let spec_changed = strip_for_generation(old) != strip_for_generation(new);
    if spec_changed {
        let next = old_meta.get("generation").and_then(Value::as_i64).unwrap_or(0) + 1;
        if old_meta.get("generation").is_some() {
            meta_mut(new).insert("generation".into(), json!(next));
        }
    }
}

pub fn strip_for_generation(o: &Value) -> Value {
    let mut c = o.clone();
    if let Some(m) = c.as_object_mut() {
        m.remove("metadata");
        m.remove("status");
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    #[test]
    fn names_follow_the_dns_subdomain_rules() {
        for good in ["web", "web-1", "a.b.c", "0abc"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "Web", "-web", "web-", "a..b", "a_b", &"x".repeat(254)] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert!(name_errors("web").is_empty());
        assert_eq!(name_errors("Web").len(), 1);
    }

    #[test]
    fn a_new_object_gets_a_uid_a_timestamp_and_a_generation_where_its_strategy_keeps_one() {
        let registry = Registry::load().expect("registry");
        let deployments = registry.find("apps", "v1", "deployments").expect("deployments");
        let namespaces = registry.find("", "v1", "namespaces").expect("namespaces");
        let mut deployment = json!({"metadata": {"name": "web", "resourceVersion": "9"}, "spec": {"replicas": 1}});
        stamp_new(&deployments, &mut deployment, "kubectl");
        assert_eq!(deployment["apiVersion"], "apps/v1");
        assert_eq!(deployment["kind"], "Deployment");
        assert_eq!(deployment["metadata"]["generation"], 1);
        assert!(deployment["metadata"]["uid"].as_str().is_some_and(|u| !u.is_empty()));
        assert!(deployment["metadata"].get("resourceVersion").is_none());
        assert_eq!(deployment["metadata"]["managedFields"][0]["manager"], "kubectl");
        let mut namespace = json!({"metadata": {"name": "demo"}, "spec": {}});
        stamp_new(&namespaces, &mut namespace, "kubectl");
        assert!(namespace["metadata"].get("generation").is_none());
    }
}
