//! The live collection: the `api` reflector keeps a cache of the collection in step with the
//! server (list then watch, or a streaming list), and this module is its edge: it runs the
//! reflector's requests over streaming `fetch`, its waits as timeouts, aborts what it cancels, and
//! shows the cache, the connection state and an event timeline. Renders are batched per animation
//! frame, so a burst of events costs one re-render, and only the rows of objects that changed are
//! formatted again. When the collection view is a Table the watch is one too (`as=Table`, as
//! `kubectl get -w`): the server's columns, one row per event. Watches hold a slot of the page's
//! stream budget, and a hidden tab (or the user) pauses the watch: it resumes from its
//! resourceVersion when the tab shows again.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use web_sys::AbortController;

use crate::api::codec::value::Value;
use crate::api::media_type::MediaType;
use crate::api::reflector::{
    Action, CachedObject, Change, Failure, Input, Jitter, ObjectKey, OpId, Reflector, ReflectorConfig, RequestKind,
    WatchEnd,
};
use crate::api::request::Request;
use crate::api::view::list::ResourceVersion;
use crate::api::view::table::TableColumnDefinition;
use crate::api::watch::lazy::LazyObject;
use crate::api::watch::{watched_object, WatchDecoder, WatchEvent};
use crate::client::fetch::now_ms;
use crate::client::handle::{use_client, Client};
use crate::client::stream::budget_use;
use crate::model::cells::{Column, Grid, Row};
use crate::model::live_rows::{LiveRows, RowPatch};
use crate::ui::grid::GridView;
use crate::ui::lazy::HistoryDiffOnDemand;

/// How many timeline entries are kept.
const TIMELINE: usize = 500;
/// How many versions of each object the history keeps.
const HISTORY: usize = 30;
/// How many versions the history keeps in all (a burst over 10,000 objects must not keep them
/// all): the oldest go first.
const HISTORY_TOTAL: usize = 3_000;
/// The timeline and the history's menus are redrawn at most this often (ms) during bursts. A
/// redraw of the 500-entry timeline takes tens of milliseconds: at 2,000 events/s over 10,000
/// pods, redrawing 4 times a second made the 95th-percentile frame 83 ms, once a second 33 ms.
const PANEL_REFRESH_MS: f64 = 1000.0;
/// How long watch events are applied in one go before the page gets a turn (ms): a frame lasts
/// 16.7 ms, and the draw of the changed rows needs some of it.
const TURN_MS: f64 = 10.0;
/// One event in this many is timed step by step (the reflector, the timeline and history), to
/// split the time of a batch between them.
const SAMPLE_EVERY: u64 = 16;
/// How long a row that was added or changed shows highlighted, in milliseconds.
const HIGHLIGHT_MS: f64 = 1_500.0;

/// Where the page's time goes (for the status line and the benchmark), in milliseconds.
#[derive(Default, Clone, Copy, PartialEq)]
struct Costs {
    /// Decoding events and applying them to the cache (and the timeline and history): the sum
    /// of the three below.
    apply_ms: f64,
    /// Framing and decoding watch events.
    decode_ms: f64,
    /// The reflector's step for each event (dedupe, cache, bookkeeping); estimated, as the
    /// next one, from the events timed step by step ([`SAMPLE_EVERY`]).
    reflect_ms: f64,
    /// The timeline entry and the object history of each event.
    record_ms: f64,
    /// Patching the grid's rows with the objects that changed, and how many times.
    grid_ms: f64,
    grids: u64,
    /// The grid is not redrawn before this time.
    grid_next_at: f64,
}

/// The rows shown, formatted once per object version: the grid's rows are patched in place for
/// the objects that changed (a redraw costs what changed, not the whole collection).
#[derive(Default)]
struct RowCache {
    /// Where each object's row stands in the grid.
    live: LiveRows<ObjectKey>,
    /// Objects to format again at the next frame.
    dirty: HashSet<ObjectKey>,
    /// Format every row again (the columns changed).
    rebuild: bool,
    /// When each highlighted row was changed (ms).
    highlighted: HashMap<ObjectKey, f64>,
    /// A namespaced type across all namespaces: the server's Table columns get a `Namespace`
    /// column first, as `kubectl get -A -w` shows (the plain-object columns have one already).
    namespace_column: bool,
}

