//! The CronJob controller, after `pkg/controller/cronjob/cronjob_controllerv2.go` and
//! `utils.go`: at each time its schedule names (`rules::cron`, in `spec.timeZone`), a Job
//! `<cronjob>-<scheduled minutes since the epoch>` from `jobTemplate`, with the
//! `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation and the CronJob as controller;
//! only the most recent missed time is run, and not when it is older than
//! `startingDeadlineSeconds` (`MissSchedule`); `suspend` stops it; `concurrencyPolicy` Forbid
//! skips a time while a Job is active (`JobAlreadyActive`), Replace deletes the active ones
//! first. The status lists the active Jobs and keeps `lastScheduleTime` and
//! `lastSuccessfulTime`; finished Jobs beyond `successfulJobsHistoryLimit` and
//! `failedJobsHistoryLimit` are deleted, oldest first. Events: `SuccessfulCreate` (`Created job
//! NAME`), `SawCompletedJob`, `SuccessfulDelete`, `UnexpectedJob` (a Job it did not make, such
//! as `kubectl create job --from=cronjob/…`'s, which it does not count as active), `MissingJob`.
//!
//! The controller's clock is the `now` it is handed: the manager passes the wall clock and
//! comes back at the next scheduled time; the tests pass any time they like.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::app::App;
use crate::controllers::control::{self, Actions, EventType, Outcome, Removal};
use crate::controllers::jobs::{self, is_finished};
use crate::rules::cron::{time_zone, Schedule};
use crate::store::{object, Txn};

pub const KEY: &str = "batch/cronjobs";
const COMPONENT: &str = "cronjob-controller";
pub const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/// Runs one round for CronJob `ns`/`name` at `now`.
pub fn reconcile(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str, name: &str, now: DateTime<Utc>) -> Outcome {
    let Some(cj) = txn.get(KEY, ns, name) else { return Outcome::default() };
    let children = control::owned(txn, jobs::KEY, &cj, true);
    let (actions, again_after) = plan(&cj, &children, now);
    control::apply(app, txn, actions);
    // The status names a Job it just created by name; its uid is known now.
    if let Some(cj) = txn.get(KEY, ns, name) {
        let mut next = cj.as_ref().clone();
        for r in next.pointer_mut("/status/active").and_then(Value::as_array_mut).into_iter().flatten() {
            if r["uid"].as_str().is_none_or(str::is_empty) {
                if let Some(job) = txn.get(jobs::KEY, ns, r["name"].as_str().unwrap_or_default()) {
                    r["uid"] = json!(object::uid(&job));
                    r["resourceVersion"] = json!(object::resource_version(&job));
                }
            }
        }
        if next != *cj {
            txn.put(KEY, next);
        }
    }
    Outcome { started: Vec::new(), again_after }
}

/// `getJobName`: the CronJob's name and the scheduled time in minutes since the epoch.
pub fn job_name(cj: &Value, scheduled: DateTime<Utc>) -> String {
    format!("{}-{}", object::name(cj), scheduled.timestamp() / 60)
}

