//! An object's relations (#36 item 2): its owners up (from `ownerReferences`) and its dependents
//! down as a tree (a Deployment's ReplicaSets and their pods, a ReplicaSet's, StatefulSet's,
//! DaemonSet's or Job's pods, a CronJob's Jobs and their pods), and a Service's EndpointSlices
//! with the pods their endpoints name, then the pods its selector matches that no slice names
//! (those not ready to be endpoints: no IP yet, or finished).
//!
//! The plan is pure: [`plan`] turns the object into at most two list requests (one per
//! dependent kind, label-selected by the owner's `spec.selector` written as `kubectl` writes
//! selectors), and [`tree`] turns what those lists held into the tree, keeping only objects
//! whose controller reference names their parent's uid (a selector may overlap another
//! owner's objects); a Service's slices are those labelled `kubernetes.io/service-name` with its
//! name, as `kubectl describe service` finds them. No request per object: a Deployment with 3 ReplicaSets and 10 pods costs
//! 2 requests, as does one with 1,000 pods.

use crate::i18n::{Localized, Msg, Text};
use crate::view_state::{Fallback, Reading, Representation};
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::{Map, Value};
use kube_wire::discovery::{Discovery, ResourceType};
use kube_wire::params::{ListOptions, ListParams};
use kube_wire::request::{Collection, Request, RequestError};

/// How often an open screen reads its relations again, so that their status words stay true
/// (a list each, not a watch: an object's screen keeps its streams for the object and its Events).
pub const READ_AGAIN_MS: u64 = 10_000;

/// One related object, as a link names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

/// What an object looks like at a glance, read from the object (wire words, as `kubectl get`
/// prints them; nothing to translate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// A pod's `status.phase`, `Terminating` once deleted, or a Job's finished condition
    /// (`Complete`, `Failed`) or `Running`.
    Word(String),
    /// Ready replicas out of those wanted (`status.readyReplicas` / `spec.replicas`, a
    /// DaemonSet's `numberReady` / `desiredNumberScheduled`).
    Ready { ready: i64, desired: i64 },
    /// Nothing readable.
    Unknown,
    /// Named, but not on the server (a reference to an object its list did not hold).
    Missing,
}

/// One node of the dependents' tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub object: Related,
    pub status: Status,
    pub children: Vec<Node>,
}

/// Why an object's dependents cannot be looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationsError {
    /// The document has no `metadata.uid` (or no kind or name).
    NoUid,
    /// A `spec.selector` that is not a label selector (where, and what was found).
    BadSelector(String),
    /// The dependent kind is not served here (group/version/resource).
    NotServed(String),
    Request(RequestError),
}

impl Localized for RelationsError {
    fn text(&self) -> Text {
        match self {
            RelationsError::NoUid => Text::new(Msg::RelationsNoUid),
            RelationsError::BadSelector(what) => Text::new(Msg::RelationsBadSelector).with("what", what),
            RelationsError::NotServed(what) => Text::new(Msg::RelationsNotServed).with("what", what),
            RelationsError::Request(error) => error.text(),
        }
    }
}

/// How the lists of a plan make a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Each level is the objects controlled by a node of the level above (`ownerReferences`).
    Owned,
    /// A Service: its EndpointSlices, under each the pods its endpoints name, then the pods its
    /// selector matches that no slice names.
    Endpoints,
}

/// A dependent kind the plan lists: its type and the list request.
#[derive(Debug, Clone, PartialEq)]
pub struct DependentList {
    pub kind: &'static str,
    pub request: Request,
}

/// What to ask for one object's relations.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationsPlan {
    /// The object itself: the root of the tree.
    pub root: Related,
    pub uid: String,
    /// Its owners, the controller first (from `ownerReferences`, no request).
    pub owners: Vec<Related>,
    /// The lists of its dependents (none for a kind without dependents here).
    pub lists: Vec<DependentList>,
    /// How [`tree`] reads the lists.
    pub shape: Shape,
}

fn text<'a>(document: &'a Value, path: &[&str]) -> Option<&'a str> {
    document.at(path).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn related(document: &Value) -> Option<Related> {
    Some(Related {
        api_version: text(document, &["apiVersion"])?.into(),
        kind: text(document, &["kind"])?.into(),
        namespace: text(document, &["metadata", "namespace"]).map(str::to_owned),
        name: text(document, &["metadata", "name"])?.into(),
    })
}

