//! What an operation is: the kinds that have operations, the operations, their target, the
//! user's choices, and why an operation plans no write.

use crate::access::Question;
use crate::i18n::{Localized, Msg, Text};
use kube_wire::discovery::ResourceType;
use kube_wire::request::{Collection, ObjectRef, RequestError};

/// The kinds of object that have operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    Deployment,
    StatefulSet,
    DaemonSet,
    Node,
    CronJob,
}

impl Workload {
    /// The kind a resource type serves, when it has operations (matched by group and plural, the
    /// way kubectl's polymorphic helpers switch on the Go type).
    pub fn of(resource: &ResourceType) -> Option<Workload> {
        match (resource.group.as_str(), resource.plural.as_str()) {
            ("apps", "deployments") => Some(Workload::Deployment),
            ("apps", "statefulsets") => Some(Workload::StatefulSet),
            ("apps", "daemonsets") => Some(Workload::DaemonSet),
            ("", "nodes") => Some(Workload::Node),
            ("batch", "cronjobs") => Some(Workload::CronJob),
            _ => None,
        }
    }

    /// The operations offered on this kind, in the order of the action bar.
    pub fn operations(self) -> &'static [Operation] {
        match self {
            Workload::Deployment => &[Operation::Restart, Operation::Pause, Operation::Resume, Operation::Undo],
            Workload::StatefulSet | Workload::DaemonSet => &[Operation::Restart, Operation::Undo],
            Workload::Node => &[Operation::Cordon, Operation::Uncordon, Operation::Drain],
            Workload::CronJob => &[Operation::RunNow, Operation::Suspend, Operation::Unsuspend],
        }
    }

    /// The singular name kubectl takes in `TYPE/NAME`.
    pub(super) fn kubectl_type(self) -> &'static str {
        match self {
            Workload::Deployment => "deployment",
            Workload::StatefulSet => "statefulset",
            Workload::DaemonSet => "daemonset",
            Workload::Node => "node",
            Workload::CronJob => "cronjob",
        }
    }
}

/// One operation on an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `kubectl rollout restart`: a new `restartedAt` annotation on the pod template.
    Restart,
    /// `kubectl rollout pause`: `spec.paused` set.
    Pause,
    /// `kubectl rollout resume`: `spec.paused` removed.
    Resume,
    /// `kubectl cordon`: `spec.unschedulable` set.
    Cordon,
    /// `kubectl uncordon`: `spec.unschedulable` removed.
    Uncordon,
    /// `kubectl create job --from=cronjob/NAME`: a Job from the CronJob's template, now.
    RunNow,
    /// `spec.suspend: true` on a CronJob (`kubectl patch`; kubectl has no command of its own).
    Suspend,
    /// `spec.suspend: false` on a CronJob.
    Unsuspend,
    /// `kubectl rollout undo`: a workload's template back to a revision's (planned by
    /// `rollback::undo`, which needs the ReplicaSets or ControllerRevisions as well as the
    /// object).
    Undo,
    /// `kubectl drain`: cordon, then evict the node's pods (`drain`'s pieces; the panel runs it).
    Drain,
}

impl Operation {
    /// The name on the operation's button.
    pub fn label(self) -> Msg {
        match self {
            Operation::Restart => Msg::OpRestart,
            Operation::Pause => Msg::OpPause,
            Operation::Resume => Msg::OpResume,
            Operation::Cordon => Msg::OpCordon,
            Operation::Uncordon => Msg::OpUncordon,
            Operation::RunNow => Msg::OpRunNow,
            Operation::Suspend => Msg::OpSuspend,
            Operation::Unsuspend => Msg::OpUnsuspend,
            Operation::Undo => Msg::OpUndo,
            Operation::Drain => Msg::OpDrain,
        }
    }

    /// What the operation does on `workload`, in a sentence shown above its requests.
    pub fn explanation(self, workload: Workload) -> Msg {
        match self {
            Operation::Undo if workload != Workload::Deployment => Msg::OpUndoRevisionWhat,
            Operation::Restart => Msg::OpRestartWhat,
            Operation::Pause => Msg::OpPauseWhat,
            Operation::Resume => Msg::OpResumeWhat,
            Operation::Cordon => Msg::OpCordonWhat,
            Operation::Uncordon => Msg::OpUncordonWhat,
            Operation::RunNow => Msg::OpRunNowWhat,
            Operation::Suspend => Msg::OpSuspendWhat,
            Operation::Unsuspend => Msg::OpUnsuspendWhat,
            Operation::Undo => Msg::OpUndoWhat,
            Operation::Drain => Msg::OpDrainWhat,
        }
    }

    /// Whether kubectl offers `--dry-run=server` for it (rollout restart, pause and resume have
    /// no `--dry-run` flag: `pkg/cmd/rollout`).
    pub fn offers_dry_run(self) -> bool {
        !matches!(self, Operation::Restart | Operation::Pause | Operation::Resume)
    }

    /// Whether it takes a name from the user (the Job's, as `kubectl create job NAME` does).
    pub fn takes_name(self) -> bool {
        self == Operation::RunNow
    }

