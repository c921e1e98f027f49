//! `kubectl rollout history` and `kubectl rollout undo`, as kubectl does them
//! (`pkg/polymorphichelpers/rollback.go` and `history.go`).
//!
//! A Deployment (`DeploymentRollbacker.Rollback`, `pkg/util/deployment/deployment.go`
//! `listReplicaSets`): its revisions are its ReplicaSets, listed in its namespace by the
//! Deployment's label selector, kept when the Deployment is their controller, numbered by their
//! `deployment.kubernetes.io/revision` annotation. Undo replaces the Deployment's pod template by
//! the chosen ReplicaSet's (without its `pod-template-hash` label) and its annotations by the
//! ReplicaSet's, in one JSON patch.
//!
//! A StatefulSet or a DaemonSet (`StatefulSetRollbacker`/`DaemonSetRollbacker.Rollback`,
//! `controlledHistoryV1`): its revisions are the ControllerRevisions of its namespace matching
//! its selector that it controls, numbered by their `revision` field; each one's `data` is the
//! strategic merge patch its controller wrote (`{"spec":{"template":{"$patch":"replace",…}}}`),
//! and undo sends that data, as read, as a strategic merge patch (`toHistory.Data.Raw`). kubectl
//! skips the patch when the data equals the patch of the current template (`daemonSetMatch`,
//! `statefulSetMatch`: the same bytes); the explorer compares the two templates as values. There
//! is no pause check: neither kind pauses.
//!
//! Compared with the real kubectl 1.32.4 (`kubectl rollout undo deployment/api --to-revision=1
//! -v=8` against kube-sim, 2026-11-28): it sends a GET of the Deployment as JSON, the same GET
//! again and the ReplicaSet list through its typed client (protobuf), then the PATCH; the
//! explorer reads each once, as JSON. The PATCH is the same request: URL, `Content-Type:
//! application/json-patch+json`, and the body byte for byte when the server writes the template
//! in Go's field order, as the API server does (kube-sim writes nested keys in its own order; the
//! explorer copies the template as the server wrote it, so against kube-sim the bodies are the
//! same JSON with keys in another order).
//!
//! Invariants: pure functions of the objects read; a revision whose annotation is not a number
//! is left out, as kubectl's `deploymentutil.Revision` error skips it; what kubectl refuses or
//! skips is an [`OperationError`] and plans no write.

use super::operation::{Choices, Operation, OperationError, Target, Workload};
use super::plan::{plan, read, sorted, with_query, Plan, Step, StepRole};
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::{Map, Value};
use kube_wire::media_type::{Accept, MediaType, PatchType};
use kube_wire::params::{ListOptions, ListParams, WriteParams};
use kube_wire::request::{Collection, Request};
use kube_wire::write::diff::{yaml_diff, DiffOptions, LineDiff};

/// The annotation that numbers a Deployment's ReplicaSets (`deploymentutil.RevisionAnnotation`).
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// The annotation `kubectl rollout history` prints as CHANGE-CAUSE.
pub const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";
/// The label the Deployment controller adds to each ReplicaSet's template.
pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";

/// The Deployment annotations undo keeps from the Deployment instead of copying them from the
/// ReplicaSet (`annotationsToSkip` in rollback.go).
const ANNOTATIONS_TO_SKIP: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

/// One revision of a workload: a ReplicaSet a Deployment controls, or a ControllerRevision a
/// StatefulSet or DaemonSet controls.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    pub number: i64,
    /// The name of the object that holds it (the ReplicaSet or the ControllerRevision).
    pub holder: String,
    /// Its `kubernetes.io/change-cause` annotation.
    pub change_cause: Option<String>,
    /// Its pod template, as read (a ControllerRevision's without the `$patch` directive).
    pub template: Value,
    annotations: Map,
    /// A ControllerRevision's `data`, as read: the patch undo sends. `None` for a ReplicaSet.
    data: Option<Value>,
}

/// The kind of object that holds a workload's revisions, as `kubectl rollout history` names it.
pub fn revision_holder(workload: Workload) -> Option<&'static str> {
    match workload {
        Workload::Deployment => Some("ReplicaSet"),
        Workload::StatefulSet | Workload::DaemonSet => Some("ControllerRevision"),
        Workload::Node | Workload::CronJob => None,
    }
}

