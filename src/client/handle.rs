//! [`Client`]: the one way anything reaches the API. It holds the API base, the write gate (the
//! read-only switch, the user's or the host page's) and the observers that see every exchange
//! (the wire inspector subscribes); a component takes a handle with [`use_client`], and the
//! requests it sends through that handle are aborted when the component is cleaned up, so a view
//! that goes away stops its fetches ("load all" included).
//!
//! Invariant: a write (POST, PUT, PATCH, DELETE) is checked against the gate here, where requests
//! leave the app, whatever button made it; a refused write never reaches `fetch`. The create of a
//! review (SelfSubjectReview, SelfSubjectRulesReview, SelfSubjectAccessReview) stores nothing and
//! passes the gate: [`Request::changes_state`] decides, not the method alone.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use web_sys::{AbortController, AbortSignal};

use crate::api::request::Request;
use crate::client::error::ApiError;
use crate::client::fetch::{execute, open, ClientError, Response, Stream};
use crate::client::fetched::{decode_response, Fetched};
use crate::client::stream::Permit;
use crate::client::task::Tasks;
use crate::model::host::ApiBase;

/// One exchange as the observers see it: what was sent, where, and what came back (or why
/// nothing did).
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub request: Request,
    pub url: String,
    /// Shared with the caller: observers hold the same response, not a copy of it.
    pub outcome: Result<Arc<Fetched>, ClientError>,
}

/// The requests of one owner, aborted together when it is cleaned up, and the tasks that wait
/// for them, dropped then.
struct Scope {
    next: Cell<u64>,
    in_flight: RefCell<HashMap<u64, AbortController>>,
    tasks: Tasks,
}

impl Scope {
    /// A controller for a new request of this scope, and its id to release it by.
    fn start(&self) -> Option<(u64, AbortController)> {
        let controller = AbortController::new().ok()?;
        let id = self.next.get();
        self.next.set(id + 1);
        self.in_flight.borrow_mut().insert(id, controller.clone());
        Some((id, controller))
    }

    fn finish(&self, id: u64) {
        self.in_flight.borrow_mut().remove(&id);
    }

    fn abort_all(&self) {
        for (_, controller) in self.in_flight.borrow_mut().drain() {
            controller.abort();
        }
    }
}

/// The API as the views reach it. Cheap to clone; provided as context by the app.
#[derive(Clone)]
pub struct Client {
    base: ApiBase,
    /// The page's origin, which a same-origin base is relative to.
    origin: Arc<str>,
    /// Whether writes may leave the app now.
    writes_allowed: Signal<bool>,
    observers: StoredValue<Vec<Callback<Exchange>>>,
    /// The owner whose cleanup aborts this handle's requests (none for the app's own handle).
    scope: Option<SendWrapper<Rc<Scope>>>,
}

impl Client {
    /// A client of the API at `base` that sends writes only while `writes_allowed` is true.
    pub fn new(base: ApiBase, writes_allowed: Signal<bool>) -> Client {
        let origin = crate::client::fetch::page_origin().into();
        Client { base, origin, writes_allowed, observers: StoredValue::new(Vec::new()), scope: None }
    }

    /// Provides this client to the components below.
    pub fn provide(&self) {
        provide_context(Client { scope: None, ..self.clone() });
    }

    /// Where the API is, as a person should read it (with the page's origin when it is on the
    /// same origin).
    pub fn base_display(&self) -> String {
        self.base.display(&self.origin)
    }

    /// The absolute URL of `request`, as errors and the inspector show it.
    pub fn absolute_url(&self, request: &Request) -> String {
        self.base.absolute_url(request, &self.origin)
    }

    /// Whether a write may be sent now (tracks the gate).
    pub fn writes_allowed(&self) -> bool {
        self.writes_allowed.get()
    }

    /// Calls `observer` with every exchange sent through this client from now on.
    pub fn subscribe(&self, observer: Callback<Exchange>) {
        self.observers.update_value(|observers| observers.push(observer));
    }

    /// A handle whose requests are aborted, and whose tasks ([`Client::tasks`]) dropped, when
    /// the current reactive owner is cleaned up.
    pub fn for_current_owner(&self) -> Client {
        let scope = Rc::new(Scope { next: Cell::new(0), in_flight: RefCell::default(), tasks: Tasks::unowned() });
        let on_cleanup_scope = SendWrapper::new(scope.clone());
        on_cleanup(move || {
            on_cleanup_scope.tasks.end();
            on_cleanup_scope.abort_all();
        });
        Client { scope: Some(SendWrapper::new(scope)), ..self.clone() }
    }

