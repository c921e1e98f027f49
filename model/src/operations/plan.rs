//! The request sequence of each [`Operation`], built from the object as read: kubectl's reads
//! and its one write, byte for byte, with the kubectl command that sends them.

use super::operation::{jobs_of, Choices, Operation, OperationError, Target, Workload};
use crate::commands::{shell_quote, to_curl};
use crate::logs::rfc3339_seconds;
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::{Map, Value};
use kube_wire::media_type::{Accept, MediaType, PatchType};
use kube_wire::params::{GetParams, WriteParams};
use kube_wire::request::{Body, Request};

/// The annotation `kubectl rollout restart` sets on the pod template
/// (`pkg/polymorphichelpers/objectrestarter.go`).
pub const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

/// The annotation `kubectl create job --from=cronjob/…` puts on the Job
/// (`pkg/cmd/create/create_job.go`, `createJobFromCronJob`).
pub const INSTANTIATE: &str = "cronjob.kubernetes.io/instantiate";

/// Whose request a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepRole {
    /// kubectl sends it too (it reads the object before it writes).
    KubectlRead,
    /// Only the explorer sends it: it needs the object to decide and to show the plan, where
    /// kubectl (`kubectl patch`) writes without reading.
    ExplorerRead,
    /// The write.
    Write,
}

/// One request of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub role: StepRole,
    pub request: Request,
}

/// An operation planned: its requests in the order they are sent, and the kubectl command that
/// sends the same ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub operation: Operation,
    pub steps: Vec<Step>,
    pub kubectl: String,
}

impl Plan {
    /// The write, the one request the explorer still has to send once the object is read.
    pub fn write(&self) -> &Request {
        let last = self.steps.last().expect("a plan ends with its write");
        &last.request
    }

    /// Every request of the plan as `curl` against `origin`, one command a line, in order.
    pub fn curl(&self, origin: &str) -> String {
        self.steps.iter().map(|step| to_curl(&step.request, origin)).collect::<Vec<_>>().join("\n")
    }
}

/// The read every operation starts with: a GET of the object, as JSON.
pub fn read(target: &Target) -> Request {
    RequestBuilder::get_object(&target.object, &GetParams::default(), &Accept::only(MediaType::json())).build()
}

/// Plans `operation` on `target`, whose current state is `object`; `now_seconds` (since the
/// epoch) stamps a restart as kubectl's `time.Now()` does.
pub fn plan(
    operation: Operation,
    target: &Target,
    object: &Value,
    choices: &Choices,
    now_seconds: i64,
) -> Result<Plan, OperationError> {
    if !target.workload.operations().contains(&operation) {
        return Err(OperationError::NotOffered(operation, target.workload));
    }
    let dry_run = choices.dry_run && operation.offers_dry_run();
    let (kubectl_reads, write) = match operation {
        Operation::Restart => (true, restart(target, object, now_seconds)?),
        Operation::Pause | Operation::Resume => (true, pause(target, object, operation == Operation::Pause)?),
        Operation::Cordon | Operation::Uncordon => {
            (true, cordon(target, object, operation == Operation::Cordon, dry_run)?)
        }
        Operation::Suspend | Operation::Unsuspend => {
            (false, suspend(target, object, operation == Operation::Suspend, dry_run)?)
        }
        Operation::RunNow => (true, run_now(target, object, &choices.job_name, dry_run)?),
        // Undo needs the ReplicaSets as well: `rollback::undo` plans it.
        Operation::Undo | Operation::Drain => return Err(OperationError::NotOffered(operation, target.workload)),
    };
    let role = if kubectl_reads { StepRole::KubectlRead } else { StepRole::ExplorerRead };
    Ok(Plan {
        operation,
        steps: vec![Step { role, request: read(target) }, Step { role: StepRole::Write, request: write }],
        kubectl: kubectl_command(operation, target, choices, dry_run),
    })
}

/// `kubectl rollout restart` (`pkg/cmd/rollout/rollout_restart.go`): the restarter sets
/// `spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]` to `time.Now()` in
/// RFC 3339 (refusing a paused Deployment), and the two-way strategic merge patch of the object
/// before and after is sent with `fieldManager=kubectl-rollout`. Only the annotation differs, so
/// the patch is that one nested field. (kubectl formats the time in the local zone; the explorer
/// writes UTC, which the API server reads the same.)
fn restart(target: &Target, object: &Value, now_seconds: i64) -> Result<Request, OperationError> {
    if target.workload == Workload::Deployment && paused(object) {
        return Err(OperationError::PausedDeployment);
    }
    let now = rfc3339_seconds(now_seconds);
    if object.at(&["spec", "template", "metadata", "annotations", RESTARTED_AT]).and_then(Value::as_str)
        == Some(now.as_str())
    {
        return Err(OperationError::RestartedThisSecond);
    }
    let body = nested(&["spec", "template", "metadata", "annotations", RESTARTED_AT], Value::String(now));
    rollout_patch(target, &body)
}

