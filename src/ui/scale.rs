//! Scale: an object's `scale` subresource (autoscaling/v1 Scale) read, and its `spec.replicas`
//! changed with a merge patch to the subresource, as `kubectl scale` does; with dry run.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::request::ObjectRef;
use crate::client::answer::{read_object, send_write, Answer};
use crate::client::handle::use_client;
use crate::i18n::{Localized, Msg, Text};
use crate::model::requests;
use crate::model::write::{parse_replicas, SendOptions};
use crate::ui::i18n::{t, tf, tl, tr, worded};
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
    let client = use_client();
    let policy = use_write_policy();
    let settings = use_write_settings();
    let scale = match object.clone().subresource("scale") {
        Ok(scale) => scale,
        Err(e) => return view! { <p class="warning" role="alert">{worded(move || tl(&e))}</p> }.into_any(),
    };
    let current = RwSignal::new(None::<Result<Value, Text>>);
    let replicas = RwSignal::new(String::new());
    let answer = RwSignal::new(None::<(bool, Answer)>);
    let sending = RwSignal::new(false);
    let load = {
        let (client, scale) = (client.clone(), scale.clone());
        move || {
            let (client, scale) = (client.clone(), scale.clone());
            client.tasks().spawn(async move {
                let read = read_object(&client, &scale).await.map_err(|e| e.text());
                if let Ok(value) = &read {
                    if let Some(n) = value.at(&["spec", "replicas"]).and_then(Value::as_i64) {
                        replicas.set(n.to_string());
                    }
                }
                current.set(Some(read));
            });
        }
    };
    load();
    let wanted = Memo::new(move |_| parse_replicas(&replicas.get()));
    let send = {
        let client = client.clone();
        move |dry_run: bool| {
            let Ok(n) = wanted.get_untracked() else { return };
            let options = SendOptions {
                field_manager: settings.field_manager.get_untracked(),
                field_validation: settings.field_validation.get_untracked(),
                dry_run,
                ..SendOptions::default()
            };
            let request = match requests::scale(&scale, n, &options.write_params()) {
                Ok(request) => request,
                Err(e) => {
                    current.set(Some(Err(e.text())));
                    return;
                }
            };
            let (client, load) = (client.clone(), load.clone());
            sending.set(true);
            client.tasks().spawn(async move {
                let result = send_write(&client, request).await;
                let ok = (200..300).contains(&result.status);
                sending.set(false);
                answer.set(Some((dry_run, result)));
                if ok && !dry_run {
                    on_written.run(());
                    load();
                }
            });
        }
    };
    let send_dry = send.clone();
    let can_send = move || policy.allows_writes() && wanted.with(Result::is_ok) && !sending.get();
    let facts = move || {
        match current.get() {
        None => view! { <p class="loading" aria-busy="true">{t(Msg::ReadingScale)}</p> }.into_any(),
        Some(Err(e)) => {
            view! { <p class="warning" role="alert">{worded(move || tf(Msg::ScaleUnreadable, &[("error", &tl(&e))]))}</p> }
                .into_any()
        }
        Some(Ok(value)) => {
            let number = |path: [&str; 2]| {
                value.at(&path).and_then(Value::as_i64).map_or_else(|| tr(Msg::Unset2), |n| n.to_string())
            };
            let selector = value.at(&["status", "selector"]).and_then(Value::as_str).unwrap_or("").to_owned();
            view! {
                <p class="muted" data-testid="scale-current">
                    {format!(
                        "spec.replicas {}, status.replicas {}{}",
                        number(["spec", "replicas"]),
                        number(["status", "replicas"]),
                        if selector.is_empty() { String::new() } else { tf(Msg::ScaleSelector, &[("selector", &selector)]) },
                    )}
                </p>
            }
            .into_any()
        }
    }
    };
    let outcome = move || {
        answer.get().map(|(dry_run, a)| {
            if (200..300).contains(&a.status) {
                let n = a.object.as_ref().and_then(|o| o.at(&["spec", "replicas"])).and_then(Value::as_i64);
                let status = a.status;
                let text = move || match (dry_run, n) {
                    (true, Some(n)) => tf(Msg::DryRunWouldSet, &[("status", &status), ("replicas", &n)]),
                    (true, None) => tf(Msg::DryRunNothingChanged, &[("status", &status)]),
                    (false, Some(n)) => tf(Msg::ScaledTo, &[("replicas", &n), ("status", &status)]),
                    (false, None) => tf(Msg::Scaled, &[("status", &status)]),
                };
                view! { <p class="notice" data-testid="scale-state" aria-live="polite">{text}</p> }.into_any()
            } else {
                match a.status_body {
                    Some(status) => view! { <StatusView status /> }.into_any(),
                    None => view! { <p class="warning" role="alert">{a.problem.map(|p| worded(move || tl(&p)))}</p> }
                        .into_any(),
                }
            }
        })
    };
    view! {
        <section class="panel write" aria-label=t(Msg::Scale)>
            <h3>{worded(move || tf(Msg::ScaleTitle, &[("title", &title)]))}</h3>
            {facts}
            <div class="toolbar">
                <label class="toolbar__field">
                    {t(Msg::Replicas)}
                    " "
                    <input
                        aria-label=t(Msg::Replicas)
                        inputmode="numeric"
                        size="6"
                        prop:value=move || replicas.get()
                        on:input=move |e| replicas.set(event_target_value(&e))
                    />
                </label>
                <button class="button" disabled=move || !can_send() on:click=move |_| send_dry(true)>
                    {t(Msg::DryRun)}
                </button>
                <button class="button" disabled=move || !can_send() on:click=move |_| send(false)>
                    {t(Msg::ScaleButton)}
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{t(Msg::ReadOnlyNothingSent)}</span> })}
            </div>
            {move || wanted.get().err().filter(|_| !replicas.get().is_empty()).map(|e| view! { <p class="warning" role="alert">{tl(&e)}</p> })}
            {outcome}
        </section>
    }
    .into_any()
}
