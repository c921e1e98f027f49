//! Events are one collection served in two shapes, as kube-apiserver serves them: core `v1`
//! Events and `events.k8s.io/v1` Events are stored once (the core form, under `/events`) and
//! converted on the way in and out, so an Event a controller records as core `v1` is listed and
//! watched through `events.k8s.io/v1` too, and the other way round.
//!
//! Copied from kubernetes `pkg/apis/events/v1/conversion.go`: the field renames of
//! `Convert_v1_Event_To_core_Event` / `Convert_core_Event_To_v1_Event`, and the field labels of
//! `AddFieldLabelConversionsForEvent` (`regarding.*` and `reportingController` select the core
//! `involvedObject.*` and `reportingComponent`; nothing else besides `reason`, `type` and
//! `metadata.name`/`metadata.namespace`). The core labels are in
//! `pkg/apis/core/v1/conversion.go` and indexed by `pkg/registry/core/event/strategy.go`
//! (`ToSelectableFields`).

use serde_json::{Map, Value};

/// The storage key both groups' Events share.
pub const STORAGE_KEY: &str = "/events";

/// Core `v1` name ↔ `events.k8s.io/v1` name of each renamed field.
const RENAMES: [(&str, &str); 7] = [
    ("involvedObject", "regarding"),
    ("message", "note"),
    ("reportingComponent", "reportingController"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
];

/// Whether `group`/`plural` is `events.k8s.io` Events, which are stored as core Events.
pub fn is_events_group(group: &str, plural: &str) -> bool {
    group == "events.k8s.io" && plural == "events"
}

fn rename(obj: &Value, api_version: &str, from_core: bool) -> Value {
    let Some(fields) = obj.as_object() else { return obj.clone() };
    let mut out = Map::new();
    for (key, value) in fields {
        let renamed = RENAMES.iter().find_map(|(core, group)| {
            let (from, to) = if from_core { (core, group) } else { (group, core) };
            (key == from).then_some(*to)
        });
        out.insert(renamed.unwrap_or(key).to_string(), value.clone());
    }
    out.insert("apiVersion".into(), Value::String(api_version.into()));
    Value::Object(out)
}

/// A stored (core) Event as `events.k8s.io/<version>` shows it.
pub fn from_storage(obj: &Value, api_version: &str) -> Value {
    rename(obj, api_version, true)
}

/// What to store under `key`: an `events.k8s.io` Event becomes its core form; anything else is
/// stored as it is.
pub fn to_storage(key: &str, obj: Value) -> Value {
    let written_as_group = obj["apiVersion"].as_str().is_some_and(|v| v.starts_with("events.k8s.io/"));
    if key == STORAGE_KEY && written_as_group {
        rename(&obj, "v1", false)
    } else {
        obj
    }
}

/// The core field an `events.k8s.io` field label selects, or `None` when the label is not one
/// kube-apiserver supports for that group.
pub fn core_field_label(label: &str) -> Option<String> {
    match label {
        "reason" | "type" | "metadata.name" | "metadata.namespace" => Some(label.to_string()),
        "reportingController" => Some("reportingComponent".into()),
        _ => label.strip_prefix("regarding.").and_then(|rest| {
            ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"]
                .contains(&rest)
                .then(|| format!("involvedObject.{rest}"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn core() -> Value {
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web-1.abc", "namespace": "demo"},
            "involvedObject": {"kind": "Pod", "name": "web-1", "uid": "u1"}, "reason": "Started",
            "message": "Started container web", "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z", "count": 3,
            "reportingComponent": "kubelet", "reportingInstance": "node-1", "type": "Normal",
            "eventTime": null, "series": {"count": 3, "lastObservedTime": "2026-01-01T00:01:00.000000Z"}})
    }

    #[test]
    fn core_events_read_as_events_k8s_io() {
        let read = from_storage(&core(), "events.k8s.io/v1");
        assert_eq!(read["apiVersion"], "events.k8s.io/v1");
        assert_eq!(read["regarding"]["uid"], "u1");
        assert_eq!(read["note"], "Started container web");
        assert_eq!(read["reportingController"], "kubelet");
        assert_eq!(read["deprecatedSource"]["host"], "node-1");
        assert_eq!(read["deprecatedCount"], 3);
        assert_eq!(read["deprecatedLastTimestamp"], "2026-01-01T00:01:00Z");
        assert_eq!(read["series"]["count"], 3);
        assert!(read.get("involvedObject").is_none() && read.get("message").is_none());
    }

    #[test]
    fn events_k8s_io_writes_are_stored_as_core_and_read_back_the_same() {
        let group = from_storage(&core(), "events.k8s.io/v1");
        let stored = to_storage(STORAGE_KEY, group.clone());
        assert_eq!(stored, core());
        assert_eq!(from_storage(&stored, "events.k8s.io/v1"), group);
        // Core writes, and other keys, are stored as they come.
        assert_eq!(to_storage(STORAGE_KEY, core()), core());
        assert_eq!(to_storage("/pods", group.clone()), group);
    }

    #[test]
    fn field_labels_of_events_k8s_io() {
        assert_eq!(core_field_label("regarding.uid").as_deref(), Some("involvedObject.uid"));
        assert_eq!(core_field_label("regarding.fieldPath").as_deref(), Some("involvedObject.fieldPath"));
        assert_eq!(core_field_label("reportingController").as_deref(), Some("reportingComponent"));
        assert_eq!(core_field_label("type").as_deref(), Some("type"));
        // The core names are not events.k8s.io's labels.
        assert_eq!(core_field_label("involvedObject.uid"), None);
        assert_eq!(core_field_label("regarding.labels"), None);
        assert_eq!(core_field_label("source"), None);
    }
}
