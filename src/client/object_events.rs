//! `use_object_events`: the live Events of one object. It runs the watch
//! [`model::object_events::plan`](crate::model::object_events::plan) chose through the reflector
//! (`client::reflector`, aborted with its owner) and hands the view the rows, latest first,
//! rebuilt whenever a step changed the cache.

use leptos::prelude::*;

use crate::api::discovery::{Discovery, ResourceType};
use crate::api::reflector::Change;
use crate::api::watch::WatchEvent;
use crate::client::reflector::{use_reflector, ReflectorObserver, ReflectorStore};
use crate::i18n::{Localized, Text};
use crate::model::object_events::{plan, rows, EventRow, EventsApi, Regarding};

/// What [`use_object_events`] gives the view.
#[derive(Clone, Copy)]
pub struct UseObjectEvents {
    /// The Events, the latest first.
    pub rows: RwSignal<Vec<EventRow>>,
    /// The first list has been read: an empty `rows` now means there are none.
    pub synced: RwSignal<bool>,
    /// Why the Events cannot be shown, or the watch's last problem.
    pub problem: Signal<Option<Text>>,
    /// The connection state, as a status line shows it.
    pub state: Signal<Option<Text>>,
    /// The API watched and its Event type (for links), `None` when none could be.
    pub source: StoredValue<Option<(EventsApi, ResourceType)>>,
}

struct Observer {
    store: ReflectorStore,
    rows: RwSignal<Vec<EventRow>>,
    synced: RwSignal<bool>,
}

impl ReflectorObserver for Observer {
    type Seen = ();

    fn before_event(&self, _: &WatchEvent, _: u64, _: f64) {}

    fn after_event(&self, _: &crate::api::reflector::Reflector, _: Option<crate::api::reflector::ObjectKey>, _: ()) {}

    fn stepped(&self, changes: Vec<Change>) {
        let mut changed = false;
        for change in &changes {
            match change {
                Change::Upsert(_) | Change::Delete(_) => changed = true,
                Change::InitialListComplete => {
                    changed = true;
                    self.synced.set(true);
                }
                Change::Columns | Change::Problem(_) | Change::State(_) => {}
            }
        }
        if changed {
            let reflector = self.store.reflector();
            let values: Vec<_> =
                reflector.store().iter().filter_map(|(_, cached)| cached.object.value().ok()).collect();
            self.rows.set(rows(values.iter().map(|v| v.as_ref())));
        }
    }
}

/// Watches the Events of `regarding` for the current owner (stopped when it is cleaned up).
pub fn use_object_events(discovery: &Discovery, regarding: &Regarding) -> UseObjectEvents {
    let rows = RwSignal::new(Vec::new());
    let synced = RwSignal::new(false);
    let plan = match plan(discovery, regarding) {
        Ok(plan) => plan,
        Err(error) => {
            let text = error.text();
            return UseObjectEvents {
                rows,
                synced,
                problem: Signal::derive(move || Some(text.clone())),
                state: Signal::derive(|| None),
                source: StoredValue::new(None),
            };
        }
    };
    let source = StoredValue::new(Some((plan.api, plan.resource.clone())));
    let watch = use_reflector(plan.config, None, |store| Observer { store, rows, synced });
    let (problem, state) = (watch.problem, watch.state);
    UseObjectEvents {
        rows,
        synced,
        problem: Signal::derive(move || problem.get()),
        state: Signal::derive(move || Some(state.get())),
        source,
    }
}
