//! The namespace selector: all namespaces, or one from the server's namespace list.

use leptos::prelude::*;

use crate::api::body::Decoded;
use crate::api::codec::value::Value;
use crate::api::request::Request;
use crate::client::ApiBase;
use crate::ui::inspector::use_wire_log;
use crate::ui::location::use_navigation;

/// A `<select>` of namespaces bound to the view state.
#[component]
pub fn NamespaceSelect() -> impl IntoView {
    let navigation = use_navigation();
    let base = expect_context::<ApiBase>();
    let log = use_wire_log();
    let names = LocalResource::new(move || {
        let base = base.clone();
        async move {
            let request = Request::get("/api/v1/namespaces")
                .header("Accept", "application/json")
                .param("pretty", "false")
                .param("limit", "500");
            match log.fetch(base, request).await.map(|f| f.decoded) {
                Ok(Ok(Decoded::Document(list))) => namespace_names(&list),
                _ => Vec::new(),
            }
        }
    });
    view! {
        <label class="toolbar__field">
            "Namespace "
            <select
                aria-label="Namespace"
                on:change=move |e| {
                    let value = event_target_value(&e);
                    navigation.update(move |s| s.namespace = (!value.is_empty()).then_some(value));
                }
            >
                <option value="" selected=move || navigation.state.get().namespace.is_none()>
                    "All namespaces"
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

fn namespace_names(list: &Value) -> Vec<String> {
    list.get("items")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| item.at(&["metadata", "name"]).and_then(Value::as_str).map(str::to_owned))
        .collect()
}
