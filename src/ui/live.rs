//! The live collection: `client::reflector` keeps a cache of the collection in step with the
//! server (list then watch, or a streaming list) and this view shows it: the grid, the
//! connection state, an event timeline and each object's history. Renders are batched per
//! animation frame, so a burst of events costs one re-render, and only the rows of objects that
//! changed are formatted again. When the collection view is a Table the watch is one too
//! (`as=Table`, as `kubectl get -w`): the server's columns, one row per event. In protobuf the
//! watch is too (its decoder fetched on demand); the status line shows what the watch asked for
//! and what came back, and says why when the type has no protobuf form.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::error::DecodeError;
use crate::api::reflector::{CachedObject, Change, ObjectKey, Reflector, ReflectorConfig};
use crate::api::view::table::TableColumnDefinition;
use crate::api::watch::lazy::LazyObject;
use crate::api::watch::{watched_object, WatchEvent};
use crate::client::fetch::now_ms;
use crate::client::reflector::{use_reflector, ReflectorObserver, ReflectorStore, UseReflectorReturn};
use crate::client::stream::budget_use;
use crate::client::task::{next_frame, sleep, Tasks};
use crate::i18n::Msg;
use crate::model::cells::{Column, Grid, Row};
use crate::model::history::{ObjectHistory as History, TimelineEntry};
use crate::model::live_rows::{LiveRows, RowPatch};
use crate::ui::grid::GridView;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::intl;
use crate::ui::lazy::HistoryDiffOnDemand;
use crate::ui::location::{is_plain_click, use_navigation, Navigation};
use crate::ui::protobuf::protobuf_loader;

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
/// How long a row that was added or changed shows highlighted, in milliseconds.
const HIGHLIGHT_MS: f64 = 1_500.0;

/// What redrawing the grid cost, and when it may be redrawn next (ms).
#[derive(Default, Clone, Copy, PartialEq)]
struct GridCosts {
    /// Patching the grid's rows with the objects that changed, and how many times.
    grid_ms: f64,
    grids: u64,
    /// The grid is not redrawn before this time.
    next_at: f64,
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

/// What the view shows, updated at most once per animation frame.
#[derive(Clone, Copy)]
struct LiveSignals {
    grid: RwSignal<Grid>,
    last_bookmark: RwSignal<String>,
    events_applied: RwSignal<u64>,
    events_per_second: RwSignal<f64>,
    /// Where the page's time went: the reflector's edge, and the grid.
    costs: RwSignal<(crate::client::reflector::WatchCosts, GridCosts)>,
    timeline: RwSignal<VecDeque<TimelineEntry>>,
    /// Bumped when the object history changed.
    history_tick: RwSignal<u64>,
    /// Watch streams of the page open, waiting, and the budget.
    streams: RwSignal<(usize, usize, usize)>,
    /// Whether the rows shown include the first complete list (until then an empty grid means
    /// nothing has arrived yet, not an empty collection).
    synced: RwSignal<bool>,
}

/// The view's side of a running reflector: what it keeps of the events, and its renders.
struct Live {
    store: ReflectorStore,
    signals: LiveSignals,
    render_scheduled: Cell<bool>,
    paused_timeline: Cell<bool>,
    pending_timeline: RefCell<Vec<TimelineEntry>>,
    rate_window: RefCell<VecDeque<(f64, u64)>>,
    /// Every version of each object seen in events, shared with the cache rather than copied.
    history: RefCell<History>,
    history_changed: Cell<bool>,
    rows: RefCell<RowCache>,
    /// A sync has completed once, and a frame showed it: later upserts are changes, highlighted.
    synced_once: Cell<bool>,
    shown_synced: Cell<bool>,
    /// When a render timer is due (infinity: none).
    later_at: Cell<f64>,
    /// When the timeline and history panels were last redrawn (ms).
    panels_at: Cell<f64>,
    grid_costs: Cell<GridCosts>,
    /// Its frames and timers, dropped with the view: a render after it would read its signals.
    tasks: Tasks,
}

/// What the view takes from an event before it is applied: its timeline entry and history name,
/// and for a DELETED event the object (it leaves the cache, so its last version is kept here).
struct Seen {
    entry: TimelineEntry,
    name: Option<Arc<str>>,
    deleted: Option<Arc<LazyObject>>,
}

/// The view as the reflector's observer (a handle: the view itself is shared with its renders).
struct LiveObserver(Rc<Live>);

impl ReflectorObserver for LiveObserver {
    type Seen = Seen;

