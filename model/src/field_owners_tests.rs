use super::*;
use kube_wire::codec::json::decode_json;
use kube_wire::testdata::real_apiserver_body;

fn value(json: serde_json::Value) -> Value {
    Value::from_serde_json(&json)
}

/// A real kube-apiserver's Widget after a scale, an update and a status update, all by curl.
fn widget() -> Value {
    decode_json(&real_apiserver_body("124-main-resource-update-ignores-status.txt")).unwrap()
}

fn owned_lines(document: &Value) -> Vec<String> {
    owned_fields(&entries(document).unwrap())
        .iter()
        .map(|f| format!("{} {} {} [{}] {}", f.path, f.manager, f.operation, f.subresource, f.time))
        .collect()
}

#[test]
fn a_real_servers_managed_fields_as_owned_paths() {
    assert_eq!(
        owned_lines(&widget()),
        [
            ".metadata.labels curl Update [] 2026-11-22T02:35:52Z",
            ".metadata.labels.app curl Update [] 2026-11-22T02:35:52Z",
            ".metadata.labels.patched curl Update [] 2026-11-22T02:35:52Z",
            ".spec curl Update [] 2026-11-22T02:35:52Z",
            ".spec.color curl Update [] 2026-11-22T02:35:52Z",
            ".spec.ports curl Update [] 2026-11-22T02:35:52Z",
            r#".spec.ports[name="http"] curl Update [] 2026-11-22T02:35:52Z"#,
            r#".spec.ports[name="http"].name curl Update [] 2026-11-22T02:35:52Z"#,
            r#".spec.ports[name="http"].port curl Update [] 2026-11-22T02:35:52Z"#,
            ".spec.replicas curl Update [scale] ",
            ".spec.size curl Update [] 2026-11-22T02:35:52Z",
            ".spec.tags curl Update [] 2026-11-22T02:35:52Z",
            r#".spec.tags[="a"] curl Update [] 2026-11-22T02:35:52Z"#,
            r#".spec.tags[="b"] curl Update [] 2026-11-22T02:35:52Z"#,
            ".status curl Update [status] 2026-11-22T02:35:52Z",
            ".status.phase curl Update [status] 2026-11-22T02:35:52Z",
            ".status.replicas curl Update [status] 2026-11-22T02:35:52Z",
        ]
    );
}

