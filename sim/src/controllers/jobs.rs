//! The Job controller, after `pkg/controller/job/job_controller.go` (1.36, with pod failure
//! tracking by finalizer and the delayed terminal conditions): up to `parallelism` pods at a
//! time, never more than the completions left, each with the `batch.kubernetes.io/job-tracking`
//! finalizer, which the controller removes once it has counted the pod as succeeded or failed (a
//! pod deleted before it ends counts as failed); a failed pod is replaced after a back-off; the
//! Job fails when its failures exceed `backoffLimit` (for `OnFailure`, when its containers'
//! restarts reach it) or it ran longer than `activeDeadlineSeconds`: first `FailureTarget`, its
//! remaining pods deleted, then `Failed` once none is left terminating; it completes when
//! `completions` pods succeeded (or, without completions, one did and none is active):
//! `SuccessCriteriaMet`, then `Complete` with `completionTime`. `suspend` deletes the active pods
//! (`Suspended` condition). The status keeps `active`, `ready`, `terminating`, `succeeded`,
//! `failed`, `startTime` and `uncountedTerminatedPods` as the real one writes them; Events:
//! `SuccessfulCreate` (`Created pod: NAME`), `SuccessfulDelete`, `Completed`, and the failure
//! reason as a Warning.
//!
//! Differs: the back-off after a failure is a second doubling up to ten (the real one is ten
//! seconds doubling up to six minutes), so that a failing Job fails within a minute; Indexed
//! completion, success and pod failure policies and `backoffLimitPerIndex` are not simulated.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::{self, int, is_active, is_ready, phase, Actions, EventType, Outcome, PODS};
use crate::store::{lifecycle::random_suffix, object, Txn};

pub const KEY: &str = "batch/jobs";
pub const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";
const COMPONENT: &str = "job-controller";

/// Runs one round for Job `ns`/`name`; a Job that is gone lets its pods' finalizers go.
pub fn reconcile(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str, now: DateTime<Utc>) -> Outcome {
    let Some(job) = txn.get(KEY, ns, name) else {
        let orphans: Vec<Value> = txn
            .state()
            .list(PODS, Some(ns))
            .into_iter()
            .filter(|p| control::controller_of(p).is_some_and(|r| r["kind"] == "Job" && r["name"] == name))
            .filter(|p| object::finalizers(p).iter().any(|f| f == TRACKING_FINALIZER))
            .map(|p| p.as_ref().clone())
            .collect();
        let mut actions = Actions::default();
        for p in orphans {
            actions.updates.push((PODS, without_finalizer(&p)));
        }
        control::apply(app, txn, actions);
        return Outcome::default();
    };
    let pods = control::owned(txn, PODS, &job, true);
    let (actions, again_after) = plan(&job, &pods, now, &mut random_suffix);
    Outcome { started: control::apply(app, txn, actions), again_after }
}

fn without_finalizer(pod: &Value) -> Value {
    let mut p = pod.clone();
    let rest: Vec<String> = object::finalizers(pod).into_iter().filter(|f| f != TRACKING_FINALIZER).collect();
    if rest.is_empty() {
        if let Some(m) = p["metadata"].as_object_mut() {
            m.remove("finalizers");
        }
    } else {
        p["metadata"]["finalizers"] = json!(rest);
    }
    p
}

fn has_tracking(pod: &Value) -> bool {
    object::finalizers(pod).iter().any(|f| f == TRACKING_FINALIZER)
}

fn condition(job: &Value, kind: &str) -> Option<Value> {
    job["status"]["conditions"].as_array()?.iter().find(|c| c["type"] == kind && c["status"] == "True").cloned()
}

/// `util.IsJobFinished`.
pub fn is_finished(job: &Value) -> bool {
    condition(job, "Complete").is_some() || condition(job, "Failed").is_some()
}

/// `isPodFailed`: Failed, or deleted before it succeeded (`TerminatingOrFailed`).
fn counts_as_failed(pod: &Value) -> bool {
    phase(pod) == "Failed" || (object::is_deleting(pod) && phase(pod) != "Succeeded")
}

fn new_condition(kind: &str, reason: &str, message: &str, now: DateTime<Utc>) -> Value {
    let t = object::timestamp(now);
    json!({"type": kind, "status": "True", "lastProbeTime": t, "lastTransitionTime": t, "reason": reason, "message": message})
}

