//! An object's subresources (`status`, `scale`, `log`, ...): each one discovery lists with the
//! `get` verb can be read from the object view; a pod's `exec` and `attach` open a terminal
//! ([`crate::ui::terminal`]), its `log` the log view
//! ([`crate::ui::logs`]), read once or followed.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::{ResourceType, Subresource};
use crate::api::params::LogOptions;
use crate::client::fetched::Fetched;
use crate::client::handle::use_client;
use crate::i18n::Msg;
use crate::model::access::Question;
use crate::model::page::{Page, PageBody};
use crate::model::target::{subresource_request, PageShape};
use crate::model::terminal::opens_terminal;
use crate::ui::access::{refusal, RefusalList};
use crate::ui::document::DocumentView;
use crate::ui::i18n::{t, tf, tl, worded};
use crate::ui::lazy::{LogViewOnDemand, TerminalOnDemand};
use crate::ui::status_view::StatusView;

/// What reading a subresource gave.
#[derive(Debug, Clone)]
enum Read {
    /// The pod's log view.
    Log,
    /// A terminal (`exec` or `attach`, the subresource named).
    Terminal(String),
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
    /// Open at the log (`l` on a row), when the type has one.
    #[prop(optional)]
    open_log: bool,
) -> impl IntoView {
    let subresources = resource.subresources.clone();
    if subresources.is_empty() {
        return ().into_any();
    }
    let namespaced = resource.is_namespaced();
    let (question_resource, question_namespace, question_name) = (resource.clone(), namespace.clone(), name.clone());
    let at_log = open_log && subresources.iter().any(|s| s.name == "log");
    let chosen = RwSignal::new(at_log.then(|| "log".to_owned()));
    let result = RwSignal::new(at_log.then_some(Read::Log));
    let client = use_client();
    let (log_resource, log_namespace, log_name) = (resource.clone(), namespace.clone(), name.clone());
    let terminal_document = document.clone();
    let read = move |sub: Subresource| {
        chosen.set(Some(sub.name.clone()));
        if sub.name == "log" {
            return result.set(Some(Read::Log));
        }
        if opens_terminal(&resource, &sub.name) {
            return result.set(Some(Read::Terminal(sub.name.clone())));
        }
        result.set(None);
        let (resource, namespace, name, client) = (resource.clone(), namespace.clone(), name.clone(), client.clone());
        client.tasks().spawn(async move {
            let options = LogOptions::default();
            let request = match subresource_request(&resource, namespace.as_deref(), &name, &sub.name, &options) {
                Ok(request) => request,
                Err(e) => return result.set(Some(Read::Error(tl(&e)))),
            };
            let read = match client.send(request).await {
                Err(e) => Read::Error(tl(&e)),
                Ok(fetched) => match fetched.decoded() {
                    Ok(decoded) => match Page::from_decoded(decoded, PageShape::Document, 0).body {
                        PageBody::Document(document) if fetched.response.is_success() => Read::Document(document),
                        _ => Read::Failed(fetched.clone()),
                    },
                    Err(message) => Read::Error(tl(message)),
                },
            };
            result.set(Some(read));
        });
    };
    let mut refusals = Vec::new();
    let buttons = subresources
        .into_iter()
        .map(|sub| {
            // exec and attach open a terminal, which the server allows with create.
            let verb = if opens_terminal(&question_resource, &sub.name) { "create" } else { "get" };
            let readable = sub.verbs.iter().any(|v| v == verb);
            let label = sub.name.clone();
            let (kind, verbs) = (sub.kind.clone(), sub.verbs.join(", "));
            let title = worded(move || tf(Msg::SubresourceTitle, &[("kind", &kind), ("verbs", &verbs)]));
            let question = Question::on(verb, &question_resource, question_namespace.as_deref())
                .named(&question_name)
                .subresource(&sub.name);
            let refused = refusal(move || vec![question.clone()], namespaced);
            let name = sub.name.clone();
            refusals.push((Signal::derive(move || tf(Msg::ReadSubresource, &[("name", &name)])), refused));
            let title = move || match refused.get() {
                Some(r) => tf(Msg::RefusedTitle, &[("title", &title()), ("words", &r.words), ("command", &r.command)]),
                None => title(),
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
        <section class="panel subresources" aria-label=t(Msg::Subresources)>
            <div class="toolbar">
                <span class="muted">{t(Msg::Subresources)}" "</span>
                {buttons}
            </div>
            <RefusalList entries=refusals />
            {move || match result.get() {
                None => ().into_any(),
                Some(Read::Log) => {
                    view! {
                        <LogViewOnDemand
                            resource=log_resource.clone()
                            namespace=log_namespace.clone()
                            name=log_name.clone()
                            document=document.clone()
                        />
                    }
                        .into_any()
                }
                Some(Read::Terminal(subresource)) => {
                    view! {
                        <TerminalOnDemand
                            resource=log_resource.clone()
                            namespace=log_namespace.clone().unwrap_or_default()
                            name=log_name.clone()
                            document=terminal_document.clone()
                            subresource
                        />
                    }
                        .into_any()
                }
                Some(Read::Document(document)) => view! { <DocumentView document raw=None /> }.into_any(),
                Some(Read::Failed(fetched)) => {
                    match fetched.decoded().as_ref().ok().map(|d| Page::from_decoded(d, PageShape::Document, 0).body) {
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
