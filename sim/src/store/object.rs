//! Accessors for the parts of an object every kind shares (`metadata`), timestamps in the API's
//! RFC 3339 form, and uid generation.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};

pub fn meta(obj: &Value) -> &Value {
    &obj["metadata"]
}

pub fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.is_object() {
        *obj = Value::Object(Map::new());
    }
    let map = obj.as_object_mut().expect("object ensured above");
    let m = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !m.is_object() {
        *m = Value::Object(Map::new());
    }
    m.as_object_mut().expect("metadata ensured above")
}

/// Sets the value at a path of keys, replacing whatever is in the way by an object (indexing a
/// stored object that a client filled with a string where a map belongs would panic).
pub fn set_at(obj: &mut Value, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        *obj = value;
        return;
    };
    let mut cur = obj;
    for key in parents {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        cur = match cur {
            Value::Object(m) => m.entry(key.to_string()).or_insert(Value::Null),
            _ => return,
        };
    }
    if !cur.is_object() {
        *cur = Value::Object(Map::new());
    }
    if let Value::Object(m) = cur {
        m.insert(last.to_string(), value);
    }
}

pub fn name(obj: &Value) -> &str {
    meta(obj)["name"].as_str().unwrap_or_default()
}

pub fn namespace(obj: &Value) -> &str {
    meta(obj)["namespace"].as_str().unwrap_or_default()
}

pub fn uid(obj: &Value) -> &str {
    meta(obj)["uid"].as_str().unwrap_or_default()
}

pub fn resource_version(obj: &Value) -> &str {
    meta(obj)["resourceVersion"].as_str().unwrap_or_default()
}

pub fn set_resource_version(obj: &mut Value, rv: u64) {
    meta_mut(obj).insert("resourceVersion".into(), Value::String(rv.to_string()));
}

pub fn labels(obj: &Value) -> Option<&Map<String, Value>> {
    meta(obj)["labels"].as_object()
}

pub fn finalizers(obj: &Value) -> Vec<String> {
    meta(obj)["finalizers"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

pub fn is_deleting(obj: &Value) -> bool {
    !meta(obj)["deletionTimestamp"].is_null()
}

pub fn owner_uids(obj: &Value) -> Vec<String> {
    meta(obj)["ownerReferences"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["uid"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

pub fn now() -> DateTime<Utc> {
    Utc::now()
}

pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

pub fn now_string() -> String {
    timestamp(now())
}

/// A `metav1.MicroTime` as Go writes it: always six decimals (`RFC3339Micro`), as a Lease's
/// `renewTime` is.
pub fn micro_timestamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc))
}

pub fn new_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Follows a dotted path such as `status.phase` (or `.spec.replicas`).
pub fn path<'a>(obj: &'a Value, dotted: &str) -> Option<&'a Value> {
    let mut cur = obj;
    for part in dotted.trim_start_matches('.').split('.') {
        cur = match cur {
            Value::Object(m) => m.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Go's `duration.HumanDuration`, as the server's printers use for ages.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{dy}d", hours / 24 / 365) };
    }
    format!("{}y", hours / 24 / 365)
}

/// Age of an object as the printers show it, from its creationTimestamp.
pub fn age(obj: &Value) -> String {
    age_of(meta(obj)["creationTimestamp"].as_str())
}

pub fn age_of(timestamp: Option<&str>) -> String {
    match timestamp.and_then(parse_time) {
        Some(t) => human_duration((now() - t).num_seconds()),
        None => "<unknown>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_matches_go() {
        for (secs, want) in [
            (5, "5s"),
            (119, "119s"),
            (150, "2m30s"),
            (600, "10m"),
            (3 * 3600 + 60, "3h1m"),
            (9 * 3600, "9h"),
            (50 * 3600, "2d2h"),
            (400 * 86400, "400d"),
        ] {
            assert_eq!(human_duration(secs), want, "{secs}s");
        }
    }

    #[test]
    fn set_at_replaces_what_is_in_the_way() {
        let mut v = serde_json::json!({"spec": "not a map"});
        set_at(&mut v, &["spec", "replicas"], serde_json::json!(3));
        assert_eq!(v, serde_json::json!({"spec": {"replicas": 3}}));
    }

    #[test]
    fn path_walks_maps_and_arrays() {
        let v = serde_json::json!({"spec": {"containers": [{"name": "a"}]}});
        assert_eq!(path(&v, ".spec.containers.0.name"), Some(&Value::String("a".into())));
        assert_eq!(path(&v, "spec.missing"), None);
    }
}
