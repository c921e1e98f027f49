//! Unknown fields of built-in objects, found the way kube-apiserver finds them: by decoding the
//! object into its versioned type and collecting the fields the decoder has no place for. The
//! types are k8s-openapi's for Kubernetes 1.36 (generated from that release's OpenAPI), the
//! version kube-sim claims, so a field a 1.36 object carries (`status.hostIPs`, say) is never
//! reported as unknown, and every built-in kind listed here is checked, not only those whose
//! OpenAPI document kube-sim serves.
//!
//! A body that does not decode into its type (a number where the type has a string, say) gets
//! `None`: the caller falls back to walking the OpenAPI schema.

use std::collections::HashMap;

use k8s_openapi::api;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1 as apiregistration;
use k8s_openapi::Resource;
use serde::de::DeserializeOwned;
use serde_json::Value;

type Check = fn(&Value) -> Option<Vec<String>>;

/// The built-in kinds with a versioned type, by (group, version, kind).
pub struct Types {
    checks: HashMap<(&'static str, &'static str, &'static str), Check>,
}

fn entry<T: Resource + DeserializeOwned>() -> ((&'static str, &'static str, &'static str), Check) {
    ((T::GROUP, T::VERSION, T::KIND), unknown_fields_of::<T>)
}

impl Types {
    pub fn new() -> Types {
        let checks = HashMap::from([
            entry::<api::core::v1::Binding>(),
            entry::<api::core::v1::ConfigMap>(),
            entry::<api::core::v1::Endpoints>(),
            entry::<api::core::v1::Event>(),
            entry::<api::core::v1::LimitRange>(),
            entry::<api::core::v1::Namespace>(),
            entry::<api::core::v1::Node>(),
            entry::<api::core::v1::PersistentVolume>(),
            entry::<api::core::v1::PersistentVolumeClaim>(),
            entry::<api::core::v1::Pod>(),
            entry::<api::core::v1::PodTemplate>(),
            entry::<api::core::v1::ReplicationController>(),
            entry::<api::core::v1::ResourceQuota>(),
            entry::<api::core::v1::Secret>(),
            entry::<api::core::v1::Service>(),
            entry::<api::core::v1::ServiceAccount>(),
            entry::<api::apps::v1::ControllerRevision>(),
            entry::<api::apps::v1::DaemonSet>(),
            entry::<api::apps::v1::Deployment>(),
            entry::<api::apps::v1::ReplicaSet>(),
            entry::<api::apps::v1::StatefulSet>(),
            entry::<api::autoscaling::v1::HorizontalPodAutoscaler>(),
            entry::<api::autoscaling::v2::HorizontalPodAutoscaler>(),
            entry::<api::batch::v1::CronJob>(),
            entry::<api::batch::v1::Job>(),
            entry::<api::certificates::v1::CertificateSigningRequest>(),
            entry::<api::coordination::v1::Lease>(),
            entry::<api::discovery::v1::EndpointSlice>(),
            entry::<api::events::v1::Event>(),
            entry::<api::networking::v1::Ingress>(),
            entry::<api::networking::v1::IngressClass>(),
            entry::<api::networking::v1::NetworkPolicy>(),
            entry::<api::node::v1::RuntimeClass>(),
            entry::<api::policy::v1::PodDisruptionBudget>(),
            entry::<api::rbac::v1::ClusterRole>(),
            entry::<api::rbac::v1::ClusterRoleBinding>(),
            entry::<api::rbac::v1::Role>(),
            entry::<api::rbac::v1::RoleBinding>(),
            entry::<api::scheduling::v1::PriorityClass>(),
            entry::<api::storage::v1::CSIDriver>(),
            entry::<api::storage::v1::CSINode>(),
            entry::<api::storage::v1::CSIStorageCapacity>(),
            entry::<api::storage::v1::StorageClass>(),
            entry::<api::storage::v1::VolumeAttachment>(),
            entry::<api::admissionregistration::v1::MutatingWebhookConfiguration>(),
            entry::<api::admissionregistration::v1::ValidatingWebhookConfiguration>(),
            entry::<api::admissionregistration::v1::ValidatingAdmissionPolicy>(),
            entry::<api::admissionregistration::v1::ValidatingAdmissionPolicyBinding>(),
            entry::<api::flowcontrol::v1::FlowSchema>(),
            entry::<api::flowcontrol::v1::PriorityLevelConfiguration>(),
            entry::<apiextensions::CustomResourceDefinition>(),
            entry::<apiregistration::APIService>(),
        ]);
        Types { checks }
    }

    /// The unknown fields of `obj` as `spec.foo` / `spec.containers[0].bar`, or `None` when the
    /// kind has no type here or the object does not decode into it.
    pub fn unknown_fields(&self, group: &str, version: &str, kind: &str, obj: &Value) -> Option<Vec<String>> {
        self.checks.get(&(group, version, kind)).and_then(|check| check(obj))
    }
}

fn unknown_fields_of<T: DeserializeOwned>(obj: &Value) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let decoded: Result<T, _> = serde_ignored::deserialize(obj, |path| out.push(field_path(&path)));
    decoded.ok().map(|_| out)
}

/// `spec.containers[0].bogus`, as kube-apiserver's strict decoder names a field.
fn field_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Map { parent, key } => {
            let p = field_path(parent);
            if p.is_empty() {
                key.clone()
            } else {
                format!("{p}.{key}")
            }
        }
        Path::Seq { parent, index } => format!("{}[{index}]", field_path(parent)),
        Path::Some { parent } | Path::NewtypeStruct { parent } | Path::NewtypeVariant { parent } => field_path(parent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(kind: (&str, &str, &str), obj: Value, expect: Option<&[&str]>) {
        let types = Types::new();
        let got = types.unknown_fields(kind.0, kind.1, kind.2, &obj);
        assert_eq!(got.as_deref(), expect.map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>()).as_deref());
    }

    #[test]
    fn fields_of_kubernetes_1_36_are_known_and_others_are_named_by_their_path() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "y"}},
            "spec": {"containers": [{"name": "c", "image": "i", "bogus": 1}], "foo": true},
            "status": {"hostIP": "172.18.0.2", "hostIPs": [{"ip": "172.18.0.2"}], "podIPs": [{"ip": "10.244.1.5"}]}});
        check(("", "v1", "Pod"), pod, Some(&["spec.containers[0].bogus", "spec.foo"]));
        let dep = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "bogus": 1},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {"containers": []}}},
            "status": {"terminatingReplicas": 0, "conditions": [{"type": "Available", "status": "True", "extra": 1}]}});
        check(("apps", "v1", "Deployment"), dep, Some(&["metadata.bogus", "status.conditions[0].extra"]));
        check(
            ("rbac.authorization.k8s.io", "v1", "Role"),
            json!({"rules": [{"verbs": ["get"], "verb": "x"}]}),
            Some(&["rules[0].verb"]),
        );
    }

    #[test]
    fn a_body_that_does_not_decode_or_an_unknown_kind_has_no_answer() {
        check(("", "v1", "Pod"), json!({"spec": {"containers": "not a list"}}), None);
        check(("example.com", "v1", "Widget"), json!({"spec": {}}), None);
    }
}
