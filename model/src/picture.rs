//! The picture of a namespace (#36 item 2): its workloads down to their pods (Deployments →
//! ReplicaSets → pods, StatefulSets and DaemonSets → pods, ReplicaSets of their own → pods) and
//! its Services down to the pods they serve (Service → EndpointSlices → pods, then the pods a
//! Service selects that no slice names), each node an object with its status word.
//!
//! One list per type in the namespace, whatever its size: the pods as a server-side `Table`
//! ([`crate::relations::read_list`]), the other types as JSON (a workload's status words need its
//! status). A type the server does not serve,
//! or does not list, is left out of the picture.
//!
//! ReplicaSets a Deployment scaled to nothing and that have no pods left (its old revisions)
//! are left out, as `kubectl get rs` users filter them by eye.

use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::Value;
use kube_wire::discovery::Discovery;
use kube_wire::params::{ListOptions, ListParams};
use kube_wire::request::{Collection, Request};

use crate::relations::list_representation;
use crate::relations::{
    endpoints_tree, node_with, service_selector, uncontrolled, Node, RelationsError, Status, SERVICE_NAME,
};
use crate::view_state::{Fallback, Reading};

/// The types a picture lists: (kind, group, resource), in the order of the plan's lists.
const TYPES: [(&str, &str, &str); 7] = [
    ("Deployment", "apps", "deployments"),
    ("ReplicaSet", "apps", "replicasets"),
    ("StatefulSet", "apps", "statefulsets"),
    ("DaemonSet", "apps", "daemonsets"),
    ("Service", "", "services"),
    ("EndpointSlice", "discovery.k8s.io", "endpointslices"),
    ("Pod", "", "pods"),
];

/// One list of a picture.
#[derive(Debug, Clone, PartialEq)]
pub struct PictureList {
    pub kind: &'static str,
    pub request: Request,
}

/// The lists of the picture of `namespace`: one per type discovery serves with `list`.
pub fn plan(discovery: &Discovery, namespace: &str) -> Result<Vec<PictureList>, RelationsError> {
    let mut lists = Vec::new();
    for (kind, group, resource) in TYPES {
        let Some(resource_type) = discovery.find_resource(group, "v1", resource).filter(|r| r.supports("list")) else {
            continue;
        };
        let collection =
            Collection::new(resource_type, resource_type.scoped(Some(namespace))).map_err(RelationsError::Request)?;
        let params =
            ListParams::new(ListOptions::default()).map_err(|e| RelationsError::BadSelector(format!("{kind}: {e}")))?;
        let accept = list_representation(kind).accept(Reading::List, Fallback::Json);
        lists.push(PictureList { kind, request: RequestBuilder::list(&collection, &params, &accept).build() });
    }
    Ok(lists)
}

/// What a picture shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Picture {
    /// Deployments, StatefulSets, DaemonSets and ReplicaSets of their own, with what they run.
    pub workloads: Vec<Node>,
    /// Services with their EndpointSlices and pods.
    pub services: Vec<Node>,
}

fn name_of(object: &Value) -> &str {
    object.at(&["metadata", "name"]).and_then(Value::as_str).unwrap_or_default()
}

/// Whether a Service's selector (a map) selects `object` by its labels.
fn selects(selector: &Value, object: &Value) -> bool {
    let Some(selector) = selector.as_object() else { return false };
    let labels = object.at(&["metadata", "labels"]);
    selector.iter().all(|(key, value)| labels.and_then(|l| l.get(key)) == Some(value))
}

/// The picture from what the plan's lists held, `(kind, objects)` in any order.
pub fn picture(read: &[(&str, Vec<Value>)]) -> Picture {
    let of = |kind: &str| read.iter().find(|(k, _)| *k == kind).map_or(&[][..], |(_, items)| items.as_slice());
    let (replica_sets, pods) = (of("ReplicaSet"), of("Pod"));
    let mut workloads: Vec<Node> = Vec::new();
    for deployment in of("Deployment") {
        if let Some(mut node) = node_with(deployment, &[replica_sets, pods]) {
            node.children.retain(|rs| {
                !rs.children.is_empty() || matches!(rs.status, Status::Ready { desired, .. } if desired > 0)
            });
            workloads.push(node);
        }
    }
    for set in of("StatefulSet").iter().chain(of("DaemonSet")) {
        workloads.extend(node_with(set, &[pods]));
    }
    for replica_set in replica_sets.iter().filter(|rs| uncontrolled(rs)) {
        workloads.extend(node_with(replica_set, &[pods]));
    }
    workloads.sort_by(|a, b| {
        (a.object.kind.as_str(), a.object.name.as_str()).cmp(&(b.object.kind.as_str(), b.object.name.as_str()))
    });
    let slices = of("EndpointSlice");
    let mut services: Vec<Node> = of("Service")
        .iter()
        .filter_map(|service| {
            let name = name_of(service);
            let own: Vec<Value> = slices
                .iter()
                .filter(|s| s.at(&["metadata", "labels", SERVICE_NAME]).and_then(Value::as_str) == Some(name))
                .cloned()
                .collect();
            let selected: Vec<Value> = match service_selector(service) {
                Some(selector) => pods.iter().filter(|p| selects(selector, p)).cloned().collect(),
                None => Vec::new(),
            };
            let mut node = node_with(service, &[])?;
            node.children = endpoints_tree(&own, &selected);
            Some(node)
        })
        .collect();
    services.sort_by(|a, b| a.object.name.cmp(&b.object.name));
    Picture { workloads, services }
}

#[cfg(test)]
#[path = "picture_tests.rs"]
mod tests;
