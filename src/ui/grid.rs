//! A virtualized table: only the rows in view are in the DOM, so 10,000 rows scroll smoothly.
//! Sortable by any column (click a header), with a quick text filter; rows are focusable and open
//! their object on click or Enter.

use std::sync::Arc;

use leptos::prelude::*;

use crate::model::cells::Grid;
use crate::ui::location::use_navigation;

/// Row height in pixels; fixed so that the visible range is arithmetic.
const ROW_HEIGHT: f64 = 30.0;
/// Rows rendered above and below the visible ones.
const OVERSCAN: usize = 8;
/// The viewport height of the table body in pixels (CSS uses the same value).
const VIEWPORT: f64 = 600.0;

/// Shows `grid` with its priority-0 columns, and the others when `wide`.
#[component]
pub fn GridView(
    /// The rows and columns to show.
    grid: Grid,
    /// Whether priority columns are shown.
    #[prop(into)]
    wide: Signal<bool>,
) -> impl IntoView {
    let navigation = use_navigation();
    let grid = Arc::new(grid);
    let (filter, set_filter) = signal(String::new());
    let (sort, set_sort) = signal(None::<(usize, bool)>);
    let (scroll_top, set_scroll_top) = signal(0.0_f64);
    let order = {
        let grid = grid.clone();
        Memo::new(move |_| grid.arrange(&filter.get(), sort.get()))
    };
    let columns = {
        let grid = grid.clone();
        Memo::new(move |_| grid.visible_columns(wide.get()))
    };
    let total = grid.rows.len();
    let hidden = grid.columns.len() - grid.visible_columns(false).len();

    let header = {
        let grid = grid.clone();
        move || {
            columns
                .get()
                .into_iter()
                .map(|i| {
                    let column = grid.columns[i].clone();
                    let aria_sort = move || match sort.get() {
                        Some((c, true)) if c == i => "ascending",
                        Some((c, false)) if c == i => "descending",
                        _ => "none",
                    };
                    view! {
                        <th aria-sort=aria_sort title=column.description.clone()>
                            <button
                                class="grid__sort"
                                on:click=move |_| {
                                    set_sort
                                        .update(|s| {
                                            *s = match *s {
                                                Some((c, true)) if c == i => Some((i, false)),
                                                _ => Some((i, true)),
                                            };
                                        })
                                }
                            >
                                {column.name.clone()}
                            </button>
                        </th>
                    }
                })
                .collect_view()
        }
    };

    let body = {
        let grid = grid.clone();
        move || {
            let order = order.get();
            let columns = columns.get();
            let first = ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN);
            let count = (VIEWPORT / ROW_HEIGHT) as usize + 2 * OVERSCAN;
            let last = (first + count).min(order.len());
            let before = first as f64 * ROW_HEIGHT;
            let after = (order.len() - last) as f64 * ROW_HEIGHT;
            let span = columns.len().max(1);
            let rows = order[first.min(last)..last]
                .iter()
                .map(|&index| {
                    let row = grid.rows[index].clone();
                    let (namespace, name) = (row.namespace.clone(), row.name.clone());
                    let open = move || {
                        let (namespace, name) = (namespace.clone(), name.clone());
                        navigation.update(move |s| {
                            s.name = Some(name);
                            if namespace.is_some() {
                                s.namespace = namespace;
                            }
                        });
                    };
                    let open_on_key = open.clone();
                    view! {
                        <tr
                            class="grid__row"
                            tabindex="0"
                            data-testid="grid-row"
                            on:click=move |_| open()
                            on:keydown=move |e| {
                                if e.key() == "Enter" {
                                    open_on_key();
                                }
                            }
                        >
                            {columns
                                .iter()
                                .map(|&c| {
                                    let cell = row.cells.get(c).cloned();
                                    let (text, title) = cell.map(|c| (c.text, c.title)).unwrap_or_default();
                                    view! { <td title=title>{text}</td> }
                                })
                                .collect_view()}
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <tr aria-hidden="true" class="grid__spacer" style:height=format!("{before}px")>
                    <td colspan=span></td>
                </tr>
                {rows}
                <tr aria-hidden="true" class="grid__spacer" style:height=format!("{after}px")>
                    <td colspan=span></td>
                </tr>
            }
        }
    };

    view! {
        <div class="grid">
            <div class="grid__bar">
                <input
                    type="search"
                    class="grid__filter"
                    aria-label="Quick filter"
                    placeholder="Quick filter (this page)"
                    prop:value=filter
                    on:input=move |e| {
                        set_filter.set(event_target_value(&e));
                        set_scroll_top.set(0.0);
                    }
                />
                <span class="muted" data-testid="row-count">
                    {move || {
                        let shown = order.with(Vec::len);
                        if shown == total { format!("{total} rows") } else { format!("{shown} of {total} rows") }
                    }}
                </span>
                {(hidden > 0 && !wide.get_untracked())
                    .then(|| view! { <span class="muted">{format!("{hidden} priority columns hidden (Wide shows them)")}</span> })}
            </div>
            <div
                class="grid__viewport"
                data-testid="grid-viewport"
                on:scroll=move |e| {
                    let target: web_sys::Element = event_target(&e);
                    set_scroll_top.set(target.scroll_top() as f64);
                }
            >
                <table class="grid__table" aria-rowcount=move || order.with(Vec::len).to_string()>
                    <thead>
                        <tr>{header}</tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </div>
    }
}
