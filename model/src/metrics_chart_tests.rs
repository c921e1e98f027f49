use super::*;
use kube_wire::discovery::Scope;
use kube_wire::testdata::{discovery_of, resource_type};

/// One of kube-sim's PodMetrics (`GET .../namespaces/demo/pods/NAME`), at `timestamp`: two
/// containers, the second using a fixed 2m and 4Mi.
fn pod_metrics(timestamp: &str, cpu: &str, memory: &str) -> Value {
    Value::from_serde_json(&serde_json::json!({
        "kind": "PodMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {"name": "api-5g9cblvg68-jb5bp", "namespace": "demo", "creationTimestamp": "2026-11-28T16:18:42Z"},
        "timestamp": timestamp, "window": "15s",
        "containers": [
            {"name": "api", "usage": {"cpu": cpu, "memory": memory}},
            {"name": "proxy", "usage": {"cpu": "2m", "memory": "4Mi"}}
        ]
    }))
}

/// A NodeMetrics as metrics-server writes it (`GET /apis/metrics.k8s.io/v1beta1/nodes/NAME`).
fn node_metrics(timestamp: &str, cpu: &str, memory: &str) -> Value {
    Value::from_serde_json(&serde_json::json!({
        "kind": "NodeMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {"name": "node-1", "creationTimestamp": "2026-11-28T16:18:42Z"},
        "timestamp": timestamp, "window": "20.042s",
        "usage": {"cpu": cpu, "memory": memory}
    }))
}

#[test]
fn the_history_keeps_each_scrape_once_in_order_and_at_most_kept() {
    let mut history = MetricsHistory::default();
    let new = Recorded { new: true, window_ms: Some(15_000.0) };
    let seen = Recorded { new: false, window_ms: Some(15_000.0) };
    assert_eq!(history.record(&pod_metrics("2026-11-28T16:18:30Z", "37564780n", "103084Ki"), Measured::Pods), Ok(new));
    // Read again before the next scrape: the same timestamp is not a new sample.
    assert_eq!(history.record(&pod_metrics("2026-11-28T16:18:30Z", "37564780n", "103084Ki"), Measured::Pods), Ok(seen));
    assert_eq!(history.record(&pod_metrics("2026-11-28T16:18:45Z", "44523295n", "66120Ki"), Measured::Pods), Ok(new));
    // An older scrape (another metrics-server replica answering late) is not recorded either.
    assert_eq!(history.record(&pod_metrics("2026-11-28T16:18:40Z", "1m", "1Mi"), Measured::Pods), Ok(seen));
    // The containers are summed: 37.56m + 2m rounds up to 40m; 100.67Mi + 4Mi down to 104Mi.
    let cpu: Vec<i128> = history.samples().map(|s| Figure::Cpu.value(s)).collect();
    assert_eq!(cpu, [40, 47]);
    let memory: Vec<i128> = history.samples().map(|s| Figure::Memory.value(s)).collect();
    assert_eq!(memory, [104, 68]);
    for i in 0..KEPT as i64 {
        let at = Timestamp::from_second(1_800_000_000 + 15 * i).unwrap().to_string();
        history.record(&pod_metrics(&at, "1m", "1Mi"), Measured::Pods).unwrap();
    }
    assert_eq!(history.samples().len(), KEPT);
    assert_eq!(history.samples().next().unwrap().at_ms, 1_800_000_000_000);
    assert_eq!(history.samples().last().unwrap().at_ms, 1_800_000_000_000 + 15_000 * (KEPT as i64 - 1));
}

#[test]
fn a_nodes_usage_is_recorded_and_a_bad_document_is_named_where() {
    let mut history = MetricsHistory::default();
    let recorded = history.record(&node_metrics("2026-11-28T16:18:30Z", "250m", "2Gi"), Measured::Nodes);
    assert_eq!(recorded, Ok(Recorded { new: true, window_ms: Some(20_042.0) }));
    let sample = history.samples().next().unwrap();
    assert_eq!((Figure::Cpu.value(sample), Figure::Memory.value(sample)), (250, 2048));
    assert_eq!(sample.timestamp, "2026-11-28T16:18:30Z");
    assert_eq!(time_of_day(sample), "16:18:30");
    // The errors name the place in the document itself, not in the list it was read through.
    assert_eq!(
        history.record(&pod_metrics("yesterday", "1m", "1Mi"), Measured::Pods),
        Err(MetricsError::Unexpected { at: "timestamp".into(), expected: "a time" })
    );
    let Err(MetricsError::Quantity { at, .. }) =
        history.record(&pod_metrics("2026-11-28T16:19:30Z", "lots", "1Mi"), Measured::Pods)
    else {
        panic!("a bad quantity is not refused");
    };
    assert_eq!(at, "containers[0].usage.cpu");
    let nameless = Value::from_serde_json(&serde_json::json!({"timestamp": "2026-11-28T16:19:30Z", "usage": {}}));
    assert_eq!(
        history.record(&nameless, Measured::Nodes),
        Err(MetricsError::Unexpected { at: "metadata.name".into(), expected: "a name" })
    );
    assert_eq!(history.samples().len(), 1, "nothing that failed was recorded");
}

