//! The Events of one object ("Events" in the concepts pages, `kubectl describe`'s Events
//! section): which Event collection to watch and with which field selector, chosen by
//! discovery, and the rows an object's screen shows from what that watch holds.
//!
//! `events.k8s.io/v1` is preferred where it is served (selected by `regarding.uid`); a server
//! that serves only core `v1` Events is asked by `involvedObject.uid`. The uid (not the name)
//! keeps a recreated object's screen from showing its predecessor's Events, as `kubectl
//! describe` does. Both shapes are read into the same [`EventRow`]: `note`/`message`,
//! `series.count`/`deprecatedCount`/`count`, `reportingController`/`reportingComponent`/
//! `deprecatedSource.component`/`source.component`, and the last time from
//! `series.lastObservedTime`, `deprecatedLastTimestamp`/`lastTimestamp`, `eventTime` or the
//! creation time (what `kubectl events` sorts by).

use crate::i18n::{Localized, Msg, Text};
use kube_wire::codec::value::Value;
use kube_wire::discovery::{Discovery, ResourceType};
use kube_wire::reflector::ReflectorConfig;
use kube_wire::request::{Collection, RequestError};

/// The object whose Events are asked for: what a field selector and a link need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regarding {
    pub api_version: String,
    pub kind: String,
    /// `None` for a cluster-scoped object, whose Events may be in any namespace.
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
}

/// Why an object's Events cannot be watched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventsError {
    /// The document has no `metadata.uid` (or no kind or name): nothing to select its Events by.
    NoUid,
    /// Neither `events.k8s.io/v1` nor core `v1` Events can be listed and watched here.
    NotServed,
    Request(RequestError),
}

impl Localized for EventsError {
    fn text(&self) -> Text {
        match self {
            EventsError::NoUid => Text::new(Msg::EventsNoUid),
            EventsError::NotServed => Text::new(Msg::EventsNotServed),
            EventsError::Request(error) => error.text(),
        }
    }
}

impl Regarding {
    /// The object a document describes, from its `apiVersion`, `kind` and metadata.
    pub fn of(document: &Value) -> Result<Regarding, EventsError> {
        let text = |path: &[&str]| document.at(path).and_then(Value::as_str).filter(|s| !s.is_empty());
        let (Some(api_version), Some(kind), Some(name), Some(uid)) =
            (text(&["apiVersion"]), text(&["kind"]), text(&["metadata", "name"]), text(&["metadata", "uid"]))
        else {
            return Err(EventsError::NoUid);
        };
        Ok(Regarding {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: text(&["metadata", "namespace"]).map(str::to_owned),
            name: name.into(),
            uid: uid.into(),
        })
    }

    /// The object's controller (the owner reference with `controller: true`), in its namespace:
    /// a pod's ReplicaSet, a ReplicaSet's Deployment, a Job's CronJob.
    pub fn controller_of(document: &Value) -> Option<Regarding> {
        let owners = document.at(&["metadata", "ownerReferences"]).and_then(Value::as_array)?;
        let owner = owners.iter().find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))?;
        let text = |key: &str| owner.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        Some(Regarding {
            api_version: text("apiVersion")?,
            kind: text("kind")?,
            namespace: document.at(&["metadata", "namespace"]).and_then(Value::as_str).map(str::to_owned),
            name: text("name")?,
            uid: text("uid")?,
        })
    }
}

/// Which shape of Event is watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsApi {
    /// `events.k8s.io/v1`, selected by `regarding.uid`.
    EventsV1,
    /// Core `v1`, selected by `involvedObject.uid`.
    CoreV1,
}

/// What to watch for one object's Events.
#[derive(Debug, Clone, PartialEq)]
pub struct EventsPlan {
    pub api: EventsApi,
    /// The Event type watched (for links to each Event).
    pub resource: ResourceType,
    pub config: ReflectorConfig,
}

fn watchable<'a>(discovery: &'a Discovery, group: &str) -> Option<&'a ResourceType> {
    let resource = discovery.find_resource(group, "v1", "events")?;
    (resource.supports("list") && resource.supports("watch")).then_some(resource)
}