#[test]
fn list_items_by_index_and_keys_of_several_fields() {
    let doc = value(serde_json::json!({"metadata": {"managedFields": [{"manager": "m", "operation": "Apply",
        "fieldsV1": {"f:spec": {"f:ports": {"k:{\"port\":80,\"protocol\":\"TCP\"}": {"f:name": {}}},
            "f:args": {"i:0": {}}}}}]}}));
    assert_eq!(
        owned_lines(&doc),
        [".spec.args[0] m Apply [] ", r#".spec.ports[port=80,protocol="TCP"].name m Apply [] "#]
    );
}

#[test]
fn bad_managed_fields_say_where() {
    let check = |fields: serde_json::Value, expect: FieldsError| {
        let doc =
            value(serde_json::json!({"metadata": {"managedFields": [{"manager": "ok", "fieldsV1": {}}, fields]}}));
        assert_eq!(entries(&doc), Err(expect));
    };
    check(
        serde_json::json!({"manager": "m", "fieldsV1": {"f:spec": {"x:odd": {}}}}),
        FieldsError::UnknownKey { at: "metadata.managedFields[1].fieldsV1 .spec".into(), key: "x:odd".into() },
    );
    check(
        serde_json::json!({"manager": "m", "fieldsV1": {"f:spec": {"k:{not json": {}}}}),
        FieldsError::BadKey { at: "metadata.managedFields[1].fieldsV1 .spec".into(), key: "k:{not json".into() },
    );
    check(
        serde_json::json!({"manager": "m", "fieldsV1": {"f:items": {"i:two": {}}}}),
        FieldsError::BadKey { at: "metadata.managedFields[1].fieldsV1 .items".into(), key: "i:two".into() },
    );
    check(
        serde_json::json!({"manager": "m", "fieldsV1": {"f:spec": []}}),
        FieldsError::NotAnObject { at: "metadata.managedFields[1].fieldsV1 .spec".into() },
    );
    check(serde_json::json!("m"), FieldsError::NotAnObject { at: "metadata.managedFields[1]".into() });
    let not_a_list = value(serde_json::json!({"metadata": {"managedFields": {}}}));
    assert_eq!(entries(&not_a_list), Err(FieldsError::NotAnObject { at: "metadata.managedFields".into() }));
    assert_eq!(entries(&value(serde_json::json!({"metadata": {}}))), Ok(vec![]));
}

fn move_lines(before: &Value, after: &Value) -> Vec<String> {
    moves(&entries(before).unwrap(), &entries(after).unwrap())
        .iter()
        .map(|m| format!("{} {} [{}] {} +{:?} -{:?}", m.manager, m.operation, m.subresource, m.time, m.gained, m.lost))
        .collect()
}

#[test]
fn which_manager_moved_between_two_versions() {
    let version = |entries: serde_json::Value| value(serde_json::json!({"metadata": {"managedFields": entries}}));
    let before = version(serde_json::json!([
        {"manager": "kubectl-client-side-apply", "operation": "Update", "time": "t1",
            "fieldsV1": {"f:data": {"f:colour": {}, "f:size": {}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": "t1",
            "fieldsV1": {"f:status": {"f:phase": {}}}}]));
    // A new applier takes data.size from the client-side applier; the status entry is untouched.
    let after = version(serde_json::json!([
        {"manager": "kubectl-client-side-apply", "operation": "Update", "time": "t1",
            "fieldsV1": {"f:data": {"f:colour": {}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": "t1",
            "fieldsV1": {"f:status": {"f:phase": {}}}},
        {"manager": "e2e-sizer", "operation": "Apply", "time": "t2", "fieldsV1": {"f:data": {"f:size": {}}}}]));
    assert_eq!(
        move_lines(&before, &after),
        [
            r#"e2e-sizer Apply [] t2 +[".data.size"] -[]"#,
            r#"kubectl-client-side-apply Update [] t1 +[] -[".data.size"]"#,
        ]
    );
    assert_eq!(move_lines(&after, &after), Vec::<String>::new());
}

#[test]
fn owned_paths_point_into_the_object_and_changes_find_their_owner() {
    let widget = widget();
    let entries = entries(&widget).unwrap();
    let update = &entries[1];
    assert_eq!(update.fields[r#".spec.ports[name="http"].port"#].as_deref(), Some("/spec/ports/0/port"));
    assert_eq!(update.fields[r#".spec.tags[="b"]"#].as_deref(), Some("/spec/tags/1"));
    assert_eq!(update.fields[".metadata.labels.patched"].as_deref(), Some("/metadata/labels/patched"));
    let owner = |pointer: &str| owner_of(&entries, pointer).map(|e| format!("{} {}", e.manager, e.subresource));
    assert_eq!(owner("/spec/ports/0/port").as_deref(), Some("curl "));
    assert_eq!(owner("/spec/replicas").as_deref(), Some("curl scale"));
    assert_eq!(owner("/status/phase").as_deref(), Some("curl status"));
    // Below an owned field: its owner; nowhere owned: none.
    assert_eq!(owner("/spec/ports/0/port/x").as_deref(), Some("curl "));
    assert_eq!(owner("/metadata/annotations/x"), None);
    // A key the object no longer holds has no pointer.
    let gone = value(serde_json::json!({"metadata": {"managedFields": [{"manager": "m",
        "fieldsV1": {"f:spec": {"f:ports": {"k:{\"name\":\"gone\"}": {"f:port": {}}}, "f:tags": {"i:5": {}}}}}]},
        "spec": {"ports": [{"name": "http"}], "tags": []}}));
    let fields = &entries_of(&gone)[0].fields;
    assert_eq!(fields[r#".spec.ports[name="gone"].port"#], None);
    assert_eq!(fields[".spec.tags[5]"], None);
}

fn entries_of(document: &Value) -> Vec<ManagerEntry> {
    entries(document).unwrap()
}
