//! The Leptos user interface. Components receive decoded models and signals; parsing and protocol
//! logic live in `api`, network calls in `client`.

mod cluster;
mod error_state;

use leptos::prelude::*;

use crate::client::discovery::load_cluster;
use crate::client::ApiBase;

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
            <h1 class="topbar__title">"Kube API Explorer"</h1>
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
        </header>
        <main class="page">
            <Suspense fallback=|| {
                view! {
                    <p class="loading" aria-busy="true">
                        "Reading /version and discovery…"
                    </p>
                }
            }>
                {move || Suspend::new(async move {
                    match cluster.await {
                        Ok(info) => view! { <ClusterOverview info /> }.into_any(),
                        Err(error) => {
                            view! { <ErrorState error on_retry=move || cluster.refetch() /> }.into_any()
                        }
                    }
                })}
            </Suspense>
        </main>
    }
}
