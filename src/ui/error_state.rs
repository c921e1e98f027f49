//! The error state shown when the API cannot be read: what was tried, what came back, what to do.

use leptos::prelude::*;

use crate::client::discovery::LoadError;

/// A styled explanation of a failed load, with a retry button.
#[component]
pub fn ErrorState(
    /// What went wrong.
    error: LoadError,
    /// Called when the person asks to try again.
    on_retry: impl Fn() + 'static,
) -> impl IntoView {
    let advice = if error.api_server_missing() {
        view! {
            "No Kubernetes API answered behind this page. Start " <code>"kubectl proxy"</code>
            " (it listens on 127.0.0.1:8001) against your cluster, or run " <code>"scripts/run"</code>
            " from the repository to start the simulated cluster, then retry."
        }
        .into_any()
    } else {
        view! {
            "Something answered, but not like a Kubernetes API server. Check that the API address points at "
            <code>"kubectl proxy"</code> " or kube-sim, and not at another service."
        }
        .into_any()
    };
    view! {
        <section class="error-state" role="alert" data-testid="error-state">
            <h2>"Cannot reach the Kubernetes API"</h2>
            <dl class="facts">
                <dt>"Tried"</dt>
                <dd>
                    <code data-testid="error-url">{error.url().to_owned()}</code>
                </dd>
                <dt>"Got"</dt>
                <dd data-testid="error-got">{error.what_came_back()}</dd>
                <dt>"What to do"</dt>
                <dd>{advice}</dd>
            </dl>
            <button class="button" on:click=move |_| on_retry()>
                "Retry"
            </button>
        </section>
    }
}
