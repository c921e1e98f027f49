//! The EndpointSlice controller, after `pkg/controller/endpointslice/endpointslice_controller.go`
//! (`syncService`) and `staging/src/k8s.io/endpointslice/reconciler.go`, `utils.go`
//! (`podToEndpoint`, `getEndpointPorts`, `newEndpointSlice`, `setEndpointSliceLabels`): a Service
//! with a selector gets the EndpointSlices that list the pods it selects.
//!
//! - A pod is an endpoint while it has an IP and is not terminal (`ShouldPodBeInEndpoints`);
//!   a pod being deleted stays, `terminating: true`, `ready: false` (unless the Service publishes
//!   not-ready addresses), `serving` as its Ready condition.
//! - Each endpoint: its IP, conditions, `hostname` when the pod's `spec.hostname` is set and its
//!   `subdomain` is the Service's name, `targetRef` (Pod, namespace, name, uid), `nodeName`, and
//!   `zone` from the node's `topology.kubernetes.io/zone` label.
//! - Ports: each Service port whose `targetPort` the pod resolves (a number as it is, a name
//!   through the pod's container ports of the same protocol, `podutil.FindPort`); endpoints with
//!   the same ports share slices of at most 100 endpoints.
//! - A slice: `generateName: SERVICE-`, the Service's labels with `kubernetes.io/service-name`
//!   and `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` (and
//!   `service.kubernetes.io/headless` for a headless one), controlled by the Service, address type
//!   IPv4 (IPv6 when the Service's first family is). No pods: one placeholder slice with no
//!   endpoints and no ports (both `null`, as the real JSON writes them).
//! - A Service without a selector is left alone (its slices are someone else's); a Service that
//!   is gone loses its slices (the garbage collector's work in a real cluster, done here at once).
//!
//! Simplified: slices are filled in name order and matched to the existing ones by their ports,
//! not packed by the real reconciler's cost rules; no `endpoints.kubernetes.io/last-change-trigger-time`
//! annotation; no Endpoints (v1) objects (kubectl 1.32's `describe service` reads slices).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::{self, controller_ref, is_ready, is_terminal, Actions, Outcome, PODS};
use crate::rules::selector::object_selector_matches;
use crate::store::{object, Txn};

pub const KEY: &str = "discovery.k8s.io/endpointslices";
pub const SERVICES: &str = "/services";
/// `discovery.LabelServiceName`.
pub const SERVICE_NAME: &str = "kubernetes.io/service-name";
/// `discovery.LabelManagedBy` and the controller's name.
const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
const CONTROLLER_NAME: &str = "endpointslice-controller.k8s.io";
/// `maxEndpointsPerSlice`'s default (`--max-endpoints-per-slice`).
pub const MAX_ENDPOINTS: usize = 100;

/// Brings the slices of one Service in line with its pods.
pub fn reconcile(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str) -> Outcome {
    let service = txn.get(SERVICES, ns, name);
    let slices: Vec<Value> = txn
        .state()
        .list(KEY, Some(ns))
        .into_iter()
        .filter(|s| is_managed_slice_of(s, name))
        .map(|s| s.as_ref().clone())
        .collect();
    let pods: Vec<Value> = match service.as_deref().and_then(selector) {
        Some(selector) => txn
            .state()
            .list(PODS, Some(ns))
            .into_iter()
            .filter(|p| object_selector_matches(&selector, p))
            .map(|p| p.as_ref().clone())
            .collect(),
        None => Vec::new(),
    };
    let state = txn.state();
    let zone_of = |node: &str| {
        state
            .get("/nodes", "", node)
            .and_then(|n| n["metadata"]["labels"]["topology.kubernetes.io/zone"].as_str().map(str::to_owned))
    };
    let actions = plan(service.as_deref(), &pods, &slices, &zone_of);
    control::apply(app, txn, actions);
    Outcome::default()
}

/// The Service's selector as a `LabelSelector`, or `None` when it has none (an empty map is
/// none: the API server stores it as absent).
pub fn selector(service: &Value) -> Option<Value> {
    let map = service["spec"]["selector"].as_object().filter(|m| !m.is_empty())?;
    Some(json!({"matchLabels": map}))
}

