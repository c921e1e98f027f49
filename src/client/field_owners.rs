//! `use_field_owners`: who owns each field of one object and who changed what since its screen
//! opened. It watches the one object ([`model::field_owners_history::watch_plan`]) through the
//! reflector (aborted with its owner), keeps the versions it sees in a bounded
//! [`ObjectHistory`], and hands the view the owners of the newest version and each version's
//! changes, derived by the model.
//!
//! [`model::field_owners_history::watch_plan`]: crate::model::field_owners_history::watch_plan

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::reflector::{Change, ObjectKey, Reflector};
use crate::api::watch::lazy::LazyObject;
use crate::api::watch::WatchEvent;
use crate::client::reflector::{use_reflector, ReflectorObserver, ReflectorStore};
use crate::i18n::{Localized, Text};
use crate::model::field_owners::{entries, owned_fields, OwnedField};
use crate::model::field_owners_history::{
    changes, field_history, freshness, gone_after, watch_plan, FieldStep, Freshness, VersionChange,
};
use crate::model::history::ObjectHistory;

/// How many versions of the object are kept (the oldest goes first).
const VERSIONS_KEPT: usize = 30;
/// The one name the history keeps its versions under.
const THE_OBJECT: &str = "object";

/// What [`use_field_owners`] gives the view.
#[derive(Clone, Copy)]
pub struct UseFieldOwners {
    /// Each owned path of the newest version with its manager, sorted by path.
    pub owned: RwSignal<Vec<OwnedField>>,
    /// Each version's changes against the one before, the newest first.
    pub changes: RwSignal<Vec<VersionChange>>,
    /// The versions seen, oldest first (for a field's history).
    seen: RwSignal<Vec<Arc<Value>>>,
    /// Whether the watch saw the object deleted (and not made again since).
    gone: RwSignal<bool>,
    /// Why the versions cannot be read or watched, or the watch's last problem.
    pub problem: Signal<Option<Text>>,
    /// The connection state of the watch, as a status line shows it.
    pub state: Signal<Option<Text>>,
}

impl UseFieldOwners {
    /// The newest version the watch has seen, if any (tracked).
    pub fn newest(&self) -> Option<Arc<Value>> {
        self.seen.with(|seen| seen.last().cloned())
    }

    /// The history of the owned path `path` across the versions seen, oldest first (tracked).
    pub fn field_history(&self, path: &str) -> Result<Vec<FieldStep>, Text> {
        self.seen.with(|seen| {
            let versions: Vec<&Value> = seen.iter().map(Arc::as_ref).collect();
            field_history(&versions, path).map_err(|e| e.text())
        })
    }

    /// How the version `shown` (as a screen read it) stands against what the watch saw since
    /// (tracked).
    pub fn freshness(&self, shown: &Value) -> Freshness {
        let gone = self.gone.get();
        self.seen.with(|seen| {
            let versions: Vec<&Value> = seen.iter().map(Arc::as_ref).collect();
            freshness(shown, &versions, gone)
        })
    }
}

/// Keeps the versions and derives what the view shows from them.
struct Versions {
    history: RefCell<ObjectHistory>,
    last: RefCell<String>,
    owned: RwSignal<Vec<OwnedField>>,
    changes: RwSignal<Vec<VersionChange>>,
    seen: RwSignal<Vec<Arc<Value>>>,
    problem: RwSignal<Option<Text>>,
}

impl Versions {
    /// Records `object` unless it is the version recorded last.
    fn record(&self, object: Arc<LazyObject>) {
        let rv = object.head().resource_version.clone().unwrap_or_default();
        if *self.last.borrow() == rv && !rv.is_empty() {
            return;
        }
        self.last.replace(rv.clone());
        self.history.borrow_mut().record(Arc::from(THE_OBJECT), rv, object);
    }

