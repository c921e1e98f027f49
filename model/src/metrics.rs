//! CPU and memory in the pods and nodes lists, from `metrics.k8s.io` (metrics-server), computed
//! as `kubectl top` computes them (kubernetes/kubectl `pkg/metricsutil/metrics_printer.go`):
//! CPU as whole millicores rounded up (`%vm` of `MilliValue`), memory as whole MiB rounded down
//! (`Value()/(1024*1024)`), a share as the integer part of `usage.MilliValue() /
//! available.MilliValue() * 100`. A pod's usage is the sum of its containers' (`getPodMetrics`).
//!
//! The share of what: a node's `status.allocatable`, as `kubectl top node` (`pkg/cmd/top/
//! top_node.go`) divides by; a pod's request and limit summed over its containers, as k9s's
//! `%CPU/R`, `%CPU/L`, `%MEM/R`, `%MEM/L` show them; when one container sets none, the pod has no
//! such share (the horizontal pod autoscaler refuses the same pod: "missing request for cpu").
//!
//! Metrics-server keeps no history: each list is the last scrape, over its `window`; the driver
//! asks again once a window has passed ([`poll_ms`]).

use std::collections::HashMap;

use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::Value;
use kube_wire::discovery::{Discovery, ResourceType};
use kube_wire::error::DecodeError;
use kube_wire::media_type::{Accept, MediaType};
use kube_wire::params::ListParams;
use kube_wire::request::{Collection, Request};
use kube_wire::watch::lazy_list::LazyList;

use crate::cells::{Cell, Column, Grid, SortKey};
use crate::i18n::{Localized, Msg, Text};
use crate::metrics_quantity::{bytes, nanocores, QuantityError};

/// The metrics API group, as metrics-server registers it with the aggregator.
pub const GROUP: &str = "metrics.k8s.io";
/// The version metrics-server serves (the only one so far).
pub const VERSION: &str = "v1beta1";

/// Which list the metrics are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measured {
    Pods,
    Nodes,
}

impl Measured {
    /// The list `resource` shows, if it is core pods or nodes.
    pub fn of(resource: &ResourceType) -> Option<Measured> {
        match (resource.group.as_str(), resource.plural.as_str()) {
            ("", "pods") => Some(Measured::Pods),
            ("", "nodes") => Some(Measured::Nodes),
            _ => None,
        }
    }

    pub(crate) fn plural(self) -> &'static str {
        match self {
            Measured::Pods => "pods",
            Measured::Nodes => "nodes",
        }
    }

    /// The columns added, in order.
    pub fn columns(self) -> &'static [MetricColumn] {
        use MetricColumn::*;
        match self {
            Measured::Pods => &[Cpu, CpuOfRequest, CpuOfLimit, Memory, MemoryOfRequest, MemoryOfLimit],
            Measured::Nodes => &[Cpu, CpuOfAllocatable, Memory, MemoryOfAllocatable],
        }
    }
}

/// One added column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricColumn {
    Cpu,
    CpuOfRequest,
    CpuOfLimit,
    CpuOfAllocatable,
    Memory,
    MemoryOfRequest,
    MemoryOfLimit,
    MemoryOfAllocatable,
}

impl MetricColumn {
    /// The column's heading and its description (shown on hover).
    pub fn texts(self) -> (Msg, Msg) {
        use MetricColumn::*;
        match self {
            Cpu => (Msg::MetricsCpu, Msg::MetricsCpuWhat),
            CpuOfRequest => (Msg::MetricsCpuOfRequest, Msg::MetricsOfRequestWhat),
            CpuOfLimit => (Msg::MetricsCpuOfLimit, Msg::MetricsOfLimitWhat),
            CpuOfAllocatable => (Msg::MetricsCpuOfAllocatable, Msg::MetricsOfAllocatableWhat),
            Memory => (Msg::MetricsMemory, Msg::MetricsMemoryWhat),
            MemoryOfRequest => (Msg::MetricsMemoryOfRequest, Msg::MetricsOfRequestWhat),
            MemoryOfLimit => (Msg::MetricsMemoryOfLimit, Msg::MetricsOfLimitWhat),
            MemoryOfAllocatable => (Msg::MetricsMemoryOfAllocatable, Msg::MetricsOfAllocatableWhat),
        }
    }
}

/// CPU in nanocores and memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu: i128,
    pub memory: i128,
}

