//! `use_metrics`: the CPU and memory of the pods or nodes of one list, read from
//! `metrics.k8s.io` as [`model::metrics::plan`](crate::model::metrics::plan) chose, together
//! with the pods' requests and limits or the nodes' allocatable, again each time a metrics window
//! has passed ([`poll_ms`]): metrics-server keeps only its last scrape. The rounds are tasks of
//! the current owner, so they stop when the list's view goes.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::discovery::Discovery;
use crate::client::error::ApiError;
use crate::client::handle::{use_client, Client};
use crate::client::task::sleep;
use crate::i18n::{Localized, Msg, Text};
use crate::model::metrics::{
    plan, poll_ms, read_capacities, read_scrape, Measured, MetricsError, MetricsPlan, MetricsTable,
};

/// Why the metrics are not shown.
#[derive(Debug, Clone)]
pub enum MetricsProblem {
    /// No metrics-server: discovery does not list `metrics.k8s.io` (a calm line, not an error).
    NotServed,
    /// A list was refused or failed (an APIService that is down answers 503).
    Request(ApiError),
    /// A list came back but did not read.
    Read(MetricsError),
}

impl MetricsProblem {
    /// Whether this is the cluster's normal state rather than a failure.
    pub fn is_calm(&self) -> bool {
        matches!(self, MetricsProblem::NotServed)
    }
}

impl Localized for MetricsProblem {
    fn text(&self) -> Text {
        match self {
            MetricsProblem::NotServed => MetricsError::NotServed.text(),
            MetricsProblem::Request(error) => Text::new(Msg::MetricsFailed).with_text("why", error.clone()),
            MetricsProblem::Read(error) => error.text(),
        }
    }
}

/// What [`use_metrics`] gives the view.
#[derive(Clone, Copy)]
pub struct UseMetrics {
    pub measured: Measured,
    /// The last round that read, `None` before the first.
    pub table: RwSignal<Option<MetricsTable>>,
    /// Why the last round failed, or that metrics are not served.
    pub problem: RwSignal<Option<MetricsProblem>>,
    /// Milliseconds until the next round (the window), once a round has read.
    pub every_ms: RwSignal<Option<f64>>,
}

/// Reads the metrics of the `measured` list in `namespace` (all when `None`) until the current
/// owner is cleaned up.
pub fn use_metrics(discovery: &Discovery, measured: Measured, namespace: Option<&str>) -> UseMetrics {
    let metrics = UseMetrics {
        measured,
        table: RwSignal::new(None),
        problem: RwSignal::new(None),
        every_ms: RwSignal::new(None),
    };
    let plan = match plan(discovery, measured, namespace) {
        Ok(plan) => plan,
        Err(MetricsError::NotServed) => {
            metrics.problem.set(Some(MetricsProblem::NotServed));
            return metrics;
        }
        Err(error) => {
            metrics.problem.set(Some(MetricsProblem::Read(error)));
            return metrics;
        }
    };
    let client = use_client().for_current_owner();
    client.tasks().spawn(poll(client.clone(), plan, metrics));
    metrics
}

async fn poll(client: Client, plan: MetricsPlan, metrics: UseMetrics) {
    loop {
        let window = match round(&client, &plan).await {
            Ok(table) => {
                let every = poll_ms(table.scrape.window_ms);
                metrics.table.try_set(Some(table));
                metrics.problem.try_set(None);
                metrics.every_ms.try_set(Some(every));
                every
            }
            Err(problem) => {
                metrics.problem.try_set(Some(problem));
                poll_ms(None)
            }
        };
        sleep(Duration::from_millis(window as u64)).await;
    }
}

/// One round: both lists, read.
async fn round(client: &Client, plan: &MetricsPlan) -> Result<MetricsTable, MetricsProblem> {
    let (metrics, objects) =
        futures::future::join(client.document(plan.metrics.clone()), client.document(plan.objects.clone())).await;
    let (_, metrics) = metrics.map_err(MetricsProblem::Request)?;
    let (_, objects) = objects.map_err(MetricsProblem::Request)?;
    Ok(MetricsTable {
        scrape: read_scrape(&metrics, plan.measured).map_err(MetricsProblem::Read)?,
        capacities: read_capacities(&objects, plan.measured).map_err(MetricsProblem::Read)?,
    })
}
