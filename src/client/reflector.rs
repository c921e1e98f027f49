//! `use_reflector`: the edge of `api`'s [`Reflector`]. It runs the reflector's requests over
//! streamed `fetch` (list pages read whole, watches and streaming lists chunk by chunk through
//! the [`WatchDecoder`]), its waits as timeouts, aborts what it cancels, pauses while the tab is
//! hidden or the view asks, and stops (aborting everything) when the owner is cleaned up: its
//! tasks are the owner's ([`Client::tasks`]), so a chunk or an answer that arrives after that is
//! dropped unread.
//!
//! The view sees the cache through [`ReflectorStore`] and each event through its
//! [`ReflectorObserver`], before it is applied (the cache still holds the previous version) and
//! after; the connection state, resource version and last problem come as signals, updated at
//! most once per animation frame.
//!
//! A burst of chunks is applied in turns of [`TURN_MS`]: the page gets a turn (a frame drawn,
//! input handled) between them.
//!
//! Protobuf bodies (a reflector of [`ReflectorConfig::protobuf`]) are read with the decoder of
//! protobuf objects, which lives in an on-demand part: a reflector that asks for protobuf sends
//! its first request once the view's [`ProtobufLoader`] has fetched it (if it cannot, the
//! reflector says why and goes on in JSON); its list pages and watch frames then reach the
//! reflector as the same objects and events a JSON watch gives. An answer that shows the type has
//! no protobuf form (the JSON fallback, or 406) is published, for the view to say why.

use std::cell::{Cell, Ref, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use web_sys::AbortController;

use crate::api::codec::protobuf_full::InFullDecoder;
use crate::api::media_type::MediaType;
use crate::api::reflector::{
    Action, Change, EdgeError, Failure, Input, Jitter, ObjectKey, OpId, Reflector, ReflectorConfig, RequestKind, Step,
    StreamCut, Undecodable, WatchEnd,
};
use crate::api::request::Request;
use crate::api::watch::{WatchDecoder, WatchEvent};
use crate::client::fetch::now_ms;
use crate::client::handle::{use_client, Client};
use crate::i18n::{Localized, Msg, Text};
use crate::model::protobuf::protobuf_not_served;

/// How long watch events are applied in one go before the page gets a turn (ms): a frame lasts
/// 16.7 ms, and the draw of the changed rows needs some of it.
pub const TURN_MS: f64 = 10.0;
/// One event in this many is timed step by step (the reflector, the observer), to split the time
/// of a batch between them.
const SAMPLE_EVERY: u64 = 16;

/// What a view does with the events a reflector applies.
pub trait ReflectorObserver: 'static {
    /// What the view takes from an event before it is applied, handed back after.
    type Seen;
    /// Event number `seq` arrived at `arrived_ms` and is about to be applied.
    fn before_event(&self, event: &WatchEvent, seq: u64, arrived_ms: f64) -> Self::Seen;
    /// The event was applied: `reflector` holds its result; `key` is its object's.
    fn after_event(&self, reflector: &Reflector, key: Option<ObjectKey>, seen: Self::Seen);
    /// A step's changes were applied (rows to redraw, columns, problems), or the driver's own
    /// state changed (a stream opened or closed): the view may render.
    fn stepped(&self, changes: Vec<Change>);
}

/// Where the page's time went in the reflector's edge, in milliseconds.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct WatchCosts {
    /// Decoding events and applying them (the reflector and the observer): the sum of the three.
    pub apply_ms: f64,
    /// Framing and decoding watch events.
    pub decode_ms: f64,
    /// The reflector's step for each event; estimated, as the next one, from the events timed
    /// step by step (one in [`SAMPLE_EVERY`]).
    pub reflect_ms: f64,
    /// The observer's work for each event (the timeline and the history).
    pub record_ms: f64,
}

/// Fetches the decoder of protobuf objects (an on-demand part): what the view gives a reflector
/// that may read protobuf bodies. It fails with the reason the part could not be loaded.
pub type ProtobufLoader = Rc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<InFullDecoder, Text>>>>>;

