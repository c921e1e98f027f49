//! A virtualized table: only the rows in view are in the DOM, so 10,000 rows scroll smoothly.
//! Sortable by any column (click a header), with a quick text filter; rows are focusable and open
//! their object on click or Enter; `j`/`k` (or the arrows on a row) move between rows, scrolling
//! as needed, and `e`/`l` open the row's object in the editor or at its log. The grid may change while shown (a live view): filter, sort and
//! scroll stay, and a row's element is kept until its object's resourceVersion changes, so a row
//! marked `highlight` is tinted (CSS on `data-changed`) while it is new or just changed.

use leptos::prelude::*;

use crate::api::discovery::Discovery;
use crate::client::clock::use_wall_clock;
use crate::i18n::Msg;
use crate::model::cells::{Cell, Grid, Row};
use crate::model::goto::{kind_slash_name, Target};
use crate::ui::i18n::{filled_text, live_text, text_now};
use crate::ui::intl;
use crate::ui::keys::{modified, typing, Intent, Intents};
use crate::ui::location::{use_navigation, Navigation, ViewLink};

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
    /// Whether the rows are still being listed (a live view before its first complete list):
    /// an empty grid then says that nothing has arrived yet, not that the list is empty.
    #[prop(optional, into)]
    listing: Option<Signal<bool>>,
) -> impl IntoView {
    // A pods or nodes list gains CPU and memory columns (metrics.k8s.io) and a line about them.
    let (grid, metrics) = crate::ui::metrics::measured_grid(grid);
    // A measured list's metrics change without a new resourceVersion: a row finds its cells anew.
    let row_places = crate::ui::metrics::row_places(grid, metrics.is_some(), row_identity);
    let navigation = use_navigation();
    let clock = use_wall_clock();
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
    // An Event's Object column (`pod/web-1`, as kubectl prints it) links the object it is about.
    let discovery = use_context::<std::sync::Arc<Discovery>>();
    let object_column = Memo::new(move |_| {
        let events = navigation.state.with(|s| s.resource.as_ref().is_some_and(|r| r.plural == "events"));
        column_list.with(|all| all.iter().position(|c| events && c.name.eq_ignore_ascii_case("object")))
    });
    let hidden = move || grid.try_with(|g| g.columns.len() - g.visible_columns(false).len()).unwrap_or_default();
    // The row the keys act on (its object's identity), and the element that scrolls.
    let cursor = RwSignal::new(None::<String>);
    let viewport = NodeRef::<leptos::html::Div>::new();
    let move_cursor = move |step: isize| {
        let Some((position, identity)) = grid
            .try_with(|g| {
                order.with_untracked(|order| {
                    let at = cursor.with_untracked(|c| {
                        c.as_ref().and_then(|c| {
                            order.iter().position(|&i| g.rows.get(i).is_some_and(|r| &row_identity(r) == c))
                        })
                    });
                    let next = match at {
                        Some(at) => at.saturating_add_signed(step).min(order.len().saturating_sub(1)),
                        None => 0,
                    };
                    order.get(next).and_then(|&i| g.rows.get(i)).map(|r| (next, row_identity(r)))
                })
            })
            .flatten()
        else {
            return;
        };
        cursor.set(Some(identity.clone()));
        if let Some(element) = viewport.get_untracked() {
            let top = position as f64 * ROW_HEIGHT;
            let (shown_top, height) = (element.scroll_top() as f64, element.client_height() as f64);
            // The header row takes a row's height at the top of the viewport.
            if top < shown_top {
                element.set_scroll_top(top as i32);
            } else if top + 2.0 * ROW_HEIGHT > shown_top + height {
                element.set_scroll_top((top + 2.0 * ROW_HEIGHT - height) as i32);
            }
            set_scroll_top.set(element.scroll_top() as f64);
            request_animation_frame(move || {
                let selector = format!("tr[data-identity=\"{}\"]", identity.replace('"', "\\\""));
                if let Ok(Some(row)) = element.query_selector(&selector) {
                    if let Some(row) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&row) {
                        let _ = row.focus();
                    }
                }
            });
        }
    };
    let intents = Intents::here();
    let open_cursor = move |intent: Intent| {
        let row = cursor.with_untracked(|c| {
            let c = c.as_ref()?;
            grid.try_with(|g| g.rows.iter().find(|r| &row_identity(r) == c).cloned()).flatten()
        });
        if let Some(row) = row {
            if let Some(intents) = intents {
                intents.leave(intent);
            }
            open_row(navigation, &row);
        }
    };
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        if typing(&event) || modified(&event) {
            return;
        }
        let on_row = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|e| e.closest(".grid__row").ok().flatten().is_some());
        match event.key().as_str() {
            "j" => move_cursor(1),
            "k" => move_cursor(-1),
            "ArrowDown" if on_row => move_cursor(1),
            "ArrowUp" if on_row => move_cursor(-1),
            "e" => open_cursor(Intent::Edit),
            "l" => open_cursor(Intent::Log),
            _ => return,
        }
        event.prevent_default();
    });
    on_cleanup(move || handle.remove());

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
        let identity = row_identity(&row);
        let (on_focus, at_cursor) = (identity.clone(), identity.clone());
        let place_identity = identity.clone();
        let open_row_data = row.clone();
        let open = move || open_row(navigation, &open_row_data);
        let open_on_key = open.clone();
        let cells = row.cells;
        // The row's cells as the grid has them now: a memo, so that the many grid changes that
        // leave this row's cells as they were (a live view redraws at every frame of a burst)
        // do not draw them again; a measured list's row takes each metrics round's cells.
        let current = Memo::new(move |_| crate::ui::metrics::current_cells(grid, row_places, &place_identity, &cells));
        let (row_namespace, discovery) = (row.namespace.clone(), discovery.clone());
        view! {
            <tr
                class="grid__row"
                tabindex="0"
                data-testid="grid-row"
                data-identity=identity
                class:grid__row--cursor=move || cursor.with(|c| c.as_deref() == Some(at_cursor.as_str()))
                on:focus=move |_| cursor.set(Some(on_focus.clone()))
                data-rv=row.resource_version
                data-changed=row.highlight.then_some("true")
                on:click=move |_| open()
                on:keydown=move |e| {
                    // Enter on a link inside the row is the link's.
                    if e.key() == "Enter" && e.target() == e.current_target() {
                        open_on_key();
                    }
                }
            >
                {move || {
                    let cells = current.get();
                    columns
                        .get()
                        .into_iter()
                        .map(|c| {
                            let cell = cells.get(c).cloned();
                            // An age is drawn from the ticking clock, so that it stays true.
                            let aging = cell.clone().filter(Cell::ages);
                            let (text, title) = cell.map(|c| (c.text, c.title)).unwrap_or_default();
                            let target = (object_column.get() == Some(c))
                                .then_some(discovery.as_ref())
                                .flatten()
                                .and_then(|d| kind_slash_name(d, &text, row_namespace.as_deref()));
                            match target {
                                Some(Target::Object { key, namespace, name }) => {
                                    let change = std::sync::Arc::new(move |s: &mut crate::model::view_state::ViewState| {
                                        s.open_collection(key.clone());
                                        s.name = Some(name.clone());
                                        if namespace.is_some() {
                                            s.namespace = namespace.clone();
                                        }
                                    });
                                    view! {
                                        <td title=title>
                                            // The row opens the Event; the link, its object.
                                            <span on:click=|e| e.stop_propagation()>
                                                <ViewLink change testid="cell-link">
                                                    {text}
                                                </ViewLink>
                                            </span>
                                        </td>
                                    }
                                        .into_any()
                                }
                                _ => match aging {
                                    Some(cell) => {
                                        view! { <td title=title>{move || cell.text_at(clock.get()).into_owned()}</td> }
                                            .into_any()
                                    }
                                    None => view! { <td title=title>{text}</td> }.into_any(),
                                },
                            }
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
            <For each=visible_rows key=|(key, _)| key.clone() children=row_view.clone() />
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
                    dir="auto"
                    class="grid__filter"
                    aria-label=live_text(Msg::QuickFilter)
                    placeholder=live_text(Msg::QuickFilterPlaceholder)
                    prop:value=filter
                    on:input=move |e| {
                        set_filter.set(event_target_value(&e));
                        set_scroll_top.set(0.0);
                    }
                />
                <span class="muted" data-testid="row-count">
                    {move || {
                        let (shown, total) = (order.with(Vec::len), total());
                        if shown == total {
                            filled_text(Msg::Rows, &[("total", &intl::count(total))])
                        } else {
                            filled_text(Msg::RowsOf, &[("shown", &intl::count(shown)), ("total", &intl::count(total))])
                        }
                    }}
                </span>
                {move || {
                    let hidden = hidden();
                    (hidden > 0 && !wide.get())
                        // The text as a value, tracked by this closure: a reactive text of its own
                        // made at every grid change would leave the language signal one dead
                        // subscriber each time (reactive_graph prunes them only when it is written).
                        .then(|| view! { <span class="muted">{filled_text(Msg::HiddenColumns, &[("hidden", &hidden)])}</span> })
                }}
            </div>
            {metrics.map(|metrics| view! { <crate::ui::metrics::MetricsLine metrics /> })}
            {move || {
                (total() == 0)
                    .then(|| {
                        view! {
                            <p class="muted" data-testid="empty-state">
                                {move || {
                                    let listing = listing.is_some_and(|l| l.get());
                                    text_now(if listing { Msg::EmptyWhileListing } else { Msg::EmptyList })
                                }}
                            </p>
                        }
                    })
            }}
            <div
                class="grid__viewport"
                data-testid="grid-viewport"
                node_ref=viewport
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

/// Opens `row`'s object (in its namespace, when it has one).
fn open_row(navigation: Navigation, row: &Row) {
    let (namespace, name) = (row.namespace.clone(), row.name.clone());
    navigation.update(move |s| {
        s.name = Some(name);
        if namespace.is_some() {
            s.namespace = namespace;
        }
    });
}

/// Which object a row shows, whatever its version: its uid, else namespace/name.
fn row_identity(row: &Row) -> String {
    match &row.uid {
        Some(uid) => uid.clone(),
        None => format!("{}/{}", row.namespace.as_deref().unwrap_or_default(), row.name),
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
