//! A workload's revisions on the undo panel (`kubectl rollout history`): each revision with the
//! object that holds it (a Deployment's ReplicaSet, a StatefulSet's or DaemonSet's
//! ControllerRevision), change-cause and images; the one to undo to (kubectl's default: the one before the
//! newest); and the diff of any two revisions' pod templates, as the model computes it.

use leptos::prelude::*;

use super::state::OperationState;
use crate::api::codec::value::Value;
use crate::i18n::Msg;
use crate::model::operations::{revision_holder, template_diff, Revision, Workload};
use crate::ui::i18n::{filled_text, live_text};

/// The images of a revision's pod template, comma-separated.
fn images(revision: &Revision) -> String {
    revision
        .template
        .at(&["spec", "containers"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| c.get("image").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The revisions table, the revision chosen to undo to, and a diff of two.
#[component]
pub fn Revisions(state: OperationState, workload: Workload) -> impl IntoView {
    let choices = state.choices;
    // The pair compared: (older, newer) revision numbers, the last two at first.
    let compared = RwSignal::new(None::<(i64, i64)>);
    let pair = move || {
        compared.get().or_else(|| {
            state.revisions.with(|r| match r.as_slice() {
                [.., older, newer] => Some((older.number, newer.number)),
                _ => None,
            })
        })
    };
    let rows = move || {
        state
            .revisions
            .get()
            .into_iter()
            .rev()
            .map(|revision| {
                let number = revision.number;
                let chosen = move || choices.with(|c| c.to_revision == Some(number));
                view! {
                    <tr data-testid="revision-row">
                        <td>{number}</td>
                        <td><code>{revision.holder.clone()}</code></td>
                        <td>{revision.change_cause.clone().unwrap_or_default()}</td>
                        <td><code>{images(&revision)}</code></td>
                        <td>
                            <input
                                type="radio"
                                name="undo-to"
                                aria-label=move || filled_text(Msg::OpUndoToRevision, &[("revision", &number)])
                                prop:checked=chosen
                                on:change=move |_| choices.update(|c| c.to_revision = Some(number))
                            />
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    let diff = move || {
        let (older, newer) = pair()?;
        state.revisions.with(|r| {
            let find = |n: i64| r.iter().find(|rev| rev.number == n);
            let (a, b) = (find(older)?, find(newer)?);
            Some(template_diff(a, b).unified())
        })
    };
    let select = move |which: fn(&mut (i64, i64)) -> &mut i64, label: Msg| {
        view! {
            <label class="toolbar__field">
                {live_text(label)}
                " "
                <select on:change=move |e| {
                    let Ok(n) = event_target_value(&e).parse::<i64>() else { return };
                    let mut now = pair().unwrap_or((n, n));
                    *which(&mut now) = n;
                    compared.set(Some(now));
                }>
                    {move || {
                        let current = pair().map(|mut p| *which(&mut p));
                        state
                            .revisions
                            .get()
                            .into_iter()
                            .map(|r| view! { <option value=r.number.to_string() selected=current == Some(r.number)>{r.number}</option> })
                            .collect_view()
                    }}
                </select>
            </label>
        }
    };
    view! {
        <table class="causes revisions" data-testid="revisions">
            <thead>
                <tr>
                    <th>{live_text(Msg::OpRevision)}</th>
                    <th>{revision_holder(workload)}</th>
                    <th>{live_text(Msg::OpChangeCause)}</th>
                    <th>{live_text(Msg::OpImages)}</th>
                    <th>{live_text(Msg::OpUndoTo)}</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        <label class="toolbar__field">
            <input
                type="radio"
                name="undo-to"
                prop:checked=move || choices.with(|c| c.to_revision.is_none())
                on:change=move |_| choices.update(|c| c.to_revision = None)
            />
            " "
            {live_text(Msg::OpUndoToPrevious)}
        </label>
        <div class="toolbar">
            {select(|p| &mut p.0, Msg::OpCompareFrom)}
            {select(|p| &mut p.1, Msg::OpCompareTo)}
        </div>
        <pre class="document__text write__request" data-testid="revision-diff" tabindex="0">{diff}</pre>
    }
}