/// The owners named by `ownerReferences`, the controller first, in the object's namespace.
pub fn owners(document: &Value) -> Vec<Related> {
    let namespace = text(document, &["metadata", "namespace"]).map(str::to_owned);
    let references = document.at(&["metadata", "ownerReferences"]).and_then(Value::as_array);
    let mut owners: Vec<(bool, Related)> = references
        .into_iter()
        .flatten()
        .filter_map(|owner| {
            let field = |key: &str| owner.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
            let controller = owner.get("controller").and_then(Value::as_bool) == Some(true);
            let object = Related {
                api_version: field("apiVersion")?,
                kind: field("kind")?,
                namespace: namespace.clone(),
                name: field("name")?,
            };
            Some((controller, object))
        })
        .collect();
    owners.sort_by_key(|(controller, _)| !controller);
    owners.into_iter().map(|(_, object)| object).collect()
}

/// `selector` (a `LabelSelector`) as `kubectl` writes it: requirements sorted by key, `k=v`,
/// `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, values sorted. `Ok(None)` for a selector that
/// selects nothing (absent); an empty selector selects everything (`""`).
pub fn selector_text(selector: &Value, at: &str) -> Result<String, RelationsError> {
    let bad = |what: &str| RelationsError::BadSelector(format!("{at}: {what}"));
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector.get("matchLabels") {
        let labels = labels.as_object().ok_or_else(|| bad("matchLabels is not an object"))?;
        for (key, value) in labels.iter() {
            let value = value.as_str().ok_or_else(|| bad("a matchLabels value is not a string"))?;
            requirements.push((key.to_string(), format!("{key}={value}")));
        }
    }
    if let Some(expressions) = selector.get("matchExpressions") {
        let expressions = expressions.as_array().ok_or_else(|| bad("matchExpressions is not a list"))?;
        for expression in expressions {
            let key = expression.get("key").and_then(Value::as_str).ok_or_else(|| bad("an expression has no key"))?;
            let mut values: Vec<&str> = expression
                .get("values")
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            values.sort_unstable();
            let operator = expression.get("operator").and_then(Value::as_str).unwrap_or_default();
            let written = match operator {
                "In" if !values.is_empty() => format!("{key} in ({})", values.join(",")),
                "NotIn" if !values.is_empty() => format!("{key} notin ({})", values.join(",")),
                "Exists" => key.to_owned(),
                "DoesNotExist" => format!("!{key}"),
                other => return Err(bad(&format!("operator {other:?} with {} values", values.len()))),
            };
            requirements.push((key.to_owned(), written));
        }
    }
    requirements.sort();
    Ok(requirements.into_iter().map(|(_, written)| written).collect::<Vec<_>>().join(","))
}

/// (kind, group, resource) of each dependent kind an owner kind lists, outermost first.
fn dependents_of(kind: &str) -> &'static [(&'static str, &'static str, &'static str)] {
    const REPLICA_SETS: (&str, &str, &str) = ("ReplicaSet", "apps", "replicasets");
    const PODS: (&str, &str, &str) = ("Pod", "", "pods");
    const JOBS: (&str, &str, &str) = ("Job", "batch", "jobs");
    const ENDPOINT_SLICES: (&str, &str, &str) = ("EndpointSlice", "discovery.k8s.io", "endpointslices");
    match kind {
        "Service" => &[ENDPOINT_SLICES, PODS],
        "Deployment" => &[REPLICA_SETS, PODS],
        "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" | "ReplicationController" => &[PODS],
        "CronJob" => &[JOBS, PODS],
        _ => &[],
    }
}

