//! Editing an object and sending the edit: the editor (with the managedFields ownership gutter),
//! the five ways to send it (PUT, JSON patch, merge patch, strategic merge patch, server-side
//! apply), each with a preview of the exact request and of the diff it should cause, dry-run,
//! `fieldValidation`, and the server's answer (warnings next to their lines, Strict errors listed,
//! 409 conflicts with rebase or force). Also the shared write settings (field manager,
//! validation) and the read-only switch of the top bar.
//!
//! Requests are built by `model::write` from `client`; this file only wires signals to them.

use std::sync::Arc;

use kube_core::GroupVersionKind;
use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::params::FieldValidation;
use crate::api::request::{ApplyEncoding, ObjectRef};
use crate::api::schema::{gvk_of, OpenApiSchemas};
use crate::api::write::diff::display_pointer;
use crate::api::write::dry_run::dry_run_report;
use crate::api::write::managed_fields::{apply_conflicts, managed_fields, owners_of, ManagedOperation, Ownership};
use crate::api::write::patch::TestGuards;
use crate::api::write::update::rebase;
use crate::client::answer::{read_object, send_write, Answer};
use crate::client::handle::use_client;
use crate::client::schemas::{load_schemas, SchemaError};
use crate::i18n::{Localized, Msg, Text};
use crate::model::access::Question;
use crate::model::highlight::yaml_line_pointers;
use crate::model::validation::problem_lines;
use crate::model::write::{
    default_ops, edit_text, edit_view, line_of_field, named_field, ops_text, parse_edit, parse_ops, plan_write,
    preview, strict_problems, PlanContext, SendOptions, WriteMethod, WritePlan, DEFAULT_FIELD_MANAGER,
};
use crate::ui::access::{refusal, RefusalList};
use crate::ui::diff_view::DiffView;
use crate::ui::editor::{CodeEditor, LineMark, TextError};
use crate::ui::field_docs::tree_of;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, text_signal, worded};
use crate::ui::status_view::StatusView;
use crate::ui::validation::{use_validation, Checked, ValidationList};
use crate::ui::write_policy::use_write_policy;

/// Where the field manager name is remembered.
const MANAGER_KEY: &str = "kube-client-explorer.fieldManager";

/// Settings every write shares: the field manager (remembered in localStorage) and
/// `fieldValidation`.
#[derive(Debug, Clone, Copy)]
pub struct WriteSettings {
    pub field_manager: RwSignal<String>,
    pub field_validation: RwSignal<FieldValidation>,
}

impl WriteSettings {
    /// Provides the settings, reading the remembered field manager.
    pub fn install() -> WriteSettings {
        let storage = window().local_storage().ok().flatten();
        let remembered = storage.as_ref().and_then(|s| s.get_item(MANAGER_KEY).ok().flatten());
        let settings = WriteSettings {
            field_manager: RwSignal::new(remembered.unwrap_or_else(|| DEFAULT_FIELD_MANAGER.to_string())),
            field_validation: RwSignal::new(FieldValidation::Strict),
        };
        Effect::new(move |_| {
            let name = settings.field_manager.get();
            if let Some(storage) = window().local_storage().ok().flatten() {
                let _ = storage.set_item(MANAGER_KEY, &name);
            }
        });
        provide_context(settings);
        settings
    }
}

/// The settings provided by the app.
pub fn use_write_settings() -> WriteSettings {
    expect_context::<WriteSettings>()
}

/// The read-only switch of the top bar.
#[component]
pub fn ReadOnlyToggle() -> impl IntoView {
    let policy = use_write_policy();
    view! {
        <label class="topbar__readonly" title=live_text(Msg::ReadOnlyTitle)>
            <input
                type="checkbox"
                prop:checked=move || !policy.allows_writes()
                disabled=move || policy.forced_by_host.get()
                on:change=move |e| policy.read_only.set(event_target_checked(&e))
            />
            " "
            {worded(move || text_now(if policy.forced_by_host.get() { Msg::ReadOnlyByHostPage } else { Msg::ReadOnly }))}
        </label>
    }
}

