//! Parts of the interface loaded on demand (the fetching is `ui::on_demand`'s). Trunk builds
//! (cargo feature `split`, turned on by `index.html`) compile them behind `wasm_split` split
//! points: `wasm-split-cli` moves their code into separate wasm files that the page fetches when
//! a view first needs them (`scripts/tools/wasm-bindgen` and the Trunk hook
//! `scripts/tools/copy-split-chunks` do the splitting). Without the feature (native builds,
//! `cargo test --target wasm32-unknown-unknown`) the same functions are called directly.
//!
//! The modules (the first argument of `wasm_split`):
//! - `browse`: the collection and object screens (`ui::routes`), the decode tool's decoders
//!   (`ui::decode`), and what only they open: a pod's log view, a pod's or a node's CPU and
//!   memory charts (`ui::metrics_chart`), a live view's history diff, a field's docs on hover,
//!   a 403's explanation (`ui::forbidden`). These are one module, not
//!   five: every module adds chunk files for the code it shares with the others (the collection
//!   screen alone, a module of its own, took 133 files), and an object is opened from a
//!   collection anyway.
//! - `write_tools`: edit, patch, apply, create, delete; nobody needs them to read a cluster.
//! - `protobuf` (`ui::protobuf`): prost and the messages of every built-in type.
//! - the screens of their own reached from the first screen: `access_view`, `search_view`,
//!   `explain_view` (the schema explorer), `goto` (the go-to box), `terminal` (a container's
//!   terminal; xterm.js is a file of the bundle imported after it); and `language_file`
//!   (`ui::i18n`).

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::{Discovery, ResourceType};
use crate::i18n::Msg;
use crate::ui::on_demand::{at_once, on_demand};

/// The Edit and Delete entries of an object view (`ui::object_actions::ObjectActions`), loaded on demand.
#[component]
pub fn ObjectActionsOnDemand(resource: ResourceType, name: String, on_written: Callback<()>) -> impl IntoView {
    on_demand(Msg::PartWriteTools, split::preload_object_actions, move || {
        at_once!(split::object_actions(resource.clone(), name.clone(), on_written))
    })
}

/// The Create and Delete-collection entries of a collection view (`ui::create::CollectionActions`),
/// loaded on demand.
#[component]
pub fn CollectionActionsOnDemand(resource: ResourceType, on_changed: Callback<()>) -> impl IntoView {
    on_demand(Msg::PartWriteTools, split::preload_collection_actions, move || {
        at_once!(split::collection_actions(resource.clone(), on_changed))
    })
}

/// The diff of two versions in a live view's object history (`ui::diff_view::DiffView`), loaded on
/// demand: the structural and line diff code is shared with the write tools and only needed once
/// the user asks for a diff.
#[component]
pub fn HistoryDiffOnDemand(old: Value, new: Value) -> impl IntoView {
    on_demand(Msg::PartDiffView, split::preload_history_diff, move || {
        at_once!(split::history_diff(old.clone(), new.clone()))
    })
}

/// The Access view (`ui::access_view::AccessView`: what the user may do, type by type and verb by
/// verb), loaded on demand: few open it, and its matrix is a good part of the authorization code.
#[component]
pub fn AccessViewOnDemand(discovery: Discovery) -> impl IntoView {
    on_demand(Msg::PartAccessView, split::preload_access_view, move || at_once!(split::access_view(discovery.clone())))
}

/// A pod's log (`ui::logs::LogView`), loaded on demand: only a pod's view opens it.
#[component]
pub fn LogViewOnDemand(
    resource: ResourceType,
    namespace: Option<String>,
    name: String,
    document: Value,
) -> impl IntoView {
    on_demand(Msg::PartLogView, split::preload_log_view, move || {
        at_once!(split::log_view(resource.clone(), namespace.clone(), name.clone(), document.clone()))
    })
}

/// A terminal in a pod's container (`ui::terminal::TerminalPanel`), loaded on demand: its own
/// module; the emulator (xterm.js) is imported by the panel after that.
#[component]
pub fn TerminalOnDemand(
    resource: ResourceType,
    namespace: String,
    name: String,
    document: Value,
    subresource: String,
) -> impl IntoView {
    on_demand(Msg::PartTerminal, split::preload_terminal, move || {
        at_once!(split::terminal(
            resource.clone(),
            namespace.clone(),
            name.clone(),
            document.clone(),
            subresource.clone()
        ))
    })
}

/// The go-to box (`ui::goto::GotoDialog`), loaded the first time it opens.
#[component]
pub fn GotoDialogOnDemand(close: Callback<()>) -> impl IntoView {
    on_demand(Msg::PartGoTo, split::preload_goto, move || at_once!(split::goto(close)))
}

/// The Search screen (`ui::search::SearchView`: objects of every type by name and labels), loaded
/// on demand: a screen of its own, with its model and driver.
#[component]
pub fn SearchViewOnDemand(discovery: Discovery) -> impl IntoView {
    on_demand(Msg::PartSearch, split::preload_search_view, move || at_once!(split::search_view(discovery.clone())))
}

