//! Transcripts of the CronJob controller driven by a clock the test holds: the CronJob and its
//! Jobs at a time in, the actions, status and next wake-up out.

use super::*;

fn at(s: &str) -> DateTime<Utc> {
    object::parse_time(s).expect("time")
}

fn cron_job(schedule: &str, extra: Value) -> Value {
    let mut cj = json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "tick", "namespace": "demo", "uid": "cj-uid", "creationTimestamp": "2026-03-01T10:00:30Z"},
        "spec": {"schedule": schedule, "concurrencyPolicy": "Allow", "suspend": false,
            "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
            "jobTemplate": {"metadata": {"labels": {"app": "tick"}}, "spec": {"template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "date", "image": "busybox", "command": ["date"]}]}}}}},
        "status": {}});
    if let Some(m) = extra.as_object() {
        for (k, v) in m {
            cj["spec"][k] = v.clone();
        }
    }
    cj
}

fn child(name: &str, finished: Option<(&str, &str)>) -> Value {
    let mut j = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "demo", "uid": format!("{name}-uid"),
        "ownerReferences": [{"kind": "CronJob", "name": "tick", "uid": "cj-uid", "controller": true}]},
        "status": {"startTime": format!("2026-03-01T{}Z", &name[5..])}});
    if let Some((kind, time)) = finished {
        j["status"]["conditions"] = json!([{"type": kind, "status": "True"}]);
        if kind == "Complete" {
            j["status"]["completionTime"] = json!(time);
        }
    }
    j
}

fn active(names: &[&str]) -> Value {
    json!(names.iter().map(|n| json!({"kind": "Job", "name": n, "namespace": "demo", "uid": format!("{n}-uid"), "apiVersion": "batch/v1"})).collect::<Vec<_>>())
}

fn status_of(actions: &Actions) -> Value {
    actions.updates.iter().find(|(k, _)| *k == KEY).map(|(_, c)| c["status"].clone()).unwrap_or(Value::Null)
}

#[test]
fn a_due_minute_creates_the_job_named_after_it() {
    let cj = cron_job("*/1 * * * *", json!({}));
    let (actions, again) = plan(&cj, &[], at("2026-03-01T10:01:05Z"));
    let minutes = at("2026-03-01T10:01:00Z").timestamp() / 60;
    assert_eq!(
        actions.transcript(),
        [
            format!("create Job tick-{minutes}"),
            "update CronJob tick".into(),
            format!("event Normal SuccessfulCreate: Created job tick-{minutes}")
        ]
    );
    let job = &actions.creates[0].1;
    assert_eq!(job["metadata"]["annotations"][SCHEDULED_TIMESTAMP], "2026-03-01T10:01:00Z");
    assert_eq!(job["metadata"]["labels"]["app"], "tick");
    assert_eq!(job["metadata"]["ownerReferences"][0]["kind"], "CronJob");
    assert_eq!(job["spec"]["template"]["spec"]["containers"][0]["command"], json!(["date"]));
    let st = status_of(&actions);
    assert_eq!(st["lastScheduleTime"], "2026-03-01T10:01:00Z");
    assert_eq!(st["active"][0]["name"], format!("tick-{minutes}"));
    assert_eq!(again, Some(Duration::milliseconds(55_100)), "back at the next minute");
}

#[test]
fn a_time_already_run_is_not_run_again_and_nothing_is_due_before_the_first() {
    let mut cj = cron_job("*/1 * * * *", json!({}));
    cj["status"] = json!({"lastScheduleTime": "2026-03-01T10:01:00Z"});
    let (actions, _) = plan(&cj, &[], at("2026-03-01T10:01:40Z"));
    assert!(actions.is_empty(), "{:?}", actions.transcript());
    let fresh = cron_job("0 * * * *", json!({}));
    let (actions, again) = plan(&fresh, &[], at("2026-03-01T10:20:00Z"));
    assert!(actions.is_empty());
    assert_eq!(again, Some(Duration::minutes(40) + Duration::milliseconds(100)));
}

#[test]
fn forbid_skips_while_a_job_runs_and_replace_deletes_it() {
    let mut cj = cron_job("*/1 * * * *", json!({"concurrencyPolicy": "Forbid"}));
    cj["status"] = json!({"active": active(&["tick-10:00:00"]), "lastScheduleTime": "2026-03-01T10:00:00Z"});
    let running = [child("tick-10:00:00", None)];
    let (actions, _) = plan(&cj, &running, at("2026-03-01T10:01:05Z"));
    assert_eq!(
        actions.transcript(),
        ["event Normal JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid"]
    );
    cj["spec"]["concurrencyPolicy"] = json!("Replace");
    let lines = plan(&cj, &running, at("2026-03-01T10:01:05Z")).0.transcript();
    assert!(lines.contains(&"delete Job tick-10:00:00".to_string()), "{lines:?}");
    assert!(lines.contains(&"event Normal SuccessfulDelete: Deleted job tick-10:00:00".to_string()), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("create Job tick-")), "{lines:?}");
}

