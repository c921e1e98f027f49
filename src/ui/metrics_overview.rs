//! A namespace's CPU and memory on its screen ([`use_namespace_metrics`]): the pods' usage summed
//! against their requests and limits, the pods that use the most (links to them), and the sums
//! over time since the screen opened, drawn by `ui::metrics_chart`'s charts.

use std::sync::Arc;

use leptos::prelude::*;

use crate::client::metrics::UseNamespaceMetrics;
use crate::i18n::Msg;
use crate::model::metrics::Usage;
use crate::model::metrics_chart::Figure;
use crate::model::metrics_overview::{Bound, Overview};
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::i18n::{filled_text, live_text, text_now};
use crate::ui::location::ViewLink;
use crate::ui::metrics::MetricsLine;
use crate::ui::metrics_chart::LineChart;

/// A bound's cell: its total and the share in use, or that no pod sets it.
fn bound(figure: Figure, bound: Bound) -> String {
    match bound.share() {
        Some(share) => filled_text(
            Msg::NsMetricsBound,
            &[("total", &figure.show(bound.total)), ("share", &share), ("pods", &bound.pods)],
        ),
        None => text_now(Msg::NsMetricsUnset),
    }
}

/// The namespace's panel.
#[component]
pub fn NamespaceMetrics(metrics: UseNamespaceMetrics, namespace: String) -> impl IntoView {
    let history = metrics.history;
    let namespace = Arc::new(namespace);
    let figures = move || {
        metrics.overview.get().map(|overview| {
            let namespace = namespace.clone();
            view! { <Totals overview=overview.clone() /> <Tops overview namespace /> }
        })
    };
    view! {
        <section class="panel metrics-charts" aria-label=live_text(Msg::NsMetricsTitle) data-testid="namespace-metrics">
            <h3>{live_text(Msg::NsMetricsTitle)}</h3>
            <MetricsLine metrics=metrics.rounds />
            {figures}
            <h4>{live_text(Msg::NsMetricsOverTime)}</h4>
            <div class="metrics-charts__figures">
                <LineChart history figure=Figure::Cpu />
                <LineChart history figure=Figure::Memory />
            </div>
        </section>
    }
}

/// In use, requested and limits, for CPU and memory.
#[component]
fn Totals(overview: Overview) -> impl IntoView {
    let in_use = filled_text(Msg::NsMetricsInUse, &[("measured", &overview.measured), ("pods", &overview.pods)]);
    view! {
        <table class="table metrics-overview__totals" data-testid="namespace-metrics-totals">
            <thead>
                <tr>
                    <td></td>
                    <th scope="col">{live_text(Msg::MetricsCpu)}</th>
                    <th scope="col">{live_text(Msg::MetricsMemory)}</th>
                </tr>
            </thead>
            <tbody>
                <tr>
                    <th scope="row">{in_use}</th>
                    <td>{Figure::Cpu.show(overview.usage.cpu)}</td>
                    <td>{Figure::Memory.show(overview.usage.memory)}</td>
                </tr>
                <tr>
                    <th scope="row">{live_text(Msg::NsMetricsRequested)}</th>
                    <td>{bound(Figure::Cpu, overview.cpu_requests)}</td>
                    <td>{bound(Figure::Memory, overview.memory_requests)}</td>
                </tr>
                <tr>
                    <th scope="row">{live_text(Msg::NsMetricsLimits)}</th>
                    <td>{bound(Figure::Cpu, overview.cpu_limits)}</td>
                    <td>{bound(Figure::Memory, overview.memory_limits)}</td>
                </tr>
            </tbody>
        </table>
    }
}

/// The pods using the most CPU and the most memory, each a link to its screen.
#[component]
fn Tops(overview: Overview, namespace: Arc<String>) -> impl IntoView {
    let list = |title: Msg, figure: Figure, pods: Vec<(String, Usage)>, testid: &'static str| {
        let namespace = namespace.clone();
        let items = pods
            .into_iter()
            .map(|(name, usage)| {
                let value = figure.show(figure.amount(&usage));
                let (namespace, target) = (namespace.clone(), name.clone());
                let change: Arc<dyn Fn(&mut ViewState) + Send + Sync> = Arc::new(move |state: &mut ViewState| {
                    state.resource =
                        Some(ResourceKey { group: String::new(), version: "v1".into(), plural: "pods".into() });
                    state.namespace = Some(namespace.to_string());
                    state.name = Some(target.clone());
                    state.watch = None;
                });
                view! {
                    <li>
                        <ViewLink change>{name}</ViewLink>
                        " "
                        <span class="muted">{value}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="metrics-overview__top">
                <h4>{live_text(title)}</h4>
                <ol data-testid=testid>{items}</ol>
            </div>
        }
    };
    view! {
        <div class="metrics-charts__figures">
            {list(Msg::NsMetricsTopCpu, Figure::Cpu, overview.top_cpu, "namespace-top-cpu")}
            {list(Msg::NsMetricsTopMemory, Figure::Memory, overview.top_memory, "namespace-top-memory")}
        </div>
    }
}
