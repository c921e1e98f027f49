//! The go-to box: `:` (or Ctrl/⌘-K, also while typing) opens it; what is typed matches resource
//! types, namespaces and objects ([`crate::model::goto`]); arrows move, Enter goes, Esc closes.
//! Object names come from a metadata-only list of the type (one page, read once per type and
//! namespace while the box is open). The box is loaded on demand, the first time it opens; its key
//! is listened for by `ui::goto_key`.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::api::discovery::ResourceType;
use crate::api::view::metadata::PartialObjectMetadataList;
use crate::client::handle::use_client;
use crate::i18n::Msg;
use crate::model::goto::{matches, object_type, Match, ObjectName, Query, Target, TypeAhead};
use crate::model::target::{names_request, namespace_names, namespaces_request};
use crate::model::view_state::ResourceKey;
use crate::ui::discovered::use_discovery;
use crate::ui::i18n::{filled_text, live_text, localized};
use crate::ui::keys::TypedAhead;
use crate::ui::location::use_navigation;

/// What is known of one type's object names in one namespace.
#[derive(Debug, Clone, PartialEq)]
enum Names {
    Reading,
    Read(Vec<ObjectName>),
    Failed(String),
}

type NamesKey = (ResourceKey, Option<String>);

fn key_of(resource: &ResourceType) -> ResourceKey {
    ResourceKey { group: resource.group.clone(), version: resource.version.clone(), plural: resource.plural.clone() }
}

