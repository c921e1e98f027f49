//! One time axis of an object (#36 item 4): its Events, the changes its watch saw and, for a pod,
//! its containers' log lines, on one list by time, the newest first, filtered by source, each
//! entry saying where it came from so that the view can link to it.
//!
//! The times: an Event's last time (`series.lastObservedTime`, `eventTime`, `lastTimestamp`, as
//! [`EventRow::last_seen`] reads them), a change's write time (the newest time among the
//! `managedFields` entries the write moved: the API server stamps the entry of the manager that
//! wrote, to the second), a log line's stamp (`timestamps=true`, to the nanosecond). An entry
//! without a readable time has no place on the axis and is left out; so is a change no manager's
//! entry moved for (nothing says when it was made).
//!
//! Invariants: pure; at most `cap` entries, the newest kept; entries at the same time keep the
//! order Event, change, log line, then their own order.

use k8s_openapi::jiff::Timestamp;

use crate::field_owners_history::VersionChange;
use crate::logs::LogLine;
use crate::object_events::{EventRow, EventType};

/// Where an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    Event,
    Change,
    Log,
}

/// What an entry links to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The Event object.
    Event { name: String, namespace: Option<String> },
    /// The version the change made (its `resourceVersion`).
    Version { resource_version: String },
    /// The container whose log has the line.
    Log { container: String },
}

/// One entry of the axis. `headline` and `detail` are wire words (reasons, managers, paths, log
/// text): nothing in them is translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub at: Timestamp,
    pub source: Source,
    /// A Warning Event.
    pub warning: bool,
    /// An Event's reason; a change's managers (`manager (Operation[, subresource])`); a log line's
    /// container.
    pub headline: String,
    /// An Event's message; a change's fields; a log line's text.
    pub detail: String,
    pub origin: Origin,
}

/// Which sources are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    pub events: bool,
    pub changes: bool,
    pub logs: bool,
}

impl Default for Shown {
    fn default() -> Shown {
        Shown { events: true, changes: true, logs: true }
    }
}

impl Shown {
    pub fn with(self, source: Source, shown: bool) -> Shown {
        match source {
            Source::Event => Shown { events: shown, ..self },
            Source::Change => Shown { changes: shown, ..self },
            Source::Log => Shown { logs: shown, ..self },
        }
    }

    pub fn shows(self, source: Source) -> bool {
        match source {
            Source::Event => self.events,
            Source::Change => self.changes,
            Source::Log => self.logs,
        }
    }
}

/// How many fields a change's entry names before it says how many more there are.
const FIELDS_NAMED: usize = 4;

fn event_entry(row: &EventRow) -> Option<Entry> {
    let at = row.last_seen.parse::<Timestamp>().ok()?;
    let detail = if row.count > 1 { format!("{} (×{})", row.message, row.count) } else { row.message.clone() };
    Some(Entry {
        at,
        source: Source::Event,
        warning: row.event_type == EventType::Warning,
        headline: row.reason.clone(),
        detail,
        origin: Origin::Event { name: row.name.clone(), namespace: row.namespace.clone() },
    })
}

fn change_entry(change: &VersionChange) -> Option<Entry> {
    let at = change.moved.iter().filter_map(|m| m.time.parse::<Timestamp>().ok()).max()?;
    let headline = change
        .moved
        .iter()
        .map(|m| match m.subresource.as_str() {
            "" => format!("{} ({})", m.manager, m.operation),
            sub => format!("{} ({}, {sub})", m.manager, m.operation),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let mut fields: Vec<&str> = change.fields.iter().take(FIELDS_NAMED).map(|f| f.path.as_str()).collect();
    let more = change.fields.len().saturating_sub(FIELDS_NAMED);
    let more = (more > 0).then(|| format!("+{more}"));
    fields.extend(more.as_deref());
    Some(Entry {
        at,
        source: Source::Change,
        warning: false,
        headline,
        detail: fields.join(", "),
        origin: Origin::Version { resource_version: change.resource_version.clone() },
    })
}

fn log_entry(line: &LogLine) -> Option<Entry> {
    Some(Entry {
        at: line.time?,
        source: Source::Log,
        warning: false,
        headline: line.container.to_string(),
        detail: line.text.clone(),
        origin: Origin::Log { container: line.container.to_string() },
    })
}

/// The axis of `events`, `changes` and `lines` (any order), as `shown` filters it: the newest
/// first, at most `cap`.
pub fn axis<'a>(
    events: &[EventRow],
    changes: &[VersionChange],
    lines: impl IntoIterator<Item = &'a LogLine>,
    shown: Shown,
    cap: usize,
) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    if shown.events {
        entries.extend(events.iter().filter_map(event_entry));
    }
    if shown.changes {
        entries.extend(changes.iter().filter_map(change_entry));
    }
    if shown.logs {
        entries.extend(lines.into_iter().filter_map(log_entry));
    }
    // Stable: entries at the same time keep their source's order and their own.
    entries.sort_by(|a, b| b.at.cmp(&a.at).then(a.source.cmp(&b.source)));
    entries.truncate(cap);
    entries
}

#[cfg(test)]
#[path = "time_axis_tests.rs"]
mod tests;
