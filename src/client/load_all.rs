//! The "Load all" driver: follows a list's continue tokens to its end. The next page is asked
//! for as soon as a page's continue token is read, so it is on the wire while the page is joined
//! (decoded, appended, its text written); then the page's time is the larger of the two, not
//! their sum. The pages and the joining are tasks of the view's owner.

use std::future::Future;
use std::pin::Pin;

use futures::channel::oneshot;
use leptos::prelude::*;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::api::discovery::ResourceType;
use crate::api::view::list::{ContinueToken, ListMeta};
use crate::api::watch::lazy_list::LazyList;
use crate::client::error::ApiError;
use crate::client::handle::Client;
use crate::client::task::Tasks;
use crate::i18n::{Localized, Msg, Text};
use crate::model::joined::lazy_list;
use crate::model::load_all::{status_stop, LoadAllProgress};
use crate::model::target::RowObjects;
use crate::model::view_state::ViewState;

/// What a page read for "Load all" gives: its list metadata (the next continue token) and what
/// is joined; or why the list stops there.
pub type PageRead<T> = Pin<Box<dyn Future<Output = Result<(ListMeta, T), Text>>>>;

/// "Load all" of one list view.
pub struct Following {
    pub client: Client,
    pub resource: ResourceType,
    pub state: ViewState,
    pub progress: RwSignal<Option<LoadAllProgress>>,
}

impl Following {
    /// Starts from `token`: `read` reads a page, `append` joins it (answering how many items
    /// are loaded in all, or why the page does not fit). Progress and failures go to `progress`.
    pub fn spawn<T: 'static>(
        self,
        token: ContinueToken,
        read: impl Fn(Client, ResourceType, ViewState, ContinueToken) -> PageRead<T> + 'static,
        append: impl Fn(T) -> Result<usize, Text> + 'static,
    ) {
        let Following { client, resource, state, progress } = self;
        // The pages and the joining are tasks of the view's owner: leaving the view drops them
        // where they wait, before a page is joined into a list that is gone.
        let tasks = client.tasks();
        let page_tasks = tasks.clone();
        let ask = move |token| in_flight(&page_tasks, read(client.clone(), resource.clone(), state.clone(), token));
        tasks.spawn(async move {
            let mut next = Some(ask(token));
            let error = loop {
                let Some(current) = next.take() else { return };
                let (metadata, page) = match current.await {
                    Ok(Ok(read)) => read,
                    Ok(Err(error)) => break error,
                    Err(oneshot::Canceled) => break Msg::StoppedRequestDropped.into(),
                };
                next = metadata.continue_token.clone().map(&ask);
                if next.is_some() {
                    // A spawned task first runs when this one yields: let the next page's request
                    // leave before this page is joined.
                    let _ = JsFuture::from(js_sys::Promise::resolve(&JsValue::UNDEFINED)).await;
                }
                match append(page) {
                    Ok(loaded) => {
                        let mut now = LoadAllProgress::started(loaded, metadata.remaining_item_count);
                        now.done = next.is_none();
                        progress.set(Some(now));
                    }
                    Err(error) => break error,
                }
            };
            progress.update(|p| {
                if let Some(p) = p {
                    p.error = Some(error);
                }
            });
        });
    }
}

/// Runs `read` now (its request leaves at once) and answers its outcome when it is awaited.
fn in_flight<T: 'static>(tasks: &Tasks, read: PageRead<T>) -> oneshot::Receiver<Result<(ListMeta, T), Text>> {
    let (sender, receiver) = oneshot::channel();
    tasks.spawn(async move {
        let _ = sender.send(read.await);
    });
    receiver
}

/// Reads the page after `token` as a lazy list: the body is not decoded as a whole, each item
/// stays bytes of it (see [`crate::model::joined`]).
pub fn read_lazy_page(
    client: Client,
    resource: ResourceType,
    state: ViewState,
    token: ContinueToken,
) -> PageRead<LazyList> {
    Box::pin(async move {
        let not_sent = |e: &dyn Localized| Text::new(Msg::NotSentBecause).with_text("rule", e.text());
        let target = state.collection_target(&resource).map_err(|e| not_sent(&e))?;
        let plan = state.page_plan(&target, Some(token), RowObjects::AsNeeded).map_err(|e| not_sent(&e))?;
        let fetched = client
            .send_undecoded(plan.request)
            .await
            .map_err(|e| Text::new(Msg::NetworkFailureWith).with_text("error", e))?;
        // Only a failure is read as a tree (its Status): `error()` decodes the body, and a
        // success's body is read lazily below, not decoded whole and kept beside it.
        if !fetched.response.is_success() {
            if let Some(error) = fetched.error() {
                return Err(stop_reason(&error));
            }
        }
        let list = lazy_list(fetched.content_type.as_ref(), &fetched.response.body).map_err(|e| {
            Text::new(Msg::AnsweredWith)
                .with("url", &fetched.response.url)
                .with("status", fetched.response.status)
                .with_text("message", e)
        })?;
        Ok((list.metadata.clone(), list))
    })
}

/// Why a failed page stops "Load all", in the words the view uses.
pub fn stop_reason(error: &ApiError) -> Text {
    match error.status() {
        Some(status) => status_stop(status),
        None => error.text(),
    }
}
