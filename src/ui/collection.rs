//! The collection view: one resource type's objects, in the representation the user picked, paged
//! with `limit`/`continue`, filtered with label and field selectors.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::selector::{FieldSelector, LabelSelector, SelectorError};
use crate::api::view::list::{ContinueToken, ResourceVersion};
use crate::api::view::metadata::PartialObjectMetadataList;
use crate::api::view::status::StatusExt;
use crate::client::error::ApiError;
use crate::client::fetch::{now_ms, ClientError};
use crate::client::fetched::Fetched;
use crate::client::handle::{use_client, Client};
use crate::client::load_all::{read_lazy_page, Following, PageRead};
use crate::i18n::{Localized, Msg, Text};
use crate::model::access::Question;
use crate::model::cells::Grid;
use crate::model::joined::{lazy_list, JoinedList};
use crate::model::load_all::{status_stop, LoadAllProgress, EXPIRED_EXPLANATION};
use crate::model::page::{LazyPage, Page, PageBody};
use crate::model::protobuf::ProtobufBody;
use crate::model::target::RowObjects;
use crate::model::view_state::{Representation, VersionMatch, ViewState, PAGE_SIZES};
use crate::ui::access::{refusal, Refusal, RefusalList};
use crate::ui::document::DocumentView;
use crate::ui::explain_link::ExplainLink;
use crate::ui::grid::GridView;
use crate::ui::i18n::{filled_text, live_text, localized, rich, text_now, text_signal, worded};
use crate::ui::intl;
use crate::ui::lazy::CollectionActionsOnDemand;
use crate::ui::live::LiveView;
use crate::ui::load_all::LoadAllBar;
use crate::ui::location::use_navigation;
use crate::ui::namespaces::NamespaceSelect;
use crate::ui::protobuf::ProtobufOnDemand;
use crate::ui::response_info::ResponseInfo;
use crate::ui::settings::use_settings;
use crate::ui::status_view::{RetryCountdown, StatusView};

/// What one request for a page produced.
type Loaded = Result<(Arc<Fetched>, Page), Failure>;

/// Why a page has no response to show: three different things for the person reading it.
#[derive(Debug, Clone, PartialEq)]
enum Failure {
    /// The explorer refused to send it (a rule of the concepts page would be broken).
    NotSent(Text),
    /// No HTTP response at all: the network, the proxy or the browser failed.
    Network(Text),
    /// A response came whose body could not be read.
    Unreadable(Text),
}

impl Failure {
    fn heading(&self) -> Msg {
        match self {
            Failure::NotSent(_) => Msg::NotSent,
            Failure::Network(_) => Msg::NetworkFailure,
            Failure::Unreadable(_) => Msg::ResponseUnreadable,
        }
    }
}

impl Localized for Failure {
    fn text(&self) -> Text {
        match self {
            Failure::NotSent(m) | Failure::Network(m) | Failure::Unreadable(m) => m.clone(),
        }
    }
}

