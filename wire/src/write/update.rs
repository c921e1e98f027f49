//! **update** (HTTP `PUT`) bodies and the three-way rebase that rescues an edit after a 409
//! (concepts page: "HTTP PUT to replace existing resource", `#update-mechanism-update`).
//!
//! A `PUT` replaces the whole object and must carry the `resourceVersion` the edit started from:
//! the server answers 409 Conflict when the object changed meanwhile. [`rebase`] then replays the
//! user's change (base → edited, as `json_patch::diff` sees it) onto the live object, one
//! operation at a time, and reports a conflict wherever the live object changed the same path to
//! something else; the result carries the live `resourceVersion`, ready for the next `PUT`.
//!
//! Invariants: status, managed fields and server bookkeeping are never part of the user's change
//! (they come from live); an operation is applied to live only if live still holds base's value
//! at that path, so nothing someone else wrote is overwritten silently.

use crate::build::RequestBuilder;
use crate::codec::value::{Value, ValueKind};
use crate::params::WriteParams;
use crate::request::{Body, ObjectRef};
use crate::write::diff::DiffOptions;

/// Why an update cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    #[error(
        "expected metadata.resourceVersion in the object the edit started from, found none: a PUT without it \
         cannot detect lost updates"
    )]
    NoResourceVersion,
    #[error("expected an object with metadata, found {0}")]
    NotAnObject(ValueKind),
}

/// `edited` with `metadata.resourceVersion` set to `resource_version`, ready to `PUT`.
pub fn update_body(edited: &Value, resource_version: &str) -> Result<Value, UpdateError> {
    let mut body = edited.clone();
    let Value::Object(root) = &mut body else {
        return Err(UpdateError::NotAnObject(edited.kind()));
    };
    // `insert` replaces in place, so metadata keeps its position in the body.
    let mut metadata = match root.get("metadata") {
        Some(Value::Object(metadata)) => metadata.clone(),
        _ => Default::default(),
    };
    metadata.insert("resourceVersion", Value::String(resource_version.to_string()));
    root.insert("metadata", Value::Object(metadata));
    Ok(body)
}

impl RequestBuilder {
    /// The `PUT` of `edited`, carrying the `resourceVersion` of `base` (the object the edit
    /// started from), with `dryRun`, `fieldValidation` and `fieldManager` from `params`.
    pub fn update_edit(
        object: &ObjectRef,
        base: &Value,
        edited: &Value,
        params: &WriteParams,
    ) -> Result<RequestBuilder, UpdateError> {
        let version =
            base.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).ok_or(UpdateError::NoResourceVersion)?;
        let body = update_body(edited, version)?;
        Ok(RequestBuilder::update(object, Body::json(&body), params))
    }
}

/// A path both the user and someone else changed, differently.
#[derive(Debug, Clone, PartialEq)]
pub struct RebaseConflict {
    /// JSON pointer, as the user's change addresses it.
    pub path: String,
    /// The value when the edit started (absent: the path did not exist).
    pub base: Option<Value>,
    /// What the user wants.
    pub edited: Option<Value>,
    /// What the live object holds now (kept in [`Rebased::merged`]).
    pub live: Option<Value>,
}

/// The user's change replayed onto the live object.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebased {
    /// Live with every non-conflicting part of the user's change.
    pub merged: Value,
    /// The paths where live's value was kept over the user's.
    pub conflicts: Vec<RebaseConflict>,
}

impl Rebased {
    /// Whether the whole change applied.
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }
}

