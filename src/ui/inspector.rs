//! The wire inspector: every request the views made, with its headers, status, response headers
//! (`Warning`, `Content-Type`, `Content-Encoding`, `Retry-After`...), sizes and timings, the raw
//! body (hex for binary), and "copy as curl" / "copy as kubectl get --raw".

use std::sync::Arc;

use leptos::prelude::*;

use crate::client::handle::{Client, Exchange};
use crate::i18n::Msg;
use crate::model::commands::{to_curl, to_kubectl_raw};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::intl;

use crate::model::wire_log::{bodies_to_drop, KEEP, KEPT_BODY_BYTES, SHOWN_BODY_BYTES};

/// One exchange as the inspector lists it: the client's exchange, numbered.
#[derive(Debug, Clone, PartialEq)]
pub struct Logged {
    pub id: usize,
    /// The exchange, with the first [`SHOWN_BODY_BYTES`] of its body only.
    pub exchange: Exchange,
    /// The size of the whole body.
    pub body_bytes: usize,
    /// Whether its copy of the body is still kept (the oldest give theirs up first).
    pub kept: bool,
}

impl Logged {
    fn kept_bytes(&self) -> usize {
        self.exchange.outcome.as_ref().map(|fetched| fetched.response.body.len()).unwrap_or_default()
    }
}

/// The log of exchanges, shared through context: it subscribes to the client, which shows it
/// every exchange (the client also holds the write gate: a refused write is logged as refused).
#[derive(Clone, Copy)]
pub struct WireLog {
    entries: RwSignal<Vec<Logged>>,
    next_id: StoredValue<usize>,
}

impl WireLog {
    /// Creates the log, subscribes it to `client` and provides it to the components below.
    pub fn install(client: &Client) -> WireLog {
        let log = WireLog { entries: RwSignal::new(Vec::new()), next_id: StoredValue::new(0) };
        client.subscribe(Callback::new(move |exchange| log.record(exchange)));
        provide_context(log);
        log
    }

    fn record(self, mut exchange: Exchange) {
        // The log shows bytes and timings: it keeps no decoded trees (200 of them would be
        // several times the bodies' size), and of each body what it shows.
        let body_bytes = exchange.outcome.as_ref().map(|fetched| fetched.response.body.len()).unwrap_or_default();
        exchange.outcome = exchange.outcome.map(|fetched| Arc::new(fetched.for_log(SHOWN_BODY_BYTES)));
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        self.entries.update(|entries| {
            entries.push(Logged { id, exchange, body_bytes, kept: true });
            let excess = entries.len().saturating_sub(KEEP);
            entries.drain(..excess);
            let kept: Vec<usize> = entries.iter().map(Logged::kept_bytes).collect();
            for at in bodies_to_drop(&kept, KEPT_BODY_BYTES) {
                let logged = &mut entries[at];
                logged.exchange.outcome = logged.exchange.outcome.clone().map(|fetched| Arc::new(fetched.for_log(0)));
                logged.kept = false;
            }
        });
    }
}

/// The log provided by the app.
pub fn use_wire_log() -> WireLog {
    expect_context::<WireLog>()
}

/// The inspector panel, opened from the top bar.
#[component]
pub fn Inspector(
    /// Whether the panel is open.
    open: RwSignal<bool>,
) -> impl IntoView {
    let log = use_wire_log();
    let (selected, set_selected) = signal(None::<usize>);
    let origin = expect_context::<Client>().base_display();
    // Each exchange's row is drawn once and kept (a `For` keyed by its number): drawing every
    // row again at each exchange would leave `selected` and the language signal dead subscribers
    // of the rows drawn before (reactive_graph prunes them only when the signal is written).
    let newest_first = move || log.entries.get().into_iter().rev().collect::<Vec<_>>();
    let row = move |Logged { id, exchange: e, body_bytes, .. }: Logged| {
        let (status, content_type, size, timing) = match &e.outcome {
            Ok(f) => (
                f.response.status.to_string(),
                f.content_type_header().to_owned(),
                body_bytes.to_string(),
                match f.decode_ms() {
                    Some(decode) => {
                        format!("{:.0} / {:.0} / {decode:.1}", f.response.time_to_headers_ms, f.response.total_ms)
                    }
                    // Read its own way by the view (a lazy list): no decode of the whole.
                    None => format!("{:.0} / {:.0} / –", f.response.time_to_headers_ms, f.response.total_ms),
                },
            ),
            Err(_) => (String::new(), String::new(), String::new(), String::new()),
        };
        let failed = e.outcome.is_err();
        view! {
            <tr
                tabindex="0"
                class="inspector__row"
                aria-selected=move || (selected.get() == Some(id)).to_string()
                data-testid="inspector-row"
                on:click=move |_| set_selected.set(Some(id))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        set_selected.set(Some(id));
                    }
                }
            >
                <td>{e.request.method().to_string()}</td>
                <td class="inspector__url">{e.request.path_and_query()}</td>
                // In the language shown (a closure of the row, which lives as long as the row).
                <td>{move || if failed { text_now(Msg::Failed) } else { status.clone() }}</td>
                <td>{content_type}</td>
                <td>{size}</td>
                <td>{timing}</td>
            </tr>
        }
    };
    let rows = move || view! { <For each=newest_first key=|logged| logged.id children=row /> };
    let detail = move || {
        let id = selected.get()?;
        let (exchange, body_bytes, kept) = log.entries.with(|entries| {
            entries.iter().find(|e| e.id == id).map(|logged| (logged.exchange.clone(), logged.body_bytes, logged.kept))
        })?;
        Some(view! { <ExchangeDetail exchange body_bytes kept origin=origin.clone() /> })
    };
    view! {
        <aside class="inspector" aria-label=live_text(Msg::WireInspector) hidden=move || !open.get()>
                <header class="inspector__bar">
                    <h2>{live_text(Msg::WireInspector)}</h2>
                    <span class="muted">{live_text(Msg::InspectorTimes)}</span>
                    <button class="button button--quiet" on:click=move |_| open.set(false)>
                        {live_text(Msg::Close)}
                    </button>
                </header>
                <div class="inspector__body">
                    <div class="inspector__list">
                        <table class="causes">
                            <thead>
                                <tr>
                                    <th>{live_text(Msg::Method)}</th>
                                    <th>{live_text(Msg::Url)}</th>
                                    <th>{live_text(Msg::StatusLabel)}</th>
                                    <th>{live_text(Msg::ContentType)}</th>
                                    <th>{live_text(Msg::Bytes)}</th>
                                    <th>{live_text(Msg::Time)}</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                    <div class="inspector__detail">{detail}</div>
                </div>
        </aside>
    }
}

