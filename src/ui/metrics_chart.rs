//! A pod's or a node's CPU and memory over time ([`use_metrics_history`], kept since its screen
//! opened): two line charts drawn from `model::metrics_chart::chart`'s geometry as SVG elements
//! (classes in `style/charts.css`, no inline style, as the Content-Security-Policy asks), each
//! described in words for screen readers, and a table of the same samples. Loaded on demand
//! with the object screen (the `browse` part, `ui::lazy`), not in the page load.

use leptos::prelude::*;

use crate::client::metrics::UseMetricsHistory;
use crate::i18n::Msg;
use crate::model::metrics_chart::{chart, time_of_day, Chart, Figure, MetricsHistory};
use crate::ui::i18n::{filled_text, live_text, localized, text_now};

/// The size of each chart's drawing, in SVG units (it is scaled to the panel's width).
const SIZE: (f64, f64) = (456.0, 132.0);

/// The panel: when the figures were read, both charts and the table.
#[component]
pub fn MetricsCharts(metrics: UseMetricsHistory) -> impl IntoView {
    let history = metrics.history;
    let line = move || {
        if let Some(problem) = metrics.problem.get() {
            let calm = problem.is_calm();
            let class = if calm { "muted" } else { "status-error" };
            return view! { <p class=class data-testid="metrics-chart-line" data-calm=calm.to_string()>{localized(&problem)}</p> }
                .into_any();
        }
        let text = match metrics.every_ms.get() {
            Some(every) => filled_text(Msg::MetricsChartEvery, &[("every", &format!("{}s", every / 1000.0))]),
            None => text_now(Msg::MetricsReading),
        };
        view! { <p class="muted" data-testid="metrics-chart-line">{text}</p> }.into_any()
    };
    view! {
        <section class="panel metrics-charts" aria-label=live_text(Msg::MetricsChartTitle) data-testid="metrics-charts">
            <h3>{live_text(Msg::MetricsChartTitle)}</h3>
            <div role="status">{line}</div>
            <div class="metrics-charts__figures">
                <LineChart history figure=Figure::Cpu />
                <LineChart history figure=Figure::Memory />
            </div>
            <SampleTable history />
        </section>
    }
}

/// One figure's chart, with its title and its description in words.
#[component]
pub(crate) fn LineChart(history: RwSignal<MetricsHistory>, figure: Figure) -> impl IntoView {
    let title = match figure {
        Figure::Cpu => Msg::MetricsChartCpu,
        Figure::Memory => Msg::MetricsChartMemory,
    };
    let geometry = Memo::new(move |_| history.with(|h| chart(h.samples(), figure, SIZE.0, SIZE.1)));
    let described = move || history.with(|h| describe(h, figure));
    let (id, described_id) = match figure {
        Figure::Cpu => ("metrics-chart-cpu", "metrics-chart-cpu-described"),
        Figure::Memory => ("metrics-chart-memory", "metrics-chart-memory-described"),
    };
    view! {
        <figure class="metrics-chart" data-testid=id>
            <figcaption id=id>{live_text(title)}</figcaption>
            <svg
                class="metrics-chart__svg"
                viewBox=format!("0 0 {} {}", SIZE.0, SIZE.1)
                role="img"
                aria-labelledby=id
                aria-describedby=described_id
            >
                {move || geometry.with(drawing)}
            </svg>
            <p class="visually-hidden" id=described_id data-testid=described_id>{described}</p>
        </figure>
    }
}

/// The chart's axes, grid lines, labels and line.
fn drawing(chart: &Chart) -> impl IntoView {
    let (left, top, right, bottom) = chart.plot;
    let y_ticks = chart
        .y_ticks
        .iter()
        .map(|tick| {
            view! {
                <line class="metrics-chart__grid" x1=left x2=right y1=tick.at y2=tick.at />
                <text class="metrics-chart__label" x=left - 6.0 y=tick.at + 4.0 text-anchor="end">{tick.label.clone()}</text>
            }
        })
        .collect_view();
    let x_ticks = chart
        .x_ticks
        .iter()
        .enumerate()
        .map(|(i, tick)| {
            let anchor = if chart.x_ticks.len() == 1 { "middle" } else if i == 0 { "start" } else { "end" };
            view! { <text class="metrics-chart__label" x=tick.at y=bottom + 16.0 text-anchor=anchor>{tick.label.clone()}</text> }
        })
        .collect_view();
    let points = (chart.points.len() == 1).then(|| {
        let (x, y) = chart.points[0];
        view! { <circle class="metrics-chart__point" cx=x cy=y r="3" /> }
    });
    view! {
        {y_ticks}
        <line class="metrics-chart__axis" x1=left x2=left y1=top y2=bottom />
        <line class="metrics-chart__axis" x1=left x2=right y1=bottom y2=bottom />
        {x_ticks}
        <path class="metrics-chart__line" d=chart.path.clone() data-testid="metrics-chart-path" />
        {points}
    }
}

/// The chart in words: its span, lowest, highest and last value.
fn describe(history: &MetricsHistory, figure: Figure) -> String {
    let values: Vec<i128> = history.samples().map(|s| figure.value(s)).collect();
    match (history.samples().next(), history.samples().last(), values.iter().min(), values.iter().max()) {
        (Some(first), Some(last), Some(low), Some(high)) => filled_text(
            Msg::MetricsChartDescribed,
            &[
                ("first", &time_of_day(first)),
                ("last", &time_of_day(last)),
                ("low", &figure.label(*low)),
                ("high", &figure.label(*high)),
                ("latest", &figure.label(figure.value(last))),
            ],
        ),
        _ => text_now(Msg::MetricsChartEmpty),
    }
}

/// The samples as a table, newest first (folded: the charts show the same).
#[component]
fn SampleTable(history: RwSignal<MetricsHistory>) -> impl IntoView {
    let rows = move || {
        history.with(|h| {
            h.samples()
                .rev()
                .map(|s| {
                    view! {
                        <tr>
                            <td>{s.timestamp.clone()}</td>
                            <td>{Figure::Cpu.label(Figure::Cpu.value(s))}</td>
                            <td>{Figure::Memory.label(Figure::Memory.value(s))}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <details class="metrics-charts__table">
            <summary>{live_text(Msg::MetricsChartTable)}</summary>
            <table class="table" data-testid="metrics-samples">
                <thead>
                    <tr>
                        <th scope="col">{live_text(Msg::MetricsChartTime)}</th>
                        <th scope="col">{live_text(Msg::MetricsCpu)}</th>
                        <th scope="col">{live_text(Msg::MetricsMemory)}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}
