//! The Events the controllers and the kubelet record, as client-go's event recorder writes them
//! (core `v1` Events, `source.component` and `reportingComponent` naming the reporter) with its
//! correlator's counting: the same object, type, reason and message again count up (`count`,
//! `lastTimestamp`) instead of making another Event.
//!
//! Apart from `control` so that the store's graceful pod deletion can record the kubelet's
//! Killing Events without importing the controllers that delete through the store.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::app::App;
use crate::store::lifecycle::stamp_new;
use crate::store::object;
use crate::store::Txn;

pub const EVENTS: &str = "/events";

/// `Normal` or `Warning`, as an Event's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// An Event a controller records about an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The object the Event is about (its apiVersion, kind, namespace, name and uid are read).
    pub about: Value,
    pub kind: EventType,
    pub reason: String,
    pub message: String,
    /// The reporting component (`statefulset-controller`, `default-scheduler`…).
    pub component: &'static str,
}

/// Records an Event, or counts it again as the client-go event correlator does when the same
/// object, type, reason and message come back (`count`, `lastTimestamp`).
pub fn record(app: &App, txn: &mut Txn<'_>, e: &Recorded, now: DateTime<Utc>) {
    let Some(rt) = app.registry.by_storage_key(EVENTS) else { return };
    let ns = match object::namespace(&e.about) {
        "" => "default",
        ns => ns,
    };
    let stamp = object::timestamp(now);
    let uid = object::uid(&e.about);
    let probe = json!({"metadata": {"namespace": ns}, "involvedObject": {"uid": uid, "name": object::name(&e.about)},
        "type": e.kind.as_str(), "reason": e.reason, "message": e.message});
    let same = txn.state().same_events(&probe).into_iter().next();
    if let Some(old) = same {
        let mut again = old.as_ref().clone();
        again["count"] = json!(old["count"].as_i64().unwrap_or(1) + 1);
        again["lastTimestamp"] = json!(stamp);
        txn.put(EVENTS, again);
        return;
    }
    let suffix: String = object::new_uid().chars().filter(char::is_ascii_hexdigit).take(16).collect();
    let mut involved = json!({"apiVersion": e.about["apiVersion"], "kind": e.about["kind"],
        "name": object::name(&e.about), "uid": uid, "resourceVersion": object::resource_version(&e.about)});
    if !object::namespace(&e.about).is_empty() {
        involved["namespace"] = json!(ns);
    }
    let mut event = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{}.{suffix}", object::name(&e.about)), "namespace": ns},
        "involvedObject": involved, "reason": e.reason, "message": e.message, "type": e.kind.as_str(),
        "count": 1, "firstTimestamp": stamp, "lastTimestamp": stamp, "source": {"component": e.component},
        "reportingComponent": e.component, "reportingInstance": ""});
    stamp_new(&rt, &mut event, e.component);
    txn.put(EVENTS, event);
}
