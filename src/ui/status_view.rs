//! A Status error as the server sent it: code, reason, message and every cause.

use leptos::prelude::*;

use crate::api::status::{Status, StatusExt};

/// Shows a failure `Status`.
#[component]
pub fn StatusView(
    /// The Status from the response body.
    status: Status,
) -> impl IntoView {
    let causes = status.causes().to_vec();
    let retry = status.retry_after_seconds();
    view! {
        <section class="status-error" role="alert" data-testid="status-error">
            <h3>
                <span data-testid="status-code">{status.code}</span>
                " "
                <span data-testid="status-reason">{status.reason.clone()}</span>
            </h3>
            <p data-testid="status-message">{status.message.clone()}</p>
            {retry.map(|s| view! { <p class="muted">{format!("The server asks to retry after {s} s.")}</p> })}
            {(!causes.is_empty())
                .then(|| {
                    view! {
                        <table class="causes">
                            <thead>
                                <tr>
                                    <th>"Field"</th>
                                    <th>"Reason"</th>
                                    <th>"Message"</th>
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
