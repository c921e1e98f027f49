//! JSON Patch (RFC 6902) and JSON merge patch (RFC 7386) bodies built from an old and a new
//! version of an object, and the `PATCH` requests that carry them (concepts page: "Updates to
//! existing resources", `#patch-and-apply`, and "HTTP PATCH using JSON Patch",
//! `#update-mechanism-json-patch`).
//!
//! The operations come from `json_patch::diff` and are applied with `json_patch::patch`; a merge
//! patch is read off the same diff and applied with `json_patch::merge`. Ours is only the editable
//! operation model ([`PatchOp`]) and the optional `test` operations that turn a lost update into a
//! 422 from the server.
//!
//! Invariants: applying [`json_patch_ops`] to the old object gives the new one, and so does
//! merging [`merge_patch`] into it (except where the new object holds an explicit `null`, which a
//! merge patch cannot express); every `test` operation sits right before the operation it guards
//! and holds the value the old object has at that point of the sequence.

use crate::build::RequestBuilder;
use crate::codec::value::{Map, Value, ValueKind};
use crate::media_type::{MediaType, PatchType};
use crate::params::WriteParams;
use crate::request::{ObjectRef, RequestError};
use crate::write::diff::pointer_segments;

/// One RFC 6902 operation, editable by a user before it is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum PatchOp {
    Add {
        path: String,
        value: Value,
    },
    Remove {
        path: String,
    },
    Replace {
        path: String,
        value: Value,
    },
    Move {
        from: String,
        path: String,
    },
    Copy {
        from: String,
        path: String,
    },
    /// Fails the whole patch (the server answers 422) unless the value at `path` equals `value`.
    Test {
        path: String,
        value: Value,
    },
}

impl PatchOp {
    /// The operation's name as RFC 6902 writes it (`"add"`, `"test"`, ...).
    pub fn op_name(&self) -> &'static str {
        match self {
            PatchOp::Add { .. } => "add",
            PatchOp::Remove { .. } => "remove",
            PatchOp::Replace { .. } => "replace",
            PatchOp::Move { .. } => "move",
            PatchOp::Copy { .. } => "copy",
            PatchOp::Test { .. } => "test",
        }
    }

    /// The JSON pointer the operation changes (or tests).
    pub fn path(&self) -> &str {
        match self {
            PatchOp::Add { path, .. }
            | PatchOp::Remove { path }
            | PatchOp::Replace { path, .. }
            | PatchOp::Move { path, .. }
            | PatchOp::Copy { path, .. }
            | PatchOp::Test { path, .. } => path,
        }
    }

    /// The operation as a JSON object, members in RFC 6902's order (`op`, `from`, `path`,
    /// `value`).
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("op", Value::String(self.op_name().into()));
        match self {
            PatchOp::Move { from, .. } | PatchOp::Copy { from, .. } => {
                map.insert("from", Value::String(from.clone()));
            }
            _ => {}
        }
        map.insert("path", Value::String(self.path().into()));
        match self {
            PatchOp::Add { value, .. } | PatchOp::Replace { value, .. } | PatchOp::Test { value, .. } => {
                map.insert("value", value.clone());
            }
            _ => {}
        }
        Value::Object(map)
    }

    /// Reads one operation; the pointer syntax is checked by `json_patch`.
    pub fn from_value(value: &Value) -> Result<PatchOp, PatchError> {
        let operation: json_patch::PatchOperation = serde_json::from_value(value.to_serde_json())
            .map_err(|e| PatchError::BadOperation(value.to_json(), e.to_string()))?;
        Ok(PatchOp::from_operation(&operation))
    }

    fn from_operation(operation: &json_patch::PatchOperation) -> PatchOp {
        use json_patch::PatchOperation as O;
        match operation {
            O::Add(op) => PatchOp::Add { path: op.path.to_string(), value: Value::from_serde_json(&op.value) },
            O::Remove(op) => PatchOp::Remove { path: op.path.to_string() },
            O::Replace(op) => PatchOp::Replace { path: op.path.to_string(), value: Value::from_serde_json(&op.value) },
            O::Move(op) => PatchOp::Move { from: op.from.to_string(), path: op.path.to_string() },
            O::Copy(op) => PatchOp::Copy { from: op.from.to_string(), path: op.path.to_string() },
            O::Test(op) => PatchOp::Test { path: op.path.to_string(), value: Value::from_serde_json(&op.value) },
        }
    }
}

