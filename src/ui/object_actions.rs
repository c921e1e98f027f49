//! The action bar of an object view: Edit, Scale (for types with a `scale` subresource) and
//! Delete, each opening its panel, each disabled with the reason when the server says the user
//! may not (`ui::access`). Part of the write tools loaded on demand (`ui::lazy`).

use leptos::prelude::*;

use crate::i18n::Msg;
use crate::model::access::Question;
use crate::ui::access::{close_when_refused, refusal, ActionEntry, RefusalList};
use crate::ui::delete::DeletePanel;
use crate::ui::i18n::{localized, text_signal};
use crate::ui::operations::OperationsBar;
use crate::ui::scale::ScalePanel;
use crate::ui::write::EditPanel;

/// The panels of an object's action bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Panel {
    Edit,
    Scale,
    Delete,
}

/// The Edit, Scale and Delete entries of an object view, and their panels. An entry the server
/// says the user may not use is disabled, with the reason and the command that checks it.
#[component]
pub fn ObjectActions(
    resource: crate::api::discovery::ResourceType,
    name: String,
    /// Called after a write changed the object.
    on_written: Callback<()>,
) -> impl IntoView {
    let navigation = crate::ui::location::use_navigation();
    // `e` on a row opens its object in the editor.
    let open = RwSignal::new(crate::ui::keys::Intents::take(crate::ui::keys::Intent::Edit).then_some(Panel::Edit));
    let namespaced = resource.is_namespaced();
    let object = {
        let (resource, name) = (resource.clone(), name.clone());
        Memo::new(move |_| {
            let namespace = navigation.state.get().namespace;
            crate::api::request::Collection::new(&resource, resource.scoped(namespace.as_deref()))
                .and_then(|c| c.object(&name))
                .map_err(|e| localized(&e))
        })
    };
    let questions = move |verbs: &'static [&'static str], subresource: Option<&'static str>| {
        move || {
            object.with(|o| {
                o.as_ref()
                    .map(|o| {
                        verbs
                            .iter()
                            .map(|verb| {
                                let question = Question::object(verb, o);
                                match subresource {
                                    Some(sub) => question.subresource(sub),
                                    None => question,
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            })
        }
    };
    let edit_refused = refusal(questions(&["update", "patch"], None), namespaced);
    let delete_refused = refusal(questions(&["delete"], None), namespaced);
    let scale_refused = refusal(questions(&["patch", "update"], Some("scale")), namespaced);
    let scalable = resource.subresources.iter().any(|s| s.name == "scale");
    let kind = resource.kind.clone();
    let title = {
        Signal::derive(move || match object.get() {
            Ok(o) => match &o.collection.namespace {
                Some(ns) => format!("{kind} {ns}/{}", o.name),
                None => format!("{kind} {}", o.name),
            },
            Err(_) => kind.clone(),
        })
    };
    let operations = view! { <OperationsBar resource=resource.clone() object title on_written /> };
    let panel = move || {
        let object = match object.get() {
            Ok(object) => object,
            Err(e) => return Some(view! { <p class="warning" role="alert">{e}</p> }.into_any()),
        };
        let title = title.get();
        Some(match open.get()? {
            Panel::Edit => view! { <EditPanel object title on_written /> }.into_any(),
            Panel::Scale => view! { <ScalePanel object title on_written /> }.into_any(),
            Panel::Delete => view! { <DeletePanel object title on_changed=on_written /> }.into_any(),
        })
    };
    close_when_refused(
        open,
        vec![(Panel::Edit, edit_refused), (Panel::Scale, scale_refused), (Panel::Delete, delete_refused)],
    );
    let mut refusals = vec![(text_signal(Msg::Edit), edit_refused)];
    if scalable {
        refusals.push((text_signal(Msg::Scale), scale_refused));
    }
    refusals.push((text_signal(Msg::Delete), delete_refused));
    view! {
        <div class="toolbar object__actions">
            <ActionEntry which=Panel::Edit label=Msg::EditEntry open refused=edit_refused />
            {scalable.then(|| view! { <ActionEntry which=Panel::Scale label=Msg::ScaleEntry open refused=scale_refused quiet=true /> })}
            <ActionEntry which=Panel::Delete label=Msg::DeleteEntry open refused=delete_refused quiet=true />
        </div>
        <RefusalList entries=refusals />
        {panel}
        {operations}
    }
}
