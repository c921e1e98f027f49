//! The cluster overview: the server's version and the API groups discovery found.

use leptos::prelude::*;

use crate::api::discovery::{ApiGroup, Scope};
use crate::client::discovery::ClusterInfo;
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::location::ViewLink;

/// Shows the server version and every API group with its versions and resource types.
#[component]
pub fn ClusterOverview(
    /// What the first requests found.
    info: ClusterInfo,
) -> impl IntoView {
    let summary = format!(
        "{} API groups, {} resource types, from {} discovery",
        info.discovery.groups.len(),
        info.discovery.resource_count(),
        if info.aggregated { "aggregated" } else { "legacy" }
    );
    let version = info.version;
    let groups = info.discovery.groups;
    view! {
        <section class="panel" aria-labelledby="version-heading">
            <h2 id="version-heading">"Server version"</h2>
            <dl class="facts">
                <dt>"Version"</dt>
                <dd data-testid="git-version">{version.git_version.clone()}</dd>
                <dt>"Major.minor"</dt>
                <dd>{format!("{}.{}", version.major, version.minor)}</dd>
                <dt>"Platform"</dt>
                <dd>{version.platform.clone()}</dd>
                <dt>"Built"</dt>
                <dd>{version.build_date.clone()}</dd>
            </dl>
        </section>
        <section class="panel" aria-labelledby="groups-heading">
            <h2 id="groups-heading">"API groups"</h2>
            <p class="muted" data-testid="discovery-summary">{summary}</p>
            <ul class="groups" aria-label="API groups">
                {groups.into_iter().map(|group| view! { <GroupCard group /> }).collect_view()}
            </ul>
        </section>
    }
}

/// One API group: its name, versions (preferred first) and the resource types of the preferred one.
#[component]
fn GroupCard(
    /// The group to show.
    group: ApiGroup,
) -> impl IntoView {
    let name = group.display_name().to_owned();
    let versions = group.versions.iter().enumerate().map(|(i, v)| {
        let preferred = i == 0;
        view! {
            <span class="badge" class:badge--preferred=preferred title=if preferred { "preferred version" } else { "" }>
                {v.version.clone()}
            </span>
        }
    });
    let versions = versions.collect_view();
    let resources = group.versions.first().map(|v| v.resources.clone()).unwrap_or_default();
    view! {
        <li class="group" data-testid="api-group">
            <h3 class="group__name">{name}</h3>
            <div class="group__versions">{versions}</div>
            <ul class="group__resources">
                {resources
                    .into_iter()
                    .map(|r| {
                        let scope = match r.scope {
                            Scope::Namespaced => "namespaced",
                            Scope::Cluster => "cluster-scoped",
                        };
                        let title = format!("{} ({}), {}", r.kind, r.api_version(), scope);
                        let key = ResourceKey { group: r.group.clone(), version: r.version.clone(), plural: r.plural.clone() };
                        let change = std::sync::Arc::new(move |s: &mut ViewState| s.open_collection(key.clone()));
                        view! {
                            <li>
                                <ViewLink change title testid="group-resource">
                                    {r.plural}
                                </ViewLink>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </li>
    }
}
