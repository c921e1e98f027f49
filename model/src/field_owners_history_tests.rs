use super::*;
use kube_wire::discovery::Scope;

fn value(json: serde_json::Value) -> Value {
    Value::from_serde_json(&json)
}

fn entry(manager: &str, operation: &str, time: &str, fields: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"manager": manager, "operation": operation, "apiVersion": "v1", "time": time,
        "fieldsType": "FieldsV1", "fieldsV1": fields})
}

/// A ConfigMap as a kube-apiserver keeps it: created by `kubectl create`, its colour then
/// patched by `e2e-colourist` (an Update takes the field from the creator's entry), then a size
/// applied by `e2e-sizer` (Apply) and a label added by the colourist again.
fn versions() -> Vec<Value> {
    let meta = |rv: &str, labels: serde_json::Value, managed: serde_json::Value| {
        let mut meta = serde_json::json!({"name": "paint", "namespace": "demo", "uid": "u-1",
            "resourceVersion": rv, "managedFields": managed});
        if labels != serde_json::json!({}) {
            meta["labels"] = labels;
        }
        meta
    };
    let created = entry(
        "kubectl-create",
        "Update",
        "2026-11-28T12:00:00Z",
        serde_json::json!({"f:data": {".": {}, "f:colour": {}, "f:shape": {}}}),
    );
    let creator_after = entry(
        "kubectl-create",
        "Update",
        "2026-11-28T12:00:00Z",
        serde_json::json!({"f:data": {".": {}, "f:shape": {}}}),
    );
    let colourist = |time: &str, fields: serde_json::Value| entry("e2e-colourist", "Update", time, fields);
    let sizer = entry("e2e-sizer", "Apply", "2026-11-28T12:02:00Z", serde_json::json!({"f:data": {"f:size": {}}}));
    let v1 = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": meta("100", serde_json::json!({}), serde_json::json!([created])),
        "data": {"colour": "red", "shape": "round"}});
    let v2 = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": meta("101", serde_json::json!({}), serde_json::json!([creator_after,
            colourist("2026-11-28T12:01:00Z", serde_json::json!({"f:data": {"f:colour": {}}}))])),
        "data": {"colour": "blue", "shape": "round"}});
    let v3 = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": meta("102", serde_json::json!({}), serde_json::json!([creator_after,
            colourist("2026-11-28T12:01:00Z", serde_json::json!({"f:data": {"f:colour": {}}})), sizer])),
        "data": {"colour": "blue", "shape": "round", "size": "3"}});
    let v4 = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": meta("103", serde_json::json!({"tier": "gold"}), serde_json::json!([creator_after,
            colourist("2026-11-28T12:03:00Z", serde_json::json!({"f:data": {"f:colour": {}},
                "f:metadata": {"f:labels": {".": {}, "f:tier": {}}}})), sizer])),
        "data": {"colour": "green", "shape": "round", "size": "3"}});
    // The first version arrives twice: read by the screen, then listed by its watch.
    [v1.clone(), v1, v2, v3, v4].into_iter().map(value).collect()
}

fn transcript(versions: &[Value]) -> Vec<String> {
    let refs: Vec<&Value> = versions.iter().collect();
    let mut lines = Vec::new();
    for change in changes(&refs).unwrap() {
        lines.push(format!("rv {}", change.resource_version));
        for m in &change.moved {
            lines.push(format!("  moved {} {} {} +{:?} -{:?}", m.manager, m.operation, m.time, m.gained, m.lost));
        }
        for f in &change.fields {
            lines.push(format!(
                "  {:?} {} {} -> {} by {}",
                f.kind,
                f.path,
                f.before.as_deref().unwrap_or("-"),
                f.after.as_deref().unwrap_or("-"),
                f.manager.as_deref().unwrap_or("nobody")
            ));
        }
    }
    lines
}

#[test]
fn each_version_names_the_manager_that_moved_and_the_fields_it_changed() {
    assert_eq!(
        transcript(&versions()),
        [
            "rv 103",
            r#"  moved e2e-colourist Update 2026-11-28T12:03:00Z +[".metadata.labels", ".metadata.labels.tier"] -[]"#,
            r#"  Changed .data.colour "blue" -> "green" by e2e-colourist"#,
            r#"  Added .metadata.labels - -> {"tier":"gold"} by e2e-colourist"#,
            "rv 102",
            r#"  moved e2e-sizer Apply 2026-11-28T12:02:00Z +[".data.size"] -[]"#,
            r#"  Added .data.size - -> "3" by e2e-sizer"#,
            "rv 101",
            r#"  moved e2e-colourist Update 2026-11-28T12:01:00Z +[".data.colour"] -[]"#,
            r#"  moved kubectl-create Update 2026-11-28T12:00:00Z +[] -[".data.colour"]"#,
            r#"  Changed .data.colour "red" -> "blue" by e2e-colourist"#,
        ]
    );
}

