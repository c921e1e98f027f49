//! The Leptos user interface. Components receive decoded models and signals; parsing and protocol
//! logic live in `api`, network calls in `client`.

pub mod access;
mod access_view;
mod cluster;
mod code;
mod collection;
mod completion;
mod context;
pub mod crash;
mod create;
mod decode;
mod delete;
mod diff_view;
mod discovered;
mod document;
mod editor;
mod error_state;
mod explain;
mod explain_link;
mod field_docs;
mod field_hover;
mod forbidden;
mod glance;
mod goto;
mod goto_key;
mod grid;
pub mod host;
pub mod i18n;
pub mod identity;
mod inspector;
mod intl;
// The language switch; with the `english-only` feature, none (see `i18n`).
mod keys;
#[cfg_attr(feature = "english-only", path = "language_english.rs")]
mod language;
mod lazy;
mod live;
mod load_all;
mod location;
mod logs;
mod metrics;
mod metrics_chart;
mod metrics_overview;
pub mod mount_api;
mod namespaces;
mod object;
mod object_actions;
mod on_demand;
mod operations;
mod protobuf;
mod response_info;
mod routes;
mod scale;
mod search;
mod settings;
mod sidebar;
mod status_view;
mod subresource;
mod terminal;
mod validation;
pub mod write;
pub mod write_policy;

use leptos::prelude::*;

use crate::client::discovery::{load_cluster, ClusterInfo};
use crate::client::handle::Client;
use crate::i18n::Msg;
use crate::model::host::{Source, Theme, MANUAL_MOUNT_ATTRIBUTE};
use crate::model::messages;
use crate::model::view_state::ViewState;
use crate::ui::discovered::provide_discovery;
use crate::ui::host::{Host, Setup};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::inspector::{Inspector, WireLog};
use crate::ui::location::Navigation;
use crate::ui::sidebar::Sidebar;

pub use cluster::ClusterOverview;
pub use error_state::ErrorState;

/// Mounts the explorer on the page's `<body>`, configured by the page (URL query, `<meta>`,
/// `data-api-base` on `<body>`).
pub fn mount() {
    let setup = Setup::from_page();
    leptos::mount::mount_to_body(move || view! { <App setup /> });
}

/// Whether the host page asked to mount the explorer itself (an element carries
/// `data-kube-api-explorer-manual`), so that `main` must not mount it on `<body>`.
pub fn manual_mount_requested() -> bool {
    document().query_selector(&format!("[{MANUAL_MOUNT_ATTRIBUTE}]")).ok().flatten().is_some()
}

