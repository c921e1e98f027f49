//! A namespace's CPU and memory at a glance, on the namespace's screen: its pods' usage summed,
//! set against what they request and are limited to, and the pods that use the most. Read from
//! one round of `use_metrics` over the namespace's pods (its PodMetricsList and PodList, the
//! lists `kubectl top pods -n NS` and `kubectl describe node`'s "Allocated resources" read).
//!
//! Invariants: a share compares like with like: the usage of the pods that set a request (every
//! container of them: a pod missing one has no request, as the pods list's `%CPU/R` says) with
//! the sum of those requests, never the namespace's whole usage with a partial sum; the top
//! lists hold at most [`TOP`] pods, the highest first, ties by name.

use crate::metrics::{Capacity, Key, MetricsTable, Usage};

/// How many pods each top list names.
pub const TOP: usize = 5;

/// The requests or the limits of a namespace's pods, summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bound {
    /// The sum over the pods that set it, in nanocores (CPU) or bytes (memory).
    pub total: i128,
    /// How many pods set it.
    pub pods: usize,
    /// The usage of those pods, to set against `total`.
    pub used_by_them: i128,
}

impl Bound {
    /// `kubectl top`'s share: the integer part of the usage over the total, in percent; `None`
    /// when no pod sets it.
    pub fn share(&self) -> Option<i64> {
        (self.total > 0).then(|| (self.used_by_them as f64 / self.total as f64 * 100.0) as i64)
    }
}

/// A namespace's pods, summed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Overview {
    /// The pods the PodList named.
    pub pods: usize,
    /// The pods metrics-server measured (running ones).
    pub measured: usize,
    pub usage: Usage,
    pub cpu_requests: Bound,
    pub cpu_limits: Bound,
    pub memory_requests: Bound,
    pub memory_limits: Bound,
    /// The pods using the most CPU, by name, highest first.
    pub top_cpu: Vec<(String, Usage)>,
    /// The pods using the most memory.
    pub top_memory: Vec<(String, Usage)>,
}

fn add(bound: &mut Bound, set: Option<i128>, used: i128) {
    if let Some(value) = set {
        bound.total += value;
        bound.pods += 1;
        bound.used_by_them += used;
    }
}

fn top(usages: &[(&Key, Usage)], by: fn(&Usage) -> i128) -> Vec<(String, Usage)> {
    let mut ranked: Vec<(String, Usage)> = usages.iter().map(|(key, usage)| (key.1.clone(), *usage)).collect();
    ranked.sort_by(|a, b| by(&b.1).cmp(&by(&a.1)).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(TOP);
    ranked
}

/// The overview of one round over a namespace's pods.
pub fn overview(table: &MetricsTable) -> Overview {
    let mut overview = Overview { pods: table.capacities.len(), ..Overview::default() };
    let usages: Vec<(&Key, Usage)> = table.scrape.usage.iter().map(|(key, usage)| (key, *usage)).collect();
    overview.measured = usages.len();
    for (key, usage) in &usages {
        overview.usage.cpu += usage.cpu;
        overview.usage.memory += usage.memory;
        let capacity: Capacity = table.capacities.get(*key).copied().unwrap_or_default();
        add(&mut overview.cpu_requests, capacity.cpu_request, usage.cpu);
        add(&mut overview.cpu_limits, capacity.cpu_limit, usage.cpu);
        add(&mut overview.memory_requests, capacity.memory_request, usage.memory);
        add(&mut overview.memory_limits, capacity.memory_limit, usage.memory);
    }
    overview.top_cpu = top(&usages, |u| u.cpu);
    overview.top_memory = top(&usages, |u| u.memory);
    overview
}

#[cfg(test)]
#[path = "metrics_overview_tests.rs"]
mod tests;
