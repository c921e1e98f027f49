//! The Search screen: objects of every listable type, by part of their name and/or a label
//! selector, in one namespace or the whole cluster (`?search=…&searchLabels=…&namespace=…`).
//!
//! The view renders a [`SearchRun`] (`model::search`, where the plan, the matching and the counts
//! live) that `client::search` drives.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::discovery::{group_version, Discovery};
use crate::client::search::{use_search, SearchDriver};
use crate::i18n::Msg;
use crate::model::access::Decision;
use crate::model::search::{
    plan, QueryError, SearchQuery, SearchRun, SkipWhen, TypeState, PAGE_SIZE, PARALLEL_TYPES, SHOWN_PER_TYPE,
};
use crate::model::view_state::ViewState;
use crate::ui::access::use_access;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, text_signal, worded};
use crate::ui::intl;
use crate::ui::location::{use_navigation, ViewLink};
use crate::ui::namespaces::NamespaceSelect;

/// The Search screen of the view in the URL.
#[component]
pub fn SearchView(discovery: Discovery) -> impl IntoView {
    let navigation = use_navigation();
    let access = use_access();
    let driver = use_search();
    // Bumped by Search on the search already shown: run it again.
    let again = RwSignal::new(0_u64);
    let wanted = Memo::new(move |_| navigation.state.with(SearchQuery::from_view));
    let waiting = RwSignal::new(false);

    Effect::new(move |started: Option<Option<(SearchQuery, u64)>>| {
        let started = started.flatten();
        let query = match wanted.get() {
            Some(Ok(query)) => query,
            _ => {
                driver.clear();
                waiting.set(false);
                return None;
            }
        };
        let key = (query.clone(), again.get());
        if started.as_ref() == Some(&key) {
            return started;
        }
        // What the user may list is known first, so that refused types are skipped unsent.
        if let Some(access) = access {
            if !access.rules_known(query.namespace.as_deref()) {
                driver.clear();
                waiting.set(true);
                return None;
            }
        }
        waiting.set(false);
        driver.run_or_show_kept(query.clone(), key.1 != 0, || {
            untrack(|| {
                plan(&discovery, query.namespace.as_deref(), |q| {
                    access.map_or(Decision::Unknown, |access| access.decide(q))
                })
            })
        });
        Some(key)
    });

    view! {
        <section class="search" aria-label=live_text(Msg::Search)>
            <header class="collection__header">
                <h2>{live_text(Msg::Search)}</h2>
                <p class="muted">
                    {move || {
                        filled_text(
                            Msg::SearchHelp,
                            &[("page_size", &PAGE_SIZE), ("parallel", &PARALLEL_TYPES), ("shown", &SHOWN_PER_TYPE)],
                        )
                    }}
                </p>
                <SearchForm again />
            </header>
            {move || match wanted.get() {
                Some(Err(error)) => view! { <QueryProblem error /> }.into_any(),
                _ if waiting.get() => {
                    view! {
                        <p class="loading" aria-busy="true" data-testid="search-waiting">
                            {live_text(Msg::AskingWhatYouMayList)}
                        </p>
                    }
                        .into_any()
                }
                _ => ().into_any(),
            }}
            {move || driver.run.with(Option::is_some).then(|| view! { <Results driver /> })}
        </section>
    }
}

/// The search fields: part of a name, a label selector, the namespace; Search and Stop live in
/// [`Results`]' bar and here.
#[component]
fn SearchForm(again: RwSignal<u64>) -> impl IntoView {
    let navigation = use_navigation();
    let in_url =
        Memo::new(move |_| navigation.state.with(|s| (s.search.clone().unwrap_or_default(), s.search_labels.clone())));
    let name = RwSignal::new(String::new());
    let labels = RwSignal::new(String::new());
    // The fields follow the URL (back and forward), not every change of the view.
    Effect::new(move |_| {
        let (in_name, in_labels) = in_url.get();
        name.set(in_name);
        labels.set(in_labels);
    });
    let submit = move |e: leptos::ev::SubmitEvent| {
        e.prevent_default();
        let (name, labels) = (name.get_untracked(), labels.get_untracked());
        let current = navigation.state.get_untracked();
        if current.search.as_deref() == Some(name.as_str()) && current.search_labels == labels {
            again.update(|n| *n += 1);
        } else {
            navigation.update(move |s| {
                s.search = Some(name);
                s.search_labels = labels;
            });
        }
    };
    view! {
        <form class="toolbar search__form" role="search" on:submit=submit>
            <label class="toolbar__field">
                {live_text(Msg::NameContains)}
                " "
                <input
                    type="search"
                    dir="auto"
                    class="search__name"
                    aria-label=live_text(Msg::NameContains)
                    placeholder=live_text(Msg::NameContainsPlaceholder)
                    prop:value=name
                    on:input=move |e| name.set(event_target_value(&e))
                />
            </label>
            <label class="toolbar__field">
                {live_text(Msg::LabelSelector)}
                " "
                <input
                    type="search"
                    dir="auto"
                    class="search__labels"
                    aria-label=live_text(Msg::LabelSelector)
                    placeholder=live_text(Msg::SearchLabelPlaceholder)
                    prop:value=labels
                    on:input=move |e| labels.set(event_target_value(&e))
                />
            </label>
            <NamespaceSelect />
            <OwnerCriterion />
            <button type="submit" class="button">
                {live_text(Msg::Search)}
            </button>
        </form>
    }
}