/// The box: what is typed, its matches, and where Enter goes. Built when the box opens.
#[component]
pub fn GotoDialog(
    /// Closes the box (and gives the focus back).
    close: Callback<()>,
) -> impl IntoView {
    let navigation = use_navigation();
    let discovery = use_discovery();
    let client = use_client();
    let text = RwSignal::new(String::new());
    let active = RwSignal::new(0usize);
    let namespaces = RwSignal::new(None::<Vec<String>>);
    let names = RwSignal::new(HashMap::<NamesKey, Names>::new());
    let input = NodeRef::<leptos::html::Input>::new();
    let close = move || close.run(());
    // What was typed while this part loaded goes into the input as it takes the focus.
    let typed_ahead = use_context::<TypedAhead>();
    Effect::new(move |_| {
        if let Some(input) = input.get() {
            if let Some(typed) = typed_ahead.and_then(|TypedAhead(ahead)| ahead.try_update_value(TypeAhead::take)) {
                text.update(|t| t.push_str(&typed));
            }
            let _ = input.focus();
        }
    });

    // The names of a type's objects, read when first needed.
    let want_names = {
        let client = client.clone();
        move |resource: ResourceType, namespace: Option<String>| {
            let key = (key_of(&resource), namespace.clone());
            if names.with_untracked(|n| n.contains_key(&key)) {
                return;
            }
            names.update(|n| {
                n.insert(key.clone(), Names::Reading);
            });
            let client = client.clone();
            client.tasks().spawn(async move {
                let read = match names_request(&resource, namespace.as_deref()) {
                    Err(e) => Names::Failed(localized(&e)),
                    Ok(request) => match client.document(request).await {
                        Err(e) => Names::Failed(localized(&e)),
                        Ok((_, document)) => match PartialObjectMetadataList::from_document(&document) {
                            Err(e) => Names::Failed(localized(&e)),
                            Ok(list) => Names::Read(
                                list.items
                                    .into_iter()
                                    .filter_map(|item| {
                                        let name = item.metadata.name?;
                                        Some(ObjectName { namespace: item.metadata.namespace, name })
                                    })
                                    .collect(),
                            ),
                        },
                    },
                };
                names.try_update(|n| {
                    n.insert(key, read);
                });
            });
        }
    };
    // The namespaces, read when the box opens.
    {
        let client = client.clone();
        client.tasks().spawn(async move {
            if let Ok((_, list)) = client.document(namespaces_request()).await {
                namespaces.try_set(Some(namespace_names(&list)));
            }
        });
    }
    let find = {
        let discovery = discovery.clone();
        move |key: &ResourceKey| {
            discovery
                .preferred_resources()
                .chain(discovery.groups.iter().flat_map(|g| g.versions.iter()).flat_map(|v| v.resources.iter()))
                .find(|r| r.group == key.group && r.version == key.version && r.plural == key.plural)
                .cloned()
        }
    };
    // The type on screen, and the type a two-word query names: their names are read.
    let current = {
        let find = find.clone();
        Memo::new(move |_| navigation.state.with(|s| s.resource.as_ref().and_then(&find)))
    };
    let query = Memo::new(move |_| text.with(|t| Query::parse(t)));
    let named_type = {
        let discovery = discovery.clone();
        Memo::new(move |_| query.with(|q| q.as_ref().and_then(|q| object_type(&discovery, q).cloned())))
    };
    Effect::new(move |_| {
        let namespace = navigation.state.with(|s| s.namespace.clone());
        if let Some(resource) = current.get() {
            want_names(resource, namespace.clone());
        }
        if let Some(resource) = named_type.get() {
            want_names(resource, namespace);
        }
    });
    let names_of = move |resource: &ResourceType| -> (Vec<ObjectName>, Option<Names>) {
        let key = (key_of(resource), navigation.state.with(|s| s.namespace.clone()));
        names.with(|n| match n.get(&key) {
            Some(Names::Read(list)) => (list.clone(), None),
            other => (Vec::new(), other.cloned()),
        })
    };
    let found = {
        let discovery = discovery.clone();
        Memo::new(move |_| {
            let Some(query) = query.get() else { return (Vec::new(), None) };
            let namespaces = namespaces.get().unwrap_or_default();
            let current = current.get();
            let (current_names, _) = current.as_ref().map(names_of).unwrap_or_default();
            let named = named_type.get();
            let (objects, state) = named.as_ref().map(names_of).unwrap_or_default();
            let found = matches(
                &discovery,
                &namespaces,
                current.as_ref().map(|r| (r, current_names.as_slice())),
                &objects,
                &query,
            );
            let note = match (named, state) {
                (Some(r), Some(Names::Reading)) => Some(filled_text(Msg::ReadingNamesOf, &[("resource", &r.plural)])),
                (Some(r), Some(Names::Failed(e))) => {
                    Some(filled_text(Msg::NamesUnreadable, &[("resource", &r.plural), ("error", &e)]))
                }
                (None, _) if query.rest.is_some() => Some(filled_text(Msg::NoTypeCalled, &[("name", &query.first)])),
                _ => None,
            };
            (found, note)
        })
    };
    let go = move |target: Target| {
        navigation.update(move |s| match target {
            Target::Type(key) => s.open_collection(key),
            Target::Namespace(namespace) => {
                s.namespace = Some(namespace);
                s.name = None;
            }
            Target::Object { key, namespace, name } => {
                s.open_collection(key);
                s.name = Some(name);
                if namespace.is_some() {
                    s.namespace = namespace;
                }
            }
        });
        close();
    };
    let on_key = move |e: web_sys::KeyboardEvent| {
        let count = found.with_untracked(|(f, _)| f.len());
        match e.key().as_str() {
            "ArrowDown" => {
                e.prevent_default();
                active.update(|a| *a = if count == 0 { 0 } else { (*a + 1) % count });
            }
            "ArrowUp" => {
                e.prevent_default();
                active.update(|a| *a = if count == 0 { 0 } else { (*a + count - 1) % count });
            }
            "Enter" => {
                e.prevent_default();
                if let Some(m) = found.with_untracked(|(f, _)| f.get(active.get_untracked()).cloned()) {
                    go(m.target);
                }
            }
            "Escape" => {
                e.prevent_default();
                close();
            }
            _ => {}
        }
    };
    let option_id = |i: usize| format!("goto-option-{i}");
    view! {
                <div class="dialog-backdrop" on:click=move |_| close()>
                    <div
                        class="dialog goto"
                        role="dialog"
                        aria-modal="true"
                        aria-label=live_text(Msg::GoTo)
                        on:click=|e| e.stop_propagation()
                    >
                        <input
                            class="goto__input"
                            type="text"
                            dir="auto"
                            role="combobox"
                            aria-label=live_text(Msg::GoTo)
                            aria-autocomplete="list"
                            aria-expanded="true"
                            aria-controls="goto-list"
                            aria-activedescendant=move || {
                                found.with(|(f, _)| (!f.is_empty()).then(|| option_id(active.get())))
                            }
                            placeholder=live_text(Msg::GoToPlaceholder)
                            autocomplete="off"
                            spellcheck="false"
                            node_ref=input
                            prop:value=text
                            on:input=move |e| {
                                text.set(event_target_value(&e));
                                active.set(0);
                            }
                            on:keydown=on_key
                        />
                        {move || {
                            found.with(|(_, note)| note.clone()).map(|note| {
                                view! { <p class="muted goto__note" data-testid="goto-note">{note}</p> }
                            })
                        }}
                        <ul class="goto__list" id="goto-list" role="listbox" aria-label=live_text(Msg::MatchesLabel)>
                            {move || {
                                let (found, _) = found.get();
                                if found.is_empty() && query.with(Option::is_some) {
                                    return view! { <li class="muted goto__empty">{live_text(Msg::NothingMatches)}</li> }.into_any();
                                }
                                found
                                    .into_iter()
                                    .enumerate()
                                    .map(|(i, m): (usize, Match)| {
                                        let target = m.target.clone();
                                        view! {
                                            <li
                                                id=option_id(i)
                                                class="goto__option"
                                                role="option"
                                                data-testid="goto-option"
                                                aria-selected=move || (active.get() == i).to_string()
                                                on:mousemove=move |_| {
                                                    if active.get_untracked() != i {
                                                        active.set(i);
                                                    }
                                                }
                                                on:click=move |_| go(target.clone())
                                            >
                                                <span class="goto__label">{m.label}</span>
                                                <span class="muted goto__detail">{m.detail}</span>
                                            </li>
                                        }
                                    })
                                    .collect_view()
                                    .into_any()
                            }}
                        </ul>
                        <p class="muted goto__hint">{live_text(Msg::GoToHint)}</p>
                    </div>
                </div>
    }
}
