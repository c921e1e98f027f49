//! The Access view: what the user may do in a namespace, as the can-i matrix of its resource types
//! (resource types × verbs, filterable) decided from the namespace's SelfSubjectRulesReview, the
//! rules themselves as `kubectl auth can-i --list` prints them, and the cluster-scoped types asked
//! one SelfSubjectAccessReview each, on demand.

use leptos::prelude::*;

use crate::api::access::RulesReview;
use crate::api::discovery::{Discovery, ResourceType};
use crate::i18n::Msg;
use crate::model::access::{decide, matrix, Decision, MatrixRow, Question, VERBS};
use crate::ui::access::{use_access, Rules};
use crate::ui::i18n::{filled_text, live_text, text_now, worded};
use crate::ui::identity::Identity;
use crate::ui::location::use_navigation;
use crate::ui::namespaces::NamespaceSelect;

/// The namespace whose rules are shown when the view is on all namespaces, as kubectl does.
const DEFAULT_NAMESPACE: &str = "default";

/// The types of discovery's preferred version of each group.
fn preferred_types(discovery: &Discovery) -> Vec<ResourceType> {
    discovery.groups.iter().filter_map(|g| g.versions.first()).flat_map(|v| v.resources.iter().cloned()).collect()
}

/// The Access view of the namespace in the URL.
#[component]
pub fn AccessView(discovery: Discovery) -> impl IntoView {
    let navigation = use_navigation();
    let Some(access) = use_access() else {
        return view! { <p class="warning" role="alert">{live_text(Msg::NoApiToAsk)}</p> }.into_any();
    };
    let identity = use_context::<Identity>();
    let filter = RwSignal::new(String::new());
    let (namespaced, cluster): (Vec<ResourceType>, Vec<ResourceType>) =
        preferred_types(&discovery).into_iter().partition(|t| t.is_namespaced());
    let chosen = move || navigation.state.with(|s| s.namespace.clone());
    let namespace = move || chosen().unwrap_or_else(|| DEFAULT_NAMESPACE.to_owned());
    let rules = move || access.rules(&namespace());
    let user = move || match identity.and_then(|i| i.user.get()) {
        Some(Ok(user)) => user.username,
        Some(Err(_)) => text_now(Msg::TheUserUnknown),
        None => text_now(Msg::TheUser),
    };
    let rules_state = move || match rules() {
        None => view! { <p class="loading" aria-busy="true">{live_text(Msg::AskingRulesReview)}</p> }.into_any(),
        Some(Rules::Unavailable(reason)) => view! {
            <p class="warning" role="alert" data-testid="rules-unavailable">
                {worded(move || filled_text(Msg::RulesUnavailable, &[("reason", &reason)]))}
            </p>
        }
        .into_any(),
        Some(Rules::Known(review)) if review.incomplete => view! {
            <p class="warning" data-testid="rules-incomplete">
                {
                    let error = review.evaluation_error.map(|e| format!(" ({e})")).unwrap_or_default();
                    worded(move || filled_text(Msg::RulesIncomplete, &[("error", &error)]))
                }
            </p>
        }
        .into_any(),
        Some(Rules::Known(_)) => ().into_any(),
    };
    let namespaced_rows = move || {
        let review = match rules() {
            Some(Rules::Known(review)) => Some(review),
            _ => None,
        };
        let pending = rules().is_none();
        let namespace = namespace();
        matrix(&namespaced, Some(&namespace), &filter.get(), |q| match &review {
            Some(review) => decide(review, q),
            None if pending => Decision::Pending,
            None => Decision::Unknown,
        })
    };
    let cluster_questions = {
        let cluster = cluster.clone();
        move || {
            cluster
                .iter()
                .flat_map(|t| VERBS.iter().filter(|v| t.supports(v)).map(|v| Question::on(v, t, None)))
                .collect::<Vec<_>>()
        }
    };
    let cluster_asked = RwSignal::new(false);
    let cluster_count = cluster_questions().len();
    let cluster_rows = move || {
        if !cluster_asked.get() {
            return Vec::new();
        }
        matrix(&cluster, None, &filter.get(), |q| access.precise(q))
    };
    let note = move || {
        let shown = namespace();
        match chosen() {
            Some(_) => filled_text(Msg::AccessNote, &[("user", &user()), ("namespace", &shown)]),
            None => filled_text(Msg::AccessNoteAll, &[("user", &user()), ("namespace", &shown)]),
        }
    };
    view! {
        <section class="access" aria-label=live_text(Msg::Access)>
            <header class="collection__header">
                <h2>{live_text(Msg::Access)}</h2>
                <p class="muted" data-testid="access-note">{note}</p>
                <div class="toolbar">
                    <NamespaceSelect />
                    <input
                        type="search"
                        dir="auto"
                        aria-label=live_text(Msg::FilterMatrix)
                        placeholder=live_text(Msg::FilterByResource)
                        prop:value=filter
                        on:input=move |e| filter.set(event_target_value(&e))
                    />
                    <button class="button button--quiet" on:click=move |_| access.refresh() data-testid="access-refresh">
                        {live_text(Msg::AskAgain)}
                    </button>
                </div>
            </header>
            {rules_state}
            <MatrixTable rows=Signal::derive(namespaced_rows) label=Msg::NamespacedTypes />
            <h3>{live_text(Msg::ClusterScopedTypesHeading)}</h3>
            {move || {
                if cluster_asked.get() {
                    let questions = cluster_questions.clone();
                    let progress = move || {
                        let questions = questions();
                        let answered = questions.iter().filter(|q| access.is_answered(q)).count();
                        filled_text(Msg::ReviewsAnswered, &[("answered", &answered), ("total", &questions.len())])
                    };
                    view! {
                        <p class="muted" data-testid="access-cluster-progress" aria-live="polite">{progress}</p>
                        <MatrixTable rows=Signal::derive(cluster_rows.clone()) label=Msg::ClusterScopedTypes />
                    }
                        .into_any()
                } else {
                    let questions = cluster_questions.clone();
                    view! {
                        <p class="muted">
                            {live_text(Msg::ClusterReviewsHelp)}
                            <button
                                class="button"
                                data-testid="access-ask-cluster"
                                on:click=move |_| {
                                    access.ask_all(questions());
                                    cluster_asked.set(true);
                                }
                            >
                                {worded(move || filled_text(Msg::AskServerReviews, &[("count", &cluster_count)]))}
                            </button>
                        </p>
                    }
                        .into_any()
                }
            }}
            <h3>{live_text(Msg::Rules)}</h3>
            {move || match rules() {
                Some(Rules::Known(review)) => view! { <RulesTable review /> }.into_any(),
                _ => ().into_any(),
            }}
        </section>
    }
    .into_any()
}