/// A collection of `resource`, following the view state in the URL: live (list, then watch) by
/// default, or a page at a time.
#[component]
pub fn CollectionView(
    /// The resource type listed.
    resource: ResourceType,
) -> impl IntoView {
    let navigation = use_navigation();
    let state = navigation.state;
    let settings = use_settings();
    let namespaced = resource.is_namespaced();
    let live_refused = {
        let resource = resource.clone();
        refusal(
            move || vec![Question::on("watch", &resource, state.with(|s| s.namespace.clone()).as_deref())],
            namespaced,
        )
    };
    // Live unless read by pages; a collection opened live by default is read a page at a time when the
    // user may not watch it (one opened from a link that asks for live shows the watch's 403). Once
    // refused in a namespace it stays so: a 403 makes the access model ask again, and while it
    // waits for the answer the refusal is unknown; flipping back to live then would loop.
    let refused_in = StoredValue::new(Vec::<Option<String>>::new());
    let live = Memo::new(move |_| {
        let namespace = state.with(|s| s.namespace.clone());
        let refused = live_refused.with(Option::is_some) || refused_in.with_value(|r| r.contains(&namespace));
        if refused {
            refused_in.update_value(|r| {
                if !r.contains(&namespace) {
                    r.push(namespace);
                }
            });
        }
        state.with(|s| s.is_live(settings.open_live.get()) && (s.watch.is_some() || !refused))
    });
    let live_key = Memo::new(move |_| state.with(ViewState::live_key));
    // Bumped when an action changed the collection, so a paged view reads its page again (a live
    // one sees the change in its watch).
    let changed = RwSignal::new(0u64);
    let kind = resource.kind.clone();
    let live_resource = resource.clone();
    let page_resource = resource.clone();
    let api_version = resource.api_version();
    let actions_resource = resource.clone();
    view! {
        <section
            class="collection"
            aria-label={
                let plural = resource.plural.clone();
                worded(move || filled_text(Msg::CollectionLabel, &[("resource", &plural)]))
            }
        >
            <header class="collection__header">
                <h2>
                    {resource.plural.clone()}
                    <span class="muted">{format!("  {kind} · {api_version}")}</span>
                </h2>
                <ExplainLink />
                <Toolbar namespaced />
                <LiveSwitch live=live.into() refused=live_refused />
                <RefusalList entries=vec![(text_signal(Msg::Live), live_refused)] />
                <CollectionActionsOnDemand
                    resource=actions_resource
                    on_changed=Callback::new(move |_| changed.update(|n| *n += 1))
                />
            </header>
            {move || {
                if live.get() {
                    // What the watch depends on: Wide or the page size do not restart it. Read, not
                    // only tracked: a memo that was never read counts as changed when it is first
                    // computed, so the first write to the view state (even of equal values) would
                    // start the watch again, abandoning the one just opened.
                    live_key.with(|_| ());
                    let s = state.get_untracked();
                    match s.collection_target(&live_resource) {
                        Ok(target) => view! { <LiveView config=s.watch_config(&target) across_namespaces=target.across_namespaces /> }.into_any(),
                        Err(error) => view! { <p class="status-error" role="alert">{worded(move || localized(&error))}</p> }.into_any(),
                    }
                } else {
                    view! { <PagedCollection resource=page_resource.clone() changed /> }.into_any()
                }
            }}
        </section>
    }
}

/// Live (list, then watch) or a page at a time, and the remembered setting that makes collections
/// open live. A live view pauses its watch itself ("Pause watch").
#[component]
fn LiveSwitch(
    /// Whether the collection is live now.
    live: Signal<bool>,
    /// Why the user may not watch the collection, if the server says so.
    refused: Signal<Option<Refusal>>,
) -> impl IntoView {
    let navigation = use_navigation();
    let settings = use_settings();
    view! {
        <div class="toolbar live-switch">
            <div class="segmented" role="group" aria-label=live_text(Msg::Reading)>
                <button
                    class="segmented__item"
                    data-testid="mode-live"
                    title=live_text(Msg::LiveTitle)
                    aria-pressed=move || live.get().to_string()
                    disabled=move || !live.get() && refused.with(Option::is_some)
                    on:click=move |_| navigation.update(|s| s.watch = Some(true))
                >
                    {live_text(Msg::Live)}
                </button>
                <button
                    class="segmented__item"
                    data-testid="mode-pages"
                    title=live_text(Msg::PagesTitle)
                    aria-pressed=move || (!live.get()).to_string()
                    on:click=move |_| navigation.update(|s| s.watch = Some(false))
                >
                    {live_text(Msg::Pages)}
                </button>
            </div>
            <label class="toolbar__field" title=live_text(Msg::OpenLiveTitle)>
                <input
                    type="checkbox"
                    prop:checked=move || settings.open_live.get()
                    on:change=move |e| settings.open_live.set(event_target_checked(&e))
                />
                " "
                {live_text(Msg::OpenCollectionsLive)}
            </label>
        </div>
    }
}

