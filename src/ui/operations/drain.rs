//! Drain's panel (`client::drain::use_drain`): the options as kubectl's flags, the command, the
//! requests in order (the cordon, the pods list, one Eviction per pod), the node's pods with what
//! kubectl's filters make of each, and, once started, each pod's progress and the stage.

use leptos::prelude::*;

use crate::client::drain::{use_drain, Stage, UseDrain};
use crate::i18n::Msg;
use crate::model::operations::drain::{command, eviction, pods_page, Decision, Phase, PodEviction, Skip, Tally};
use crate::model::operations::{cordon_patch, Target};
use crate::model::write::preview;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::write_policy::use_write_policy;

/// The panel of a drain of `target` (a Node).
#[component]
pub fn DrainPanel(target: Target, title: Signal<String>, on_written: Callback<()>) -> impl IntoView {
    let node = target.object.name.clone();
    let drain = use_drain(target.clone(), on_written);
    let policy = use_write_policy();
    let running = move || matches!(drain.stage.get(), Stage::Cordoning | Stage::Listing | Stage::Evicting);
    let can_start = move || policy.allows_writes() && !running() && matches!(drain.pods.get(), Some(Ok(_)));
    let flag = move |msg: Msg,
                     set: fn(&mut crate::model::operations::drain::DrainOptions, bool),
                     get: fn(&crate::model::operations::drain::DrainOptions) -> bool| {
        view! {
            <label class="toolbar__field">
                <input
                    type="checkbox"
                    prop:checked=move || drain.options.with(get)
                    disabled=running
                    on:change=move |e| drain.options.update(|o| set(o, event_target_checked(&e)))
                />
                {live_text(msg)}
            </label>
        }
    };
    let kubectl = {
        let node = node.clone();
        move || drain.options.with(|o| command(&node, o))
    };
    view! {
        <section class="panel write operation" aria-label=live_text(Msg::OpDrain) data-testid="drain-panel">
            <h3>{move || filled_text(Msg::OpTitle, &[("operation", &text_now(Msg::OpDrain)), ("title", &title.get())])}</h3>
            <p class="muted">{live_text(Msg::OpDrainWhat)}</p>
            <div class="toolbar">
                {flag(Msg::OpDrainIgnoreDaemonSets, |o, v| o.ignore_daemonsets = v, |o| o.ignore_daemonsets)}
                {flag(Msg::OpDrainDeleteEmptyDir, |o, v| o.delete_emptydir_data = v, |o| o.delete_emptydir_data)}
                {flag(Msg::OpDrainForce, |o, v| o.force = v, |o| o.force)}
                {flag(Msg::OpDryRunServer, |o, v| o.dry_run = v, |o| o.dry_run)}
            </div>
            <pre class="inspector__command" dir="ltr" data-testid="drain-kubectl">{kubectl}</pre>
            <DrainRequests drain target=target.clone() />
            <div class="toolbar">
                <button class="button" data-testid="drain-start" disabled=move || !can_start() on:click=move |_| drain.start.run(())>
                    {move || if drain.options.with(|o| o.dry_run) { text_now(Msg::OpDrainStartDryRun) } else { text_now(Msg::OpDrainStart) }}
                </button>
                <button class="button button--quiet" data-testid="drain-cancel" disabled=move || !running() on:click=move |_| drain.cancel.run(())>
                    {live_text(Msg::OpDrainCancel)}
                </button>
                <button class="button button--quiet" disabled=running on:click=move |_| drain.read_again.run(())>
                    {live_text(Msg::OpReadAgain)}
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{live_text(Msg::ReadOnlyNothingSent)}</span> })}
            </div>
            <StageLine drain />
            <DrainPods drain />
        </section>
    }
}

