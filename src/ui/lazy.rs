//! Parts of the interface loaded on demand. The write tools (edit, patch, apply, create, delete)
//! are about a fifth of the app's code and nobody needs them to read a cluster, and the diff view
//! (with its structural and line diff) is only needed once a user asks for a diff. A trunk build
//! (cargo feature `split`) compiles them behind `wasm_split` split points: `wasm-split-cli` moves
//! their code into separate wasm files that the page fetches the first time an object or a
//! collection shows its actions, or a live view's history shows a diff (`scripts/tools/wasm-bindgen` and the Trunk hook
//! `scripts/tools/copy-split-chunks` do the splitting). Without the feature (debug builds, browser
//! tests) the same functions are called directly.

use leptos::prelude::*;

use crate::api::discovery::ResourceType;
use crate::api::value::Value;

/// A part of the interface that could not be fetched (a network failure while loading its wasm).
#[derive(Clone, Debug)]
pub struct LoadFailed(String);

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for LoadFailed {
    fn from(error: leptos::wasm_split::SplitLoaderError) -> LoadFailed {
        LoadFailed(error.to_string())
    }
}

/// Renders what `load` produces once it has arrived, a quiet placeholder until then, and a
/// retryable alert naming `what` if its code could not be fetched.
fn on_demand<F, Fut>(what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<AnyView, LoadFailed>> + 'static,
{
    let attempt = RwSignal::new(0u32);
    // Its own Suspense boundary: without it the load would count as pending work of the nearest
    // one up the tree (the whole explorer's), which then re-renders the view around it (in the
    // read-path benchmark, 40 ms more from a click to the first rows).
    let content = move || {
        attempt.track();
        let load = load.clone();
        // The future holds views and callbacks of this single-threaded page.
        Suspend::new(send_wrapper::SendWrapper::new(async move {
            match load().await {
                Ok(view) => view,
                Err(LoadFailed(reason)) => view! {
                    <span class="warning" role="alert" data-testid="load-failed">
                        {format!("Could not load the {what} (a file the app fetches on first use): {reason}. ")}
                        <button class="button button--quiet" on:click=move |_| attempt.update(|n| *n += 1)>
                            "Retry"
                        </button>
                    </span>
                }
                .into_any(),
            }
        }))
    };
    view! { <Suspense fallback=|| ()>{content}</Suspense> }
}

/// The Edit and Delete entries of an object view (`ui::write::ObjectActions`), loaded on demand.
#[component]
pub fn ObjectActionsOnDemand(resource: ResourceType, name: String, on_written: Callback<()>) -> impl IntoView {
    on_demand("write tools", move || {
        let (resource, name) = (resource.clone(), name.clone());
        async move {
            #[cfg(feature = "split")]
            return split::object_actions(resource, name, on_written).await;
            #[cfg(not(feature = "split"))]
            return split::object_actions(resource, name, on_written);
        }
    })
}

/// The Create and Delete-collection entries of a collection view (`ui::create::CollectionActions`),
/// loaded on demand.
#[component]
pub fn CollectionActionsOnDemand(resource: ResourceType, on_changed: Callback<()>) -> impl IntoView {
    on_demand("write tools", move || {
        let resource = resource.clone();
        async move {
            #[cfg(feature = "split")]
            return split::collection_actions(resource, on_changed).await;
            #[cfg(not(feature = "split"))]
            return split::collection_actions(resource, on_changed);
        }
    })
}

/// The diff of two versions in a live view's object history (`ui::diff_view::DiffView`), loaded on
/// demand: the structural and line diff code is shared with the write tools and only needed once
/// the user asks for a diff.
#[component]
pub fn HistoryDiffOnDemand(old: Value, new: Value) -> impl IntoView {
    on_demand("diff view", move || {
        let (old, new) = (old.clone(), new.clone());
        async move {
            #[cfg(feature = "split")]
            return split::history_diff(old, new).await;
            #[cfg(not(feature = "split"))]
            return split::history_diff(old, new);
        }
    })
}

/// The split points: with the `split` feature each becomes an `async fn` that first fetches its
/// module (`write_tools`, `diff_view`; code both use goes to a chunk both load) and answers `Err`
/// if it cannot; without it, a plain function.
mod split {
    use leptos::prelude::*;

    use super::LoadFailed;
    use crate::api::discovery::ResourceType;
    use crate::api::value::Value;
    use crate::ui::create::CollectionActions;
    use crate::ui::diff_view::DiffView;
    use crate::ui::write::ObjectActions;

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(write_tools, wasm_split_path = ::leptos::wasm_split, fallible)
    )]
    pub fn object_actions(
        resource: ResourceType,
        name: String,
        on_written: Callback<()>,
    ) -> Result<AnyView, LoadFailed> {
        Ok(view! { <ObjectActions resource name on_written /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(write_tools, wasm_split_path = ::leptos::wasm_split, fallible)
    )]
    pub fn collection_actions(resource: ResourceType, on_changed: Callback<()>) -> Result<AnyView, LoadFailed> {
        Ok(view! { <CollectionActions resource on_changed /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(diff_view, wasm_split_path = ::leptos::wasm_split, fallible)
    )]
    pub fn history_diff(old: Value, new: Value) -> Result<AnyView, LoadFailed> {
        Ok(view! { <DiffView old new name="history" /> }.into_any())
    }
}