/// The cache and counters of a running reflector, for the view to read.
#[derive(Clone)]
pub struct ReflectorStore {
    driver: Rc<Driver>,
}

impl ReflectorStore {
    /// The reflector (its store, state, counters, columns), borrowed.
    pub fn reflector(&self) -> Ref<'_, Reflector> {
        self.driver.reflector.borrow()
    }

    /// Where the time went so far.
    pub fn costs(&self) -> WatchCosts {
        self.driver.costs.get()
    }
}

/// What [`use_reflector`] gives the view.
pub struct UseReflectorReturn {
    /// The cache, or `None` when the config was refused (then `problem` says why).
    pub store: Option<ReflectorStore>,
    /// The connection state, as a status line shows it.
    pub state: RwSignal<Text>,
    /// The resource version the cache is at.
    pub resource_version: RwSignal<String>,
    /// The last problem the reflector reported.
    pub problem: RwSignal<Option<Text>>,
    /// The last 403 Status the server sent for the list or watch, to be explained.
    pub forbidden: RwSignal<Option<crate::api::view::status::Status>>,
    /// The `Accept` of the last list or watch request opened, as the response line of the other
    /// views shows it.
    pub accept: RwSignal<String>,
    /// The `Content-Type` its response came back with, as it came (empty without one).
    pub content_type: RwSignal<String>,
    /// Protobuf was asked for and an answer showed the type has none (the JSON fallback, or 406).
    pub protobuf_not_served: RwSignal<bool>,
    /// Pauses the watch (`true`) or resumes it from where it left off (`false`).
    pub pause: Callback<bool>,
}

/// Starts a reflector of `config` for the current owner: it stops, and its requests are
/// aborted, when the owner is cleaned up. `observer` is made with the store it observes.
/// `protobuf` fetches the decoder of protobuf bodies before the first request of a `config` that
/// asks for protobuf (without it, a protobuf body is a failure that says what was expected).
pub fn use_reflector<O: ReflectorObserver>(
    config: ReflectorConfig,
    protobuf: Option<ProtobufLoader>,
    observer: impl FnOnce(ReflectorStore) -> O,
) -> UseReflectorReturn {
    let signals = Published {
        state: RwSignal::new(Text::new(Msg::StateStarting)),
        resource_version: RwSignal::new(String::new()),
        problem: RwSignal::new(None),
        forbidden: RwSignal::new(None),
        accept: RwSignal::new(String::new()),
        content_type: RwSignal::new(String::new()),
        protobuf_not_served: RwSignal::new(false),
    };
    let load = protobuf.filter(|_| config.asks_for_protobuf());
    let (reflector, step) = match Reflector::start(config) {
        Ok(started) => started,
        Err(error) => {
            signals.problem.set(Some(error.text()));
            return UseReflectorReturn {
                store: None,
                state: signals.state,
                resource_version: signals.resource_version,
                problem: signals.problem,
                forbidden: signals.forbidden,
                accept: signals.accept,
                content_type: signals.content_type,
                protobuf_not_served: signals.protobuf_not_served,
                pause: Callback::new(|_| {}),
            };
        }
    };
    let driver = Rc::new(Driver {
        reflector: RefCell::new(reflector),
        client: use_client(),
        controllers: RefCell::new(HashMap::new()),
        timers: RefCell::new(HashMap::new()),
        stopped: Cell::new(false),
        seq: Cell::new(0),
        costs: Cell::new(WatchCosts::default()),
        user_paused: Cell::new(false),
        hidden: Cell::new(false),
        paused: Cell::new(false),
        published: signals,
        publish_scheduled: Cell::new(false),
        observer: RefCell::new(None),
        in_full: Cell::new(None),
        waiting: Cell::new(load.is_some()),
    });
    let store = ReflectorStore { driver: driver.clone() };
    let observer: Box<dyn ErasedObserver> = Box::new(Typed(observer(store.clone())));
    *driver.observer.borrow_mut() = Some(observer);
    match load {
        Some(load) => driver.clone().start_with_protobuf(load, step),
        None => driver.run(step),
    }
    let visibility = watch_visibility(&driver);
    let on_leave = SendWrapper::new((driver.clone(), visibility));
    on_cleanup(move || {
        let (driver, visibility) = &*on_leave;
        if let Some(listener) = visibility {
            listener.remove();
        }
        driver.stop();
    });
    let pausing = SendWrapper::new(Rc::downgrade(&driver));
    let pause = Callback::new(move |paused: bool| {
        if let Some(driver) = pausing.upgrade() {
            driver.user_paused.set(paused);
            driver.apply_pause();
        }
    });
    UseReflectorReturn {
        store: Some(store),
        state: signals.state,
        resource_version: signals.resource_version,
        problem: signals.problem,
        forbidden: signals.forbidden,
        accept: signals.accept,
        content_type: signals.content_type,
        protobuf_not_served: signals.protobuf_not_served,
        pause,
    }
}

