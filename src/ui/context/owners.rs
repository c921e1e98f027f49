//! The field managers panel of an object's screen: who owns each field (from `managedFields`),
//! the changes seen on the object's watch since the screen opened (which manager's entry moved,
//! which fields changed), and one field's history across those versions. It renders what
//! `use_field_owners` hands it.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::write::diff::ChangeKind;
use crate::client::field_owners::{use_field_owners, UseFieldOwners};
use crate::i18n::Msg;
use crate::model::field_owners::OwnedField;
use crate::model::field_owners_history::{ChangedField, VersionChange};
use crate::ui::i18n::{t, tf, tl, tr, worded};
use crate::ui::intl;

/// The field managers of the object `document` (as read) of `resource`, followed live.
#[component]
pub fn FieldOwners(
    /// The object's resource type.
    resource: ResourceType,
    /// The object's namespace (`None` when cluster-scoped).
    namespace: Option<String>,
    /// The object's name.
    name: String,
    /// The object, as read.
    document: Value,
) -> impl IntoView {
    let owners = use_field_owners(&resource, namespace.as_deref(), &name, &document);
    let selected = RwSignal::new(None::<String>);
    view! {
        <section class="panel field-owners" aria-label=t(Msg::OwnersTitle) data-testid="field-owners">
            <h3>{t(Msg::OwnersTitle)}</h3>
            <p class="field-owners__state" role="status">
                {t(Msg::OwnersSummary)}
                " "
                {move || owners.problem.get().map(|p| tl(&p))}
            </p>
            <OwnedTable owners selected />
            <FieldHistory owners selected />
            <Changes owners />
        </section>
    }
}

/// A time from the wire, in the reader's language (as written when it does not parse).
fn when(stamp: &str) -> impl IntoView {
    let parsed = js_sys::Date::parse(stamp);
    let stamp = stamp.to_owned();
    let datetime = stamp.clone();
    let shown = move || if parsed.is_nan() { stamp.clone() } else { intl::date_time(parsed) };
    view! { <time datetime=datetime>{shown}</time> }
}

/// Each owned path of the newest version with its manager; a path opens its history.
#[component]
fn OwnedTable(owners: UseFieldOwners, selected: RwSignal<Option<String>>) -> impl IntoView {
    view! {
        <table class="causes field-owners__table" data-testid="owned-fields">
            <thead>
                <tr>
                    <th>{t(Msg::OwnersField)}</th>
                    <th>{t(Msg::OwnersManager)}</th>
                    <th>{t(Msg::OwnersOperation)}</th>
                    <th>{t(Msg::OwnersSubresource)}</th>
                    <th>{t(Msg::OwnersTime)}</th>
                </tr>
            </thead>
            <tbody>
                <For
                    each=move || owners.owned.get()
                    key=|f: &OwnedField| (f.path.clone(), f.manager.clone(), f.operation.clone(), f.subresource.clone(), f.time.clone())
                    children=move |field| view! { <OwnedLine field selected /> }
                />
            </tbody>
        </table>
        <Show when=move || owners.owned.with(Vec::is_empty)>
            <p class="field-owners__none">{t(Msg::OwnersNone)}</p>
        </Show>
    }
}

/// One owned path.
#[component]
fn OwnedLine(field: OwnedField, selected: RwSignal<Option<String>>) -> impl IntoView {
    let path = field.path.clone();
    let label = field.path.clone();
    let title = field.path.clone();
    view! {
        <tr data-path=field.path.clone()>
            <td>
                <button
                    class="field-owners__path"
                    data-testid="field-history-open"
                    title=move || tf(Msg::OwnersShowHistory, &[("path", &title)])
                    on:click=move |_| selected.set(Some(path.clone()))
                >
                    <code>{label}</code>
                </button>
            </td>
            <td data-testid="field-manager">{field.manager.clone()}</td>
            <td>{field.operation.clone()}</td>
            <td>{field.subresource.clone()}</td>
            <td>{when(&field.time)}</td>
        </tr>
    }
}