/// The whole application, configured by its host.
#[component]
pub fn App(
    /// What the host page or mount config said.
    setup: Setup,
) -> impl IntoView {
    let policy = write_policy::WritePolicy::install();
    let host = Host::install(&setup, policy);
    language::install(&setup.target);
    crash::watch(&setup.target);
    let (base, base_error) = match &setup.api_base {
        Ok((base, _)) => (base.clone(), None),
        Err(error) => (crate::model::host::ApiBase::same_origin(), Some(error.clone())),
    };
    let client = Client::new(base, Signal::derive(move || policy.allows_writes()));
    client.provide();
    if setup.in_page() {
        Navigation::install();
    } else {
        // ViewState::new, not Default: the default page size is not zero.
        let initial = match setup.route.as_ref().and_then(messages::initial_view) {
            Some(view) => view,
            None => ViewState::new(),
        };
        Navigation::install_in_memory(initial);
    }
    // The screen the address names is fetched beside discovery's requests, not after them.
    routes::prefetch_for(&location::use_navigation().state.get_untracked());
    WireLog::install(&client);
    write::WriteSettings::install();
    settings::Settings::install();
    keys::Intents::install();
    let inspector_open = RwSignal::new(false);
    let identity = base_error.is_none().then(|| identity::Identity::install(&client));
    if base_error.is_none() {
        access::Access::install(&client);
    }
    // An invalid API base sends nothing: the error says what to fix instead.
    let cluster_client = client.clone();
    let cluster = base_error.is_none().then(|| {
        LocalResource::new(move || {
            let client = cluster_client.clone();
            async move { load_cluster(&client).await }
        })
    });
    let version_label = move || match cluster.map(|c| c.get()) {
        None => text_now(Msg::NotConnected),
        Some(Some(Ok(info))) => info.version.git_version.clone(),
        Some(Some(Err(_))) => text_now(Msg::Unreachable),
        Some(None) => text_now(Msg::Connecting),
    };
    // The address is a URL: it stays left to right in a right-to-left page.
    let api_base = base_error.is_none().then(|| client.base_display());
    let api_source = match host.api_source {
        Source::Default => None,
        source => Some(worded(move || filled_text(Msg::ApiBaseFrom, &[("source", &localized(&source))]))),
    };
    let navigation = location::use_navigation();
    let home = navigation.home_href();
    let embed = host.embed;
    let read_only_badge = move || {
        policy.forced_by_host.get().then(|| {
            view! {
                <span class="badge badge--read-only" data-testid="read-only-host" title=live_text(Msg::ReadOnlyByHostTitle)>
                    {live_text(Msg::ReadOnlyByHost)}
                </span>
            }
        })
    };
    let messages_fact = move || {
        let stats = host.stats.get();
        (host.listens() || stats != messages::MessageStats::default()).then(|| {
            view! {
                <div>
                    <dt>{live_text(Msg::Messages)}</dt>
                    <dd
                        data-testid="host-messages"
                        title=host.host_origin().map(|o| worded(move || filled_text(Msg::ObeyedOnlyFrom, &[("origin", &o)])))
                    >
                        {localized(&stats.summary())}
                    </dd>
                </div>
            }
        })
    };
    let config_errors = host.errors.get_value();

    view! {
        <header class=if embed { "topbar topbar--embed" } else { "topbar" }>
            <h1 class="topbar__title">
                {match home.filter(|_| !embed) {
                    Some(href) => view! { <a href=href class="topbar__home">{live_text(Msg::AppTitle)}</a> }.into_any(),
                    None => live_text(Msg::AppTitle).into_any(),
                }}
            </h1>
            <dl class="topbar__facts">
                <div>
                    <dt>{live_text(Msg::Cluster)}</dt>
                    <dd data-testid="cluster-version">{version_label}</dd>
                </div>
                <div>
                    <dt>"API"</dt>
                    <dd data-testid="api-base">
                        {match api_base {
                            Some(base) => view! { <bdi dir="ltr">{base}</bdi> }.into_any(),
                            None => live_text(Msg::ApiInvalidSeeBelow).into_any(),
                        }}
                    </dd>
                    {api_source.map(|s| view! { <dd class="muted" data-testid="api-base-source">{s}</dd> })}
                </div>
                {identity.map(|identity| view! { <identity::IdentityFact identity /> })}
                {(identity.is_some() && !embed)
                    .then(|| {
                        view! {
                            <div>
                                <dd>
                                    <button
                                        class="button button--quiet topbar__access"
                                        aria-pressed=move || {
                                            navigation
                                                .state
                                                .with(|s| s.access && s.search.is_none() && s.resource.is_none())
                                                .to_string()
                                        }
                                        on:click=move |_| {
                                            navigation
                                                .update(|s| {
                                                    s.resource = None;
                                                    s.name = None;
                                                    s.search = None;
                                                    s.explain = None;
                                                    s.access = true;
                                                })
                                        }
                                    >
                                        {live_text(Msg::Access)}
                                    </button>
                                </dd>
                                <dd>
                                    <button
                                        class="button button--quiet topbar__search"
                                        title=live_text(Msg::SearchTitle)
                                        aria-pressed=move || {
                                            navigation.state.with(|s| s.search.is_some() && s.resource.is_none()).to_string()
                                        }
                                        on:click=move |_| {
                                            navigation
                                                .update(|s| {
                                                    s.resource = None;
                                                    s.name = None;
                                                    s.access = false;
                                                    s.explain = None;
                                                    s.search.get_or_insert_with(String::new);
                                                })
                                        }
                                    >
                                        {live_text(Msg::Search)}
                                    </button>
                                </dd>
                                <dd>
                                    <explain_link::SchemasButton />
                                </dd>
                            </div>
                        }
                    })}
                {messages_fact}
            </dl>
            {read_only_badge}
            <write::ReadOnlyToggle />
            {(!embed).then(|| view! { <language::LanguageSwitch /> })}
            {(!embed)
                .then(|| {
                    view! {
                        <label class="topbar__theme">
                            {live_text(Msg::Theme)}
                            " "
                            <select
                                aria-label=live_text(Msg::Theme)
                                prop:value=move || host.theme.get().as_str()
                                on:change=move |e| {
                                    if let Ok(theme) = Theme::parse(&event_target_value(&e)) {
                                        host.theme.set(theme);
                                    }
                                }
                            >
                                <option value="system">{live_text(Msg::ThemeSystem)}</option>
                                <option value="light">{live_text(Msg::ThemeLight)}</option>
                                <option value="dark">{live_text(Msg::ThemeDark)}</option>
                            </select>
                        </label>
                        <button
                            class="button button--quiet topbar__inspector"
                            aria-expanded=move || inspector_open.get().to_string()
                            on:click=move |_| inspector_open.update(|o| *o = !*o)
                        >
                            {live_text(Msg::WireInspector)}
                        </button>
                    }
                })}
        </header>
        {(!config_errors.is_empty())
            .then(|| {
                view! {
                    <section class="status-error host-errors" role="alert" data-testid="host-config-errors">
                        <h3>{live_text(Msg::HostSettingsNotApplied)}</h3>
                        <ul>{config_errors.into_iter().map(|e| view! { <li>{worded(move || localized(&e))}</li> }).collect_view()}</ul>
                    </section>
                }
            })}
        {move || {
            host.problem
                .get()
                .map(|problem| {
                    view! {
                        <p class="warning host-problem" role="alert" data-testid="host-navigation-problem">
                            {worded(move || filled_text(Msg::HostViewProblem, &[("problem", &localized(&problem))]))}
                        </p>
                    }
                })
        }}
        <main class="app">
            {match (cluster, base_error) {
                (_, Some(error)) => {
                    view! {
                        <section class="status-error host-errors" role="alert" data-testid="api-base-error">
                            <h3>{live_text(Msg::ApiAddressInvalid)}</h3>
                            <p>{worded(move || localized(&error))}</p>
                            <p>{live_text(Msg::ApiAddressInvalidHelp)}</p>
                        </section>
                    }
                        .into_any()
                }
                (Some(cluster), None) => {
                    view! {
                        <Suspense fallback=|| {
                            view! {
                                <p class="loading" aria-busy="true">
                                    {live_text(Msg::ReadingDiscovery)}
                                </p>
                            }
                        }>
                            {move || Suspend::new(async move {
                                match cluster.await {
                                    Ok(info) => view! { <Explorer info /> }.into_any(),
                                    Err(error) => {
                                        view! { <ErrorState error on_retry=move || cluster.refetch() /> }.into_any()
                                    }
                                }
                            })}
                        </Suspense>
                    }
                        .into_any()
                }
                (None, None) => ().into_any(),
            }}
        </main>
        {(!embed).then(|| view! { <Inspector open=inspector_open /> })}
    }
}

