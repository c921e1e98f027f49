//! `use_metrics`: the CPU and memory of the pods or nodes of one list, read from
//! `metrics.k8s.io` as [`model::metrics::plan`](crate::model::metrics::plan) chose, together
//! with the pods' requests and limits or the nodes' allocatable, again each time a metrics window
//! has passed ([`poll_ms`]): metrics-server keeps only its last scrape. The rounds are tasks of
//! the current owner, so they stop when the list's view goes.
//!
//! `use_metrics_history`: one pod's or node's metrics, read every window while its screen is
//! open and kept as a [`MetricsHistory`] (the charts of `ui::metrics_chart`).

use std::time::Duration;

use leptos::prelude::*;

use crate::api::discovery::Discovery;
use crate::api::request::Request;
use crate::client::error::ApiError;
use crate::client::handle::{use_client, Client};
use crate::client::task::sleep;
use crate::i18n::{Localized, Msg, Text};
use crate::model::metrics::{
    plan, poll_ms, read_capacities, read_capacities_lazily, read_scrape, Measured, MetricsError, MetricsPlan,
    MetricsTable,
};
use crate::model::metrics_chart::{plan_object, MetricsHistory};
use crate::model::metrics_overview::{overview, Overview};

/// Why the metrics are not shown.
#[derive(Debug, Clone)]
pub enum MetricsProblem {
    /// No metrics-server: discovery does not list `metrics.k8s.io` (a calm line, not an error).
    NotServed,
    /// A list was refused or failed (an APIService that is down answers 503).
    Request(ApiError),
    /// A list came back but did not read.
    Read(MetricsError),
    /// metrics-server has no metrics for the object (404): a pod that is not running, or one
    /// not scraped yet. Asked again next window.
    Absent,
}

impl MetricsProblem {
    /// Whether this is the cluster's normal state rather than a failure.
    pub fn is_calm(&self) -> bool {
        matches!(self, MetricsProblem::NotServed | MetricsProblem::Absent)
    }
}

impl Localized for MetricsProblem {
    fn text(&self) -> Text {
        match self {
            MetricsProblem::NotServed => MetricsError::NotServed.text(),
            MetricsProblem::Request(error) => Text::new(Msg::MetricsFailed).with_text("why", error.clone()),
            MetricsProblem::Read(error) => error.text(),
            MetricsProblem::Absent => Text::new(Msg::MetricsAbsent),
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

/// One round: both lists, read. The objects' list (every pod of the namespace or the cluster,
/// whole) is read lazily: its items stay bytes and are decoded one at a time
/// ([`read_capacities_lazily`]); the inspector sees the exchange undecoded.
async fn round(client: &Client, plan: &MetricsPlan) -> Result<MetricsTable, MetricsProblem> {
    let (metrics, objects) =
        futures::future::join(client.document(plan.metrics.clone()), client.send_undecoded(plan.objects.clone())).await;
    let (_, metrics) = metrics.map_err(MetricsProblem::Request)?;
    let objects = objects.map_err(|error| MetricsProblem::Request(error.into()))?;
    let capacities = match objects.response.is_success().then(|| objects.list_document()).flatten() {
        Some(Ok(list)) => read_capacities_lazily(&list.list, plan.measured).map_err(MetricsProblem::Read)?,
        Some(Err(message)) => {
            return Err(MetricsProblem::Request(ApiError::Undecodable { code: objects.response.status, message }))
        }
        // A failure, or a body the lazy reader does not take: read as a document (its error).
        None => {
            let document = objects.document().map_err(MetricsProblem::Request)?;
            read_capacities(&document, plan.measured).map_err(MetricsProblem::Read)?
        }
    };
    Ok(MetricsTable { scrape: read_scrape(&metrics, plan.measured).map_err(MetricsProblem::Read)?, capacities })
}

/// What [`use_metrics_history`] gives the view.
#[derive(Clone, Copy)]
pub struct UseMetricsHistory {
    pub measured: Measured,
    /// Every scrape read since the screen opened, oldest first.
    pub history: RwSignal<MetricsHistory>,
    /// Why the last reading failed, that metrics are not served, or that there are none yet.
    pub problem: RwSignal<Option<MetricsProblem>>,
    /// Milliseconds between readings (the window), once one has read.
    pub every_ms: RwSignal<Option<f64>>,
}

/// Reads the metrics of the `measured` object `name` (in `namespace` for a pod) once a window
/// until the current owner is cleaned up, keeping every new scrape.
pub fn use_metrics_history(
    discovery: &Discovery,
    measured: Measured,
    namespace: Option<&str>,
    name: &str,
) -> UseMetricsHistory {
    let metrics = UseMetricsHistory {
        measured,
        history: RwSignal::new(MetricsHistory::default()),
        problem: RwSignal::new(None),
        every_ms: RwSignal::new(None),
    };
    match plan_object(discovery, measured, namespace, name) {
        Ok(request) => {
            let client = use_client().for_current_owner();
            client.tasks().spawn(poll_object(client.clone(), request, metrics));
        }
        Err(MetricsError::NotServed) => metrics.problem.set(Some(MetricsProblem::NotServed)),
        Err(error) => metrics.problem.set(Some(MetricsProblem::Read(error))),
    }
    metrics
}

async fn poll_object(client: Client, request: Request, metrics: UseMetricsHistory) {
    loop {
        let read = client.document(request.clone()).await;
        let problem = match read {
            Ok((_, document)) => {
                let recorded = metrics.history.try_update(|h| h.record(&document, metrics.measured));
                match recorded {
                    Some(Ok(recorded)) => {
                        metrics.every_ms.try_set(Some(poll_ms(recorded.window_ms)));
                        None
                    }
                    Some(Err(error)) => Some(MetricsProblem::Read(error)),
                    None => return,
                }
            }
            Err(error) if error.code() == Some(404) => Some(MetricsProblem::Absent),
            Err(error) => Some(MetricsProblem::Request(error)),
        };
        metrics.problem.try_set(problem);
        let every = metrics.every_ms.try_get_untracked().flatten();
        sleep(Duration::from_millis(poll_ms(every) as u64)).await;
    }
}

/// What [`use_namespace_metrics`] gives the view.
#[derive(Clone, Copy)]
pub struct UseNamespaceMetrics {
    /// The namespace's pods' rounds (their metrics and their requests and limits).
    pub rounds: UseMetrics,
    /// The last round summed up, `None` before the first.
    pub overview: Memo<Option<Overview>>,
    /// The pods' usage summed, one sample a scrape, since the screen opened.
    pub history: RwSignal<MetricsHistory>,
}

/// Reads the metrics of `namespace`'s pods every window (as [`use_metrics`]) and keeps their sum
/// over time, until the current owner is cleaned up.
pub fn use_namespace_metrics(discovery: &Discovery, namespace: &str) -> UseNamespaceMetrics {
    let rounds = use_metrics(discovery, Measured::Pods, Some(namespace));
    let history = RwSignal::new(MetricsHistory::default());
    let overview = Memo::new(move |_| rounds.table.with(|table| table.as_ref().map(overview)));
    Effect::new(move |_| {
        let Some(total) = overview.with(|o| o.as_ref().map(|o| o.usage)) else { return };
        let timestamp = rounds.table.with_untracked(|t| t.as_ref().and_then(|t| t.scrape.timestamp.clone()));
        let Some(timestamp) = timestamp else { return };
        if let Some(Err(error)) = history.try_update(|h| h.record_usage(&timestamp, total)) {
            rounds.problem.try_set(Some(MetricsProblem::Read(error)));
        }
    });
    UseNamespaceMetrics { rounds, overview, history }
}
