//! CPU and memory columns in the pods and nodes lists ([`use_metrics`]), and the one line that
//! says when they were measured, why they are missing (no metrics-server), or what failed.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::discovery::Discovery;
use crate::client::metrics::{use_metrics, UseMetrics};
use crate::i18n::Msg;
use std::collections::HashMap;

use crate::model::cells::{Cell, Column, Grid, Row};
use crate::model::metrics::{Measured, MetricColumn, MetricsTable};
use crate::ui::i18n::{filled_text, localized, text_now};
use crate::ui::location::use_navigation;

/// The grid of the list shown, with its CPU and memory columns when it is a pods or nodes list,
/// and the metrics they come from.
pub fn measured_grid(grid: Signal<Grid>) -> (Signal<Grid>, Option<UseMetrics>) {
    let state = use_navigation().state.get_untracked();
    let discovery = use_context::<Arc<Discovery>>();
    let measured = discovery.as_ref().zip(state.resource.as_ref()).and_then(|(discovery, key)| {
        discovery.find_resource(&key.group, &key.version, &key.plural).and_then(Measured::of)
    });
    let (Some(discovery), Some(measured)) = (discovery, measured) else { return (grid, None) };
    let namespace = state.namespace.clone();
    let metrics = use_metrics(&discovery, measured, namespace.as_deref());
    let empty = MetricsTable::default();
    let merged = Memo::new(move |_| {
        let name = |column: MetricColumn| {
            let (name, description) = column.texts();
            Column { name: text_now(name), description: text_now(description), priority: 0 }
        };
        let served = !metrics.problem.with(|p| p.as_ref().is_some_and(|p| p.is_calm()));
        grid.try_with(|g| {
            if !served {
                return g.clone();
            }
            metrics.table.with(|table| table.as_ref().unwrap_or(&empty).merge(g, measured, namespace.as_deref(), name))
        })
        .unwrap_or_default()
    });
    (merged.into(), Some(metrics))
}

/// For a measured list, each row's place in `grid` by its identity (`identity`), so that a row's
/// element, kept while its object's resourceVersion stays, shows the metrics of each round
/// ([`current_cells`]); `None` for another list, which needs none.
pub fn row_places(
    grid: Signal<Grid>,
    measured: bool,
    identity: fn(&Row) -> String,
) -> Option<Memo<HashMap<String, usize>>> {
    measured.then(|| {
        Memo::new(move |_| {
            grid.try_with(|g| g.rows.iter().enumerate().map(|(i, row)| (identity(row), i)).collect())
                .unwrap_or_default()
        })
    })
}

/// The cells of the row with `identity` as `grid` has them now (tracked), else `cells`, those it
/// was drawn with.
pub fn current_cells(
    grid: Signal<Grid>,
    places: Option<Memo<HashMap<String, usize>>>,
    identity: &str,
    cells: &[Cell],
) -> Vec<Cell> {
    places
        .and_then(|places| places.with(|p| p.get(identity).copied()))
        .and_then(|i| grid.try_with(|g| g.rows.get(i).map(|r| r.cells.clone())).flatten())
        .unwrap_or_else(|| cells.to_vec())
}

/// When the figures were measured and how often they are read again, or why there are none.
#[component]
pub fn MetricsLine(metrics: UseMetrics) -> impl IntoView {
    let line = move || {
        if let Some(problem) = metrics.problem.get() {
            let calm = problem.is_calm();
            let text = localized(&problem);
            return view! {
                <p class=if calm { "muted" } else { "status-error" } data-testid="metrics-line" data-calm=calm.to_string() role="status">
                    {text}
                </p>
            }
            .into_any();
        }
        let text = metrics.table.with(|table| match table {
            None => text_now(Msg::MetricsReading),
            Some(table) => {
                let seconds = |ms: f64| format!("{}s", ms / 1000.0);
                let window = table.scrape.window_ms.map(seconds).unwrap_or_default();
                let every = metrics.every_ms.get().map(seconds).unwrap_or_default();
                let timestamp = table.scrape.timestamp.clone().unwrap_or_default();
                filled_text(Msg::MetricsMeasured, &[("timestamp", &timestamp), ("window", &window), ("every", &every)])
            }
        });
        view! { <p class="muted" data-testid="metrics-line" role="status">{text}</p> }.into_any()
    };
    view! { {line} }
}