/// The collection read a page at a time with `limit` and `continue`, in the representation the
/// user picked.
#[component]
fn PagedCollection(
    /// The resource type listed.
    resource: ResourceType,
    /// Bumped when the collection was changed from here: the page is read again.
    changed: RwSignal<u64>,
) -> impl IntoView {
    let navigation = use_navigation();
    let state = navigation.state;
    let client = use_client();
    // The continue tokens of the pages before this one: a stack, so "previous" pops.
    let tokens = RwSignal::new(Vec::<ContinueToken>::new());
    let collection_key = move || state.with(ViewState::page_key);
    // The collection the tokens were read from. Another collection (or page size) starts from its
    // first page: the stack is emptied in the same step that asks for that page, so no second
    // request follows (an effect that emptied it afterwards asked again, and a 429 answered to
    // the first request was replaced by the second's page before it could be shown).
    let tokens_for = StoredValue::new(collection_key());
    let resource_for_fetch = resource.clone();
    let page = LocalResource::new(move || {
        changed.track();
        let state = state.get();
        let key = collection_key();
        let token = if tokens_for.with_value(|k| *k == key) {
            tokens.get().last().cloned()
        } else {
            tokens_for.set_value(key);
            tokens.update_untracked(Vec::clear);
            tokens.track();
            None
        };
        let resource = resource_for_fetch.clone();
        let client = client.clone();
        async move { load_page(client, &resource, &state, token, RowObjects::ColumnsOnly).await }
    });
    view! {
        <Transition fallback=|| {
            view! { <p class="loading" aria-busy="true">{live_text(Msg::Loading)}</p> }
        }>
            {move || {
                let resource = resource.clone();
                Suspend::new(async move {
                    let loaded = page.await;
                    let retry = Callback::new(move |()| page.refetch());
                    view! { <PageView loaded tokens resource retry /> }
                })
            }}
        </Transition>
    }
}

async fn load_page(
    client: Client,
    resource: &ResourceType,
    state: &ViewState,
    token: Option<ContinueToken>,
    rows: RowObjects,
) -> Loaded {
    let target = state.collection_target(resource).map_err(|e| Failure::NotSent(e.text()))?;
    let plan = state.page_plan(&target, token, rows).map_err(|e| Failure::NotSent(e.text()))?;
    let fetched = client.send_undecoded(plan.request).await.map_err(|e| match e {
        // An answer came (too long to read, or a redirect not followed): not the network's failure.
        ClientError::TooLarge { .. } | ClientError::Redirected { .. } => Failure::Unreadable(e.text()),
        ClientError::InvalidRequest { .. } | ClientError::ReadOnly { .. } => Failure::NotSent(e.text()),
        ClientError::Network { .. } => Failure::Network(e.text()),
    })?;
    // A list to read as JSON or CBOR text is read lazily: its items stay bytes of the body, and
    // the document view writes (and so decodes) only those it shows. Anything else, or a body
    // the lazy reader does not take, is decoded whole.
    if !plan.shape.is_grid() && fetched.response.is_success() {
        if let Some(page) = fetched.list_document().and_then(Result::ok).and_then(Page::from_list_document) {
            return Ok((fetched, page));
        }
    }
    let mut page = match fetched.decoded() {
        Ok(decoded) => Page::from_decoded(decoded, plan.shape, now_ms() as i64 + epoch_offset_ms()),
        Err(message) => {
            return Err(Failure::Unreadable(
                Text::new(Msg::AnsweredWith)
                    .with("url", &fetched.response.url)
                    .with("status", fetched.response.status)
                    .with_text("message", message),
            ))
        }
    };
    if target.across_namespaces {
        if let PageBody::Grid(grid) = page.body {
            page.body = PageBody::Grid(grid.with_namespace_column());
        }
    }
    Ok((fetched, page))
}

/// Reads the page after `token` as the grid shows it, for "Load all".
fn read_grid_page(
    client: Client,
    resource: ResourceType,
    state: ViewState,
    token: ContinueToken,
) -> PageRead<PageBody> {
    Box::pin(async move {
        match load_page(client, &resource, &state, Some(token), RowObjects::AsNeeded).await {
            Ok((_, Page { body: PageBody::Status(status), .. })) => Err(status_stop(&status)),
            Ok((_, Page { body, list, .. })) => Ok((list.unwrap_or_default(), body)),
            Err(failure) => {
                Err(Text::new(Msg::FailureLine).with_text("heading", failure.heading()).with_text("failure", failure))
            }
        }
    })
}

/// Where a page sits: what reads it again at its snapshot, and its rows in the grid.
struct PageAt {
    /// The page's own continue token (none for the first page).
    token: Option<ContinueToken>,
    /// The list's resourceVersion, read `Exact` for the first page.
    list_version: Option<ResourceVersion>,
    /// Its first row in the grid, and how many rows it has.
    offset: usize,
    rows: usize,
}

