//! The collection view: one resource type's objects, in the representation the user picked, paged
//! with `limit`/`continue`, filtered with label and field selectors.

use leptos::prelude::*;

use crate::api::discovery::{ResourceType, Scope};
use crate::api::list::ContinueToken;
use crate::api::params::{ListOptions, ListParams};
use crate::api::request::{Collection, Request};
use crate::api::status::StatusExt;
use crate::client::fetched::Fetched;
use crate::client::{now_ms, ApiBase};
use crate::model::page::{Page, PageBody};
use crate::model::view_state::{Representation, ViewState, PAGE_SIZES};
use crate::ui::create::CollectionActions;
use crate::ui::document::DocumentView;
use crate::ui::grid::GridView;
use crate::ui::inspector::{use_wire_log, WireLog};
use crate::ui::live::LiveView;
use crate::ui::location::use_navigation;
use crate::ui::namespaces::NamespaceSelect;
use crate::ui::response_info::ResponseInfo;
use crate::ui::status_view::StatusView;

/// The explanation shown when a continue token has expired (from the concepts page).
const EXPIRED_EXPLANATION: &str = "The continue token has expired. The API server keeps a consistent \
snapshot of a paged list only for a limited time (about five minutes by default, while etcd has not \
compacted it); after that, asking for the next page answers 410 Gone. Restart from the first page to \
get a new consistent snapshot.";

/// What one request for a page produced.
type Loaded = Result<(Fetched, Page), String>;

