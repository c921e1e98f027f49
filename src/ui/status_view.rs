//! A Status error as the server sent it: code, reason, message and every cause; a 403 is explained
//! (`ui::forbidden`).

use leptos::prelude::*;

use crate::api::view::status::{Status, StatusExt};
use crate::i18n::Msg;
use crate::ui::i18n::{filled_text, live_text, worded};

/// Shows a failure `Status`.
#[component]
pub fn StatusView(
    /// The Status from the response body.
    status: Status,
) -> impl IntoView {
    let causes = status.causes().to_vec();
    let retry = status.retry_after_seconds();
    let forbidden = (status.code == 403).then(|| status.clone());
    view! {
        <section class="status-error" role="alert" data-testid="status-error">
            <h3>
                <span data-testid="status-code">{status.code}</span>
                " "
                <span data-testid="status-reason">{status.reason.clone()}</span>
            </h3>
            <p data-testid="status-message">{status.message.clone()}</p>
            {retry.map(|s| view! { <p class="muted">{worded(move || filled_text(Msg::RetryAfterSeconds, &[("seconds", &s)]))}</p> })}
            {forbidden.map(|status| view! { <crate::ui::forbidden::ForbiddenExplanationOnDemand status /> })}
            {(!causes.is_empty())
                .then(|| {
                    view! {
                        <table class="causes">
                            <thead>
                                <tr>
                                    <th>{live_text(Msg::Field)}</th>
                                    <th>{live_text(Msg::Reason)}</th>
                                    <th>{live_text(Msg::Message)}</th>
                                </tr>
                            </thead>
                            <tbody>
                                {causes
                                    .into_iter()
                                    .map(|c| {
                                        view! {
                                            <tr>
                                                <td>
                                                    <code>{c.field}</code>
                                                </td>
                                                <td>{c.reason}</td>
                                                <td>{c.message}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                    }
                })}
        </section>
    }
}

/// A visible countdown for a `Retry-After` (429 Too Many Requests, 503): when it reaches zero the
/// request is made again, as the server asked; "Retry now" does not wait.
#[component]
pub fn RetryCountdown(
    /// Seconds the server asked to wait.
    seconds: u32,
    /// Makes the request again.
    on_retry: Callback<()>,
) -> impl IntoView {
    let left = RwSignal::new(seconds);
    let done = StoredValue::new(false);
    let fire = move || {
        if !done.get_value() {
            done.set_value(true);
            on_retry.run(());
        }
    };
    let handle = set_interval_with_handle(
        move || {
            let now = left.get_untracked().saturating_sub(1);
            left.set(now);
            if now == 0 {
                fire();
            }
        },
        std::time::Duration::from_secs(1),
    )
    .ok();
    on_cleanup(move || {
        if let Some(handle) = handle {
            handle.clear();
        }
    });
    view! {
        <p class="notice" role="status" data-testid="retry-countdown">
            {worded(move || filled_text(Msg::RetryCountdown, &[("seconds", &seconds), ("left", &left.get())]))}
            <button class="button button--quiet" on:click=move |_| fire()>
                {live_text(Msg::RetryNow)}
            </button>
        </p>
    }
}
