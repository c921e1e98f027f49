//! `use_time_axis`: one time axis of an object (#36 item 4). It takes the object's Events and the
//! changes its watch saw from the hooks the screen already runs (no second watch), and, for a
//! pod, follows its app containers' logs (the last [`TAIL_LINES`] of each, then what comes, with
//! the log view's machine and driver) while the axis is open; [`model::time_axis::axis`]
//! (crate::model::time_axis::axis) puts them on one list. The follow ends with the calling
//! component.

use leptos::prelude::*;

use crate::client::field_owners::UseFieldOwners;
use crate::client::logs::use_log_follow;
use crate::client::object_events::UseObjectEvents;
use crate::model::log_follow::{LogAsk, LogFollow, LogSource, ALL_CONTAINERS};
use crate::model::time_axis::{axis, Entry, Shown};

/// The log lines each container starts with.
pub const TAIL_LINES: u32 = 100;
/// The entries the axis keeps, the newest.
pub const CAP: usize = 500;

/// What [`use_time_axis`] gives the view.
#[derive(Clone, Copy)]
pub struct UseTimeAxis {
    /// The entries shown, the newest first.
    pub entries: Memo<Vec<Entry>>,
    /// Which sources are shown.
    pub shown: RwSignal<Shown>,
    /// The pod's log as it is followed (`None` for any other object): its failures are the
    /// view's to say.
    pub log: Option<ReadSignal<LogFollow>>,
}

/// The axis of an object: `events` (none when its Events cannot be watched), `owners` (its
/// watched versions) and, for a pod, `log`.
pub fn use_time_axis(events: Option<UseObjectEvents>, owners: UseFieldOwners, log: Option<LogSource>) -> UseTimeAxis {
    let shown = RwSignal::new(Shown::default());
    let follow = log.map(|source| {
        let follow = use_log_follow(source);
        follow.start.run(LogAsk {
            container: ALL_CONTAINERS.to_owned(),
            follow: true,
            previous: false,
            since_seconds: None,
            tail_lines: Some(TAIL_LINES),
        });
        follow
    });
    let entries = Memo::new(move |_| {
        let shown = shown.get();
        let rows = events.map(|events| events.rows.get()).unwrap_or_default();
        owners.changes.with(|changes| match follow {
            Some(follow) => follow.log.with(|log| axis(&rows, changes, log.shown().lines(), shown, CAP)),
            None => axis(&rows, changes, std::iter::empty(), shown, CAP),
        })
    });
    UseTimeAxis { entries, shown, log: follow.map(|follow| follow.log) }
}