/// The watch of `regarding`'s Events: `events.k8s.io/v1` where discovery serves it (list and
/// watch), else core `v1`; in the object's namespace, or all namespaces for a cluster-scoped one.
pub fn plan(discovery: &Discovery, regarding: &Regarding) -> Result<EventsPlan, EventsError> {
    let (api, resource, label) = if let Some(resource) = watchable(discovery, "events.k8s.io") {
        (EventsApi::EventsV1, resource, "regarding.uid")
    } else if let Some(resource) = watchable(discovery, "") {
        (EventsApi::CoreV1, resource, "involvedObject.uid")
    } else {
        return Err(EventsError::NotServed);
    };
    let namespace = resource.scoped(regarding.namespace.as_deref());
    let collection = Collection::new(resource, namespace).map_err(EventsError::Request)?;
    let mut config = ReflectorConfig::new(collection);
    config.field_selector = Some(format!("{label}={}", regarding.uid));
    Ok(EventsPlan { api, resource: resource.clone(), config })
}

/// `Normal`, `Warning`, or another type a reporter wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventType {
    Normal,
    Warning,
    Other(String),
}

/// One Event as an object's screen lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    /// The Event's own name and namespace, for its link.
    pub name: String,
    pub namespace: Option<String>,
    pub event_type: EventType,
    pub reason: String,
    /// How many times it happened (a series' count; 1 for a single Event).
    pub count: u64,
    /// The reporting controller (or the core `source.component`), empty when none is given.
    pub reporter: String,
    pub message: String,
    /// When it last happened, as the wire wrote it (RFC 3339), empty when no time is given.
    pub last_seen: String,
}

impl EventRow {
    /// The row of an Event document of either shape; `None` for a document without a name.
    pub fn of(event: &Value) -> Option<EventRow> {
        let text = |paths: &[&[&str]]| {
            paths
                .iter()
                .find_map(|path| event.at(path).and_then(Value::as_str).filter(|s| !s.is_empty()))
                .unwrap_or_default()
                .to_owned()
        };
        let name = text(&[&["metadata", "name"]]);
        if name.is_empty() {
            return None;
        }
        let count = [&["series", "count"][..], &["deprecatedCount"], &["count"]]
            .iter()
            .find_map(|path| event.at(path).and_then(Value::as_i64))
            .map_or(1, |n| n.max(1) as u64);
        let event_type = match text(&[&["type"]]).as_str() {
            "Normal" | "" => EventType::Normal,
            "Warning" => EventType::Warning,
            other => EventType::Other(other.to_owned()),
        };
        Some(EventRow {
            name,
            namespace: Some(text(&[&["metadata", "namespace"]])).filter(|n| !n.is_empty()),
            event_type,
            reason: text(&[&["reason"]]),
            count,
            reporter: text(&[
                &["reportingController"],
                &["reportingComponent"],
                &["deprecatedSource", "component"],
                &["source", "component"],
            ]),
            message: text(&[&["note"], &["message"]]),
            last_seen: text(&[
                &["series", "lastObservedTime"],
                &["deprecatedLastTimestamp"],
                &["lastTimestamp"],
                &["eventTime"],
                &["metadata", "creationTimestamp"],
            ]),
        })
    }

    /// How long ago it last happened at `now_ms` (ms since the epoch), as `kubectl` prints ages
    /// (`45s`, `3m12s`); `None` when the time is missing or not RFC 3339.
    pub fn age(&self, now_ms: i64) -> Option<String> {
        let at = self.last_seen.parse::<k8s_openapi::jiff::Timestamp>().ok()?;
        Some(crate::cells::age(now_ms - at.as_millisecond()))
    }
}

/// The rows of `events`, the latest first (RFC 3339 times of one form sort as text; ties by
/// name, so the order does not depend on the cache's).
pub fn rows<'a>(events: impl IntoIterator<Item = &'a Value>) -> Vec<EventRow> {
    let mut rows: Vec<EventRow> = events.into_iter().filter_map(EventRow::of).collect();
    rows.sort_by(|a, b| b.last_seen.cmp(&a.last_seen).then_with(|| a.name.cmp(&b.name)));
    rows
}

#[cfg(test)]
#[path = "object_events_tests.rs"]
mod tests;
