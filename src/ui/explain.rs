//! The schema explorer (`?explain=PATH`, with `group`, `version`, `resource` naming the kind and
//! `compare=VERSION` another version of it): the kind's OpenAPI v3 schema as the tree `kubectl
//! explain --recursive` walks, each field with its type in kubectl's words, its required mark and
//! its extensions; the field the URL names opened and explained in full; a search by name or
//! description; and the fields added, removed and changed from another served version. Without a
//! resource, the served kinds to choose from.
//!
//! The tree, the search and the diff are `api::explain`'s, `api::explain_diff`'s and
//! `model::explain`'s; the documents come through the `/openapi/v3` index and are held by their
//! hashed address (`client::schemas::load_indexed_schemas`).

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::prelude::*;

use crate::api::discovery::{Discovery, ResourceType};
use crate::api::explain::{Field, SchemaTree};
use crate::api::explain_diff::{diff, Change, FieldChange};
use crate::client::handle::{use_client, Client};
use crate::client::schemas::{load_indexed_schemas, SchemaError};
use crate::i18n::Msg;
use crate::model::explain::{ancestors, kind_of, search, served_kinds, versions_of, visible};
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::intl;
use crate::ui::location::{use_navigation, ViewLink};

/// A kind's tree as loaded: the tree, the document's address, and whether it was already held.
#[derive(Clone)]
struct Loaded {
    tree: Arc<SchemaTree>,
    url: String,
    cached: bool,
}

/// Reads the group version's document (through the index) and builds the kind's tree.
async fn load_tree(client: Client, resource: ResourceType, version: String) -> Result<Loaded, SchemaError> {
    let indexed = load_indexed_schemas(&client, &resource.group, &version).await?;
    let mut kind = kind_of(&resource);
    kind.version = version;
    let tree = SchemaTree::build(&indexed.schemas, &kind)
        .map_err(|error| SchemaError::Tree { url: Some(indexed.url.clone()), error })?;
    Ok(Loaded { tree: Arc::new(tree), url: indexed.url, cached: indexed.cached })
}

/// The schema explorer of the URL's resource type, or the kinds to choose from.
#[component]
pub fn ExplainView(discovery: Discovery) -> impl IntoView {
    let navigation = use_navigation();
    let key = Memo::new(move |_| navigation.state.with(|s| s.resource.clone()));
    view! {
        <section class="explain" aria-label=live_text(Msg::ExplainRegion)>
            {move || match key.get() {
                None => view! { <KindPicker discovery=discovery.clone() /> }.into_any(),
                Some(key) => {
                    match find(&discovery, &key) {
                        Some(resource) => {
                            let versions = versions_of(&discovery, &resource);
                            view! { <KindSchema resource versions /> }.into_any()
                        }
                        None => {
                            view! {
                                <p class="status-error" role="alert">
                                    {filled_text(
                                        Msg::ExplainNoResource,
                                        &[
                                            ("plural", &key.plural),
                                            ("groupVersion", &crate::api::discovery::group_version(&key.group, &key.version)),
                                        ],
                                    )}
                                </p>
                            }
                                .into_any()
                        }
                    }
                }
            }}
        </section>
    }
}

fn find(discovery: &Discovery, key: &ResourceKey) -> Option<ResourceType> {
    discovery.find_resource(&key.group, &key.version, &key.plural).cloned()
}