/// The label selector of the lists: the owner's `spec.selector` (a ReplicationController's is a
/// plain map); a CronJob has none, so its Jobs are those of its job template's labels and its
/// pods those carrying `batch.kubernetes.io/job-name` (each then kept by its owner's uid).
fn list_selector(document: &Value, kind: &str, dependent: &str) -> Result<String, RelationsError> {
    match (kind, dependent) {
        ("CronJob", "Job") => match document.at(&["spec", "jobTemplate", "metadata", "labels"]) {
            Some(labels) => selector_text(&match_labels(labels), "spec.jobTemplate.metadata.labels"),
            None => Ok(String::new()),
        },
        ("CronJob", _) => Ok("batch.kubernetes.io/job-name".into()),
        ("Service", "EndpointSlice") => {
            let name = text(document, &["metadata", "name"]).unwrap_or_default();
            let mut labels = kube_wire::codec::value::Map::new();
            labels.insert(SERVICE_NAME, Value::String(name.into()));
            selector_text(&match_labels(&Value::Object(labels)), "metadata.name")
        }
        ("Service", _) => match service_selector(document) {
            Some(map) => selector_text(&match_labels(map), "spec.selector"),
            None => Err(RelationsError::BadSelector("spec.selector: missing".into())),
        },
        ("ReplicationController", _) => match document.at(&["spec", "selector"]) {
            Some(map) => selector_text(&match_labels(map), "spec.selector"),
            None => Err(RelationsError::BadSelector("spec.selector: missing".into())),
        },
        _ => match document.at(&["spec", "selector"]) {
            Some(selector) => selector_text(selector, "spec.selector"),
            None => Err(RelationsError::BadSelector("spec.selector: missing".into())),
        },
    }
}

/// `discovery.LabelServiceName`: the label that ties an EndpointSlice to its Service.
pub const SERVICE_NAME: &str = "kubernetes.io/service-name";

/// A core Service's selector, if it has one (an empty one is none: such a Service's endpoints
/// are someone else's, and no pods are selected).
pub(crate) fn service_selector(document: &Value) -> Option<&Value> {
    document.at(&["spec", "selector"]).filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
}

fn match_labels(labels: &Value) -> Value {
    let mut selector = kube_wire::codec::value::Map::new();
    selector.insert("matchLabels", labels.clone());
    Value::Object(selector)
}

fn served<'a>(discovery: &'a Discovery, group: &str, resource: &str) -> Option<&'a ResourceType> {
    let version = "v1";
    discovery.find_resource(group, version, resource).filter(|r| r.supports("list"))
}

/// The requests for `document`'s relations: one list per dependent kind, in its namespace, by
/// its selector, as JSON (the status words need the objects' status, which metadata-only lists
/// do not carry).
pub fn plan(discovery: &Discovery, document: &Value) -> Result<RelationsPlan, RelationsError> {
    let root = related(document).ok_or(RelationsError::NoUid)?;
    let uid = text(document, &["metadata", "uid"]).ok_or(RelationsError::NoUid)?.to_owned();
    let mut lists = Vec::new();
    let service = root.kind == "Service" && root.api_version == "v1";
    if root.kind == "Service" && !service {
        return Ok(RelationsPlan { root, uid, owners: owners(document), lists, shape: Shape::Owned });
    }
    for &(kind, group, resource) in dependents_of(&root.kind) {
        if service && kind == "Pod" && service_selector(document).is_none() {
            continue;
        }
        let resource_type = served(discovery, group, resource).ok_or_else(|| {
            RelationsError::NotServed(format!("{group}/v1/{resource}").trim_start_matches('/').into())
        })?;
        let collection = Collection::new(resource_type, resource_type.scoped(root.namespace.as_deref()))
            .map_err(RelationsError::Request)?;
        let selector = list_selector(document, &root.kind, kind)?;
        let options =
            ListOptions { label_selector: Some(selector).filter(|s| !s.is_empty()), ..ListOptions::default() };
        let params = ListParams::new(options).map_err(|e| RelationsError::BadSelector(format!("{kind}: {e}")))?;
        let accept = list_representation(kind).accept(Reading::List, Fallback::Json);
        lists.push(DependentList { kind, request: RequestBuilder::list(&collection, &params, &accept).build() });
    }
    let shape = if service { Shape::Endpoints } else { Shape::Owned };
    Ok(RelationsPlan { root, uid, owners: owners(document), lists, shape })
}

fn controller_uid(object: &Value) -> Option<&str> {
    let references = object.at(&["metadata", "ownerReferences"]).and_then(Value::as_array)?;
    references
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))
        .and_then(|o| o.get("uid").and_then(Value::as_str))
}