/// Whether `slice` is one this controller keeps for the Service named `service`.
pub fn is_managed_slice_of(slice: &Value, service: &str) -> bool {
    control::label(slice, SERVICE_NAME) == Some(service) && control::label(slice, MANAGED_BY) == Some(CONTROLLER_NAME)
}

/// The Service an endpoint-relevant change of `pod` concerns: whether the fields a slice is
/// made of differ between `prev` and `pod` (a pod only annotated, as the benchmarks' churn does,
/// concerns no Service).
pub fn endpoint_fields_changed(pod: &Value, prev: Option<&Value>) -> bool {
    let Some(prev) = prev else { return true };
    let fields = |p: &Value| {
        (
            p["metadata"]["labels"].clone(),
            p["metadata"]["deletionTimestamp"].is_null(),
            p["status"]["podIP"].clone(),
            p["status"]["phase"].clone(),
            is_ready(p),
            p["spec"]["nodeName"].clone(),
            (p["spec"]["hostname"].clone(), p["spec"]["subdomain"].clone()),
            p["spec"]["containers"].as_array().map(|cs| cs.iter().map(|c| c["ports"].clone()).collect::<Vec<_>>()),
        )
    };
    fields(pod) != fields(prev)
}

/// The zone of a node by its name.
pub type ZoneOf<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// What to create, update and delete so that `slices` (the ones this controller keeps for the
/// Service) list `pods` (those its selector matches); `service` is `None` once it is gone.
pub fn plan(service: Option<&Value>, pods: &[Value], slices: &[Value], zone_of: &ZoneOf<'_>) -> Actions {
    let mut actions = Actions::default();
    let Some(service) = service.filter(|s| !object::is_deleting(s)) else {
        for slice in slices {
            actions.delete(KEY, slice, None);
        }
        return actions;
    };
    if selector(service).is_none() {
        return actions;
    }
    let mut sorted: Vec<&Value> = pods.iter().filter(|p| in_endpoints(p)).collect();
    sorted.sort_by(|a, b| object::name(a).cmp(object::name(b)));
    // Endpoints grouped by their ports, in the order of the ports' JSON (stable across rounds).
    let mut groups: BTreeMap<String, (Value, Vec<Value>)> = BTreeMap::new();
    for pod in sorted {
        let ports = ports_of(service, pod);
        let group = groups.entry(ports.to_string()).or_insert_with(|| (ports, Vec::new()));
        group.1.push(endpoint(service, pod, zone_of));
    }
    let mut desired: Vec<(Value, Value)> = Vec::new();
    for (_, (ports, endpoints)) in groups {
        for chunk in endpoints.chunks(MAX_ENDPOINTS) {
            desired.push((ports.clone(), Value::Array(chunk.to_vec())));
        }
    }
    if desired.is_empty() {
        desired.push((Value::Null, Value::Null));
    }
    let address_type = address_type(service);
    let labels = slice_labels(service);
    let mut existing: Vec<&Value> = slices.iter().filter(|s| !object::is_deleting(s)).collect();
    existing.sort_by(|a, b| object::name(a).cmp(object::name(b)));
    let mut unused: Vec<Option<&Value>> = existing.into_iter().map(Some).collect();
    for (ports, endpoints) in desired {
        let same_ports =
            unused.iter().position(|s| s.is_some_and(|s| s["ports"] == ports && s["addressType"] == address_type));
        let reuse = same_ports.or_else(|| unused.iter().position(Option::is_some));
        match reuse.and_then(|i| unused[i].take()) {
            Some(slice) => {
                let mut next = slice.clone();
                next["addressType"] = json!(address_type);
                next["ports"] = ports;
                next["endpoints"] = endpoints;
                next["metadata"]["labels"] = labels.clone();
                next["metadata"]["ownerReferences"] = json!([controller_ref(service)]);
                if next != *slice {
                    actions.updates.push((KEY, next));
                }
            }
            None => {
                let slice = json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                    "metadata": {"generateName": format!("{}-", object::name(service)), "namespace": object::namespace(service),
                        "labels": labels, "ownerReferences": [controller_ref(service)]},
                    "addressType": address_type, "endpoints": endpoints, "ports": ports});
                actions.creates.push((KEY, slice));
            }
        }
    }
    for slice in unused.into_iter().flatten() {
        actions.delete(KEY, slice, None);
    }
    actions
}

