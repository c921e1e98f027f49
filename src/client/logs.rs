//! `use_log_follow`: the edge of the log machine ([`LogFollow`]). It runs the machine's actions:
//! a read over `fetch` (seen by the wire inspector), a follow streamed over `fetch` in a slot of
//! the page's stream budget, chunk by chunk, a wait as a timeout, a close as an abort; and feeds
//! every outcome back. Its work is the owner's ([`Client::tasks`]): when the view goes away its
//! streams are aborted and what still arrives is dropped unread.
//!
//! Lines are drawn at most every [`RENDER_MS`] (a burst of chunks is drawn once); a change of
//! phase or of the pause at once.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use web_sys::AbortController;

use crate::api::request::Request;
use crate::client::error::ApiError;
use crate::client::fetch::sleep;
use crate::client::fetched::Fetched;
use crate::client::handle::{use_client, Client};
use crate::i18n::{Localized, Msg, Text};
use crate::model::log_follow::{Action, ConnectionId, Input, LogAsk, LogFailure, LogFollow, LogSource, Redraw};
use crate::model::logs::DEFAULT_CAP;

/// How often a burst of lines is drawn at most (ms).
const RENDER_MS: u64 = 100;

/// What [`use_log_follow`] gives the view.
#[derive(Clone, Copy)]
pub struct UseLogFollow {
    /// The log: the lines shown, each container's phase, the lines held while paused.
    pub log: ReadSignal<LogFollow>,
    /// Reads (or follows) anew with these options.
    pub start: Callback<LogAsk>,
    /// Holds what is shown (`true`) while lines keep coming, or shows everything again.
    pub pause: Callback<bool>,
}

/// The log of `source`'s pod for the current owner (its streams end when the owner is cleaned
/// up). Nothing is read until [`UseLogFollow::start`].
pub fn use_log_follow(source: LogSource) -> UseLogFollow {
    let machine = RwSignal::new(LogFollow::new(source, DEFAULT_CAP));
    let driver = Rc::new(Driver {
        client: use_client(),
        machine,
        controllers: RefCell::new(HashMap::new()),
        render_pending: Cell::new(false),
    });
    let leaving = SendWrapper::new(driver.clone());
    on_cleanup(move || leaving.abort_all());
    let starting = SendWrapper::new(driver.clone());
    let start = Callback::new(move |ask: LogAsk| starting.feed(Input::Start(ask)));
    let pausing = SendWrapper::new(driver);
    let pause = Callback::new(move |paused: bool| pausing.feed(Input::Pause(paused)));
    UseLogFollow { log: machine.read_only(), start, pause }
}

struct Driver {
    client: Client,
    machine: RwSignal<LogFollow>,
    /// The open follows, to abort by their connection.
    controllers: RefCell<HashMap<ConnectionId, AbortController>>,
    render_pending: Cell<bool>,
}

impl Driver {
    /// Steps the machine with `input` and runs what it answers.
    fn feed(self: &Rc<Self>, input: Input) {
        let Some(step) = self.machine.try_update_untracked(|m| m.step(input)) else { return };
        match step.redraw {
            Redraw::No => {}
            Redraw::Now => self.machine.notify(),
            Redraw::Soon => self.redraw_soon(),
        }
        for action in step.actions {
            self.run(action);
        }
    }

    fn redraw_soon(self: &Rc<Self>) {
        if self.render_pending.replace(true) {
            return;
        }
        let driver = self.clone();
        self.client.tasks().spawn(async move {
            sleep(Duration::from_millis(RENDER_MS)).await;
            driver.render_pending.set(false);
            if !driver.machine.is_disposed() {
                driver.machine.notify();
            }
        });
    }

    fn run(self: &Rc<Self>, action: Action) {
        let driver = self.clone();
        match action {
            Action::Read { id, request } => self.client.tasks().spawn(async move {
                let body = driver.read(request).await;
                driver.feed(Input::Read { id, body });
            }),
            Action::Follow { id, request } => {
                let Ok(controller) = AbortController::new() else {
                    let failure = LogFailure::Unanswered(Text::new(Msg::ServerRefusedLog));
                    return self.feed(Input::Refused { id, failure });
                };
                let signal = controller.signal();
                self.controllers.borrow_mut().insert(id, controller);
                self.client.tasks().spawn(async move {
                    driver.follow(id, request, signal).await;
                    driver.controllers.borrow_mut().remove(&id);
                });
            }
            Action::Wait { id, ms } => self.client.tasks().spawn(async move {
                sleep(Duration::from_millis(u64::from(ms))).await;
                driver.feed(Input::Waited { id });
            }),
            Action::Close { id } => {
                if let Some(controller) = self.controllers.borrow_mut().remove(&id) {
                    controller.abort();
                }
            }
        }
    }

    /// The body of a read, or why there is none.
    async fn read(&self, request: Request) -> Result<Vec<u8>, LogFailure> {
        let fetched = self.client.send_undecoded(request).await.map_err(|e| LogFailure::Unanswered(e.text()))?;
        if fetched.response.is_success() {
            return Ok(fetched.response.body.to_vec());
        }
        Err(fetched.error().map_or_else(|| LogFailure::Unanswered(Text::new(Msg::NoFailure)), failure))
    }

    /// Opens a follow and feeds its opening, its chunks and its end.
    async fn follow(self: &Rc<Self>, id: ConnectionId, request: Request, signal: web_sys::AbortSignal) {
        let mut stream = match self.client.open_watch(&request, &signal).await {
            // Closed while it waited for a slot of the stream budget.
            None => return,
            Some(Err(error)) => {
                leptos::logging::debug_warn!("a log follow could not be opened ({error}); reconnecting");
                return self.feed(Input::Closed { id });
            }
            Some(Ok(stream)) => stream,
        };
        if !(200..300).contains(&stream.status) {
            let url = self.client.absolute_url(&request);
            let error = match stream.into_response(url).await {
                Ok(response) => Fetched::new(request, response).error().map(failure),
                Err(cut) => Some(LogFailure::Unanswered(cut.text())),
            };
            let failure = error.unwrap_or_else(|| LogFailure::Unanswered(Text::new(Msg::ServerRefusedLog)));
            return self.feed(Input::Refused { id, failure });
        }
        self.feed(Input::Opened { id });
        loop {
            match stream.next_chunk().await {
                Ok(Some(bytes)) => self.feed(Input::Chunk { id, bytes }),
                Ok(None) => break,
                Err(cut) => {
                    leptos::logging::debug_warn!("a log follow was cut ({cut})");
                    break;
                }
            }
        }
        self.feed(Input::Closed { id });
    }

    fn abort_all(&self) {
        for (_, controller) in self.controllers.borrow_mut().drain() {
            controller.abort();
        }
    }
}

/// A failed answer as the log machine keeps it: the server's `Status`, or the error worded.
fn failure(error: ApiError) -> LogFailure {
    match error {
        ApiError::Status(status) => LogFailure::Status(status),
        other => LogFailure::Unanswered(other.text()),
    }
}