    /// The tasks of the owner this handle was made for: work that waits for this handle's
    /// answers and uses them runs as one of them (`client.tasks().spawn(async move { .. })`), and
    /// is dropped, wherever it waits, when that owner is cleaned up, even when a click, an effect
    /// or a timer started it later. The app's own handle gives the current owner's.
    pub fn tasks(&self) -> Tasks {
        match &self.scope {
            Some(scope) => scope.tasks.clone(),
            None => Tasks::for_current_owner(),
        }
    }

    /// Aborts the requests of this handle that are still in flight (a search's Stop, or a new
    /// search replacing it); the handle stays usable. The app's own handle, which no owner ends,
    /// has none to abort.
    pub fn abort_in_flight(&self) {
        if let Some(scope) = &self.scope {
            scope.abort_all();
        }
    }

    /// Sends `request`, reads the whole body, decodes it by its `Content-Type`, and shows the
    /// exchange to the observers. A write is refused, unsent, while the gate is closed.
    pub async fn send(&self, request: Request) -> Result<Arc<Fetched>, ClientError> {
        let outcome = self.run(&request).await.map(|response| Arc::new(decode_response(request.clone(), response)));
        self.notify(&request, outcome.clone());
        outcome
    }

    /// [`Client::send`] without decoding the body: for a caller that reads it its own way (the
    /// lazy lists of "Load all"). The observers see it undecoded too.
    pub async fn send_undecoded(&self, request: Request) -> Result<Arc<Fetched>, ClientError> {
        let outcome = self.run(&request).await.map(|response| Arc::new(Fetched::new(request.clone(), response)));
        self.notify(&request, outcome.clone());
        outcome
    }

    /// [`Client::send`], read as the document a success carries or the failure it is.
    pub async fn document(
        &self,
        request: Request,
    ) -> Result<(Arc<Fetched>, crate::api::codec::value::Value), ApiError> {
        let fetched = self.send(request).await?;
        let document = fetched.document()?;
        Ok((fetched, document))
    }

    /// Sends `request` and returns its raw response (for callers that read a body the app does
    /// not decode, such as discovery's typed documents); the observers see it undecoded.
    pub async fn send_raw(&self, request: Request) -> Result<Response, ClientError> {
        let outcome = self.run(&request).await;
        self.notify(&request, outcome.clone().map(|response| Arc::new(Fetched::new(request.clone(), response))));
        outcome
    }

    /// Opens `request` as a stream with `signal` (the caller aborts it): returns when the headers
    /// arrive. The write gate applies; the observers are not told (a stream has no end to show).
    pub async fn open(&self, request: &Request, signal: &AbortSignal) -> Result<Stream, ClientError> {
        self.check_gate(request)?;
        open(&self.base, request, signal).await
    }

    /// [`Client::open`] after taking a slot of the page's stream budget (waiting for one); the
    /// stream keeps the slot until it is dropped. `None` when `signal` aborted while waiting.
    pub async fn open_watch(&self, request: &Request, signal: &AbortSignal) -> Option<Result<Stream, ClientError>> {
        let permit = Permit::acquire().await;
        if signal.aborted() {
            return None;
        }
        Some(self.open(request, signal).await.map(|mut stream| {
            stream.permit = Some(permit);
            stream
        }))
    }

    fn check_gate(&self, request: &Request) -> Result<(), ClientError> {
        if request.changes_state() && !self.writes_allowed.get_untracked() {
            return Err(ClientError::ReadOnly {
                url: self.absolute_url(request),
                method: request.method().to_string(),
            });
        }
        Ok(())
    }

    async fn run(&self, request: &Request) -> Result<Response, ClientError> {
        self.check_gate(request)?;
        match self.scope.as_ref().and_then(|scope| scope.start().map(|started| (scope, started))) {
            Some((scope, (id, controller))) => {
                let outcome = execute(&self.base, request, &controller.signal()).await;
                scope.finish(id);
                outcome
            }
            None => {
                let controller = AbortController::new().map_err(|_| ClientError::InvalidRequest {
                    url: self.absolute_url(request),
                    message: "the browser could not make an AbortController".to_owned(),
                })?;
                execute(&self.base, request, &controller.signal()).await
            }
        }
    }

    fn notify(&self, request: &Request, outcome: Result<Arc<Fetched>, ClientError>) {
        let exchange = Exchange { request: request.clone(), url: self.absolute_url(request), outcome };
        let observers = self.observers.try_get_value().unwrap_or_default();
        for observer in observers {
            observer.run(exchange.clone());
        }
    }
}

/// The app's client, as a handle whose requests end with the calling component.
pub fn use_client() -> Client {
    expect_context::<Client>().for_current_owner()
}
