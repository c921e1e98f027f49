//! The Leptos user interface. Components receive decoded models and signals; parsing and protocol
//! logic live in `api`, network calls in `client`.

mod cluster;
mod collection;
mod create;
mod decode;
mod delete;
mod diff_view;
mod document;
mod editor;
mod error_state;
mod grid;
mod inspector;
mod live;
mod location;
mod namespaces;
mod object;
mod response_info;
mod sidebar;
mod status_view;
pub mod write;
pub mod write_policy;

use leptos::prelude::*;

use crate::client::discovery::{load_cluster, ClusterInfo};
use crate::client::ApiBase;
use crate::ui::collection::CollectionView;
use crate::ui::inspector::{Inspector, WireLog};
use crate::ui::location::Navigation;
use crate::ui::object::ObjectView;
use crate::ui::sidebar::Sidebar;

pub use cluster::ClusterOverview;
pub use error_state::ErrorState;

/// Mounts the explorer on the page's `<body>`.
pub fn mount() {
    leptos::mount::mount_to_body(App);
}

/// The whole application.
#[component]
pub fn App() -> impl IntoView {
    let base = ApiBase::same_origin();
    provide_context(base.clone());
    Navigation::install();
    let policy = write_policy::WritePolicy::install();
    WireLog::install(policy);
    write::WriteSettings::install();
    let inspector_open = RwSignal::new(false);
    let cluster = LocalResource::new(move || {
        let base = base.clone();
        async move { load_cluster(&base).await }
    });
    let version_label = move || match cluster.get() {
        Some(Ok(info)) => info.version.git_version.clone(),
        Some(Err(_)) => "unreachable".to_owned(),
        None => "connecting…".to_owned(),
    };
    let api_base = expect_context::<ApiBase>().display();

    view! {
        <header class="topbar">
            <h1 class="topbar__title">
                <a href="?" class="topbar__home">
                    "Kube API Explorer"
                </a>
            </h1>
            <dl class="topbar__facts">
                <div>
                    <dt>"Cluster"</dt>
                    <dd data-testid="cluster-version">{version_label}</dd>
                </div>
                <div>
                    <dt>"API"</dt>
                    <dd data-testid="api-base">{api_base}</dd>
                </div>
            </dl>
            <label class="topbar__theme">
                "Theme "
                <select
                    aria-label="Theme"
                    on:change=move |e| {
                        let theme = event_target_value(&e);
                        if let Some(root) = document().document_element() {
                            let _ = if theme == "system" {
                                root.remove_attribute("data-theme")
                            } else {
                                root.set_attribute("data-theme", &theme)
                            };
                        }
                    }
                >
                    <option value="system">"System"</option>
                    <option value="light">"Light"</option>
                    <option value="dark">"Dark"</option>
                </select>
            </label>
            <write::ReadOnlyToggle />
            <button
                class="button button--quiet topbar__inspector"
                aria-expanded=move || inspector_open.get().to_string()
                on:click=move |_| inspector_open.update(|o| *o = !*o)
            >
                "Wire inspector"
            </button>
        </header>
        <main class="app">
            <Suspense fallback=|| {
                view! {
                    <p class="loading" aria-busy="true">
                        "Reading /version and discovery…"
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
        </main>
        <Inspector open=inspector_open />
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
    let discovery = info.discovery.clone();
    let find = move |key: &crate::model::view_state::ResourceKey| {
        discovery
            .groups
            .iter()
            .flat_map(|g| g.versions.iter())
            .flat_map(|v| v.resources.iter())
            .find(|r| r.group == key.group && r.version == key.version && r.plural == key.plural)
            .cloned()
    };
    let target = Memo::new(move |_| {
        let state = navigation.state.get();
        state.resource.map(|key| (find(&key).ok_or(key), state.name))
    });
    let sidebar_discovery = info.discovery.clone();
    // Creating from YAML finds the collection of each document's kind here.
    provide_context(info.discovery.clone());
    view! {
        <div class="layout">
            <Sidebar discovery=sidebar_discovery />
            <div class="layout__main">
                {move || match target.get() {
                    None => {
                        view! {
                            <ClusterOverview info=info.clone() />
                            <decode::DecodeTool />
                        }
                            .into_any()
                    }
                    Some((Ok(resource), None)) => view! { <CollectionView resource /> }.into_any(),
                    Some((Ok(resource), Some(name))) => view! { <ObjectView resource name /> }.into_any(),
                    Some((Err(key), _)) => {
                        view! {
                            <section class="status-error" role="alert">
                                <h3>"Unknown resource type"</h3>
                                <p>
                                    {format!(
                                        "Discovery lists no {} in {}; the link may come from another cluster.",
                                        key.plural,
                                        crate::api::discovery::group_version(&key.group, &key.version),
                                    )}
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
