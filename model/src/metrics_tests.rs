//! Transcripts: what kube-sim answered to `GET /apis/metrics.k8s.io/v1beta1/namespaces/demo/pods`,
//! `.../nodes`, `/api/v1/namespaces/demo/pods` and `/api/v1/nodes` (its demo dataset, captured
//! 2026-11-28; pods and nodes trimmed to what the shares read), and what `kubectl top` prints
//! for the same figures.

use super::*;
use crate::cells::{Row, SortKey};
use kube_wire::discovery::Scope;
use kube_wire::testdata::{discovery_of, resource_type};

fn json(text: &str) -> Value {
    Value::from_serde_json(&serde_json::from_str(text).expect("fixture is JSON"))
}

const POD_METRICS: &str = include_str!("../testdata/metrics/kube-sim-podmetrics.json");
const NODE_METRICS: &str = include_str!("../testdata/metrics/kube-sim-nodemetrics.json");
const PODS: &str = include_str!("../testdata/metrics/kube-sim-pods.json");
const NODES: &str = include_str!("../testdata/metrics/kube-sim-nodes.json");

fn texts(cells: &[Cell]) -> Vec<&str> {
    cells.iter().map(|c| c.text.as_str()).collect()
}

fn row(namespace: Option<&str>, name: &str) -> Row {
    Row {
        namespace: namespace.map(str::to_owned),
        name: name.into(),
        uid: None,
        resource_version: None,
        cells: vec![Cell { text: name.into(), title: None, sort: SortKey::Text(name.into()) }],
        highlight: false,
    }
}

fn heading(column: MetricColumn) -> Column {
    Column { name: format!("{column:?}"), description: String::new(), priority: 0 }
}

#[test]
fn pod_metrics_merge_into_rows_as_kubectl_top_prints_them() {
    let table = MetricsTable {
        scrape: read_scrape(&json(POD_METRICS), Measured::Pods).unwrap(),
        capacities: read_capacities(&json(PODS), Measured::Pods).unwrap(),
    };
    assert_eq!(table.scrape.window_ms, Some(15_000.0));
    assert_eq!(table.scrape.timestamp.as_deref(), Some("2026-11-28T16:18:30Z"));
    // A single-namespace list's rows carry no namespace: the list's is used. A pod that is not
    // measured (not running) keeps empty cells.
    let grid = Grid {
        columns: vec![Column { name: "Name".into(), description: String::new(), priority: 0 }],
        rows: vec![row(None, "api-5g9cblvg68-jb5bp"), row(Some("demo"), "web-w27h2pl7v2-xjtjr"), row(None, "gone")],
    };
    let merged = table.merge(&grid, Measured::Pods, Some("demo"), heading);
    let names: Vec<_> = merged.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Name", "Cpu", "CpuOfRequest", "CpuOfLimit", "Memory", "MemoryOfRequest", "MemoryOfLimit"]);
    // 37564780n is 38m (MilliValue rounds up), 103084Ki is 100Mi (Value()/2^20 rounds down);
    // of 100m and 128Mi requested: 38 % and 78 % (103084/131072 = 0.786); no limit set.
    assert_eq!(texts(&merged.rows[0].cells), ["api-5g9cblvg68-jb5bp", "38m", "38%", "", "100Mi", "78%", ""]);
    // 33262834n is 34m; 87188Ki is 85Mi, 66 % of 128Mi.
    assert_eq!(texts(&merged.rows[1].cells), ["web-w27h2pl7v2-xjtjr", "34m", "34%", "", "85Mi", "66%", ""]);
    assert_eq!(texts(&merged.rows[2].cells), ["gone", "", "", "", "", "", ""]);
    assert_eq!(merged.rows[0].cells[1].sort, SortKey::Number(38.0));
    assert_eq!(merged.rows[2].cells[1].sort, SortKey::Missing);
}

