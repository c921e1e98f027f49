//! The Search screen's driver: [`PARALLEL_TYPES`] tasks each take the next type of a
//! [`SearchRun`] (`model::search`, where the plan, the matching and the counts live) and follow its
//! pages until the last, a 403 or another failure. A new search, Stop, or leaving the screen
//! aborts the requests in flight (the screen's client handle) and bumps a generation that every
//! task checks after each await, so nothing of an old search lands in a new one. The last search
//! is kept for the back button: opening a match and coming back shows it again without listing
//! anything.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;

use crate::api::view::metadata::ObjectHeadList;
use crate::api::view::status::StatusExt;
use crate::client::fetch::ClientError;
use crate::client::fetched::Fetched;
use crate::client::handle::{use_client, Client};
use crate::i18n::{Localized, Msg, Text};
use crate::model::load_all::{status_stop, EXPIRED_EXPLANATION};
use crate::model::search::{read_page, SearchPlan, SearchQuery, SearchRun, TypeFailure, PARALLEL_TYPES};

/// The Search screen's driver, with the screen's client handle.
pub fn use_search() -> SearchDriver {
    SearchDriver {
        client: StoredValue::new(use_client()),
        run: RwSignal::new(None),
        timing: RwSignal::new(None),
        generation: StoredValue::new(0),
    }
}

/// When a search ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// `Date.now()` when it started and when its last type finished (or it was stopped).
    pub started: f64,
    pub finished: Option<f64>,
    /// Shown again from [`LAST`] rather than run now.
    pub kept: bool,
}

thread_local! {
    /// The last search that ended, for the back button (the screen is unmounted while an object
    /// found is open).
    static LAST: RefCell<Option<(SearchRun, Timing)>> = const { RefCell::new(None) };
}

/// The search the screen runs: its state, when it ran, and which run is current.
#[derive(Clone, Copy)]
pub struct SearchDriver {
    /// The screen's handle: its requests end with the screen, or on Stop.
    client: StoredValue<Client>,
    /// The search shown (running, stopped, done, or kept from before).
    pub run: RwSignal<Option<SearchRun>>,
    /// When it ran.
    pub timing: RwSignal<Option<Timing>>,
    generation: StoredValue<u64>,
}

impl SearchDriver {
    fn is_current(self, generation: u64) -> bool {
        self.generation.try_get_value() == Some(generation)
    }

    /// Ends the current search's requests; its state stays as it is.
    fn abandon(self) -> u64 {
        self.generation.update_value(|g| *g += 1);
        self.client.with_value(Client::abort_in_flight);
        self.generation.get_value()
    }

    /// No search: the one running ends, nothing is shown.
    pub fn clear(self) {
        self.abandon();
        self.run.set(None);
    }

    /// Shows `query`'s last search again when `fresh` allows it and it is the one kept for the
    /// back button; else runs it from `plan`.
    pub fn run_or_show_kept(self, query: SearchQuery, fresh: bool, plan: impl FnOnce() -> SearchPlan) {
        let kept =
            (!fresh).then(|| LAST.with(|last| last.borrow().clone())).flatten().filter(|(run, _)| run.query == query);
        match kept {
            Some((run, timing)) => self.show_kept(run, timing),
            None => self.start(SearchRun::new(query, plan())),
        }
    }

    fn start(self, run: SearchRun) {
        let generation = self.abandon();
        self.run.set(Some(run));
        self.timing.set(Some(Timing { started: js_sys::Date::now(), finished: None, kept: false }));
        let Some(tasks) = self.client.try_with_value(Client::tasks) else { return };
        for _ in 0..PARALLEL_TYPES {
            tasks.spawn(self.work(generation));
        }
    }

    fn show_kept(self, run: SearchRun, timing: Timing) {
        self.abandon();
        self.run.set(Some(run));
        self.timing.set(Some(Timing { kept: true, ..timing }));
    }

    /// Stop: the requests in flight end, the types not done are marked so.
    pub fn stop(self) {
        self.abandon();
        self.run.update(|run| {
            if let Some(run) = run {
                run.stop();
            }
        });
        self.finish();
    }

    /// Records the end of the search and keeps it for the back button.
    fn finish(self) {
        self.timing.update(|timing| {
            if let Some(timing) = timing.as_mut().filter(|t| t.finished.is_none()) {
                timing.finished = Some(js_sys::Date::now());
            }
        });
        if let (Some(run), Some(timing)) = (self.run.get_untracked(), self.timing.get_untracked()) {
            LAST.with(|last| *last.borrow_mut() = Some((run, timing)));
        }
    }

    /// One of the tasks: takes the next type and follows its pages to the end, then the next.
    async fn work(self, generation: u64) {
        loop {
            if !self.is_current(generation) {
                return;
            }
            let Some(job) = self.run.try_update(|run| run.as_mut().and_then(SearchRun::next_job)).flatten() else {
                break;
            };
            let mut request = job.request;
            loop {
                let Some(client) = self.client.try_get_value() else { return };
                let outcome = client.send_undecoded(request).await;
                if !self.is_current(generation) {
                    return;
                }
                let next = match read_answer(outcome) {
                    Ok(page) => self
                        .run
                        .try_update(|run| run.as_mut().and_then(|run| run.apply_page(job.index, page)))
                        .flatten(),
                    Err(failure) => {
                        self.run.try_update(|run| {
                            if let Some(run) = run {
                                run.fail(job.index, failure);
                            }
                        });
                        None
                    }
                };
                match next {
                    Some(next) => request = next,
                    None => break,
                }
            }
        }
        let over = self.run.try_with_untracked(|run| run.as_ref().is_some_and(|run| !run.is_running()));
        if self.is_current(generation) && over == Some(true) {
            self.finish();
        }
    }
}

/// A type's page as the model takes it: the objects' heads, or why there are none.
fn read_answer(outcome: Result<Arc<Fetched>, ClientError>) -> Result<ObjectHeadList, TypeFailure> {
    let fetched = outcome.map_err(|e| TypeFailure::Failed(Text::new(Msg::NetworkFailureWith).with_text("error", e)))?;
    if !fetched.response.is_success() {
        return Err(match fetched.error() {
            Some(error) if error.is_forbidden() => {
                TypeFailure::Forbidden(error.status().map_or_else(|| error.text(), |s| Text::verbatim(&s.message)))
            }
            Some(error) => TypeFailure::Failed(match error.status() {
                Some(status) if status.is_expired() => Text::new(EXPIRED_EXPLANATION),
                Some(status) => status_stop(status),
                None => error.text(),
            }),
            None => TypeFailure::Failed(Text::verbatim(format!(
                "HTTP {} {}",
                fetched.response.status, fetched.response.status_text
            ))),
        });
    }
    read_page(fetched.content_type.as_ref(), &fetched.response.body).map_err(|e| {
        TypeFailure::Failed(
            Text::new(Msg::AnsweredWith)
                .with("url", &fetched.response.url)
                .with("status", fetched.response.status)
                .with_text("message", e),
        )
    })
}
