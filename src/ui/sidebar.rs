//! The discovery sidebar: every group's resource types (preferred version first), filtered by
//! name, kind or short name; `/` focuses the filter from anywhere on the page. A type the server
//! says the user may not list in the namespace in view is marked. A filter that names no type
//! offers to search for objects of that name instead (the Search screen).

use leptos::html;
use leptos::prelude::*;

use crate::api::discovery::{Discovery, ResourceType};
use crate::i18n::Msg;
use crate::model::access::{Decision, Question};
use crate::model::view_state::ResourceKey;
use crate::ui::access::use_access;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::keys::{modified, typing};
use crate::ui::location::{use_navigation, ViewLink};
use crate::ui::routes::prefetch_browse;

/// Lists the resource types discovery found, as links that open their collection.
#[component]
pub fn Sidebar(
    /// What discovery found.
    discovery: Discovery,
) -> impl IntoView {
    let navigation = use_navigation();
    let access = use_access();
    let (filter, set_filter) = signal(String::new());
    let input: NodeRef<html::Input> = NodeRef::new();
    // `/` filters: the rows on screen when a grid is shown, else the resource types.
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "/" && !typing(&event) && !modified(&event) {
            event.prevent_default();
            let grid_filter = document()
                .query_selector(".grid__filter")
                .ok()
                .flatten()
                .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
            match grid_filter {
                Some(filter) => {
                    let _ = filter.focus();
                }
                None => {
                    if let Some(input) = input.get_untracked() {
                        let _ = input.focus();
                    }
                }
            }
        }
    });
    on_cleanup(move || handle.remove());

    let groups = discovery.groups;
    let entries = Memo::new(move |_| {
        let query = filter.get();
        groups
            .iter()
            .filter_map(|group| {
                let version = group.versions.first()?;
                let resources: Vec<ResourceType> =
                    version.resources.iter().filter(|r| r.supports("list") && r.matches(&query)).cloned().collect();
                (!resources.is_empty()).then(|| {
                    let others: Vec<String> = group.versions.iter().skip(1).map(|v| v.version.clone()).collect();
                    (format!("{} {}", group.display_name(), version.version), others, resources)
                })
            })
            .collect::<Vec<_>>()
    });

    // A filter that names no type may be the name of an object: offer to search for it.
    let no_type = move || {
        let query = filter.get().trim().to_owned();
        (!query.is_empty() && entries.with(Vec::is_empty)).then(|| {
            let searched = query.clone();
            let change = std::sync::Arc::new(move |s: &mut crate::model::view_state::ViewState| {
                s.resource = None;
                s.name = None;
                s.access = false;
                s.search = Some(searched.clone());
                s.search_labels.clear();
                s.search_owner.clear();
            });
            view! {
                <p class="sidebar__none muted">
                    {
                        let query = query.clone();
                        worded(move || filled_text(Msg::NoTypeNamedLike, &[("query", &query)]))
                    }
                    <ViewLink change testid="sidebar-search">
                        {worded(move || filled_text(Msg::SearchObjectsNamedLike, &[("query", &query)]))}
                    </ViewLink>
                </p>
            }
        })
    };
    view! {
        <nav
            class="sidebar"
            aria-label=live_text(Msg::ResourceTypes)
            on:pointerenter=|_| prefetch_browse()
            on:focusin=|_| prefetch_browse()
        >
            <input
                node_ref=input
                class="sidebar__filter"
                type="search"
                dir="auto"
                placeholder=live_text(Msg::FilterResourceTypesPlaceholder)
                aria-label=live_text(Msg::FilterResourceTypes)
                prop:value=filter
                on:input=move |e| set_filter.set(event_target_value(&e))
            />
            {no_type}
            {move || {
                entries
                    .get()
                    .into_iter()
                    .map(|(heading, others, resources)| {
                        view! {
                            <section class="sidebar__group">
                                <h2 class="sidebar__heading">
                                    {heading}
                                    {(!others.is_empty())
                                        .then(|| {
                                            view! {
                                                <span class="muted" title=live_text(Msg::OtherServedVersions)>
                                                    {
                                                        let versions = others.join(", ");
                                                        worded(move || filled_text(Msg::AlsoVersions, &[("versions", &versions)]))
                                                    }
                                                </span>
                                            }
                                        })}
                                </h2>
                                <ul>
                                    {resources
                                        .into_iter()
                                        .map(|r| {
                                            let key = ResourceKey {
                                                group: r.group.clone(),
                                                version: r.version.clone(),
                                                plural: r.plural.clone(),
                                            };
                                            let current = {
                                                let key = key.clone();
                                                move || navigation.state.get().resource.as_ref() == Some(&key)
                                            };
                                            let title = {
                                                let r = r.clone();
                                                move || {
                                                    let scope = text_now(if r.is_namespaced() {
                                                        Msg::Namespaced
                                                    } else {
                                                        Msg::ClusterScoped
                                                    });
                                                    let mut title = filled_text(
                                                        Msg::ResourceTypeTitle,
                                                        &[("kind", &r.kind), ("api_version", &r.api_version()), ("scope", &scope)],
                                                    );
                                                    if !r.short_names.is_empty() {
                                                        title += &filled_text(Msg::ShortNames, &[("names", &r.short_names.join(", "))]);
                                                    }
                                                    title
                                                }
                                            };
                                            let label = r.plural.clone();
                                            let short = r.short_names.first().cloned();
                                            let list_denied = {
                                                let r = r.clone();
                                                move || {
                                                    let namespace = navigation.state.with(|s| s.namespace.clone());
                                                    access.is_some_and(|a| {
                                                        a.decide(&Question::on("list", &r, namespace.as_deref()))
                                                            == Decision::Denied
                                                    })
                                                }
                                            };
                                            let denied_title = {
                                                let list_denied = list_denied.clone();
                                                let title = title.clone();
                                                let r = r.clone();
                                                move || {
                                                    if list_denied() {
                                                        let namespace = navigation.state.with(|s| s.namespace.clone());
                                                        let q = Question::on("list", &r, namespace.as_deref());
                                                        let namespaced = r.is_namespaced();
                                                        filled_text(
                                                            Msg::YouMayNot,
                                                            &[
                                                                ("title", &title()),
                                                                ("action", &localized(&q.words(namespaced))),
                                                                ("command", &q.kubectl(namespaced)),
                                                            ],
                                                        )
                                                    } else {
                                                        title()
                                                    }
                                                }
                                            };
                                            let marked = list_denied.clone();
                                            view! {
                                                <li>
                                                    <button
                                                        class="sidebar__link"
                                                        class:sidebar__link--denied=list_denied
                                                        title=denied_title
                                                        aria-current=move || current().then_some("page")
                                                        on:click=move |_| {
                                                            let key = key.clone();
                                                            navigation
                                                                .update(move |s| s.open_collection(key))
                                                        }
                                                    >
                                                        {label}
                                                        {short.map(|s| view! { <span class="muted">{format!(" {s}")}</span> })}
                                                        {move || {
                                                            marked()
                                                                .then(|| {
                                                                    view! {
                                                                        <span class="sidebar__denied" data-testid="cannot-list">
                                                                            {live_text(Msg::CannotList)}
                                                                        </span>
                                                                    }
                                                                })
                                                        }}
                                                    </button>
                                                </li>
                                            }
                                        })
                                        .collect_view()}
                                </ul>
                            </section>
                        }
                    })
                    .collect_view()
            }}
        </nav>
    }
}
