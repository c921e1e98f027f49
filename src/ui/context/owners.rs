//! The field managers panel of an object's screen: who owns each field (from `managedFields`),
//! the changes seen on the object's watch since the screen opened (which manager's entry moved,
//! which fields changed), and one field's history across those versions. It renders what
//! `use_field_owners` hands it.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::write::diff::ChangeKind;
use crate::client::field_owners::UseFieldOwners;
use crate::i18n::Msg;
use crate::model::field_owners::OwnedField;
use crate::model::field_owners_history as model;
use crate::model::field_owners_history::{ChangedField, VersionChange};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::intl;

/// The field managers of an object, followed live (its screen holds the `use_field_owners`
/// watch, so that reading the object again keeps what was seen).
#[component]
pub fn FieldOwners(
    owners: UseFieldOwners,
    /// Whether the panel is unfolded (held by the screen: reading the object again keeps it).
    open: RwSignal<bool>,
) -> impl IntoView {
    let selected = RwSignal::new(None::<String>);
    // Folded at first: a pod's managers own a hundred paths or more, which would push the
    // object's document far down; the summary says how many before it is opened.
    let forms = [Msg::OwnersFieldsOne, Msg::OwnersFieldsFew, Msg::OwnersFieldsMany, Msg::OwnersFieldsOther];
    let count = worded(move || intl::plural(owners.owned.with(Vec::len), forms));
    view! {
        <section class="panel field-owners" aria-label=live_text(Msg::OwnersTitle) data-testid="field-owners">
            <details
                prop:open=move || open.get()
                on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())
            >
            <summary class="field-owners__summary" data-testid="field-owners-summary">
                <h3>{live_text(Msg::OwnersTitle)}</h3>
                " "
                <span class="field-owners__count">{count}</span>
            </summary>
            <p class="field-owners__state" role="status">
                {live_text(Msg::OwnersSummary)}
                " "
                {move || owners.problem.get().map(|p| localized(&p))}
            </p>
            <OwnedTable owners selected />
            <FieldHistory owners selected />
            <Changes owners />
            </details>
        </section>
    }
}

/// Whether the version `shown` is still the object's newest, as the watch of `owners` sees it: a
/// line saying it changed (and by whom) with a button that reads it again (`on_read`), or that it
/// was deleted; nothing while it is current.
#[component]
pub fn Freshness(owners: UseFieldOwners, shown: Value, on_read: Callback<()>) -> impl IntoView {
    move || {
        match owners.freshness(&shown) {
        model::Freshness::Current => None,
        model::Freshness::Deleted => Some(
            view! {
                <p class="freshness warning" role="status" data-testid="object-freshness">{live_text(Msg::ObjectDeletedSinceRead)}</p>
            }
            .into_any(),
        ),
        model::Freshness::Changed { shown, newest, by } => {
            let line = if by.is_empty() {
                filled_text(Msg::ObjectChangedSinceRead, &[("shown", &shown), ("newest", &newest)])
            } else {
                let by = by.join(", ");
                filled_text(Msg::ObjectChangedSinceReadBy, &[("shown", &shown), ("newest", &newest), ("managers", &by)])
            };
            Some(
                view! {
                    <p class="freshness" role="status" data-testid="object-freshness">
                        {line}
                        " "
                        <button class="button button--quiet" data-testid="object-read-again" on:click=move |_| on_read.run(())>
                            {live_text(Msg::ObjectReadAgain)}
                        </button>
                    </p>
                }
                .into_any(),
            )
        }
    }
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
                    <th>{live_text(Msg::OwnersField)}</th>
                    <th>{live_text(Msg::OwnersManager)}</th>
                    <th>{live_text(Msg::OwnersOperation)}</th>
                    <th>{live_text(Msg::OwnersSubresource)}</th>
                    <th>{live_text(Msg::OwnersTime)}</th>
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
            <p class="field-owners__none">{live_text(Msg::OwnersNone)}</p>
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
                    title=move || filled_text(Msg::OwnersShowHistory, &[("path", &title)])
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
            Err(problem) => view! { <p role="alert">{localized(&problem)}</p> }.into_any(),
            Ok(steps) => view! {
                <table class="causes field-owners__history" data-testid="field-history">
                    <thead>
                        <tr>
                            <th>{live_text(Msg::OwnersVersion)}</th>
                            <th>{live_text(Msg::OwnersValue)}</th>
                            <th>{live_text(Msg::OwnersManager)}</th>
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
                                let managers = if managers.is_empty() { text_now(Msg::OwnersNobody) } else { managers.join(", ") };
                                view! {
                                    <tr>
                                        <td>{step.resource_version}</td>
                                        <td><code>{step.value.unwrap_or_else(|| text_now(Msg::OwnersAbsent))}</code></td>
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
                <h4>{worded(move || filled_text(Msg::OwnersFieldHistory, &[("path", &heading)]))}</h4>
                <button class="button button--quiet" on:click=move |_| selected.set(None)>
                    {live_text(Msg::OwnersCloseHistory)}
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
        <h4>{live_text(Msg::OwnersChangesTitle)}</h4>
        <Show when=move || owners.changes.with(Vec::is_empty)>
            <p class="field-owners__none">{live_text(Msg::OwnersChangesNone)}</p>
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
                filled_text(
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
        <li data-testid="field-change" id=format!("change-{}", change.resource_version) data-rv=change.resource_version.clone()>
            <strong>{worded(move || filled_text(Msg::OwnersChangeAt, &[("rv", &rv)]))}</strong>
            <ul>{moved}</ul>
            <ul>{fields}</ul>
        </li>
    }
}

/// One changed field with its values and its manager.
#[component]
fn FieldLine(field: ChangedField) -> impl IntoView {
    let absent = || text_now(Msg::OwnersAbsent);
    let kind = match field.kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
    };
    let text = move || {
        let manager = field.manager.clone().unwrap_or_else(|| text_now(Msg::OwnersNobody));
        filled_text(
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
