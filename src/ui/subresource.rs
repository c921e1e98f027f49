//! An object's subresources (`status`, `scale`, `log`, ...): each one discovery lists with the
//! verb it needs can be chosen from the object view ([`use_subresource`] decides and reads); a
//! pod's `exec` and `attach` open a terminal ([`crate::ui::terminal`]), its `log` the log view
//! ([`crate::ui::logs`]), read once or followed.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::client::subresource::{use_subresource, Shown};
use crate::i18n::Msg;
use crate::model::access::Question;
use crate::model::subresource::{usable, verb};
use crate::ui::access::{refusal, RefusalList};
use crate::ui::document::DocumentView;
use crate::ui::i18n::{filled_text, live_text, localized, worded};
use crate::ui::lazy::{LogViewOnDemand, TerminalOnDemand};
use crate::ui::status_view::StatusView;

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
    /// Opens the log each time it changes (the time axis's log lines link here).
    #[prop(optional)]
    log_asked: Option<RwSignal<u32>>,
) -> impl IntoView {
    let subresources = resource.subresources.clone();
    if subresources.is_empty() {
        return ().into_any();
    }
    let namespaced = resource.is_namespaced();
    let (question_resource, question_namespace, question_name) = (resource.clone(), namespace.clone(), name.clone());
    let (log_resource, log_namespace, log_name) = (resource.clone(), namespace.clone(), name.clone());
    let terminal_document = document.clone();
    let panel = use_subresource(resource, namespace, name, open_log);
    if let Some(asked) = log_asked {
        let seen = StoredValue::new(asked.get_untracked());
        Effect::new(move |_| {
            let now = asked.get();
            if now != seen.get_value() {
                seen.set_value(now);
                panel.choose("log".to_owned());
            }
        });
    }
    let mut refusals = Vec::new();
    let buttons = subresources
        .into_iter()
        .map(|sub| {
            let readable = usable(&question_resource, &sub);
            let label = sub.name.clone();
            let (kind, verbs) = (sub.kind.clone(), sub.verbs.join(", "));
            let title = worded(move || filled_text(Msg::SubresourceTitle, &[("kind", &kind), ("verbs", &verbs)]));
            let question =
                Question::on(verb(&question_resource, &sub.name), &question_resource, question_namespace.as_deref())
                    .named(&question_name)
                    .subresource(&sub.name);
            let refused = refusal(move || vec![question.clone()], namespaced);
            let name = sub.name.clone();
            refusals.push((Signal::derive(move || filled_text(Msg::ReadSubresource, &[("name", &name)])), refused));
            let title = move || match refused.get() {
                Some(r) => {
                    filled_text(Msg::RefusedTitle, &[("title", &title()), ("words", &r.words), ("command", &r.command)])
                }
                None => title(),
            };
            let this = sub.name.clone();
            view! {
                <button
                    class="button button--quiet"
                    title=title
                    disabled=move || !readable || refused.with(Option::is_some)
                    aria-pressed=move || (panel.chosen.get().as_deref() == Some(this.as_str())).to_string()
                    on:click=move |_| panel.choose(sub.name.clone())
                >
                    {label}
                </button>
            }
        })
        .collect_view();
    view! {
        <section class="panel subresources" id="subresource-panel" aria-label=live_text(Msg::Subresources)>
            <div class="toolbar">
                <span class="muted">{live_text(Msg::Subresources)}" "</span>
                {buttons}
            </div>
            <RefusalList entries=refusals />
            {move || match panel.shown.get() {
                None => ().into_any(),
                Some(Shown::Log) => {
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
                Some(Shown::Terminal(subresource)) => {
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
                Some(Shown::Document(document)) => view! { <DocumentView document raw=None /> }.into_any(),
                Some(Shown::Status(status)) => view! { <StatusView status=*status /> }.into_any(),
                Some(Shown::Code(code, text)) => {
                    view! {
                        <p class="warning" role="alert">
                            {format!("HTTP {code} {text}")}
                        </p>
                    }
                        .into_any()
                }
                Some(Shown::Problem(problem)) => {
                    view! {
                        <p class="warning" role="alert">
                            {move || localized(&problem)}
                        </p>
                    }
                        .into_any()
                }
            }}
        </section>
    }
    .into_any()
}
