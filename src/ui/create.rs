//! Creating objects from YAML or JSON (`POST`): one document or many (`---`), each sent as its
//! own request to the collection its `apiVersion` and `kind` name, with a result per document.
//! The API has no transactions, and the form says so: a failure leaves the earlier objects
//! created.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::client::answer::send_write;
use crate::client::handle::use_client;
use crate::i18n::{Localized, Msg, Text};
use crate::model::access::Question;
use crate::model::write::{plan_creates, preview, CreateItem, SendOptions};
use crate::ui::access::{close_when_refused, refusal, ActionEntry, RefusalList};
use crate::ui::editor::{CodeEditor, TextError};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, text_signal, worded};
use crate::ui::write::{use_write_settings, WriteSettingsFields};
use crate::ui::write_policy::use_write_policy;

/// The panels of a collection's action bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Panel {
    Create,
    DeleteCollection,
}

/// The Create and Delete-collection entries of a collection view, and their panels.
#[component]
pub fn CollectionActions(
    resource: ResourceType,
    /// Called after a write changed the collection.
    on_changed: Callback<()>,
) -> impl IntoView {
    let navigation = crate::ui::location::use_navigation();
    let open = RwSignal::new(None::<Panel>);
    let namespaced = resource.is_namespaced();
    let question_resource = resource.clone();
    let panel = move || {
        let state = navigation.state.get();
        let namespace = resource.scoped(state.namespace.as_deref()).map(str::to_owned);
        let non_empty = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
        match open.get()? {
            Panel::Create => {
                Some(view! { <CreatePanel resource=resource.clone() namespace on_created=on_changed /> }.into_any())
            }
            Panel::DeleteCollection => Some(
                view! {
                    <crate::ui::delete::DeleteCollectionPanel
                        resource=resource.clone()
                        namespace
                        label_selector=non_empty(&state.label_selector)
                        field_selector=non_empty(&state.field_selector)
                        on_changed
                    />
                }
                .into_any(),
            ),
        }
    };
    // Create in the namespace in view; the cluster scope (all namespaces) is asked as such, and a
    // create there names its namespace in the object, which the server checks.
    let refused = |verb: &'static str| {
        let resource = question_resource.clone();
        refusal(
            move || vec![Question::on(verb, &resource, navigation.state.with(|s| s.namespace.clone()).as_deref())],
            namespaced,
        )
    };
    let create_refused = refused("create");
    let delete_refused = refused("deletecollection");
    close_when_refused(open, vec![(Panel::Create, create_refused), (Panel::DeleteCollection, delete_refused)]);
    view! {
        <div class="toolbar">
            <ActionEntry which=Panel::Create label=Msg::CreateEntry open refused=create_refused />
            <ActionEntry which=Panel::DeleteCollection label=Msg::DeleteCollectionEntry open refused=delete_refused quiet=true />
        </div>
        <RefusalList entries=vec![(text_signal(Msg::Create), create_refused), (text_signal(Msg::DeleteCollection), delete_refused)] />
        {panel}
    }
}

/// The result of one document.
#[derive(Debug, Clone, PartialEq)]
struct Created {
    label: String,
    outcome: Result<String, Text>,
    warnings: Vec<String>,
    /// A 403's Status, explained under the result.
    forbidden: Option<crate::api::view::status::Status>,
}

