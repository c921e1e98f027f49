//! One operation's panel: what it does, the user's choices, the requests planned (or why none),
//! the commands to copy, Send, and the answer.

use leptos::prelude::*;

use super::state::{use_operation, OperationState, Preview, Sent};
use crate::client::handle::Client;
use crate::i18n::Msg;
use crate::model::operations::{Operation, Plan, StepRole, Target};
use crate::model::write::preview;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::location::ViewLink;
use crate::ui::status_view::StatusView;
use crate::ui::write_policy::use_write_policy;

/// The panel of `operation` on `target`.
#[component]
pub fn OperationPanel(
    target: Target,
    operation: Operation,
    /// `Kind namespace/name`.
    title: Signal<String>,
    /// Called after a write changed the object.
    on_written: Callback<()>,
) -> impl IntoView {
    let workload = target.workload;
    let state = use_operation(target, operation, on_written);
    let policy = use_write_policy();
    let choices = state.choices;
    let ready = move || matches!(state.preview.get(), Preview::Ready(_));
    let can_send = move || policy.allows_writes() && ready() && !state.sending.get();
    let dry_run = move || choices.with(|c| c.dry_run);
    let options = move || {
        if operation.offers_dry_run() {
            view! {
                <label class="toolbar__field">
                    <input
                        type="checkbox"
                        prop:checked=dry_run
                        on:change=move |e| choices.update(|c| c.dry_run = event_target_checked(&e))
                    />
                    {live_text(Msg::OpDryRunServer)}
                </label>
            }
            .into_any()
        } else {
            view! { <span class="muted">{live_text(Msg::OpNoDryRun)}</span> }.into_any()
        }
    };
    let name_field = operation.takes_name().then(|| {
        view! {
            <label class="toolbar__field">
                {live_text(Msg::OpJobName)}
                " "
                <input
                    aria-label=live_text(Msg::OpJobName)
                    size="32"
                    dir="ltr"
                    prop:value=move || choices.with(|c| c.job_name.clone())
                    on:input=move |e| choices.update(|c| c.job_name = event_target_value(&e))
                />
            </label>
        }
    });
    view! {
        <section class="panel write operation" aria-label=live_text(operation.label()) data-testid="operation-panel">
            <h3>{move || filled_text(Msg::OpTitle, &[("operation", &text_now(operation.label())), ("title", &title.get())])}</h3>
            <p class="muted">{live_text(operation.explanation(workload))}</p>
            <div class="toolbar">{options} {name_field}</div>
            {(operation == Operation::Undo).then(|| view! { <super::revisions::Revisions state workload /> })}
            <PlanView state />
            <div class="toolbar">
                <button class="button" disabled=move || !can_send() on:click=move |_| state.send.run(())>
                    {move || if dry_run() && operation.offers_dry_run() { text_now(Msg::OpSendDryRun) } else { text_now(Msg::OpSend) }}
                </button>
                <button class="button button--quiet" on:click=move |_| state.read_again.run(())>
                    {live_text(Msg::OpReadAgain)}
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{live_text(Msg::ReadOnlyNothingSent)}</span> })}
                {move || state.sending.get().then(|| view! { <span class="muted" aria-busy="true">{live_text(Msg::OpSending)}</span> })}
            </div>
            {move || state.sent.get().map(|sent| view! { <SentView sent /> })}
            {move || {
                state.sent.get().filter(|s| s.succeeded() && !s.dry_run && operation == Operation::RunNow).and_then(|s| s.object_name()).map(|name| view! { <JobLink name /> })
            }}
        </section>
    }
}

/// The requests planned, or why there are none.
#[component]
fn PlanView(state: OperationState) -> impl IntoView {
    let origin = expect_context::<Client>().base_display();
    move || {
        match state.preview.get() {
        Preview::Reading => view! { <p class="loading" aria-busy="true">{live_text(Msg::OpReading)}</p> }.into_any(),
        Preview::Unreadable(error) => view! {
            <p class="warning" role="alert">{worded(move || filled_text(Msg::OpUnreadable, &[("error", &localized(&error))]))}</p>
        }
        .into_any(),
        Preview::Refused(reason) => view! {
            <p class="notice" data-testid="operation-refused">
                {worded(move || filled_text(Msg::OpNothingToSend, &[("reason", &localized(&reason))]))}
            </p>
        }
        .into_any(),
        Preview::Ready(plan) => view! { <Requests plan origin=origin.clone() /> }.into_any(),
    }
    }
}