#[test]
fn node_metrics_are_shares_of_allocatable_as_kubectl_top_node_prints_them() {
    let table = MetricsTable {
        scrape: read_scrape(&json(NODE_METRICS), Measured::Nodes).unwrap(),
        capacities: read_capacities(&json(NODES), Measured::Nodes).unwrap(),
    };
    let grid = Grid { columns: vec![], rows: vec![row(None, "node-1"), row(None, "node-3")] };
    let merged = table.merge(&grid, Measured::Nodes, Some("demo"), heading);
    // 313157749n is 314m, 3 % of 8 cores (3.925 truncated); 1011728Ki is 988Mi, 6 % of 16318548Ki.
    assert_eq!(texts(&merged.rows[0].cells), ["node-1", "314m", "3%", "988Mi", "6%"]);
    // 457840409n is 458m, 5 %; 1172388Ki is 1144Mi, 7 %.
    assert_eq!(texts(&merged.rows[1].cells), ["node-3", "458m", "5%", "1144Mi", "7%"]);
}

#[test]
fn a_pod_sums_its_containers_and_has_a_share_only_when_each_sets_one() {
    let metrics = json(
        r#"{"kind":"PodMetricsList","items":[{"metadata":{"name":"p","namespace":"n"},
        "timestamp":"2026-11-28T10:00:00Z","window":"20.042s",
        "containers":[{"name":"a","usage":{"cpu":"150m","memory":"64Mi"}},
                      {"name":"b","usage":{"cpu":"50m","memory":"32Mi"}}]}]}"#,
    );
    let pods = json(
        r#"{"kind":"PodList","items":[{"metadata":{"name":"p","namespace":"n"},"spec":{"containers":[
        {"name":"a","resources":{"requests":{"cpu":"200m","memory":"64Mi"},"limits":{"cpu":"1","memory":"256Mi"}}},
        {"name":"b","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"1","memory":"256Mi"}}}]}}]}"#,
    );
    let scrape = read_scrape(&metrics, Measured::Pods).unwrap();
    assert_eq!(scrape.window_ms, Some(20_042.0));
    let capacities = read_capacities(&pods, Measured::Pods).unwrap();
    let key = (Some("n".to_owned()), "p".to_owned());
    let capacity = capacities[&key];
    assert_eq!(capacity.cpu_request, Some(400_000_000));
    assert_eq!(capacity.memory_request, None, "container b requests no memory");
    let cells = cells(Measured::Pods, scrape.usage.get(&key).copied(), Some(&capacity));
    // 200m of 400m requested, of 2 cores of limit; 96Mi of 512Mi of limit (18.75 %).
    assert_eq!(texts(&cells), ["200m", "50%", "10%", "96Mi", "", "18%"]);
}