/// An object's status word, from the object.
pub fn status(object: &Value) -> Status {
    let number = |path: &[&str]| object.at(path).and_then(Value::as_i64);
    let kind = text(object, &["kind"]).unwrap_or_default();
    match kind {
        "Pod" if object.at(&["metadata", "deletionTimestamp"]).is_some() => Status::Word("Terminating".into()),
        "Pod" => text(object, &["status", "phase"]).map_or(Status::Unknown, |p| Status::Word(p.into())),
        "Job" => {
            let conditions = object.at(&["status", "conditions"]).and_then(Value::as_array);
            let finished = conditions.into_iter().flatten().find(|c| {
                matches!(c.get("type").and_then(Value::as_str), Some("Complete" | "Failed"))
                    && c.get("status").and_then(Value::as_str) == Some("True")
            });
            match finished.and_then(|c| c.get("type").and_then(Value::as_str)) {
                Some(word) => Status::Word(word.into()),
                None => Status::Word("Running".into()),
            }
        }
        // `kubectl get nodes`' STATUS: the Ready condition, and SchedulingDisabled when cordoned.
        "Node" => {
            let conditions = object.at(&["status", "conditions"]).and_then(Value::as_array);
            let ready = conditions
                .into_iter()
                .flatten()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
                .and_then(|c| c.get("status").and_then(Value::as_str));
            let mut word = match ready {
                Some("True") => "Ready",
                Some("False") => "NotReady",
                _ => "Unknown",
            }
            .to_owned();
            if object.at(&["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
                word.push_str(",SchedulingDisabled");
            }
            Status::Word(word)
        }
        "PersistentVolumeClaim" | "PersistentVolume" => {
            text(object, &["status", "phase"]).map_or(Status::Unknown, |p| Status::Word(p.into()))
        }
        "DaemonSet" => Status::Ready {
            ready: number(&["status", "numberReady"]).unwrap_or(0),
            desired: number(&["status", "desiredNumberScheduled"]).unwrap_or(0),
        },
        // An endpoint without `ready` is ready (the API's rule for a nil condition).
        "EndpointSlice" => {
            let endpoints = object.get("endpoints").and_then(Value::as_array).unwrap_or_default();
            let ready = endpoints
                .iter()
                .filter(|e| e.at(&["conditions", "ready"]).and_then(Value::as_bool) != Some(false))
                .count();
            Status::Ready { ready: ready as i64, desired: endpoints.len() as i64 }
        }
        "Deployment" | "ReplicaSet" | "StatefulSet" | "ReplicationController" => Status::Ready {
            ready: number(&["status", "readyReplicas"]).unwrap_or(0),
            desired: number(&["spec", "replicas"]).unwrap_or(1),
        },
        _ => Status::Unknown,
    }
}

/// The tree of dependents under `uid`, from the items of each planned list (in the plan's
/// order), as `shape` says. [`Shape::Owned`]: each level keeps the objects whose controller is a
/// node of the level above, sorted by name; objects the selector matched but another controller
/// owns are left out. [`Shape::Endpoints`]: see [`endpoints_tree`].
pub fn tree(shape: Shape, uid: &str, lists: &[Vec<Value>]) -> Vec<Node> {
    match shape {
        Shape::Owned => owned_tree(uid, lists),
        Shape::Endpoints => {
            endpoints_tree(lists.first().map_or(&[][..], Vec::as_slice), lists.get(1).map_or(&[][..], Vec::as_slice))
        }
    }
}

fn leaf(object: &Value) -> Option<Node> {
    Some(Node { object: related(object)?, status: status(object), children: Vec::new() })
}

/// A Service's tree from its `slices` and the `pods` its selector matches: each slice (by name)
/// with the pods its endpoints name by `targetRef` (by name), then the pods no slice names.
pub fn endpoints_tree(slices: &[Value], pods: &[Value]) -> Vec<Node> {
    let name_of = |object: &Value| text(object, &["metadata", "name"]).unwrap_or_default().to_owned();
    let mut named = std::collections::BTreeSet::new();
    let mut nodes: Vec<Node> = slices
        .iter()
        .filter_map(|slice| {
            let targets: std::collections::BTreeSet<&str> = slice
                .get("endpoints")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("targetRef"))
                .filter(|r| r.get("kind").and_then(Value::as_str) == Some("Pod"))
                .filter_map(|r| r.get("name").and_then(Value::as_str))
                .collect();
            let mut children: Vec<Node> =
                pods.iter().filter(|p| targets.contains(name_of(p).as_str())).filter_map(leaf).collect();
            children.sort_by(|a, b| a.object.name.cmp(&b.object.name));
            named.extend(targets.into_iter().map(str::to_owned));
            let object = related(slice)?;
            Some(Node { object, status: status(slice), children })
        })
        .collect();
    nodes.sort_by(|a, b| a.object.name.cmp(&b.object.name));
    let mut rest: Vec<Node> = pods.iter().filter(|p| !named.contains(&name_of(p))).filter_map(leaf).collect();
    rest.sort_by(|a, b| a.object.name.cmp(&b.object.name));
    nodes.extend(rest);
    nodes
}

