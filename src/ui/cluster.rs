//! The cluster overview: the server's version and the API groups discovery found.

use leptos::prelude::*;

use crate::api::discovery::{ApiGroup, Scope};
use crate::client::discovery::ClusterInfo;
use crate::i18n::Msg;
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::i18n::{filled_text, live_text, text_now};
use crate::ui::intl;
use crate::ui::location::ViewLink;
use crate::ui::routes::prefetch_browse;

/// Shows the server version and every API group with its versions and resource types.
#[component]
pub fn ClusterOverview(
    /// What the first requests found.
    info: ClusterInfo,
) -> impl IntoView {
    let (group_count, type_count) = (info.discovery.groups.len(), info.discovery.resource_count());
    let kind = if info.aggregated { Msg::DiscoveryAggregated } else { Msg::DiscoveryLegacy };
    let summary = move || {
        filled_text(
            Msg::DiscoverySummary,
            &[("groups", &intl::count(group_count)), ("types", &intl::count(type_count)), ("kind", &text_now(kind))],
        )
    };
    let version = info.version;
    let groups = info.discovery.groups;
    view! {
        <section class="panel" aria-labelledby="version-heading">
            <h2 id="version-heading">{live_text(Msg::ServerVersion)}</h2>
            <dl class="facts">
                <dt>{live_text(Msg::Version)}</dt>
                <dd data-testid="git-version">{version.git_version.clone()}</dd>
                <dt>{live_text(Msg::MajorMinor)}</dt>
                <dd>{format!("{}.{}", version.major, version.minor)}</dd>
                <dt>{live_text(Msg::Platform)}</dt>
                <dd>{version.platform.clone()}</dd>
                <dt>{live_text(Msg::Built)}</dt>
                <dd>{version.build_date.clone()}</dd>
            </dl>
        </section>
        <section class="panel" aria-labelledby="groups-heading">
            <h2 id="groups-heading">{live_text(Msg::ApiGroups)}</h2>
            <p class="muted" data-testid="discovery-summary">{summary}</p>
            <ul
                class="groups"
                aria-label=live_text(Msg::ApiGroups)
                on:pointerenter=|_| prefetch_browse()
                on:focusin=|_| prefetch_browse()
            >
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
            <span class="badge" class:badge--preferred=preferred title=move || if preferred { text_now(Msg::PreferredVersion) } else { String::new() }>
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
                            Scope::Namespaced => Msg::Namespaced,
                            Scope::Cluster => Msg::ClusterScoped,
                        };
                        let (kind, api_version) = (r.kind.clone(), r.api_version());
                        let title = Signal::derive(move || {
                            filled_text(Msg::ResourceTypeTitle, &[("kind", &kind), ("api_version", &api_version), ("scope", &text_now(scope))])
                        });
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