/// The explorer proper: discovery in the sidebar, and the collection, object or overview the URL
/// names in the main area.
#[component]
fn Explorer(
    /// What the first requests found.
    info: ClusterInfo,
) -> impl IntoView {
    let navigation = location::use_navigation();
    provide_discovery(&info.discovery);
    let host = expect_context::<Host>();
    // Navigations asked for by the host wait here until discovery can resolve them.
    let resolve_discovery = info.discovery.clone();
    Effect::new(move |_| {
        let Some(route) = host.pending.get() else { return };
        match messages::resolve(&resolve_discovery, &route) {
            Ok(key) => {
                host.problem.set(None);
                navigation.go(messages::navigated(&navigation.state.get_untracked(), key, &route));
            }
            Err(problem) => host.problem.set(Some(problem)),
        }
        host.pending.set(None);
    });
    let discovery = info.discovery.clone();
    let find = move |key: &crate::model::view_state::ResourceKey| {
        discovery.find_resource(&key.group, &key.version, &key.plural).cloned()
    };
    let target = Memo::new(move |_| {
        let state = navigation.state.get();
        state.resource.map(|key| (find(&key).ok_or(key), state.name))
    });
    let sidebar_discovery = info.discovery.clone();
    let embed = host.embed;
    // The schema explorer replaces whatever the resource would show; its own field and version
    // changes must not build the screen again.
    let explaining =
        Memo::new(move |_| navigation.state.with(|s| s.explain.is_some() && s.search.is_none() && !s.access));
    view! {
        <div class=if embed { "layout layout--embed" } else { "layout" }>
            {(!embed)
                .then(|| {
                    view! {
                        <Sidebar discovery=sidebar_discovery />
                        <goto_key::GotoBox />
                        <keys::KeysHelp />
                    }
                })}
            <div class="layout__main">
                {move || match target.get() {
                    _ if !embed && explaining.get() => {
                        view! { <lazy::ExplainViewOnDemand discovery=info.discovery.clone() /> }.into_any()
                    }
                    None if embed => {
                        view! {
                            <p class="notice" data-testid="embed-waiting">
                                {live_text(Msg::EmbedWaiting)}
                            </p>
                        }
                            .into_any()
                    }
                    None if navigation.state.with(|s| s.search.is_some()) => {
                        view! { <lazy::SearchViewOnDemand discovery=info.discovery.clone() /> }.into_any()
                    }
                    None if navigation.state.with(|s| s.access) => {
                        view! { <lazy::AccessViewOnDemand discovery=info.discovery.clone() /> }.into_any()
                    }
                    None => {
                        view! {
                            <ClusterOverview info=info.clone() />
                            <decode::DecodeTool />
                        }
                            .into_any()
                    }
                    Some((Ok(resource), None)) => view! { <routes::CollectionViewOnDemand resource /> }.into_any(),
                    Some((Ok(resource), Some(name))) => {
                        view! { <routes::ObjectViewOnDemand resource name /> }.into_any()
                    }
                    Some((Err(key), _)) => {
                        view! {
                            <section class="status-error" role="alert">
                                <h3>{live_text(Msg::UnknownResourceType)}</h3>
                                <p>
                                    {
                                        let group_version = crate::api::discovery::group_version(&key.group, &key.version);
                                        move || {
                                            filled_text(
                                                Msg::UnknownResourceTypeHelp,
                                                &[("resource", &key.plural), ("group_version", &group_version)],
                                            )
                                        }
                                    }
                                </p>
                            </section>
                        }
                            .into_any()
                    }
                }}
            </div>
        </div>
    }
}