/// A plan's requests in order, and the commands that send the same.
#[component]
fn Requests(plan: Plan, origin: String) -> impl IntoView {
    let curl = plan.curl(&origin);
    let kubectl = plan.kubectl.clone();
    let copy = |text: String| {
        move |_| {
            let _ = window().navigator().clipboard().write_text(&text);
        }
    };
    let steps = plan
        .steps
        .iter()
        .map(|step| {
            let shown = preview(&step.request);
            let role = match step.role {
                StepRole::KubectlRead => Msg::OpStepKubectlRead,
                StepRole::ExplorerRead => Msg::OpStepExplorerRead,
                StepRole::Write => Msg::OpStepWrite,
            };
            let has_body = shown.body_len > 0;
            let content_type = has_body.then(|| {
                let media = shown.content_type.clone();
                view! { <div class="muted">{move || filled_text(Msg::OpContentType, &[("type", &media)])}</div> }
            });
            view! {
                <li class="operation__step" data-testid="operation-step">
                    <div class="muted">{live_text(role)}</div>
                    <code dir="ltr">{format!("{} {}", shown.method, shown.url)}</code>
                    {content_type}
                    {shown.body_text.filter(|_| has_body).map(|body| view! { <pre class="document__text" dir="ltr">{body}</pre> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <h4>{live_text(Msg::OpSequence)}</h4>
        <ol class="operation__steps">{steps}</ol>
        <div class="toolbar">
            <button class="button button--quiet" on:click=copy(kubectl.clone())>
                {live_text(Msg::OpCopyKubectl)}
            </button>
            <button class="button button--quiet" on:click=copy(curl.clone())>
                {live_text(Msg::CopyAsCurl)}
            </button>
        </div>
        <pre class="inspector__command" dir="ltr" data-testid="operation-kubectl">{kubectl}</pre>
        <pre class="inspector__command" dir="ltr" data-testid="operation-curl">{curl}</pre>
    }
}

/// A link to the Job Run now made, whose screen follows its pods and completions.
#[component]
fn JobLink(name: String) -> impl IntoView {
    let label = name.clone();
    let change = std::sync::Arc::new(move |view: &mut crate::model::view_state::ViewState| {
        view.resource = Some(crate::model::view_state::ResourceKey {
            group: "batch".into(),
            version: "v1".into(),
            plural: "jobs".into(),
        });
        view.name = Some(name.clone());
        view.watch = None;
    });
    view! {
        <p>
            <ViewLink change testid="operation-job">
                {move || filled_text(Msg::OpOpenJob, &[("name", &label)])}
            </ViewLink>
        </p>
    }
}

/// The answer to the write.
#[component]
fn SentView(sent: Sent) -> impl IntoView {
    let status = format!("{} {}", sent.answer.status, sent.answer.status_text);
    if sent.succeeded() {
        let msg = if sent.dry_run { Msg::OpSentDryRun } else { Msg::OpSent };
        let warnings = sent.answer.warnings.clone();
        return view! {
            <p class="notice" data-testid="operation-sent" aria-live="polite">{move || filled_text(msg, &[("status", &status)])}</p>
            <ul class="warnings">{warnings.into_iter().map(|w| view! { <li class="warning">{w}</li> }).collect_view()}</ul>
        }
        .into_any();
    }
    match sent.answer.status_body {
        Some(status) => view! { <StatusView status /> }.into_any(),
        None => {
            let problem = sent.answer.problem;
            view! {
                <p class="warning" role="alert" data-testid="operation-failed">
                    {worded(move || problem.as_ref().map(localized).unwrap_or_else(|| status.clone()))}
                </p>
            }
            .into_any()
        }
    }
}