/// `getJobFromTemplate2`.
pub fn job_from_template(cj: &Value, scheduled: DateTime<Utc>, zone: chrono::FixedOffset) -> Value {
    let template = &cj["spec"]["jobTemplate"];
    let mut annotations = template["metadata"]["annotations"].as_object().cloned().unwrap_or_default();
    annotations.insert(
        SCHEDULED_TIMESTAMP.into(),
        json!(scheduled.with_timezone(&zone).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    );
    let mut meta = json!({"name": job_name(cj, scheduled), "namespace": object::namespace(cj), "annotations": annotations,
        "ownerReferences": [control::controller_ref(cj)]});
    if let Some(labels) = template["metadata"]["labels"].as_object().filter(|l| !l.is_empty()) {
        meta["labels"] = json!(labels);
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": template["spec"].clone()})
}

fn finished_type(job: &Value) -> &'static str {
    let done = |kind: &str| {
        job["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] == "True")
    };
    if done("Complete") {
        "Complete"
    } else {
        "Failed"
    }
}

/// One round at `now` for `cj` and the Jobs it controls; when to come back.
pub fn plan(cj: &Value, children: &[Value], now: DateTime<Utc>) -> (Actions, Option<Duration>) {
    let mut actions = Actions::default();
    let mut status = cj["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    let mut active: Vec<Value> = status["active"].as_array().cloned().unwrap_or_default();
    track_children(cj, children, &mut active, &mut status, &mut actions);
    cleanup(cj, children, &mut actions);
    let again = if object::is_deleting(cj) {
        None
    } else {
        schedule(cj, children, now, &mut active, &mut status, &mut actions)
    };
    if active.is_empty() {
        if let Some(m) = status.as_object_mut() {
            m.remove("active");
        }
    } else {
        status["active"] = json!(active);
    }
    if cj["status"] != status {
        let mut next = cj.clone();
        next["status"] = status;
        actions.updates.push((KEY, next));
    }
    (actions, again)
}

/// The active list against the child Jobs, and `lastSuccessfulTime`.
fn track_children(cj: &Value, children: &[Value], active: &mut Vec<Value>, status: &mut Value, actions: &mut Actions) {
    for job in children {
        let found = active.iter().any(|r| {
            r["uid"] == object::uid(job)
                || (r["uid"].as_str().is_none_or(str::is_empty) && r["name"] == object::name(job))
        });
        if !found && !is_finished(job) {
            let message = format!("Saw a job that the controller did not create or forgot: {}", object::name(job));
            actions.event(cj, EventType::Warning, "UnexpectedJob", message, COMPONENT);
        } else if found && is_finished(job) {
            active.retain(|r| r["name"] != object::name(job));
            let message = format!("Saw completed job: {}, condition: {}", object::name(job), finished_type(job));
            actions.event(cj, EventType::Normal, "SawCompletedJob", message, COMPONENT);
        } else if is_finished(job) {
            let done = job["status"]["completionTime"].as_str().and_then(object::parse_time);
            let last = status["lastSuccessfulTime"].as_str().and_then(object::parse_time);
            if let Some(t) = done.filter(|t| last.is_none_or(|l| *t > l)) {
                status["lastSuccessfulTime"] = json!(object::timestamp(t));
            }
        }
    }
    let missing: Vec<String> = active
        .iter()
        .filter(|r| !children.iter().any(|j| j["metadata"]["name"] == r["name"]))
        .map(|r| r["name"].as_str().unwrap_or_default().to_string())
        .collect();
    for name in &missing {
        actions.event(cj, EventType::Normal, "MissingJob", format!("Active job went missing: {name}"), COMPONENT);
    }
    active.retain(|r| !missing.iter().any(|m| r["name"] == m.as_str()));
}

/// `cleanupFinishedJobs`: finished Jobs beyond the history limits, oldest first.
fn cleanup(cj: &Value, children: &[Value], actions: &mut Actions) {
    for (kind, limit) in
        [("Complete", &cj["spec"]["successfulJobsHistoryLimit"]), ("Failed", &cj["spec"]["failedJobsHistoryLimit"])]
    {
        let Some(limit) = limit.as_i64() else { continue };
        let mut done: Vec<&Value> =
            children.iter().filter(|j| is_finished(j) && finished_type(j) == kind && !object::is_deleting(j)).collect();
        done.sort_by_key(|j| j["status"]["startTime"].as_str().unwrap_or_default().to_string());
        let excess = done.len().saturating_sub(limit.max(0) as usize);
        for job in done.into_iter().take(excess) {
            delete_job(cj, job, actions);
        }
    }
}

fn delete_job(cj: &Value, job: &Value, actions: &mut Actions) {
    actions.deletes.push(Removal {
        key: jobs::KEY,
        namespace: object::namespace(job).to_string(),
        name: object::name(job).to_string(),
        grace: None,
        propagation: Some("Background"),
    });
    actions.event(cj, EventType::Normal, "SuccessfulDelete", format!("Deleted job {}", object::name(job)), COMPONENT);
}

/// The scheduling half of `syncCronJob`: whether a Job is due now, and when to come back.
fn schedule(
    cj: &Value,
    children: &[Value],
    now: DateTime<Utc>,
    active: &mut Vec<Value>,
    status: &mut Value,
    actions: &mut Actions,
) -> Option<Duration> {
    let zone_name = cj["spec"]["timeZone"].as_str().unwrap_or_default();
    let zone = match time_zone(zone_name) {
        Ok(z) => z,
        Err(e) => {
            let message = format!("invalid timeZone: {zone_name:?}: {e}");
            actions.event(cj, EventType::Warning, "UnknownTimeZone", message, COMPONENT);
            return None;
        }
    };
    if cj["spec"]["suspend"] == true {
        return None;
    }
    let text = cj["spec"]["schedule"].as_str().unwrap_or_default();
    let spec = if zone_name.is_empty() { text.to_string() } else { format!("CRON_TZ={zone_name} {text}") };
    let sched = match Schedule::parse(&spec) {
        Ok(s) => s,
        Err(e) => {
            actions.event(
                cj,
                EventType::Warning,
                "UnparseableSchedule",
                format!("unparseable schedule: {text:?} : {e}"),
                COMPONENT,
            );
            return None;
        }
    };
    let next_after_now = sched.next(now).map(|t| t - now + Duration::milliseconds(100));
    let Some(scheduled) = most_recent(cj, &sched, now, actions) else { return next_after_now };
    if let Some(deadline) = cj["spec"]["startingDeadlineSeconds"].as_i64() {
        if scheduled + Duration::seconds(deadline) < now {
            let message =
                format!("Missed scheduled time to start a job: {}", scheduled.format("%a, %d %b %Y %H:%M:%S %z"));
            actions.event(cj, EventType::Warning, "MissSchedule", message, COMPONENT);
            return next_after_now;
        }
    }
    let name = job_name(cj, scheduled);
    let last = status["lastScheduleTime"].as_str().and_then(object::parse_time);
    if active.iter().any(|r| r["name"] == name.as_str()) || last == Some(scheduled) {
        return next_after_now;
    }
    match cj["spec"]["concurrencyPolicy"].as_str().unwrap_or("Allow") {
        "Forbid" if !active.is_empty() => {
            let message =
                "Not starting job because prior execution is running and concurrency policy is Forbid".to_string();
            actions.event(cj, EventType::Normal, "JobAlreadyActive", message, COMPONENT);
            return next_after_now;
        }
        "Replace" => {
            for r in active.drain(..) {
                if let Some(job) = children.iter().find(|j| j["metadata"]["name"] == r["name"]) {
                    delete_job(cj, job, actions);
                }
            }
        }
        _ => {}
    }
    let job = job_from_template(cj, scheduled, zone);
    actions.creates.push((jobs::KEY, job));
    actions.event(cj, EventType::Normal, "SuccessfulCreate", format!("Created job {name}"), COMPONENT);
    active.push(
        json!({"kind": "Job", "namespace": object::namespace(cj), "name": name, "uid": "", "apiVersion": "batch/v1"}),
    );
    status["lastScheduleTime"] = json!(object::timestamp(scheduled));
    next_after_now
}

/// `mostRecentScheduleTime`: the latest scheduled time after the last one (or the CronJob's
/// creation, or `now - startingDeadlineSeconds`) up to `now`; more than a hundred missed is told
/// (`TooManyMissedTimes`).
fn most_recent(cj: &Value, sched: &Schedule, now: DateTime<Utc>, actions: &mut Actions) -> Option<DateTime<Utc>> {
    let created = cj["metadata"]["creationTimestamp"].as_str().and_then(object::parse_time).unwrap_or(now);
    let mut earliest = cj["status"]["lastScheduleTime"].as_str().and_then(object::parse_time).unwrap_or(created);
    if let Some(deadline) = cj["spec"]["startingDeadlineSeconds"].as_i64() {
        earliest = earliest.max(now - Duration::seconds(deadline));
    }
    let mut t = sched.next(earliest)?;
    let mut latest = None;
    let mut missed = 0;
    while t <= now {
        latest = Some(t);
        missed += 1;
        if missed > 100 {
            let message =
                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
                    .to_string();
            actions.event(cj, EventType::Warning, "TooManyMissedTimes", message, COMPONENT);
            // The most recent time still runs: jump to the last one before now.
            let mut u = sched.next(now - Duration::days(1))?;
            while let Some(n) = sched.next(u).filter(|n| *n <= now) {
                u = n;
            }
            return (u <= now).then_some(u);
        }
        t = sched.next(t)?;
    }
    latest
}

#[cfg(test)]
#[path = "cronjobs_tests.rs"]
mod tests;