/// The requests in order: the cordon, the pods list, one Eviction per pod (the first as example).
#[component]
fn DrainRequests(drain: UseDrain, target: Target) -> impl IntoView {
    let list = preview(&pods_page(&target.object.name, None));
    let cordon = move || {
        let dry_run = drain.options.with(|o| o.dry_run);
        cordon_patch(&target, true, dry_run).ok().map(|request| {
            let shown = preview(&request);
            view! {
                <code dir="ltr">{format!("{} {}", shown.method, shown.url)}</code>
                <div class="muted">{move || filled_text(Msg::OpContentType, &[("type", &shown.content_type)])}</div>
                <pre class="document__text" dir="ltr">{shown.body_text.clone()}</pre>
            }
        })
    };
    let example = move || {
        let dry_run = drain.options.with(|o| o.dry_run);
        drain.pods.with(|pods| {
            let pods = pods.as_ref()?.as_ref().ok()?;
            let pod = pods.iter().find(|p| matches!(p.decision, Decision::Evict(_)))?;
            let shown = preview(&eviction(pod, dry_run).ok()?);
            let count = pods.iter().filter(|p| matches!(p.decision, Decision::Evict(_))).count();
            Some(view! {
                <li class="operation__step" data-testid="drain-step">
                    <div class="muted">{move || filled_text(Msg::OpDrainEvictStep, &[("count", &count)])}</div>
                    <code dir="ltr">{format!("{} {}", shown.method, shown.url)}</code>
                    <div class="muted">{move || filled_text(Msg::OpContentType, &[("type", &shown.content_type)])}</div>
                    <pre class="document__text" dir="ltr" data-testid="drain-eviction-body">{shown.body_text.clone()}</pre>
                </li>
            })
        })
    };
    view! {
        <h4>{live_text(Msg::OpSequence)}</h4>
        <ol class="operation__steps">
            <li class="operation__step" data-testid="drain-step">
                <div class="muted">{live_text(Msg::OpDrainCordonStep)}</div>
                {cordon}
            </li>
            <li class="operation__step" data-testid="drain-step">
                <div class="muted">{live_text(Msg::OpDrainListStep)}</div>
                <code dir="ltr">{format!("{} {}", list.method, list.url)}</code>
            </li>
            {example}
        </ol>
    }
}

/// The stage: cordoning, listing, refused (by reason), evicting (the tally), finished, cancelled.
#[component]
fn StageLine(drain: UseDrain) -> impl IntoView {
    move || {
        let dry_run = drain.options.with(|o| o.dry_run);
        let tally = drain.evictions.with(|e| Tally::of(e));
        let total = drain.evictions.with(Vec::len);
        let line = |text: String, class: &'static str| {
            view! { <p class=class data-testid="drain-stage" aria-live="polite">{text}</p> }.into_any()
        };
        match drain.stage.get() {
            Stage::Preview => ().into_any(),
            Stage::Cordoning => line(text_now(Msg::OpDrainCordoning), "muted"),
            Stage::Listing => line(text_now(Msg::OpDrainListing), "muted"),
            Stage::Evicting => line(
                filled_text(
                    Msg::OpDrainEvicting,
                    &[("done", &tally.done), ("total", &total), ("blocked", &tally.blocked), ("failed", &tally.failed)],
                ),
                "muted",
            ),
            Stage::Refused(reasons) => {
                let items = reasons
                    .into_iter()
                    .map(|(reason, pods)| view! { <li>{localized(&reason)}": "{pods.join(", ")}</li> })
                    .collect_view();
                view! {
                    <div class="warning" role="alert" data-testid="drain-stage">
                        <p>{live_text(Msg::OpDrainRefused)}</p>
                        <ul>{items}</ul>
                    </div>
                }
                .into_any()
            }
            Stage::Finished if dry_run => line(text_now(Msg::OpDrainDoneDryRun), "notice"),
            Stage::Finished if tally.succeeded() => line(text_now(Msg::OpDrainDone), "notice"),
            Stage::Finished => line(
                filled_text(Msg::OpDrainFinishedFailed, &[("failed", &(tally.failed + tally.timed_out))]),
                "warning",
            ),
            Stage::Cancelled if drain.cordoned.get() => line(text_now(Msg::OpDrainCancelled), "warning"),
            Stage::Cancelled => line(text_now(Msg::OpDrainCancelledBefore), "muted"),
            Stage::Stopped(problem) => view! {
                <p class="warning" role="alert" data-testid="drain-stage">
                    {worded(move || filled_text(Msg::OpDrainStopped, &[("error", &localized(&problem))]))}
                </p>
            }
            .into_any(),
        }
    }
}

