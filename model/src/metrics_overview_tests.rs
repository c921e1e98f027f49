use super::*;
use crate::metrics::{read_capacities, read_scrape, Measured};
use kube_wire::codec::value::Value;

/// A namespace of four pods: `api` sets requests and limits, `web` requests only, `batch` sets
/// neither, `pending` is not running (no metrics).
fn table() -> MetricsTable {
    let pod = |name: &str, resources: serde_json::Value| {
        serde_json::json!({"metadata": {"name": name, "namespace": "demo"},
            "spec": {"containers": [{"name": "c", "resources": resources}]}})
    };
    let pods = Value::from_serde_json(&serde_json::json!({"items": [
        pod("api", serde_json::json!({"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}})),
        pod("web", serde_json::json!({"requests": {"cpu": "200m", "memory": "64Mi"}})),
        pod("batch", serde_json::json!({})),
        pod("pending", serde_json::json!({"requests": {"cpu": "1", "memory": "1Gi"}})),
    ]}));
    let usage = |name: &str, cpu: &str, memory: &str| {
        serde_json::json!({"metadata": {"name": name, "namespace": "demo"}, "timestamp": "2026-11-28T16:18:30Z",
            "window": "15s", "containers": [{"name": "c", "usage": {"cpu": cpu, "memory": memory}}]})
    };
    let metrics = Value::from_serde_json(&serde_json::json!({"items": [
        usage("api", "50m", "100Mi"), usage("web", "30m", "32Mi"), usage("batch", "250m", "10Mi"),
    ]}));
    MetricsTable {
        scrape: read_scrape(&metrics, Measured::Pods).unwrap(),
        capacities: read_capacities(&pods, Measured::Pods).unwrap(),
    }
}

const M: i128 = 1_000_000;
const MI: i128 = 1024 * 1024;

#[test]
fn a_namespace_sums_its_measured_pods_and_sets_each_bound_against_the_pods_that_set_it() {
    let overview = overview(&table());
    assert_eq!((overview.pods, overview.measured), (4, 3));
    assert_eq!(overview.usage, Usage { cpu: 330 * M, memory: 142 * MI });
    // The pending pod's request is not counted: it uses nothing and was not measured.
    assert_eq!(overview.cpu_requests, Bound { total: 300 * M, pods: 2, used_by_them: 80 * M });
    assert_eq!(overview.cpu_requests.share(), Some(26), "80m of 300m; batch's 250m is not set against them");
    assert_eq!(overview.cpu_limits, Bound { total: 500 * M, pods: 1, used_by_them: 50 * M });
    assert_eq!(overview.cpu_limits.share(), Some(10));
    assert_eq!(overview.memory_requests, Bound { total: 192 * MI, pods: 2, used_by_them: 132 * MI });
    assert_eq!(overview.memory_requests.share(), Some(68), "132Mi of 192Mi is 68.75%, shown as kubectl top does: 68%");
    assert_eq!(overview.memory_limits.share(), Some(39));
    assert_eq!(Bound::default().share(), None);
}

#[test]
fn the_top_lists_name_the_heaviest_pods_first_and_at_most_top() {
    let overview = overview(&table());
    let names = |list: &[(String, Usage)]| list.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&overview.top_cpu), ["batch", "api", "web"]);
    assert_eq!(names(&overview.top_memory), ["api", "web", "batch"]);
    let mut many = table();
    for i in 0..8 {
        many.scrape.usage.insert((Some("demo".into()), format!("p{i}")), Usage { cpu: 7 * M, memory: MI });
    }
    let overview = super::overview(&many);
    assert_eq!(overview.top_cpu.len(), TOP);
    // Equal usage: by name.
    assert_eq!(names(&overview.top_cpu), ["batch", "api", "web", "p0", "p1"]);
    assert_eq!(overview.measured, 11);
}