/// The observer with its `Seen` type erased, so that the driver is not generic.
trait ErasedObserver {
    fn apply(&self, driver: &Rc<Driver>, op: OpId, events: Vec<WatchEvent>, arrived: f64, jitter: Jitter)
        -> (f64, f64);
    fn stepped(&self, changes: Vec<Change>);
}

struct Typed<O>(O);

impl<O: ReflectorObserver> ErasedObserver for Typed<O> {
    /// Applies the events of one chunk; the time of the reflector and of the observer (estimated
    /// from the events timed step by step: the clock is a call out to the page, three per event
    /// cost more than a tenth of the page's time at 10,000 events/s).
    fn apply(
        &self,
        driver: &Rc<Driver>,
        op: OpId,
        events: Vec<WatchEvent>,
        arrived: f64,
        jitter: Jitter,
    ) -> (f64, f64) {
        let (mut sampled_reflect, mut sampled_record) = (0.0, 0.0);
        for event in events {
            let seq = driver.seq.get() + 1;
            driver.seq.set(seq);
            let sample = seq.is_multiple_of(SAMPLE_EVERY);
            let started = if sample { now_ms() } else { 0.0 };
            let seen = self.0.before_event(&event, seq, arrived);
            let key = event.object().and_then(|o| ObjectKey::of_head(o.head()));
            let fed = if sample { now_ms() } else { 0.0 };
            driver.feed_with(Input::WatchEvent { op, event }, jitter);
            let reflected = if sample { now_ms() } else { 0.0 };
            self.0.after_event(&driver.reflector.borrow(), key, seen);
            if sample {
                sampled_record += (fed - started) + (now_ms() - reflected);
                sampled_reflect += reflected - fed;
            }
        }
        (sampled_reflect, sampled_record)
    }

    fn stepped(&self, changes: Vec<Change>) {
        self.0.stepped(changes);
    }
}

/// The signals the hook publishes, at most once per animation frame.
#[derive(Clone, Copy)]
struct Published {
    state: RwSignal<Text>,
    resource_version: RwSignal<String>,
    problem: RwSignal<Option<Text>>,
    forbidden: RwSignal<Option<crate::api::view::status::Status>>,
    accept: RwSignal<String>,
    content_type: RwSignal<String>,
    protobuf_not_served: RwSignal<bool>,
}

/// The edge that runs one reflector.
struct Driver {
    reflector: RefCell<Reflector>,
    client: Client,
    controllers: RefCell<HashMap<OpId, AbortController>>,
    timers: RefCell<HashMap<OpId, TimeoutHandle>>,
    stopped: Cell<bool>,
    /// Events seen so far.
    seq: Cell<u64>,
    costs: Cell<WatchCosts>,
    /// Paused by the view, or because the tab is hidden; the reflector is paused when either is.
    user_paused: Cell<bool>,
    hidden: Cell<bool>,
    paused: Cell<bool>,
    published: Published,
    publish_scheduled: Cell<bool>,
    observer: RefCell<Option<Box<dyn ErasedObserver>>>,
    /// The decoder of protobuf objects, once loaded.
    in_full: Cell<Option<InFullDecoder>>,
    /// The first request waits for the protobuf decoder: input before it is ignored.
    waiting: Cell<bool>,
}

