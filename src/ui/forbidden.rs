//! A 403 explained from its Status: who was refused what (verb, resource, group, namespace,
//! object), the `kubectl auth can-i` command that asks the same, and what to ask an administrator
//! for, as RBAC YAML to copy.

use leptos::prelude::*;

use crate::api::view::status::Status;
use crate::model::access::{Forbidden, Target};
use crate::ui::on_demand::{at_once, on_demand};

/// [`ForbiddenExplanation`] loaded on demand: the RBAC objects it writes as YAML to ask an
/// administrator for bring k8s-openapi's serializers, which nothing else on a page load needs.
#[component]
pub fn ForbiddenExplanationOnDemand(status: Status) -> impl IntoView {
    on_demand("403 explanation", split::preload_forbidden, move || at_once!(split::forbidden(status.clone())))
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
            forbidden,
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
    let facts: Vec<(&'static str, String)> = match &forbidden.target {
        Target::Resource { group, resource, subresource, namespace, name } => {
            let mut facts = vec![
                ("User", forbidden.user.clone()),
                ("Verb", forbidden.verb.clone()),
                ("Resource", resource.clone()),
            ];
            if let Some(sub) = subresource {
                facts.push(("Subresource", sub.clone()));
            }
            facts.push(("API group", if group.is_empty() { "\"\" (core)".to_owned() } else { group.clone() }));
            facts.push(("Namespace", namespace.clone().unwrap_or_else(|| "(cluster scope)".to_owned())));
            if let Some(name) = name {
                facts.push(("Name", name.clone()));
            }
            facts
        }
        Target::Path(path) => {
            vec![("User", forbidden.user.clone()), ("Verb", forbidden.verb.clone()), ("Path", path.clone())]
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
    let scope_words = match &forbidden.target {
        Target::Resource { namespace: Some(ns), .. } => format!("a Role and a RoleBinding in {ns}"),
        _ => "a ClusterRole and a ClusterRoleBinding".to_owned(),
    };
    view! {
        <div class="forbidden" data-testid="forbidden-explained">
            <p>
                "The API server's authorizer refused this request: the user has no rule that allows it."
                {forbidden.reason.clone().map(|r| format!(" The authorizer added: {r}"))}
            </p>
            <dl class="forbidden__facts">
                {facts
                    .into_iter()
                    .map(|(term, value)| {
                        view! {
                            <div>
                                <dt>{term}</dt>
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
                            "Check it yourself: "
                            <code data-testid="forbidden-command">{command}</code>
                        </p>
                    }
                })}
            <details class="forbidden__grant" open>
                <summary>{format!("What to ask an administrator for: {scope_words} granting exactly this")}</summary>
                <pre class="code" data-testid="forbidden-grant">{grant}</pre>
                <button class="button button--quiet" on:click=copy>
                    {move || if copied.get() { "Copied" } else { "Copy YAML" }}
                </button>
            </details>
        </div>
    }
}