impl RowCache {
    /// Patches `grid` with the rows of the objects that changed; `live` when changes are news (a
    /// sync was shown before), so their rows are highlighted. Whether the grid changed.
    fn update(&mut self, reflector: &Reflector, grid: &mut Grid, live: bool, now: f64, epoch_ms: i64) -> bool {
        if !self.rebuild && self.dirty.is_empty() && self.highlighted.is_empty() {
            return false;
        }
        let definitions = reflector.table_columns();
        let mut changed = false;
        if self.rebuild || grid.columns.is_empty() {
            let columns = match definitions {
                Some(definitions) if self.namespace_column => {
                    std::iter::once(Column::namespace()).chain(Grid::table_columns(definitions)).collect()
                }
                Some(definitions) => Grid::table_columns(definitions),
                None => Grid::from_items(&[], 0).columns,
            };
            changed |= columns != grid.columns;
            grid.columns = columns;
        }
        if std::mem::take(&mut self.rebuild) {
            self.dirty.clear();
            self.highlighted.clear();
            let all = reflector
                .store()
                .iter()
                .map(|(key, cached)| (key.clone(), format_row(cached, definitions, self.namespace_column, epoch_ms)))
                .collect();
            self.live.replace_all(&mut grid.rows, all);
            changed = true;
        } else if !self.dirty.is_empty() {
            let patches = self
                .dirty
                .drain()
                .map(|key| {
                    self.highlighted.remove(&key);
                    match reflector.store().get(&key) {
                        Some(cached) => {
                            let mut row = format_row(cached, definitions, self.namespace_column, epoch_ms);
                            if live {
                                row.highlight = true;
                                self.highlighted.insert(key.clone(), now);
                            }
                            RowPatch::Upsert(key, row)
                        }
                        None => RowPatch::Remove(key),
                    }
                })
                .collect();
            self.live.apply(&mut grid.rows, patches);
            changed = true;
        }
        // Highlights end after a while, so a row scrolled into view later does not show the tint.
        let expired: Vec<ObjectKey> =
            self.highlighted.iter().filter(|(_, at)| now - **at > HIGHLIGHT_MS).map(|(k, _)| k.clone()).collect();
        for key in expired {
            self.highlighted.remove(&key);
            if let Some(row) = self.live.row_mut(&mut grid.rows, &key) {
                row.highlight = false;
                changed = true;
            }
        }
        changed
    }
}

/// One cached object as a row: a one-row Table (a Table watch) by the server's columns (after
/// its namespace when `namespace_column`), or a plain object by name, namespace and age.
fn format_row(
    cached: &CachedObject,
    definitions: Option<&[TableColumnDefinition]>,
    namespace_column: bool,
    epoch_ms: i64,
) -> Row {
    let object = &cached.object;
    if let Some(table) = object.table().filter(|t| t.rows == 1) {
        let head = table.row_object.then(|| object.head());
        let row = Grid::table_row_head(definitions.unwrap_or_default(), &table.cells, head, epoch_ms);
        return if namespace_column { row.with_namespace_cell() } else { row };
    }
    Grid::head_row(object.head(), epoch_ms)
}

/// One version of an object in the history: "EVENT rv N", and the cached entry (shared; its
/// tree is decoded when a diff shows it).
type Version = (String, Arc<LazyObject>);

/// The names of the history's versions in the order recorded, and how many each has there.
type HistoryOrder = (VecDeque<Arc<str>>, HashMap<Arc<str>, usize>);

/// One line of the event timeline.
#[derive(Debug, Clone, PartialEq)]
struct TimelineEntry {
    seq: u64,
    event_type: &'static str,
    /// Kind and namespace/name: also the object's name in the history (shared, not copied).
    what: Arc<str>,
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
    /// Where the page's time went.
    costs: RwSignal<Costs>,
    problem: RwSignal<Option<String>>,
    timeline: RwSignal<VecDeque<TimelineEntry>>,
    /// Bumped when the object history changed.
    history_tick: RwSignal<u64>,
    /// Watch streams of the page open, waiting, and the budget.
    streams: RwSignal<(usize, usize, usize)>,
}