impl Driver {
    fn feed(self: &Rc<Self>, input: Input) {
        self.feed_with(input, Jitter::new(js_sys::Math::random()));
    }

    /// [`Driver::feed`] with the jitter of a backoff it may start (the events of one chunk share
    /// one: a call out to the page per event is not free at 10,000 events/s).
    fn feed_with(self: &Rc<Self>, input: Input, jitter: Jitter) {
        if self.stopped.get() || self.waiting.get() {
            return;
        }
        let step = self.reflector.borrow_mut().step(input, jitter);
        self.run(step);
    }

    /// Runs the reflector's first `step` once `load` has fetched the protobuf decoder; if it
    /// cannot, says why and reflects in JSON instead.
    fn start_with_protobuf(self: Rc<Self>, load: ProtobufLoader, step: Step) {
        self.client.tasks().spawn(async move {
            let loaded = load().await;
            if self.stopped.get() {
                return;
            }
            self.waiting.set(false);
            let loaded = match loaded {
                Ok(in_full) => {
                    self.in_full.set(Some(in_full));
                    true
                }
                Err(why) => {
                    self.published.problem.set(Some(why));
                    !self.reflector.borrow_mut().drop_protobuf()
                }
            };
            if loaded && !self.paused.get() {
                self.run(step);
                return;
            }
            // Paused meanwhile (the tab hidden), or going on in JSON: the first request is made
            // (again) when the reflector resumes, now or later.
            self.feed(Input::Pause);
            if !self.paused.get() {
                self.feed(Input::Resume);
            }
        });
    }

    fn run(self: &Rc<Self>, step: Step) {
        for action in step.actions {
            match action {
                Action::Send { op, request, kind } => {
                    let driver = self.clone();
                    self.client.tasks().spawn(async move { driver.send(op, request, kind).await });
                }
                Action::Cancel(op) => {
                    if let Some(controller) = self.controllers.borrow_mut().remove(&op) {
                        controller.abort();
                    }
                    if let Some(timer) = self.timers.borrow_mut().remove(&op) {
                        timer.clear();
                    }
                }
                Action::Wait { op, ms, .. } => {
                    let driver = SendWrapper::new(self.clone());
                    let handle = set_timeout_with_handle(
                        move || {
                            driver.timers.borrow_mut().remove(&op);
                            driver.feed(Input::TimerFired { op });
                        },
                        Duration::from_millis(ms),
                    );
                    if let Ok(handle) = handle {
                        self.timers.borrow_mut().insert(op, handle);
                    }
                }
            }
        }
        for change in &step.changes {
            if let Change::Problem(problem) = change {
                self.published.problem.set(Some(problem.text()));
                if let Some(status) = problem.status().filter(|s| s.code == 403) {
                    self.published.forbidden.set(Some(status.clone()));
                }
            }
        }
        self.stepped(step.changes);
    }

    /// Tells the observer, and publishes the signals at the next frame.
    fn stepped(self: &Rc<Self>, changes: Vec<Change>) {
        if let Some(observer) = self.observer.borrow().as_ref() {
            observer.stepped(changes);
        }
        if self.publish_scheduled.replace(true) {
            return;
        }
        let driver = SendWrapper::new(self.clone());
        request_animation_frame(move || {
            driver.publish_scheduled.set(false);
            if driver.stopped.get() {
                return;
            }
            let reflector = driver.reflector.borrow();
            driver.published.state.set(reflector.state().text());
            driver
                .published
                .resource_version
                .set(reflector.resource_version().map(|rv| rv.to_string()).unwrap_or_default());
        });
    }