/// `kubectl rollout pause|resume` (`pkg/polymorphichelpers/objectpauser.go`, `objectresumer.go`):
/// Deployments only; `spec.paused` is a bool with `omitempty`, so pausing patches `true` and
/// resuming, whose new object has no `paused`, patches `null`.
fn pause(target: &Target, object: &Value, pause: bool) -> Result<Request, OperationError> {
    match (pause, paused(object)) {
        (true, true) => return Err(OperationError::AlreadyPaused),
        (false, false) => return Err(OperationError::AlreadyResumed),
        _ => {}
    }
    let value = if pause { Value::Bool(true) } else { Value::Null };
    rollout_patch(target, &nested(&["spec", "paused"], value))
}

fn paused(object: &Value) -> bool {
    object.at(&["spec", "paused"]).and_then(Value::as_bool) == Some(true)
}

/// A strategic merge patch with `fieldManager=kubectl-rollout` (the flag's default in
/// `pkg/cmd/rollout`), no dry run (the rollout commands have none).
fn rollout_patch(target: &Target, body: &Value) -> Result<Request, OperationError> {
    let params = WriteParams { field_manager: Some("kubectl-rollout".into()), ..WriteParams::default() };
    Ok(RequestBuilder::patch(&target.object, PatchType::StrategicMerge, body, &params)?.build())
}

/// `kubectl cordon|uncordon` (`pkg/drain/cordon.go`, `PatchOrReplaceWithContext`): the two-way
/// strategic merge patch of `spec.unschedulable` (`omitempty`, so uncordoning patches `null`),
/// sent by the typed client without a field manager; `--dry-run=server` adds `dryRun=All`. A node
/// already as asked is left alone ("already cordoned", `pkg/cmd/drain/drain.go`).
fn cordon(target: &Target, object: &Value, cordon: bool, dry_run: bool) -> Result<Request, OperationError> {
    let unschedulable = object.at(&["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true);
    match (cordon, unschedulable) {
        (true, true) => return Err(OperationError::AlreadyCordoned),
        (false, false) => return Err(OperationError::AlreadyUncordoned),
        _ => {}
    }
    cordon_patch(target, cordon, dry_run)
}

/// The PATCH of `kubectl cordon` (`cordon`) or `uncordon`, whatever the node's state: the first
/// request of a drain, shown before the node is read again.
pub fn cordon_patch(target: &Target, cordon: bool, dry_run: bool) -> Result<Request, OperationError> {
    let value = if cordon { Value::Bool(true) } else { Value::Null };
    let body = nested(&["spec", "unschedulable"], value);
    let request = RequestBuilder::patch(&target.object, PatchType::StrategicMerge, &body, &WriteParams::default())?;
    Ok(with_query(request, dry_run, &[]))
}

/// `kubectl patch cronjob/NAME -p '{"spec":{"suspend":true}}'` (`pkg/cmd/patch/patch.go`: a
/// strategic merge patch by default, `fieldManager=kubectl-patch`). `spec.suspend` is a pointer,
/// so resuming sends an explicit `false`.
fn suspend(target: &Target, object: &Value, suspend: bool, dry_run: bool) -> Result<Request, OperationError> {
    let suspended = object.at(&["spec", "suspend"]).and_then(Value::as_bool) == Some(true);
    match (suspend, suspended) {
        (true, true) => return Err(OperationError::AlreadySuspended),
        (false, false) => return Err(OperationError::NotSuspended),
        _ => {}
    }
    let body = suspend_body(suspend);
    let request = RequestBuilder::patch(&target.object, PatchType::StrategicMerge, &body, &WriteParams::default())?;
    Ok(with_query(request, dry_run, &[("fieldManager", "kubectl-patch")]))
}

fn suspend_body(suspend: bool) -> Value {
    nested(&["spec", "suspend"], Value::Bool(suspend))
}

/// `kubectl create job NAME --from=cronjob/CRONJOB` (`pkg/cmd/create/create_job.go`,
/// `createJobFromCronJob`): a `batch/v1` Job named by the user, with the template's labels, its
/// annotations plus `cronjob.kubernetes.io/instantiate: manual`, a controller owner reference
/// to the CronJob (without `blockOwnerDeletion`, as kubectl explains there), the template's
/// spec, and the empty status Go writes; posted with `fieldManager=kubectl-create` and
/// `fieldValidation=Strict` (kubectl's `--validate` default). kubectl's typed client sends this
/// Job as protobuf (`Content-Type: application/vnd.kubernetes.protobuf`, seen with `kubectl -v=8`
/// against kube-sim); the explorer sends the same object as JSON, as client-go's JSON encoder
/// writes it (keys in Go's field order, ending in a newline), and the panel says so.
fn run_now(target: &Target, object: &Value, name: &str, dry_run: bool) -> Result<Request, OperationError> {
    check_label(name)?;
    let uid = object.at(&["metadata", "uid"]).and_then(Value::as_str).ok_or(OperationError::Missing("metadata.uid"))?;
    let template = object.at(&["spec", "jobTemplate"]).ok_or(OperationError::Missing("spec.jobTemplate"))?;
    let spec = template.get("spec").ok_or(OperationError::Missing("spec.jobTemplate.spec"))?;
    let mut metadata = Map::new();
    metadata.insert("name", Value::String(name.into()));
    if let Some(namespace) = &target.object.collection.namespace {
        metadata.insert("namespace", Value::String(namespace.clone()));
    }
    if let Some(labels) = template.at(&["metadata", "labels"]).and_then(Value::as_object).filter(|l| !l.is_empty()) {
        metadata.insert("labels", Value::Object(sorted(labels)));
    }
    let mut annotations =
        template.at(&["metadata", "annotations"]).and_then(Value::as_object).cloned().unwrap_or_default();
    if annotations.get(INSTANTIATE).is_none() {
        annotations.insert(INSTANTIATE, Value::String("manual".into()));
    }
    metadata.insert("annotations", Value::Object(sorted(&annotations)));
    let mut owner = Map::new();
    owner.insert("apiVersion", Value::String("batch/v1".into()));
    owner.insert("kind", Value::String("CronJob".into()));
    owner.insert("name", Value::String(target.object.name.clone()));
    owner.insert("uid", Value::String(uid.into()));
    owner.insert("controller", Value::Bool(true));
    metadata.insert("ownerReferences", Value::Array(vec![Value::Object(owner)]));
    let mut job = Map::new();
    job.insert("kind", Value::String("Job".into()));
    job.insert("apiVersion", Value::String("batch/v1".into()));
    job.insert("metadata", Value::Object(metadata));
    job.insert("spec", spec.clone());
    job.insert("status", Value::Object(Map::new()));
    let body = Body::json(&Value::Object(job));
    let request = RequestBuilder::create(&jobs_of(&target.object), body, &WriteParams::default());
    Ok(with_query(request, dry_run, &[("fieldManager", "kubectl-create"), ("fieldValidation", "Strict")]))
}

/// A Job's name: a DNS label of at most 63 characters (the Job's name becomes a label value).
fn check_label(name: &str) -> Result<(), OperationError> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(OperationError::BadJobName(name.into()))
    }
}