/// The owner searched for (from an object's Relations panel), with a button that removes it.
#[component]
fn OwnerCriterion() -> impl IntoView {
    let navigation = use_navigation();
    let owner = Memo::new(move |_| navigation.state.with(|s| s.search_owner.clone()));
    move || {
        let uid = owner.get();
        (!uid.is_empty()).then(|| {
            let shown = uid.clone();
            view! {
                <span class="toolbar__field" data-testid="search-owner">
                    {worded(move || filled_text(Msg::SearchOwnerCriterion, &[("owner", &shown)]))}
                    " "
                    <button
                        type="button"
                        class="button button--quiet"
                        on:click=move |_| navigation.update(|s| s.search_owner.clear())
                    >
                        {live_text(Msg::SearchClearOwner)}
                    </button>
                </span>
            }
        })
    }
}

/// Why the search in the URL cannot run.
#[component]
fn QueryProblem(error: QueryError) -> impl IntoView {
    let alert = !matches!(error, QueryError::Nothing);
    view! {
        <p
            class=if alert { "warning" } else { "muted" }
            role=alert.then_some("alert")
            data-testid="search-problem"
        >
            {worded(move || localized(&error))}
        </p>
    }
}

/// The progress, the skipped types and the matches, grouped by type.
#[component]
fn Results(driver: SearchDriver) -> impl IntoView {
    let run = driver.run;
    let progress = move || run.with(|r| r.as_ref().map(SearchRun::progress).unwrap_or_default());
    let running = move || run.with(|r| r.as_ref().is_some_and(SearchRun::is_running));
    let summary = move || {
        let p = progress();
        let found = filled_text(
            Msg::FoundIn,
            &[
                ("matches", &intl::plural(p.matched, MATCH_COUNT)),
                ("types", &intl::plural(p.types_with_matches, TYPE_COUNT)),
            ],
        );
        let read = intl::plural(p.listed, OBJECTS_READ);
        let (finished, total) = (intl::count(p.finished), intl::count(p.total));
        if running() {
            filled_text(
                Msg::SearchRunning,
                &[
                    ("finished", &finished),
                    ("total", &total),
                    ("listing", &intl::count(p.listing)),
                    ("found", &found),
                    ("read", &read),
                ],
            )
        } else if p.stopped > 0 {
            filled_text(
                Msg::SearchStopped,
                &[("finished", &finished), ("total", &total), ("found", &found), ("read", &read)],
            )
        } else {
            filled_text(
                Msg::SearchDone,
                &[("found", &found), ("searched", &intl::plural(p.total, TYPES_SEARCHED)), ("read", &read)],
            )
        }
    };
    let timing = move || {
        driver.timing.get().map(|t| match (t.finished, t.kept) {
            (Some(finished), true) => filled_text(
                Msg::ShownAgain,
                &[
                    ("ago", &intl::relative_seconds(((finished - js_sys::Date::now()) / 1000.0).round())),
                    ("took", &intl::duration_ms(finished - t.started)),
                ],
            ),
            (Some(finished), false) => filled_text(Msg::TookIn, &[("took", &intl::duration_ms(finished - t.started))]),
            (None, _) => String::new(),
        })
    };
    let describe = move || run.with(|r| r.as_ref().map(|r| localized(&r.query.describe())).unwrap_or_default());
    let groups = move || {
        run.with(|r| {
            r.as_ref().map(|r| r.groups().map(|(i, t)| (i, t.revision)).collect::<Vec<_>>()).unwrap_or_default()
        })
    };
    view! {
        <div class="search__status" aria-live="polite">
            <div class="toolbar">
                <progress
                    aria-label=live_text(Msg::SearchProgress)
                    max=move || progress().total.max(1).to_string()
                    value=move || {
                        let p = progress();
                        // Nothing to list (every type skipped) is a search done, not one not begun.
                        if p.total == 0 { 1 } else { p.finished }.to_string()
                    }
                ></progress>
                <span data-testid="search-progress">{summary}</span>
                <span class="muted" data-testid="search-timing">{timing}</span>
                <button
                    class="button button--quiet"
                    type="button"
                    disabled=move || !running()
                    on:click=move |_| driver.stop()
                >
                    {live_text(Msg::Stop)}
                </button>
            </div>
            <p class="muted" data-testid="search-describes">{describe}</p>
            <Skipped run />
        </div>
        <For each=groups key=|entry| *entry children=move |(index, _)| view! { <Group run index /> } />
        <WithoutMatches run />
    }
}