/// `ShouldPodBeInEndpoints` with terminating pods included: an IP, not terminal.
fn in_endpoints(pod: &Value) -> bool {
    !is_terminal(pod) && pod["status"]["podIP"].as_str().is_some_and(|ip| !ip.is_empty())
}

fn address_type(service: &Value) -> &'static str {
    if service["spec"]["ipFamilies"][0] == "IPv6" {
        "IPv6"
    } else {
        "IPv4"
    }
}

/// `setEndpointSliceLabels`: the Service's own labels but the two the controller sets, the
/// headless mark, the Service's name and the controller's.
fn slice_labels(service: &Value) -> Value {
    let mut labels = serde_json::Map::new();
    for (key, value) in service["metadata"]["labels"].as_object().into_iter().flatten() {
        if key != SERVICE_NAME && key != MANAGED_BY {
            labels.insert(key.clone(), value.clone());
        }
    }
    if service["spec"]["clusterIP"] == "None" {
        labels.insert("service.kubernetes.io/headless".into(), json!(""));
    }
    labels.insert(SERVICE_NAME.into(), json!(object::name(service)));
    labels.insert(MANAGED_BY.into(), json!(CONTROLLER_NAME));
    Value::Object(labels)
}

/// `podToEndpoint`.
fn endpoint(service: &Value, pod: &Value, zone_of: &ZoneOf<'_>) -> Value {
    let serving = is_ready(pod);
    let terminating = object::is_deleting(pod);
    let publish = service["spec"]["publishNotReadyAddresses"] == true;
    let ready = publish || (serving && !terminating);
    let mut endpoint = json!({"addresses": [pod["status"]["podIP"]],
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
        "targetRef": {"kind": "Pod", "namespace": object::namespace(pod), "name": object::name(pod), "uid": object::uid(pod)}});
    let hostname = pod["spec"]["hostname"].as_str().filter(|h| !h.is_empty());
    if let Some(hostname) = hostname.filter(|_| pod["spec"]["subdomain"].as_str() == Some(object::name(service))) {
        endpoint["hostname"] = json!(hostname);
    }
    if let Some(node) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        endpoint["nodeName"] = json!(node);
        if let Some(zone) = zone_of(node) {
            endpoint["zone"] = json!(zone);
        }
    }
    endpoint
}

/// `getEndpointPorts`: the Service's ports the pod resolves, each with the number it resolves to.
fn ports_of(service: &Value, pod: &Value) -> Value {
    let mut ports = Vec::new();
    for port in service["spec"]["ports"].as_array().into_iter().flatten() {
        let protocol = port["protocol"].as_str().unwrap_or("TCP");
        let number = match &port["targetPort"] {
            Value::Number(n) => n.as_i64(),
            Value::String(name) => named_port(pod, name, protocol),
            _ => port["port"].as_i64(),
        };
        let Some(number) = number else { continue };
        let mut entry =
            json!({"name": port["name"].as_str().unwrap_or_default(), "port": number, "protocol": protocol});
        if let Some(app_protocol) = port["appProtocol"].as_str() {
            entry["appProtocol"] = json!(app_protocol);
        }
        ports.push(entry);
    }
    Value::Array(ports)
}

/// `podutil.FindPort` for a named port: the container port of that name and protocol.
fn named_port(pod: &Value, name: &str, protocol: &str) -> Option<i64> {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["ports"].as_array().into_iter().flatten())
        .find_map(|p| {
            (p["name"] == name && p["protocol"].as_str().unwrap_or("TCP") == protocol)
                .then(|| p["containerPort"].as_i64())
                .flatten()
        })
}

#[cfg(test)]
#[path = "endpointslices_tests.rs"]
mod tests;