/// A can-i matrix: one row per resource type, one column per verb.
#[component]
fn MatrixTable(rows: Signal<Vec<MatrixRow>>, label: Msg) -> impl IntoView {
    view! {
        <table class="causes access__matrix" aria-label=live_text(label) data-testid="access-matrix">
            <thead>
                <tr>
                    <th scope="col">{live_text(Msg::Resource)}</th>
                    {VERBS.iter().map(|v| view! { <th scope="col">{*v}</th> }).collect_view()}
                </tr>
            </thead>
            <tbody>
                {move || {
                    rows.get()
                        .into_iter()
                        .map(|row| {
                            view! {
                                <tr data-resource=row.resource.clone()>
                                    <th scope="row" title=row.kind.clone()>{row.resource.clone()}</th>
                                    {row
                                        .cells
                                        .into_iter()
                                        .zip(VERBS)
                                        .map(|(cell, verb)| match cell {
                                            None => view! { <td class="muted" data-verb=verb title=live_text(Msg::NotServed)>"–"</td> }.into_any(),
                                            Some(d) => {
                                                let class = match d {
                                                    Decision::Allowed => "access__yes",
                                                    Decision::Denied => "access__no",
                                                    Decision::Unknown => "access__unknown",
                                                    Decision::Pending => "access__unknown access__pending",
                                                };
                                                view! { <td class=class data-verb=verb>{d.mark()}</td> }.into_any()
                                            }
                                        })
                                        .collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()
                }}
            </tbody>
        </table>
    }
}

/// The rules as `kubectl auth can-i --list` prints them.
#[component]
fn RulesTable(review: RulesReview) -> impl IntoView {
    let list = |items: &[String]| format!("[{}]", items.join(" "));
    let resource_rows = review.resource_rules.iter().map(|rule| {
        let mut resources = Vec::new();
        for resource in &rule.resources {
            for group in &rule.api_groups {
                resources.push(if group.is_empty() { resource.clone() } else { format!("{resource}.{group}") });
            }
        }
        (resources.join(", "), "[]".to_owned(), list(&rule.resource_names), list(&rule.verbs))
    });
    let url_rows = review
        .non_resource_rules
        .iter()
        .map(|rule| (String::new(), list(&rule.urls), "[]".to_owned(), list(&rule.verbs)));
    let rows: Vec<_> = resource_rows.chain(url_rows).collect();
    view! {
        <table class="causes" data-testid="access-rules">
            <thead>
                <tr>
                    <th>{live_text(Msg::Resources)}</th>
                    <th>{live_text(Msg::NonResourceUrls)}</th>
                    <th>{live_text(Msg::ResourceNames)}</th>
                    <th>{live_text(Msg::Verbs)}</th>
                </tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|(resources, urls, names, verbs)| {
                        view! {
                            <tr>
                                <td><code>{resources}</code></td>
                                <td><code>{urls}</code></td>
                                <td><code>{names}</code></td>
                                <td><code>{verbs}</code></td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}