fn owned_tree(uid: &str, lists: &[Vec<Value>]) -> Vec<Node> {
    let levels: Vec<&[Value]> = lists.iter().map(Vec::as_slice).collect();
    owned_levels(uid, &levels)
}

/// The objects of the first level controlled by `parent` (by uid), each with the levels under it.
pub(crate) fn owned_levels(parent: &str, levels: &[&[Value]]) -> Vec<Node> {
    let Some((items, deeper)) = levels.split_first() else { return Vec::new() };
    let mut nodes: Vec<Node> = items
        .iter()
        .filter(|item| controller_uid(item) == Some(parent))
        .filter_map(|item| node_with(item, deeper))
        .collect();
    nodes.sort_by(|a, b| a.object.name.cmp(&b.object.name));
    nodes
}

/// `object` as a node, with the levels under it that it controls.
pub(crate) fn node_with(object: &Value, deeper: &[&[Value]]) -> Option<Node> {
    let children = text(object, &["metadata", "uid"]).map_or_else(Vec::new, |uid| owned_levels(uid, deeper));
    Some(Node { object: related(object)?, status: status(object), children })
}

/// Whether `object` has no controller (`ownerReferences` names none).
pub(crate) fn uncontrolled(object: &Value) -> bool {
    controller_uid(object).is_none()
}

/// How a list of `kind` is asked for: pods as a server-side `Table`, whose rows carry each pod's
/// metadata (its owners and labels) and kubectl's STATUS column instead of the whole pod (58% of
/// the JSON for kube-sim's scale pods, whose metadata carries its managedFields); the other kinds
/// as JSON (their status words need their status).
pub fn list_representation(kind: &str) -> Representation {
    if kind == "Pod" {
        Representation::Table
    } else {
        Representation::Json
    }
}

/// The objects of one list's answer: a JSON list's items, or a `Table`'s rows as objects of
/// `kind` (each row's object, its metadata, with the STATUS cell as `status.phase`: the word a
/// link shows, `Running`, `CrashLoopBackOff`, `Completed`, as `kubectl get pods` prints it).
pub fn read_list(kind: &str, body: &Value) -> Result<Vec<Value>, RelationsError> {
    if body.get("kind").and_then(Value::as_str) != Some("Table") {
        return items(body, kind);
    }
    let columns = body.get("columnDefinitions").and_then(Value::as_array).unwrap_or_default();
    let status_at = columns.iter().position(|c| c.get("name").and_then(Value::as_str) == Some("Status"));
    let rows = body
        .get("rows")
        .and_then(Value::as_array)
        .ok_or_else(|| RelationsError::BadSelector(format!("the {kind} Table has no rows")))?;
    Ok(rows
        .iter()
        .filter_map(|row| {
            let metadata = row.at(&["object", "metadata"])?.clone();
            let mut object = Map::new();
            object.insert("apiVersion", Value::String("v1".into()));
            object.insert("kind", Value::String(kind.into()));
            object.insert("metadata", metadata);
            let word = status_at.and_then(|at| row.get("cells")?.as_array()?.get(at)?.as_str().map(str::to_owned));
            if let Some(word) = word {
                let mut status = Map::new();
                status.insert("phase", Value::String(word));
                object.insert("status", Value::Object(status));
            }
            Some(Value::Object(object))
        })
        .collect())
}

/// The items of a list answer's body (`items`), each given the list's item kind and
/// apiVersion when it lacks them (a real server's list items carry neither).
pub fn items(list: &Value, kind: &str) -> Result<Vec<Value>, RelationsError> {
    let items = list
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| RelationsError::BadSelector(format!("the {kind} list has no items")))?;
    let api_version = text(list, &["apiVersion"]).unwrap_or("v1");
    Ok(items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            if let Value::Object(map) = &mut item {
                if map.get("kind").is_none() {
                    map.insert("kind", Value::String(kind.into()));
                }
                if map.get("apiVersion").is_none() {
                    map.insert("apiVersion", Value::String(api_version.into()));
                }
            }
            item
        })
        .collect())
}

#[cfg(test)]
#[path = "relations_tests.rs"]
mod tests;
