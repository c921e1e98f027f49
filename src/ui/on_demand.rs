//! Fetching a part of the interface on demand (see [`crate::ui::lazy`] for which parts): a view
//! shows nothing until the part's module has arrived, then the part; a failed download is an alert
//! with Retry.

use leptos::prelude::*;

use crate::i18n::Msg;
use crate::ui::i18n::{filled_text, live_text, text_now, worded};

/// A part of the interface that could not be fetched (a network failure while loading its wasm).
#[derive(Clone, Debug)]
pub struct LoadFailed(String);

impl LoadFailed {
    /// Why the part could not be fetched (the browser's words).
    pub fn reason(&self) -> &str {
        &self.0
    }
}

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for LoadFailed {
    fn from(error: leptos::wasm_split::SplitLoaderError) -> LoadFailed {
        LoadFailed(error.to_string())
    }
}

/// Fetches a part's module (`preload`) as soon as it is rendered, shows nothing until it has
/// arrived, then builds the part (`build`, which finishes at once once the module is there), or a
/// retryable alert naming `what` if the download failed. The download runs as a task of its own and
/// only sets a signal (ignored if the view is gone by then): no `Suspend` is involved, so it never
/// counts as pending work of a `Suspense` up the tree, which would re-render the view around it.
pub fn on_demand<P, Fut, E, B>(what: Msg, preload: P, build: B) -> AnyView
where
    P: Fn() -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<(), E>> + 'static,
    E: Into<LoadFailed>,
    B: Fn() -> Option<Result<AnyView, LoadFailed>> + Send + Sync + 'static,
{
    // The generic part only boxes: the view is compiled once for all the split points, not once
    // for each (every copy was in the module a page load fetches: about 1 KB gzip for six).
    let preload: Preload = std::sync::Arc::new(move || {
        let download = preload();
        Box::pin(async move { download.await.map_err(Into::into) })
    });
    shown_on_demand(what, preload, std::sync::Arc::new(build))
}

type Preload = std::sync::Arc<
    dyn Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), LoadFailed>>>> + Send + Sync,
>;
type Build = std::sync::Arc<dyn Fn() -> Option<Result<AnyView, LoadFailed>> + Send + Sync>;

fn shown_on_demand(what: Msg, preload: Preload, build: Build) -> AnyView {
    let arrived = RwSignal::new(None::<Result<(), LoadFailed>>);
    // Retry is a button of the view below, which a new attempt draws again: the download is a
    // task of this point's owner, not of the button's.
    let tasks = crate::client::task::Tasks::for_current_owner();
    let fetch = move || {
        let download = preload();
        tasks.spawn(async move {
            arrived.try_set(Some(download.await));
        });
    };
    fetch();
    let fetch = std::sync::Arc::new(fetch);
    (move || {
        let failed = |reason: String| {
            let fetch = fetch.clone();
            view! {
                <span class="warning" role="alert" data-testid="load-failed">
                    {worded(move || filled_text(Msg::CouldNotLoadPart, &[("what", &text_now(what)), ("reason", &reason)]))}
                    <button
                        class="button button--quiet"
                        on:click=move |_| {
                            arrived.set(None);
                            fetch();
                        }
                    >
                        {live_text(Msg::Retry)}
                    </button>
                </span>
            }
            .into_any()
        };
        match arrived.get() {
            None => ().into_any(),
            Some(Err(LoadFailed(reason))) => failed(reason),
            Some(Ok(())) => match build() {
                Some(Ok(view)) => view,
                Some(Err(LoadFailed(reason))) => failed(reason),
                None => ().into_any(),
            },
        }
    })
    .into_any()
}

/// A split function's result, which is there at once when its module has arrived: with the
/// `split` feature the call is a future that finishes on its first poll; without it, a value.
macro_rules! at_once_impl {
    ($call:expr) => {{
        #[cfg(feature = "split")]
        let built = futures::FutureExt::now_or_never($call);
        #[cfg(not(feature = "split"))]
        let built = Some($call);
        built
    }};
}
pub(crate) use at_once_impl as at_once;