/// A pod's progress, in words.
fn progress(eviction: &PodEviction) -> String {
    match &eviction.phase {
        Phase::Evicting { attempt } => filled_text(Msg::OpDrainPodEvicting, &[("attempt", attempt)]),
        Phase::Blocked { budget: Some(budget), retry_at_ms, .. } => {
            filled_text(Msg::OpDrainPodBlocked, &[("budget", budget), ("time", &clock(*retry_at_ms))])
        }
        Phase::Blocked { budget: None, retry_at_ms, .. } => {
            filled_text(Msg::OpDrainPodBlockedUnnamed, &[("time", &clock(*retry_at_ms))])
        }
        Phase::Following => text_now(Msg::OpDrainPodFollowing),
        Phase::Done => text_now(Msg::OpDrainPodGone),
        Phase::Failed { status, message } => {
            filled_text(Msg::OpDrainPodFailed, &[("status", status), ("message", message)])
        }
        Phase::TimedOut => text_now(Msg::OpDrainPodTimedOut),
    }
}

/// `HH:MM:SS` (UTC) of a time in milliseconds since the epoch.
fn clock(ms: u64) -> String {
    let seconds = ms / 1000;
    format!("{:02}:{:02}:{:02}", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
}

/// The node's pods: what the filters decided and, once evicting, where each is.
#[component]
fn DrainPods(drain: UseDrain) -> impl IntoView {
    move || {
        match drain.pods.get() {
        None => view! { <p class="loading" aria-busy="true">{live_text(Msg::OpDrainPodsReading)}</p> }.into_any(),
        Some(Err(problem)) => {
            view! { <p class="warning" role="alert">{worded(move || filled_text(Msg::OpDrainStopped, &[("error", &localized(&problem))]))}</p> }
                .into_any()
        }
        Some(Ok(pods)) => {
            let rows = pods
                .into_iter()
                .map(|pod| {
                    let decision = match pod.decision {
                        Decision::Evict(None) => text_now(Msg::OpDrainWillEvict),
                        Decision::Evict(Some(warning)) => filled_text(Msg::OpDrainEvictWarned, &[("warning", &localized(&warning))]),
                        Decision::Skip(Skip::DaemonSet) => text_now(Msg::OpDrainSkipDaemonSet),
                        Decision::Skip(Skip::Mirror) => text_now(Msg::OpDrainSkipMirror),
                        Decision::Refuse(reason) => filled_text(Msg::OpDrainRefuses, &[("reason", &localized(&reason))]),
                    };
                    let uid = pod.uid.clone();
                    let state = move || {
                        drain.evictions.with(|all| all.iter().find(|e| e.pod.uid == uid).map(progress)).unwrap_or_default()
                    };
                    view! {
                        <tr data-testid="drain-pod" data-name=pod.name.clone()>
                            <td>{format!("{}/{}", pod.namespace, pod.name)}</td>
                            <td>{decision}</td>
                            <td data-testid="drain-pod-progress">{state}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <h4>{live_text(Msg::OpDrainPods)}</h4>
                <table class="causes" data-testid="drain-pods">
                    <thead>
                        <tr>
                            <th scope="col">{live_text(Msg::OpDrainPod)}</th>
                            <th scope="col">{live_text(Msg::OpDrainDecision)}</th>
                            <th scope="col">{live_text(Msg::OpDrainProgress)}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            }
            .into_any()
        }
    }
    }
}