/// One exchange in full (its body's first [`SHOWN_BODY_BYTES`], of `body_bytes`, while `kept`).
#[component]
fn ExchangeDetail(exchange: Exchange, body_bytes: usize, kept: bool, origin: String) -> impl IntoView {
    let curl = to_curl(&exchange.request, &origin);
    let kubectl = to_kubectl_raw(&exchange.request);
    let copy = |text: String| {
        move |_| {
            let _ = window().navigator().clipboard().write_text(&text);
        }
    };
    let headers = |pairs: Vec<(String, String)>| {
        pairs.into_iter().map(|(n, v)| view! { <li><code>{format!("{n}: {v}")}</code></li> }).collect_view()
    };
    let request_headers = headers(exchange.request.headers().to_vec());
    let response = match exchange.outcome {
        Err(error) => view! { <p class="warning">{worded(move || localized(&error))}</p> }.into_any(),
        Ok(fetched) => {
            let body = &fetched.response.body;
            let shown = &body[..body.len().min(SHOWN_BODY_BYTES)];
            let text = match std::str::from_utf8(shown) {
                Ok(text) => text.to_owned(),
                Err(_) => crate::model::page::hex_dump(shown),
            };
            let total = body_bytes;
            let truncated = move || match kept {
                true if total > SHOWN_BODY_BYTES => filled_text(
                    Msg::FirstBytesOf,
                    &[("shown", &intl::count(SHOWN_BODY_BYTES)), ("total", &intl::count(total))],
                ),
                false if total > 0 => filled_text(
                    Msg::BodyNoLongerKept,
                    &[("total", &intl::count(total)), ("budget", &intl::bytes(KEPT_BODY_BYTES))],
                ),
                _ => String::new(),
            };
            view! {
                <h3>
                    {
                        let status = format!("{} {}", fetched.response.status, fetched.response.status_text);
                        worded(move || filled_text(Msg::ResponseLine, &[("status", &status)]))
                    }
                </h3>
                <ul class="inspector__headers" data-testid="response-headers">{headers(fetched.response.headers.clone())}</ul>
                <h3>{live_text(Msg::Body)}" " <span class="muted">{truncated}</span></h3>
                <pre class="document__text" data-testid="inspector-body">{text}</pre>
            }
            .into_any()
        }
    };
    view! {
        <div class="inspector__actions">
            <button class="button button--quiet" on:click=copy(curl.clone())>
                {live_text(Msg::CopyAsCurl)}
            </button>
            {kubectl
                .clone()
                .map(|k| {
                    view! {
                        <button class="button button--quiet" on:click=copy(k)>
                            {live_text(Msg::CopyAsKubectlRaw)}
                        </button>
                    }
                })}
        </div>
        <pre class="inspector__command" data-testid="inspector-curl">{curl}</pre>
        {kubectl.map(|k| view! { <pre class="inspector__command" data-testid="inspector-kubectl">{k}</pre> })}
        <h3>
            {
                let request = format!("{} {}", exchange.request.method(), exchange.url);
                worded(move || filled_text(Msg::RequestLine, &[("request", &request)]))
            }
        </h3>
        <ul class="inspector__headers">{request_headers}</ul>
        {response}
    }
}
