//! In-memory storage: every object by storage key (`group/plural`) and (namespace, name), a global
//! resourceVersion counter, a bounded history of changes for watches and exact reads, snapshots
//! for paged lists, and the broadcast channel that feeds open watches.
//!
//! Invariants: the lock is never held across an `.await`; every change gets the next
//! resourceVersion and is broadcast while the write lock is held, so watchers see changes in
//! resourceVersion order and a watcher that subscribes under the read lock misses nothing.
//!
//! Beside the store: the served types (`registry`), what an object is (`object`), what every write
//! does to a new object (`lifecycle`, with the registry strategies of `strategy`) and deletion
//! (`deletion`).

pub mod deletion;
pub mod lifecycle;
pub mod object;
pub mod pod;
pub mod registry;
pub mod strategy;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::broadcast;

pub type Obj = Arc<Value>;
pub type ObjKey = (String, String);
/// (storage key, namespace scope, resourceVersion) of a paged list's snapshot.
type SnapshotKey = (String, String, u64);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "ADDED",
            ChangeKind::Modified => "MODIFIED",
            ChangeKind::Deleted => "DELETED",
        }
    }
}

/// One committed change.
#[derive(Debug)]
pub struct Change {
    pub kind: ChangeKind,
    pub key: String,
    pub namespace: String,
    pub object: Obj,
    pub prev: Option<Obj>,
    pub rv: u64,
    at: Instant,
    /// The JSON watch line of this change as stored, encoded once for every watcher that wants
    /// exactly that.
    pub json_line: OnceLock<bytes::Bytes>,
    /// The CBOR watch event of this change as stored, likewise shared by the CBOR watchers.
    pub cbor_frame: OnceLock<bytes::Bytes>,
}

pub struct State {
    pub rv: u64,
    objects: HashMap<String, BTreeMap<ObjKey, Obj>>,
    history: VecDeque<Arc<Change>>,
    /// Changes at or below this resourceVersion are forgotten.
    pub compacted_rv: u64,
    snapshots: HashMap<SnapshotKey, (Instant, Arc<Vec<Obj>>)>,
    /// Owner uid → objects whose ownerReferences name it, for garbage collection.
    dependents: HashMap<String, BTreeSet<(String, String, String)>>,
    /// What makes two core Events the same ([`event_key`]) → (namespace, name) of those stored,
    /// so that an Event recorded again is counted up without reading every Event of its namespace.
    same_events: HashMap<String, BTreeSet<(String, String)>>,
    /// Node name → the pods bound to it that have not ended (the scheduler's load, without
    /// reading every pod for each pod it binds).
    node_load: HashMap<String, usize>,
}

/// What makes two Events the same to client-go's event correlator, which counts one that comes
/// again instead of recording it twice (`getEventKey` in
/// `k8s.io/client-go/tools/record/events_cache.go`: the object, the type, reason and message; the
/// source is always a controller of kube-sim here).
pub fn event_key(event: &Value) -> String {
    let involved = &event["involvedObject"];
    [
        object::namespace(event),
        involved["uid"].as_str().unwrap_or_default(),
        involved["name"].as_str().unwrap_or_default(),
        event["type"].as_str().unwrap_or_default(),
        event["reason"].as_str().unwrap_or_default(),
        event["message"].as_str().unwrap_or_default(),
    ]
    .join("\0")
}

pub struct Store {
    state: RwLock<State>,
    events: broadcast::Sender<Arc<Change>>,
    history_window: Duration,
    /// The most changes the history keeps.
    history_limit: usize,
    continue_ttl: Duration,
}

/// Why a read at an old resourceVersion cannot be served.
#[derive(Debug, Clone, Copy)]
pub struct TooOld {
    pub oldest: u64,
}