/// The types skipped for lack of permission: how many, and on demand which and why.
#[component]
fn Skipped(run: RwSignal<Option<SearchRun>>) -> impl IntoView {
    move || {
        let skipped = run.with(|r| r.as_ref().map(|r| r.skipped.clone()).unwrap_or_default());
        (!skipped.is_empty()).then(|| {
            let known = skipped.iter().filter(|s| s.when == SkipWhen::Known).count();
            let answered = skipped.len() - known;
            view! {
                <details class="search__skipped" data-testid="search-skipped">
                    <summary>
                        <span data-testid="search-skipped-count">
                            {
                                let count = skipped.len();
                                move || intl::plural(count, TYPES_SKIPPED)
                            }
                        </span>
                        {worded(move || filled_text(Msg::SkippedWhy, &[("known", &known), ("answered", &answered)]))}
                    </summary>
                    <table class="causes">
                        <thead>
                            <tr>
                                <th>{live_text(Msg::ConditionType)}</th>
                                <th>{live_text(Msg::Why)}</th>
                                <th>{live_text(Msg::CheckColumn)}</th>
                            </tr>
                        </thead>
                        <tbody>
                            {skipped
                                .into_iter()
                                .map(|s| {
                                    view! {
                                        <tr data-resource=s.resource.plural.clone()>
                                            <td>
                                                {s.resource.kind.clone()}
                                                <span class="muted">{format!(" {}", type_label(&s.resource.group, &s.resource.version, &s.resource.plural))}</span>
                                            </td>
                                            <td>
                                                {move || match s.when {
                                                    SkipWhen::Known => text_now(Msg::NotAsked),
                                                    SkipWhen::Answered => "403: ".to_owned(),
                                                }}
                                                {worded(move || localized(&s.reason))}
                                            </td>
                                            <td>
                                                <code>{s.command}</code>
                                            </td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                </details>
            }
        })
    }
}

/// One type's matches.
#[component]
fn Group(run: RwSignal<Option<SearchRun>>, index: usize) -> impl IntoView {
    let Some(entry) = run.with_untracked(|r| r.as_ref().and_then(|r| r.types.get(index).cloned())) else {
        return ().into_any();
    };
    let query = run.with_untracked(|r| r.as_ref().map(|r| r.query.clone()));
    let Some(query) = query else { return ().into_any() };
    let namespaced = entry.resource.is_namespaced();
    let label = type_label(&entry.resource.group, &entry.resource.version, &entry.resource.plural);
    let list_link = {
        let key = entry.key();
        let labels = query.label_text.clone();
        let namespace = query.namespace.clone();
        Arc::new(move |s: &mut ViewState| {
            open_collection(s);
            s.resource = Some(key.clone());
            s.namespace = namespace.clone();
            s.label_selector = labels.clone();
        })
    };
    let hits = entry
        .hits
        .iter()
        .map(|hit| {
            let key = entry.key();
            let name = hit.name.clone();
            let namespace = hit.namespace.clone();
            let change = Arc::new(move |s: &mut ViewState| {
                open_collection(s);
                s.resource = Some(key.clone());
                s.name = Some(name.clone());
                if namespaced {
                    s.namespace = namespace.clone();
                }
            });
            let text = match (&hit.namespace, namespaced) {
                (Some(namespace), true) => format!("{namespace}/{}", hit.name),
                _ => hit.name.clone(),
            };
            let labels = query.shown_labels(hit);
            view! {
                <li>
                    <ViewLink change testid="search-hit">
                        {text}
                    </ViewLink>
                    {labels
                        .into_iter()
                        .map(|(k, v)| view! { <span class="badge search__label">{format!("{k}={v}")}</span> })
                        .collect_view()}
                </li>
            }
        })
        .collect_view();
    let state_note = match &entry.state {
        TypeState::Listing => Some(("muted", filled_text(Msg::ListingSoFar, &[("count", &entry.listed)]))),
        TypeState::Stopped => Some(("muted", filled_text(Msg::StoppedAfter, &[("count", &entry.listed)]))),
        TypeState::Failed(reason) if entry.pages > 0 => Some((
            "warning",
            filled_text(Msg::FailedAfter, &[("count", &entry.listed), ("reason", &localized(reason))]),
        )),
        TypeState::Failed(reason) => {
            Some(("warning", filled_text(Msg::FailedReason, &[("reason", &localized(reason))])))
        }
        _ => None,
    };
    let failed = matches!(entry.state, TypeState::Failed(_));
    let more = entry.more();
    let region = format!("{} {label}", entry.resource.kind);
    view! {
        <section
            class="search__group"
            aria-label=region
            data-testid="search-group"
            data-resource=entry.resource.plural.clone()
            data-group=entry.resource.group.clone()
        >
            <h3 class="search__heading">
                {entry.resource.kind.clone()}
                <span class="muted search__type">{label}</span>
                <span class="badge" data-testid="search-count" title=live_text(Msg::MatchesTitle)>
                    {entry.matched}
                </span>
                {(entry.matched > 0)
                    .then(|| {
                        view! {
                            <ViewLink change=list_link title=text_signal(Msg::OpenListTitle)>
                                {live_text(Msg::OpenTheList)}
                            </ViewLink>
                        }
                    })}
            </h3>
            <ul class="search__hits">{hits}</ul>
            {(more > 0)
                .then(|| {
                    view! {
                        <p class="muted" data-testid="search-more">
                            {worded(move || filled_text(Msg::MoreNotShown, &[("more", &more), ("shown", &SHOWN_PER_TYPE)]))}
                        </p>
                    }
                })}
            {(entry.unselected > 0)
                .then(|| {
                    view! {
                        <p class="muted">
                            {
                                let count = entry.unselected;
                                worded(move || filled_text(Msg::Unselected, &[("count", &count)]))
                            }
                        </p>
                    }
                })}
            {state_note
                .map(|(class, text)| {
                    view! {
                        <p class=class role=failed.then_some("alert") data-testid="search-type-state">
                            {text}
                        </p>
                    }
                })}
        </section>
    }
    .into_any()
}

/// The types searched to the end without a match, on demand.
#[component]
fn WithoutMatches(run: RwSignal<Option<SearchRun>>) -> impl IntoView {
    move || {
        let names: Vec<(String, String, usize)> = run.with(|r| {
            r.as_ref()
                .map(|r| {
                    r.without_matches()
                        .map(|t| {
                            (
                                t.resource.kind.clone(),
                                type_label(&t.resource.group, &t.resource.version, &t.resource.plural),
                                t.listed,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        });
        (!names.is_empty()).then(|| {
            view! {
                <details class="search__none" data-testid="search-without-matches">
                    <summary>
                        {
                            let count = names.len();
                            move || intl::plural(count, TYPES_WITHOUT_MATCH)
                        }
                    </summary>
                    <ul class="search__counts">
                        {names
                            .into_iter()
                            .map(|(kind, label, listed)| {
                                view! {
                                    <li>
                                        {kind}
                                        <span class="muted">{worded(move || filled_text(Msg::TypeRead, &[("label", &label), ("count", &listed)]))}</span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                </details>
            }
        })
    }
}

/// Leaves the Search screen for a collection or an object view: the search stays in the history
/// entry left behind, the collection's own selectors start empty.
fn open_collection(state: &mut ViewState) {
    state.search = None;
    state.search_labels.clear();
    state.search_owner.clear();
    state.access = false;
    state.name = None;
    state.label_selector.clear();
    state.field_selector.clear();
}

/// `apps/v1 deployments`, `v1 pods`.
fn type_label(group: &str, version: &str, plural: &str) -> String {
    format!("{} · {plural}", group_version(group, version))
}

/// The plural forms of the counts the screen shows (`intl::plural`).
const MATCH_COUNT: [Msg; 4] = [Msg::MatchCountOne, Msg::MatchCountFew, Msg::MatchCountMany, Msg::MatchCountOther];
const TYPE_COUNT: [Msg; 4] = [Msg::TypeCountOne, Msg::TypeCountFew, Msg::TypeCountMany, Msg::TypeCountOther];
const OBJECTS_READ: [Msg; 4] = [Msg::ObjectsReadOne, Msg::ObjectsReadFew, Msg::ObjectsReadMany, Msg::ObjectsReadOther];
const TYPES_SEARCHED: [Msg; 4] =
    [Msg::TypesSearchedOne, Msg::TypesSearchedFew, Msg::TypesSearchedMany, Msg::TypesSearchedOther];
const TYPES_SKIPPED: [Msg; 4] =
    [Msg::TypesSkippedOne, Msg::TypesSkippedFew, Msg::TypesSkippedMany, Msg::TypesSkippedOther];
const TYPES_WITHOUT_MATCH: [Msg; 4] =
    [Msg::TypesWithoutMatchOne, Msg::TypesWithoutMatchFew, Msg::TypesWithoutMatchMany, Msg::TypesWithoutMatchOther];