#[test]
fn a_suspended_cron_job_runs_nothing_and_a_start_later_than_the_deadline_is_skipped() {
    let cj = cron_job("*/1 * * * *", json!({"suspend": true}));
    assert_eq!(plan(&cj, &[], at("2026-03-01T10:05:00Z")), (Actions::default(), None));
    // The deadline bounds how far back the controller looks (`mostRecentScheduleTime` with
    // `startingDeadlineSeconds`): 10:05 is more than 10 s ago, so it is skipped quietly.
    let late = cron_job("*/5 * * * *", json!({"startingDeadlineSeconds": 10}));
    let (actions, again) = plan(&late, &[], at("2026-03-01T10:05:30Z"));
    assert!(actions.is_empty(), "{:?}", actions.transcript());
    assert_eq!(again, Some(Duration::seconds(270) + Duration::milliseconds(100)));
    let (actions, _) = plan(&late, &[], at("2026-03-01T10:05:08Z"));
    assert_eq!(actions.creates.len(), 1, "within the deadline it runs");
}

#[test]
fn a_finished_job_leaves_the_active_list_and_sets_the_last_success() {
    let mut cj = cron_job("0 0 1 1 *", json!({}));
    cj["status"] = json!({"active": active(&["tick-10:01:00"]), "lastScheduleTime": "2026-03-01T10:01:00Z"});
    let done = [child("tick-10:01:00", Some(("Complete", "2026-03-01T10:01:09Z")))];
    let (actions, _) = plan(&cj, &done, at("2026-03-01T10:01:10Z"));
    assert_eq!(
        actions.transcript(),
        ["update CronJob tick", "event Normal SawCompletedJob: Saw completed job: tick-10:01:00, condition: Complete"]
    );
    let mut after = cj.clone();
    after["status"] = status_of(&actions);
    assert!(after["status"].get("active").is_none());
    let (actions, _) = plan(&after, &done, at("2026-03-01T10:01:11Z"));
    assert_eq!(status_of(&actions)["lastSuccessfulTime"], "2026-03-01T10:01:09Z");
}

#[test]
fn finished_jobs_beyond_the_history_limits_go_oldest_first() {
    let cj = cron_job("0 0 1 1 *", json!({}));
    let jobs = [
        child("tick-10:01:00", Some(("Complete", "2026-03-01T10:01:09Z"))),
        child("tick-10:02:00", Some(("Complete", "2026-03-01T10:02:09Z"))),
        child("tick-10:03:00", Some(("Complete", "2026-03-01T10:03:09Z"))),
        child("tick-10:04:00", Some(("Complete", "2026-03-01T10:04:09Z"))),
        child("tick-10:05:00", Some(("Failed", ""))),
        child("tick-10:06:00", Some(("Failed", ""))),
    ];
    let lines = plan(&cj, &jobs, at("2026-03-01T10:07:00Z")).0.transcript();
    let deletes: Vec<&String> = lines.iter().filter(|l| l.starts_with("delete")).collect();
    assert_eq!(deletes, ["delete Job tick-10:01:00", "delete Job tick-10:05:00"]);
}

#[test]
fn a_job_made_by_hand_is_told_but_not_counted_active() {
    let mut cj = cron_job("0 0 1 1 *", json!({}));
    cj["status"] = json!({"lastScheduleTime": "2026-01-01T00:00:00Z"});
    let manual = [child("tick-10:01:00", None)];
    let (actions, _) = plan(&cj, &manual, at("2026-03-01T10:01:10Z"));
    assert_eq!(
        actions.transcript(),
        ["event Warning UnexpectedJob: Saw a job that the controller did not create or forgot: tick-10:01:00"]
    );
}

#[test]
fn after_a_long_pause_only_the_most_recent_time_runs() {
    let mut cj = cron_job("*/1 * * * *", json!({}));
    cj["metadata"]["creationTimestamp"] = json!("2026-02-01T00:00:00Z");
    let (actions, _) = plan(&cj, &[], at("2026-03-01T10:01:05Z"));
    let lines = actions.transcript();
    assert_eq!(lines.iter().filter(|l| l.starts_with("create Job")).count(), 1, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("TooManyMissedTimes")), "{lines:?}");
    assert_eq!(status_of(&actions)["lastScheduleTime"], "2026-03-01T10:01:00Z");
}

#[test]
fn a_time_zone_moves_the_schedule_and_an_unknown_one_is_told() {
    let cj = cron_job("0 9 * * *", json!({"timeZone": "Etc/GMT-1"}));
    let (actions, _) = plan(&cj, &[], at("2026-03-02T08:00:30Z"));
    assert_eq!(actions.creates[0].1["metadata"]["annotations"][SCHEDULED_TIMESTAMP], "2026-03-02T09:00:00+01:00");
    let odd = cron_job("0 9 * * *", json!({"timeZone": "Mars/Olympus"}));
    let (actions, again) = plan(&odd, &[], at("2026-03-02T08:00:30Z"));
    assert_eq!(again, None);
    assert_eq!(
        actions.transcript(),
        ["event Warning UnknownTimeZone: invalid timeZone: \"Mars/Olympus\": unknown time zone Mars/Olympus"]
    );
}
