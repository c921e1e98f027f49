//! The ways into the schema explorer from the rest of the app (in the first load; the explorer
//! itself is loaded on demand): the top bar's Schemas button and a resource view's Schema link.

use std::sync::Arc;

use leptos::prelude::*;

use crate::i18n::Msg;
use crate::model::view_state::ViewState;
use crate::ui::i18n::{live_text, text_signal};
use crate::ui::location::{use_navigation, ViewLink};

/// The top bar's entry: the schema of the type on screen, else the list of kinds.
#[component]
pub fn SchemasButton() -> impl IntoView {
    let navigation = use_navigation();
    view! {
        <button
            class="button button--quiet topbar__schemas"
            title=live_text(Msg::ExplainSchemasTitle)
            data-testid="topbar-schemas"
            aria-pressed=move || {
                navigation.state.with(|s| s.explain.is_some() && s.search.is_none() && !s.access).to_string()
            }
            on:click=move |_| {
                navigation
                    .update(|s| {
                        s.access = false;
                        s.search = None;
                        s.explain.get_or_insert_with(String::new);
                    })
            }
        >
            {live_text(Msg::ExplainSchemas)}
        </button>
    }
}

/// A collection's or an object's link to its kind's schema (`explain=`, the field `path`).
#[component]
pub fn ExplainLink(
    /// The field to open, dotted (empty for the kind).
    #[prop(optional, into)]
    path: String,
) -> impl IntoView {
    let change = Arc::new(move |s: &mut ViewState| {
        s.explain = Some(path.clone());
        s.compare = None;
    });
    view! {
        <span class="explain-link">
            <ViewLink change testid="explain-link" title=text_signal(Msg::ExplainSchemaTitle)>
                {live_text(Msg::ExplainSchema)}
            </ViewLink>
        </span>
    }
}
