//! What a simulated metrics-server reports (`metrics.k8s.io/v1beta1`): the CPU and memory each
//! running container uses, and each node (its pods plus the system's own use), as of the last
//! scrape. metrics-server scrapes every 15 s (`--metric-resolution=15s`, as its release manifest
//! deploys it), so `timestamp` is the last 15 s boundary and `window` is `15s`.
//!
//! Usage is a pure function of the container (namespace, pod, container name), its requests and
//! limits, and the scrape's number, so the same moment always reads the same and tests can
//! predict it: CPU is a share of the request (25–60 %, 50m where none is requested) that swings
//! over a few minutes and jitters per scrape, and never passes 95 % of a limit; memory is a share
//! of the request (45–85 %, 64Mi where none is requested) with a little jitter, never past 98 % of
//! a limit. A node adds 70–130m of CPU and 550–800Mi of memory for its system daemons.
//!
//! Quantities are written as metrics-server writes them (`resource.NewScaledQuantity(nanocores,
//! -9)` and bytes as `BinarySI`), canonical as apimachinery's `Quantity.String()` makes them:
//! `12345678n`, `4180u`, `13512Ki`.

use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use crate::controllers::policy::Seed;

/// Seconds between two scrapes, and the window each one reports.
pub const RESOLUTION: i64 = 15;

/// One container's usage: CPU in nanocores, memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu: u64,
    pub memory: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.cpu += other.cpu;
        self.memory += other.memory;
    }
}

/// The scrape that `now` reads: its number and time.
pub fn scrape(now: DateTime<Utc>) -> (i64, DateTime<Utc>) {
    let n = now.timestamp().div_euclid(RESOLUTION);
    (n, Utc.timestamp_opt(n * RESOLUTION, 0).single().unwrap_or(now))
}

/// FNV-1a of a text, for per-object variety that stays the same from run to run.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A number in [0, 1) from a seed.
fn unit(seed: &str) -> f64 {
    (hash(seed) % 1_000_000) as f64 / 1_000_000.0
}

/// A quantity in the units metrics-server compares against: CPU in nanocores (`100m` → 1e8),
/// memory in bytes (`128Mi` → 134217728). `None` when it does not parse.
pub fn parse_quantity(text: &str) -> Option<f64> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0f64.powi(4),
        _ => return None,
    };
    Some(value * scale)
}

/// A container's resource (`cpu` in cores, `memory` in bytes) under `requests` or `limits`.
fn resource(container: &Value, kind: &str, name: &str) -> Option<f64> {
    container["resources"][kind][name].as_str().and_then(parse_quantity)
}

/// What container `c` of pod `namespace/pod` uses at scrape `n`.
pub fn container_usage(namespace: &str, pod: &str, c: &Value, n: i64) -> Usage {
    let name = c["name"].as_str().unwrap_or_default();
    let seed = format!("{namespace}/{pod}/{name}");
    let cpu_request = resource(c, "requests", "cpu").unwrap_or(0.05) * 1e9;
    let cpu_share = 0.25 + 0.35 * unit(&format!("{seed}/cpu"));
    let period = 12.0 + 20.0 * unit(&format!("{seed}/period"));
    let phase = std::f64::consts::TAU * unit(&format!("{seed}/phase"));
    let swing = 1.0 + 0.3 * ((n as f64 / period) * std::f64::consts::TAU + phase).sin();
    let jitter = 0.9 + 0.2 * unit(&format!("{seed}/{n}"));
    let mut cpu = cpu_request * cpu_share * swing * jitter;
    if let Some(limit) = resource(c, "limits", "cpu") {
        cpu = cpu.min(limit * 1e9 * 0.95);
    }
    let memory_request = resource(c, "requests", "memory").unwrap_or(64.0 * 1024.0 * 1024.0);
    let memory_share = 0.45 + 0.40 * unit(&format!("{seed}/memory"));
    let mut memory = memory_request * memory_share * (0.98 + 0.04 * unit(&format!("{seed}/{n}/memory")));
    if let Some(limit) = resource(c, "limits", "memory") {
        memory = memory.min(limit * 0.98);
    }
    // The working set is whole pages.
    let memory = (memory as u64) / 4096 * 4096;
    Usage { cpu: cpu.max(0.0) as u64, memory }
}

/// The system daemons' use on a node at scrape `n`.
pub fn node_overhead(node: &str, n: i64) -> Usage {
    let cpu = (70.0 + 60.0 * unit(&format!("{node}/system/{n}"))) * 1e6;
    let memory = (550.0 + 250.0 * unit(&format!("{node}/system"))) * 1024.0 * 1024.0;
    Usage { cpu: cpu as u64, memory: (memory as u64) / 4096 * 4096 }
}

/// Whether metrics-server has metrics for a pod: it reports Running pods only.
pub fn has_metrics(pod: &Value) -> bool {
    pod["status"]["phase"] == "Running"
}

/// The usage of each container of a running pod, by name.
pub fn pod_usage(pod: &Value, n: i64) -> Vec<(String, Usage)> {
    let ns = pod["metadata"]["namespace"].as_str().unwrap_or_default();
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (c["name"].as_str().unwrap_or_default().to_string(), container_usage(ns, name, c, n)))
        .collect()
}

/// `resource.Quantity.String()` of `value` × 10^`exponent` in DecimalSI: trailing zeros taken
/// out three at a time into the suffix (`n`, `u`, `m`, ``, `k`, `M`, `G`, …).
pub fn decimal_quantity(value: u64, exponent: i32) -> String {
    if value == 0 {
        return "0".into();
    }
    let (mut v, mut e) = (value, exponent);
    while v % 10 == 0 {
        v /= 10;
        e += 1;
    }
    while e.rem_euclid(3) != 0 {
        v *= 10;
        e -= 1;
    }
    let suffix = match e {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        _ => "E",
    };
    format!("{v}{suffix}")
}

