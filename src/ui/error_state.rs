//! The error state shown when the API cannot be read: what was tried, what came back, what to do.

use leptos::prelude::*;

use crate::client::discovery::LoadError;
use crate::i18n::Msg;
use crate::ui::i18n::{live_text, localized, with_code, worded};

/// A styled explanation of a failed load, with a retry button.
#[component]
pub fn ErrorState(
    /// What went wrong.
    error: LoadError,
    /// Called when the person asks to try again.
    on_retry: impl Fn() + 'static,
) -> impl IntoView {
    let advice = if error.api_server_missing() {
        with_code(Msg::AdviceNoApi, &[("proxy", "kubectl proxy"), ("run", "scripts/run")]).into_any()
    } else {
        with_code(Msg::AdviceNotKubernetes, &[("proxy", "kubectl proxy")]).into_any()
    };
    let got = error.what_came_back();
    view! {
        <section class="error-state" role="alert" data-testid="error-state">
            <h2>{live_text(Msg::CannotReachApi)}</h2>
            <dl class="facts">
                <dt>{live_text(Msg::Tried)}</dt>
                <dd>
                    <code data-testid="error-url" dir="ltr">{error.url().to_owned()}</code>
                </dd>
                <dt>{live_text(Msg::Got)}</dt>
                <dd data-testid="error-got">{worded(move || localized(&got))}</dd>
                <dt>{live_text(Msg::WhatToDo)}</dt>
                <dd>{advice}</dd>
            </dl>
            <button class="button" on:click=move |_| on_retry()>
                {live_text(Msg::Retry)}
            </button>
        </section>
    }
}