/// A patch that cannot be read or applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The operation as written, and json-patch's words about it.
    #[error("expected a JSON patch operation, found {0}: {1}")]
    BadOperation(String, String),
    #[error("expected a JSON patch (an array of operations), found {0}")]
    NotAnArray(ValueKind),
    #[error("operation {index} ({op} {path}) failed: {reason}")]
    Failed { index: usize, op: &'static str, path: String, reason: String },
}

/// A JSON patch (the array of operations) as a JSON value.
pub fn ops_to_value(ops: &[PatchOp]) -> Value {
    Value::Array(ops.iter().map(PatchOp::to_value).collect())
}

/// Reads a JSON patch document.
pub fn ops_from_value(value: &Value) -> Result<Vec<PatchOp>, PatchError> {
    match value {
        Value::Array(items) => items.iter().map(PatchOp::from_value).collect(),
        other => Err(PatchError::NotAnArray(other.kind())),
    }
}

/// Which `test` operations guard a JSON patch against concurrent changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TestGuards {
    /// Start with a test of `/metadata/resourceVersion` (when the old object has one): the patch
    /// fails if anything at all changed since the old object was read.
    pub resource_version: bool,
    /// Test the old value before every `replace` and `remove`: the patch fails only if a field it
    /// changes was changed by someone else.
    pub old_values: bool,
}

/// The JSON patch that turns `old` into `new`, with the `test` operations `guards` ask for.
pub fn json_patch_ops(old: &Value, new: &Value, guards: TestGuards) -> Vec<PatchOp> {
    let mut scratch = old.to_serde_json();
    let patch = json_patch::diff(&scratch, &new.to_serde_json());
    let mut ops = Vec::new();
    if guards.resource_version {
        if let Some(rv) = old.at(&["metadata", "resourceVersion"]) {
            ops.push(PatchOp::Test { path: "/metadata/resourceVersion".into(), value: rv.clone() });
        }
    }
    for operation in patch.iter() {
        let guarded =
            matches!(operation, json_patch::PatchOperation::Replace(_) | json_patch::PatchOperation::Remove(_));
        if guards.old_values && guarded {
            let path = operation.path().to_string();
            if let Some(current) = scratch.pointer(&path) {
                ops.push(PatchOp::Test { path, value: Value::from_serde_json(current) });
            }
        }
        ops.push(PatchOp::from_operation(operation));
        // The diff was made against `scratch`'s starting point, so each operation applies.
        let _ = json_patch::patch(&mut scratch, std::slice::from_ref(operation));
    }
    ops
}

/// Applies a JSON patch to `document` as the server would: all operations or none.
pub fn apply_json_patch(document: &Value, ops: &[PatchOp]) -> Result<Value, PatchError> {
    let mut target = document.to_serde_json();
    for (index, op) in ops.iter().enumerate() {
        let operation: json_patch::PatchOperation = serde_json::from_value(op.to_value().to_serde_json())
            .map_err(|e| PatchError::BadOperation(op.to_value().to_json(), e.to_string()))?;
        json_patch::patch(&mut target, std::slice::from_ref(&operation)).map_err(|e| PatchError::Failed {
            index,
            op: op.op_name(),
            path: op.path().to_string(),
            reason: e.kind.to_string(),
        })?;
    }
    Ok(Value::from_serde_json(&target))
}

/// The JSON merge patch that turns `old` into `new`, read off the structural diff: a changed
/// object member carries its new value, a removed one `null`, and an array that changed in any
/// way is sent whole (RFC 7386 replaces arrays wholesale).
pub fn merge_patch(old: &Value, new: &Value) -> Value {
    let (old_json, new_json) = (old.to_serde_json(), new.to_serde_json());
    let mut patch = Map::new();
    if !matches!((old, new), (Value::Object(_), Value::Object(_))) {
        return new.clone();
    }
    for operation in json_patch::diff(&old_json, &new_json).iter() {
        let segments = pointer_segments(operation.path().as_str());
        // Stop at the first array: the patch carries it whole.
        let mut end = segments.len();
        let mut at = &new_json;
        let mut old_at = &old_json;
        for (i, segment) in segments.iter().enumerate() {
            if at.is_array() || old_at.is_array() {
                end = i;
                break;
            }
            at = at.get(segment).unwrap_or(&serde_json::Value::Null);
            old_at = old_at.get(segment).unwrap_or(&serde_json::Value::Null);
        }
        let path = &segments[..end];
        let value = new_json
            .pointer(&crate::write::diff::pointer_from_segments(path))
            .map_or(Value::Null, Value::from_serde_json);
        set_member(&mut patch, path, value);
    }
    Value::Object(patch)
}

