//! An object's subresources (`status`, `scale`, `log`, ...): each one discovery lists with the
//! `get` verb can be read from the object view; a pod's `log` is shown as text, with the
//! container, `tailLines` and `timestamps` options of the concepts page's log subresource.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::{ResourceType, Subresource};
use crate::api::params::LogOptions;
use crate::client::fetched::Fetched;
use crate::client::handle::use_client;
use crate::model::access::Question;
use crate::model::page::{Page, PageBody};
use crate::model::target::subresource_request;
use crate::ui::access::{refusal, RefusalList};
use crate::ui::document::DocumentView;
use crate::ui::status_view::StatusView;

/// What reading a subresource gave.
#[derive(Debug, Clone)]
enum Read {
    Text(String),
    Document(Value),
    Failed(Arc<Fetched>),
    Error(String),
}

/// The subresources of one object, each readable on demand.
#[component]
pub fn SubresourcePanel(
    /// The object's resource type.
    resource: ResourceType,
    /// The object's namespace, if namespaced.
    namespace: Option<String>,
    /// The object's name.
    name: String,
    /// The object (its containers name the pod log's choices).
    document: Value,
) -> impl IntoView {
    let subresources = resource.subresources.clone();
    if subresources.is_empty() {
        return ().into_any();
    }
    let containers: Vec<String> = document
        .at(&["spec", "containers"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let namespaced = resource.scope == crate::api::discovery::Scope::Namespaced;
    let (question_resource, question_namespace, question_name) = (resource.clone(), namespace.clone(), name.clone());
    let chosen = RwSignal::new(None::<String>);
    let container = RwSignal::new(containers.first().cloned().unwrap_or_default());
    let tail = RwSignal::new(String::from("100"));
    let timestamps = RwSignal::new(false);
    let result = RwSignal::new(None::<Read>);
    let client = use_client();
    let read = move |sub: Subresource| {
        chosen.set(Some(sub.name.clone()));
        result.set(None);
        let (resource, namespace, name, client) = (resource.clone(), namespace.clone(), name.clone(), client.clone());
        let (container, tail, timestamps) =
            (container.get_untracked(), tail.get_untracked(), timestamps.get_untracked());
        leptos::task::spawn_local(async move {
            let options = LogOptions {
                container: Some(container),
                tail_lines: tail.trim().parse::<u32>().ok(),
                timestamps,
                ..LogOptions::default()
            };
            let request = match subresource_request(&resource, namespace.as_deref(), &name, &sub.name, &options) {
                Ok(request) => request,
                Err(e) => return result.set(Some(Read::Error(e.to_string()))),
            };
            let is_log = sub.name == "log";
            let read = match client.send(request).await {
                Err(e) => Read::Error(e.to_string()),
                Ok(fetched) if is_log && fetched.response.is_success() => {
                    Read::Text(String::from_utf8_lossy(&fetched.response.body).into_owned())
                }
                Ok(fetched) => match fetched.decoded() {
                    Ok(decoded) => match Page::from_decoded(decoded, false, 0).body {
                        PageBody::Document(document) if fetched.response.is_success() => Read::Document(document),
                        _ => Read::Failed(fetched.clone()),
                    },
                    Err(message) => Read::Error(message.clone()),
                },
            };
            result.set(Some(read));
        });
    };
    let has_log = subresources.iter().any(|s| s.name == "log");
    let mut refusals = Vec::new();
    let buttons = subresources
        .into_iter()
        .map(|sub| {
            let readable = sub.verbs.iter().any(|v| v == "get");
            let label = sub.name.clone();
            let title = format!("kind {}, verbs: {}", sub.kind, sub.verbs.join(", "));
            let question = Question::on("get", &question_resource, question_namespace.as_deref())
                .named(&question_name)
                .subresource(&sub.name);
            let refused = refusal(move || vec![question.clone()], namespaced);
            refusals.push((format!("Read {}", sub.name), refused));
            let title = move || match refused.get() {
                Some(r) => format!("{title}. {}: {}", r.words, r.command),
                None => title.clone(),
            };
            let this = sub.name.clone();
            let read = read.clone();
            view! {
                <button
                    class="button button--quiet"
                    title=title
                    disabled=move || !readable || refused.with(Option::is_some)
                    aria-pressed=move || (chosen.get().as_deref() == Some(this.as_str())).to_string()
                    on:click=move |_| read(sub.clone())
                >
                    {label}
                </button>
            }
        })
        .collect_view();
    view! {
        <section class="panel subresources" aria-label="Subresources">
            <div class="toolbar">
                <span class="muted">"Subresources "</span>
                {buttons}
            </div>
            <RefusalList entries=refusals />
            {has_log
                .then(|| {
                    view! {
                        <div class="toolbar" aria-label="Log options">
                            {(containers.len() > 1)
                                .then(|| {
                                    view! {
                                        <label class="toolbar__field">
                                            "Container "
                                            <select
                                                aria-label="Container"
                                                on:change=move |e| container.set(event_target_value(&e))
                                            >
                                                {containers
                                                    .iter()
                                                    .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
                                                    .collect_view()}
                                            </select>
                                        </label>
                                    }
                                })}
                            <label class="toolbar__field">
                                "tailLines "
                                <input
                                    type="number"
                                    min="1"
                                    size="6"
                                    aria-label="tailLines"
                                    prop:value=tail
                                    on:input=move |e| tail.set(event_target_value(&e))
                                />
                            </label>
                            <label class="toolbar__field">
                                <input
                                    type="checkbox"
                                    prop:checked=timestamps
                                    on:change=move |e| timestamps.set(event_target_checked(&e))
                                />
                                " timestamps"
                            </label>
                        </div>
                    }
                })}
            {move || match result.get() {
                None => ().into_any(),
                Some(Read::Text(text)) => {
                    view! {
                        <pre class="document__text log-text" data-testid="log-text" tabindex="0">
                            {if text.is_empty() { "(the log is empty)".to_owned() } else { text }}
                        </pre>
                    }
                        .into_any()
                }
                Some(Read::Document(document)) => view! { <DocumentView document raw=None /> }.into_any(),
                Some(Read::Failed(fetched)) => {
                    match fetched.decoded().as_ref().ok().map(|d| Page::from_decoded(d, false, 0).body) {
                        Some(PageBody::Status(status)) => view! { <StatusView status=*status /> }.into_any(),
                        _ => {
                            view! {
                                <p class="warning" role="alert">
                                    {format!("HTTP {} {}", fetched.response.status, fetched.response.status_text)}
                                </p>
                            }
                                .into_any()
                        }
                    }
                }
                Some(Read::Error(message)) => {
                    view! {
                        <p class="warning" role="alert">
                            {message}
                        </p>
                    }
                        .into_any()
                }
            }}
        </section>
    }
    .into_any()
}
