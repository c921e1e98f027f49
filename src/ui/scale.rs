//! Scale: an object's `scale` subresource (autoscaling/v1 Scale) read, and its `spec.replicas`
//! changed with a merge patch to the subresource, as `kubectl scale` does; with dry run. It
//! renders what `use_scale` hands it.

use leptos::prelude::*;

use crate::api::request::ObjectRef;
use crate::client::answer::WriteFailure;
use crate::client::scale::{use_scale, ScaleResult, UseScale};
use crate::i18n::Msg;
use crate::model::scale::ScaleFacts;
use crate::model::write::SendOptions;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::status_view::StatusView;
use crate::ui::write::use_write_settings;
use crate::ui::write_policy::use_write_policy;

/// The scale form of one object.
#[component]
pub fn ScalePanel(
    object: ObjectRef,
    /// `Kind namespace/name`.
    title: String,
    /// Called after the replicas changed.
    on_written: Callback<()>,
) -> impl IntoView {
    let policy = use_write_policy();
    let settings = use_write_settings();
    let options = Signal::derive(move || SendOptions {
        field_manager: settings.field_manager.get(),
        field_validation: settings.field_validation.get(),
        ..SendOptions::default()
    });
    let scale = match use_scale(&object, options, on_written) {
        Ok(scale) => scale,
        Err(e) => return view! { <p class="warning" role="alert">{worded(move || localized(&e))}</p> }.into_any(),
    };
    let UseScale { replicas, wanted, send, .. } = scale;
    let can_send = move || policy.allows_writes() && wanted.with(Result::is_ok) && !send.pending().get();
    view! {
        <section class="panel write" aria-label=live_text(Msg::Scale)>
            <h3>{worded(move || filled_text(Msg::ScaleTitle, &[("title", &title)]))}</h3>
            <Facts scale />
            <div class="toolbar">
                <label class="toolbar__field">
                    {live_text(Msg::Replicas)}
                    " "
                    <input
                        aria-label=live_text(Msg::Replicas)
                        inputmode="numeric"
                        size="6"
                        prop:value=move || replicas.get()
                        on:input=move |e| replicas.set(event_target_value(&e))
                    />
                </label>
                <button class="button" disabled=move || !can_send() on:click=move |_| scale.submit(true)>
                    {live_text(Msg::DryRun)}
                </button>
                <button class="button" disabled=move || !can_send() on:click=move |_| scale.submit(false)>
                    {live_text(Msg::ScaleButton)}
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{live_text(Msg::ReadOnlyNothingSent)}</span> })}
            </div>
            {move || wanted.get().err().filter(|_| !replicas.get().is_empty()).map(|e| view! { <p class="warning" role="alert">{localized(&e)}</p> })}
            {move || send.value().get().flatten().map(|result| view! { <Outcome result /> })}
        </section>
    }
    .into_any()
}

/// The Scale as read: wanted and observed replicas, and the selector.
#[component]
fn Facts(scale: UseScale) -> impl IntoView {
    move || {
        match scale.facts.get() {
        None => view! { <p class="loading" aria-busy="true">{live_text(Msg::ReadingScale)}</p> }.into_any(),
        Some(Err(e)) => {
            view! { <p class="warning" role="alert">{worded(move || filled_text(Msg::ScaleUnreadable, &[("error", &localized(&e))]))}</p> }
                .into_any()
        }
        Some(Ok(ScaleFacts { spec_replicas, status_replicas, selector })) => {
            let number = move |n: Option<i64>| n.map_or_else(|| text_now(Msg::Unset2), |n| n.to_string());
            let text = move || {
                format!(
                    "spec.replicas {}, status.replicas {}{}",
                    number(spec_replicas),
                    number(status_replicas),
                    selector.as_ref().map(|s| filled_text(Msg::ScaleSelector, &[("selector", s)])).unwrap_or_default(),
                )
            };
            view! { <p class="muted" data-testid="scale-current">{text}</p> }.into_any()
        }
    }
    }
}

/// What came of the last order.
#[component]
fn Outcome(result: ScaleResult) -> impl IntoView {
    match result {
        Ok(outcome) => {
            view! { <p class="notice" data-testid="scale-state" aria-live="polite">{worded(move || localized(&outcome))}</p> }
                .into_any()
        }
        Err(WriteFailure::Refused(status)) => view! { <StatusView status=*status /> }.into_any(),
        Err(WriteFailure::Problem(problem)) => {
            view! { <p class="warning" role="alert">{worded(move || localized(&problem))}</p> }.into_any()
        }
    }
}
