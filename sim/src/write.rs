//! Writes: create, update, delete and their shared stamping of server-managed metadata (uid,
//! creationTimestamp, generation, managedFields).

use serde_json::{json, Value};

use crate::fields::{record_update, Writer};
use crate::object::{self, meta_mut};
use crate::registry::ResourceType;

/// Fills the metadata a create sets: uid, creationTimestamp, generation and the creator's
/// managedFields entry.
pub fn stamp_new(rt: &ResourceType, obj: &mut Value, manager: &str) {
    let now = object::now_string();
    let api_version = rt.api_version();
    if let Some(m) = obj.as_object_mut() {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(rt.kind));
    }
    let has_spec = obj.get("spec").is_some() || rt.is_custom();
    let meta = meta_mut(obj);
    meta.insert("uid".into(), json!(object::new_uid()));
    meta.insert("creationTimestamp".into(), json!(now));
    meta.remove("resourceVersion");
    meta.remove("managedFields");
    if has_spec {
        meta.insert("generation".into(), json!(1));
    }
    record_update(
        None,
        obj,
        &Writer { manager, operation: "Update", api_version: &api_version, subresource: None, time: &now },
    );
}
