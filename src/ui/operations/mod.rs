//! Operations on an object's screen (rollout restart, pause and resume; cordon and uncordon;
//! a CronJob's run now, suspend and resume): one button each, disabled with the reason when the
//! access rules say the user may not, and a panel that shows the exact requests before they are
//! sent, copies them as kubectl and as curl, and sends them (`state::use_operation`). The plans
//! are `model::operations`'; this module only renders.

mod drain;
mod panel;
mod revisions;
mod state;

use leptos::prelude::*;

use crate::api::discovery::ResourceType;
use crate::api::request::ObjectRef;
use crate::i18n::Msg;
use crate::model::operations::{Operation, Target, Workload};
use crate::ui::access::{refusal, Refusal, RefusalList};
use crate::ui::i18n::{filled_text, live_text, text_signal};
use panel::OperationPanel;

/// The operations bar of an object whose kind has operations; nothing for other kinds.
#[component]
pub fn OperationsBar(
    resource: ResourceType,
    /// The object shown (an error when its path cannot be made; the bar then shows nothing).
    object: Memo<Result<ObjectRef, String>>,
    /// `Kind namespace/name`.
    title: Signal<String>,
    /// Called after a write changed the object.
    on_written: Callback<()>,
) -> impl IntoView {
    let Some(workload) = Workload::of(&resource) else { return ().into_any() };
    let namespaced = resource.scope == crate::api::discovery::Scope::Namespaced;
    let open = RwSignal::new(None::<Operation>);
    let entries: Vec<(Operation, Signal<Option<Refusal>>)> = workload
        .operations()
        .iter()
        .map(|&operation| {
            let questions =
                move || object.with(|o| o.as_ref().map(|o| vec![operation.question(o)]).unwrap_or_default());
            (operation, refusal(questions, namespaced))
        })
        .collect();
    // A panel whose operation became refused (the rules came in after the click) closes.
    let watched = entries.clone();
    Effect::new(move |_| {
        if let Some(which) = open.get() {
            if watched.iter().any(|(o, r)| *o == which && r.with(Option::is_some)) {
                open.set(None);
            }
        }
    });
    let refusals: Vec<_> =
        entries.iter().map(|(operation, refused)| (text_signal(operation.label()), *refused)).collect();
    let buttons = entries
        .into_iter()
        .map(|(operation, refused)| view! { <OperationEntry operation open refused /> })
        .collect_view();
    let panel = move || {
        let operation = open.get()?;
        let object = object.get().ok()?;
        let target = Target { workload, object };
        Some(match operation {
            Operation::Drain => view! { <drain::DrainPanel target title on_written /> }.into_any(),
            _ => view! { <OperationPanel target operation title on_written /> }.into_any(),
        })
    };
    view! {
        <div class="toolbar object__operations" role="group" aria-label=live_text(Msg::OpBarLabel)>
            {buttons}
        </div>
        <RefusalList entries=refusals />
        {panel}
    }
    .into_any()
}

/// One operation's button: opens its panel (or closes it); disabled with the reason when refused.
#[component]
fn OperationEntry(
    operation: Operation,
    /// The operation whose panel is open in this bar.
    open: RwSignal<Option<Operation>>,
    refused: Signal<Option<Refusal>>,
) -> impl IntoView {
    view! {
        <button
            class="button button--quiet"
            aria-expanded=move || (open.get() == Some(operation)).to_string()
            disabled=move || refused.with(Option::is_some)
            title=move || refused.get().map(|r| filled_text(Msg::RefusalTitle, &[("words", &r.words), ("command", &r.command)]))
            on:click=move |_| open.update(|o| *o = if *o == Some(operation) { None } else { Some(operation) })
        >
            {live_text(operation.label())}
        </button>
    }
}