#[test]
fn a_removed_field_names_its_owner_before_and_an_unowned_one_nobody() {
    let mut seen = versions();
    let last = seen.last().unwrap().to_serde_json();
    let mut next = last.clone();
    next["metadata"]["resourceVersion"] = "104".into();
    next["data"].as_object_mut().unwrap().remove("shape");
    next["data"]["note"] = "by hand".into();
    seen.push(value(next));
    let lines = transcript(&seen);
    assert_eq!(
        &lines[..3],
        [
            "rv 104",
            r#"  Added .data.note - -> "by hand" by kubectl-create"#,
            r#"  Removed .data.shape "round" -> - by kubectl-create"#,
        ],
        "data.note is below kubectl-create's `.data` node; shape was its own field"
    );
    let mut unowned = last.clone();
    unowned["metadata"]["resourceVersion"] = "105".into();
    unowned["metadata"]["annotations"] = serde_json::json!({"note": "x"});
    // The applier gives the size up (applies without it): the field goes with its owner, whose
    // entry is gone from the new version, and the change names the owner it had.
    let mut given_up = last.clone();
    given_up["metadata"]["resourceVersion"] = "106".into();
    given_up["data"].as_object_mut().unwrap().remove("size");
    given_up["metadata"]["managedFields"].as_array_mut().unwrap().retain(|e| e["manager"] != "e2e-sizer");
    assert_eq!(
        transcript(&[value(last), value(given_up)]),
        [
            "rv 106",
            r#"  moved e2e-sizer Apply 2026-11-28T12:02:00Z +[] -[".data.size"]"#,
            r#"  Removed .data.size "3" -> - by e2e-sizer"#,
        ]
    );
    let before = seen[seen.len() - 2].clone();
    assert_eq!(
        transcript(&[before, value(unowned)]),
        ["rv 105", r#"  Added .metadata.annotations - -> {"note":"x"} by nobody"#]
    );
}

#[test]
fn a_fields_history_lists_the_versions_where_its_value_or_owner_changed() {
    let seen = versions();
    let refs: Vec<&Value> = seen.iter().collect();
    let lines = |path: &str| -> Vec<String> {
        field_history(&refs, path)
            .unwrap()
            .iter()
            .map(|s| {
                let owners: Vec<String> = s.owners.iter().map(|o| format!("{} {}", o.manager, o.operation)).collect();
                format!("rv {} {} {:?}", s.resource_version, s.value.as_deref().unwrap_or("-"), owners)
            })
            .collect()
    };
    assert_eq!(
        lines(".data.colour"),
        [
            r#"rv 100 "red" ["kubectl-create Update"]"#,
            r#"rv 101 "blue" ["e2e-colourist Update"]"#,
            r#"rv 103 "green" ["e2e-colourist Update"]"#,
        ]
    );
    assert_eq!(lines(".data.size"), [r#"rv 100 - []"#, r#"rv 102 "3" ["e2e-sizer Apply"]"#]);
    // The sizer applies the colour too, with the value it has: the two share it, the value stays.
    let mut shared = seen.last().unwrap().to_serde_json();
    shared["metadata"]["resourceVersion"] = "104".into();
    shared["metadata"]["managedFields"][2]["fieldsV1"] = serde_json::json!({"f:data": {"f:size": {}, "f:colour": {}}});
    let seen: Vec<Value> = seen.iter().cloned().chain([value(shared)]).collect();
    let refs: Vec<&Value> = seen.iter().collect();
    let steps: Vec<String> = field_history(&refs, ".data.colour")
        .unwrap()
        .iter()
        .map(|s| format!("rv {} {:?}", s.resource_version, s.owners.iter().map(|o| &o.manager).collect::<Vec<_>>()))
        .collect();
    assert_eq!(steps.last().map(String::as_str), Some(r#"rv 104 ["e2e-colourist", "e2e-sizer"]"#));
    assert_eq!(lines(".data.shape"), [r#"rv 100 "round" ["kubectl-create Update"]"#]);
}

#[test]
fn bad_managed_fields_in_any_version_say_where() {
    let mut seen = versions();
    seen.push(value(serde_json::json!({"metadata": {"resourceVersion": "200", "managedFields": [
        {"manager": "m", "fieldsV1": {"f:data": {"x:odd": {}}}}]}})));
    let refs: Vec<&Value> = seen.iter().collect();
    let expect = FieldsError::UnknownKey { at: "metadata.managedFields[0].fieldsV1 .data".into(), key: "x:odd".into() };
    assert_eq!(changes(&refs), Err(expect.clone()));
    assert_eq!(field_history(&refs, ".data.colour"), Err(expect));
}

#[test]
fn one_object_is_watched_by_its_name_where_discovery_allows_it() {
    let mut resource = ResourceType {
        group: String::new(),
        version: "v1".into(),
        plural: "configmaps".into(),
        singular: "configmap".into(),
        kind: "ConfigMap".into(),
        scope: Scope::Namespaced,
        verbs: vec!["get".into(), "list".into(), "watch".into()],
        short_names: vec!["cm".into()],
        categories: vec![],
        subresources: vec![],
    };
    let config = watch_plan(&resource, Some("demo"), "paint").unwrap();
    assert_eq!(config.field_selector.as_deref(), Some("metadata.name=paint"));
    assert_eq!(config.collection.path(), "/api/v1/namespaces/demo/configmaps");
    resource.verbs = vec!["get".into(), "list".into()];
    assert_eq!(
        watch_plan(&resource, Some("demo"), "paint"),
        Err(OwnersError::NotWatchable { plural: "configmaps".into() })
    );
}

#[test]
fn a_screen_knows_when_its_object_changed_or_went_after_it_read_it() {
    let all = versions();
    let refs: Vec<&Value> = all.iter().collect();
    let (v1, v3) = (&all[0], &all[3]);
    // Only the version read (twice: read, then listed by the watch): current.
    assert_eq!(freshness(v1, &refs[..2], false), Freshness::Current);
    // Nothing seen yet, or a version without a resourceVersion: nothing to say.
    assert_eq!(freshness(v1, &[], false), Freshness::Current);
    assert_eq!(freshness(&value(serde_json::json!({"kind": "ConfigMap"})), &refs, false), Freshness::Current);
    // Read at 100, the watch saw 101..103: changed, by the managers whose entries moved since,
    // the newest first, each once (the colourist moved at 101 and again at 103).
    assert_eq!(
        freshness(v1, &refs, false),
        Freshness::Changed {
            shown: "100".into(),
            newest: "103".into(),
            by: vec!["e2e-colourist".into(), "e2e-sizer".into()]
        }
    );
    // Read at 102: only the change to 103 counts.
    assert_eq!(
        freshness(v3, &refs, false),
        Freshness::Changed { shown: "102".into(), newest: "103".into(), by: vec!["e2e-colourist".into()] }
    );
    // Shown at the newest: current. Deleted since: deleted, whatever the versions.
    assert_eq!(freshness(&all[4], &refs, false), Freshness::Current);
    assert_eq!(freshness(v1, &refs[..2], true), Freshness::Deleted);
}

#[test]
fn an_object_is_gone_when_deleted_or_when_a_completed_sync_does_not_find_it() {
    use kube_wire::reflector::{Change, ObjectKey};
    let key = || ObjectKey::Name { namespace: Some("demo".into()), name: "old-0".into() };
    // Seen deleted, then made again.
    assert!(gone_after(false, &[Change::Delete(key())], false));
    assert!(!gone_after(true, &[Change::Upsert(key())], true));
    // A sync that finds it: not gone; one that does not (the cache is empty at its end): gone,
    // though no delete was seen (the watch's first sync was cut before it read the object, and
    // the next sync met a replaced server).
    assert!(!gone_after(false, &[Change::Upsert(key()), Change::InitialListComplete], true));
    assert!(gone_after(false, &[Change::InitialListComplete], false));
    assert!(!gone_after(true, &[Change::InitialListComplete], true), "a relist that finds it again");
    // A relist that drops it: its delete, then the sync's end, agree.
    assert!(gone_after(false, &[Change::Delete(key()), Change::InitialListComplete], false));
    // The rest says nothing about it.
    assert!(gone_after(true, &[Change::Columns], false));
    assert!(!gone_after(false, &[Change::Columns], false));
}