/// What a share is of: a pod's requests and limits, or a node's allocatable (in `requests`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capacity {
    pub cpu_request: Option<i128>,
    pub cpu_limit: Option<i128>,
    pub memory_request: Option<i128>,
    pub memory_limit: Option<i128>,
}

/// `namespace/name` of a pod, the name of a node.
pub type Key = (Option<String>, String);

/// One scrape of a list: each object's usage, and the window it was measured over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scrape {
    pub usage: HashMap<Key, Usage>,
    /// The longest `window` of the items, in milliseconds, when one was readable.
    pub window_ms: Option<f64>,
    /// The latest `timestamp` of the items, as written.
    pub timestamp: Option<String>,
}

/// Why metrics cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricsError {
    /// Discovery does not list `metrics.k8s.io` (or not this list's type): no metrics-server.
    NotServed,
    /// A list's document is not what metrics-server or the API server sends: where, and what.
    Unexpected { at: String, expected: &'static str },
    /// A quantity in a list did not read.
    Quantity { at: String, error: QuantityError },
    /// An item of a list read lazily did not decode.
    Decode { at: String, error: DecodeError },
}

impl Localized for MetricsError {
    fn text(&self) -> Text {
        match self {
            MetricsError::NotServed => Text::new(Msg::MetricsNotServed),
            MetricsError::Unexpected { at, expected } => {
                Text::new(Msg::MetricsUnexpected).with("at", at).with("expected", expected)
            }
            MetricsError::Quantity { at, error } => {
                Text::new(Msg::MetricsBadQuantity).with("at", at).with_text("error", error.clone())
            }
            // "The metrics could not be read: {at}: {error}" fits a decoding error as well.
            MetricsError::Decode { at, error } => {
                Text::new(Msg::MetricsBadQuantity).with("at", at).with_text("error", error.clone())
            }
        }
    }
}

/// The two lists one round reads: the metrics, and the objects their shares are of.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsPlan {
    pub measured: Measured,
    pub metrics: Request,
    pub objects: Request,
}

/// The lists to read for `measured` in `namespace` (all namespaces when `None`), if discovery
/// lists the metrics API's type and the core type can be listed.
pub fn plan(discovery: &Discovery, measured: Measured, namespace: Option<&str>) -> Result<MetricsPlan, MetricsError> {
    let list = |resource: &ResourceType| -> Option<Request> {
        if !resource.supports("list") {
            return None;
        }
        let collection = Collection::new(resource, resource.scoped(namespace)).ok()?;
        Some(RequestBuilder::list(&collection, &ListParams::default(), &Accept::only(MediaType::json())).build())
    };
    let metrics = discovery.find_resource(GROUP, VERSION, measured.plural()).and_then(list);
    let objects = discovery.find_resource("", "v1", measured.plural()).and_then(list);
    match (metrics, objects) {
        (Some(metrics), Some(objects)) => Ok(MetricsPlan { measured, metrics, objects }),
        _ => Err(MetricsError::NotServed),
    }
}

/// How long to wait before the next round: the metrics' window (a new scrape is not ready
/// before), kept between 5 s and 60 s; 15 s (metrics-server's default resolution) when unknown.
pub fn poll_ms(window_ms: Option<f64>) -> f64 {
    window_ms.filter(|w| w.is_finite()).unwrap_or(15_000.0).clamp(5_000.0, 60_000.0)
}

/// A Go duration as metrics-server writes a window (`15s`, `20.042s`, `1m0s`, `500ms`), in
/// milliseconds.
pub fn duration_ms(text: &str) -> Option<f64> {
    let mut rest = text;
    let mut total = 0.0;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let number: f64 = rest[..end].parse().ok()?;
        rest = &rest[end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1000.0,
            "ms" => 1.0,
            "us" | "µs" => 0.001,
            "ns" => 0.000_001,
            _ => return None,
        };
        total += number * factor;
        rest = &rest[unit_end..];
    }
    Some(total)
}

fn items(document: &Value) -> Result<&[Value], MetricsError> {
    document
        .get("items")
        .and_then(Value::as_array)
        .ok_or(MetricsError::Unexpected { at: "items".into(), expected: "a list's items" })
}

fn key_of(item: &Value, at: &str) -> Result<Key, MetricsError> {
    let name = item.at(&["metadata", "name"]).and_then(Value::as_str).filter(|n| !n.is_empty());
    let name =
        name.ok_or_else(|| MetricsError::Unexpected { at: format!("{at}.metadata.name"), expected: "a name" })?;
    let namespace = item.at(&["metadata", "namespace"]).and_then(Value::as_str).filter(|n| !n.is_empty());
    Ok((namespace.map(str::to_owned), name.to_owned()))
}