/// `resource.Quantity.String()` of bytes in BinarySI: whole powers of 1024 into `Ki`, `Mi`, …;
/// below 1024, or not a multiple of 1024, the plain number.
pub fn binary_quantity(bytes: u64) -> String {
    if bytes < 1024 {
        return bytes.to_string();
    }
    let (mut v, mut i) = (bytes, 0);
    while v % 1024 == 0 && i < 6 {
        v /= 1024;
        i += 1;
    }
    let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][i];
    format!("{v}{suffix}")
}

/// `usage` as metrics-server writes it.
pub fn usage_json(u: Usage) -> Value {
    json!({"cpu": decimal_quantity(u.cpu, -9), "memory": binary_quantity(u.memory)})
}

/// What installing metrics-server adds to a cluster: its APIService (Available) and the
/// ClusterRole that lets `view`, `edit` and `admin` read metrics (its release manifest's
/// `system:aggregated-metrics-reader`).
pub fn seeds(now: &str) -> Vec<Seed> {
    let reader = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "system:aggregated-metrics-reader", "labels": {"k8s-app": "metrics-server",
            "rbac.authorization.k8s.io/aggregate-to-admin": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true",
            "rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": ["metrics.k8s.io"], "resources": ["pods", "nodes"], "verbs": ["get", "list", "watch"]}]});
    let service = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.k8s.io", "labels": {"k8s-app": "metrics-server"}},
        "spec": {"service": {"name": "metrics-server", "namespace": "kube-system", "port": 443}, "group": "metrics.k8s.io",
            "version": "v1beta1", "insecureSkipTLSVerify": true, "groupPriorityMinimum": 100, "versionPriority": 100},
        "status": {"conditions": [{"type": "Available", "status": "True", "lastTransitionTime": now,
            "reason": "Passed", "message": "all checks passed"}]}});
    vec![
        ("rbac.authorization.k8s.io/clusterroles", reader, "kubectl-client-side-apply"),
        ("apiregistration.k8s.io/apiservices", service, "kubectl-client-side-apply"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_are_canonical_as_apimachinery_writes_them() {
        assert_eq!(decimal_quantity(12_345_678, -9), "12345678n");
        assert_eq!(decimal_quantity(4_180_000, -9), "4180u");
        assert_eq!(decimal_quantity(100_000_000, -9), "100m");
        assert_eq!(decimal_quantity(2_000_000_000, -9), "2");
        assert_eq!(decimal_quantity(12_340_000, -9), "12340u");
        assert_eq!(decimal_quantity(0, -9), "0");
        assert_eq!(binary_quantity(134_217_728), "128Mi");
        assert_eq!(binary_quantity(13_836_288), "13512Ki");
        assert_eq!(binary_quantity(1000), "1000");
        assert_eq!(binary_quantity(1_000_001), "1000001");
        assert_eq!(parse_quantity("100m"), Some(0.1));
        assert_eq!(parse_quantity("128Mi"), Some(134_217_728.0));
        assert_eq!(parse_quantity("1.5"), Some(1.5));
        assert_eq!(parse_quantity("lots"), None);
    }

    #[test]
    fn usage_stays_within_requests_and_limits_and_moves_between_scrapes() {
        let c = json!({"name": "api", "resources": {"requests": {"cpu": "200m", "memory": "128Mi"},
            "limits": {"cpu": "250m", "memory": "140Mi"}}});
        let samples: Vec<Usage> = (0..200).map(|n| container_usage("demo", "api-1", &c, n)).collect();
        for u in &samples {
            assert!(u.cpu > 0 && u.cpu as f64 <= 0.25e9 * 0.95, "{u:?}");
            assert!(u.memory as f64 <= 140.0 * 1048576.0 * 0.98 && u.memory % 4096 == 0, "{u:?}");
            assert!(u.memory as f64 >= 128.0 * 1048576.0 * 0.44, "{u:?}");
        }
        let distinct: std::collections::BTreeSet<u64> = samples.iter().map(|u| u.cpu).collect();
        assert!(distinct.len() > 150, "CPU varies from scrape to scrape");
        assert_eq!(container_usage("demo", "api-1", &c, 7), container_usage("demo", "api-1", &c, 7), "deterministic");
        let other = container_usage("demo", "api-2", &c, 7);
        assert_ne!(other, container_usage("demo", "api-1", &c, 7), "pods differ");
        // Limits without requests (kube-sim does not copy limits into requests): the limits bind.
        let capped = json!({"name": "c", "resources": {"limits": {"cpu": "20m", "memory": "32Mi"}}});
        let samples: Vec<Usage> = (0..50).map(|n| container_usage("demo", "c-1", &capped, n)).collect();
        assert!(
            samples.iter().all(|u| u.cpu <= 19_000_000 && u.memory as f64 <= 32.0 * 1048576.0 * 0.98),
            "{samples:?}"
        );
        assert!(samples.iter().any(|u| u.cpu >= 18_999_000), "the CPU limit binds: {samples:?}");
        let bare = json!({"name": "x"});
        let u = container_usage("demo", "p", &bare, 1);
        assert!(u.cpu < 60_000_000 && u.memory < 64 * 1048576, "defaults stand in for requests: {u:?}");
    }

    #[test]
    fn scrapes_fall_on_the_resolution() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-24T10:00:29Z").unwrap().with_timezone(&Utc);
        let (n, time) = scrape(at);
        assert_eq!(time.to_rfc3339(), "2026-11-24T10:00:15+00:00");
        assert_eq!(scrape(at + chrono::Duration::seconds(1)).0, n + 1);
    }
}
