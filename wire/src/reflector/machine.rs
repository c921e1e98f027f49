//! The [`Reflector`] state machine: phases of a sync (paged or streaming list) and of the watch
//! that follows, resuming, relisting after 410, backing off, and the cache it keeps in step.

use std::collections::HashSet;
use std::num::NonZeroU32;
use std::sync::Arc;

use crate::build::RequestBuilder;
use crate::params::{ListOptions, ListParams, ParamsError, ResourceVersionMatch, WatchOptions, WatchParams};
use crate::reflector::config::{Jitter, Mode, ReflectorConfig};
use crate::reflector::input::{
    Action, ConnectionState, Failure, Input, OpId, RequestKind, SyncReason, WaitReason, WatchEnd,
};
use crate::reflector::outcome::{expiry_of, Change, Expiry, Fallback, ReflectorError, Step};
use crate::reflector::recent::RecentVersions;
use crate::reflector::store::{CachedObject, Counters, ObjectKey, Store};
use crate::request::Request;
use crate::view::list::{ContinueToken, ResourceVersion};
use crate::view::status::{Status, StatusExt};
use crate::view::table::{column_definitions, TableColumnDefinition};
use crate::watch::lazy::LazyObject;
use crate::watch::lazy_list::LazyList;
use crate::watch::WatchEvent;

/// The list-then-watch state machine and its cache. Start it with [`Reflector::start`], then feed
/// every outcome of its actions to [`Reflector::step`].
#[derive(Debug, Clone)]
pub struct Reflector {
    config: ReflectorConfig,
    list_params: ListParams,
    mode: Mode,
    phase: Phase,
    store: Store,
    resource_version: Option<ResourceVersion>,
    last_bookmark: Option<ResourceVersion>,
    synced: bool,
    /// Consecutive failures since the last successful watch event.
    attempt: u32,
    /// A 410 started a relist and no watch event has succeeded since.
    relisting_after_expiry: bool,
    next_op: u64,
    recent: RecentVersions,
    counters: Counters,
    reported: ConnectionState,
    table_columns: Option<Vec<TableColumnDefinition>>,
}

#[derive(Debug, Clone)]
enum Phase {
    Listing { op: OpId, continue_token: Option<ContinueToken>, snapshot: Snapshot },
    StreamingInitial { op: OpId, open: bool, snapshot: Snapshot },
    Watching { op: OpId, open: bool },
    Backoff { timer: OpId, ms: u64, attempt: u32, reason: WaitReason, next: Next },
    Paused { next: Next },
    Stopped,
}

/// What to do when a wait ends or a pause is lifted.
#[derive(Debug, Clone)]
enum Next {
    /// Start a fresh sync.
    Sync(SyncReason),
    /// Fetch a page of the current paged list (again).
    ListPage { continue_token: Option<ContinueToken>, snapshot: Snapshot },
    /// Watch from the resume point.
    Watch,
}

/// The sync in progress: which keys it has seen (the rest vanish when it completes).
#[derive(Debug, Clone)]
struct Snapshot {
    reason: SyncReason,
    seen: HashSet<ObjectKey>,
    pages: u32,
    remaining: Option<i64>,
    resource_version: Option<ResourceVersion>,
}

impl Snapshot {
    fn new(reason: SyncReason) -> Snapshot {
        Snapshot { reason, seen: HashSet::new(), pages: 0, remaining: None, resource_version: None }
    }
}

pub(crate) fn object_version(object: &LazyObject) -> Option<ResourceVersion> {
    object.head().resource_version.as_deref().map(ResourceVersion::new)
}

impl Step {
    fn send(&mut self, op: OpId, request: Request, kind: RequestKind) {
        self.actions.push(Action::Send { op, request, kind });
    }

    fn cancel(&mut self, op: OpId) {
        self.actions.push(Action::Cancel(op));
    }

    fn change(&mut self, change: Change) {
        self.changes.push(change);
    }

    fn problem(&mut self, problem: ReflectorError) {
        self.changes.push(Change::Problem(problem));
    }
}

