//! The screens a route names, a collection (the grid, the live view and its reflector, pages,
//! Load all) and an object (its document, subresources and status): one part loaded on demand,
//! the `browse` module of [`crate::ui::lazy`]. The first screen (the cluster's groups, the decode
//! tool's form) needs neither, so neither is in the module a page load fetches.
//!
//! The part is fetched before its screen is drawn: at start, when the page's address already
//! names a resource (beside discovery's requests, not after them), and when the pointer or the
//! focus enters the sidebar or the group cards (the click that follows finds it there).

use leptos::prelude::*;

use crate::api::discovery::ResourceType;
use crate::i18n::Msg;
use crate::model::view_state::ViewState;
use crate::ui::on_demand::{at_once, on_demand};

/// [`crate::ui::collection::CollectionView`], loaded on demand.
#[component]
pub fn CollectionViewOnDemand(resource: ResourceType) -> impl IntoView {
    on_demand(Msg::PartCollectionView, split::preload_collection_view, move || {
        at_once!(split::collection_view(resource.clone()))
    })
}

/// [`crate::ui::object::ObjectView`], loaded on demand.
#[component]
pub fn ObjectViewOnDemand(resource: ResourceType, name: String) -> impl IntoView {
    on_demand(Msg::PartObjectView, split::preload_object_view, move || {
        at_once!(split::object_view(resource.clone(), name.clone()))
    })
}

/// Starts fetching the screens' part if the view `state` names a resource (a collection or an
/// object: both are in it).
pub fn prefetch_for(state: &ViewState) {
    if state.resource.is_some() {
        prefetch_browse();
    }
}

/// Starts fetching the screens' part (the `browse` module), the first time it is called: the
/// loader keeps a module it has, and a failed fetch is not reported here but tried again, and
/// said, by the screen that needs it.
pub fn prefetch_browse() {
    thread_local! {
        static ASKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if ASKED.with(|asked| asked.replace(true)) {
        return;
    }
    leptos::task::spawn_local(async {
        let _ = split::preload_collection_view().await;
    });
}

/// The split points.
mod split {
    use leptos::prelude::*;

    use crate::api::discovery::ResourceType;
    use crate::ui::collection::CollectionView;
    use crate::ui::object::ObjectView;
    use crate::ui::on_demand::LoadFailed;

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            browse,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_collection_view),
            fallible
        )
    )]
    pub fn collection_view(resource: ResourceType) -> Result<AnyView, LoadFailed> {
        crate::client::fetched::load_yaml_decoder();
        Ok(view! { <CollectionView resource /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            browse,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_object_view),
            fallible
        )
    )]
    pub fn object_view(resource: ResourceType, name: String) -> Result<AnyView, LoadFailed> {
        crate::client::fetched::load_yaml_decoder();
        Ok(view! { <ObjectView resource name /> }.into_any())
    }

    #[cfg(not(feature = "split"))]
    pub async fn preload_collection_view() -> Result<(), LoadFailed> {
        Ok(())
    }
    #[cfg(not(feature = "split"))]
    pub async fn preload_object_view() -> Result<(), LoadFailed> {
        Ok(())
    }
}