/// The history of the selected path across the versions seen, when one is selected.
#[component]
fn FieldHistory(owners: UseFieldOwners, selected: RwSignal<Option<String>>) -> impl IntoView {
    move || {
        let path = selected.get()?;
        let steps = owners.field_history(&path);
        let heading = path.clone();
        let body = match steps {
            Err(problem) => view! { <p role="alert">{tl(&problem)}</p> }.into_any(),
            Ok(steps) => view! {
                <table class="causes field-owners__history" data-testid="field-history">
                    <thead>
                        <tr>
                            <th>{t(Msg::OwnersVersion)}</th>
                            <th>{t(Msg::OwnersValue)}</th>
                            <th>{t(Msg::OwnersManager)}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {steps
                            .into_iter()
                            .map(|step| {
                                let managers: Vec<String> = step
                                    .owners
                                    .iter()
                                    .map(|o| format!("{} ({})", o.manager, o.operation))
                                    .collect();
                                let managers = if managers.is_empty() { tr(Msg::OwnersNobody) } else { managers.join(", ") };
                                view! {
                                    <tr>
                                        <td>{step.resource_version}</td>
                                        <td><code>{step.value.unwrap_or_else(|| tr(Msg::OwnersAbsent))}</code></td>
                                        <td>{managers}</td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            }
            .into_any(),
        };
        Some(view! {
            <div class="field-owners__history-box">
                <h4>{worded(move || tf(Msg::OwnersFieldHistory, &[("path", &heading)]))}</h4>
                <button class="button button--quiet" on:click=move |_| selected.set(None)>
                    {t(Msg::OwnersCloseHistory)}
                </button>
                {body}
            </div>
        })
    }
}

/// The changes seen since the screen opened, the newest first.
#[component]
fn Changes(owners: UseFieldOwners) -> impl IntoView {
    view! {
        <h4>{t(Msg::OwnersChangesTitle)}</h4>
        <Show when=move || owners.changes.with(Vec::is_empty)>
            <p class="field-owners__none">{t(Msg::OwnersChangesNone)}</p>
        </Show>
        <ol class="field-owners__changes" data-testid="field-changes">
            <For
                each=move || owners.changes.get()
                key=|c: &VersionChange| c.resource_version.clone()
                children=move |change| view! { <ChangeItem change /> }
            />
        </ol>
    }
}

/// One version's change: the entries that moved and the fields that changed.
#[component]
fn ChangeItem(change: VersionChange) -> impl IntoView {
    let rv = change.resource_version.clone();
    let moved = change
        .moved
        .into_iter()
        .map(|m| {
            let subresource = if m.subresource.is_empty() { String::new() } else { format!(", {}", m.subresource) };
            // An empty side reads as the empty set, not as a dangling sign.
            let paths = |paths: &[String]| if paths.is_empty() { "∅".to_owned() } else { paths.join(" ") };
            let (gained, lost) = (paths(&m.gained), paths(&m.lost));
            let text = move || {
                tf(
                    Msg::OwnersMoved,
                    &[
                        ("manager", &m.manager),
                        ("operation", &m.operation),
                        ("subresource", &subresource),
                        ("time", &m.time),
                        ("gained", &gained),
                        ("lost", &lost),
                    ],
                )
            };
            view! { <li class="field-owners__moved">{worded(text)}</li> }
        })
        .collect_view();
    let fields = change.fields.into_iter().map(|field| view! { <FieldLine field /> }).collect_view();
    view! {
        <li data-testid="field-change" data-rv=change.resource_version.clone()>
            <strong>{worded(move || tf(Msg::OwnersChangeAt, &[("rv", &rv)]))}</strong>
            <ul>{moved}</ul>
            <ul>{fields}</ul>
        </li>
    }
}

/// One changed field with its values and its manager.
#[component]
fn FieldLine(field: ChangedField) -> impl IntoView {
    let absent = || tr(Msg::OwnersAbsent);
    let kind = match field.kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
    };
    let text = move || {
        let manager = field.manager.clone().unwrap_or_else(|| tr(Msg::OwnersNobody));
        tf(
            Msg::OwnersChangedField,
            &[
                ("path", &field.path),
                ("before", &field.before.clone().unwrap_or_else(absent)),
                ("after", &field.after.clone().unwrap_or_else(absent)),
                ("manager", &manager),
            ],
        )
    };
    view! { <li class="field-owners__field" data-kind=kind data-testid="changed-field">{worded(text)}</li> }
}