/// The edge that runs one reflector.
struct Driver {
    reflector: RefCell<Reflector>,
    client: Client,
    controllers: RefCell<HashMap<OpId, AbortController>>,
    timers: RefCell<HashMap<OpId, TimeoutHandle>>,
    signals: LiveSignals,
    render_scheduled: Cell<bool>,
    stopped: Cell<bool>,
    paused_timeline: Cell<bool>,
    pending_timeline: RefCell<Vec<TimelineEntry>>,
    seq: Cell<u64>,
    rate_window: RefCell<VecDeque<(f64, u64)>>,
    /// Every version of each object seen in events, by kind and namespace/name: ("EVENT rv N",
    /// the cached entry), shared with the cache rather than copied.
    history: RefCell<BTreeMap<Arc<str>, VecDeque<Version>>>,
    history_changed: Cell<bool>,
    rows: RefCell<RowCache>,
    /// A sync has completed once, and a frame showed it: later upserts are changes, highlighted.
    synced_once: Cell<bool>,
    shown_synced: Cell<bool>,
    /// When a render timer is due (infinity: none).
    later_at: Cell<f64>,
    /// When the timeline and history panels were last redrawn (ms).
    panels_at: Cell<f64>,
    costs: RefCell<Costs>,
    /// The history's versions in the order recorded, by object, to drop the oldest first.
    history_order: RefCell<HistoryOrder>,
    /// Paused by the user, or because the tab is hidden; the reflector is paused when either is.
    user_paused: Cell<bool>,
    hidden: Cell<bool>,
    paused: Cell<bool>,
}

impl Driver {
    fn feed(self: &Rc<Self>, input: Input) {
        self.feed_with(input, Jitter::new(js_sys::Math::random()));
    }