    fn before_event(&self, event: &WatchEvent, seq: u64, arrived_ms: f64) -> Seen {
        let (entry, name) = TimelineEntry::of(event, seq, arrived_ms);
        let deleted = match (event, &name) {
            (WatchEvent::Deleted(object), Some(_)) => Some(Arc::new(object.clone())),
            _ => None,
        };
        Seen { entry, name, deleted }
    }

    /// Records an event that was applied: its timeline entry, and its object's version in the
    /// history: the cached entry itself when the cache holds that version (`key`), or the last
    /// version of an object that left the cache. A delivery of a version the cache does not hold
    /// (an old one, ignored as a duplicate) is not a version.
    fn after_event(&self, reflector: &Reflector, key: Option<ObjectKey>, seen: Seen) {
        let live = &self.0;
        let Seen { entry, name, deleted } = seen;
        let version = deleted.or_else(|| {
            let cached = reflector.store().get(key.as_ref()?)?;
            let same = cached.resource_version.as_ref().map(|rv| rv.as_str()) == Some(entry.resource_version.as_str());
            same.then(|| cached.object.clone())
        });
        if let (Some(name), Some(object)) = (name, version) {
            live.history.borrow_mut().record(name, entry.version_label(), object);
            live.history_changed.set(true);
        }
        if !live.paused_timeline.get() {
            let mut pending = live.pending_timeline.borrow_mut();
            pending.push(entry);
            if pending.len() > 2 * TIMELINE {
                pending.drain(..TIMELINE);
            }
        }
    }

    fn stepped(&self, changes: Vec<Change>) {
        let live = &self.0;
        {
            let mut rows = live.rows.borrow_mut();
            for change in changes {
                match change {
                    Change::Upsert(key) | Change::Delete(key) => {
                        rows.dirty.insert(key);
                    }
                    Change::Columns => rows.rebuild = true,
                    Change::InitialListComplete => live.synced_once.set(true),
                    Change::Problem(_) | Change::State(_) => {}
                }
            }
        }
        live.schedule_render();
    }
}

impl Live {
    fn schedule_render(self: &Rc<Self>) {
        if self.render_scheduled.replace(true) {
            return;
        }
        let live = self.clone();
        self.tasks.spawn(async move {
            next_frame().await;
            live.render_scheduled.set(false);
            live.render();
        });
    }