fn quantity(
    map: Option<&Value>,
    resource: &str,
    at: &str,
    read: fn(&str) -> Result<i128, QuantityError>,
) -> Result<Option<i128>, MetricsError> {
    let Some(value) = map.and_then(|m| m.get(resource)) else { return Ok(None) };
    let at = format!("{at}.{resource}");
    let text =
        value.as_str().ok_or_else(|| MetricsError::Unexpected { at: at.clone(), expected: "a quantity as text" })?;
    read(text).map(Some).map_err(|error| MetricsError::Quantity { at, error })
}

fn usage_of(map: Option<&Value>, at: &str) -> Result<Usage, MetricsError> {
    Ok(Usage {
        cpu: quantity(map, "cpu", at, nanocores)?.unwrap_or(0),
        memory: quantity(map, "memory", at, bytes)?.unwrap_or(0),
    })
}

/// A PodMetricsList or NodeMetricsList read: each item's usage (a pod's summed over its
/// containers), its window and timestamp.
pub fn read_scrape(document: &Value, measured: Measured) -> Result<Scrape, MetricsError> {
    let mut scrape = Scrape::default();
    for (i, item) in items(document)?.iter().enumerate() {
        let at = format!("items[{i}]");
        let key = key_of(item, &at)?;
        let usage = match measured {
            Measured::Nodes => usage_of(item.get("usage"), &format!("{at}.usage"))?,
            Measured::Pods => {
                let containers = item.get("containers").and_then(Value::as_array).unwrap_or_default();
                let mut sum = Usage::default();
                for (c, container) in containers.iter().enumerate() {
                    let one = usage_of(container.get("usage"), &format!("{at}.containers[{c}].usage"))?;
                    sum.cpu += one.cpu;
                    sum.memory += one.memory;
                }
                sum
            }
        };
        if let Some(window) = item.get("window").and_then(Value::as_str).and_then(duration_ms) {
            scrape.window_ms = Some(scrape.window_ms.map_or(window, |w: f64| w.max(window)));
        }
        if let Some(timestamp) = item.get("timestamp").and_then(Value::as_str) {
            if scrape.timestamp.as_deref().is_none_or(|t| t < timestamp) {
                scrape.timestamp = Some(timestamp.to_owned());
            }
        }
        scrape.usage.insert(key, usage);
    }
    Ok(scrape)
}

/// The sum over a pod's `spec.containers` of one resource under `requests` or `limits`, `None`
/// when a container does not set it.
fn pod_total(
    containers: &[Value],
    kind: &str,
    resource: &str,
    at: &str,
    read: fn(&str) -> Result<i128, QuantityError>,
) -> Result<Option<i128>, MetricsError> {
    let mut total = 0;
    for (c, container) in containers.iter().enumerate() {
        let set = container.at(&["resources", kind]);
        match quantity(set, resource, &format!("{at}.spec.containers[{c}].resources.{kind}"), read)? {
            Some(value) => total += value,
            None => return Ok(None),
        }
    }
    Ok((!containers.is_empty()).then_some(total))
}

/// A PodList's requests and limits, or a NodeList's allocatable, by object.
pub fn read_capacities(document: &Value, measured: Measured) -> Result<HashMap<Key, Capacity>, MetricsError> {
    let mut capacities = HashMap::new();
    for (i, item) in items(document)?.iter().enumerate() {
        let at = format!("items[{i}]");
        capacities.insert(key_of(item, &at)?, capacity_of(item, &at, measured)?);
    }
    Ok(capacities)
}

/// [`read_capacities`] of a list read lazily ([`kube_wire::watch::lazy_list`]): each item is
/// decoded in turn and dropped once read, so that a round over every pod of a large cluster holds
/// the list's bytes and one pod's tree at a time, not the whole list's tree (about six times its
/// bytes: 10,000 pods of 35 MB of JSON took the page's memory from 550 to 614 MB in the soak).
pub fn read_capacities_lazily(list: &LazyList, measured: Measured) -> Result<HashMap<Key, Capacity>, MetricsError> {
    let mut capacities = HashMap::with_capacity(list.items.len());
    for (i, item) in list.items.iter().enumerate() {
        let at = format!("items[{i}]");
        let value = item.value_unkept().map_err(|error| MetricsError::Decode { at: at.clone(), error })?;
        capacities.insert(key_of(&value, &at)?, capacity_of(&value, &at, measured)?);
    }
    Ok(capacities)
}