#[test]
fn the_chart_spans_the_samples_under_a_round_top() {
    let mut history = MetricsHistory::default();
    for (at, cpu) in [("16:18:30", "36m"), ("16:18:45", "43m"), ("16:19:00", "18m")] {
        history.record(&pod_metrics(&format!("2026-11-28T{at}Z"), cpu, "96Mi"), Measured::Pods).unwrap();
    }
    let chart = chart(history.samples(), Figure::Cpu, 456.0, 132.0);
    // The plot is 56..448 wide and 8..108 high; the top is 4 steps of 20m (45/4 = 11.25 → 20).
    assert_eq!(chart.plot, (56.0, 8.0, 448.0, 108.0));
    let labels: Vec<&str> = chart.y_ticks.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, ["0m", "20m", "40m", "60m", "80m"]);
    let at: Vec<f64> = chart.y_ticks.iter().map(|t| t.at).collect();
    assert_eq!(at, [108.0, 83.0, 58.0, 33.0, 8.0]);
    // 38m is at 108 - 100 × 38/80 = 60.5, 45m at 51.75, 20m at 83.
    assert_eq!(chart.path, "M56.0 60.5 L252.0 51.8 L448.0 83.0");
    assert_eq!(
        chart.x_ticks,
        [Tick { at: 56.0, label: "16:18:30".into() }, Tick { at: 448.0, label: "16:19:00".into() }]
    );
    let lone = super::chart(history.samples().take(1), Figure::Memory, 456.0, 132.0);
    // One sample: a point in the middle; 100Mi under a top of 4 × 50Mi.
    assert_eq!(lone.points, [(252.0, 58.0)]);
    assert_eq!(lone.path, "M252.0 58.0");
    assert_eq!(lone.y_ticks.last().unwrap().label, "200Mi");
    assert_eq!(lone.x_ticks, [Tick { at: 252.0, label: "16:18:30".into() }]);
    let empty = super::chart(std::iter::empty(), Figure::Cpu, 456.0, 132.0);
    assert_eq!((empty.path.as_str(), empty.points.len(), empty.x_ticks.len()), ("", 0, 0));
    assert_eq!(empty.y_ticks.last().unwrap().label, "4m", "an empty chart still has an axis of 1m steps");
}

#[test]
fn an_objects_metrics_are_got_where_discovery_lists_them() {
    let mut pods = resource_type(GROUP, VERSION, "pods", Scope::Namespaced);
    pods.verbs = vec!["get".into(), "list".into()];
    let mut nodes = resource_type(GROUP, VERSION, "nodes", Scope::Cluster);
    nodes.verbs = vec!["get".into(), "list".into()];
    let discovery = discovery_of(vec![pods.clone(), nodes]);
    let request = plan_object(&discovery, Measured::Pods, Some("demo"), "web-1").unwrap();
    assert_eq!(request.path(), "/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/web-1");
    assert_eq!(request.header_value("accept"), Some("application/json"));
    let request = plan_object(&discovery, Measured::Nodes, Some("demo"), "node-1").unwrap();
    assert_eq!(request.path(), "/apis/metrics.k8s.io/v1beta1/nodes/node-1");
    assert_eq!(plan_object(&discovery_of(vec![]), Measured::Pods, Some("demo"), "web-1"), Err(MetricsError::NotServed));
    pods.verbs = vec!["list".into()];
    assert_eq!(
        plan_object(&discovery_of(vec![pods]), Measured::Pods, Some("demo"), "web-1"),
        Err(MetricsError::NotServed)
    );
}
