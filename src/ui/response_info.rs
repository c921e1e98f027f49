//! The line under a view that says what was asked and what came back: method and URL, status,
//! the Content-Type that came back, size and timings, and the list's snapshot.

use std::sync::Arc;

use leptos::prelude::*;

use crate::client::fetched::Fetched;
use crate::model::page::Page;

/// Summarises one exchange.
#[component]
pub fn ResponseInfo(
    /// The exchange.
    fetched: Arc<Fetched>,
    /// What it decoded to.
    page: Page,
) -> impl IntoView {
    let response = &fetched.response;
    let accept = fetched.request.header_value("accept").unwrap_or("").to_owned();
    let snapshot = page.list.as_ref().and_then(|l| l.resource_version.as_ref()).map(|rv| rv.to_string());
    let remaining = page.list.as_ref().and_then(|l| l.remaining_item_count);
    let items = page.item_count;
    view! {
        <dl class="response-info" data-testid="response-info">
            <dt>"Request"</dt>
            <dd>
                <code>{format!("{} {}", fetched.request.method, response.url)}</code>
            </dd>
            <dt>"Accept"</dt>
            <dd>
                <code data-testid="request-accept">{accept}</code>
            </dd>
            <dt>"Status"</dt>
            <dd data-testid="response-status">{format!("{} {}", response.status, response.status_text)}</dd>
            <dt>"Content-Type"</dt>
            <dd>
                <code data-testid="response-content-type">{fetched.content_type_header().to_owned()}</code>
            </dd>
            <dt>"Kind"</dt>
            <dd data-testid="response-kind">{page.kind.clone().unwrap_or_default()}</dd>
            <dt>"Size and time"</dt>
            <dd>
                {format!(
                    "{} bytes{}, headers after {:.0} ms, body after {:.0} ms, decoded in {:.1} ms",
                    response.body.len(),
                    response.content_encoding().map(|e| format!(" ({e} on the wire)")).unwrap_or_default(),
                    response.time_to_headers_ms,
                    response.total_ms,
                    fetched.decode_ms().unwrap_or(0.0),
                )}
            </dd>
            {snapshot
                .map(|rv| {
                    view! {
                        <dt>"Snapshot resourceVersion"</dt>
                        <dd>
                            <code data-testid="snapshot-rv">{rv}</code>
                        </dd>
                    }
                })}
            {items
                .map(|n| {
                    let rest = match remaining {
                        Some(r) => format!("{n} on this page, about {r} more (remainingItemCount is an estimate)"),
                        None => format!("{n} on this page"),
                    };
                    view! {
                        <dt>"Items"</dt>
                        <dd data-testid="item-count">{rest}</dd>
                    }
                })}
        </dl>
    }
}
