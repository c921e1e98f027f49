use super::*;
use kube_wire::discovery::Scope;
use kube_wire::testdata::{discovery_of, resource_type};

fn events_type(group: &str, verbs: &[&str]) -> ResourceType {
    let mut resource = resource_type(group, "v1", "events", Scope::Namespaced);
    resource.kind = "Event".into();
    resource.verbs = verbs.iter().map(|v| v.to_string()).collect();
    resource
}

fn value(json: serde_json::Value) -> Value {
    Value::from_serde_json(&json)
}

fn pod() -> Value {
    value(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "demo", "uid": "u-web-1",
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u-n"},
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d", "uid": "u-rs", "controller": true}]}}))
}

/// The plan as a line: the API chosen, the collection and the field selector.
fn plan_line(discovery: &Discovery, regarding: &Regarding) -> String {
    match plan(discovery, regarding) {
        Ok(p) => format!(
            "{:?} {}/{} ns={:?} {}",
            p.api,
            p.config.collection.group,
            p.config.collection.version,
            p.config.collection.namespace,
            p.config.field_selector.unwrap_or_default()
        ),
        Err(e) => format!("error {e:?}"),
    }
}

#[test]
fn discovery_chooses_the_events_api() {
    let web = Regarding::of(&pod()).unwrap();
    let all = &["list", "watch", "get"];
    let both = discovery_of(vec![events_type("", all), events_type("events.k8s.io", all)]);
    assert_eq!(plan_line(&both, &web), r#"EventsV1 events.k8s.io/v1 ns=Some("demo") regarding.uid=u-web-1"#);
    let core_only = discovery_of(vec![events_type("", all)]);
    assert_eq!(plan_line(&core_only, &web), r#"CoreV1 /v1 ns=Some("demo") involvedObject.uid=u-web-1"#);
    // events.k8s.io without watch cannot be live: core v1 is watched instead.
    let unwatched = discovery_of(vec![events_type("", all), events_type("events.k8s.io", &["list"])]);
    assert_eq!(plan_line(&unwatched, &web), r#"CoreV1 /v1 ns=Some("demo") involvedObject.uid=u-web-1"#);
    assert_eq!(plan_line(&discovery_of(vec![]), &web), "error NotServed");
    // A cluster-scoped object's Events are looked for in every namespace.
    let node = Regarding { namespace: None, ..web };
    assert_eq!(plan_line(&both, &node), "EventsV1 events.k8s.io/v1 ns=None regarding.uid=u-web-1");
}

#[test]
fn the_regarded_object_and_its_controller() {
    let web = Regarding::of(&pod()).unwrap();
    assert_eq!((web.kind.as_str(), web.name.as_str(), web.uid.as_str()), ("Pod", "web-1", "u-web-1"));
    let owner = Regarding::controller_of(&pod()).unwrap();
    assert_eq!(
        owner,
        Regarding {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            namespace: Some("demo".into()),
            name: "web-5d".into(),
            uid: "u-rs".into()
        }
    );
    let without_uid = value(serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}}));
    assert_eq!(Regarding::of(&without_uid), Err(EventsError::NoUid));
    assert_eq!(Regarding::controller_of(&without_uid), None);
}

fn row_line(row: &EventRow) -> String {
    format!(
        "{} {:?} {} x{} by {:?} at {}: {}",
        row.name, row.event_type, row.reason, row.count, row.reporter, row.last_seen, row.message
    )
}

#[test]
fn rows_of_both_shapes_latest_first() {
    let events = [
        // core v1, a series counted the old way.
        value(serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "web-1.a", "namespace": "demo", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "type": "Warning", "reason": "BackOff", "message": "Back-off restarting failed container",
            "count": 4, "source": {"component": "kubelet"}, "lastTimestamp": "2026-01-01T00:03:00Z"})),
        // events.k8s.io/v1 with a series.
        value(serde_json::json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "web-1.b", "namespace": "demo"}, "type": "Normal", "reason": "Pulled",
            "note": "Container image pulled", "reportingController": "kubelet",
            "eventTime": "2026-01-01T00:00:01.000000Z",
            "series": {"count": 2, "lastObservedTime": "2026-01-01T00:05:00.000000Z"}})),
        // events.k8s.io/v1 written from a core Event: deprecated fields only.
        value(serde_json::json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "web-1.c", "namespace": "demo"}, "reason": "Scheduled",
            "note": "Successfully assigned demo/web-1 to node-1", "deprecatedSource": {"component": "default-scheduler"},
            "deprecatedCount": 1, "deprecatedLastTimestamp": "2026-01-01T00:00:00Z"})),
        value(serde_json::json!({"kind": "Event", "metadata": {}, "reason": "NoName"})),
        value(serde_json::json!({"metadata": {"name": "odd"}, "type": "Audit", "count": -3})),
    ];
    let lines: Vec<String> = rows(events.iter()).iter().map(row_line).collect();
    assert_eq!(
        lines,
        [
            r#"web-1.b Normal Pulled x2 by "kubelet" at 2026-01-01T00:05:00.000000Z: Container image pulled"#,
            r#"web-1.a Warning BackOff x4 by "kubelet" at 2026-01-01T00:03:00Z: Back-off restarting failed container"#,
            r#"web-1.c Normal Scheduled x1 by "default-scheduler" at 2026-01-01T00:00:00Z: Successfully assigned demo/web-1 to node-1"#,
            r#"odd Other("Audit")  x1 by "" at : "#,
        ]
    );
}

#[test]
fn ages_from_the_last_time() {
    let event = value(serde_json::json!({"metadata": {"name": "e"}, "lastTimestamp": "2026-01-01T00:03:00Z"}));
    let row = EventRow::of(&event).unwrap();
    let at = "2026-01-01T00:05:30Z".parse::<k8s_openapi::jiff::Timestamp>().unwrap().as_millisecond();
    assert_eq!(row.age(at).as_deref(), Some("2m30s"));
    let timeless =
        EventRow::of(&value(serde_json::json!({"metadata": {"name": "e"}, "lastTimestamp": "soon"}))).unwrap();
    assert_eq!(timeless.age(at), None);
}