impl Reflector {
    /// A reflector for `config` and its first step (the first list page or streaming list). Fails
    /// only when the selectors and page size make parameters the concepts page calls invalid.
    pub fn start(config: ReflectorConfig) -> Result<(Reflector, Step), ReflectorError> {
        let list_params = ListParams::new(ListOptions {
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
            limit: config.page_size.map(NonZeroU32::get),
            ..ListOptions::default()
        })?;
        let mut reflector = Reflector {
            mode: config.mode,
            config,
            list_params,
            phase: Phase::Stopped,
            store: Store::default(),
            resource_version: None,
            last_bookmark: None,
            synced: false,
            attempt: 0,
            relisting_after_expiry: false,
            next_op: 0,
            recent: RecentVersions::default(),
            counters: Counters::default(),
            reported: ConnectionState::Stopped,
            table_columns: None,
        };
        reflector.watch_params(true)?;
        reflector.watch_params(false)?;
        let mut step = Step::default();
        reflector.phase = reflector.begin(Next::Sync(SyncReason::Initial), &mut step);
        reflector.report_state(&mut step);
        Ok((reflector, step))
    }

    /// Applies one input; returns what to do and what changed.
    pub fn step(&mut self, input: Input, jitter: Jitter) -> Step {
        let mut step = Step::default();
        let phase = std::mem::replace(&mut self.phase, Phase::Stopped);
        self.phase = self.transition(phase, input, jitter, &mut step);
        self.report_state(&mut step);
        step
    }

    /// The connection state for the status line.
    pub fn state(&self) -> ConnectionState {
        match &self.phase {
            Phase::Listing { snapshot, .. } => ConnectionState::Listing {
                page: snapshot.pages + 1,
                remaining: snapshot.remaining,
                reason: snapshot.reason,
            },
            Phase::StreamingInitial { open, snapshot, .. } => {
                ConnectionState::StreamingInitial { open: *open, reason: snapshot.reason }
            }
            Phase::Watching { open, .. } => ConnectionState::Watching { open: *open },
            Phase::Backoff { ms, attempt, reason, .. } => {
                ConnectionState::Reconnecting { ms: *ms, attempt: *attempt, reason: *reason }
            }
            Phase::Paused { .. } => ConnectionState::Paused,
            Phase::Stopped => ConnectionState::Stopped,
        }
    }

