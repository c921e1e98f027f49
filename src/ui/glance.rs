//! An object at a glance (`model::glance`): the facts `kubectl describe` prints for a pod, a
//! Deployment, a Service or a Node, with its labels, as a description list; a pod's containers
//! each with their own; a Job's pods by state. Drawn from the newest version the screen's watch
//! has seen, so the facts follow the object live.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::i18n::Msg;
use crate::model::glance::{glance, Fact};
use crate::ui::i18n::live_text;

fn facts(facts: Vec<Fact>) -> impl IntoView {
    let rows = facts
        .into_iter()
        .map(|fact| {
            let lines = fact.lines.into_iter().map(|line| view! { <div>{line}</div> }).collect_view();
            view! {
                <div class="glance__fact" data-testid="glance-fact">
                    <dt>{live_text(fact.label)}</dt>
                    <dd>{lines}</dd>
                </div>
            }
        })
        .collect_view();
    view! { <dl class="glance__facts">{rows}</dl> }
}

/// The panel, for the kinds `model::glance` knows; nothing for the others. Drawn again whenever
/// `document` changes (the screen passes the newest version its watch has seen).
#[component]
pub fn Glance(group: String, kind: String, document: Signal<Value>) -> impl IntoView {
    move || document.with(|document| glance(&group, &kind, document)).map(panel)
}

fn panel(glance: crate::model::glance::Glance) -> impl IntoView {
    let containers = (!glance.containers.is_empty()).then(|| {
        let each = glance
            .containers
            .into_iter()
            .map(|container| {
                let name = container.name.clone();
                view! {
                    <div class="glance__container" data-testid="glance-container" data-name=name>
                        <h5>{container.name}</h5>
                        {facts(container.facts)}
                    </div>
                }
            })
            .collect_view();
        view! {
            <h4>{live_text(Msg::GlanceContainers)}</h4>
            {each}
        }
    });
    view! {
        <section class="panel glance" aria-label=live_text(Msg::GlanceTitle) data-testid="glance">
            <h3>{live_text(Msg::GlanceTitle)}</h3>
            <p class="muted">{live_text(Msg::GlanceNote)}</p>
            {facts(glance.facts)}
            {containers}
        </section>
    }
}