#[test]
fn bad_documents_name_where_and_what() {
    let bad = json(r#"{"items":[{"metadata":{"name":"p","namespace":"n"},"containers":[{"usage":{"cpu":"lots"}}]}]}"#);
    let error = read_scrape(&bad, Measured::Pods).unwrap_err();
    assert_eq!(
        error,
        MetricsError::Quantity {
            at: "items[0].containers[0].usage.cpu".into(),
            error: QuantityError::Malformed("lots".into())
        }
    );
    let number = json(r#"{"items":[{"metadata":{"name":"node-1"},"usage":{"memory":12}}]}"#);
    assert_eq!(
        read_scrape(&number, Measured::Nodes).unwrap_err(),
        MetricsError::Unexpected { at: "items[0].usage.memory".into(), expected: "a quantity as text" }
    );
    let nameless = json(r#"{"items":[{"metadata":{}}]}"#);
    assert_eq!(
        read_capacities(&nameless, Measured::Nodes).unwrap_err(),
        MetricsError::Unexpected { at: "items[0].metadata.name".into(), expected: "a name" }
    );
    assert_eq!(
        read_scrape(&json(r#"{"kind":"Status"}"#), Measured::Nodes).unwrap_err(),
        MetricsError::Unexpected { at: "items".into(), expected: "a list's items" }
    );
}

#[test]
fn windows_read_as_go_durations_and_set_the_pace() {
    assert_eq!(duration_ms("15s"), Some(15_000.0));
    assert_eq!(duration_ms("1m0s"), Some(60_000.0));
    assert_eq!(duration_ms("1m30.5s"), Some(90_500.0));
    assert_eq!(duration_ms("500ms"), Some(500.0));
    assert_eq!(duration_ms(""), None);
    assert_eq!(duration_ms("15"), None);
    assert_eq!(duration_ms("15x"), None);
    assert_eq!(poll_ms(Some(15_000.0)), 15_000.0);
    assert_eq!(poll_ms(Some(500.0)), 5_000.0);
    assert_eq!(poll_ms(Some(600_000.0)), 60_000.0);
    assert_eq!(poll_ms(None), 15_000.0);
}

fn resource(group: &str, version: &str, plural: &str, kind: &str, scope: Scope) -> ResourceType {
    let mut resource = resource_type(group, version, plural, scope);
    resource.kind = kind.into();
    resource.verbs = vec!["get".into(), "list".into()];
    resource
}

#[test]
fn the_plan_reads_both_lists_where_discovery_lists_the_metrics_api() {
    let pods = resource("", "v1", "pods", "Pod", Scope::Namespaced);
    let nodes = resource("", "v1", "nodes", "Node", Scope::Cluster);
    let pod_metrics = resource(GROUP, VERSION, "pods", "PodMetrics", Scope::Namespaced);
    let with = discovery_of(vec![pods.clone(), nodes.clone(), pod_metrics]);
    let plan = plan(&with, Measured::Pods, Some("demo")).unwrap();
    assert_eq!(plan.metrics.path(), "/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods");
    assert_eq!(plan.objects.path(), "/api/v1/namespaces/demo/pods");
    assert_eq!(Measured::of(&pods), Some(Measured::Pods));
    // Without metrics-server: no NodeMetrics here, and nothing at all in the second.
    assert_eq!(super::plan(&with, Measured::Nodes, None), Err(MetricsError::NotServed));
    let without = discovery_of(vec![pods, nodes]);
    assert_eq!(super::plan(&without, Measured::Pods, None), Err(MetricsError::NotServed));
}

#[test]
fn a_list_read_lazily_gives_the_capacities_the_whole_tree_gives_and_names_an_item_that_does_not_decode() {
    use kube_wire::error::Format;
    use kube_wire::watch::lazy_list::read_list;
    for (body, measured) in [(PODS, Measured::Pods), (NODES, Measured::Nodes)] {
        let lazy = read_list(Format::Json, body.as_bytes().into()).expect("the transcript is a list");
        assert!(!lazy.items.is_empty());
        assert_eq!(
            read_capacities_lazily(&lazy, measured).unwrap(),
            read_capacities(&json(body), measured).unwrap(),
            "{measured:?}"
        );
    }
    // The second item's container name is a lone UTF-16 surrogate: the one thing the JSON fast
    // pass leaves to the item's own decoding (lazy_list's doc), named here by the item.
    let broken = r#"{"kind":"PodList","items":[{"metadata":{"name":"a","namespace":"n"}},
        {"metadata":{"name":"b","namespace":"n"},"spec":{"containers":[{"name":"\ud800"}]}}]}"#;
    let lazy = read_list(Format::Json, broken.as_bytes().into()).expect("the fast pass takes it");
    match read_capacities_lazily(&lazy, Measured::Pods).unwrap_err() {
        MetricsError::Decode { at, error } => {
            assert_eq!(at, "items[1]");
            assert_eq!(error.format, Format::Json);
        }
        other => panic!("expected a decoding error at items[1], got {other:?}"),
    }
    // A quantity that does not read is named as in the whole tree.
    let bad = r#"{"kind":"PodList","items":[{"metadata":{"name":"p","namespace":"n"},"spec":{"containers":[
        {"name":"a","resources":{"requests":{"cpu":"lots"}}}]}}]}"#;
    let lazy = read_list(Format::Json, bad.as_bytes().into()).unwrap();
    assert_eq!(
        read_capacities_lazily(&lazy, Measured::Pods).unwrap_err(),
        read_capacities(&json(bad), Measured::Pods).unwrap_err()
    );
}
