//! What the live view keeps of a watch besides the cache: the event timeline's entries, and the
//! history of each object's versions (for the diff between any two), within bounds so that a
//! burst over 10,000 objects does not keep every version.
//!
//! Invariants: an object keeps at most `per_object` versions, the history at most `total` in
//! all besides the pinned object's (the one whose history the user is reading: a busy cluster's
//! other objects must not push its versions out); over the total, the version recorded first
//! goes first. Versions are shared with the
//! cache (`Arc`), never copied. An object is its uid: when a name comes back with another uid
//! (deleted and made again, or a server replaced by one with another state, #41), its history
//! starts again, so that no diff compares two different objects or two servers' versions.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use kube_wire::view::list::ResourceVersion;
use kube_wire::watch::lazy::LazyObject;
use kube_wire::watch::WatchEvent;

/// One line of the event timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    /// The event's number in the watch, from 1.
    pub seq: u64,
    pub event_type: &'static str,
    /// Kind and namespace/name: also the object's name in the history (shared, not copied).
    pub what: Arc<str>,
    pub resource_version: String,
    /// When it arrived (ms since the page started).
    pub at_ms: f64,
}

impl TimelineEntry {
    /// The entry of event number `seq`, arrived at `at_ms`; with the history's name for its
    /// object (none for a bookmark or an error, which have no object to keep).
    pub fn of(event: &WatchEvent, seq: u64, at_ms: f64) -> (TimelineEntry, Option<Arc<str>>) {
        let what: Arc<str> = event
            .object()
            .map(|o| {
                let head = o.head();
                let kind = head.kind.as_deref().unwrap_or_default();
                let name = head.name.as_deref().unwrap_or_default();
                match head.namespace.as_deref().unwrap_or_default() {
                    "" => format!("{kind} {name}").into(),
                    namespace => format!("{kind} {namespace}/{name}").into(),
                }
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
        let name = named.then(|| entry.what.clone());
        (entry, name)
    }

    /// The namespace (when namespaced) and name of the object the event is about, read back
    /// from `what` (a kind, names and namespaces hold no space or slash); `None` without one.
    pub fn object_name(&self) -> Option<(Option<&str>, &str)> {
        let (_, rest) = self.what.split_once(' ')?;
        match rest.split_once('/') {
            Some((namespace, name)) if !namespace.is_empty() && !name.is_empty() => Some((Some(namespace), name)),
            Some(_) => None,
            None if rest.is_empty() => None,
            None => Some((None, rest)),
        }
    }

    /// How a version recorded from this event is labelled: "MODIFIED rv 42".
    pub fn version_label(&self) -> String {
        format!("{} rv {}", self.event_type, self.resource_version)
    }
}

/// One version of an object: its label ("EVENT rv N") and the object (shared with the cache;
/// its tree is decoded when a diff shows it).
pub type Version = (String, Arc<LazyObject>);

/// The versions of each watched object, by name, within bounds.
#[derive(Debug, Default)]
pub struct ObjectHistory {
    per_object: usize,
    total: usize,
    versions: BTreeMap<Arc<str>, VecDeque<Version>>,
    /// The names of the versions in the order recorded.
    order: VecDeque<Arc<str>>,
    /// How many of `order`'s entries each name has.
    recorded: HashMap<Arc<str>, usize>,
    /// The object whose versions the total does not take ([`ObjectHistory::pin`]).
    pinned: Option<Arc<str>>,
}

impl ObjectHistory {
    /// A history that keeps at most `per_object` versions of each object and `total` in all.
    pub fn new(per_object: usize, total: usize) -> ObjectHistory {
        ObjectHistory { per_object, total, ..ObjectHistory::default() }
    }

    /// Records `object` as the newest version of `name`, dropping what the bounds no longer hold,
    /// and the name's earlier versions when their uid is not the object's.
    pub fn record(&mut self, name: Arc<str>, label: String, object: Arc<LazyObject>) {
        let versions = self.versions.entry(name.clone()).or_default();
        if versions.back().is_some_and(|last| last.1.head().uid != object.head().uid) {
            // Their entries stay in `order`: an object holding fewer versions than recorded
            // loses none to them (the eviction below), as after the per-object bound.
            versions.clear();
        }
        versions.push_back((label, object));
        self.order.push_back(name.clone());
        *self.recorded.entry(name).or_default() += 1;
        if versions.len() > self.per_object {
            versions.pop_front();
        }
        // Over the total, the oldest version recorded goes. An object holds the newest of the
        // versions recorded for it: when it holds as many as recorded, the oldest recorded is
        // its first; otherwise the per-object bound dropped that one already.
        while self.order.len() > self.total {
            let Some(oldest) = self.order.pop_front() else { break };
            let count = self.recorded.get(&oldest).copied().unwrap_or_default();
            let pinned = self.pinned.as_ref() == Some(&oldest);
            if let Some(versions) = self.versions.get_mut(&oldest).filter(|_| !pinned) {
                if versions.len() >= count {
                    versions.pop_front();
                }
                if versions.is_empty() {
                    self.versions.remove(&oldest);
                }
            }
            if count <= 1 {
                self.recorded.remove(&oldest);
            } else {
                self.recorded.insert(oldest, count - 1);
            }
        }
    }

    /// Keeps the versions of `name` out of the total's reach (up to `per_object`) until another
    /// object, or none, is pinned; the one pinned before goes back to the versions the total
    /// would have left it.
    pub fn pin(&mut self, name: Option<&str>) {
        if self.pinned.as_deref() == name {
            return;
        }
        if let Some(before) = self.pinned.take() {
            let left = self.recorded.get(&before).copied().unwrap_or_default();
            if let Some(versions) = self.versions.get_mut(&before) {
                let excess = versions.len().saturating_sub(left);
                versions.drain(..excess);
                if versions.is_empty() {
                    self.versions.remove(&before);
                }
            }
        }
        self.pinned = name.map(Arc::from);
    }

    /// The objects with at least two versions (something to diff), by name.
    pub fn changed_objects(&self) -> Vec<String> {
        self.versions.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k.to_string()).collect()
    }

    /// The versions of `name`, oldest first.
    pub fn versions(&self, name: &str) -> Vec<Version> {
        self.versions.get(name).map(|v| v.iter().cloned().collect()).unwrap_or_default()
    }

    /// How many versions are kept in all.
    pub fn len(&self) -> usize {
        self.versions.values().map(VecDeque::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_entry_names_its_object() {
        let entry = |what: &str| TimelineEntry {
            seq: 1,
            event_type: "ADDED",
            what: Arc::from(what),
            resource_version: String::new(),
            at_ms: 0.0,
        };
        assert_eq!(entry("Pod demo/web-1").object_name(), Some((Some("demo"), "web-1")));
        assert_eq!(entry("Node node-1").object_name(), Some((None, "node-1")));
        assert_eq!(entry("").object_name(), None, "a bookmark names nothing");
        assert_eq!(entry("Pod ").object_name(), None);
        assert_eq!(entry("Pod /x").object_name(), None);
    }
    use kube_wire::codec::json::decode_json;

    fn pod(name: &str, rv: u32) -> Arc<LazyObject> {
        pod_of("u-1", name, rv)
    }

    fn pod_of(uid: &str, name: &str, rv: u32) -> Arc<LazyObject> {
        let text = format!(
            r#"{{"kind":"Pod","metadata":{{"name":"{name}","namespace":"demo","uid":"{uid}","resourceVersion":"{rv}"}}}}"#
        );
        Arc::new(LazyObject::from_value(decode_json(text.as_bytes()).expect("json")))
    }

    #[test]
    fn a_name_that_comes_back_with_another_uid_starts_a_new_history() {
        let mut history = ObjectHistory::new(5, 6);
        let labels = |history: &ObjectHistory| -> Vec<String> {
            history.versions("Pod demo/web").into_iter().map(|(l, _)| l).collect()
        };
        // The first server's object, three versions; then a replaced server's, with its
        // resourceVersions gone back: the first server's versions are not its history.
        for rv in [40, 41, 42] {
            history.record("Pod demo/web".into(), format!("MODIFIED rv {rv}"), pod_of("first", "web", rv));
        }
        history.record("Pod demo/web".into(), "ADDED rv 7".into(), pod_of("second", "web", 7));
        assert_eq!(labels(&history), ["ADDED rv 7"]);
        assert!(history.changed_objects().is_empty(), "one version: nothing to diff");
        history.record("Pod demo/web".into(), "MODIFIED rv 8".into(), pod_of("second", "web", 8));
        assert_eq!(labels(&history), ["ADDED rv 7", "MODIFIED rv 8"]);
        // The total bound counts what was recorded: the first object's entries leave first and take
        // none of the second's versions with them.
        history.record("Pod demo/other".into(), "ADDED rv 9".into(), pod_of("o", "other", 9));
        history.record("Pod demo/other".into(), "MODIFIED rv 10".into(), pod_of("o", "other", 10));
        assert_eq!(labels(&history), ["ADDED rv 7", "MODIFIED rv 8"]);
        history.record("Pod demo/web".into(), "MODIFIED rv 11".into(), pod_of("second", "web", 11));
        assert_eq!(labels(&history), ["ADDED rv 7", "MODIFIED rv 8", "MODIFIED rv 11"]);
        assert_eq!(history.len(), 5);
        // Within the total of 6 recorded since the first server's went: the oldest goes.
        for rv in [12, 13, 14] {
            history.record("Pod demo/web".into(), format!("MODIFIED rv {rv}"), pod_of("second", "web", rv));
        }
        assert_eq!(labels(&history), ["MODIFIED rv 11", "MODIFIED rv 12", "MODIFIED rv 13", "MODIFIED rv 14"]);
    }

    #[test]
    fn an_event_becomes_a_timeline_entry_naming_its_object() {
        let event = WatchEvent::Modified((*pod("web", 7)).clone());
        let (entry, name) = TimelineEntry::of(&event, 3, 1500.0);
        assert_eq!(entry.what.as_ref(), "Pod demo/web");
        assert_eq!((entry.seq, entry.event_type, entry.resource_version.as_str()), (3, "MODIFIED", "7"));
        assert_eq!(entry.version_label(), "MODIFIED rv 7");
        assert_eq!(name.as_deref(), Some("Pod demo/web"));
        let bookmark = WatchEvent::from_value(
            decode_json(br#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}"#)
                .expect("json"),
        )
        .expect("event");
        let (entry, name) = TimelineEntry::of(&bookmark, 4, 0.0);
        assert_eq!((entry.event_type, entry.resource_version.as_str(), name), ("BOOKMARK", "9", None));
    }

    #[test]
    fn each_object_keeps_its_newest_versions_up_to_its_bound() {
        let mut history = ObjectHistory::new(3, 100);
        for rv in 1..=5 {
            history.record("Pod demo/web".into(), format!("MODIFIED rv {rv}"), pod("web", rv));
        }
        let labels: Vec<String> = history.versions("Pod demo/web").into_iter().map(|(l, _)| l).collect();
        assert_eq!(labels, ["MODIFIED rv 3", "MODIFIED rv 4", "MODIFIED rv 5"]);
        assert_eq!(history.changed_objects(), ["Pod demo/web"]);
    }

    #[test]
    fn over_the_total_the_version_recorded_first_goes_first() {
        let mut history = ObjectHistory::new(2, 4);
        // a1 b1 a2 a3 (a's own bound drops a1) c1 (over the total: a1's record, already gone)
        // c2 (over the total: b1)
        for (name, rv) in [("a", 1), ("b", 1), ("a", 2), ("a", 3), ("c", 1), ("c", 2)] {
            history.record(name.into(), format!("rv {rv}"), pod(name, rv));
        }
        assert_eq!(history.len(), 4);
        assert!(history.versions("b").is_empty(), "b1 was the oldest still kept when c2 came");
        let a: Vec<String> = history.versions("a").into_iter().map(|(l, _)| l).collect();
        assert_eq!(a, ["rv 2", "rv 3"], "a1 had gone to a's own bound, so c1 took no version of a");
        assert_eq!(history.versions("c").len(), 2);
        assert_eq!(history.changed_objects(), ["a", "c"]);
    }

    #[test]
    fn the_pinned_object_keeps_its_versions_through_a_burst_and_gives_them_back_when_unpinned() {
        let mut history = ObjectHistory::new(3, 4);
        let labels = |history: &ObjectHistory, name: &str| -> Vec<String> {
            history.versions(name).into_iter().map(|(l, _)| l).collect()
        };
        history.record("a".into(), "rv 1".into(), pod("a", 1));
        history.record("a".into(), "rv 2".into(), pod("a", 2));
        history.pin(Some("a"));
        // Ten versions of other objects: without the pin, a's two would have gone with the first
        // three of them.
        for n in 0..10 {
            let name = format!("p{n}");
            history.record(name.as_str().into(), "rv 1".into(), pod(&name, 1));
        }
        assert_eq!(labels(&history, "a"), ["rv 1", "rv 2"]);
        assert_eq!(history.changed_objects(), ["a"]);
        assert_eq!(history.len(), 4 + 2, "the total holds the others; the pinned object's are on top");
        // Its own bound still holds.
        for rv in 3..=5 {
            history.record("a".into(), format!("rv {rv}"), pod("a", rv));
        }
        assert_eq!(labels(&history, "a"), ["rv 3", "rv 4", "rv 5"]);
        // Pinned elsewhere, it keeps what the total leaves it: its 3 records are 3 of the last 4,
        // so all 3 stay. The next record takes p9's entry (pinned now, so p9 keeps its version);
        // the one after takes a's oldest.
        history.pin(Some("p9"));
        assert_eq!(labels(&history, "a"), ["rv 3", "rv 4", "rv 5"]);
        history.record("q".into(), "rv 1".into(), pod("q", 1));
        assert_eq!(labels(&history, "a"), ["rv 3", "rv 4", "rv 5"]);
        assert_eq!(labels(&history, "p9"), ["rv 1"]);
        history.record("q".into(), "rv 2".into(), pod("q", 2));
        assert_eq!(labels(&history, "a"), ["rv 4", "rv 5"]);
        // Unpinned after the total took all of its records: it keeps none.
        history.pin(Some("a"));
        for n in 0..4 {
            let name = format!("r{n}");
            history.record(name.as_str().into(), "rv 1".into(), pod(&name, 1));
        }
        assert!(history.versions("p9").is_empty(), "unpinned with no record within the total");
        assert_eq!(labels(&history, "a"), ["rv 4", "rv 5"], "pinned again: the burst took none");
        history.pin(None);
        assert!(history.versions("a").is_empty(), "no record of a is within the total any more");
        assert!(!history.changed_objects().contains(&"a".to_string()));
        assert_eq!(history.len(), 4);
    }

    #[test]
    fn a_burst_over_many_objects_stays_within_the_total() {
        let mut history = ObjectHistory::new(30, 3_000);
        for round in 0..3 {
            for n in 0..2_000 {
                let name = format!("p{n}");
                history.record(name.as_str().into(), format!("rv {round}"), pod(&name, round));
            }
        }
        assert_eq!(history.len(), 3_000);
        assert_eq!(history.versions("p1999").len(), 2, "the newest rounds of the last objects are kept");
        assert_eq!(history.versions("p0").len(), 1);
    }
}
