//! The line under a view that says what was asked and what came back: method and URL, status,
//! the Content-Type that came back, size and timings, and the list's snapshot; and, when protobuf
//! was asked for a type that has none, why.

use std::sync::Arc;

use leptos::prelude::*;

use crate::client::fetched::Fetched;
use crate::i18n::Msg;
use crate::model::page::Page;
use crate::model::protobuf::protobuf_not_served;
use crate::ui::i18n::{filled_text, live_text};
use crate::ui::intl;

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
    let no_protobuf = protobuf_not_served(&accept, response.status, fetched.content_type.as_ref());
    view! {
        <dl class="response-info" data-testid="response-info">
            <dt>{live_text(Msg::Request)}</dt>
            <dd>
                <code>{format!("{} {}", fetched.request.method(), response.url)}</code>
            </dd>
            <dt>{live_text(Msg::Accept)}</dt>
            <dd>
                <code data-testid="request-accept">{accept}</code>
            </dd>
            <dt>{live_text(Msg::StatusLabel)}</dt>
            <dd data-testid="response-status">{format!("{} {}", response.status, response.status_text)}</dd>
            <dt>{live_text(Msg::ContentType)}</dt>
            <dd>
                <code data-testid="response-content-type">{fetched.content_type_header().to_owned()}</code>
            </dd>
            <dt>{live_text(Msg::Kind)}</dt>
            <dd data-testid="response-kind">{page.kind.clone().unwrap_or_default()}</dd>
            <dt>{live_text(Msg::SizeAndTime)}</dt>
            <dd>
                {
                    let (size, encoding) = (response.body.len(), response.content_encoding().map(str::to_owned));
                    let (headers, body) = (response.time_to_headers_ms, response.total_ms);
                    let decoded = fetched.decode_ms().unwrap_or(0.0);
                    move || {
                        let encoding = encoding
                            .as_ref()
                            .map(|e| filled_text(Msg::OnTheWire, &[("encoding", e)]))
                            .unwrap_or_default();
                        filled_text(
                            Msg::SizeAndTimeValue,
                            &[
                                ("size", &intl::bytes(size)),
                                ("encoding", &encoding),
                                ("headers", &intl::duration_ms(headers)),
                                ("body", &intl::duration_ms(body)),
                                ("decoded", &intl::duration_ms(decoded)),
                            ],
                        )
                    }
                }
            </dd>
            {snapshot
                .map(|rv| {
                    view! {
                        <dt>{live_text(Msg::SnapshotResourceVersion)}</dt>
                        <dd>
                            <code data-testid="snapshot-rv">{rv}</code>
                        </dd>
                    }
                })}
            {items
                .map(|n| {
                    let rest = move || match remaining {
                        Some(r) => {
                            filled_text(Msg::ItemsOnPageAndMore, &[("count", &intl::count(n)), ("remaining", &intl::number(r as f64, 0))])
                        }
                        None => filled_text(Msg::ItemsOnPage, &[("count", &intl::count(n))]),
                    };
                    view! {
                        <dt>{live_text(Msg::Items)}</dt>
                        <dd data-testid="item-count">{rest}</dd>
                    }
                })}
        </dl>
        {no_protobuf
            .then(|| {
                view! {
                    <p class="notice" role="note" data-testid="protobuf-not-served">
                        {live_text(Msg::ProtobufNotForThisType)}
                    </p>
                }
            })}
    }
}