/// The schema explorer (`ui::explain::ExplainView`: a kind's OpenAPI schema as kubectl explain
/// walks it, searchable, compared across versions), loaded on demand: a screen of its own.
#[component]
pub fn ExplainViewOnDemand(discovery: Discovery) -> impl IntoView {
    on_demand(Msg::PartSchemaExplorer, split::preload_explain_view, move || {
        at_once!(split::explain_view(discovery.clone()))
    })
}

/// The docs of the field on 0-based `line` of an object's document (`ui::field_docs`), in the
/// `browse` module (with the object view that shows them).
#[component]
pub fn FieldDocsOnDemand(
    text: std::sync::Arc<String>,
    line: usize,
    kind: kube_core::GroupVersionKind,
) -> impl IntoView {
    on_demand(Msg::PartFieldDocs, split::preload_field_docs, move || {
        at_once!(split::field_docs(text.clone(), line, kind.clone()))
    })
}

/// The split points: with the `split` feature each becomes an `async fn` that first fetches its
/// module (code two modules use goes to a chunk both load) and answers `Err` if it cannot;
/// without it, a plain function.
mod split {
    use leptos::prelude::*;

    use crate::api::codec::value::Value;
    use crate::api::discovery::{Discovery, ResourceType};
    use crate::ui::access_view::AccessView;
    use crate::ui::create::CollectionActions;
    use crate::ui::diff_view::DiffView;
    use crate::ui::explain::ExplainView;
    use crate::ui::field_docs::FieldDocsAtLine;
    use crate::ui::goto::GotoDialog;
    use crate::ui::logs::LogView;
    use crate::ui::object_actions::ObjectActions;
    use crate::ui::on_demand::LoadFailed;
    use crate::ui::search::SearchView;
    use crate::ui::terminal::TerminalPanel;

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            write_tools,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_object_actions),
            fallible
        )
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
        leptos::wasm_split::wasm_split(
            write_tools,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_collection_actions),
            fallible
        )
    )]
    pub fn collection_actions(resource: ResourceType, on_changed: Callback<()>) -> Result<AnyView, LoadFailed> {
        Ok(view! { <CollectionActions resource on_changed /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            browse,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_history_diff),
            fallible
        )
    )]
    pub fn history_diff(old: Value, new: Value) -> Result<AnyView, LoadFailed> {
        Ok(view! { <DiffView old new name="history" /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            access_view,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_access_view),
            fallible
        )
    )]
    pub fn access_view(discovery: Discovery) -> Result<AnyView, LoadFailed> {
        Ok(view! { <AccessView discovery /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            browse,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_log_view),
            fallible
        )
    )]
    pub fn log_view(
        resource: ResourceType,
        namespace: Option<String>,
        name: String,
        document: Value,
    ) -> Result<AnyView, LoadFailed> {
        Ok(view! { <LogView resource namespace name document /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(goto, wasm_split_path = ::leptos::wasm_split, preload(preload_goto), fallible)
    )]
    pub fn goto(close: Callback<()>) -> Result<AnyView, LoadFailed> {
        Ok(view! { <GotoDialog close /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            search_view,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_search_view),
            fallible
        )
    )]
    pub fn search_view(discovery: Discovery) -> Result<AnyView, LoadFailed> {
        Ok(view! { <SearchView discovery /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            explain_view,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_explain_view),
            fallible
        )
    )]
    pub fn explain_view(discovery: Discovery) -> Result<AnyView, LoadFailed> {
        Ok(view! { <ExplainView discovery /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            browse,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_field_docs),
            fallible
        )
    )]
    pub fn field_docs(
        text: std::sync::Arc<String>,
        line: usize,
        kind: kube_core::GroupVersionKind,
    ) -> Result<AnyView, LoadFailed> {
        Ok(view! { <FieldDocsAtLine text line kind /> }.into_any())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(
            terminal,
            wasm_split_path = ::leptos::wasm_split,
            preload(preload_terminal),
            fallible
        )
    )]
    pub fn terminal(
        resource: ResourceType,
        namespace: String,
        name: String,
        document: Value,
        subresource: String,
    ) -> Result<AnyView, LoadFailed> {
        Ok(view! { <TerminalPanel resource namespace name document subresource /> }.into_any())
    }

    // Without the feature the parts are ordinary functions: nothing to fetch, and the same
    // shapes as the split ones (an async preload; a build that answers at once).
    #[cfg(not(feature = "split"))]
    pub use direct::*;
    #[cfg(not(feature = "split"))]
    mod direct {
        use crate::ui::on_demand::LoadFailed;

        pub async fn preload_object_actions() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_collection_actions() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_history_diff() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_access_view() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_log_view() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_goto() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_search_view() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_explain_view() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_field_docs() -> Result<(), LoadFailed> {
            Ok(())
        }
        pub async fn preload_terminal() -> Result<(), LoadFailed> {
            Ok(())
        }
    }
}
