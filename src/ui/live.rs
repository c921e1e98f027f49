//! The live collection: the `api` reflector keeps a cache of the collection in step with the
//! server (list then watch, or a streaming list), and this module is its edge: it runs the
//! reflector's requests over streaming `fetch`, its waits as timeouts, aborts what it cancels, and
//! shows the cache, the connection state and an event timeline. Renders are batched per animation
//! frame, so a burst of events costs one re-render.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use web_sys::AbortController;

use crate::api::discovery::{ResourceType, Scope};
use crate::api::media_type::{Accept, MediaType};
use crate::api::reflector::{
    Action, Change, Failure, Input, Jitter, OpId, Reflector, ReflectorConfig, RequestKind, WatchEnd,
};
use crate::api::request::{Collection, Request};
use crate::api::value::Value;
use crate::api::watch::{WatchDecoder, WatchEvent};
use crate::client::stream::open;
use crate::client::{now_ms, ApiBase};
use crate::model::cells::Grid;
use crate::ui::diff_view::DiffView;
use crate::ui::grid::GridView;

/// How many timeline entries are kept.
const TIMELINE: usize = 500;
/// How many versions of each object the history keeps.
const HISTORY: usize = 30;

/// One line of the event timeline.
#[derive(Debug, Clone, PartialEq)]
struct TimelineEntry {
    seq: u64,
    event_type: &'static str,
    what: String,
    resource_version: String,
    at_ms: f64,
}

/// What the view shows, updated at most once per animation frame.
#[derive(Clone, Copy)]
struct LiveSignals {
    grid: RwSignal<Grid>,
    state: RwSignal<String>,
    resource_version: RwSignal<String>,
    last_bookmark: RwSignal<String>,
    events_applied: RwSignal<u64>,
    events_per_second: RwSignal<f64>,
    problem: RwSignal<Option<String>>,
    timeline: RwSignal<VecDeque<TimelineEntry>>,
    /// Bumped when the object history changed.
    history_tick: RwSignal<u64>,
}

/// The edge that runs one reflector.
struct Driver {
    reflector: RefCell<Reflector>,
    base: ApiBase,
    controllers: RefCell<HashMap<OpId, AbortController>>,
    timers: RefCell<HashMap<OpId, TimeoutHandle>>,
    signals: LiveSignals,
    render_scheduled: Cell<bool>,
    stopped: Cell<bool>,
    paused_timeline: Cell<bool>,
    pending_timeline: RefCell<Vec<TimelineEntry>>,
    seq: Cell<u64>,
    rate_window: RefCell<VecDeque<(f64, u64)>>,
    /// Every version of each object seen in events, by namespace/name: (event, rv, object).
    history: RefCell<BTreeMap<String, VecDeque<(String, Value)>>>,
    history_changed: Cell<bool>,
}

impl Driver {
    fn feed(self: &Rc<Self>, input: Input) {
        if self.stopped.get() {
            return;
        }
        let step = self.reflector.borrow_mut().step(input, Jitter::new(js_sys::Math::random()));
        self.run(step);
    }

