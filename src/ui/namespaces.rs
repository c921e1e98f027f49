//! The namespace selector: all namespaces, or one from the server's namespace list.

use leptos::prelude::*;

use crate::client::handle::use_client;
use crate::i18n::Msg;
use crate::model::target::namespaces_request;
use crate::ui::i18n::live_text;
use crate::ui::location::use_navigation;

/// A `<select>` of namespaces bound to the view state.
#[component]
pub fn NamespaceSelect() -> impl IntoView {
    let navigation = use_navigation();
    let client = use_client();
    let names = LocalResource::new(move || {
        let client = client.clone();
        async move {
            match client.document(namespaces_request()).await {
                Ok((_, list)) => crate::model::target::namespace_names(&list),
                Err(_) => Vec::new(),
            }
        }
    });
    view! {
        <label class="toolbar__field">
            {live_text(Msg::Namespace)}
            " "
            <select
                aria-label=live_text(Msg::Namespace)
                on:change=move |e| {
                    let value = event_target_value(&e);
                    navigation.update(move |s| s.namespace = (!value.is_empty()).then_some(value));
                }
            >
                <option value="" selected=move || navigation.state.get().namespace.is_none()>
                    {live_text(Msg::AllNamespaces)}
                </option>
                {move || {
                    let mut list = names.get().unwrap_or_default();
                    // The namespace in the URL stays selectable even if the list lacks it.
                    if let Some(current) = navigation.state.get().namespace {
                        if !list.contains(&current) {
                            list.push(current);
                        }
                    }
                    list.into_iter()
                        .map(|name| {
                            let selected_name = name.clone();
                            let value = name.clone();
                            view! {
                                <option
                                    value=value
                                    selected=move || {
                                        navigation.state.get().namespace.as_deref() == Some(selected_name.as_str())
                                    }
                                >
                                    {name}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        </label>
    }
}