/// The create form, started with a template of `resource`.
#[component]
pub fn CreatePanel(
    resource: ResourceType,
    namespace: Option<String>,
    /// Called after something was created.
    on_created: Callback<()>,
) -> impl IntoView {
    let client = use_client();
    let policy = use_write_policy();
    let settings = use_write_settings();
    let discovery = crate::ui::discovered::use_discovery();
    let namespace_line = match (&resource.scope, &namespace) {
        (crate::api::discovery::Scope::Namespaced, Some(ns)) => format!("\n  namespace: {ns}"),
        _ => String::new(),
    };
    let template = format!(
        "apiVersion: {}\nkind: {}\nmetadata:\n  generateName: example-{namespace_line}\n",
        resource.api_version(),
        resource.kind
    );
    let text = RwSignal::new(template);
    let results = RwSignal::new(Vec::<Created>::new());
    let running = RwSignal::new(false);
    let plan = {
        let namespace = namespace.clone();
        move |dry_run: bool| {
            let options = SendOptions {
                field_manager: settings.field_manager.get(),
                field_validation: settings.field_validation.get(),
                dry_run,
                ..SendOptions::default()
            };
            text.with(|t| plan_creates(t, &discovery, namespace.as_deref(), &options.write_params()))
        }
    };
    let preview_plan = plan.clone();
    let planned = Memo::new(move |_| preview_plan(false));
    let first_error = Signal::derive(move || {
        text.with(|t| crate::api::write::documents::split_yaml_documents(t))
            .into_iter()
            .find_map(|d| d.parsed.err())
            .map(|e| TextError { line: e.line, column: e.column, message: localized(&e.message) })
    });
    let send = move |dry_run: bool| {
        if !policy.allows_writes() || running.get_untracked() {
            return;
        }
        let items: Vec<CreateItem> = plan(dry_run);
        let client = client.clone();
        running.set(true);
        results.set(Vec::new());
        client.tasks().spawn(async move {
            let mut created_any = false;
            for item in items {
                let label = localized(&item.label);
                let created = match item.request {
                    Err(e) => Created { label, outcome: Err(e.text()), warnings: Vec::new(), forbidden: None },
                    Ok(request) => {
                        let answer = send_write(&client, request).await;
                        let outcome = if (200..300).contains(&answer.status) {
                            let name = answer
                                .object
                                .as_ref()
                                .and_then(|o| o.at(&["metadata", "name"]).and_then(Value::as_str).map(str::to_string))
                                .unwrap_or_default();
                            created_any |= !dry_run;
                            Ok(format!(
                                "HTTP {} {}: {} {name}",
                                answer.status,
                                answer.status_text,
                                text_now(if dry_run { Msg::WouldCreate } else { Msg::CreatedVerb })
                            ))
                        } else {
                            Err(match (&answer.status_body, &answer.problem) {
                                (Some(s), _) => Text::verbatim(format!("HTTP {} {}: {}", s.code, s.reason, s.message)),
                                (None, Some(p)) => p.clone(),
                                _ => Text::verbatim(format!("HTTP {}", answer.status)),
                            })
                        };
                        let forbidden = answer.status_body.filter(|s| s.code == 403);
                        Created { label, outcome, warnings: answer.warnings, forbidden }
                    }
                };
                results.update(|r| r.push(created));
            }
            running.set(false);
            if created_any {
                on_created.run(());
            }
        });
    };
    let send_dry = send.clone();
    let can_send = move || policy.allows_writes() && !running.get() && planned.with(|p| !p.is_empty());
    view! {
        <section class="panel write" aria-label=live_text(Msg::CreateObjects)>
            <h3>{live_text(Msg::CreateHeading)}</h3>
            <p class="muted">
                {live_text(Msg::CreateHelp)}
            </p>
            <CodeEditor text label=Msg::ObjectsToCreate error=first_error marks=Signal::derive(Vec::new) testid="create-editor" />
            <div class="toolbar">
                <WriteSettingsFields />
            </div>
            <ol class="write__plan" data-testid="create-plan">
                {move || {
                    planned
                        .get()
                        .into_iter()
                        .map(|item| match item.request {
                            Ok(r) => {
                                let p = preview(&r);
                                view! { <li><code>{format!("{} {}", p.method, p.url)}</code>{format!("  {}", localized(&item.label))}</li> }.into_any()
                            }
                            Err(e) => view! { <li class="warning">{format!("{}: {}", localized(&item.label), localized(&e))}</li> }.into_any(),
                        })
                        .collect_view()
                }}
            </ol>
            <div class="toolbar">
                <button class="button" disabled=move || !can_send() on:click=move |_| send_dry(true)>{live_text(Msg::DryRun)}</button>
                <button class="button" disabled=move || !can_send() on:click=move |_| send(false)>
                    {worded(move || filled_text(Msg::CreateCount, &[("count", &planned.with(Vec::len))]))}
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{live_text(Msg::ReadOnlyNothingSent)}</span> })}
            </div>
            <ol class="write__results" data-testid="create-results">
                {move || {
                    results
                        .get()
                        .into_iter()
                        .map(|c| {
                            let warnings = c.warnings.join("; ");
                            match c.outcome {
                                Ok(text) => view! { <li data-ok="true">{format!("{}: {text}", c.label)}<span class="muted">{warnings}</span></li> }.into_any(),
                                Err(text) => view! {
                                    <li data-ok="false">
                                        <span class="warning">{format!("{}: {}", c.label, localized(&text))}</span>
                                        {c.forbidden.map(|status| view! { <crate::ui::forbidden::ForbiddenExplanationOnDemand status /> })}
                                    </li>
                                }
                                .into_any(),
                            }
                        })
                        .collect_view()
                }}
            </ol>
        </section>
    }
}