/// Sets `path` in a merge patch, creating the objects on the way.
fn set_member(patch: &mut Map, path: &[String], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        patch.insert(first.clone(), value);
        return;
    }
    let mut child = match patch.remove(first) {
        Some(Value::Object(child)) => child,
        _ => Map::new(),
    };
    set_member(&mut child, rest, value);
    patch.insert(first.clone(), Value::Object(child));
}

/// Merges a JSON merge patch into `document` (RFC 7386, as `json_patch::merge` implements it).
pub fn apply_merge_patch(document: &Value, patch: &Value) -> Value {
    let mut target = document.to_serde_json();
    json_patch::merge(&mut target, &patch.to_serde_json());
    Value::from_serde_json(&target)
}

/// A ready patch body: its type decides the `Content-Type`.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchBody {
    pub patch_type: PatchType,
    pub body: Value,
}

impl PatchBody {
    /// A JSON patch body.
    pub fn json_patch(ops: &[PatchOp]) -> PatchBody {
        PatchBody { patch_type: PatchType::Json, body: ops_to_value(ops) }
    }

    /// A JSON merge patch body.
    pub fn merge(patch: Value) -> PatchBody {
        PatchBody { patch_type: PatchType::Merge, body: patch }
    }

    /// The `Content-Type` header value.
    pub fn content_type(&self) -> MediaType {
        self.patch_type.media_type()
    }

    /// The exact bytes sent (compact Kubernetes JSON, no trailing newline).
    pub fn bytes(&self) -> Vec<u8> {
        self.body.to_json().into_bytes()
    }
}

impl RequestBuilder {
    /// The `PATCH` of `object` with `body`, and `fieldManager`, `dryRun` and `fieldValidation` from
    /// `params` (`force` belongs to apply only: see [`crate::write::apply`]).
    pub fn patch_body(
        object: &ObjectRef,
        body: &PatchBody,
        params: &WriteParams,
    ) -> Result<RequestBuilder, RequestError> {
        RequestBuilder::patch(object, body.patch_type, &body.body, params)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codec::json::decode_json;
    use crate::discovery::Scope;
    use crate::params::{DryRun, FieldValidation};
    use crate::request::Collection;
    use crate::testdata::shared_file;

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("test JSON")
    }

    /// A real pod, and the same pod after the edits a user typically makes.
    pub(crate) fn pod_and_edit() -> (Value, Value) {
        let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
        let mut edited = pod.to_serde_json();
        edited["metadata"]["labels"]["tier"] = serde_json::json!("web");
        edited["metadata"]["annotations"] = serde_json::json!({"note": "a/b~c"});
        edited["spec"]["containers"][0]["image"] = serde_json::json!("nginx:1.27");
        if let Some(obj) = edited["spec"].as_object_mut() {
            obj.remove("restartPolicy");
        }
        (pod, Value::from_serde_json(&edited))
    }

    #[track_caller]
    fn check_round_trip(old: &Value, new: &Value, guards: TestGuards) {
        let ops = json_patch_ops(old, new, guards);
        let back = ops_from_value(&ops_to_value(&ops)).expect("round trip");
        assert_eq!(back, ops);
        let applied = apply_json_patch(old, &ops).expect("applies to the old object");
        assert!(applied.equivalent(new), "{}", ops_to_value(&ops));
        let merged = apply_merge_patch(old, &merge_patch(old, new));
        assert!(merged.equivalent(new), "{}", merge_patch(old, new));
    }