/// The failure a Job meets now, if any: (reason, message).
fn failure(job: &Value, pods: &[Value], failed: i64, now: DateTime<Utc>) -> Option<(&'static str, &'static str)> {
    let limit = int(&job["spec"]["backoffLimit"], 6);
    let restarts: i64 = pods
        .iter()
        .filter(|p| matches!(phase(p), "Running" | "Pending"))
        .flat_map(|p| p["status"]["containerStatuses"].as_array().cloned().unwrap_or_default())
        .map(|c| int(&c["restartCount"], 0))
        .sum();
    let on_failure = job["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure";
    let past_restarts = on_failure && if limit == 0 { restarts > 0 } else { restarts >= limit };
    if failed > limit || past_restarts {
        return Some(("BackoffLimitExceeded", "Job has reached the specified backoff limit"));
    }
    if past_deadline(job, now).is_some_and(|left| left <= Duration::zero()) {
        return Some(("DeadlineExceeded", "Job was active longer than specified deadline"));
    }
    None
}

/// Time left before `activeDeadlineSeconds`, if the Job has one and has started.
fn past_deadline(job: &Value, now: DateTime<Utc>) -> Option<Duration> {
    let deadline = job["spec"]["activeDeadlineSeconds"].as_i64()?;
    let start = job["status"]["startTime"].as_str().and_then(object::parse_time)?;
    if job["spec"]["suspend"] == true {
        return None;
    }
    Some(start + Duration::seconds(deadline) - now)
}

/// One round of the controller for `job` and its pods (terminating ones included); when to run
/// again (a back-off or a deadline).
pub fn plan(
    job: &Value,
    pods: &[Value],
    now: DateTime<Utc>,
    suffix: &mut dyn FnMut() -> String,
) -> (Actions, Option<Duration>) {
    let mut actions = Actions::default();
    if is_finished(job) {
        return (actions, None);
    }
    let mut status = job["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    let suspended = job["spec"]["suspend"] == true;
    if status["startTime"].is_null() && !suspended {
        status["startTime"] = json!(object::timestamp(now));
    }
    let mut job_now = job.clone();
    job_now["status"] = status.clone();
    // Count the pods that ended and still carry the finalizer, then let them go.
    let (mut succeeded, mut failed) = (int(&status["succeeded"], 0), int(&status["failed"], 0));
    let mut conditions: Vec<Value> = status["conditions"].as_array().cloned().unwrap_or_default();
    let failing = condition(job, "FailureTarget").map(|c| (c["reason"].clone(), c["message"].clone()));
    let mut active: Vec<&Value> = pods.iter().filter(|p| is_active(p)).collect();
    for pod in pods.iter().filter(|p| has_tracking(p)) {
        if phase(pod) == "Succeeded" {
            succeeded += 1;
        } else if counts_as_failed(pod) {
            failed += 1;
        } else {
            continue;
        }
        actions.updates.push((PODS, without_finalizer(pod)));
    }
    let mut again_after = None;
    let finish = match failing {
        Some(f) => Some(f),
        None => failure(&job_now, pods, failed, now).map(|(r, m)| (json!(r), json!(m))),
    };
    if let Some((reason, message)) = &finish {
        if condition(job, "FailureTarget").is_none() {
            conditions.push(new_condition(
                "FailureTarget",
                reason.as_str().unwrap_or_default(),
                message.as_str().unwrap_or_default(),
                now,
            ));
        }
        for pod in active.drain(..) {
            delete_pod(job, pod, &mut actions);
            if has_tracking(pod) {
                failed += 1;
                actions.updates.push((PODS, without_finalizer(pod)));
            }
        }
    } else if suspended {
        for pod in active.drain(..) {
            delete_pod(job, pod, &mut actions);
        }
    } else {
        again_after = manage(job, pods, &active, succeeded, failed, now, suffix, &mut actions);
        if let Some(left) = past_deadline(job, now) {
            again_after = Some(again_after.map_or(left, |a: Duration| a.min(left)));
        }
    }
    suspension(job, suspended, &mut conditions, &mut status, now, &mut actions);
    let created = actions.creates.len() as i64;
    let deleted = actions.deletes.len() as i64;
    let active_count = active.len() as i64 + created - if finish.is_some() || suspended { 0 } else { deleted };
    let terminating =
        pods.iter().filter(|p| object::is_deleting(p) && !control::is_terminal(p)).count() as i64 + deleted;
    let completions = job["spec"]["completions"].as_i64();
    let complete = finish.is_none()
        && active_count == 0
        && match completions {
            Some(c) => succeeded >= c,
            None => succeeded > 0,
        };
    if complete && condition(job, "SuccessCriteriaMet").is_none() {
        conditions.push(new_condition(
            "SuccessCriteriaMet",
            "CompletionsReached",
            "Reached expected number of succeeded pods",
            now,
        ));
    }
    if terminating == 0 {
        if let Some((reason, message)) = &finish {
            let (r, m) = (reason.as_str().unwrap_or_default(), message.as_str().unwrap_or_default());
            conditions.push(new_condition("Failed", r, m, now));
            actions.event(job, EventType::Warning, r, m.to_string(), COMPONENT);
        } else if complete {
            conditions.push(new_condition(
                "Complete",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                now,
            ));
            status["completionTime"] = json!(object::timestamp(now));
            actions.event(job, EventType::Normal, "Completed", "Job completed".into(), COMPONENT);
        }
    }
    let ready = active.iter().filter(|p| is_ready(p)).count();
    write_status(&mut status, active_count, ready, terminating, succeeded, failed, conditions);
    if job["status"] != status {
        let mut next = job.clone();
        next["status"] = status;
        actions.updates.push((KEY, next));
    }
    (actions, again_after)
}

/// `manageJob`: pods created up to what is wanted (after the back-off of a failure), extra ones
/// deleted (not ready first).
#[allow(clippy::too_many_arguments)]
fn manage(
    job: &Value,
    pods: &[Value],
    active: &[&Value],
    succeeded: i64,
    failed: i64,
    now: DateTime<Utc>,
    suffix: &mut dyn FnMut() -> String,
    actions: &mut Actions,
) -> Option<Duration> {
    let parallelism = int(&job["spec"]["parallelism"], 1).max(0);
    let want = match job["spec"]["completions"].as_i64() {
        None if succeeded > 0 => active.len() as i64,
        None => parallelism,
        Some(c) => (c - succeeded).clamp(0, parallelism),
    };
    let have = active.len() as i64;
    if have > want {
        let mut extra: Vec<&&Value> = active.iter().collect();
        extra.sort_by_key(|p| (is_ready(p), object::name(p).to_string()));
        for pod in extra.into_iter().take((have - want) as usize) {
            delete_pod(job, pod, actions);
        }
        return None;
    }
    if have == want {
        return None;
    }
    if let Some(wait) = backoff_left(pods, failed, now) {
        return Some(wait);
    }
    let mut template = job["spec"]["template"].clone();
    let mut finalizers: Vec<Value> = template["metadata"]["finalizers"].as_array().cloned().unwrap_or_default();
    if !finalizers.iter().any(|f| f == TRACKING_FINALIZER) {
        finalizers.push(json!(TRACKING_FINALIZER));
    }
    object::set_at(&mut template, &["metadata", "finalizers"], json!(finalizers));
    for _ in have..want {
        let mut pod = control::pod_from_template(job, &template, None);
        let name = format!("{}-{}", object::name(job), suffix());
        pod["metadata"]["name"] = json!(name);
        actions.creates.push((PODS, pod));
        actions.event(job, EventType::Normal, "SuccessfulCreate", format!("Created pod: {name}"), COMPONENT);
    }
    None
}

/// What is left of the back-off after the last failure: one second, doubling with each failure
/// up to ten.
fn backoff_left(pods: &[Value], failed: i64, now: DateTime<Utc>) -> Option<Duration> {
    if failed == 0 {
        return None;
    }
    let last = pods
        .iter()
        .filter(|p| phase(p) == "Failed")
        .flat_map(|p| p["status"]["containerStatuses"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["state"]["terminated"]["finishedAt"].as_str().and_then(object::parse_time))
        .max()?;
    let delay = Duration::seconds(1i64 << (failed - 1).clamp(0, 4)).min(Duration::seconds(10));
    let left = last + delay - now;
    (left > Duration::zero()).then_some(left)
}

/// The `Suspended` condition and its Events as a Job is suspended or resumed.
fn suspension(
    job: &Value,
    suspended: bool,
    conditions: &mut Vec<Value>,
    status: &mut Value,
    now: DateTime<Utc>,
    actions: &mut Actions,
) {
    let current = conditions.iter().find(|c| c["type"] == "Suspended").map(|c| c["status"] == "True");
    let (reason, message, event) = match (suspended, current) {
        (true, None | Some(false)) => ("JobSuspended", "Job suspended", "Suspended"),
        (false, Some(true)) => ("JobResumed", "Job resumed", "Resumed"),
        _ => return,
    };
    let mut c = new_condition("Suspended", reason, message, now);
    c["status"] = json!(if suspended { "True" } else { "False" });
    conditions.retain(|c| c["type"] != "Suspended");
    conditions.push(c);
    if !suspended {
        status["startTime"] = json!(object::timestamp(now));
    }
    actions.event(job, EventType::Normal, event, message.to_string(), COMPONENT);
}

fn delete_pod(job: &Value, pod: &Value, actions: &mut Actions) {
    actions.delete(PODS, pod, None);
    actions.event(job, EventType::Normal, "SuccessfulDelete", format!("Deleted pod: {}", object::name(pod)), COMPONENT);
}

/// The counters as `JobStatus` writes them: `active`, `succeeded`, `failed` only when not zero,
/// `ready` and `terminating` always, `uncountedTerminatedPods` empty (kube-sim counts and lets
/// go of a pod in one write).
fn write_status(
    status: &mut Value,
    active: i64,
    ready: usize,
    terminating: i64,
    succeeded: i64,
    failed: i64,
    conditions: Vec<Value>,
) {
    for (k, v) in [("active", active), ("succeeded", succeeded), ("failed", failed)] {
        if v == 0 {
            if let Some(m) = status.as_object_mut() {
                m.remove(k);
            }
        } else {
            status[k] = json!(v);
        }
    }
    status["ready"] = json!(ready);
    status["terminating"] = json!(terminating);
    status["uncountedTerminatedPods"] = json!({});
    if !conditions.is_empty() {
        status["conditions"] = json!(conditions);
    }
}

#[cfg(test)]
#[path = "jobs_tests.rs"]
mod tests;