/// One pod's requests and limits summed over its containers, or one node's allocatable.
fn capacity_of(item: &Value, at: &str, measured: Measured) -> Result<Capacity, MetricsError> {
    Ok(match measured {
        Measured::Nodes => {
            let allocatable = item.at(&["status", "allocatable"]);
            let at = format!("{at}.status.allocatable");
            Capacity {
                cpu_request: quantity(allocatable, "cpu", &at, nanocores)?,
                memory_request: quantity(allocatable, "memory", &at, bytes)?,
                ..Capacity::default()
            }
        }
        Measured::Pods => {
            let containers = item.at(&["spec", "containers"]).and_then(Value::as_array).unwrap_or_default();
            Capacity {
                cpu_request: pod_total(containers, "requests", "cpu", at, nanocores)?,
                cpu_limit: pod_total(containers, "limits", "cpu", at, nanocores)?,
                memory_request: pod_total(containers, "requests", "memory", at, bytes)?,
                memory_limit: pod_total(containers, "limits", "memory", at, bytes)?,
            }
        }
    })
}

/// `Quantity.MilliValue` of CPU in nanocores: rounded up.
fn cpu_milli(nanocores: i128) -> i128 {
    nanocores.div_euclid(1_000_000) + i128::from(nanocores.rem_euclid(1_000_000) != 0)
}

/// `kubectl top`'s share: the integer part of `usage.MilliValue()/available.MilliValue()*100`.
fn share(usage_milli: i128, available_milli: Option<i128>) -> Option<i64> {
    let available = available_milli.filter(|a| *a > 0)?;
    Some((usage_milli as f64 / available as f64 * 100.0) as i64)
}

/// One object's cells for the added columns.
pub fn cells(measured: Measured, usage: Option<Usage>, capacity: Option<&Capacity>) -> Vec<Cell> {
    let capacity = capacity.copied().unwrap_or_default();
    measured
        .columns()
        .iter()
        .map(|column| {
            let Some(usage) = usage else {
                return Cell { text: String::new(), title: None, sort: SortKey::Missing };
            };
            let cpu = cpu_milli(usage.cpu);
            let memory_milli = usage.memory * 1000;
            let percent = |value: Option<i64>| match value {
                Some(p) => Cell { text: format!("{p}%"), title: None, sort: SortKey::Number(p as f64) },
                None => Cell { text: String::new(), title: None, sort: SortKey::Missing },
            };
            use MetricColumn::*;
            match column {
                Cpu => Cell { text: format!("{cpu}m"), title: None, sort: SortKey::Number(cpu as f64) },
                Memory => {
                    let mib = usage.memory.div_euclid(1024 * 1024);
                    Cell { text: format!("{mib}Mi"), title: None, sort: SortKey::Number(usage.memory as f64) }
                }
                CpuOfRequest | CpuOfAllocatable => percent(share(cpu, capacity.cpu_request.map(cpu_milli))),
                CpuOfLimit => percent(share(cpu, capacity.cpu_limit.map(cpu_milli))),
                MemoryOfRequest | MemoryOfAllocatable => {
                    percent(share(memory_milli, capacity.memory_request.map(|m| m * 1000)))
                }
                MemoryOfLimit => percent(share(memory_milli, capacity.memory_limit.map(|m| m * 1000))),
            }
        })
        .collect()
}

/// What the lists said in one round, merged into rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricsTable {
    pub scrape: Scrape,
    pub capacities: HashMap<Key, Capacity>,
}

impl MetricsTable {
    /// `grid` with the columns `measured` adds (named by `name`) and each row's cells, its
    /// object found by namespace (the row's, else `namespace`, the list's) and name; a row
    /// without metrics (a pod not running) has empty cells.
    pub fn merge(
        &self,
        grid: &Grid,
        measured: Measured,
        namespace: Option<&str>,
        name: impl Fn(MetricColumn) -> Column,
    ) -> Grid {
        let mut merged = grid.clone();
        merged.columns.extend(measured.columns().iter().map(|c| name(*c)));
        for row in &mut merged.rows {
            let row_namespace = match measured {
                Measured::Nodes => None,
                Measured::Pods => row.namespace.clone().or(namespace.map(str::to_owned)),
            };
            let key = (row_namespace, row.name.clone());
            row.cells.extend(cells(measured, self.scrape.usage.get(&key).copied(), self.capacities.get(&key)));
        }
        merged
    }
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