/// A Go map as `encoding/json` writes it: keys sorted.
pub(super) fn sorted(map: &Map) -> Map {
    let mut entries: Vec<(&str, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = Map::new();
    for (key, value) in entries {
        out.insert(key, value.clone());
    }
    out
}

/// `{"a":{"b":…{"last":value}}}`.
fn nested(path: &[&str], value: Value) -> Value {
    path.iter().rev().fold(value, |inner, key| {
        let mut map = Map::new();
        map.insert(*key, inner);
        Value::Object(map)
    })
}

/// The request with `dryRun=All` (when asked) and `params`, in the order kubectl sends them:
/// client-go encodes a request's options with `url.Values.Encode`, which sorts by key (so not
/// in `WriteParams`'s order, which puts `fieldValidation` before `fieldManager`).
pub(super) fn with_query(request: RequestBuilder, dry_run: bool, params: &[(&str, &str)]) -> Request {
    let mut query: Vec<(&str, &str)> = params.to_vec();
    if dry_run {
        query.push(("dryRun", "All"));
    }
    query.sort_by(|a, b| a.0.cmp(b.0));
    query.into_iter().fold(request, |request, (name, value)| request.param(name, value)).build()
}

/// The kubectl command that sends the same requests.
fn kubectl_command(operation: Operation, target: &Target, choices: &Choices, dry_run: bool) -> String {
    let object = format!("{}/{}", target.workload.kubectl_type(), target.object.name);
    let mut words = match operation {
        Operation::Restart => format!("kubectl rollout restart {object}"),
        Operation::Pause => format!("kubectl rollout pause {object}"),
        Operation::Resume => format!("kubectl rollout resume {object}"),
        Operation::Cordon => format!("kubectl cordon {}", target.object.name),
        Operation::Uncordon => format!("kubectl uncordon {}", target.object.name),
        Operation::RunNow => format!("kubectl create job {} --from={object}", choices.job_name),
        Operation::Undo => format!("kubectl rollout undo {object}"),
        Operation::Drain => format!("kubectl drain {}", target.object.name),
        Operation::Suspend | Operation::Unsuspend => format!(
            "kubectl patch {object} -p {}",
            shell_quote(&suspend_body(operation == Operation::Suspend).to_json())
        ),
    };
    if let Some(namespace) = &target.object.collection.namespace {
        words.push_str(&format!(" -n {namespace}"));
    }
    if dry_run {
        words.push_str(" --dry-run=server");
    }
    words
}