    /// The permission its write needs: `patch` on the object, or `create` on the namespace's Jobs.
    pub fn question(self, object: &ObjectRef) -> Question {
        match self {
            Operation::RunNow => Question::collection("create", &jobs_of(object)),
            _ => Question::object("patch", object),
        }
    }
}

/// The object an operation acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub workload: Workload,
    pub object: ObjectRef,
}

/// What the user chose beside the operation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choices {
    /// `--dry-run=server`: every write carries `dryRun=All` (only where kubectl offers it).
    pub dry_run: bool,
    /// The Job's name, for [`Operation::RunNow`].
    pub job_name: String,
    /// `--to-revision`, for [`Operation::Undo`]: `None` is kubectl's 0, the revision before the
    /// newest.
    pub to_revision: Option<i64>,
}

/// Why an operation plans no write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperationError {
    /// kubectl: "can't restart paused deployment (run rollout resume first)".
    PausedDeployment,
    /// The last restart was in the same second: the patch would be `{}`, which kubectl refuses
    /// ("if restart has already been triggered within the past second, please wait").
    RestartedThisSecond,
    /// kubectl prints "already paused" and sends nothing.
    AlreadyPaused,
    /// kubectl prints "already resumed" and sends nothing.
    AlreadyResumed,
    /// kubectl prints "already cordoned" and sends nothing.
    AlreadyCordoned,
    AlreadyUncordoned,
    /// `spec.suspend` already has the value asked for.
    AlreadySuspended,
    NotSuspended,
    /// The operation is not one of this kind's.
    NotOffered(Operation, Workload),
    /// The object read lacks a field the plan needs (`metadata.uid`, `spec.jobTemplate`, ...).
    Missing(&'static str),
    /// The Job's name is not a DNS label (what the API server would answer with a 422).
    BadJobName(String),
    Request(RequestError),
    /// kubectl: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout
    /// resume' and try again".
    PausedRollback,
    /// kubectl: "unable to find specified revision N in history".
    RevisionNotFound(i64),
    /// kubectl: "no rollout history found for deployment" (fewer than two revisions).
    NoRolloutHistory,
    /// kubectl, for a StatefulSet or DaemonSet: "no last revision to roll back to" (fewer than
    /// two ControllerRevisions).
    NoLastRevision,
    /// kubectl: "skipped rollback (current template already matches revision N)".
    AlreadyAtRevision(i64),
}

impl From<RequestError> for OperationError {
    fn from(error: RequestError) -> Self {
        OperationError::Request(error)
    }
}

impl Localized for OperationError {
    fn text(&self) -> Text {
        match self {
            OperationError::PausedDeployment => Text::new(Msg::OpPausedDeployment),
            OperationError::RestartedThisSecond => Text::new(Msg::OpRestartedThisSecond),
            OperationError::AlreadyPaused => Text::new(Msg::OpAlreadyPaused),
            OperationError::AlreadyResumed => Text::new(Msg::OpAlreadyResumed),
            OperationError::AlreadyCordoned => Text::new(Msg::OpAlreadyCordoned),
            OperationError::AlreadyUncordoned => Text::new(Msg::OpAlreadyUncordoned),
            OperationError::AlreadySuspended => Text::new(Msg::OpAlreadySuspended),
            OperationError::NotSuspended => Text::new(Msg::OpNotSuspended),
            OperationError::NotOffered(operation, workload) => Text::new(Msg::OpNotOffered)
                .with_text("operation", Text::new(operation.label()))
                .with("kind", workload.kubectl_type()),
            OperationError::Missing(field) => Text::new(Msg::OpMissingField).with("field", field),
            OperationError::BadJobName(name) => Text::new(Msg::OpBadJobName).with("name", format!("{name:?}")),
            OperationError::Request(error) => error.text(),
            OperationError::PausedRollback => Text::new(Msg::OpPausedRollback),
            OperationError::RevisionNotFound(revision) => {
                Text::new(Msg::OpRevisionNotFound).with("revision", revision.to_string())
            }
            OperationError::NoRolloutHistory => Text::new(Msg::OpNoRolloutHistory),
            OperationError::NoLastRevision => Text::new(Msg::OpNoLastRevision),
            OperationError::AlreadyAtRevision(revision) => {
                Text::new(Msg::OpAlreadyAtRevision).with("revision", revision.to_string())
            }
        }
    }
}

crate::localized_display!(OperationError);

/// The Jobs of `object`'s namespace (`batch/v1`, where `kubectl create job` posts).
pub(super) fn jobs_of(object: &ObjectRef) -> Collection {
    Collection {
        group: "batch".into(),
        version: "v1".into(),
        plural: "jobs".into(),
        namespace: object.collection.namespace.clone(),
    }
}

/// The name a Job made now gets unless the user types another: `<cronjob>-manual-<minutes>`
/// (minutes since the epoch, so two runs a minute apart differ), cut to the 52 characters a
/// CronJob's own Job names keep to.
pub fn default_job_name(cronjob: &str, now_seconds: i64) -> String {
    let suffix = format!("-manual-{}", now_seconds.div_euclid(60));
    let stem: String = cronjob.chars().take(52usize.saturating_sub(suffix.len())).collect();
    format!("{}{suffix}", stem.trim_end_matches('-'))
}