/// The served kinds, filterable, each a link to its schema.
#[component]
fn KindPicker(discovery: Discovery) -> impl IntoView {
    let kinds = served_kinds(&discovery);
    let filter = RwSignal::new(String::new());
    let shown = move || {
        let query = filter.get();
        kinds.iter().filter(|k| query.trim().is_empty() || k.matches(&query)).cloned().collect::<Vec<_>>()
    };
    view! {
        <h2>{live_text(Msg::ExplainSchemas)}</h2>
        <p class="muted">
            {live_text(Msg::ExplainIntro)}
        </p>
        <input
            class="explain__filter"
            type="search"
            aria-label=live_text(Msg::ExplainFilterKinds)
            placeholder=live_text(Msg::ExplainFilterKinds)
            prop:value=filter
            on:input=move |e| filter.set(event_target_value(&e))
        />
        <ul class="explain__kinds" data-testid="explain-kinds">
            {move || {
                shown()
                    .into_iter()
                    .map(|resource| {
                        let label = format!("{} · {}", resource.kind, resource.api_version());
                        let key = ResourceKey {
                            group: resource.group.clone(),
                            version: resource.version.clone(),
                            plural: resource.plural.clone(),
                        };
                        let change = Arc::new(move |s: &mut ViewState| {
                            s.resource = Some(key.clone());
                            s.name = None;
                            s.explain = Some(String::new());
                            s.compare = None;
                        });
                        view! {
                            <li>
                                <ViewLink change>{label}</ViewLink>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}

/// One kind's schema: header, version choice, search, tree, field details and comparison.
#[component]
fn KindSchema(resource: ResourceType, versions: Vec<String>) -> impl IntoView {
    let navigation = use_navigation();
    let client = use_client();
    let path = Memo::new(move |_| navigation.state.with(|s| s.explain.clone().unwrap_or_default()));
    let compare = Memo::new(move |_| navigation.state.with(|s| s.compare.clone()));
    let loaded = {
        let (client, resource) = (client.clone(), resource.clone());
        LocalResource::new(move || load_tree(client.clone(), resource.clone(), resource.version.clone()))
    };
    let compared = {
        let resource = resource.clone();
        LocalResource::new(move || {
            let (client, resource, other) = (client.clone(), resource.clone(), compare.get());
            async move {
                match other {
                    Some(version) if version != resource.version => Some(load_tree(client, resource, version).await),
                    _ => None,
                }
            }
        })
    };
    let query = RwSignal::new(String::new());
    let open = RwSignal::new(BTreeSet::<String>::new());
    // A deep link opens the way down to its field, and the field itself.
    Effect::new(move |_| {
        let path = path.get();
        open.update(|open| {
            open.extend(ancestors(&path));
            if !path.is_empty() {
                open.insert(path.clone());
            }
        });
    });
    let title = format!("{} · {}", resource.kind, resource.api_version());
    let back_label = match navigation.state.with_untracked(|s| s.name.clone()) {
        Some(name) => format!("← {} {name}", resource.kind),
        None => format!("← {}", resource.plural),
    };
    let version_choice = version_select(&resource, &versions);
    let compare_choice = compare_select(&resource, &versions);
    view! {
        <header class="collection__header explain__header">
            <button
                class="button button--quiet"
                data-testid="explain-back"
                on:click=move |_| {
                    navigation
                        .update(|s| {
                            s.explain = None;
                            s.compare = None;
                        })
                }
            >
                {back_label}
            </button>
            <h2 data-testid="explain-title">{worded(move || filled_text(Msg::ExplainSchemaOf, &[("title", &title)]))}</h2>
            {version_choice}
            {compare_choice}
        </header>
        <Transition fallback=|| {
            view! {
                <p class="loading" aria-busy="true">
                    {live_text(Msg::ExplainReading)}
                </p>
            }
        }>
            {move || Suspend::new(async move {
                match loaded.await {
                    Err(error) => {
                        view! {
                            <p class="status-error" role="alert" data-testid="explain-error">
                                {worded(move || localized(&error))}
                            </p>
                        }
                            .into_any()
                    }
                    Ok(loaded) => view! { <TreeScreen loaded path open query compared /> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// The select of the version explained (when the kind has more than one).
fn version_select(resource: &ResourceType, versions: &[String]) -> Option<impl IntoView + use<>> {
    let navigation = use_navigation();
    (versions.len() > 1).then(|| {
        let current = resource.version.clone();
        let options = versions
            .iter()
            .map(|v| view! { <option value=v.clone() selected=*v == current>{v.clone()}</option> })
            .collect_view();
        view! {
            <label class="explain__choice">
                {live_text(Msg::ExplainVersion)}
                " "
                <select
                    data-testid="explain-version"
                    on:change=move |e| {
                        let version = event_target_value(&e);
                        navigation
                            .update(|s| {
                                if let Some(key) = s.resource.as_mut() {
                                    key.version = version.clone();
                                }
                                if s.compare.as_deref() == Some(version.as_str()) {
                                    s.compare = None;
                                }
                            })
                    }
                >
                    {options}
                </select>
            </label>
        }
    })
}

/// The select of the version compared with (when the kind has more than one).
fn compare_select(resource: &ResourceType, versions: &[String]) -> Option<impl IntoView + use<>> {
    let navigation = use_navigation();
    let others: Vec<String> = versions.iter().filter(|v| **v != resource.version).cloned().collect();
    (!others.is_empty()).then(|| {
        let chosen = navigation.state.with_untracked(|s| s.compare.clone());
        let options = others
            .into_iter()
            .map(|v| {
                let selected = chosen.as_deref() == Some(v.as_str());
                let value = v.clone();
                view! { <option value=value selected=selected>{v}</option> }
            })
            .collect_view();
        view! {
            <label class="explain__choice">
                {live_text(Msg::ExplainCompareWith)}
                " "
                <select
                    data-testid="explain-compare"
                    on:change=move |e| {
                        let version = event_target_value(&e);
                        navigation.update(|s| s.compare = (!version.is_empty()).then_some(version.clone()))
                    }
                >
                    <option value="" selected=chosen.is_none()>
                        {live_text(Msg::ExplainNoOtherVersion)}
                    </option>
                    {options}
                </select>
            </label>
        }
    })
}

/// The loaded tree: search, the selected field, the comparison and the tree of fields.
#[component]
fn TreeScreen(
    loaded: Loaded,
    path: Memo<String>,
    open: RwSignal<BTreeSet<String>>,
    query: RwSignal<String>,
    compared: LocalResource<Option<Result<Loaded, SchemaError>>>,
) -> impl IntoView {
    let Loaded { tree, url, cached } = loaded;
    // The hash is 128 hex digits: its first 16 tell documents apart; the whole address is the title.
    let short = match url.split_once("?hash=").and_then(|(path, hash)| Some((path, hash.get(..16)?, hash.len()))) {
        Some((path, head, len)) if len > 16 => format!("{path}?hash={head}…"),
        _ => url.clone(),
    };
    let source =
        worded(move || filled_text(if cached { Msg::ExplainFromHeld } else { Msg::ExplainFrom }, &[("url", &short)]));
    let count = tree.fields.len();
    let detail_tree = tree.clone();
    let results_tree = tree.clone();
    let rows_tree = tree.clone();
    let diff_tree = tree.clone();
    view! {
        <p class="muted explain__source" data-testid="explain-source" title=url>
            {worded(move || filled_text(Msg::ExplainFieldCount, &[("count", &intl::count(count))]))}
            " "
            {source}
        </p>
        <div class="explain__search">
            <input
                type="search"
                aria-label=live_text(Msg::ExplainSearchFields)
                placeholder=live_text(Msg::ExplainSearchFields)
                data-testid="explain-search"
                prop:value=query
                on:input=move |e| query.set(event_target_value(&e))
            />
        </div>
        {move || {
            let query = query.get();
            (!query.trim().is_empty()).then(|| view! { <SearchResults tree=results_tree.clone() query /> })
        }}
        <div class="explain__body">
            <div class="explain__tree-pane">
                <ul class="explain__tree" aria-label=live_text(Msg::ExplainFields) data-testid="explain-tree">
                    <For
                        each=move || open.with(|open| visible(&rows_tree, open))
                        key=|i| *i
                        children=move |i| view! { <FieldRow field=tree.fields[i].clone() path open /> }
                    />
                </ul>
            </div>
            <FieldDetails tree=detail_tree path />
        </div>
        <Transition fallback=|| ()>
            {move || {
                let tree = diff_tree.clone();
                Suspend::new(async move {
                    match compared.await {
                        None => ().into_any(),
                        Some(Err(error)) => {
                            view! {
                                <p class="status-error" role="alert" data-testid="explain-compare-error">
                                    {worded(move || localized(&error))}
                                </p>
                            }
                                .into_any()
                        }
                        Some(Ok(other)) => view! { <Comparison old=other.tree new=tree /> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}

/// A link that explains the field at `path`.
fn field_link(path: String, label: String, testid: Option<&'static str>) -> impl IntoView {
    let change = Arc::new(move |s: &mut ViewState| s.explain = Some(path.clone()));
    match testid {
        Some(testid) => view! { <ViewLink change testid>{label}</ViewLink> }.into_any(),
        None => view! { <ViewLink change>{label}</ViewLink> }.into_any(),
    }
}

/// Short words for a field's extensions and rules, shown on its row.
fn badges(field: &Field) -> Vec<String> {
    let mut out: Vec<String> = field
        .extensions
        .iter()
        .filter(|(k, _)| k != "x-kubernetes-group-version-kind" && k != "x-kubernetes-selectable-fields")
        .map(|(k, v)| format!("{}: {v}", k.trim_start_matches("x-kubernetes-")))
        .collect();
    if !field.validations.is_empty() {
        let rules = [Msg::ExplainCelRuleOne, Msg::ExplainCelRuleFew, Msg::ExplainCelRuleMany, Msg::ExplainCelRuleOther];
        out.push(intl::plural(field.validations.len(), rules));
    }
    if let Some(at) = &field.recurs_at {
        out.push(filled_text(Msg::ExplainRecursiveBadge, &[("at", at)]));
    }
    out
}

/// One row of the tree.
#[component]
fn FieldRow(field: Field, path: Memo<String>, open: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let field_path = field.path.clone();
    let toggle = (field.children > 0).then(|| {
        let (toggled, shown) = (field_path.clone(), field_path.clone());
        let is_open = Signal::derive(move || open.with(|o| o.contains(&shown)));
        view! {
            <button
                class="explain__toggle"
                aria-expanded=move || is_open.get().to_string()
                aria-label=filled_text(Msg::ExplainFieldsOf, &[("path", &toggled)])
                on:click=move |_| {
                    open.update(|o| {
                        if !o.remove(&toggled) {
                            o.insert(toggled.clone());
                        }
                    })
                }
            >
                {move || if is_open.get() { "▾" } else { "▸" }}
            </button>
        }
    });
    let current = field_path.clone();
    let badges = badges(&field).into_iter().map(|b| view! { <span class="explain__badge">{b}</span> }).collect_view();
    view! {
        <li
            class="explain__row"
            // Through the CSSOM (a name and a value), not a `style` attribute, which the README's
            // Content-Security-Policy (`style-src 'self'`) refuses.
            style=("--depth", field.depth.to_string())
            data-path=field.path.clone()
            aria-current=move || (path.get() == current).then_some("true")
        >
            {toggle.map(IntoAny::into_any).unwrap_or_else(|| view! { <span class="explain__leaf"></span> }.into_any())}
            {field_link(field.path.clone(), field.name.clone(), None)}
            <span class="explain__type" dir="ltr">{format!("<{}>", field.type_label)}</span>
            {field.required.then(|| view! { <span class="explain__required">{live_text(Msg::ExplainRequiredMark)}</span> })}
            {badges}
        </li>
    }
}

/// Everything the schema says of the field the URL names.
#[component]
fn FieldDetails(tree: Arc<SchemaTree>, path: Memo<String>) -> impl IntoView {
    view! {
        <aside class="explain__details" aria-label=live_text(Msg::ExplainField) data-testid="explain-details">
            {move || {
                let path = path.get();
                match tree.field(&path) {
                    None => {
                        view! {
                            <p class="warning" role="alert">
                                {filled_text(Msg::ExplainNoField, &[("kind", &tree.kind.kind), ("path", &path)])}
                            </p>
                        }
                            .into_any()
                    }
                    Some(field) => view! { <FieldFacts field=field.clone() kind=tree.kind.kind.clone() /> }.into_any(),
                }
            }}
        </aside>
    }
}

/// The facts of one field, as kubectl explain prints them and more.
#[component]
fn FieldFacts(field: Field, kind: String) -> impl IntoView {
    let heading = if field.path.is_empty() { kind.clone() } else { field.path.clone() };
    let crumbs = ancestors(&field.path)
        .into_iter()
        .map(|p| {
            let label = p.rsplit('.').next().unwrap_or(&p).to_string();
            view! {
                " › "
                {field_link(p, label, None)}
            }
        })
        .collect_view();
    let mut facts: Vec<(String, String)> = vec![(text_now(Msg::ExplainFactType), format!("<{}>", field.type_label))];
    if field.required {
        facts.push((text_now(Msg::ExplainFactRequired), text_now(Msg::ExplainYes)));
    }
    if let Some(default) = &field.default {
        facts.push((text_now(Msg::ExplainFactDefault), default.clone()));
    }
    if !field.enum_values.is_empty() {
        facts.push((text_now(Msg::ExplainFactEnum), field.enum_values.join(", ")));
    }
    if !field.item_enum_values.is_empty() {
        facts.push((text_now(Msg::ExplainFactItemEnum), field.item_enum_values.join(", ")));
    }
    if let Some(format) = &field.format {
        facts.push((text_now(Msg::ExplainFactFormat), format.clone()));
    }
    if field.nullable {
        facts.push((text_now(Msg::ExplainFactNullable), text_now(Msg::ExplainYes)));
    }
    facts.extend(field.constraints.iter().cloned());
    facts.extend(field.extensions.iter().cloned());
    if let Some(at) = &field.recurs_at {
        facts.push((text_now(Msg::ExplainFactRecursive), filled_text(Msg::ExplainFieldsLikeAt, &[("at", at)])));
    }
    let facts = facts
        .into_iter()
        .map(|(k, v)| {
            view! {
                <dt>{k}</dt>
                <dd>
                    <code>{v}</code>
                </dd>
            }
        })
        .collect_view();
    let rules = (!field.validations.is_empty()).then(|| {
        let items = field
            .validations
            .iter()
            .map(|v| {
                let scope = if v.on_items { format!("{} ", text_now(Msg::ExplainEachItem)) } else { String::new() };
                let message = v
                    .message
                    .clone()
                    .or_else(|| v.message_expression.clone().map(|m| format!("messageExpression: {m}")))
                    .unwrap_or_else(|| text_now(Msg::ExplainNoMessage));
                let extra: Vec<String> = [
                    v.reason.as_ref().map(|r| format!("reason {r}")),
                    v.field_path.as_ref().map(|p| format!("fieldPath {p}")),
                ]
                .into_iter()
                .flatten()
                .collect();
                view! {
                    <li>
                        {scope}
                        <code class="explain__rule">{v.rule.clone()}</code>
                        <span class="explain__message">{format!(" — {message}")}</span>
                        {(!extra.is_empty()).then(|| view! { <span class="muted">{format!(" ({})", extra.join(", "))}</span> })}
                    </li>
                }
            })
            .collect_view();
        view! {
            <h4>{live_text(Msg::ExplainValidationRules)}</h4>
            <ul class="explain__rules" data-testid="explain-rules">
                {items}
            </ul>
        }
    });
    let description = if field.description.is_empty() { "<empty>".to_string() } else { field.description.clone() };
    view! {
        <p class="explain__crumbs">{field_link(String::new(), kind, None)} {crumbs}</p>
        <h3 class="explain__heading" data-testid="explain-field">
            {heading}
        </h3>
        <dl class="explain__facts">{facts}</dl>
        <p class="explain__description">{description}</p>
        {rules}
    }
}

/// The fields a search found.
#[component]
fn SearchResults(tree: Arc<SchemaTree>, query: String) -> impl IntoView {
    let found = search(&tree, &query);
    let summary = if found.total > found.fields.len() {
        filled_text(
            Msg::ExplainMatchesCapped,
            &[("total", &intl::count(found.total)), ("shown", &intl::count(found.fields.len()))],
        )
    } else {
        let forms = [
            Msg::ExplainFieldMatchOne,
            Msg::ExplainFieldMatchFew,
            Msg::ExplainFieldMatchMany,
            Msg::ExplainFieldMatchOther,
        ];
        intl::plural(found.total, forms)
    };
    let items = found
        .fields
        .iter()
        .map(|&i| {
            let field = &tree.fields[i];
            let first_sentence = field.description.split(". ").next().unwrap_or_default().to_string();
            view! {
                <li>
                    {field_link(field.path.clone(), field.path.clone(), Some("explain-hit"))}
                    " "
                    <span class="explain__type" dir="ltr">{format!("<{}>", field.type_label)}</span>
                    " "
                    <span class="muted">{first_sentence}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="explain__results" aria-label=live_text(Msg::ExplainFieldsFound)>
            <p role="status" data-testid="explain-search-status">{summary}</p>
            <ol>{items}</ol>
        </section>
    }
}

/// The fields added, removed and changed from `old` (the version compared with) to `new`.
#[component]
fn Comparison(old: Arc<SchemaTree>, new: Arc<SchemaTree>) -> impl IntoView {
    let changes = diff(&old, &new);
    let (from, to) = (old.kind.version.clone(), new.kind.version.clone());
    let count = |wanted: fn(&Change) -> bool| changes.iter().filter(|c| wanted(&c.change)).count();
    let summary = filled_text(
        Msg::ExplainDiffSummary,
        &[
            ("from", &from),
            ("to", &to),
            ("added", &intl::count(count(|c| matches!(c, Change::Added)))),
            ("removed", &intl::count(count(|c| matches!(c, Change::Removed)))),
            ("changed", &intl::count(count(|c| matches!(c, Change::Changed(_))))),
        ],
    );
    let rows = changes
        .into_iter()
        .map(|FieldChange { path, type_label, change }| {
            let (word, details, class) = match change {
                Change::Added => (filled_text(Msg::ExplainAddedIn, &[("to", &to)]), Vec::new(), "explain__added"),
                Change::Removed => (filled_text(Msg::ExplainRemovedIn, &[("to", &to)]), Vec::new(), "explain__removed"),
                Change::Changed(aspects) => (text_now(Msg::ExplainChanged), aspects, "explain__changed"),
            };
            let shown = if path.is_empty() { new.kind.kind.clone() } else { path.clone() };
            let link = if class == "explain__removed" {
                view! { <code>{shown}</code> }.into_any()
            } else {
                field_link(path, shown, None).into_any()
            };
            view! {
                <tr class=class>
                    <th scope="row">{link}</th>
                    <td>
                        <code>{format!("<{type_label}>")}</code>
                    </td>
                    <td>{word}</td>
                    <td>
                        <ul>{details.into_iter().map(|d| view! { <li>{d}</li> }).collect_view()}</ul>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="explain__comparison" aria-label=live_text(Msg::ExplainComparison) data-testid="explain-comparison">
            <h3>{format!("{} {from} → {to}", new.kind.kind)}</h3>
            <p role="status">{summary}</p>
            <table>
                <thead>
                    <tr>
                        <th scope="col">{live_text(Msg::ExplainField)}</th>
                        <th scope="col">{live_text(Msg::ExplainFactType)}</th>
                        <th scope="col">{live_text(Msg::ExplainColChange)}</th>
                        <th scope="col">{live_text(Msg::ExplainColWhat)}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}