/// The field manager and validation inputs, shared by every write form.
#[component]
pub fn WriteSettingsFields() -> impl IntoView {
    let settings = use_write_settings();
    view! {
        <label class="toolbar__field">
            {live_text(Msg::FieldManager)}
            " "
            <input
                class="write__manager"
                aria-label=live_text(Msg::FieldManager)
                prop:value=move || settings.field_manager.get()
                on:change=move |e| settings.field_manager.set(event_target_value(&e))
            />
        </label>
        <label class="toolbar__field">
            "fieldValidation "
            <select
                aria-label=live_text(Msg::FieldValidation)
                on:change=move |e| {
                    let v = match event_target_value(&e).as_str() {
                        "Warn" => FieldValidation::Warn,
                        "Ignore" => FieldValidation::Ignore,
                        _ => FieldValidation::Strict,
                    };
                    settings.field_validation.set(v);
                }
            >
                {[FieldValidation::Strict, FieldValidation::Warn, FieldValidation::Ignore]
                    .into_iter()
                    .map(|v| {
                        view! {
                            <option value=v.as_str() selected=move || settings.field_validation.get() == v>
                                {v.as_str()}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
    }
}

/// How a managedFields operation is written.
fn operation_name(operation: &ManagedOperation) -> String {
    match operation {
        ManagedOperation::Apply => "Apply".to_string(),
        ManagedOperation::Update => "Update".to_string(),
        ManagedOperation::Other(other) => other.clone(),
    }
}

/// What was sent and what came back.
#[derive(Debug, Clone, PartialEq)]
struct Sent {
    method: WriteMethod,
    dry_run: bool,
    /// The object the edit started from.
    before: Value,
    /// The edit.
    edited: Value,
    answer: Answer,
}

/// The editor and sender for one object.
#[component]
pub fn EditPanel(
    object: ObjectRef,
    /// Kind and name, for the confirmation texts.
    title: String,
    /// Called after a write that persisted something.
    on_written: Callback<()>,
) -> impl IntoView {
    let client = use_client();
    let policy = use_write_policy();
    let settings = use_write_settings();
    let base = RwSignal::new(None::<Value>);
    let load_error = RwSignal::new(None::<String>);
    let text = RwSignal::new(String::new());
    let json = RwSignal::new(false);
    let method = RwSignal::new(WriteMethod::Put);
    let guards_rv = RwSignal::new(false);
    let guards_values = RwSignal::new(false);
    let force = RwSignal::new(false);
    let cbor = RwSignal::new(false);
    let minimal = RwSignal::new(true);
    let ops_src = RwSignal::new(String::new());
    let show_ownership = RwSignal::new(true);
    let schemas = RwSignal::new(None::<Result<Arc<OpenApiSchemas>, Text>>);
    let sent = RwSignal::new(None::<Sent>);
    let live = RwSignal::new(None::<Value>);
    let rebase_note = RwSignal::new(None::<Vec<String>>);
    let sending = RwSignal::new(false);
    // PUT needs `update`; every patch and apply needs `patch`.
    let method_refused = {
        let object = object.clone();
        let namespaced = object.collection.namespace.is_some();
        let put = {
            let object = object.clone();
            refusal(move || vec![Question::object("update", &object)], namespaced)
        };
        let patch = refusal(move || vec![Question::object("patch", &object)], namespaced);
        move |m: WriteMethod| if m == WriteMethod::Put { put } else { patch }
    };

    let load = {
        let (object, client) = (object.clone(), client.clone());
        move || {
            let (object, client) = (object.clone(), client.clone());
            client.tasks().spawn(async move {
                match read_object(&client, &object).await {
                    Ok(value) => {
                        text.set(edit_text(&edit_view(&value), json.get_untracked()));
                        base.set(Some(value));
                        load_error.set(None);
                    }
                    Err(e) => load_error.set(Some(localized(&e))),
                }
            });
        }
    };
    load();

    // The schema of the group version, when a method needs it.
    let group_version = (object.collection.group.clone(), object.collection.version.clone());
    {
        let client = client.clone();
        Effect::new(move |_| {
            let needed = matches!(method.get(), WriteMethod::StrategicMerge | WriteMethod::Apply);
            if !needed || schemas.get_untracked().is_some() {
                return;
            }
            schemas.set(Some(Err(Msg::SchemaLoading.into())));
            let (client, (group, version)) = (client.clone(), group_version.clone());
            client.tasks().spawn(async move {
                let result = load_schemas(&client, &group, &version).await.map(Arc::new).map_err(|e| e.text());
                schemas.try_set(Some(result));
            });
        });
    }

    let validation = use_validation(text, object.collection.group.clone(), object.collection.version.clone());
    let editor_input = NodeRef::new();
    let parsed = Memo::new(move |_| text.with(|t| parse_edit(t)));
    // The edited kind, kept while the text does not parse (a key half typed).
    let edited_kind = Memo::new(move |before: Option<&Option<GroupVersionKind>>| {
        parsed.with(|p| p.as_ref().ok().and_then(gvk_of)).or_else(|| before.cloned().flatten())
    });
    let schemas_for_docs = validation.schemas;
    let kind_tree = Signal::derive(move || {
        let kind = edited_kind.get()?;
        Some(match schemas_for_docs.get()? {
            Ok(schemas) => tree_of(&schemas, &kind),
            Err(error) => Err(SchemaError::Load(error)),
        })
    });
    let edit_error = Signal::derive(move || {
        parsed.get().err().map(|e| TextError { line: e.line, column: e.column, message: localized(&e.message) })
    });
    let guards = move || TestGuards { resource_version: guards_rv.get(), old_values: guards_values.get() };
    // The JSON patch operations follow the edit; the user may change them last.
    Effect::new(move |_| {
        let (Some(base), Ok(edited)) = (base.get(), parsed.get()) else { return };
        ops_src.set(ops_text(&default_ops(&base, &edited, guards())));
    });
    let options = move |dry_run: bool| SendOptions {
        field_manager: settings.field_manager.get(),
        field_validation: settings.field_validation.get(),
        dry_run,
        force: force.get(),
        encoding: if cbor.get() { ApplyEncoding::Cbor } else { ApplyEncoding::Yaml },
        minimal_apply: minimal.get(),
        guards: guards(),
    };
    let plan_object = object.clone();
    let plan = move |dry_run: bool| -> Result<(WritePlan, Value, Value), Text> {
        let base = base.get().ok_or(Msg::ObjectNotLoaded)?;
        let edited = parsed.get().map_err(|e| Text::new(Msg::EditDoesNotParse).with_text("error", e))?;
        let loaded = schemas.get().and_then(Result::ok);
        let ops = match method.get() {
            WriteMethod::JsonPatch => Some(parse_ops(&ops_src.get()).map_err(|e| e.text())?),
            _ => None,
        };
        let context = PlanContext { schemas: loaded.as_deref(), ops: ops.as_deref() };
        let plan =
            plan_write(method.get(), &plan_object, &base, &edited, &options(dry_run), context).map_err(|e| e.text())?;
        Ok((plan, base, edited))
    };
    let plan_for_preview = plan.clone();
    let current = Memo::new(move |_| plan_for_preview(false));

    let send = {
        let (client, plan) = (client.clone(), plan.clone());
        move |dry_run: bool| {
            if !policy.allows_writes() || sending.get_untracked() {
                return;
            }
            let Ok((plan, before, edited)) = plan(dry_run) else { return };
            let client = client.clone();
            let chosen = method.get_untracked();
            sending.set(true);
            live.set(None);
            rebase_note.set(None);
            client.tasks().spawn(async move {
                let answer = send_write(&client, plan.request).await;
                let persisted = !dry_run && (200..300).contains(&answer.status);
                if persisted {
                    if let Some(object) = &answer.object {
                        text.set(edit_text(&edit_view(object), json.get_untracked()));
                        base.set(Some(object.clone()));
                    }
                }
                sent.set(Some(Sent { method: chosen, dry_run, before, edited, answer }));
                sending.set(false);
                if persisted {
                    on_written.run(());
                }
            });
        }
    };

    // After a 409 to a PUT, read the live object to show and rebase onto.
    {
        let (object, client) = (object.clone(), client.clone());
        Effect::new(move |_| {
            let Some(s) = sent.get() else { return };
            if s.method == WriteMethod::Put && s.answer.status == 409 && live.get_untracked().is_none() {
                let (object, client) = (object.clone(), client.clone());
                client.tasks().spawn(async move {
                    if let Ok(value) = read_object(&client, &object).await {
                        live.set(Some(value));
                    }
                });
            }
        });
    }
    let do_rebase = move |_: leptos::ev::MouseEvent| {
        let (Some(old), Some(current_live), Ok(edited)) = (base.get(), live.get(), parsed.get()) else { return };
        let rebased = rebase(&old, &edited, &current_live);
        rebase_note.set(Some(
            rebased
                .conflicts
                .iter()
                .map(|c| {
                    let show =
                        |v: &Option<Value>| v.as_ref().map(Value::to_json).unwrap_or_else(|| text_now(Msg::Absent));
                    filled_text(
                        Msg::RebaseConflict,
                        &[
                            ("path", &display_pointer(&c.path)),
                            ("edited", &show(&c.edited)),
                            ("live", &show(&c.live)),
                            ("base", &show(&c.base)),
                        ],
                    )
                })
                .collect(),
        ));
        text.set(edit_text(&edit_view(&rebased.merged), json.get_untracked()));
        base.set(Some(current_live));
        live.set(None);
        sent.set(None);
    };

    // Gutter: owners of each line's field, and warnings on the lines they name.
    let marks = Memo::new(move |_| {
        let pointers = text.with(|t| yaml_line_pointers(t));
        let mut marks: Vec<Option<LineMark>> = vec![None; pointers.len()];
        if show_ownership.get() {
            if let Some(object) = base.get() {
                let entries = managed_fields(&object).unwrap_or_default();
                for (i, pointer) in pointers.iter().enumerate() {
                    let Some(pointer) = pointer else { continue };
                    let owners: Vec<_> = owners_of(&entries, &object, pointer)
                        .into_iter()
                        .filter(|o| o.ownership == Ownership::Whole)
                        .collect();
                    if owners.is_empty() {
                        continue;
                    }
                    let label = owners.iter().map(|o| o.entry.manager.clone()).collect::<Vec<_>>().join(", ");
                    let title = owners
                        .iter()
                        .map(|o| {
                            let op = operation_name(&o.entry.operation);
                            let subresource = o
                                .entry
                                .subresource
                                .as_ref()
                                .map(|s| filled_text(Msg::OwnsSubresource, &[("subresource", s)]))
                                .unwrap_or_default();
                            filled_text(
                                Msg::OwnsField,
                                &[
                                    ("manager", &o.entry.manager),
                                    ("field", &display_pointer(pointer)),
                                    ("operation", &op),
                                    ("api_version", &o.entry.api_version),
                                    ("time", &o.entry.time.clone().unwrap_or_default()),
                                    ("subresource", &subresource),
                                ],
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    marks[i] = Some(LineMark { label, title, ..LineMark::default() });
                }
            }
        }
        if let Some(s) = sent.get() {
            let mut named: Vec<String> = s.answer.warnings.clone();
            if let Some(status) = &s.answer.status_body {
                named.extend(strict_problems(&status.message));
            }
            for text in named {
                if let Some(line) = named_field(&text).and_then(|f| line_of_field(&pointers, &f)) {
                    let mark = marks[line].get_or_insert_with(LineMark::default);
                    mark.warning = true;
                    mark.title = format!("{text}\n{}", mark.title);
                }
            }
        }
        // Problems found while typing (the check may be of a slightly older text: lines past the
        // end are skipped).
        if let Checked::Problems(problems) = validation.checked.get() {
            for (line, text) in problem_lines(&problems) {
                if let Some(slot) = marks.get_mut(line) {
                    let mark = slot.get_or_insert_with(LineMark::default);
                    mark.problem = true;
                    mark.title = format!("{text}\n{}", mark.title);
                }
            }
        }
        marks
    });

    let switch_format = move |to_json: bool| {
        if json.get_untracked() == to_json {
            return;
        }
        if let Ok(value) = parsed.get_untracked() {
            text.set(edit_text(&value, to_json));
        }
        json.set(to_json);
    };

    let method_tab = move |m: WriteMethod| {
        let refused = method_refused(m);
        view! {
            <button
                class="segmented__item"
                role="tab"
                aria-selected=move || (method.get() == m).to_string()
                disabled=move || refused.with(Option::is_some)
                title=move || refused.get().map(|r| filled_text(Msg::RefusalTitle, &[("words", &r.words), ("command", &r.command)]))
                on:click=move |_| {
                    method.set(m);
                    sent.set(None);
                }
            >
                {m.label()}
            </button>
        }
    };
    let checkbox = move |signal: RwSignal<bool>, label: Msg| {
        view! {
            <label class="toolbar__field">
                <input type="checkbox" prop:checked=move || signal.get() on:change=move |e| signal.set(event_target_checked(&e)) />
                " "
                {live_text(label)}
            </label>
        }
    };
    let method_options = move || {
        match method.get() {
        WriteMethod::JsonPatch => view! {
            <div class="write__options">
                {checkbox(guards_rv, Msg::TestResourceVersionFirst)}
                {checkbox(guards_values, Msg::TestOldValues)}
                <p class="muted">{live_text(Msg::PatchOperationsHelp)}</p>
                <CodeEditor text=ops_src label=Msg::JsonPatchOperations error=Signal::derive(|| None::<TextError>) marks=Signal::derive(Vec::new) testid="ops-editor" />
            </div>
        }
        .into_any(),
        WriteMethod::Apply => view! {
            <div class="write__options">
                {checkbox(minimal, Msg::ApplyOnlyChanged)}
                {checkbox(force, Msg::ForceTakeOver)}
                {checkbox(cbor, Msg::SendAsCbor)}
            </div>
        }
        .into_any(),
        WriteMethod::StrategicMerge => view! {
            <p class="muted write__options" data-testid="schema-state">
                {move || match schemas.get() {
                    None => text_now(Msg::SchemaWhenNeeded),
                    Some(Err(e)) => filled_text(Msg::SchemaProblem, &[("error", &localized(&e))]),
                    Some(Ok(s)) => filled_text(Msg::SchemaMergeKeys, &[("count", &s.len())]),
                }}
            </p>
        }
        .into_any(),
        _ => ().into_any(),
    }
    };

    let preview_view = move || match current.get() {
        Err(e) => {
            view! { <p class="warning" role="alert" data-testid="plan-error">{worded(move || localized(&e))}</p> }
                .into_any()
        }
        Ok((plan, base, _)) => {
            let shown = preview(&plan.request);
            let body = shown
                .body_text
                .clone()
                .unwrap_or_else(|| crate::model::page::hex_dump(plan.request.body().unwrap_or_default()));
            let notes = plan.notes.iter().map(|n| view! { <li>{localized(n)}</li> }).collect_view();
            view! {
                <div class="write__preview" data-testid="request-preview">
                    <h4>{live_text(Msg::TheRequest)}</h4>
                    <pre class="document__text write__request" tabindex="0">
                        <span data-testid="preview-method">{shown.method.clone()}</span>
                        " "
                        <span data-testid="preview-url">{shown.url.clone()}</span>
                        "\nContent-Type: "
                        <span data-testid="preview-content-type">{shown.content_type.clone()}</span>
                        {format!("\nContent-Length: {}\n\n", shown.body_len)}
                        <span data-testid="preview-body">{body}</span>
                    </pre>
                    <ul class="write__notes">{notes}</ul>
                    <h4>{live_text(Msg::TheChange)}</h4>
                    <DiffView old=edit_view(&base) new=plan.expected.clone() name="expected" ignore_status=true />
                </div>
            }
            .into_any()
        }
    };

    let reload = {
        let load = load.clone();
        move |_: leptos::ev::MouseEvent| {
            sent.set(None);
            live.set(None);
            load();
        }
    };
    let send_real = send.clone();
    let send_dry = send.clone();
    let send_force = send.clone();
    let current_refused = Signal::derive(move || method_refused(method.get()).get());
    let can_send = move || {
        policy.allows_writes() && current.with(Result::is_ok) && !sending.get() && current_refused.with(Option::is_none)
    };
    let title_for_button = title.clone();
    let outcome = move || {
        let s = sent.get()?;
        let a = s.answer.clone();
        let pointers = text.with(|t| yaml_line_pointers(t));
        let line_note = |message: &str| {
            named_field(message)
                .and_then(|f| line_of_field(&pointers, &f))
                .map(|l| filled_text(Msg::OnLine, &[("line", &(l + 1))]))
                .unwrap_or_default()
        };
        let warnings = (!a.warnings.is_empty()).then(|| {
            view! {
                <div class="notice" data-testid="write-warnings">
                    <h4>{live_text(Msg::ServerWarnings)}</h4>
                    <ul>
                        {a.warnings.iter().map(|w| view! { <li>{format!("{w}{}", line_note(w))}</li> }).collect_view()}
                    </ul>
                </div>
            }
        });
        let head = {
            let (dry_run, status, status_text) = (s.dry_run, a.status, a.status_text.clone());
            move || {
                format!(
                    "{} {}{}",
                    text_now(if dry_run { Msg::DryRunHead } else { Msg::SentHead }),
                    if status == 0 { text_now(Msg::NotSentLower) } else { format!("HTTP {status} {status_text}") },
                    if dry_run && (200..300).contains(&status) {
                        text_now(Msg::NothingPersisted)
                    } else {
                        String::new()
                    }
                )
            }
        };
        let body = if let Some(problem) = a.problem.clone() {
            view! { <p class="warning" role="alert">{worded(move || localized(&problem))}</p> }.into_any()
        } else if let Some(status) = a.status_body.clone() {
            let problems = strict_problems(&status.message);
            let conflicts = apply_conflicts(&status);
            let strict = (!problems.is_empty()).then(|| {
                view! {
                    <div data-testid="strict-problems">
                        <h4>{live_text(Msg::RejectedByStrict)}</h4>
                        <ul>
                            {problems.iter().map(|p| view! { <li>{format!("{p}{}", line_note(p))}</li> }).collect_view()}
                        </ul>
                    </div>
                }
            });
            let conflict_view = (!conflicts.is_empty()).then(|| {
                let rows = conflicts
                    .iter()
                    .map(|c| view! { <tr><td><code>{c.field.clone()}</code></td><td>{c.manager.clone()}</td><td>{c.message.clone()}</td></tr> })
                    .collect_view();
                let send_force = send_force.clone();
                view! {
                    <div data-testid="apply-conflicts">
                        <h4>{live_text(Msg::ApplyConflicts)}</h4>
                        <table class="causes">
                            <thead><tr><th>{live_text(Msg::Field)}</th><th>{live_text(Msg::OwnedBy)}</th><th>{live_text(Msg::Message)}</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                        <button
                            class="button"
                            disabled=move || !policy.allows_writes()
                            on:click=move |_| {
                                force.set(true);
                                send_force(false);
                            }
                        >
                            {live_text(Msg::ForceApply)}
                        </button>
                    </div>
                }
            });
            view! {
                <StatusView status />
                {strict}
                {conflict_view}
            }
            .into_any()
        } else if let Some(object) = a.object.clone() {
            if s.dry_run {
                let report = dry_run_report(&s.before, &object);
                let generated = report
                    .generated()
                    .map(|c| {
                        let reason = c.generated.map(|g| g.reason()).unwrap_or_default();
                        view! { <li><code>{c.change.display_path()}</code>{format!(": {reason}")}</li> }
                    })
                    .collect_view();
                let effects = report.effects().count();
                view! {
                    <p data-testid="dry-run-summary">
                        {worded(move || filled_text(Msg::WouldPersist, &[("count", &effects)]))}
                    </p>
                    <DiffView old=s.before.clone() new=object name="dry-run" ignore_status=true />
                    <details class="write__generated">
                        <summary>{live_text(Msg::GeneratedFields)}</summary>
                        <ul>{generated}</ul>
                    </details>
                }
                .into_any()
            } else {
                let rv = |v: &Value| {
                    v.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).unwrap_or("?").to_string()
                };
                view! {
                    <p data-testid="write-saved">
                        {
                            let (before, after) = (rv(&s.before), rv(&object));
                            worded(move || filled_text(Msg::Saved, &[("before", &before), ("after", &after)]))
                        }
                    </p>
                    <DiffView old=s.before.clone() new=object name="written" ignore_status=true />
                }
                .into_any()
            }
        } else {
            ().into_any()
        };
        let conflict = (s.method == WriteMethod::Put && a.status == 409).then(|| {
            view! {
                <div class="notice" data-testid="put-conflict">
                    <h4>{live_text(Msg::SomeoneChanged)}</h4>
                    {move || {
                        live.get()
                            .map(|l| {
                                let edited = s.edited.clone();
                                view! {
                                    <p>{live_text(Msg::LiveAgainstEdit)}</p>
                                    <DiffView old=edit_view(&l) new=edited name="conflict" ignore_status=true />
                                    <button class="button" on:click=do_rebase>{live_text(Msg::RebaseEdit)}</button>
                                }
                            })
                    }}
                </div>
            }
        });
        Some(view! {
            <section class="panel write__outcome" aria-label=live_text(Msg::WriteResult) data-testid="write-outcome">
                <h4 data-testid="write-status">{head}</h4>
                {warnings}
                {body}
                {conflict}
            </section>
        })
    };

    view! {
        <section class="panel write" aria-label=live_text(Msg::EditObject)>
            <h3>
                {
                    let title = title.clone();
                    worded(move || filled_text(Msg::EditTitle, &[("title", &title)]))
                }
            </h3>
            {move || load_error.get().map(|e| view! { <p class="warning" role="alert">{e}</p> })}
            <div class="toolbar">
                <div class="segmented" role="group" aria-label=live_text(Msg::EditAs)>
                    <button class="segmented__item" aria-pressed=move || (!json.get()).to_string() on:click=move |_| switch_format(false)>
                        "YAML"
                    </button>
                    <button class="segmented__item" aria-pressed=move || json.get().to_string() on:click=move |_| switch_format(true)>
                        "JSON"
                    </button>
                </div>
                {checkbox(show_ownership, Msg::ShowFieldOwners)}
                <button class="button button--quiet" on:click=reload>{live_text(Msg::ReloadFromServer)}</button>
            </div>
            <CodeEditor
                text
                label=Msg::ObjectEditor
                error=edit_error
                marks=Signal::derive(move || marks.get())
                testid="object-editor"
                input_ref=editor_input
                schema=kind_tree
            />
            <ValidationList validation text editor=editor_input />
            {move || {
                base.get()
                    .map(|object| {
                        let entries = managed_fields(&object).unwrap_or_default();
                        let rows = entries
                            .iter()
                            .map(|e| {
                                view! {
                                    <tr>
                                        <td>{e.manager.clone()}</td>
                                        <td>{operation_name(&e.operation)}</td>
                                        <td>{e.api_version.clone()}</td>
                                        <td>{e.time.clone().unwrap_or_default()}</td>
                                        <td>{e.subresource.clone().unwrap_or_default()}</td>
                                        <td>{e.fields.len()}</td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        view! {
                            <details class="write__managers" data-testid="field-managers">
                                <summary>
                                    {
                                        let count = entries.len();
                                        worded(move || filled_text(Msg::FieldManagersSummary, &[("count", &count)]))
                                    }
                                </summary>
                                <table class="causes">
                                    <thead>
                                        <tr>
                                            <th>{live_text(Msg::Manager)}</th>
                                            <th>{live_text(Msg::Operation)}</th>
                                            <th>{live_text(Msg::ApiVersion)}</th>
                                            <th>{live_text(Msg::Time)}</th>
                                            <th>{live_text(Msg::Subresource)}</th>
                                            <th>{live_text(Msg::Fields)}</th>
                                        </tr>
                                    </thead>
                                    <tbody>{rows}</tbody>
                                </table>
                            </details>
                        }
                    })
            }}
            {move || rebase_note.get().map(|conflicts| {
                view! {
                    <p class="notice" data-testid="rebase-note">
                        {move || if conflicts.is_empty() {
                            text_now(Msg::Rebased)
                        } else {
                            filled_text(Msg::RebasedWithConflicts, &[("count", &conflicts.len()), ("conflicts", &conflicts.join("; "))])
                        }}
                    </p>
                }
            })}
            <div class="segmented write__methods" role="tablist" aria-label=live_text(Msg::SendAs)>
                {WriteMethod::ALL.into_iter().map(method_tab).collect_view()}
            </div>
            <div class="toolbar">
                <WriteSettingsFields />
            </div>
            {method_options}
            {preview_view}
            <div class="toolbar write__actions">
                <button class="button" disabled=move || !can_send() on:click=move |_| send_dry(true)>
                    {live_text(Msg::DryRun)}
                </button>
                <button class="button" disabled=move || !can_send() on:click=move |_| send_real(false)>
                    {worded(move || filled_text(Msg::SendMethodTo, &[("method", &method.get().label()), ("title", &title_for_button)]))}
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{live_text(Msg::ReadOnlyNothingSent)}</span> })}
                <RefusalList entries=vec![(text_signal(Msg::Send), current_refused)] />
            </div>
            {outcome}
        </section>
    }
}
