//! A 403 explained from its Status: who was refused what (verb, resource, group, namespace,
//! object), the `kubectl auth can-i` command that asks the same, and what to ask an administrator
//! for, as RBAC YAML to copy.

use leptos::prelude::*;

use crate::api::view::status::Status;
use crate::i18n::Msg;
use crate::model::access::{Forbidden, Target};
use crate::ui::i18n::{filled_text, live_text, text_now, worded};
use crate::ui::on_demand::{at_once, on_demand};

/// [`ForbiddenExplanation`] loaded on demand: the RBAC objects it writes as YAML to ask an
/// administrator for bring k8s-openapi's serializers, which nothing else on a page load needs.
#[component]
pub fn ForbiddenExplanationOnDemand(status: Status) -> impl IntoView {
    on_demand(Msg::PartForbidden, split::preload_forbidden, move || at_once!(split::forbidden(status.clone())))
}

/// The split point (see [`crate::ui::lazy`]).
mod split {
    use leptos::prelude::*;

    use crate::api::view::status::Status;
    use crate::ui::forbidden::ForbiddenExplanation;
    use crate::ui::on_demand::LoadFailed;

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            browse,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_forbidden),
            fallible
        )
    )]
    pub fn forbidden(status: Status) -> Result<AnyView, LoadFailed> {
        Ok(view! { <ForbiddenExplanation status /> }.into_any())
    }

    #[cfg(not(feature = "split"))]
    pub async fn preload_forbidden() -> Result<(), LoadFailed> {
        Ok(())
    }
}

/// The explanation of a 403; nothing when the Status is not kube-apiserver's Forbidden wording
/// (an admission webhook's 403, say), whose message then speaks for itself.
#[component]
pub fn ForbiddenExplanation(status: Status) -> impl IntoView {
    Forbidden::from_status(&status).map(explanation)
}

fn explanation(forbidden: Forbidden) -> impl IntoView {
    let facts: Vec<(Msg, String)> = match &forbidden.target {
        Target::Resource { group, resource, subresource, namespace, name } => {
            let mut facts = vec![
                (Msg::User, forbidden.user.clone()),
                (Msg::Verb, forbidden.verb.clone()),
                (Msg::Resource, resource.clone()),
            ];
            if let Some(sub) = subresource {
                facts.push((Msg::Subresource, sub.clone()));
            }
            facts.push((Msg::ApiGroup, if group.is_empty() { text_now(Msg::CoreGroup) } else { group.clone() }));
            facts.push((Msg::Namespace, namespace.clone().unwrap_or_else(|| text_now(Msg::ClusterScope))));
            if let Some(name) = name {
                facts.push((Msg::Name, name.clone()));
            }
            facts
        }
        Target::Path(path) => {
            vec![(Msg::User, forbidden.user.clone()), (Msg::Verb, forbidden.verb.clone()), (Msg::Path, path.clone())]
        }
    };
    let command = forbidden.question().map(|q| {
        let namespaced = q.namespace.is_some();
        q.kubectl(namespaced)
    });
    let grant = forbidden.grant_yaml();
    let copy_text = grant.clone();
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let clipboard = window().navigator().clipboard();
        let _ = clipboard.write_text(&copy_text);
        copied.set(true);
    };
    let namespace = match &forbidden.target {
        Target::Resource { namespace: Some(ns), .. } => Some(ns.clone()),
        _ => None,
    };
    let scope_words = move || match &namespace {
        Some(namespace) => filled_text(Msg::RoleIn, &[("namespace", namespace)]),
        None => text_now(Msg::ClusterRole),
    };
    view! {
        <div class="forbidden" data-testid="forbidden-explained">
            <p>
                {live_text(Msg::AuthorizerRefused)}
                {forbidden.reason.clone().map(|r| worded(move || filled_text(Msg::AuthorizerAdded, &[("reason", &r)])))}
            </p>
            <dl class="forbidden__facts">
                {facts
                    .into_iter()
                    .map(|(term, value)| {
                        view! {
                            <div>
                                <dt>{live_text(term)}</dt>
                                <dd>{value}</dd>
                            </div>
                        }
                    })
                    .collect_view()}
            </dl>
            {command
                .map(|command| {
                    view! {
                        <p>
                            {live_text(Msg::CheckYourself)}
                            <code data-testid="forbidden-command" dir="ltr">{command}</code>
                        </p>
                    }
                })}
            <details class="forbidden__grant" open>
                <summary>{worded(move || filled_text(Msg::AskAdministrator, &[("scope", &scope_words())]))}</summary>
                <pre class="code" data-testid="forbidden-grant">{grant}</pre>
                <button class="button button--quiet" on:click=copy>
                    {worded(move || text_now(if copied.get() { Msg::Copied } else { Msg::CopyYaml }))}
                </button>
            </details>
        </div>
    }
}