    #[test]
    fn every_built_patch_turns_the_old_object_into_the_new_one() {
        let (pod, edited) = pod_and_edit();
        for guards in [
            TestGuards::default(),
            TestGuards { resource_version: true, old_values: true },
            TestGuards { resource_version: false, old_values: true },
        ] {
            check_round_trip(&pod, &edited, guards);
            check_round_trip(&edited, &pod, guards);
        }
        check_round_trip(
            &json(r#"{"a":[1,2,3],"b":{"c":1}}"#),
            &json(r#"{"a":[3],"b":{}}"#),
            TestGuards { resource_version: false, old_values: true },
        );
    }

    #[test]
    fn test_operations_guard_the_resource_version_and_each_old_value() {
        let old = json(r#"{"metadata":{"resourceVersion":"7"},"spec":{"size":"large","gone":1}}"#);
        let new = json(r#"{"metadata":{"resourceVersion":"7"},"spec":{"size":"medium"}}"#);
        let ops = json_patch_ops(&old, &new, TestGuards { resource_version: true, old_values: true });
        assert_eq!(
            ops_to_value(&ops).to_json(),
            r#"[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"test","path":"/spec/size","value":"large"},{"op":"replace","path":"/spec/size","value":"medium"},{"op":"test","path":"/spec/gone","value":1},{"op":"remove","path":"/spec/gone"}]"#
        );
    }

    #[test]
    fn a_test_operation_fails_on_a_concurrent_change() {
        let old = json(r#"{"metadata":{"resourceVersion":"7"},"spec":{"size":"large","color":"red"}}"#);
        let new = json(r#"{"metadata":{"resourceVersion":"7"},"spec":{"size":"medium","color":"red"}}"#);
        let concurrent = json(r#"{"metadata":{"resourceVersion":"8"},"spec":{"size":"small","color":"red"}}"#);
        let unrelated = json(r#"{"metadata":{"resourceVersion":"8"},"spec":{"size":"large","color":"blue"}}"#);
        let values = json_patch_ops(&old, &new, TestGuards { resource_version: false, old_values: true });
        let error = apply_json_patch(&concurrent, &values).expect_err("size changed meanwhile");
        assert_eq!(error.to_string(), "operation 0 (test /spec/size) failed: value did not match");
        let applied = apply_json_patch(&unrelated, &values).expect("an unrelated change does not conflict");
        assert_eq!(applied.at(&["spec", "color"]), Some(&Value::String("blue".into())));
        let version = json_patch_ops(&old, &new, TestGuards { resource_version: true, old_values: false });
        assert!(apply_json_patch(&unrelated, &version).is_err(), "any change moves the resource version");
    }

    #[test]
    fn without_the_old_values_guard_a_replace_or_remove_carries_no_test() {
        let old = json(r#"{"metadata":{"resourceVersion":"7"},"spec":{"size":"large","gone":1}}"#);
        let new = json(r#"{"metadata":{"resourceVersion":"7"},"spec":{"size":"medium"}}"#);
        let ops = json_patch_ops(&old, &new, TestGuards { resource_version: true, old_values: false });
        assert_eq!(
            ops_to_value(&ops).to_json(),
            r#"[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"replace","path":"/spec/size","value":"medium"},{"op":"remove","path":"/spec/gone"}]"#
        );
        let bare = json_patch_ops(&old, &new, TestGuards::default());
        assert!(bare.iter().all(|op| op.op_name() != "test"), "{}", ops_to_value(&bare));
    }

    #[test]
    fn the_recorded_test_operation_reads_into_the_model() {
        let ops = ops_from_value(&json(r#"[{"op": "test", "path": "/spec/size", "value": "large"}, {"op": "replace", "path": "/spec/size", "value": "medium"}, {"op":"move","from":"/a","path":"/b"}, {"op":"copy","from":"/a","path":"/c"}, {"op":"add","path":"/d","value":1}]"#)).expect("ops");
        assert_eq!(ops[0], PatchOp::Test { path: "/spec/size".into(), value: Value::String("large".into()) });
        assert_eq!(ops[2], PatchOp::Move { from: "/a".into(), path: "/b".into() });
        assert_eq!(
            ops_to_value(&ops).to_json(),
            r#"[{"op":"test","path":"/spec/size","value":"large"},{"op":"replace","path":"/spec/size","value":"medium"},{"op":"move","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"},{"op":"add","path":"/d","value":1}]"#
        );
        assert!(matches!(ops_from_value(&json(r#"{"op":"add"}"#)), Err(PatchError::NotAnArray(ValueKind::Object))));
        assert!(matches!(ops_from_value(&json(r#"[{"op":"jump","path":"/a"}]"#)), Err(PatchError::BadOperation(..))));
    }

    #[test]
    fn a_merge_patch_nulls_removed_members_and_sends_changed_arrays_whole() {
        let old =
            json(r#"{"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"ports":[{"port":80},{"port":81}],"keep":1}}"#);
        let new =
            json(r#"{"metadata":{"labels":{"a":"1","c":"3"}},"spec":{"ports":[{"port":80},{"port":82}],"keep":1}}"#);
        let patch = merge_patch(&old, &new);
        assert!(
            patch.equivalent(&json(
                r#"{"metadata":{"labels":{"b":null,"c":"3"}},"spec":{"ports":[{"port":80},{"port":82}]}}"#
            )),
            "{patch}"
        );
        assert_eq!(merge_patch(&old, &old), json("{}"));
    }

    /// The exchanges of a k8s-openapi recording: (method, content type, request body, response).
    fn exchanges(name: &str) -> Vec<(String, String, String, Value)> {
        let recording =
            decode_json(&shared_file(&format!("kube/recordings/k8s-openapi-v1-34/{name}"))).expect("recording");
        let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        recording
            .as_array()
            .unwrap_or_default()
            .iter()
            .map(|e| {
                let response = decode_json(text(e, "response_body").as_bytes()).unwrap_or(Value::Null);
                (text(e, "request_method"), text(e, "request_content_type"), text(e, "request_body"), response)
            })
            .collect()
    }

    #[test]
    fn the_recorded_json_and_merge_patches_give_the_recorded_deployment_spec() {
        let exchanges = exchanges("patch-deployment.json");
        let mut checked = 0;
        for pair in exchanges.windows(2) {
            let ((_, _, _, before), (method, content_type, body, after)) = (&pair[0], &pair[1]);
            let body = decode_json(body.as_bytes()).unwrap_or(Value::Null);
            let patched = match content_type.as_str() {
                "application/json-patch+json" => {
                    apply_json_patch(before, &ops_from_value(&body).expect("ops")).expect("applies")
                }
                "application/merge-patch+json" => apply_merge_patch(before, &body),
                _ => continue,
            };
            assert_eq!(method, "PATCH");
            let image = |v: &Value| {
                v.at(&["spec", "template", "spec", "containers"])
                    .and_then(Value::as_array)
                    .and_then(|c| c.first())
                    .and_then(|c| c.get("image"))
                    .cloned()
            };
            assert_eq!(image(&patched), image(after), "{content_type}");
            // A merge patch replaces the containers list; the server then defaults the new item.
            if content_type == "application/json-patch+json" {
                assert!(patched.get("spec").is_some_and(|s| after.get("spec").is_some_and(|a| a.equivalent(s))));
            }
            let ours = json_patch_ops(before, after, TestGuards { resource_version: false, old_values: true });
            let replayed = apply_json_patch(before, &ours).expect("our patch applies");
            assert!(replayed.equivalent(after));
            checked += 1;
        }
        assert_eq!(checked, 2);
    }

    #[test]
    fn the_merge_patches_kubectl_edit_sent_for_custom_resources_are_the_ones_we_compute() {
        let buffer = |file: &str| {
            crate::codec::yaml::decode_yaml(&shared_file(&format!(
                "kube/recordings/kubectl-edit/testcase-schemaless-list/{file}"
            )))
            .expect("edit buffer")
        };
        let (old, new) = (buffer("3.original"), buffer("3.edited"));
        let items =
            |list: &Value| list.get("items").and_then(Value::as_array).map(<[Value]>::to_vec).unwrap_or_default();
        for (index, request) in [(1, "5.request"), (2, "6.request")] {
            let (old, new) = (&items(&old)[index], &items(&new)[index]);
            let recorded =
                decode_json(&shared_file(&format!("kube/recordings/kubectl-edit/testcase-schemaless-list/{request}")))
                    .expect("request");
            assert!(merge_patch(old, new).equivalent(&recorded), "{request}: {}", merge_patch(old, new));
            assert!(apply_merge_patch(old, &recorded).equivalent(new));
        }
    }

    fn pods() -> Collection {
        let resource = crate::testdata::resource_type("", "v1", "pods", Scope::Namespaced);
        Collection::new(&resource, Some("default")).expect("collection")
    }

    #[test]
    fn a_patch_body_becomes_a_patch_request_with_its_content_type_and_params() {
        let object = pods().object("web").expect("object");
        let body = PatchBody::json_patch(&[PatchOp::Remove { path: "/spec/x".into() }]);
        assert_eq!(body.content_type().to_string(), "application/json-patch+json");
        let params = WriteParams {
            dry_run: Some(DryRun::All),
            field_validation: Some(FieldValidation::Strict),
            field_manager: Some("explorer".into()),
        };
        let request = RequestBuilder::patch_body(&object, &body, &params).expect("request").build();
        assert_eq!(
            request.path_and_query(),
            "/api/v1/namespaces/default/pods/web?dryRun=All&fieldValidation=Strict&fieldManager=explorer"
        );
        assert_eq!(request.header_value("content-type"), Some("application/json-patch+json"));
        assert_eq!(request.body.as_deref(), Some(body.bytes().as_slice()));
        let merge = PatchBody::merge(json(r#"{"a":null}"#));
        assert_eq!(merge.content_type().to_string(), "application/merge-patch+json");
        assert_eq!(merge.bytes(), br#"{"a":null}"#);
    }
}