/// A collection of `resource`, following the view state in the URL.
#[component]
pub fn CollectionView(
    /// The resource type listed.
    resource: ResourceType,
) -> impl IntoView {
    let navigation = use_navigation();
    let state = navigation.state;
    let base = expect_context::<ApiBase>();
    let log = use_wire_log();
    // The continue tokens of the pages before this one: a stack, so "previous" pops.
    let tokens = RwSignal::new(Vec::<ContinueToken>::new());
    let collection_key = Memo::new(move |_| {
        let s = state.get();
        (s.resource, s.namespace, s.representation, s.label_selector, s.field_selector, s.limit)
    });
    Effect::new(move |_| {
        collection_key.track();
        tokens.set(Vec::new());
    });

    let namespaced = resource.scope == Scope::Namespaced;
    let resource_for_fetch = resource.clone();
    let page = LocalResource::new(move || {
        let state = state.get();
        let token = tokens.get().last().cloned();
        let resource = resource_for_fetch.clone();
        let base = base.clone();
        async move { load_page(log, base, &resource, &state, token).await }
    });

    let kind = resource.kind.clone();
    let live_resource = resource.clone();
    let page_resource = resource.clone();
    let api_version = resource.api_version();
    let actions_resource = resource.clone();
    view! {
        <section class="collection" aria-label=format!("{} collection", resource.plural)>
            <header class="collection__header">
                <h2>
                    {resource.plural.clone()}
                    <span class="muted">{format!("  {kind} · {api_version}")}</span>
                </h2>
                <Toolbar namespaced />
                <label class="toolbar__field">
                    <input
                        type="checkbox"
                        prop:checked=move || state.get().watch
                        on:change=move |e| {
                            let watch = event_target_checked(&e);
                            navigation.update(move |s| s.watch = watch);
                        }
                    />
                    " Live (list, then watch)"
                </label>
                <CollectionActions resource=actions_resource on_changed=Callback::new(move |_| page.refetch()) />
            </header>
            {move || {
                let s = state.get();
                if s.watch {
                    let non_empty = |text: String| (!text.trim().is_empty()).then_some(text);
                    view! {
                        <LiveView
                            resource=live_resource.clone()
                            namespace=s.namespace
                            label_selector=non_empty(s.label_selector)
                            field_selector=non_empty(s.field_selector)
                            cbor=s.representation == Representation::Cbor
                        />
                    }
                        .into_any()
                } else {
                    let page_resource = page_resource.clone();
                    view! {
                        <Transition fallback=|| {
                            view! { <p class="loading" aria-busy="true">"Loading…"</p> }
                        }>
                            {
                                let page_resource = page_resource.clone();
                                move || {
                                    let resource = page_resource.clone();
                                    Suspend::new(async move {
                                        let loaded = page.await;
                                        view! { <PageView loaded tokens resource /> }
                                    })
                                }
                            }
                        </Transition>
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

async fn load_page(
    log: WireLog,
    base: ApiBase,
    resource: &ResourceType,
    state: &ViewState,
    token: Option<ContinueToken>,
) -> Loaded {
    let namespace = if resource.scope == Scope::Namespaced { state.namespace.as_deref() } else { None };
    let collection = Collection::new(resource, namespace).map_err(|e| e.to_string())?;
    let non_empty = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
    let params = ListParams::new(ListOptions {
        label_selector: non_empty(&state.label_selector),
        field_selector: non_empty(&state.field_selector),
        limit: Some(state.limit),
        continue_token: token,
        ..ListOptions::default()
    })
    .map_err(|e| e.to_string())?;
    let request = Request::list(&collection, &params, &state.representation.accept(true)).param("pretty", "false");
    let fetched = log.fetch(base, request).await.map_err(|e| e.to_string())?;
    let as_grid = matches!(state.representation, Representation::Table | Representation::Metadata);
    let page = match &fetched.decoded {
        Ok(decoded) => Page::from_decoded(decoded, as_grid, now_ms() as i64 + epoch_offset_ms()),
        Err(message) => {
            return Err(format!("{} answered {}: {message}", fetched.response.url, fetched.response.status))
        }
    };
    Ok((fetched, page))
}

/// `performance.now()` counts from page load; ages need milliseconds since the epoch.
fn epoch_offset_ms() -> i64 {
    (js_sys::Date::now() - now_ms()) as i64
}

/// Namespace, representation, selectors, page size and the wide toggle.
#[component]
fn Toolbar(
    /// Whether the type is namespaced (the namespace selector only shows for those).
    namespaced: bool,
) -> impl IntoView {
    let navigation = use_navigation();
    let state = navigation.state;
    let (labels, set_labels) = signal(state.get_untracked().label_selector);
    let (fields, set_fields) = signal(state.get_untracked().field_selector);
    Effect::new(move |_| {
        let s = state.get();
        set_labels.set(s.label_selector);
        set_fields.set(s.field_selector);
    });
    let apply = move || {
        let (l, f) = (labels.get_untracked(), fields.get_untracked());
        navigation.update(move |s| {
            s.label_selector = l;
            s.field_selector = f;
        });
    };
    view! {
        <div class="toolbar">
            {namespaced.then(|| view! { <NamespaceSelect /> })}
            <div class="segmented" role="group" aria-label="Representation">
                {Representation::ALL
                    .into_iter()
                    .map(|r| {
                        view! {
                            <button
                                class="segmented__item"
                                aria-pressed=move || (state.get().representation == r).to_string()
                                on:click=move |_| navigation.update(move |s| s.representation = r)
                            >
                                {r.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <form
                class="toolbar__selectors"
                on:submit=move |e| {
                    e.prevent_default();
                    apply();
                }
            >
                <input
                    type="text"
                    aria-label="Label selector"
                    placeholder="labelSelector, e.g. app=web,tier!=cache"
                    prop:value=labels
                    on:input=move |e| set_labels.set(event_target_value(&e))
                />
                <input
                    type="text"
                    aria-label="Field selector"
                    placeholder="fieldSelector, e.g. status.phase=Running"
                    prop:value=fields
                    on:input=move |e| set_fields.set(event_target_value(&e))
                />
                <button class="button" type="submit">
                    "Apply selectors"
                </button>
            </form>
            <label class="toolbar__field">
                "Page size "
                <select
                    aria-label="Page size"
                    on:change=move |e| {
                        if let Ok(n) = event_target_value(&e).parse::<u32>() {
                            navigation.update(move |s| s.limit = n);
                        }
                    }
                >
                    {PAGE_SIZES
                        .into_iter()
                        .map(|n| {
                            view! {
                                <option value=n.to_string() selected=move || state.get().limit == n>
                                    {n.to_string()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </label>
            <label class="toolbar__field">
                <input
                    type="checkbox"
                    prop:checked=move || state.get().wide
                    on:change=move |e| {
                        let wide = event_target_checked(&e);
                        navigation.update(move |s| s.wide = wide);
                    }
                />
                " Wide (priority columns)"
            </label>
        </div>
    }
}

/// One loaded page: the response line, the paging bar, and the body.
#[component]
fn PageView(loaded: Loaded, tokens: RwSignal<Vec<ContinueToken>>, resource: ResourceType) -> impl IntoView {
    let navigation = use_navigation();
    let log = use_wire_log();
    let base = expect_context::<ApiBase>();
    let (fetched, page) = match loaded {
        Ok(ok) => ok,
        Err(message) => {
            return view! {
                <section class="status-error" role="alert" data-testid="request-error">
                    <h3>"The request could not be made or read"</h3>
                    <p>{message}</p>
                </section>
            }
            .into_any();
        }
    };
    let info = view! { <ResponseInfo fetched=fetched.clone() page=page.clone() /> };
    let next = page.list.as_ref().and_then(|l| l.continue_token.clone());
    let page_number = move || tokens.with(Vec::len) + 1;
    let paging = view! {
        <div class="paging" role="group" aria-label="Paging">
            <button
                class="button button--quiet"
                disabled=move || tokens.with(Vec::is_empty)
                on:click=move |_| tokens.update(|t| {
                    t.pop();
                })
            >
                "Previous page"
            </button>
            <span data-testid="page-number">{move || format!("Page {}", page_number())}</span>
            <button
                class="button button--quiet"
                disabled=next.is_none()
                on:click=move |_| {
                    if let Some(token) = next.clone() {
                        tokens.update(|t| t.push(token));
                    }
                }
            >
                "Next page"
            </button>
        </div>
    };
    let body = match page.body {
        PageBody::Grid(grid) => {
            let wide = Signal::derive(move || navigation.state.get().wide);
            let first_next = page.list.as_ref().and_then(|l| l.continue_token.clone());
            let remaining = page.list.as_ref().and_then(|l| l.remaining_item_count);
            let all = RwSignal::new(grid);
            let progress = RwSignal::new(None::<LoadAllProgress>);
            let load_all = move |_| {
                let Some(mut token) = first_next.clone() else { return };
                let (resource, state, base) = (resource.clone(), navigation.state.get_untracked(), base.clone());
                let loaded = all.with_untracked(|g| g.rows.len());
                progress.set(Some(LoadAllProgress {
                    loaded,
                    estimate: remaining.map(|r| loaded + r.max(0) as usize),
                    error: None,
                    done: false,
                }));
                leptos::task::spawn_local(async move {
                    loop {
                        match load_page(log, base.clone(), &resource, &state, Some(token)).await {
                            Ok((_, Page { body: PageBody::Grid(more), list, .. })) => {
                                all.update(|g| g.rows.extend(more.rows));
                                let loaded = all.with_untracked(|g| g.rows.len());
                                let next = list.as_ref().and_then(|l| l.continue_token.clone());
                                let estimate = list
                                    .as_ref()
                                    .and_then(|l| l.remaining_item_count)
                                    .map(|r| loaded + r.max(0) as usize);
                                progress.set(Some(LoadAllProgress {
                                    loaded,
                                    estimate,
                                    error: None,
                                    done: next.is_none(),
                                }));
                                match next {
                                    Some(next) => token = next,
                                    None => return,
                                }
                            }
                            Ok((_, Page { body: PageBody::Status(status), .. })) => {
                                let error = if status.is_expired() {
                                    EXPIRED_EXPLANATION.to_owned()
                                } else {
                                    format!("{} {}: {}", status.code, status.reason, status.message)
                                };
                                progress.update(|p| {
                                    if let Some(p) = p {
                                        p.error = Some(error)
                                    }
                                });
                                return;
                            }
                            Ok(_) => {
                                progress.update(|p| {
                                    if let Some(p) = p {
                                        p.error = Some("a page came back in another representation".to_owned())
                                    }
                                });
                                return;
                            }
                            Err(message) => {
                                progress.update(|p| {
                                    if let Some(p) = p {
                                        p.error = Some(message)
                                    }
                                });
                                return;
                            }
                        }
                    }
                });
            };
            view! {
                <div class="load-all">
                    <button class="button button--quiet" disabled=page.list.as_ref().and_then(|l| l.continue_token.as_ref()).is_none() on:click=load_all>
                        "Load all pages"
                    </button>
                    {move || progress.get().map(|p| view! { <LoadAllBar progress=p /> })}
                </div>
                {move || view! { <GridView grid=all.get() wide /> }}
            }
            .into_any()
        }
        PageBody::Document(document) => {
            let raw = fetched.response.body.clone();
            let cbor = navigation.state.get_untracked().representation == Representation::Cbor;
            view! { <DocumentView document raw=cbor.then_some(raw) /> }.into_any()
        }
        PageBody::Envelope(summary) => view! {
            <p class="muted">
                "A protobuf envelope: the explorer reads its TypeMeta and sizes; the raw object inside is not decoded."
            </p>
            <DocumentView document=summary raw=None />
        }
        .into_any(),
        PageBody::Status(status) => {
            let expired = status.is_expired() && !tokens.with_untracked(Vec::is_empty);
            view! {
                <StatusView status=*status />
                {expired
                    .then(|| {
                        view! {
                            <div class="notice" data-testid="expired-continue">
                                <p>{EXPIRED_EXPLANATION}</p>
                                <button class="button" on:click=move |_| tokens.set(Vec::new())>
                                    "Restart from the first page"
                                </button>
                            </div>
                        }
                    })}
            }
            .into_any()
        }
    };
    view! {
        {info}
        {paging}
        {body}
    }
    .into_any()
}

/// How far "load all" got.
#[derive(Debug, Clone, PartialEq)]
struct LoadAllProgress {
    loaded: usize,
    /// `loaded` + the last page's `remainingItemCount`, when the server gave one.
    estimate: Option<usize>,
    error: Option<String>,
    done: bool,
}

/// The progress bar of "load all".
#[component]
fn LoadAllBar(progress: LoadAllProgress) -> impl IntoView {
    let text = match (progress.done, progress.estimate) {
        (true, _) => format!("All {} loaded", progress.loaded),
        (false, Some(total)) => {
            format!("{} of about {total} loaded (remainingItemCount is an estimate)", progress.loaded)
        }
        (false, None) => format!(
            "{} loaded; the server gives no remainingItemCount (with selectors it never does), so the total is unknown",
            progress.loaded
        ),
    };
    let max = if progress.done { progress.loaded } else { progress.estimate.unwrap_or(0) };
    view! {
        <progress max=max.to_string() value=progress.loaded.to_string() aria-label="Load all progress"></progress>
        <span data-testid="load-all-progress">{text}</span>
        {progress.error.map(|e| view! { <p class="warning" role="alert">{e}</p> })}
    }
}