    /// Derives the owners and the changes from the versions kept, and publishes them.
    fn publish(&self) {
        let kept = self.history.borrow().versions(THE_OBJECT);
        let mut seen = Vec::with_capacity(kept.len());
        for (_, object) in kept {
            match object.value() {
                Ok(value) => seen.push(value),
                Err(error) => return self.problem.set(Some(error.text())),
            }
        }
        let versions: Vec<&Value> = seen.iter().map(Arc::as_ref).collect();
        let derived = versions
            .last()
            .map_or(Ok(Vec::new()), |newest| entries(newest))
            .and_then(|newest| Ok((owned_fields(&newest), changes(&versions)?)));
        match derived {
            Ok((owned, changes)) => {
                self.owned.set(owned);
                self.changes.set(changes);
                self.problem.set(None);
            }
            Err(error) => self.problem.set(Some(error.text())),
        }
        self.seen.set(seen);
    }
}

struct Observer {
    store: ReflectorStore,
    versions: Rc<Versions>,
    gone: RwSignal<bool>,
}

impl Observer {
    fn record_key(&self, reflector: &Reflector, key: &ObjectKey) {
        if let Some(cached) = reflector.store().get(key) {
            self.versions.record(cached.object.clone());
        }
    }
}

impl ReflectorObserver for Observer {
    type Seen = ();

    fn before_event(&self, _: &WatchEvent, _: u64, _: f64) {}

    /// Each watch event's version, so that two events applied in one step are two versions.
    fn after_event(&self, reflector: &Reflector, key: Option<ObjectKey>, _: ()) {
        if let Some(key) = key {
            self.record_key(reflector, &key);
        }
    }

    /// The versions a step brought (the initial list's, or events' not recorded yet), then
    /// what the view shows, derived again.
    fn stepped(&self, changes: Vec<Change>) {
        let cached = !self.store.reflector().store().is_empty();
        let gone = gone_after(self.gone.get_untracked(), &changes, cached);
        if gone != self.gone.get_untracked() {
            self.gone.set(gone);
        }
        let upserted: Vec<&ObjectKey> = changes
            .iter()
            .filter_map(|change| match change {
                Change::Upsert(key) => Some(key),
                _ => None,
            })
            .collect();
        if upserted.is_empty() {
            return;
        }
        {
            let reflector = self.store.reflector();
            for key in upserted {
                self.record_key(&reflector, key);
            }
        }
        self.versions.publish();
    }
}

/// Watches the object `name` of `resource` in `namespace`, starting from `document` (the version
/// its screen read, when it has read one yet; else from the watch's first list), for the current
/// owner (stopped when it is cleaned up).
pub fn use_field_owners(
    resource: &ResourceType,
    namespace: Option<&str>,
    name: &str,
    document: Option<&Value>,
) -> UseFieldOwners {
    let problem = RwSignal::new(None);
    let versions = Rc::new(Versions {
        history: RefCell::new(ObjectHistory::new(VERSIONS_KEPT, VERSIONS_KEPT)),
        last: RefCell::new(String::new()),
        owned: RwSignal::new(Vec::new()),
        changes: RwSignal::new(Vec::new()),
        seen: RwSignal::new(Vec::new()),
        problem,
    });
    if let Some(document) = document {
        versions.record(Arc::new(LazyObject::from_value(document.clone())));
        versions.publish();
    }
    let (owned, changes, seen) = (versions.owned, versions.changes, versions.seen);
    let gone = RwSignal::new(false);
    let config = match watch_plan(resource, namespace, name) {
        Ok(config) => config,
        Err(error) => {
            let text = error.text();
            return UseFieldOwners {
                owned,
                changes,
                seen,
                gone,
                problem: Signal::derive(move || problem.get().or_else(|| Some(text.clone()))),
                state: Signal::derive(|| None),
            };
        }
    };
    let watch = use_reflector(config, None, |store| Observer { store, versions, gone });
    let (watch_problem, state) = (watch.problem, watch.state);
    UseFieldOwners {
        owned,
        changes,
        seen,
        gone,
        problem: Signal::derive(move || problem.get().or_else(|| watch_problem.get())),
        state: Signal::derive(move || Some(state.get())),
    }
}