    async fn send(self: Rc<Self>, op: OpId, request: Request, kind: RequestKind) {
        let Ok(controller) = AbortController::new() else { return };
        self.controllers.borrow_mut().insert(op, controller.clone());
        // A watch waits for a slot of the page's stream budget; a list page does not.
        let opened = if kind == RequestKind::ListPage {
            self.client.open(&request, &controller.signal()).await
        } else {
            match self.client.open_watch(&request, &controller.signal()).await {
                Some(opened) => opened,
                None => return,
            }
        };
        self.stepped(Vec::new());
        let mut stream = match opened {
            Ok(stream) => stream,
            Err(error) => {
                self.controllers.borrow_mut().remove(&op);
                let failure = Failure::Network(EdgeError::new(error.text()));
                self.feed(match kind {
                    RequestKind::ListPage => Input::ListFailed { op, failure },
                    RequestKind::StreamingList | RequestKind::Watch => Input::WatchFailed { op, failure },
                });
                return;
            }
        };
        let content_type = stream.header("content-type").and_then(|t| t.parse::<MediaType>().ok());
        let retry_after = stream.header("retry-after").map(str::to_owned);
        self.publish_wire(&request, stream.status, stream.header("content-type"), content_type.as_ref());
        let in_full = self.in_full.get();
        if kind == RequestKind::ListPage || !(200..300).contains(&stream.status) {
            let body = stream.read_to_end().await;
            self.controllers.borrow_mut().remove(&op);
            let input = match (kind, body) {
                (_, Err(cut)) if kind == RequestKind::ListPage => {
                    Input::ListFailed { op, failure: Failure::Network(EdgeError::new(cut.text())) }
                }
                (RequestKind::ListPage, Ok(body)) => Input::from_list_response(
                    op,
                    stream.status,
                    retry_after.as_deref(),
                    content_type.as_ref(),
                    &body,
                    in_full,
                ),
                (_, body) => Input::WatchFailed {
                    op,
                    failure: Failure::from_response(
                        stream.status,
                        retry_after.as_deref(),
                        content_type.as_ref(),
                        &body.unwrap_or_default(),
                    ),
                },
            };
            self.feed(input);
            return;
        }
        let decoder = content_type.as_ref().map(|t| WatchDecoder::for_response(t, in_full));
        let mut decoder = match decoder {
            Some(Ok(decoder)) => decoder,
            other => {
                controller.abort();
                self.controllers.borrow_mut().remove(&op);
                let message = match other {
                    Some(Err(e)) => Undecodable::Stream(e),
                    _ => Undecodable::NoContentTypeOnWatch,
                };
                self.feed(Input::WatchFailed { op, failure: Failure::Undecodable(message) });
                return;
            }
        };
        self.feed(Input::WatchOpened { op });
        let mut turn_started = now_ms();
        loop {
            if !self.controllers.borrow().contains_key(&op) {
                return;
            }
            // Chunks that arrived while the page was busy are each read at once (a resolved
            // promise): without a pause, a burst would be applied in one task and no frame drawn.
            if now_ms() - turn_started > TURN_MS {
                yield_to_page().await;
                turn_started = now_ms();
                continue;
            }
            match stream.next_chunk().await {
                Ok(Some(chunk)) => {
                    let started = now_ms();
                    let decoded = decoder.push(&chunk);
                    let arrived = now_ms();
                    let decode_ms = arrived - started;
                    match decoded {
                        Ok(events) => {
                            // The events of a chunk arrived together: one time for them, one
                            // jitter for a backoff any of them may start.
                            let jitter = Jitter::new(js_sys::Math::random());
                            let sampled = match self.observer.borrow().as_ref() {
                                Some(observer) => observer.apply(&self, op, events, arrived, jitter),
                                None => (0.0, 0.0),
                            };
                            self.add_costs(decode_ms, now_ms() - arrived, sampled);
                        }
                        Err(error) => {
                            controller.abort();
                            self.controllers.borrow_mut().remove(&op);
                            self.feed(Input::WatchEnded { op, end: WatchEnd::Malformed(error) });
                            return;
                        }
                    }
                }
                Ok(None) => {
                    self.controllers.borrow_mut().remove(&op);
                    self.feed(Input::WatchEnded { op, end: WatchEnd::from_finish(decoder.finish()) });
                    return;
                }
                Err(cut) => {
                    let cancelled = self.controllers.borrow_mut().remove(&op).is_none();
                    if !cancelled {
                        let end = WatchEnd::Cut(StreamCut::Connection(EdgeError::new(cut.text())));
                        self.feed(Input::WatchEnded { op, end });
                    }
                    return;
                }
            }
        }
    }