    fn render(self: &Rc<Self>) {
        let reflector = self.store.reflector();
        let epoch_ms = js_sys::Date::now() as i64;
        let mut rows = self.rows.borrow_mut();
        let started = now_ms();
        // Redrawing a large grid costs milliseconds: it waits until three times its last cost
        // has passed, so that at most a quarter of the time goes to it and the page stays
        // responsive in a burst (events are still applied to the cache at every frame).
        let mut grid_costs = self.grid_costs.get();
        if started < grid_costs.next_at {
            self.render_later(grid_costs.next_at - started + 1.0);
        } else {
            let mut changed = false;
            let live = self.shown_synced.get();
            self.signals.grid.maybe_update(|grid| {
                changed = rows.update(&reflector, grid, live, started, epoch_ms);
                changed
            });
            if changed {
                let finished = now_ms();
                let cost = finished - started;
                grid_costs.grid_ms += cost;
                grid_costs.grids += 1;
                grid_costs.next_at = finished + 3.0 * cost;
                self.grid_costs.set(grid_costs);
            }
        }
        self.shown_synced.set(self.synced_once.get());
        if self.synced_once.get() && !self.signals.synced.get_untracked() {
            self.signals.synced.set(true);
        }
        if !rows.highlighted.is_empty() {
            // Render again when the highlights are due to end, even if no event comes.
            self.render_later(HIGHLIGHT_MS + 50.0);
        }
        drop(rows);
        self.signals.streams.set(budget_use());
        self.signals.last_bookmark.set(reflector.last_bookmark().map(|rv| rv.to_string()).unwrap_or_default());
        let applied = reflector.counters().events_applied;
        drop(reflector);
        self.signals.events_applied.set(applied);
        self.signals.costs.set((self.store.costs(), grid_costs));
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
        let live = self.clone();
        self.tasks.spawn(async move {
            sleep(Duration::from_millis(ms.max(0.0) as u64)).await;
            if live.later_at.get() <= at {
                live.later_at.set(f64::INFINITY);
            }
            live.schedule_render();
        });
    }
}

/// A collection kept live by a watch. Leaving the view stops the reflector and aborts its fetches.
#[component]
pub fn LiveView(
    /// What to watch and how (resolved from the view by `model::target`).
    config: ReflectorConfig,
    /// A namespaced type watched across all namespaces: its rows get a `Namespace` column.
    across_namespaces: bool,
) -> impl IntoView {
    let signals = LiveSignals {
        grid: RwSignal::new(Grid::default()),
        last_bookmark: RwSignal::new(String::new()),
        events_applied: RwSignal::new(0),
        events_per_second: RwSignal::new(0.0),
        costs: RwSignal::new(Default::default()),
        timeline: RwSignal::new(VecDeque::new()),
        history_tick: RwSignal::new(0),
        streams: RwSignal::new((0, 0, 0)),
        synced: RwSignal::new(false),
    };
    let live = StoredValue::new_local(None::<Rc<Live>>);
    let tasks = Tasks::for_current_owner();
    let UseReflectorReturn {
        state,
        resource_version,
        problem,
        forbidden,
        accept,
        content_type,
        protobuf_not_served,
        pause,
        ..
    } = use_reflector(config, Some(protobuf_loader()), |store| {
        let view = Rc::new(Live {
            store,
            signals,
            render_scheduled: Cell::new(false),
            paused_timeline: Cell::new(false),
            pending_timeline: RefCell::new(Vec::new()),
            rate_window: RefCell::new(VecDeque::new()),
            history: RefCell::new(History::new(HISTORY, HISTORY_TOTAL)),
            history_changed: Cell::new(false),
            rows: RefCell::new(RowCache { namespace_column: across_namespaces, ..RowCache::default() }),
            synced_once: Cell::new(false),
            shown_synced: Cell::new(false),
            later_at: Cell::new(f64::INFINITY),
            panels_at: Cell::new(f64::NEG_INFINITY),
            grid_costs: Cell::new(GridCosts::default()),
            tasks: tasks.clone(),
        });
        live.set_value(Some(view.clone()));
        LiveObserver(view)
    });
    let (timeline_filter, set_timeline_filter) = signal(String::new());
    let navigation = use_navigation();
    let (timeline_paused, set_timeline_paused) = signal(false);
    let (watch_paused, set_watch_paused) = signal(false);
    let toggle_watch = move |_| {
        let paused = !watch_paused.get_untracked();
        set_watch_paused.set(paused);
        pause.run(paused);
    };
    let toggle_pause = move |_| {
        let paused = !timeline_paused.get_untracked();
        set_timeline_paused.set(paused);
        live.with_value(|live| {
            if let Some(live) = live {
                live.paused_timeline.set(paused);
            }
        });
    };
    let wide = Signal::derive(move || navigation.state.with(|s| s.wide));
    view! {
        <div class="live" data-testid="live-view">
            <dl class="response-info" data-testid="live-status">
                <dt>{live_text(Msg::Connection)}</dt>
                <dd data-testid="live-state">
                    {worded(move || localized(&state.get()))}
                    " "
                    <button class="button button--quiet" on:click=toggle_watch>
                        {worded(move || text_now(if watch_paused.get() { Msg::ResumeWatch } else { Msg::PauseWatch }))}
                    </button>
                </dd>
                <dt>"resourceVersion"</dt>
                <dd>
                    <code data-testid="live-rv">{move || resource_version.get()}</code>
                </dd>
                <dt>{live_text(Msg::Accept)}</dt>
                <dd>
                    <code data-testid="live-accept">{worded(move || accept.get())}</code>
                </dd>
                <dt>{live_text(Msg::ContentType)}</dt>
                <dd>
                    <code data-testid="live-content-type">{worded(move || content_type.get())}</code>
                </dd>
                <dt>{live_text(Msg::Events)}</dt>
                <dd
                    data-testid="live-events"
                    data-applied=move || signals.events_applied.get().to_string()
                    data-apply-ms=move || format!("{:.0}", signals.costs.get().0.apply_ms)
                    data-decode-ms=move || format!("{:.0}", signals.costs.get().0.decode_ms)
                    data-reflect-ms=move || format!("{:.0}", signals.costs.get().0.reflect_ms)
                    data-record-ms=move || format!("{:.0}", signals.costs.get().0.record_ms)
                    data-grid-ms=move || format!("{:.0}", signals.costs.get().1.grid_ms)
                    data-grids=move || signals.costs.get().1.grids.to_string()
                >
                    {move || {
                        filled_text(
                            Msg::EventsApplied,
                            &[
                                ("count", &intl::number(signals.events_applied.get() as f64, 0)),
                                ("rate", &intl::number(signals.events_per_second.get(), 1)),
                            ],
                        )
                    }}
                </dd>
                <dt>{live_text(Msg::LastBookmark)}</dt>
                <dd>
                    <code>{move || signals.last_bookmark.get()}</code>
                </dd>
                <dt>{live_text(Msg::Streams)}</dt>
                <dd data-testid="live-streams">
                    {move || {
                        let (open, waiting, limit) = signals.streams.get();
                        filled_text(
                            Msg::StreamsOpen,
                            &[
                                ("open", &intl::number(open as f64, 0)),
                                ("limit", &intl::number(limit as f64, 0)),
                                ("waiting", &intl::number(waiting as f64, 0)),
                            ],
                        )
                    }}
                </dd>
                {move || {
                    problem
                        .get()
                        .map(|p| {
                            view! {
                                <dt>{live_text(Msg::LastProblem)}</dt>
                                <dd class="warning" data-testid="live-problem">{worded(move || localized(&p))}</dd>
                            }
                        })
                }}
            </dl>
            // Always there, hidden until needed: a view that comes and goes costs the page load
            // more code than an attribute.
            <p class="notice" role="note" data-testid="protobuf-not-served" hidden=move || !protobuf_not_served.get()>
                {live_text(Msg::ProtobufNotForThisType)}
            </p>
            {move || forbidden.get().map(|status| view! { <crate::ui::forbidden::ForbiddenExplanationOnDemand status /> })}
            <div class="live__panes">
                <GridView grid=signals.grid wide listing=Signal::derive(move || !signals.synced.get()) />
                <section class="timeline" aria-label=live_text(Msg::EventTimeline)>
                    <div class="grid__bar">
                        <strong>{live_text(Msg::EventTimeline)}</strong>
                        <input
                            type="search"
                            dir="auto"
                            aria-label=live_text(Msg::FilterEvents)
                            placeholder=live_text(Msg::FilterEvents)
                            prop:value=timeline_filter
                            on:input=move |e| set_timeline_filter.set(event_target_value(&e))
                        />
                        <button class="button button--quiet" on:click=toggle_pause>
                            {worded(move || text_now(if timeline_paused.get() { Msg::ResumeTimeline } else { Msg::PauseTimeline }))}
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
                                    let what = timeline_link(&e, navigation);
                                    view! {
                                        <li data-testid="timeline-entry" data-type=e.event_type>
                                            <span class="timeline__type">{e.event_type}</span>
                                            " "
                                            {what}
                                            " "
                                            <code class="muted">{format!("rv {}", e.resource_version)}</code>
                                            " "
                                            <span class="muted">
                                                // A value tracked by the list's closure, not a reactive
                                                // text of each entry: 500 entries redrawn every second
                                                // would leave the language signal 500 dead subscribers
                                                // a second (2.4 MB a minute in the soak).
                                                {filled_text(Msg::EventAt, &[("seq", &e.seq), ("time", &intl::duration_ms(e.at_ms))])}
                                            </span>
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ol>
                </section>
            </div>
            <ObjectHistory live tick=signals.history_tick />
        </div>
    }
}

/// What a timeline entry is about: a link that opens the object (its address computed once, not
/// kept up to date: the timeline is redrawn often), or plain text for a deleted object or an
/// event without one.
fn timeline_link(entry: &TimelineEntry, navigation: Navigation) -> AnyView {
    let what = entry.what.to_string();
    let Some((namespace, name)) = entry.object_name().filter(|_| entry.event_type != "DELETED") else {
        return view! { <span>{what}</span> }.into_any();
    };
    let mut target = navigation.state.get_untracked();
    target.name = Some(name.to_owned());
    target.watch = None;
    if let Some(namespace) = namespace {
        target.namespace = Some(namespace.to_owned());
    }
    let href = navigation.href(&target);
    view! {
        <a
            href=href
            data-testid="timeline-link"
            on:click=move |e: web_sys::MouseEvent| {
                if is_plain_click(&e) {
                    e.prevent_default();
                    navigation.go(target.clone());
                }
            }
        >
            {what}
        </a>
    }
    .into_any()
}

/// The versions of one watched object, and the diff between any two of them.
#[component]
fn ObjectHistory(live: StoredValue<Option<Rc<Live>>, LocalStorage>, tick: RwSignal<u64>) -> impl IntoView {
    let (selected, set_selected) = signal(String::new());
    let (from, set_from) = signal(None::<usize>);
    let (to, set_to) = signal(None::<usize>);
    let names = Memo::new(move |_| {
        tick.track();
        live.with_value(|l| l.as_ref().map(|l| l.history.borrow().changed_objects()).unwrap_or_default())
    });
    let versions = Memo::new(move |_| {
        tick.track();
        let name = selected.get();
        live.with_value(|l| l.as_ref().map(|l| l.history.borrow().versions(&name)).unwrap_or_default())
    });
    let pick = move |index: Option<usize>, fallback: usize| {
        let n = versions.with(Vec::len);
        index.filter(|&i| i < n).or_else(|| n.checked_sub(fallback))
    };
    // The two versions' trees, decoded now (a watch keeps the wire bytes of each version).
    let diff = move || {
        let all = versions.get();
        let (a, b) = (pick(from.get(), 2)?, pick(to.get(), 1)?);
        let tree = |i: usize| -> Option<Result<Value, DecodeError>> {
            let (_, object) = all.get(i)?;
            Some(object.value().map(|v| watched_object(&v).clone()))
        };
        let (old, new) = (tree(a)?, tree(b)?);
        Some(old.and_then(|old| new.map(|new| (old, new))))
    };
    let version_select =
        move |label: Msg, set: WriteSignal<Option<usize>>, current: ReadSignal<Option<usize>>, fallback: usize| {
            view! {
                <label class="toolbar__field">
                    {live_text(label)}
                    " "
                    <select aria-label=live_text(label) on:change=move |e| set.set(event_target_value(&e).parse().ok())>
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
        <section class="panel history" aria-label=live_text(Msg::ObjectHistory)>
            <h3>{live_text(Msg::ObjectHistory)}</h3>
            <div class="toolbar">
                <label class="toolbar__field">
                    {live_text(Msg::Object)}
                    " "
                    <select
                        aria-label=live_text(Msg::HistoryOfObject)
                        on:change=move |e| {
                            let name = event_target_value(&e);
                            // The object read is pinned: a busy cluster's other objects do not push
                            // its versions out of the history.
                            live.with_value(|l| {
                                if let Some(l) = l {
                                    l.history.borrow_mut().pin(Some(name.as_str()).filter(|n| !n.is_empty()));
                                }
                            });
                            set_selected.set(name);
                            set_from.set(None);
                            set_to.set(None);
                        }
                    >
                        <option value="">{live_text(Msg::PickChangedObject)}</option>
                        // Drawn again as objects change: the one picked stays picked.
                        {move || {
                            let chosen = selected.get();
                            names
                                .get()
                                .into_iter()
                                .map(|n| view! { <option value=n.clone() selected=n == chosen>{n.clone()}</option> })
                                .collect_view()
                        }}
                    </select>
                </label>
                {version_select(Msg::From, set_from, from, 2)}
                {version_select(Msg::To, set_to, to, 1)}
            </div>
            {move || {
                diff()
                    .map(|trees| match trees {
                        Ok((old, new)) => view! { <HistoryDiffOnDemand old new /> }.into_any(),
                        Err(error) => {
                            view! { <p class="warning" data-testid="history-error">{worded(move || localized(&error))}</p> }
                                .into_any()
                        }
                    })
            }}
        </section>
    }
}