    /// [`Driver::feed`] with the jitter of a backoff it may start (the events of one chunk share
    /// one: a call out to the page per event is not free at 10,000 events/s).
    fn feed_with(self: &Rc<Self>, input: Input, jitter: Jitter) {
        if self.stopped.get() {
            return;
        }
        let step = self.reflector.borrow_mut().step(input, jitter);
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
        {
            let mut rows = self.rows.borrow_mut();
            for change in step.changes {
                match change {
                    Change::Problem(problem) => self.signals.problem.set(Some(problem.to_string())),
                    Change::Upsert(key) | Change::Delete(key) => {
                        rows.dirty.insert(key);
                    }
                    Change::Columns => rows.rebuild = true,
                    Change::InitialListComplete => self.synced_once.set(true),
                    Change::State(_) => {}
                }
            }
        }
        self.schedule_render();
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
        self.schedule_render();
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
                Ok(Some(chunk)) => match timed(|| decoder.push(&chunk)) {
                    (Ok(events), decode_ms) => {
                        // The events of a chunk arrived together: one time for their timeline
                        // entries. The clock is read around the whole batch, and between the
                        // steps of one event in SAMPLE_EVERY (each reading is a call out to the
                        // page; three per event cost more than a tenth of the page's time at
                        // 10,000 events/s): the split between reflector and records is an
                        // estimate from those.
                        let arrived = now_ms();
                        let jitter = Jitter::new(js_sys::Math::random());
                        let (mut sampled_reflect, mut sampled_record) = (0.0, 0.0);
                        for event in events {
                            let sample = self.seq.get().is_multiple_of(SAMPLE_EVERY);
                            let started = if sample { now_ms() } else { 0.0 };
                            let entry = self.timeline_entry(&event, arrived);
                            // The cache keeps the object; a deleted one leaves it, so its last
                            // version is kept from the event.
                            let deleted = match (&event, &entry.1) {
                                (WatchEvent::Deleted(object), Some(_)) => Some(Arc::new(object.clone())),
                                _ => None,
                            };
                            let key = event.object().and_then(|o| ObjectKey::of_head(o.head()));
                            let fed = if sample { now_ms() } else { 0.0 };
                            self.feed_with(Input::WatchEvent { op, event }, jitter);
                            let reflected = if sample { now_ms() } else { 0.0 };
                            self.record(entry, key, deleted);
                            if sample {
                                sampled_record += (fed - started) + (now_ms() - reflected);
                                sampled_reflect += reflected - fed;
                            }
                        }
                        let applied_ms = now_ms() - arrived;
                        let sampled = sampled_reflect + sampled_record;
                        let reflect_share = if sampled > 0.0 { sampled_reflect / sampled } else { 0.5 };
                        let mut costs = self.costs.borrow_mut();
                        costs.decode_ms += decode_ms;
                        costs.reflect_ms += applied_ms * reflect_share;
                        costs.record_ms += applied_ms * (1.0 - reflect_share);
                        costs.apply_ms += decode_ms + applied_ms;
                    }
                    (Err(error), _) => {
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

    /// The timeline entry of an event, and the history's name for its object (none for a
    /// bookmark or an error).
    fn timeline_entry(&self, event: &WatchEvent, at_ms: f64) -> (TimelineEntry, Option<Arc<str>>) {
        let seq = self.seq.get() + 1;
        self.seq.set(seq);
        let what = event
            .object()
            .map(|o| {
                let head = o.head();
                let kind = head.kind.as_deref().unwrap_or_default();
                let name = head.name.as_deref().unwrap_or_default();
                let what: Arc<str> = match head.namespace.as_deref().unwrap_or_default() {
                    "" => format!("{kind} {name}").into(),
                    namespace => format!("{kind} {namespace}/{name}").into(),
                };
                what
            })
            .unwrap_or_else(|| Arc::from(""));
        let entry = TimelineEntry {
            seq,
            event_type: event.event_type(),
            what,
            resource_version: event.resource_version().map(ResourceVersion::into_string).unwrap_or_default(),
            at_ms,
        };
        let named = event.object().is_some() && !entry.what.is_empty();
        let history = named.then(|| entry.what.clone());
        (entry, history)
    }

    /// Records an event that was fed to the reflector: its timeline entry, and its object's
    /// version in the history: the cached entry itself when the cache holds that version
    /// (`key`), or `deleted`, the last version of an object that left the cache. A delivery of a
    /// version the cache does not hold (an old one, ignored as a duplicate) is not a version.
    fn record(
        &self,
        (entry, name): (TimelineEntry, Option<Arc<str>>),
        key: Option<ObjectKey>,
        deleted: Option<Arc<LazyObject>>,
    ) {
        let version = deleted.or_else(|| {
            let reflector = self.reflector.borrow();
            let cached = reflector.store().get(key.as_ref()?)?;
            let same = cached.resource_version.as_ref().map(|rv| rv.as_str()) == Some(entry.resource_version.as_str());
            same.then(|| cached.object.clone())
        });
        if let (Some(name), Some(object)) = (name, version) {
            let label = format!("{} rv {}", entry.event_type, entry.resource_version);
            let mut history = self.history.borrow_mut();
            let (order, recorded) = &mut *self.history_order.borrow_mut();
            let versions = history.entry(name.clone()).or_default();
            versions.push_back((label, object));
            order.push_back(name.clone());
            *recorded.entry(name).or_default() += 1;
            if versions.len() > HISTORY {
                versions.pop_front();
            }
            // Over the total, the oldest version recorded goes. An object holds the newest of
            // the versions recorded for it: when it holds as many as recorded, the oldest
            // recorded is its first; otherwise the per-object bound dropped that one already.
            while order.len() > HISTORY_TOTAL {
                let Some(oldest) = order.pop_front() else { break };
                let count = recorded.get(&oldest).copied().unwrap_or_default();
                if let Some(versions) = history.get_mut(&oldest) {
                    if versions.len() >= count {
                        versions.pop_front();
                    }
                    if versions.is_empty() {
                        history.remove(&oldest);
                    }
                }
                if count <= 1 {
                    recorded.remove(&oldest);
                } else {
                    recorded.insert(oldest, count - 1);
                }
            }
            self.history_changed.set(true);
        }
        if !self.paused_timeline.get() {
            let mut pending = self.pending_timeline.borrow_mut();
            pending.push(entry);
            if pending.len() > 2 * TIMELINE {
                pending.drain(..TIMELINE);
            }
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

    fn render(self: &Rc<Self>) {
        let reflector = self.reflector.borrow();
        let epoch_ms = js_sys::Date::now() as i64;
        let mut rows = self.rows.borrow_mut();
        let started = now_ms();
        // Redrawing a large grid costs milliseconds: it waits until three times its last cost
        // has passed, so that at most a quarter of the time goes to it and the page stays
        // responsive in a burst (events are still applied to the cache at every frame).
        let grid_due = started >= self.costs.borrow().grid_next_at;
        if !grid_due {
            self.render_later(self.costs.borrow().grid_next_at - started + 1.0);
        } else {
            let mut changed = false;
            let live = self.shown_synced.get();
            self.signals.grid.maybe_update(|grid| {
                changed = rows.update(&reflector, grid, live, started, epoch_ms);
                changed
            });
            if changed {
                let finished = now_ms();
                let mut costs = self.costs.borrow_mut();
                let cost = finished - started;
                costs.grid_ms += cost;
                costs.grids += 1;
                costs.grid_next_at = finished + 3.0 * cost;
            }
        }
        self.shown_synced.set(self.synced_once.get());
        if !rows.highlighted.is_empty() {
            // Render again when the highlights are due to end, even if no event comes.
            self.render_later(HIGHLIGHT_MS + 50.0);
        }
        drop(rows);
        self.signals.streams.set(budget_use());
        self.signals.state.set(reflector.state().to_string());
        self.signals.resource_version.set(reflector.resource_version().map(|rv| rv.to_string()).unwrap_or_default());
        self.signals.last_bookmark.set(reflector.last_bookmark().map(|rv| rv.to_string()).unwrap_or_default());
        let applied = reflector.counters().events_applied;
        self.signals.events_applied.set(applied);
        self.signals.costs.set(*self.costs.borrow());
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
        // The panels are redrawn at most every PANEL_REFRESH_MS: a burst must not redraw a
        // 500-entry timeline and the history menus at every frame.
        let panels_due = now - self.panels_at.get() >= PANEL_REFRESH_MS;
        let panels_pending = self.history_changed.get() || !self.pending_timeline.borrow().is_empty();
        if panels_pending && !panels_due {
            self.render_later(PANEL_REFRESH_MS);
            return;
        }
        if panels_pending {
            self.panels_at.set(now);
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

    /// Renders again in `ms` even if no event comes; a timer already due sooner does.
    fn render_later(self: &Rc<Self>, ms: f64) {
        let at = now_ms() + ms.max(0.0);
        if self.later_at.get() <= at {
            return;
        }
        self.later_at.set(at);
        let driver = SendWrapper::new(self.clone());
        set_timeout(
            move || {
                if driver.later_at.get() <= at {
                    driver.later_at.set(f64::INFINITY);
                }
                driver.schedule_render();
            },
            Duration::from_millis(ms.max(0.0) as u64),
        );
    }

    /// Pauses the reflector while the user paused or the tab is hidden, resumes it otherwise
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

/// Runs `f`, and how long it took (ms).
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = now_ms();
    let out = f();
    (out, now_ms() - started)
}

/// A collection kept live by a watch. Leaving the view stops the reflector and aborts its fetches.
#[component]
pub fn LiveView(
    /// What to watch and how (resolved from the view by `model::target`).
    config: ReflectorConfig,
    /// A namespaced type watched across all namespaces: its rows get a `Namespace` column.
    across_namespaces: bool,
) -> impl IntoView {
    let client = use_client();
    let signals = LiveSignals {
        grid: RwSignal::new(Grid::default()),
        state: RwSignal::new("starting".to_owned()),
        resource_version: RwSignal::new(String::new()),
        last_bookmark: RwSignal::new(String::new()),
        events_applied: RwSignal::new(0),
        events_per_second: RwSignal::new(0.0),
        costs: RwSignal::new(Costs::default()),
        problem: RwSignal::new(None),
        timeline: RwSignal::new(VecDeque::new()),
        history_tick: RwSignal::new(0),
        streams: RwSignal::new((0, 0, 0)),
    };
    let start = Reflector::start(config).map_err(|e| e.to_string());
    let driver = match start {
        Ok((reflector, step)) => {
            let driver = Rc::new(Driver {
                reflector: RefCell::new(reflector),
                client,
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
                rows: RefCell::new(RowCache { namespace_column: across_namespaces, ..RowCache::default() }),
                synced_once: Cell::new(false),
                shown_synced: Cell::new(false),
                later_at: Cell::new(f64::INFINITY),
                panels_at: Cell::new(f64::NEG_INFINITY),
                costs: RefCell::new(Costs::default()),
                history_order: RefCell::new((VecDeque::new(), HashMap::new())),
                user_paused: Cell::new(false),
                hidden: Cell::new(false),
                paused: Cell::new(false),
            });
            driver.run(step);
            let visibility = watch_visibility(&driver);
            let on_leave = SendWrapper::new((driver.clone(), visibility));
            on_cleanup(move || {
                let (driver, visibility) = &*on_leave;
                if let Some(listener) = visibility {
                    listener.remove();
                }
                driver.stop();
            });
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
    let watch_driver = driver.clone().map(SendWrapper::new);
    let (watch_paused, set_watch_paused) = signal(false);
    let toggle_watch = move |_| {
        let paused = !watch_paused.get_untracked();
        set_watch_paused.set(paused);
        if let Some(driver) = &watch_driver {
            driver.user_paused.set(paused);
            driver.apply_pause();
        }
    };
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
                <dd data-testid="live-state">
                    {move || signals.state.get()}
                    " "
                    <button class="button button--quiet" on:click=toggle_watch>
                        {move || if watch_paused.get() { "Resume watch" } else { "Pause watch" }}
                    </button>
                </dd>
                <dt>"resourceVersion"</dt>
                <dd>
                    <code data-testid="live-rv">{move || signals.resource_version.get()}</code>
                </dd>
                <dt>"Events"</dt>
                <dd
                    data-testid="live-events"
                    data-applied=move || signals.events_applied.get().to_string()
                    data-apply-ms=move || format!("{:.0}", signals.costs.get().apply_ms)
                    data-decode-ms=move || format!("{:.0}", signals.costs.get().decode_ms)
                    data-reflect-ms=move || format!("{:.0}", signals.costs.get().reflect_ms)
                    data-record-ms=move || format!("{:.0}", signals.costs.get().record_ms)
                    data-grid-ms=move || format!("{:.0}", signals.costs.get().grid_ms)
                    data-grids=move || signals.costs.get().grids.to_string()
                >
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
                <dt>"Streams"</dt>
                <dd data-testid="live-streams">
                    {move || {
                        let (open, waiting, limit) = signals.streams.get();
                        format!("{open} of {limit} open, {waiting} waiting")
                    }}
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
                <GridView grid=signals.grid wide />
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
                                            <span>{e.what.to_string()}</span>
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
                    d.history
                        .borrow()
                        .iter()
                        .filter(|(_, v)| v.len() > 1)
                        .map(|(k, _)| k.to_string())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let versions = Memo::new(move |_| {
        tick.track();
        let name = selected.get();
        driver.with_value(|d| {
            d.as_ref()
                .and_then(|d| d.history.borrow().get(name.as_str()).map(|v| v.iter().cloned().collect::<Vec<_>>()))
                .unwrap_or_default()
        })
    });
    let pick = move |index: Option<usize>, fallback: usize| {
        let n = versions.with(Vec::len);
        index.filter(|&i| i < n).or_else(|| n.checked_sub(fallback))
    };
    // The two versions' trees, decoded now (a watch keeps the wire bytes of each version).
    let diff = move || {
        let all = versions.get();
        let (a, b) = (pick(from.get(), 2)?, pick(to.get(), 1)?);
        let tree = |i: usize| -> Option<Result<Value, String>> {
            let (_, object) = all.get(i)?;
            Some(object.value().map(|v| watched_object(&v).clone()).map_err(|e| e.to_string()))
        };
        let (old, new) = (tree(a)?, tree(b)?);
        Some(old.and_then(|old| new.map(|new| (old, new))))
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
            {move || {
                diff()
                    .map(|trees| match trees {
                        Ok((old, new)) => view! { <HistoryDiffOnDemand old new /> }.into_any(),
                        Err(error) => view! { <p class="warning" data-testid="history-error">{error}</p> }.into_any(),
                    })
            }}
        </section>
    }
}

/// The `visibilitychange` listener of a live view: a hidden tab pauses the watch (its connection
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
    let hidden = |document: &web_sys::Document| document.hidden();
    driver.hidden.set(hidden(&document));
    driver.apply_pause();
    let weak = Rc::downgrade(driver);
    let closure = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
        let (Some(driver), Some(document)) = (weak.upgrade(), web_sys::window().and_then(|w| w.document())) else {
            return;
        };
        driver.hidden.set(hidden(&document));
        driver.apply_pause();
    });
    document.add_event_listener_with_callback("visibilitychange", closure.as_ref().unchecked_ref()).ok()?;
    Some(VisibilityListener { closure })
}