    /// Publishes what `request` asked for and what came back (`content_type_header`, read as
    /// `content_type`), and whether it shows the type has no protobuf form (kept once seen: the
    /// reflector then goes on in JSON, and its next requests no longer ask for protobuf).
    fn publish_wire(
        &self,
        request: &Request,
        status: u16,
        content_type_header: Option<&str>,
        content_type: Option<&MediaType>,
    ) {
        let accept = request.header_value("accept").unwrap_or_default().to_owned();
        if protobuf_not_served(&accept, status, content_type) {
            self.published.protobuf_not_served.set(true);
        }
        self.published.accept.set(accept);
        self.published.content_type.set(content_type_header.unwrap_or_default().to_owned());
    }

    /// Adds a chunk's costs: its decode, and its apply time split between the reflector and the
    /// observer as the sampled events were.
    fn add_costs(&self, decode_ms: f64, applied_ms: f64, (sampled_reflect, sampled_record): (f64, f64)) {
        let sampled = sampled_reflect + sampled_record;
        let reflect_share = if sampled > 0.0 { sampled_reflect / sampled } else { 0.5 };
        let mut costs = self.costs.get();
        costs.decode_ms += decode_ms;
        costs.reflect_ms += applied_ms * reflect_share;
        costs.record_ms += applied_ms * (1.0 - reflect_share);
        costs.apply_ms += decode_ms + applied_ms;
        self.costs.set(costs);
    }

    /// Pauses the reflector while the view paused or the tab is hidden, resumes it otherwise
    /// (from where it left off: a watch resumes from its resourceVersion).
    fn apply_pause(self: &Rc<Self>) {
        let want = self.user_paused.get() || self.hidden.get();
        if want != self.paused.replace(want) {
            self.feed(if want { Input::Pause } else { Input::Resume });
        }
    }

    fn stop(self: &Rc<Self>) {
        if self.stopped.get() {
            return;
        }
        let step = self.reflector.borrow_mut().step(Input::Stop, Jitter::new(0.0));
        self.stopped.set(true);
        for action in step.actions {
            if let Action::Cancel(op) = action {
                if let Some(controller) = self.controllers.borrow_mut().remove(&op) {
                    controller.abort();
                }
            }
        }
        for (_, controller) in self.controllers.borrow_mut().drain() {
            controller.abort();
        }
        for (_, timer) in self.timers.borrow_mut().drain() {
            timer.clear();
        }
        // The observer (the view) holds the store, which holds this driver: let both go.
        if let Ok(mut observer) = self.observer.try_borrow_mut() {
            observer.take();
        }
    }
}

/// Gives the page a turn (a frame may be drawn, input handled): resolves in a later task.
async fn yield_to_page() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let later =
            web_sys::window().and_then(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).ok());
        if later.is_none() {
            let _ = resolve.call0(&wasm_bindgen::JsValue::UNDEFINED);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The `visibilitychange` listener of a reflector: a hidden tab pauses the watch (its connection
/// is closed and given back to the page), a visible one resumes it.
struct VisibilityListener {
    closure: wasm_bindgen::closure::Closure<dyn FnMut()>,
}

impl VisibilityListener {
    fn remove(&self) {
        use wasm_bindgen::JsCast;
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            let _ =
                document.remove_event_listener_with_callback("visibilitychange", self.closure.as_ref().unchecked_ref());
        }
    }
}

fn watch_visibility(driver: &Rc<Driver>) -> Option<VisibilityListener> {
    use wasm_bindgen::JsCast;
    let document = web_sys::window()?.document()?;
    driver.hidden.set(document.hidden());
    driver.apply_pause();
    let weak = Rc::downgrade(driver);
    let closure = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
        let (Some(driver), Some(document)) = (weak.upgrade(), web_sys::window().and_then(|w| w.document())) else {
            return;
        };
        driver.hidden.set(document.hidden());
        driver.apply_pause();
    });
    document.add_event_listener_with_callback("visibilitychange", closure.as_ref().unchecked_ref()).ok()?;
    Some(VisibilityListener { closure })
}
