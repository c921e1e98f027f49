//! A virtualized table: only the rows in view are in the DOM, so 10,000 rows scroll smoothly.
//! Sortable by any column (click a header), with a quick text filter; rows are focusable and open
//! their object on click or Enter. The grid may change while shown (a live view): filter, sort and
//! scroll stay, and a row's element is kept until its object's resourceVersion changes, so a row
//! marked `highlight` is tinted (CSS on `data-changed`) while it is new or just changed.

use leptos::prelude::*;

use crate::model::cells::{Grid, Row};
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
    #[prop(into)]
    grid: Signal<Grid>,
    /// Whether priority columns are shown.
    #[prop(into)]
    wide: Signal<bool>,
) -> impl IntoView {
    let navigation = use_navigation();
    let (filter, set_filter) = signal(String::new());
    let (sort, set_sort) = signal(None::<(usize, bool)>);
    let (scroll_top, set_scroll_top) = signal(0.0_f64);
    // `try_with`: a grid handed over as a plain value lives in the parent's scope, which may be
    // disposed (the parent redraws) just before this view is.
    let order = Memo::new(move |_| grid.try_with(|g| g.arrange(&filter.get(), sort.get())).unwrap_or_default());
    let columns = Memo::new(move |_| grid.try_with(|g| g.visible_columns(wide.get())).unwrap_or_default());
    // Memos compare: a live grid whose columns stay the same does not redraw the header.
    let column_list = Memo::new(move |_| grid.try_with(|g| g.columns.clone()).unwrap_or_default());
    let total = move || grid.try_with(|g| g.rows.len()).unwrap_or_default();
    let hidden = move || grid.try_with(|g| g.columns.len() - g.visible_columns(false).len()).unwrap_or_default();

    let header = {
        move || {
            columns
                .get()
                .into_iter()
                .filter_map(|i| column_list.with(|all| all.get(i).cloned()).map(|column| (i, column)))
                .map(|(i, column)| {
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

    // The rows in view: [first, last) of the arranged order.
    let window = Memo::new(move |_| {
        let shown = order.with(Vec::len);
        let first = ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN);
        let count = (VIEWPORT / ROW_HEIGHT) as usize + 2 * OVERSCAN;
        let last = (first + count).min(shown);
        (first.min(last), last, shown)
    });
    let span = move || columns.with(Vec::len).max(1);
    let visible_rows = move || {
        let (first, last, _) = window.get();
        order.with(|order| {
            grid.try_with(|g| {
                order
                    .get(first..last)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|&index| g.rows.get(index).map(|row| (row_key(row, index), row.clone())))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
        })
    };
    let row_view = move |(_, row): (String, Row)| {
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
        let cells = row.cells;
        view! {
            <tr
                class="grid__row"
                tabindex="0"
                data-testid="grid-row"
                data-rv=row.resource_version
                data-changed=row.highlight.then_some("true")
                on:click=move |_| open()
                on:keydown=move |e| {
                    if e.key() == "Enter" {
                        open_on_key();
                    }
                }
            >
                {move || {
                    columns
                        .get()
                        .into_iter()
                        .map(|c| {
                            let cell = cells.get(c).cloned();
                            let (text, title) = cell.map(|c| (c.text, c.title)).unwrap_or_default();
                            view! { <td title=title>{text}</td> }
                        })
                        .collect_view()
                }}
            </tr>
        }
    };
    let body = move || {
        view! {
            <tr
                aria-hidden="true"
                class="grid__spacer"
                style:height=move || format!("{}px", window.get().0 as f64 * ROW_HEIGHT)
            >
                <td colspan=span></td>
            </tr>
            <For each=visible_rows key=|(key, _)| key.clone() children=row_view />
            <tr
                aria-hidden="true"
                class="grid__spacer"
                style:height=move || {
                    let (_, last, shown) = window.get();
                    format!("{}px", (shown - last) as f64 * ROW_HEIGHT)
                }
            >
                <td colspan=span></td>
            </tr>
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
                        let (shown, total) = (order.with(Vec::len), total());
                        if shown == total { format!("{total} rows") } else { format!("{shown} of {total} rows") }
                    }}
                </span>
                {move || {
                    let hidden = hidden();
                    (hidden > 0 && !wide.get())
                        .then(|| view! { <span class="muted">{format!("{hidden} priority columns hidden (Wide shows them)")}</span> })
                }}
            </div>
            {move || {
                (total() == 0)
                    .then(|| {
                        view! {
                            <p class="muted" data-testid="empty-state">
                                "The server returned an empty list: no objects match this namespace and these selectors."
                            </p>
                        }
                    })
            }}
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

/// The identity of a row's element: its object (uid, else namespace/name, else its place) at its
/// resourceVersion, so a new version is a new element (tinted if highlighted); the end of a
/// highlight makes a plain element again.
fn row_key(row: &Row, index: usize) -> String {
    let version = row.resource_version.as_deref().unwrap_or_default();
    let mark = if row.highlight { "*" } else { "" };
    match &row.uid {
        Some(uid) => format!("{uid}@{version}{mark}"),
        None => format!("{}/{}#{index}@{version}{mark}", row.namespace.as_deref().unwrap_or_default(), row.name),
    }
}