impl Store {
    /// A store whose watch history keeps `history_window` of changes, at most `history_limit`.
    pub fn new(history_window: Duration, history_limit: usize, continue_ttl: Duration) -> Store {
        let (events, _) = broadcast::channel(1 << 16);
        Store {
            state: RwLock::new(State {
                rv: 1,
                objects: HashMap::new(),
                history: VecDeque::new(),
                compacted_rv: 1,
                snapshots: HashMap::new(),
                dependents: HashMap::new(),
                same_events: HashMap::new(),
                node_load: HashMap::new(),
            }),
            events,
            history_window,
            history_limit,
            continue_ttl,
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write_lock(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` with exclusive access; changes it makes are committed and broadcast in order.
    pub fn write<R>(&self, f: impl FnOnce(&mut Txn<'_>) -> R) -> R {
        let mut guard = self.write_lock();
        let mut txn = Txn { state: &mut guard, events: &self.events, now: Instant::now() };
        let out = f(&mut txn);
        txn.prune_history(self.history_window, self.history_limit);
        out
    }

    /// Forgets changes older than the history window, as compaction does even when nothing is
    /// written.
    pub fn prune(&self) {
        let mut guard = self.write_lock();
        let mut txn = Txn { state: &mut guard, events: &self.events, now: Instant::now() };
        txn.prune_history(self.history_window, self.history_limit);
    }

    pub fn current_rv(&self) -> u64 {
        self.read().rv
    }

    /// Subscribes to changes; call while holding no lock, then read state with [`Store::read`]
    /// and skip changes at or below the state's resourceVersion.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Change>> {
        self.events.subscribe()
    }

    /// Forgets all history now: any older resourceVersion then answers 410.
    pub fn compact(&self) -> u64 {
        let mut s = self.write_lock();
        s.history.clear();
        s.compacted_rv = s.rv;
        s.snapshots.clear();
        s.rv
    }

    pub fn remember_snapshot(&self, key: &str, scope: &str, rv: u64, items: Arc<Vec<Obj>>) {
        let ttl = self.continue_ttl;
        let mut s = self.write_lock();
        let now = Instant::now();
        s.snapshots.retain(|_, (at, _)| now.duration_since(*at) < ttl);
        s.snapshots.entry((key.to_string(), scope.to_string(), rv)).or_insert((now, items));
    }

    pub fn snapshot(&self, key: &str, scope: &str, rv: u64) -> Option<Arc<Vec<Obj>>> {
        let s = self.read();
        let (at, items) = s.snapshots.get(&(key.to_string(), scope.to_string(), rv))?;
        (at.elapsed() < self.continue_ttl).then(|| items.clone())
    }
}

impl State {
    pub fn get(&self, key: &str, namespace: &str, name: &str) -> Option<Obj> {
        self.objects.get(key)?.get(&(namespace.to_string(), name.to_string())).cloned()
    }

    /// Objects of one type, in one namespace or all (`None`), in key order.
    pub fn list(&self, key: &str, namespace: Option<&str>) -> Vec<Obj> {
        let Some(map) = self.objects.get(key) else { return Vec::new() };
        match namespace {
            Some(ns) => map
                .range((ns.to_string(), String::new())..)
                .take_while(|((n, _), _)| n == ns)
                .map(|(_, o)| o.clone())
                .collect(),
            None => map.values().cloned().collect(),
        }
    }

    /// The list as it was at `rv`, rebuilt from the history by undoing later changes.
    pub fn list_at(&self, key: &str, namespace: Option<&str>, rv: u64) -> Result<Vec<Obj>, TooOld> {
        if rv < self.compacted_rv {
            return Err(TooOld { oldest: self.compacted_rv });
        }
        let mut map: BTreeMap<ObjKey, Obj> = self
            .list(key, namespace)
            .into_iter()
            .map(|o| ((object::namespace(&o).to_string(), object::name(&o).to_string()), o))
            .collect();
        for change in self.history.iter().rev().take_while(|c| c.rv > rv) {
            if change.key != key || namespace.is_some_and(|ns| ns != change.namespace) {
                continue;
            }
            let k = (change.namespace.clone(), object::name(&change.object).to_string());
            match &change.prev {
                Some(prev) => map.insert(k, prev.clone()),
                None => map.remove(&k),
            };
        }
        Ok(map.into_values().collect())
    }

    /// Changes after `rv` for a watch starting there.
    pub fn changes_since(&self, rv: u64) -> Result<Vec<Arc<Change>>, TooOld> {
        if rv < self.compacted_rv {
            return Err(TooOld { oldest: self.compacted_rv });
        }
        Ok(self.history.iter().filter(|c| c.rv > rv).cloned().collect())
    }

    /// (storage key, namespace, name) of the objects owned by `uid`.
    pub fn dependents(&self, uid: &str) -> Vec<(String, String, String)> {
        self.dependents.get(uid).map(|d| d.iter().cloned().collect()).unwrap_or_default()
    }

    /// The stored Events that are the same ([`event_key`]) as `event`, in name order.
    pub fn same_events(&self, event: &Value) -> Vec<Obj> {
        let Some(names) = self.same_events.get(&event_key(event)) else { return Vec::new() };
        names.iter().filter_map(|(ns, name)| self.get(crate::rules::events::STORAGE_KEY, ns, name)).collect()
    }

    /// Node name → how many pods bound to it have not ended (Succeeded or Failed).
    pub fn node_load(&self) -> &HashMap<String, usize> {
        &self.node_load
    }

    fn index_node_load(&mut self, key: &str, old: Option<&Value>, new: Option<&Value>) {
        if key != "/pods" {
            return;
        }
        let node = |p: &Value| {
            p["spec"]["nodeName"].as_str().filter(|n| !n.is_empty() && !pod::is_terminal(p)).map(str::to_string)
        };
        if let Some(n) = old.and_then(node) {
            if let Some(count) = self.node_load.get_mut(&n) {
                *count -= 1;
                if *count == 0 {
                    self.node_load.remove(&n);
                }
            }
        }
        if let Some(n) = new.and_then(node) {
            *self.node_load.entry(n).or_default() += 1;
        }
    }

    fn index_events(&mut self, key: &str, old: Option<&Value>, new: Option<&Value>) {
        if key != crate::rules::events::STORAGE_KEY {
            return;
        }
        let entry = |o: &Value| (object::namespace(o).to_string(), object::name(o).to_string());
        if let Some(o) = old {
            let k = event_key(o);
            if let Some(set) = self.same_events.get_mut(&k) {
                set.remove(&entry(o));
                if set.is_empty() {
                    self.same_events.remove(&k);
                }
            }
        }
        if let Some(n) = new {
            self.same_events.entry(event_key(n)).or_default().insert(entry(n));
        }
    }

    fn index_owners(&mut self, key: &str, old: Option<&Value>, new: Option<&Value>) {
        let entry = |o: &Value| (key.to_string(), object::namespace(o).to_string(), object::name(o).to_string());
        if let Some(o) = old {
            for uid in object::owner_uids(o) {
                if let Some(set) = self.dependents.get_mut(&uid) {
                    set.remove(&entry(o));
                    if set.is_empty() {
                        self.dependents.remove(&uid);
                    }
                }
            }
        }
        if let Some(n) = new {
            for uid in object::owner_uids(n) {
                self.dependents.entry(uid).or_default().insert(entry(n));
            }
        }
    }

    pub fn counts(&self) -> BTreeMap<String, usize> {
        self.objects.iter().filter(|(_, m)| !m.is_empty()).map(|(k, m)| (k.clone(), m.len())).collect()
    }
}

/// Exclusive access to the state during one write.
pub struct Txn<'a> {
    state: &'a mut State,
    events: &'a broadcast::Sender<Arc<Change>>,
    now: Instant,
}

impl Txn<'_> {
    pub fn state(&self) -> &State {
        self.state
    }

    pub fn get(&self, key: &str, namespace: &str, name: &str) -> Option<Obj> {
        self.state.get(key, namespace, name)
    }

    /// Stores `obj` under the next resourceVersion and broadcasts ADDED or MODIFIED. An Event
    /// written through `events.k8s.io` is stored in its core form (`rules::events`).
    pub fn put(&mut self, key: &str, obj: Value) -> Obj {
        let mut obj = crate::rules::events::to_storage(key, obj);
        self.state.rv += 1;
        let rv = self.state.rv;
        object::set_resource_version(&mut obj, rv);
        let ns = object::namespace(&obj).to_string();
        let name = object::name(&obj).to_string();
        let obj = Arc::new(obj);
        let prev = self.state.objects.entry(key.to_string()).or_default().insert((ns.clone(), name), obj.clone());
        self.state.index_owners(key, prev.as_deref(), Some(&obj));
        self.state.index_events(key, prev.as_deref(), Some(&obj));
        self.state.index_node_load(key, prev.as_deref(), Some(&obj));
        let kind = if prev.is_some() { ChangeKind::Modified } else { ChangeKind::Added };
        self.record(kind, key, ns, obj.clone(), prev, rv);
        obj
    }

    /// Removes an object; the DELETED event carries the deletion's resourceVersion.
    pub fn remove(&mut self, key: &str, namespace: &str, name: &str) -> Option<Obj> {
        let prev = self.state.objects.get_mut(key)?.remove(&(namespace.to_string(), name.to_string()))?;
        self.state.index_owners(key, Some(&prev), None);
        self.state.index_events(key, Some(&prev), None);
        self.state.index_node_load(key, Some(&prev), None);
        self.state.rv += 1;
        let rv = self.state.rv;
        let mut last = (*prev).clone();
        object::set_resource_version(&mut last, rv);
        let last = Arc::new(last);
        self.record(ChangeKind::Deleted, key, namespace.to_string(), last.clone(), Some(prev), rv);
        Some(last)
    }

    fn record(&mut self, kind: ChangeKind, key: &str, namespace: String, object: Obj, prev: Option<Obj>, rv: u64) {
        let change = Arc::new(Change {
            kind,
            key: key.to_string(),
            namespace,
            object,
            prev,
            rv,
            at: self.now,
            json_line: OnceLock::new(),
            cbor_frame: OnceLock::new(),
        });
        self.state.history.push_back(change.clone());
        // Nobody listening is not an error.
        let _ = self.events.send(change);
    }

    fn prune_history(&mut self, window: Duration, limit: usize) {
        while let Some(front) = self.state.history.front() {
            if self.now.duration_since(front.at) <= window && self.state.history.len() <= limit {
                break;
            }
            self.state.compacted_rv = front.rv;
            self.state.history.pop_front();
        }
    }

    /// Starts history after a bulk load, so that the dataset itself is not replayed.
    pub fn forget_history(&mut self) {
        self.state.history.clear();
        self.state.compacted_rv = self.state.rv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str) -> Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}})
    }

    fn event(name: &str, about: &str, message: &str) -> Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "demo"},
            "involvedObject": {"kind": "ReplicaSet", "name": about, "uid": format!("uid-{about}")},
            "type": "Normal", "reason": "SuccessfulCreate", "message": message})
    }

    #[test]
    fn the_same_events_are_found_by_object_type_reason_and_message_and_follow_changes_and_removals() {
        let store = Store::new(Duration::from_secs(300), 100, Duration::from_secs(300));
        store.write(|txn| {
            txn.put(crate::rules::events::STORAGE_KEY, event("rs.b", "rs", "Created pod: a"));
            txn.put(crate::rules::events::STORAGE_KEY, event("rs.a", "rs", "Created pod: a"));
            txn.put(crate::rules::events::STORAGE_KEY, event("rs.c", "rs", "Created pod: b"));
            txn.put(crate::rules::events::STORAGE_KEY, event("other.a", "other", "Created pod: a"));
            txn.put("/pods", pod("rs.d"));
        });
        let names = |probe: &Value| {
            store.read().same_events(probe).iter().map(|e| object::name(e).to_string()).collect::<Vec<_>>()
        };
        assert_eq!(names(&event("", "rs", "Created pod: a")), ["rs.a", "rs.b"]);
        assert_eq!(names(&event("", "rs", "Created pod: b")), ["rs.c"]);
        assert_eq!(names(&event("", "rs", "Created pod: z")), Vec::<String>::new());
        let mut elsewhere = event("", "rs", "Created pod: a");
        elsewhere["metadata"]["namespace"] = "default".into();
        assert_eq!(names(&elsewhere), Vec::<String>::new());
        store.write(|txn| {
            txn.remove(crate::rules::events::STORAGE_KEY, "demo", "rs.a");
            txn.put(crate::rules::events::STORAGE_KEY, event("rs.c", "rs", "Created pod: a"));
        });
        assert_eq!(names(&event("", "rs", "Created pod: a")), ["rs.b", "rs.c"]);
        assert_eq!(names(&event("", "rs", "Created pod: b")), Vec::<String>::new());
    }

    #[test]
    fn the_load_of_each_node_counts_the_bound_pods_that_have_not_ended() {
        let store = Store::new(Duration::from_secs(300), 100, Duration::from_secs(300));
        let on = |name: &str, node: &str, phase: &str| {
            let mut p = pod(name);
            p["spec"] = serde_json::json!({"nodeName": node});
            p["status"] = serde_json::json!({"phase": phase});
            p
        };
        let load = || {
            let state = store.read();
            let mut l: Vec<(String, usize)> = state.node_load().iter().map(|(n, c)| (n.clone(), *c)).collect();
            l.sort();
            l
        };
        store.write(|txn| {
            txn.put("/pods", on("a", "node-1", "Running"));
            txn.put("/pods", on("b", "node-1", "Pending"));
            txn.put("/pods", on("c", "node-1", "Succeeded"));
            txn.put("/pods", pod("d"));
            txn.put("/configmaps", on("e", "node-2", "Running"));
        });
        assert_eq!(load(), [("node-1".to_string(), 2)]);
        store.write(|txn| {
            txn.put("/pods", on("d", "node-2", "Pending"));
            txn.put("/pods", on("b", "node-1", "Failed"));
        });
        assert_eq!(load(), [("node-1".to_string(), 1), ("node-2".to_string(), 1)]);
        store.write(|txn| txn.remove("/pods", "default", "a"));
        assert_eq!(load(), [("node-2".to_string(), 1)]);
    }

    #[test]
    fn the_history_keeps_at_most_its_limit_of_changes_and_older_versions_are_compacted() {
        let store = Store::new(Duration::from_secs(300), 3, Duration::from_secs(300));
        let first = store.current_rv();
        for i in 0..5 {
            store.write(|txn| txn.put("/pods", pod(&format!("p-{i}"))));
        }
        let state = store.read();
        assert_eq!(state.rv, first + 5);
        let Err(too_old) = state.changes_since(first) else {
            panic!("a watch from before the kept changes is too old")
        };
        assert_eq!(too_old.oldest, first + 2);
        let kept = state.changes_since(first + 2).map(|c| c.iter().map(|c| c.rv).collect::<Vec<_>>());
        assert_eq!(kept.ok(), Some(vec![first + 3, first + 4, first + 5]));
        // The objects themselves are all still there.
        assert_eq!(state.list("/pods", None).len(), 5);
    }
}