    fn run(self: &Rc<Self>, step: crate::api::reflector::Step) {
        for action in step.actions {
            match action {
                Action::Send { op, request, kind } => {
                    let driver = self.clone();
                    leptos::task::spawn_local(async move { driver.send(op, request, kind).await });
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
        for change in step.changes {
            if let Change::Problem(problem) = change {
                self.signals.problem.set(Some(problem.to_string()));
            }
        }
        self.schedule_render();
    }

    async fn send(self: Rc<Self>, op: OpId, request: Request, kind: RequestKind) {
        let Ok(controller) = AbortController::new() else { return };
        self.controllers.borrow_mut().insert(op, controller.clone());
        let opened = open(&self.base, &request, &controller).await;
        let mut stream = match opened {
            Ok(stream) => stream,
            Err(error) => {
                self.controllers.borrow_mut().remove(&op);
                let failure = Failure::Network(error.to_string());
                self.feed(match kind {
                    RequestKind::ListPage => Input::ListFailed { op, failure },
                    RequestKind::StreamingList | RequestKind::Watch => Input::WatchFailed { op, failure },
                });
                return;
            }
        };
        let content_type = stream.header("content-type").and_then(|t| t.parse::<MediaType>().ok());
        let retry_after = stream.header("retry-after").map(str::to_owned);
        if kind == RequestKind::ListPage || !(200..300).contains(&stream.status) {
            let body = stream.read_to_end().await;
            self.controllers.borrow_mut().remove(&op);
            let input = match (kind, body) {
                (_, Err(message)) if kind == RequestKind::ListPage => {
                    Input::ListFailed { op, failure: Failure::Network(message) }
                }
                (RequestKind::ListPage, Ok(body)) => {
                    Input::from_list_response(op, stream.status, retry_after.as_deref(), content_type.as_ref(), &body)
                }
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
        let decoder = content_type.as_ref().map(WatchDecoder::new);
        let mut decoder = match decoder {
            Some(Ok(decoder)) => decoder,
            other => {
                controller.abort();
                self.controllers.borrow_mut().remove(&op);
                let message = match other {
                    Some(Err(e)) => e.to_string(),
                    _ => "expected a Content-Type on a watch response, found none".to_owned(),
                };
                self.feed(Input::WatchFailed { op, failure: Failure::Undecodable(message) });
                return;
            }
        };
        self.feed(Input::WatchOpened { op });
        loop {
            if !self.controllers.borrow().contains_key(&op) {
                return;
            }
            match stream.next_chunk().await {
                Ok(Some(chunk)) => match decoder.push(&chunk) {
                    Ok(events) => {
                        for event in events {
                            self.record(&event);
                            self.feed(Input::WatchEvent { op, event });
                        }
                    }
                    Err(error) => {
                        controller.abort();
                        self.controllers.borrow_mut().remove(&op);
                        self.feed(Input::WatchEnded { op, end: WatchEnd::Malformed(error) });
                        return;
                    }
                },
                Ok(None) => {
                    self.controllers.borrow_mut().remove(&op);
                    self.feed(Input::WatchEnded { op, end: WatchEnd::from_finish(decoder.finish()) });
                    return;
                }
                Err(message) => {
                    let cancelled = self.controllers.borrow_mut().remove(&op).is_none();
                    if !cancelled {
                        self.feed(Input::WatchEnded { op, end: WatchEnd::Cut(message) });
                    }
                    return;
                }
            }
        }
    }

    fn record(&self, event: &WatchEvent) {
        let seq = self.seq.get() + 1;
        self.seq.set(seq);
        let what = event
            .object()
            .map(|o| {
                let text = |k: &str| o.at(&["metadata", k]).and_then(Value::as_str).unwrap_or_default().to_owned();
                let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default();
                let namespace = text("namespace");
                if namespace.is_empty() {
                    format!("{kind} {}", text("name"))
                } else {
                    format!("{kind} {namespace}/{}", text("name"))
                }
            })
            .unwrap_or_default();
        let entry = TimelineEntry {
            seq,
            event_type: event.event_type(),
            what,
            resource_version: event.resource_version().map(|rv| rv.to_string()).unwrap_or_default(),
            at_ms: now_ms(),
        };
        if let (Some(object), false) = (event.object(), entry.what.is_empty()) {
            let label = format!("{} rv {}", entry.event_type, entry.resource_version);
            let mut history = self.history.borrow_mut();
            let versions = history.entry(entry.what.clone()).or_default();
            versions.push_back((label, object.clone()));
            if versions.len() > HISTORY {
                versions.pop_front();
            }
            self.history_changed.set(true);
        }
        if !self.paused_timeline.get() {
            self.pending_timeline.borrow_mut().push(entry);
        }
    }

    fn schedule_render(self: &Rc<Self>) {
        if self.render_scheduled.replace(true) {
            return;
        }
        let driver = SendWrapper::new(self.clone());
        request_animation_frame(move || {
            driver.render_scheduled.set(false);
            if !driver.stopped.get() {
                driver.render();
            }
        });
    }

    fn render(&self) {
        let reflector = self.reflector.borrow();
        let items: Vec<Value> = reflector.store().iter().map(|(_, cached)| cached.object.clone()).collect();
        let epoch_ms = js_sys::Date::now() as i64;
        self.signals.grid.set(Grid::from_items(&items, epoch_ms));
        self.signals.state.set(reflector.state().to_string());
        self.signals.resource_version.set(reflector.resource_version().map(|rv| rv.to_string()).unwrap_or_default());
        self.signals.last_bookmark.set(reflector.last_bookmark().map(|rv| rv.to_string()).unwrap_or_default());
        let applied = reflector.counters().events_applied;
        self.signals.events_applied.set(applied);
        let now = now_ms();
        let mut window = self.rate_window.borrow_mut();
        window.push_back((now, applied));
        while window.front().is_some_and(|(t, _)| now - t > 5_000.0) {
            window.pop_front();
        }
        if let (Some((t0, n0)), Some((t1, n1))) = (window.front(), window.back()) {
            let seconds = (t1 - t0) / 1000.0;
            self.signals.events_per_second.set(if seconds > 0.5 { (n1 - n0) as f64 / seconds } else { 0.0 });
        }
        if self.history_changed.replace(false) {
            self.signals.history_tick.update(|t| *t += 1);
        }
        let pending: Vec<TimelineEntry> = self.pending_timeline.borrow_mut().drain(..).collect();
        if !pending.is_empty() {
            self.signals.timeline.update(|timeline| {
                for entry in pending {
                    timeline.push_front(entry);
                }
                timeline.truncate(TIMELINE);
            });
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
    }
}

/// A collection kept live by a watch. Leaving the view stops the reflector and aborts its fetches.
#[component]
pub fn LiveView(
    /// The resource type watched.
    resource: ResourceType,
    /// The namespace, or all.
    namespace: Option<String>,
    /// `labelSelector`, if any.
    label_selector: Option<String>,
    /// `fieldSelector`, if any.
    field_selector: Option<String>,
    /// Whether to watch in CBOR (`application/cbor-seq`) rather than JSON.
    cbor: bool,
) -> impl IntoView {
    let base = expect_context::<ApiBase>();
    let signals = LiveSignals {
        grid: RwSignal::new(Grid::default()),
        state: RwSignal::new("starting".to_owned()),
        resource_version: RwSignal::new(String::new()),
        last_bookmark: RwSignal::new(String::new()),
        events_applied: RwSignal::new(0),
        events_per_second: RwSignal::new(0.0),
        problem: RwSignal::new(None),
        timeline: RwSignal::new(VecDeque::new()),
        history_tick: RwSignal::new(0),
    };
    let namespace = if resource.scope == Scope::Namespaced { namespace } else { None };
    let start = Collection::new(&resource, namespace.as_deref()).map_err(|e| e.to_string()).and_then(|collection| {
        let mut config = ReflectorConfig::new(collection);
        config.label_selector = label_selector;
        config.field_selector = field_selector;
        if cbor {
            config.accept = Accept::only(MediaType::cbor());
        }
        Reflector::start(config).map_err(|e| e.to_string())
    });
    let driver = match start {
        Ok((reflector, step)) => {
            let driver = Rc::new(Driver {
                reflector: RefCell::new(reflector),
                base,
                controllers: RefCell::new(HashMap::new()),
                timers: RefCell::new(HashMap::new()),
                signals,
                render_scheduled: Cell::new(false),
                stopped: Cell::new(false),
                paused_timeline: Cell::new(false),
                pending_timeline: RefCell::new(Vec::new()),
                seq: Cell::new(0),
                rate_window: RefCell::new(VecDeque::new()),
                history: RefCell::new(BTreeMap::new()),
                history_changed: Cell::new(false),
            });
            driver.run(step);
            let on_leave = SendWrapper::new(driver.clone());
            on_cleanup(move || on_leave.stop());
            Some(driver)
        }
        Err(message) => {
            signals.problem.set(Some(message));
            None
        }
    };
    let (timeline_filter, set_timeline_filter) = signal(String::new());
    let (timeline_paused, set_timeline_paused) = signal(false);
    let history_driver = StoredValue::new(driver.clone().map(SendWrapper::new));
    let pause_driver = driver.map(SendWrapper::new);
    let toggle_pause = move |_| {
        let paused = !timeline_paused.get_untracked();
        set_timeline_paused.set(paused);
        if let Some(driver) = &pause_driver {
            driver.paused_timeline.set(paused);
        }
    };
    let wide = Signal::derive(|| false);
    view! {
        <div class="live" data-testid="live-view">
            <dl class="response-info" data-testid="live-status">
                <dt>"Connection"</dt>
                <dd data-testid="live-state">{move || signals.state.get()}</dd>
                <dt>"resourceVersion"</dt>
                <dd>
                    <code data-testid="live-rv">{move || signals.resource_version.get()}</code>
                </dd>
                <dt>"Events"</dt>
                <dd data-testid="live-events">
                    {move || {
                        format!(
                            "{} applied, {:.1} per second",
                            signals.events_applied.get(),
                            signals.events_per_second.get(),
                        )
                    }}
                </dd>
                <dt>"Last bookmark"</dt>
                <dd>
                    <code>{move || signals.last_bookmark.get()}</code>
                </dd>
                {move || {
                    signals
                        .problem
                        .get()
                        .map(|p| {
                            view! {
                                <dt>"Last problem"</dt>
                                <dd class="warning" data-testid="live-problem">{p}</dd>
                            }
                        })
                }}
            </dl>
            <div class="live__panes">
                {move || view! { <GridView grid=signals.grid.get() wide /> }}
                <section class="timeline" aria-label="Event timeline">
                    <div class="grid__bar">
                        <strong>"Event timeline"</strong>
                        <input
                            type="search"
                            aria-label="Filter events"
                            placeholder="Filter events"
                            prop:value=timeline_filter
                            on:input=move |e| set_timeline_filter.set(event_target_value(&e))
                        />
                        <button class="button button--quiet" on:click=toggle_pause>
                            {move || if timeline_paused.get() { "Resume timeline" } else { "Pause timeline" }}
                        </button>
                    </div>
                    <ol class="timeline__list" data-testid="timeline">
                        {move || {
                            let needle = timeline_filter.get().to_lowercase();
                            signals
                                .timeline
                                .get()
                                .into_iter()
                                .filter(|e| {
                                    needle.is_empty() || e.what.to_lowercase().contains(&needle)
                                        || e.event_type.to_lowercase().contains(&needle)
                                })
                                .map(|e| {
                                    view! {
                                        <li data-testid="timeline-entry" data-type=e.event_type>
                                            <span class="timeline__type">{e.event_type}</span>
                                            " "
                                            <span>{e.what}</span>
                                            " "
                                            <code class="muted">{format!("rv {}", e.resource_version)}</code>
                                            " "
                                            <span class="muted">{format!("#{} at {:.1} s", e.seq, e.at_ms / 1000.0)}</span>
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ol>
                </section>
            </div>
            <ObjectHistory driver=history_driver tick=signals.history_tick />
        </div>
    }
}

/// The versions of one watched object, and the diff between any two of them.
#[component]
fn ObjectHistory(driver: StoredValue<Option<SendWrapper<Rc<Driver>>>>, tick: RwSignal<u64>) -> impl IntoView {
    let (selected, set_selected) = signal(String::new());
    let (from, set_from) = signal(None::<usize>);
    let (to, set_to) = signal(None::<usize>);
    let names = Memo::new(move |_| {
        tick.track();
        driver.with_value(|d| {
            d.as_ref()
                .map(|d| {
                    d.history.borrow().iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k.clone()).collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let versions = Memo::new(move |_| {
        tick.track();
        let name = selected.get();
        driver.with_value(|d| {
            d.as_ref()
                .and_then(|d| d.history.borrow().get(&name).map(|v| v.iter().cloned().collect::<Vec<_>>()))
                .unwrap_or_default()
        })
    });
    let pick = move |index: Option<usize>, fallback: usize| {
        let n = versions.with(Vec::len);
        index.filter(|&i| i < n).or_else(|| n.checked_sub(fallback))
    };
    let diff = move || {
        let all = versions.get();
        let (a, b) = (pick(from.get(), 2)?, pick(to.get(), 1)?);
        Some((all.get(a)?.1.clone(), all.get(b)?.1.clone()))
    };
    let version_select = move |label: &'static str,
                               set: WriteSignal<Option<usize>>,
                               current: ReadSignal<Option<usize>>,
                               fallback: usize| {
        view! {
            <label class="toolbar__field">
                {label}
                <select aria-label=label on:change=move |e| set.set(event_target_value(&e).parse().ok())>
                    {move || {
                        let chosen = pick(current.get(), fallback);
                        versions
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, (label, _))| {
                                view! { <option value=i.to_string() selected=chosen == Some(i)>{label}</option> }
                            })
                            .collect_view()
                    }}
                </select>
            </label>
        }
    };
    view! {
        <section class="panel history" aria-label="Object history">
            <h3>"Object history"</h3>
            <div class="toolbar">
                <label class="toolbar__field">
                    "Object "
                    <select
                        aria-label="History of object"
                        on:change=move |e| {
                            set_selected.set(event_target_value(&e));
                            set_from.set(None);
                            set_to.set(None);
                        }
                    >
                        <option value="">"Pick an object that changed"</option>
                        {move || {
                            names
                                .get()
                                .into_iter()
                                .map(|n| view! { <option value=n.clone()>{n.clone()}</option> })
                                .collect_view()
                        }}
                    </select>
                </label>
                {version_select("From ", set_from, from, 2)}
                {version_select("To ", set_to, to, 1)}
            </div>
            {move || diff().map(|(old, new)| view! { <DiffView old new name="history" /> })}
        </section>
    }
}