/// The list kubectl sends to find a workload's revisions: the ReplicaSets (for a Deployment) or
/// ControllerRevisions (for a StatefulSet or DaemonSet) of its namespace matching its
/// `spec.selector`, as JSON.
pub fn revisions_request(target: &Target, workload: &Value) -> Result<Request, OperationError> {
    let plural = match target.workload {
        Workload::Deployment => "replicasets",
        Workload::StatefulSet | Workload::DaemonSet => "controllerrevisions",
        other => return Err(OperationError::NotOffered(Operation::Undo, other)),
    };
    let selector = workload.at(&["spec", "selector"]).ok_or(OperationError::Missing("spec.selector"))?;
    let selector = selector_string(selector)?;
    let collection = Collection {
        group: "apps".into(),
        version: "v1".into(),
        plural: plural.into(),
        namespace: target.object.collection.namespace.clone(),
    };
    let options = ListOptions { label_selector: (!selector.is_empty()).then_some(selector), ..ListOptions::default() };
    let params = ListParams::new(options).map_err(|_| OperationError::Missing("spec.selector"))?;
    Ok(RequestBuilder::list(&collection, &params, &Accept::only(MediaType::json())).build())
}

/// A label selector as `labels.Selector.String()` writes it (`metav1.LabelSelectorAsSelector`):
/// one requirement per label and expression, sorted by key, joined by commas; `in`/`notin`
/// values sorted.
fn selector_string(selector: &Value) -> Result<String, OperationError> {
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels.iter() {
            let value = value.as_str().ok_or(OperationError::Missing("spec.selector.matchLabels"))?;
            requirements.push((key.to_owned(), format!("{key}={value}")));
        }
    }
    for expression in selector.get("matchExpressions").and_then(Value::as_array).unwrap_or_default() {
        let bad = || OperationError::Missing("spec.selector.matchExpressions");
        let key = expression.get("key").and_then(Value::as_str).ok_or_else(bad)?;
        let mut values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        let text = match expression.get("operator").and_then(Value::as_str) {
            Some("In") => format!("{key} in ({})", values.join(",")),
            Some("NotIn") => format!("{key} notin ({})", values.join(",")),
            Some("Exists") => key.to_owned(),
            Some("DoesNotExist") => format!("!{key}"),
            _ => return Err(bad()),
        };
        requirements.push((key.to_owned(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(requirements.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(","))
}

/// The workload's revisions among `list` (the answer to [`revisions_request`]), oldest first, as
/// `kubectl rollout history` prints them. A ReplicaSet whose revision annotation is not a number,
/// or a ControllerRevision without a numeric `revision`, is left out.
pub fn revisions(kind: Workload, workload: &Value, list: &Value) -> Result<Vec<Revision>, OperationError> {
    let uid =
        workload.at(&["metadata", "uid"]).and_then(Value::as_str).ok_or(OperationError::Missing("metadata.uid"))?;
    let items = list.get("items").and_then(Value::as_array).ok_or(OperationError::Missing("items"))?;
    let mut out: Vec<Revision> = items
        .iter()
        .filter(|item| controlled_by(item, uid))
        .filter_map(|item| {
            let annotations =
                item.at(&["metadata", "annotations"]).and_then(Value::as_object).cloned().unwrap_or_default();
            let holder = item.at(&["metadata", "name"]).and_then(Value::as_str).unwrap_or_default().to_owned();
            let change_cause = annotations.get(CHANGE_CAUSE).and_then(Value::as_str).map(str::to_owned);
            let (number, template, data) = match kind {
                Workload::Deployment => (
                    annotations.get(REVISION)?.as_str()?.parse::<i64>().ok()?,
                    item.at(&["spec", "template"]).cloned().unwrap_or(Value::Object(Map::new())),
                    None,
                ),
                _ => {
                    let data = item.get("data")?.clone();
                    (item.get("revision")?.as_i64()?, without_directive(&data), Some(data))
                }
            };
            Some(Revision { number, holder, change_cause, template, annotations, data })
        })
        .collect();
    out.sort_by_key(|revision| revision.number);
    Ok(out)
}

/// The pod template a ControllerRevision's data puts back: `spec.template` without `$patch`.
fn without_directive(data: &Value) -> Value {
    let mut template = data.at(&["spec", "template"]).and_then(Value::as_object).cloned().unwrap_or_default();
    template.remove("$patch");
    Value::Object(template)
}

/// `metav1.IsControlledBy`: an owner reference with `controller: true` and the owner's uid.
fn controlled_by(object: &Value, uid: &str) -> bool {
    let owners = object.at(&["metadata", "ownerReferences"]).and_then(Value::as_array).unwrap_or_default();
    owners.iter().any(|owner| {
        owner.get("controller").and_then(Value::as_bool) == Some(true)
            && owner.get("uid").and_then(Value::as_str) == Some(uid)
    })
}

/// The line diff of two revisions' pod templates (YAML, 3 lines of context), the hash label left
/// out of both as kubectl's comparison does.
pub fn template_diff(old: &Revision, new: &Revision) -> LineDiff {
    let (old, new) = (without_hash(&old.template), without_hash(&new.template));
    yaml_diff(&old, &new, DiffOptions::EVERYTHING, 3)
        .unwrap_or_else(|_| kube_wire::write::diff::line_diff(&old.to_json(), &new.to_json(), 3))
}

/// `kubectl rollout undo TYPE/NAME [--to-revision=N] [--dry-run=server]` of a Deployment,
/// StatefulSet or DaemonSet: `to_revision` `None` is kubectl's default 0, the revision before
/// the newest. The steps: kubectl's GET of the workload, its list of revisions, and the patch (a
/// JSON patch of a Deployment's template and annotations; a ControllerRevision's data as a
/// strategic merge patch).
pub fn undo(
    target: &Target,
    workload: &Value,
    list: &Value,
    to_revision: Option<i64>,
    dry_run: bool,
) -> Result<Plan, OperationError> {
    if revision_holder(target.workload).is_none() {
        return Err(OperationError::NotOffered(Operation::Undo, target.workload));
    }
    let history = revisions(target.workload, workload, list)?;
    let chosen = match to_revision {
        Some(number) => history.iter().find(|r| r.number == number).ok_or(OperationError::RevisionNotFound(number))?,
        None => history.iter().rev().nth(1).ok_or(match target.workload {
            Workload::Deployment => OperationError::NoRolloutHistory,
            _ => OperationError::NoLastRevision,
        })?,
    };
    if workload.at(&["spec", "paused"]).and_then(Value::as_bool) == Some(true) {
        return Err(OperationError::PausedRollback);
    }
    let current = workload.at(&["spec", "template"]).cloned().unwrap_or(Value::Object(Map::new()));
    if semantic(&without_hash(&chosen.template)) == semantic(&without_hash(&current)) {
        return Err(OperationError::AlreadyAtRevision(to_revision.unwrap_or(0)));
    }
    let patch = match &chosen.data {
        Some(data) => RequestBuilder::patch(&target.object, PatchType::StrategicMerge, data, &WriteParams::default())?,
        None => {
            let body = Value::Array(vec![
                replace("/spec/template", go_template(&without_hash(&chosen.template))),
                replace("/metadata/annotations", Value::Object(undo_annotations(workload, chosen))),
            ]);
            RequestBuilder::patch(&target.object, PatchType::Json, &body, &WriteParams::default())?
        }
    };
    let mut kubectl = format!("kubectl rollout undo {}/{}", target.workload.kubectl_type(), target.object.name);
    if let Some(number) = to_revision {
        kubectl.push_str(&format!(" --to-revision={number}"));
    }
    if let Some(namespace) = &target.object.collection.namespace {
        kubectl.push_str(&format!(" -n {namespace}"));
    }
    if dry_run {
        kubectl.push_str(" --dry-run=server");
    }
    Ok(Plan {
        operation: Operation::Undo,
        steps: vec![
            Step { role: StepRole::KubectlRead, request: read(target) },
            Step { role: StepRole::KubectlRead, request: revisions_request(target, workload)? },
            Step { role: StepRole::Write, request: with_query(patch, dry_run, &[]) },
        ],
        kubectl,
    })
}

/// The Deployment's annotations after undo: those in `annotationsToSkip` kept from the
/// Deployment, every other one the ReplicaSet's; sorted, as Go writes a map.
fn undo_annotations(deployment: &Value, chosen: &Revision) -> Map {
    let mut out = Map::new();
    let own = deployment.at(&["metadata", "annotations"]).and_then(Value::as_object);
    for key in ANNOTATIONS_TO_SKIP {
        if let Some(value) = own.and_then(|a| a.get(key)) {
            out.insert(key, value.clone());
        }
    }
    for (key, value) in chosen.annotations.iter().filter(|(key, _)| !ANNOTATIONS_TO_SKIP.contains(key)) {
        out.insert(key, value.clone());
    }
    sorted(&out)
}

/// `{"op":"replace","path":PATH,"value":VALUE}` (a Go map: keys sorted).
fn replace(path: &str, value: Value) -> Value {
    let mut op = Map::new();
    op.insert("op", Value::String("replace".into()));
    op.insert("path", Value::String(path.into()));
    op.insert("value", value);
    Value::Object(op)
}

/// The template without the `pod-template-hash` label (kubectl deletes it before patching).
fn without_hash(template: &Value) -> Value {
    let Some(mut root) = template.as_object().cloned() else { return template.clone() };
    let Some(mut metadata) = root.get("metadata").and_then(Value::as_object).cloned() else { return template.clone() };
    if let Some(mut labels) = metadata.get("labels").and_then(Value::as_object).cloned() {
        labels.remove(POD_TEMPLATE_HASH);
        metadata.insert("labels", Value::Object(labels));
    }
    root.insert("metadata", Value::Object(metadata));
    Value::Object(root)
}

/// The template as kubectl's `json.Marshal` of a `corev1.PodTemplateSpec` writes it: `metadata`
/// then `spec`, and `metadata.creationTimestamp` written as `null` when unset (a `metav1.Time`
/// struct, which `omitempty` does not leave out), at its place in `ObjectMeta`'s field order.
/// The spec is kept as the server wrote it (the API server writes Go's field order too).
fn go_template(template: &Value) -> Value {
    const META_ORDER: [&str; 8] =
        ["name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp"];
    let metadata = template.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut ordered = Map::new();
    for key in META_ORDER {
        match metadata.get(key) {
            Some(value) => {
                ordered.insert(key, value.clone());
            }
            None if key == "creationTimestamp" => {
                ordered.insert(key, Value::Null);
            }
            None => {}
        }
    }
    for (key, value) in metadata.iter().filter(|(key, _)| !META_ORDER.contains(key)) {
        ordered.insert(key, value.clone());
    }
    let mut out = Map::new();
    out.insert("metadata", Value::Object(ordered));
    out.insert("spec", template.get("spec").cloned().unwrap_or(Value::Object(Map::new())));
    Value::Object(out)
}

/// A value as Go's semantic equality sees it after decoding into the API types: unset, `null`,
/// empty maps and empty lists are all the zero value, so they are left out; keys compared in
/// any order.
fn semantic(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&str, Value)> =
                map.iter().map(|(key, value)| (key, semantic(value))).filter(|(_, value)| !is_zero(value)).collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let mut out = Map::new();
            for (key, value) in entries {
                out.insert(key, value);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(semantic).collect()),
        other => other.clone(),
    }
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}
/// What `operation` reads beside the object, when it needs more than the object to plan: the
/// workload's revisions for [`Operation::Undo`] (kubectl's second GET). `None` for the others.
pub fn related_request(
    operation: Operation,
    target: &Target,
    object: &Value,
) -> Option<Result<Request, OperationError>> {
    match operation {
        Operation::Undo => Some(revisions_request(target, object)),
        _ => None,
    }
}

/// Plans `operation` from the object and what [`related_request`] read beside it (`related`,
/// `None` when it asks for nothing): [`Operation::Undo`] through `rollback::undo`, every other
/// operation through [`plan`].
pub fn plan_with(
    operation: Operation,
    target: &Target,
    object: &Value,
    related: Option<&Value>,
    choices: &Choices,
    now_seconds: i64,
) -> Result<Plan, OperationError> {
    match operation {
        Operation::Undo => {
            let list = related.ok_or(OperationError::Missing("the workload's revisions"))?;
            undo(target, object, list, choices.to_revision, choices.dry_run)
        }
        _ => plan(operation, target, object, choices, now_seconds),
    }
}
