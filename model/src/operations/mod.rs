//! Operations on an object, as kubectl does them: each one a short sequence of ordinary requests
//! (a read, then one write), planned here from the object so that the screen can show the exact
//! requests before anything is sent, and copy them as a kubectl command and as curl.
//!
//! The bytes are kubectl's, taken from its source (each plan names the file): rollout restart,
//! pause and resume of a workload (`pkg/cmd/rollout`, `pkg/polymorphichelpers`), cordon and
//! uncordon of a node (`pkg/drain/cordon.go`), a CronJob's Job made now (`pkg/cmd/create/
//! create_job.go`) and its `spec.suspend` changed as `kubectl patch` does (`pkg/cmd/patch`).
//! Two take more than one read: rollout history and undo (`rollback`: a Deployment's ReplicaSets
//! or a StatefulSet's or DaemonSet's ControllerRevisions as revisions, a diff of two templates,
//! kubectl's patch), and drain
//! ([`drain`]: kubectl's pod filters, the node's pods in pages, and each pod's eviction as a
//! step machine a driver runs).
//!
//! Invariants: an operation is an [`Operation`], never a string; a plan is a pure function of the
//! object read, the user's choices and the time given (no clock here); what kubectl would refuse
//! or find already done is an [`OperationError`] and no write is planned for it.

pub mod drain;
mod operation;
mod plan;
mod rollback;

pub use operation::{default_job_name, Choices, Operation, OperationError, Target, Workload};
pub use plan::{cordon_patch, plan, read, Plan, Step, StepRole};
pub use rollback::{
    plan_with, related_request, revision_holder, revisions, revisions_request, template_diff, undo, Revision,
    CHANGE_CAUSE, REVISION,
};

#[cfg(test)]
mod drain_tests;
#[cfg(test)]
mod rollback_tests;
#[cfg(test)]
mod tests;
