//! Transcripts of the time axis: Events, changes and log lines in, one ordered list out.

use std::sync::Arc;

use kube_wire::write::diff::ChangeKind;

use super::*;
use crate::field_owners::ManagerMove;
use crate::field_owners_history::ChangedField;

fn event(name: &str, reason: &str, at: &str, warning: bool, count: u64) -> EventRow {
    EventRow {
        name: name.into(),
        namespace: Some("demo".into()),
        event_type: if warning { EventType::Warning } else { EventType::Normal },
        reason: reason.into(),
        count,
        reporter: "kubelet".into(),
        message: format!("{reason} happened"),
        last_seen: at.into(),
    }
}

fn moved(manager: &str, operation: &str, subresource: &str, time: &str) -> ManagerMove {
    ManagerMove {
        manager: manager.into(),
        operation: operation.into(),
        subresource: subresource.into(),
        time: time.into(),
        gained: Vec::new(),
        lost: Vec::new(),
    }
}

fn field(path: &str) -> ChangedField {
    ChangedField { path: path.into(), kind: ChangeKind::Changed, before: None, after: None, manager: None }
}

fn line(container: &str, stamp: &str, text: &str) -> LogLine {
    LogLine::parse(&Arc::from(container), format!("{stamp} {text}"))
}

/// The axis as lines: time, source, headline, detail.
fn lines(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| format!("{} {:?}{} {} | {}", e.at, e.source, if e.warning { "!" } else { "" }, e.headline, e.detail))
        .collect()
}

fn sample() -> (Vec<EventRow>, Vec<VersionChange>, Vec<LogLine>) {
    let events = vec![
        event("web.1", "Scheduled", "2026-03-01T10:00:00Z", false, 1),
        event("web.2", "BackOff", "2026-03-01T10:00:05Z", true, 3),
        event("web.3", "NoTime", "", false, 1),
    ];
    let changes = vec![
        VersionChange {
            resource_version: "12".into(),
            moved: vec![moved("kubelet", "Update", "status", "2026-03-01T10:00:02Z")],
            fields: [
                "status.phase",
                "status.podIP",
                "status.conditions",
                "status.startTime",
                "status.hostIP",
                "status.qosClass",
            ]
            .into_iter()
            .map(field)
            .collect(),
        },
        VersionChange {
            resource_version: "15".into(),
            moved: vec![
                moved("kubectl-label", "Update", "", "2026-03-01T10:00:05Z"),
                moved("old", "Apply", "", "2026-03-01T09:00:00Z"),
            ],
            fields: vec![field("metadata.labels.tier")],
        },
        VersionChange {
            resource_version: "16".into(),
            moved: Vec::new(),
            fields: vec![field("metadata.annotations.x")],
        },
    ];
    let logs = vec![
        line("web", "2026-03-01T10:00:03.250000000Z", "listening on :80"),
        line("web", "2026-03-01T10:00:06.000000001Z", "GET / 200"),
        LogLine::parse(&Arc::from("web"), "a line with no stamp".into()),
    ];
    (events, changes, logs)
}

#[test]
fn events_changes_and_log_lines_are_one_list_by_time_newest_first() {
    let (events, changes, logs) = sample();
    assert_eq!(
        lines(&axis(&events, &changes, &logs, Shown::default(), 100)),
        [
            "2026-03-01T10:00:06.000000001Z Log web | GET / 200",
            "2026-03-01T10:00:05Z Event! BackOff | BackOff happened (×3)",
            "2026-03-01T10:00:05Z Change kubectl-label (Update), old (Apply) | metadata.labels.tier",
            "2026-03-01T10:00:03.25Z Log web | listening on :80",
            "2026-03-01T10:00:02Z Change kubelet (Update, status) | status.phase, status.podIP, status.conditions, status.startTime, +2",
            "2026-03-01T10:00:00Z Event Scheduled | Scheduled happened",
        ],
        "an entry without a time (an Event with none, a change no manager moved for, an unstamped line) is left out"
    );
    let entries = axis(&events, &changes, &logs, Shown::default(), 100);
    assert_eq!(entries[0].origin, Origin::Log { container: "web".into() });
    assert_eq!(entries[1].origin, Origin::Event { name: "web.2".into(), namespace: Some("demo".into()) });
    assert_eq!(entries[2].origin, Origin::Version { resource_version: "15".into() });
}

#[test]
fn sources_are_filtered_and_the_newest_kept_within_the_cap() {
    let (events, changes, logs) = sample();
    let no_logs = Shown::default().with(Source::Log, false);
    assert!(!no_logs.shows(Source::Log) && no_logs.shows(Source::Event));
    let sources: Vec<Source> = axis(&events, &changes, &logs, no_logs, 100).iter().map(|e| e.source).collect();
    assert_eq!(sources, [Source::Event, Source::Change, Source::Change, Source::Event]);
    let only_changes = Shown { events: false, changes: true, logs: false };
    assert_eq!(axis(&events, &changes, &logs, only_changes, 100).len(), 2);
    let newest_two = axis(&events, &changes, &logs, Shown::default(), 2);
    assert_eq!(lines(&newest_two).len(), 2);
    assert_eq!(newest_two[0].source, Source::Log);
    assert_eq!(newest_two[1].headline, "BackOff");
    assert!(axis(&[], &[], &[], Shown::default(), 10).is_empty());
}
