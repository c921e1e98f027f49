//! Key order on the wire. Custom resources are unstructured, so the real server writes their
//! keys sorted (serde_json's order); built-in types and `meta.k8s.io` kinds are Go structs, written
//! in field order: `kind`, `apiVersion`, `metadata` (name, namespace, uid, …, managedFields),
//! then the rest. This wraps a stored object so it serializes in the order its kind uses.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

const TOP: &[&str] = &["kind", "apiVersion", "metadata", "spec", "status"];
const META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];
const MANAGED: &[&str] = &["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"];

/// How an object's keys are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// A Go struct: known fields first in field order.
    Typed,
    /// Unstructured: sorted keys, except that `metadata` is ObjectMeta, a struct, only when the
    /// object is itself typed (PartialObjectMetadata of a custom resource stays unsorted there).
    Sorted,
}

/// An object serialized in its kind's key order. `skip_type` leaves out kind and apiVersion, as
/// items of typed lists are written; `api_version` relabels an object read through another
/// version of its group.
pub struct Ordered<'a> {
    pub value: &'a Value,
    pub order: Order,
    pub skip_type: bool,
    pub api_version: Option<&'a str>,
}

impl<'a> Ordered<'a> {
    pub fn new(value: &'a Value, order: Order) -> Ordered<'a> {
        Ordered { value, order, skip_type: false, api_version: None }
    }
}

/// The order of objects of a type: typed for built-ins, sorted for custom resources.
pub fn order_of(rt: &crate::store::registry::ResourceType) -> Order {
    if rt.is_custom() {
        Order::Sorted
    } else {
        Order::Typed
    }
}

fn write_in_order<S: Serializer>(
    s: S,
    v: &Value,
    first: &[&str],
    skip: &[&str],
    api_version: Option<&str>,
) -> Result<S::Ok, S::Error> {
    let Some(m) = v.as_object() else { return v.serialize(s) };
    let mut map = s.serialize_map(None)?;
    let entry = |map: &mut S::SerializeMap, k: &str, child: &Value| match (k, api_version) {
        ("apiVersion", Some(av)) => map.serialize_entry(k, av),
        _ => map.serialize_entry(k, &KeyOrdered(k, child)),
    };
    for k in first.iter().filter(|k| !skip.contains(k)) {
        if let Some(child) = m.get(*k) {
            entry(&mut map, k, child)?;
        }
    }
    for (k, child) in m.iter().filter(|(k, _)| !first.contains(&k.as_str()) && !skip.contains(&k.as_str())) {
        entry(&mut map, k, child)?;
    }
    map.end()
}

/// A nested value whose own order depends on the key it sits under.
struct KeyOrdered<'a>(&'a str, &'a Value);

impl Serialize for KeyOrdered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.0, self.1) {
            ("metadata", v) => write_in_order(s, v, META, &[], None),
            ("managedFields", Value::Array(entries)) => {
                use serde::ser::SerializeSeq;
                let mut seq = s.serialize_seq(Some(entries.len()))?;
                for e in entries {
                    seq.serialize_element(&Managed(e))?;
                }
                seq.end()
            }
            (_, v) => v.serialize(s),
        }
    }
}

struct Managed<'a>(&'a Value);

impl Serialize for Managed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_in_order(s, self.0, MANAGED, &[], None)
    }
}

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let skip: &[&str] = if self.skip_type { &["kind", "apiVersion"] } else { &[] };
        match self.order {
            Order::Typed => write_in_order(s, self.value, TOP, skip, self.api_version),
            Order::Sorted => {
                let Some(m) = self.value.as_object() else { return self.value.serialize(s) };
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
                    match (k.as_str(), self.api_version) {
                        ("apiVersion", Some(av)) => map.serialize_entry(k, av)?,
                        _ => map.serialize_entry(k, v)?,
                    }
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_objects_follow_go_field_order() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "spec": {}, "status": {}, "metadata": {"uid": "u", "name": "p", "namespace": "n",
            "managedFields": [{"time": "t", "manager": "m", "operation": "Update"}]}});
        let text = serde_json::to_string(&Ordered::new(&pod, Order::Typed)).expect("serializes");
        assert_eq!(
            text,
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n","uid":"u","managedFields":[{"manager":"m","operation":"Update","time":"t"}]},"spec":{},"status":{}}"#
        );
        let sorted = serde_json::to_string(&Ordered::new(&pod, Order::Sorted)).expect("serializes");
        assert!(sorted.starts_with(r#"{"apiVersion":"v1","kind":"Pod""#));
    }
}