/// Reads the metadata of a columns-only Table page's rows (their namespaces above all) as a
/// metadata-only list of the same page at the same snapshot, and gives it to its rows. Answers
/// why not, when it could not.
async fn read_rows_metadata(
    client: Client,
    resource: &ResourceType,
    state: &ViewState,
    at: PageAt,
    grid: RwSignal<Grid>,
) -> Result<(), Text> {
    let target = state.collection_target(resource).map_err(|e| e.text())?;
    let request = state.rows_metadata_request(&target, at.token, at.list_version).map_err(|e| e.text())?;
    let (_, document) = client.document(request).await.map_err(|e| match e {
        ApiError::NotSent(e) => Text::new(Msg::NoHttpResponse).with_text("error", e),
        other => other.text(),
    })?;
    let document = &document;
    let list = PartialObjectMetadataList::from_document(document).map_err(|e| e.text())?;
    let now = now_ms() as i64 + epoch_offset_ms();
    let mut filled = Ok(());
    grid.try_update(|g| filled = g.fill_metadata(at.offset, at.rows, &list.items, now));
    filled.map_err(|e| e.text())
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
    let (version, set_version) = signal(state.get_untracked().resource_version);
    let (version_match, set_version_match) = signal(state.get_untracked().resource_version_match);
    // Problems found before sending: selector syntax (which may still be sent, to see what the
    // server says) and resourceVersion rules (never sent: the API would only answer 400).
    let selector_problems = RwSignal::new(Vec::<(Msg, String, SelectorError)>::new());
    let version_problem = RwSignal::new(None::<Text>);
    Effect::new(move |_| {
        let s = state.get();
        set_labels.set(s.label_selector);
        set_fields.set(s.field_selector);
        set_version.set(s.resource_version);
        set_version_match.set(s.resource_version_match);
    });
    let send = move || {
        let (l, f) = (labels.get_untracked(), fields.get_untracked());
        let (v, m) = (version.get_untracked(), version_match.get_untracked());
        let mut next = state.get_untracked();
        next.label_selector = l.clone();
        next.field_selector = f.clone();
        next.resource_version = v.clone();
        next.resource_version_match = m;
        if let Err(rule) = next.list_params(None) {
            version_problem.set(Some(rule.text()));
            return;
        }
        version_problem.set(None);
        selector_problems.set(Vec::new());
        navigation.update(move |s| {
            s.label_selector = l;
            s.field_selector = f;
            s.resource_version = v;
            s.resource_version_match = m;
        });
    };
    let apply = move || {
        let mut problems = Vec::new();
        let l = labels.get_untracked();
        if let Err(e) = LabelSelector::parse(&l) {
            problems.push((Msg::LabelSelector, l, e));
        }
        let f = fields.get_untracked();
        if let Err(e) = FieldSelector::parse(&f) {
            problems.push((Msg::FieldSelector, f, e));
        }
        if problems.is_empty() {
            send();
        } else {
            selector_problems.set(problems);
        }
    };
    view! {
        <div class="toolbar">
            {namespaced.then(|| view! { <NamespaceSelect /> })}
            <div class="segmented" role="group" aria-label=live_text(Msg::Representation)>
                {Representation::ALL
                    .into_iter()
                    .map(|r| {
                        view! {
                            <button
                                class="segmented__item"
                                aria-pressed=move || (state.get().representation == r).to_string()
                                on:click=move |_| navigation.update(move |s| s.representation = r)
                            >
                                {move || match r {
                                    Representation::Metadata => text_now(Msg::MetadataOnly),
                                    r => r.label().to_owned(),
                                }}
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
                    dir="auto"
                    aria-label=live_text(Msg::LabelSelector)
                    placeholder=live_text(Msg::LabelSelectorPlaceholder)
                    prop:value=labels
                    on:input=move |e| set_labels.set(event_target_value(&e))
                />
                <input
                    type="text"
                    dir="auto"
                    aria-label=live_text(Msg::FieldSelector)
                    placeholder=live_text(Msg::FieldSelectorPlaceholder)
                    prop:value=fields
                    on:input=move |e| set_fields.set(event_target_value(&e))
                />
                <button class="button" type="submit">
                    {live_text(Msg::ApplySelectors)}
                </button>
                <details class="toolbar__advanced">
                    <summary>"resourceVersion"</summary>
                    <label class="toolbar__field">
                        "resourceVersion "
                        <input
                            type="text"
                            dir="auto"
                            aria-label="resourceVersion"
                            placeholder=live_text(Msg::ResourceVersionUnset)
                            size="10"
                            prop:value=version
                            on:input=move |e| set_version.set(event_target_value(&e))
                        />
                    </label>
                    <label class="toolbar__field">
                        "resourceVersionMatch "
                        <select
                            aria-label="resourceVersionMatch"
                            on:change=move |e| set_version_match.set(VersionMatch::parse(&event_target_value(&e)))
                        >
                            <option value="" selected=move || version_match.get().is_none()>
                                {live_text(Msg::Unset)}
                            </option>
                            {[VersionMatch::NotOlderThan, VersionMatch::Exact]
                                .into_iter()
                                .map(|m| {
                                    view! {
                                        <option value=m.as_str() selected=move || version_match.get() == Some(m)>
                                            {m.as_str()}
                                        </option>
                                    }
                                })
                                .collect_view()}
                        </select>
                    </label>
                    <span class="muted" data-testid="version-semantics">
                        {move || {
                            let mut s = state.get();
                            s.resource_version = version.get();
                            s.resource_version_match = version_match.get();
                            match s.list_params(None) {
                                Ok(params) => filled_text(Msg::ServerReadsThisAs, &[("semantics", &params.semantics())]),
                                Err(_) => String::new(),
                            }
                        }}
                    </span>
                    <button class="button button--quiet" type="submit">
                        {live_text(Msg::Apply)}
                    </button>
                </details>
            </form>
            {move || {
                version_problem
                    .get()
                    .map(|rule| {
                        view! {
                            <p class="warning" role="alert" data-testid="version-problem">
                                {worded(move || filled_text(Msg::NotSentBecause, &[("rule", &localized(&rule))]))}
                            </p>
                        }
                    })
            }}
            {move || {
                let problems = selector_problems.get();
                (!problems.is_empty())
                    .then(|| {
                        view! {
                            <div class="warning" role="alert" data-testid="selector-problem">
                                {problems
                                    .into_iter()
                                    .map(|(name, text, error)| {
                                        let caret = format!("{}^", " ".repeat(error.at));
                                        view! {
                                            <p>{worded(move || filled_text(Msg::SelectorProblem, &[("name", &text_now(name)), ("error", &localized(&error))]))}</p>
                                            <pre class="selector-caret">{format!("{text}\n{caret}")}</pre>
                                        }
                                    })
                                    .collect_view()}
                                <p>
                                    {rich(
                                        Msg::NotSentSendAnyway,
                                        move |_: &str| {
                                            view! {
                                                <button class="button button--quiet" on:click=move |_| send()>
                                                    {live_text(Msg::SendAnyway)}
                                                </button>
                                            }
                                        },
                                    )}
                                </p>
                            </div>
                        }
                    })
            }}
            <label class="toolbar__field">
                {live_text(Msg::PageSize)}
                " "
                <select
                    aria-label=live_text(Msg::PageSize)
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
            <StateToggle label=Msg::WidePriorityColumns get=|s| s.wide set=|s, on| s.wide = on />
            <StateToggle
                label=Msg::NoJsonFallback
                title=Msg::NoJsonFallbackTitle
                get=|s| s.no_fallback
                set=|s, on| s.no_fallback = on
            />
        </div>
    }
}

/// A checkbox bound to one switch of the view state in the URL.
#[component]
fn StateToggle(
    /// The visible label.
    label: Msg,
    /// A longer explanation, on hover.
    #[prop(optional, into)]
    title: Option<Msg>,
    /// Reads the switch.
    get: fn(&ViewState) -> bool,
    /// Sets the switch.
    set: fn(&mut ViewState, bool),
    /// Why the user may not turn it on, if the server says so (it can still be turned off).
    #[prop(optional)]
    refused: Option<Signal<Option<Refusal>>>,
) -> impl IntoView {
    let navigation = use_navigation();
    let disabled = move || !navigation.state.with(get) && refused.is_some_and(|r| r.with(Option::is_some));
    view! {
        <label class="toolbar__field" title=move || title.map(text_now)>
            <input
                type="checkbox"
                disabled=disabled
                prop:checked=move || navigation.state.with(get)
                on:change=move |e| {
                    let on = event_target_checked(&e);
                    navigation.update(move |s| set(s, on));
                }
            />
            " "
            {live_text(label)}
        </label>
    }
}

/// One loaded page: the response line, the paging bar, and the body.
#[component]
fn PageView(
    loaded: Loaded,
    tokens: RwSignal<Vec<ContinueToken>>,
    resource: ResourceType,
    /// Makes the same request again (after a Retry-After).
    retry: Callback<()>,
) -> impl IntoView {
    let navigation = use_navigation();
    let client = use_client();
    let (fetched, page) = match loaded {
        Ok(ok) => ok,
        Err(failure) => {
            return view! {
                <section class="status-error" role="alert" data-testid="request-error">
                    <h3>{live_text(failure.heading())}</h3>
                    <p>{worded(move || localized(&failure))}</p>
                </section>
            }
            .into_any();
        }
    };
    let info = view! { <ResponseInfo fetched=fetched.clone() page=page.clone() /> };
    let next = page.list.as_ref().and_then(|l| l.continue_token.clone());
    let page_number = move || tokens.with(Vec::len) + 1;
    let paging = view! {
        <div class="paging" role="group" aria-label=live_text(Msg::Paging)>
            <button
                class="button button--quiet"
                disabled=move || tokens.with(Vec::is_empty)
                on:click=move |_| tokens.update(|t| {
                    t.pop();
                })
            >
                {live_text(Msg::PreviousPage)}
            </button>
            <span data-testid="page-number">{worded(move || filled_text(Msg::PageNumber, &[("number", &intl::count(page_number()))]))}</span>
            <button
                class="button button--quiet"
                disabled=next.is_none()
                on:click=move |_| {
                    if let Some(token) = next.clone() {
                        tokens.update(|t| t.push(token));
                    }
                }
            >
                {live_text(Msg::NextPage)}
            </button>
        </div>
    };
    let body = match page.body {
        PageBody::Grid(grid) => {
            let wide = Signal::derive(move || navigation.state.get().wide);
            let first_next = page.list.as_ref().and_then(|l| l.continue_token.clone());
            let remaining = page.list.as_ref().and_then(|l| l.remaining_item_count);
            let state = navigation.state.get_untracked();
            let page_rows = grid.rows.len();
            let rows_need_metadata = state.representation == Representation::Table
                && state.collection_target(&resource).is_ok_and(|t| t.across_namespaces)
                && grid.rows.iter().any(|r| r.namespace.is_none());
            let all = RwSignal::new(grid);
            // Columns came alone (includeObject=None) so that the rows show at once; their
            // namespaces follow from a metadata-only list of the same page.
            let rows_metadata = RwSignal::new(None::<Result<(), Text>>);
            if rows_need_metadata {
                let (resource, client) = (resource.clone(), client.clone());
                let at = PageAt {
                    token: tokens.get_untracked().last().cloned(),
                    list_version: page.list.as_ref().and_then(|l| l.resource_version.clone()),
                    offset: 0,
                    rows: page_rows,
                };
                client.tasks().spawn(async move {
                    let read = read_rows_metadata(client, &resource, &state, at, all).await;
                    rows_metadata.try_set(Some(read));
                });
            }
            let progress = RwSignal::new(None::<LoadAllProgress>);
            let resource_for_all = resource.clone();
            let client_for_all = client.clone();
            let load_all = move |_| {
                let Some(token) = first_next.clone() else { return };
                let loaded = all.with_untracked(|g| g.rows.len());
                progress.set(Some(LoadAllProgress::started(loaded, remaining)));
                let following = Following {
                    client: client_for_all.clone(),
                    resource: resource_for_all.clone(),
                    state: navigation.state.get_untracked(),
                    progress,
                };
                following.spawn(token, read_grid_page, move |body| match body {
                    PageBody::Grid(more) => {
                        all.update(|g| g.rows.extend(more.rows));
                        Ok(all.with_untracked(|g| g.rows.len()))
                    }
                    _ => Err(Msg::OtherRepresentation.into()),
                });
            };
            view! {
                <div class="load-all">
                    <button class="button button--quiet" disabled=page.list.as_ref().and_then(|l| l.continue_token.as_ref()).is_none() on:click=load_all>
                        {live_text(Msg::LoadAllPages)}
                    </button>
                    {move || progress.get().map(|p| view! { <LoadAllBar progress=p /> })}
                </div>
                {rows_need_metadata
                    .then(|| {
                        view! {
                            <p class="muted" data-testid="rows-metadata" role="status">
                                {move || match rows_metadata.get() {
                                    None => text_now(Msg::ReadingRowNamespaces),
                                    Some(Ok(())) => text_now(Msg::RowNamespacesRead),
                                    Some(Err(why)) => filled_text(Msg::RowNamespacesFailed, &[("why", &localized(&why))]),
                                }}
                            </p>
                        }
                    })}
                <GridView grid=all wide />
            }
            .into_any()
        }
        body @ (PageBody::Document(_) | PageBody::List(_)) => {
            // The page as decoded, or (a JSON or CBOR list) read lazily: then it is shown as a
            // joined list of one page from the start, written an item at a time.
            let (document, lazy) = match body {
                PageBody::List(LazyPage(list)) => (Value::Null, Some(list)),
                PageBody::Document(document) => (document, None),
                _ => (Value::Null, None),
            };
            let raw = fetched.response.body.clone();
            let cbor = navigation.state.get_untracked().representation == Representation::Cbor;
            let first_next = page.list.as_ref().and_then(|l| l.continue_token.clone());
            let remaining = page.list.as_ref().and_then(|l| l.remaining_item_count);
            let has_next = first_next.is_some();
            let all = RwSignal::new(document.clone());
            // Pages are joined out of sight (items kept as bytes of their bodies) and shown once
            // at the end, written an item at a time as they come into view.
            let joining = StoredValue::new(None::<JoinedList>);
            let joined = RwSignal::new(lazy.as_ref().map(|page| Arc::new(JoinedList::page(page))));
            let all_joined = RwSignal::new(false);
            let progress = RwSignal::new(None::<LoadAllProgress>);
            Effect::new(move |_| {
                if progress.with(|p| p.as_ref().is_some_and(|p| p.done)) {
                    let list = joining.try_update_value(Option::take).flatten().map(|mut list| {
                        list.finish();
                        Arc::new(list)
                    });
                    if let Some(list) = list {
                        joined.set(Some(list));
                        all_joined.set(true);
                    }
                }
            });
            let (first_type, first_body) = (fetched.content_type.clone(), fetched.response.body.clone());
            let load_all = move |_| {
                let Some(token) = first_next.clone() else { return };
                let first = match &lazy {
                    Some(page) => JoinedList::start_from_page(page),
                    None => lazy_list(first_type.as_ref(), &first_body)
                        .and_then(|items| JoinedList::start(&document, items)),
                };
                let first = match first {
                    Ok(first) => first,
                    Err(error) => {
                        let mut failed = LoadAllProgress::started(0, remaining);
                        failed.error = Some(Text::new(Msg::FirstPageCannotJoin).with_text("error", error));
                        progress.set(Some(failed));
                        return;
                    }
                };
                progress.set(Some(LoadAllProgress::started(first.len(), remaining)));
                joining.set_value(Some(first));
                let following = Following {
                    client: client.clone(),
                    resource: resource.clone(),
                    state: navigation.state.get_untracked(),
                    progress,
                };
                following.spawn(token, read_lazy_page, move |more| {
                    let mut appended = Err(Msg::ListDropped.into());
                    joining.update_value(|list| {
                        if let Some(list) = list {
                            appended = Ok(list.push(more));
                        }
                    });
                    appended
                });
            };
            view! {
                {has_next
                    .then(|| {
                        view! {
                            <div class="load-all">
                                <button class="button button--quiet" on:click=load_all>
                                    {live_text(Msg::LoadAllPages)}
                                </button>
                                <span class="muted">{live_text(Msg::JoinedLikeKubectl)}</span>
                                {move || progress.get().map(|p| view! { <LoadAllBar progress=p /> })}
                            </div>
                        }
                    })}
                <DocumentView
                    document=all
                    joined
                    raw=Signal::derive(move || (!all_joined.get()).then(|| raw.clone()))
                    cbor
                />
            }
            .into_any()
        }
        PageBody::Envelope(envelope) => {
            view! { <ProtobufOnDemand body=ProtobufBody::Envelope { envelope, raw: None } /> }.into_any()
        }
        PageBody::Status(status) => {
            let expired = status.is_expired() && !tokens.with_untracked(Vec::is_empty);
            let wait = fetched.retry_after_seconds();
            view! {
                <StatusView status=*status.clone() />
                {wait.map(|seconds| view! { <RetryCountdown seconds on_retry=retry /> })}
                {expired
                    .then(|| {
                        view! {
                            <div class="notice" data-testid="expired-continue">
                                <p>{live_text(EXPIRED_EXPLANATION)}</p>
                                <button class="button" on:click=move |_| tokens.set(Vec::new())>
                                    {live_text(Msg::RestartFromFirstPage)}
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