    /// How the next sync gets the initial state (streaming lists fall back for good).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn config(&self) -> &ReflectorConfig {
        &self.config
    }

    /// Asks for JSON from the next request on, instead of protobuf (the edge could not load the
    /// protobuf decoder); `false` when protobuf was not asked for. See
    /// [`ReflectorConfig::drop_protobuf`].
    pub fn drop_protobuf(&mut self) -> bool {
        self.config.drop_protobuf()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The resume point: where the next watch starts (opaque; `None` before the first sync
    /// completes and while relisting after 410).
    pub fn resource_version(&self) -> Option<&ResourceVersion> {
        self.resource_version.as_ref()
    }

    /// The resourceVersion of the last BOOKMARK.
    pub fn last_bookmark(&self) -> Option<&ResourceVersion> {
        self.last_bookmark.as_ref()
    }

    /// Whether the cache holds a complete sync (false before the first and during a relist).
    pub fn is_synced(&self) -> bool {
        self.synced
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The column definitions of a Table collection: from the last list page or watch event
    /// that carried them (`None` while the server has sent no Table).
    pub fn table_columns(&self) -> Option<&[TableColumnDefinition]> {
        self.table_columns.as_deref()
    }

    /// Takes the column definitions off a Table object (they are the same for every row and
    /// kept once), remembering them when the server sent some.
    fn learn_columns(&mut self, object: &mut LazyObject, out: &mut Step) {
        let Some(columns) = object.take_columns() else { return };
        match column_definitions(&columns) {
            Ok(columns) => {
                if Some(&columns) != self.table_columns.as_ref() {
                    self.table_columns = Some(columns);
                    out.change(Change::Columns);
                }
            }
            Err(error) => out.problem(ReflectorError::Columns(error)),
        }
    }

    fn transition(&mut self, phase: Phase, input: Input, jitter: Jitter, out: &mut Step) -> Phase {
        match (phase, input) {
            (Phase::Stopped, _) => Phase::Stopped,
            (phase, Input::Stop) => {
                if let Some(op) = phase.outstanding() {
                    out.cancel(op);
                }
                Phase::Stopped
            }
            (Phase::Paused { next }, Input::Resume) => self.begin(next, out),
            (phase @ Phase::Paused { .. }, _) => phase,
            (Phase::Listing { op, continue_token, snapshot }, Input::Pause) => {
                out.cancel(op);
                Phase::Paused { next: Next::ListPage { continue_token, snapshot } }
            }
            // The initial state of a streaming list cannot be resumed: start it again.
            (Phase::StreamingInitial { op, snapshot, .. }, Input::Pause) => {
                out.cancel(op);
                Phase::Paused { next: Next::Sync(snapshot.reason) }
            }
            (Phase::Watching { op, .. }, Input::Pause) => {
                out.cancel(op);
                Phase::Paused { next: Next::Watch }
            }
            // Resuming skips the rest of the wait: the user asked for it.
            (Phase::Backoff { timer, next, .. }, Input::Pause) => {
                out.cancel(timer);
                Phase::Paused { next }
            }
            (Phase::Listing { op, snapshot, .. }, Input::ListPage { op: got, list }) if got == op => {
                self.on_page(snapshot, list, out)
            }
            (Phase::Listing { op, continue_token, snapshot }, Input::ListFailed { op: got, failure }) if got == op => {
                if self.protobuf_refused(&failure) {
                    return self.send_page(continue_token, snapshot, out);
                }
                if let Some(expiry) = failure.expiry(Expiry::ContinueToken) {
                    return self.expired(expiry, jitter, out);
                }
                let retry_after = failure.retry_after_seconds();
                out.problem(ReflectorError::List(failure));
                let next = Next::ListPage { continue_token, snapshot };
                self.backoff(next, WaitReason::ListFailed, retry_after, jitter, out)
            }
            (Phase::StreamingInitial { op, snapshot, .. }, Input::WatchOpened { op: got }) if got == op => {
                Phase::StreamingInitial { op, open: true, snapshot }
            }
            (Phase::StreamingInitial { op, snapshot, .. }, Input::WatchEvent { op: got, event }) if got == op => {
                self.on_initial_event(op, snapshot, event, jitter, out)
            }
            (Phase::StreamingInitial { op, snapshot, .. }, Input::WatchEnded { op: got, end }) if got == op => {
                match end {
                    WatchEnd::Closed => self.fall_back(Fallback::StreamEnded, snapshot.reason, out),
                    WatchEnd::Cut(message) => {
                        out.problem(ReflectorError::Cut(message));
                        self.backoff(Next::Sync(snapshot.reason), WaitReason::WatchCut, None, jitter, out)
                    }
                    WatchEnd::Malformed(error) => {
                        out.problem(ReflectorError::Malformed(error));
                        self.backoff(Next::Sync(snapshot.reason), WaitReason::WatchCut, None, jitter, out)
                    }
                }
            }
            (Phase::StreamingInitial { op, snapshot, .. }, Input::WatchFailed { op: got, failure }) if got == op => {
                if self.protobuf_refused(&failure) {
                    return self.begin(Next::Sync(snapshot.reason), out);
                }
                if failure.refuses_parameters() {
                    return self.fall_back(Fallback::Refused(failure), snapshot.reason, out);
                }
                if let Some(expiry) = failure.expiry(Expiry::StreamingListVersion) {
                    return self.expired(expiry, jitter, out);
                }
                let retry_after = failure.retry_after_seconds();
                out.problem(ReflectorError::Watch(failure));
                self.backoff(Next::Sync(snapshot.reason), WaitReason::WatchFailed, retry_after, jitter, out)
            }
            (Phase::Watching { op, .. }, Input::WatchOpened { op: got }) if got == op => {
                Phase::Watching { op, open: true }
            }
            (Phase::Watching { op, .. }, Input::WatchEvent { op: got, event }) if got == op => {
                self.on_watch_event(op, event, jitter, out)
            }
            (Phase::Watching { op, .. }, Input::WatchEnded { op: got, end }) if got == op => {
                let reason = match end {
                    WatchEnd::Closed => WaitReason::WatchClosed,
                    WatchEnd::Cut(message) => {
                        out.problem(ReflectorError::Cut(message));
                        WaitReason::WatchCut
                    }
                    WatchEnd::Malformed(error) => {
                        out.problem(ReflectorError::Malformed(error));
                        WaitReason::WatchCut
                    }
                };
                self.backoff(Next::Watch, reason, None, jitter, out)
            }
            (Phase::Watching { op, .. }, Input::WatchFailed { op: got, failure }) if got == op => {
                if self.protobuf_refused(&failure) {
                    return self.begin(Next::Watch, out);
                }
                if let Some(expiry) = failure.expiry(Expiry::WatchVersion) {
                    return self.expired(expiry, jitter, out);
                }
                let retry_after = failure.retry_after_seconds();
                out.problem(ReflectorError::Watch(failure));
                self.backoff(Next::Watch, WaitReason::WatchFailed, retry_after, jitter, out)
            }
            (Phase::Backoff { timer, next, .. }, Input::TimerFired { op }) if op == timer => self.begin(next, out),
            // Input for an operation no longer awaited, or Resume while running: nothing to do.
            (phase, _) => phase,
        }
    }

    /// Whether `failure` is a 406 to a request that asked for protobuf first: the type has no
    /// protobuf form (a custom resource, a type of an aggregated API server), so the reflector
    /// goes on in JSON, at once (the edge says why from the response; retrying the same request
    /// could only get 406 again).
    fn protobuf_refused(&mut self, failure: &Failure) -> bool {
        failure.code() == Some(406) && self.config.drop_protobuf()
    }

    /// Starts what `next` says: a sync (by the current mode), a list page, or a watch.
    fn begin(&mut self, next: Next, out: &mut Step) -> Phase {
        match next {
            Next::Sync(reason) => {
                self.counters.syncs += 1;
                let snapshot = Snapshot::new(reason);
                match self.mode {
                    Mode::ListThenWatch => self.send_page(None, snapshot, out),
                    Mode::StreamingList => match self.watch_params(true) {
                        Ok(params) => {
                            let op = self.op();
                            let request =
                                RequestBuilder::watch(&self.config.collection, &params, self.config.watch_accept());
                            out.send(op, self.config.with_include_object(request).build(), RequestKind::StreamingList);
                            Phase::StreamingInitial { op, open: false, snapshot }
                        }
                        Err(error) => self.give_up(error, out),
                    },
                }
            }
            Next::ListPage { continue_token, snapshot } => self.send_page(continue_token, snapshot, out),
            Next::Watch => match self.watch_params(false) {
                Ok(params) => {
                    self.counters.watches += 1;
                    let op = self.op();
                    let request = RequestBuilder::watch(&self.config.collection, &params, self.config.watch_accept());
                    out.send(op, self.config.with_include_object(request).build(), RequestKind::Watch);
                    Phase::Watching { op, open: false }
                }
                Err(error) => self.give_up(error, out),
            },
        }
    }

    fn send_page(&mut self, continue_token: Option<ContinueToken>, snapshot: Snapshot, out: &mut Step) -> Phase {
        let params = match &continue_token {
            Some(token) => self.list_params.next_page(token.clone()),
            None => self.list_params.clone(),
        };
        let op = self.op();
        let request = RequestBuilder::list(&self.config.collection, &params, &self.config.accept);
        out.send(op, self.config.with_include_object(request).build(), RequestKind::ListPage);
        Phase::Listing { op, continue_token, snapshot }
    }

    /// Parameters of a streaming list or of a watch from the resume point.
    fn watch_params(&self, streaming: bool) -> Result<WatchParams, ParamsError> {
        WatchParams::new(WatchOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            resource_version: if streaming { None } else { self.resource_version.clone() },
            resource_version_match: streaming.then_some(ResourceVersionMatch::NotOlderThan),
            allow_watch_bookmarks: true,
            send_initial_events: streaming,
            timeout_seconds: self.config.watch_timeout_seconds,
        })
    }

    /// Parameters that `start` accepted cannot become invalid; if they did, stopping with the
    /// reason beats retrying a request that cannot be built.
    fn give_up(&mut self, error: ParamsError, out: &mut Step) -> Phase {
        out.problem(ReflectorError::Params(error));
        Phase::Stopped
    }

    fn on_page(&mut self, mut snapshot: Snapshot, list: LazyList, out: &mut Step) -> Phase {
        self.counters.list_pages += 1;
        snapshot.pages += 1;
        snapshot.remaining = list.metadata.remaining_item_count;
        if list.metadata.resource_version.is_some() {
            snapshot.resource_version = list.metadata.resource_version;
        }
        for item in list.items {
            self.apply_snapshot_item(item, &mut snapshot, "list item", out);
        }
        match list.metadata.continue_token {
            Some(token) => self.send_page(Some(token), snapshot, out),
            None => {
                let version = snapshot.resource_version.clone();
                if version.is_none() {
                    out.problem(ReflectorError::ListWithoutResourceVersion);
                }
                self.complete_sync(snapshot, version, out);
                self.begin(Next::Watch, out)
            }
        }
    }

    fn on_initial_event(
        &mut self,
        op: OpId,
        mut snapshot: Snapshot,
        event: WatchEvent,
        jitter: Jitter,
        out: &mut Step,
    ) -> Phase {
        match event {
            WatchEvent::Added(object) => {
                self.progressed();
                self.apply_snapshot_item(object, &mut snapshot, "ADDED", out);
                Phase::StreamingInitial { op, open: true, snapshot }
            }
            WatchEvent::Bookmark(bookmark) if bookmark.initial_events_end => {
                self.progressed();
                self.counters.bookmarks += 1;
                self.last_bookmark.clone_from(&bookmark.resource_version);
                self.complete_sync(snapshot, bookmark.resource_version, out);
                Phase::Watching { op, open: true }
            }
            WatchEvent::Error(status) => {
                out.cancel(op);
                self.on_error_event(status, Next::Sync(snapshot.reason), jitter, out)
            }
            other @ (WatchEvent::Modified(_) | WatchEvent::Deleted(_) | WatchEvent::Bookmark(_)) => {
                out.cancel(op);
                self.fall_back(Fallback::EventBeforeBookmark(other.event_type()), snapshot.reason, out)
            }
        }
    }

    fn on_watch_event(&mut self, op: OpId, event: WatchEvent, jitter: Jitter, out: &mut Step) -> Phase {
        match event {
            WatchEvent::Added(object) => self.upsert_from_watch(object, "ADDED", out),
            WatchEvent::Modified(object) => self.upsert_from_watch(object, "MODIFIED", out),
            WatchEvent::Deleted(object) => self.delete_from_watch(object, out),
            WatchEvent::Bookmark(bookmark) => {
                self.counters.bookmarks += 1;
                if let Some(version) = bookmark.resource_version {
                    self.last_bookmark = Some(version.clone());
                    self.resource_version = Some(version);
                }
            }
            WatchEvent::Error(status) => {
                out.cancel(op);
                return self.on_error_event(status, Next::Watch, jitter, out);
            }
        }
        self.progressed();
        Phase::Watching { op, open: true }
    }

    /// An in-stream ERROR: 410 relists; anything else retries `next` after a backoff.
    fn on_error_event(&mut self, status: Box<Status>, next: Next, jitter: Jitter, out: &mut Step) -> Phase {
        if let Some(expiry) = expiry_of(&status, Expiry::WatchVersion) {
            return self.expired(expiry, jitter, out);
        }
        let retry_after = status.retry_after_seconds();
        out.problem(ReflectorError::WatchError(status));
        self.backoff(next, WaitReason::WatchError, retry_after, jitter, out)
    }

    /// 410 Gone, or 504 "Too large resource version": the resume point is worthless (said as
    /// `expiry`). It relists at once, from scratch; another one before any watch event of the
    /// relist succeeded waits, so a server that keeps answering so is not hammered.
    fn expired(&mut self, expiry: Expiry, jitter: Jitter, out: &mut Step) -> Phase {
        out.problem(ReflectorError::Expired(expiry));
        self.counters.expired += 1;
        self.synced = false;
        self.resource_version = None;
        let reason = if expiry == Expiry::VersionTooLarge { SyncReason::VersionUnknown } else { SyncReason::Expired };
        if !self.relisting_after_expiry {
            self.relisting_after_expiry = true;
            return self.begin(Next::Sync(reason), out);
        }
        self.backoff(Next::Sync(reason), WaitReason::Expired, None, jitter, out)
    }

    /// A watch event went through: the connection works.
    fn progressed(&mut self) {
        self.attempt = 0;
        self.relisting_after_expiry = false;
    }

    fn fall_back(&mut self, why: Fallback, reason: SyncReason, out: &mut Step) -> Phase {
        out.problem(ReflectorError::StreamingListUnsupported(why));
        self.mode = Mode::ListThenWatch;
        self.begin(Next::Sync(reason), out)
    }

    fn backoff(
        &mut self,
        next: Next,
        reason: WaitReason,
        retry_after_seconds: Option<u32>,
        jitter: Jitter,
        out: &mut Step,
    ) -> Phase {
        let ms = self.config.backoff.delay_ms(self.attempt, jitter, retry_after_seconds);
        self.attempt = self.attempt.saturating_add(1);
        let timer = self.op();
        out.actions.push(Action::Wait { op: timer, ms, reason });
        Phase::Backoff { timer, ms, attempt: self.attempt, reason, next }
    }

    /// An object of a sync: stored unless the cache has this version, and marked as seen.
    fn apply_snapshot_item(
        &mut self,
        mut object: LazyObject,
        snapshot: &mut Snapshot,
        what: &'static str,
        out: &mut Step,
    ) {
        self.learn_columns(&mut object, out);
        let Some(key) = ObjectKey::of_head(object.head()) else {
            out.problem(ReflectorError::ObjectWithoutKey(what));
            return;
        };
        snapshot.seen.insert(key.clone());
        let version = object_version(&object);
        if let Some(version) = &version {
            self.recent.insert(key.clone(), version.clone());
        }
        let unchanged = version.is_some() && self.store.get(&key).is_some_and(|c| c.resource_version == version);
        if !unchanged {
            self.store
                .objects
                .insert(key.clone(), CachedObject { object: Arc::new(object), resource_version: version });
            out.change(Change::Upsert(key));
        }
    }

    /// Ends a sync: deletes what it did not see, sets the resume point.
    fn complete_sync(&mut self, snapshot: Snapshot, version: Option<ResourceVersion>, out: &mut Step) {
        let vanished: Vec<ObjectKey> =
            self.store.objects.keys().filter(|key| !snapshot.seen.contains(*key)).cloned().collect();
        for key in vanished {
            self.store.objects.remove(&key);
            out.change(Change::Delete(key));
        }
        self.resource_version = version;
        self.synced = true;
        out.change(Change::InitialListComplete);
    }

    /// Whether a watch delivery of (key, version) was applied before; counts it if so.
    fn is_duplicate(&mut self, key: &ObjectKey, version: Option<&ResourceVersion>) -> bool {
        let Some(version) = version else { return false };
        let cached = self.store.get(key).is_some_and(|c| c.resource_version.as_ref() == Some(version));
        if cached || self.recent.contains(key, version) {
            self.counters.duplicates_ignored += 1;
            return true;
        }
        self.recent.insert(key.clone(), version.clone());
        false
    }

    fn upsert_from_watch(&mut self, mut object: LazyObject, what: &'static str, out: &mut Step) {
        self.learn_columns(&mut object, out);
        let Some(key) = ObjectKey::of_head(object.head()) else {
            out.problem(ReflectorError::ObjectWithoutKey(what));
            return;
        };
        let version = object_version(&object);
        if self.is_duplicate(&key, version.as_ref()) {
            return;
        }
        self.counters.events_applied += 1;
        if version.is_some() {
            self.resource_version.clone_from(&version);
        }
        self.store.objects.insert(key.clone(), CachedObject { object: Arc::new(object), resource_version: version });
        out.change(Change::Upsert(key));
    }

    fn delete_from_watch(&mut self, mut object: LazyObject, out: &mut Step) {
        self.learn_columns(&mut object, out);
        let Some(key) = ObjectKey::of_head(object.head()) else {
            out.problem(ReflectorError::ObjectWithoutKey("DELETED"));
            return;
        };
        let version = object_version(&object);
        if self.is_duplicate(&key, version.as_ref()) {
            return;
        }
        self.counters.events_applied += 1;
        if version.is_some() {
            self.resource_version = version;
        }
        if self.store.objects.remove(&key).is_some() {
            out.change(Change::Delete(key));
        }
    }

    fn op(&mut self) -> OpId {
        self.next_op += 1;
        OpId(self.next_op)
    }

    fn report_state(&mut self, out: &mut Step) {
        let state = self.state();
        if state != self.reported {
            self.reported = state.clone();
            out.change(Change::State(state));
        }
    }
}

impl Phase {
    /// The request or wait in flight.
    fn outstanding(&self) -> Option<OpId> {
        match self {
            Phase::Listing { op, .. } | Phase::StreamingInitial { op, .. } | Phase::Watching { op, .. } => Some(*op),
            Phase::Backoff { timer, .. } => Some(*timer),
            Phase::Paused { .. } | Phase::Stopped => None,
        }
    }
}