/// Replays `base` → `edited` onto `live` (three-way), keeping live's value where both changed a
/// path differently.
pub fn rebase(base: &Value, edited: &Value, live: &Value) -> Rebased {
    let strip = |v: &Value| DiffOptions::USER_EDITS.strip(v).to_serde_json();
    let mut base_scratch = strip(base);
    let edited_json = strip(edited);
    let mut merged = live.to_serde_json();
    let mut conflicts = Vec::new();
    for operation in json_patch::diff(&base_scratch, &edited_json).iter() {
        let path = operation.path().to_string();
        let before = base_scratch.pointer(&path).cloned();
        let mut after_scratch = base_scratch.clone();
        // The diff was made from `base_scratch`, so each operation applies there.
        let _ = json_patch::patch(&mut after_scratch, std::slice::from_ref(operation));
        let wanted = after_scratch.pointer(&path).cloned();
        let now = merged.pointer(&path).cloned();
        let is_removal = matches!(operation, json_patch::PatchOperation::Remove(_));
        let already = if is_removal { now.is_none() } else { now == wanted };
        let applied =
            already || (now == before && json_patch::patch(&mut merged, std::slice::from_ref(operation)).is_ok());
        if !applied {
            conflicts.push(RebaseConflict {
                path: path.clone(),
                base: before.as_ref().map(Value::from_serde_json),
                edited: if is_removal { None } else { wanted.as_ref().map(Value::from_serde_json) },
                live: now.as_ref().map(Value::from_serde_json),
            });
        }
        base_scratch = after_scratch;
    }
    Rebased { merged: Value::from_serde_json(&merged), conflicts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::decode_json;
    use crate::discovery::Scope;
    use crate::request::Collection;

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("test JSON")
    }

    #[track_caller]
    fn check(base: &str, edited: &str, live: &str, merged: &str, conflicts: &[&str]) {
        let got = rebase(&json(base), &json(edited), &json(live));
        assert!(got.merged.equivalent(&json(merged)), "{}", got.merged);
        let paths: Vec<&str> = got.conflicts.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, conflicts);
        assert_eq!(got.is_clean(), conflicts.is_empty());
    }

    #[test]
    fn a_change_to_other_fields_rebases_cleanly_onto_the_live_version() {
        check(
            r#"{"metadata":{"resourceVersion":"1","labels":{"a":"1"}},"spec":{"replicas":1,"image":"x"},"status":{"n":1}}"#,
            r#"{"metadata":{"resourceVersion":"1","labels":{"a":"1","b":"2"}},"spec":{"replicas":3,"image":"x"},"status":{"n":1}}"#,
            r#"{"metadata":{"resourceVersion":"2","labels":{"a":"1"}},"spec":{"replicas":1,"image":"y"},"status":{"n":2}}"#,
            r#"{"metadata":{"resourceVersion":"2","labels":{"a":"1","b":"2"}},"spec":{"replicas":3,"image":"y"},"status":{"n":2}}"#,
            &[],
        );
    }

    #[test]
    fn the_same_path_changed_differently_is_a_conflict_that_keeps_live() {
        let base = r#"{"spec":{"replicas":1,"gone":true,"keep":1}}"#;
        let edited = r#"{"spec":{"replicas":3,"keep":1}}"#;
        let live = r#"{"spec":{"replicas":5,"gone":false,"keep":1}}"#;
        check(base, edited, live, live, &["/spec/replicas", "/spec/gone"]);
        let got = rebase(&json(base), &json(edited), &json(live));
        assert_eq!(
            got.conflicts[0],
            RebaseConflict {
                path: "/spec/replicas".into(),
                base: Some(Value::Int(1)),
                edited: Some(Value::Int(3)),
                live: Some(Value::Int(5))
            }
        );
        assert_eq!(got.conflicts[1].edited, None);
    }

    #[test]
    fn the_same_change_made_twice_is_not_a_conflict() {
        check(r#"{"a":1,"b":2}"#, r#"{"a":2}"#, r#"{"a":2}"#, r#"{"a":2}"#, &[]);
    }

    #[test]
    fn an_update_carries_the_resource_version_the_edit_started_from() {
        let resource = crate::testdata::resource_type("apps", "v1", "deployments", Scope::Namespaced);
        let object = Collection::new(&resource, Some("ns")).and_then(|c| c.object("web")).expect("object");
        let base = json(r#"{"metadata":{"name":"web","resourceVersion":"41"}}"#);
        let edited = json(r#"{"metadata":{"name":"web","resourceVersion":"0"},"spec":{"replicas":2}}"#);
        let params = WriteParams { field_manager: Some("explorer".into()), ..WriteParams::default() };
        let request = RequestBuilder::update_edit(&object, &base, &edited, &params).expect("request").build();
        assert_eq!(request.method.as_str(), "PUT");
        assert_eq!(request.path_and_query(), "/apis/apps/v1/namespaces/ns/deployments/web?fieldManager=explorer");
        assert_eq!(
            request.body.as_deref(),
            Some(&b"{\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"41\"},\"spec\":{\"replicas\":2}}\n"[..])
        );
        assert_eq!(
            RequestBuilder::update_edit(&object, &json("{}"), &edited, &params),
            Err(UpdateError::NoResourceVersion)
        );
        assert_eq!(update_body(&json("[]"), "1"), Err(UpdateError::NotAnObject(ValueKind::Array)));
        assert_eq!(
            update_body(&json("{}"), "7").map(|b| b.to_json()),
            Ok(r#"{"metadata":{"resourceVersion":"7"}}"#.to_string())
        );
    }
}
