//! `use_delete` and `use_delete_collection`: the drivers of the Delete panels. One object: read
//! for the preconditions, the DELETE sent through a Leptos `Action` bound to the panel, then the
//! object read once a second while its finalizers run ([`DeleteProgress`] decides). A
//! collection: counted from a metadata-only list, then deleted, then counted again. What to send
//! is the model's; nothing here outlives the panel.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::params::{DeleteParams, ListParams};
use crate::api::request::{Collection, ObjectRef, Request};
use crate::client::answer::{read_object, send_write, WriteFailure};
use crate::client::error::ApiError;
use crate::client::fetch::sleep;
use crate::client::handle::{use_client, Client};
use crate::client::task::Tasks;
use crate::model::delete::{count_of, DeleteProgress, FollowRead};
use crate::model::requests;

/// How often an object being finalized is read again.
const FOLLOW_EVERY: Duration = Duration::from_millis(1000);

/// What came of a DELETE: where the object stands, or why the server refused.
pub type DeleteResult = Result<DeleteProgress, WriteFailure>;

/// What [`use_delete`] gives the panel.
#[derive(Clone, Copy)]
pub struct UseDelete {
    /// The object as read when the panel opened (its uid and resourceVersion for the
    /// preconditions); `None` until read, or when it could not be.
    pub current: RwSignal<Option<Value>>,
    /// Sends a DELETE (the request the model built from the form); `pending` is "sending".
    pub send: Action<(Request, bool), ()>,
    /// Where the last DELETE stands (moving while the object is finalized).
    pub progress: RwSignal<Option<DeleteResult>>,
}

/// The Delete panel's driver for `object`; `on_changed` hears each change the delete made.
pub fn use_delete(object: &ObjectRef, on_changed: Callback<()>) -> UseDelete {
    let client = use_client();
    let tasks = client.tasks();
    let current = RwSignal::new(None);
    {
        let (client, object) = (client.clone(), object.clone());
        tasks.spawn(async move {
            if let Ok(value) = read_object(&client, &object).await {
                current.set(Some(value));
            }
        });
    }
    let progress = RwSignal::new(None::<DeleteResult>);
    let object = object.clone();
    let send = Action::new_local(move |(request, dry_run): &(Request, bool)| {
        let (client, object, request, dry_run, tasks) =
            (client.clone(), object.clone(), request.clone(), *dry_run, tasks.clone());
        let work = async move {
            let answer = send_write(&client, request).await;
            if let Some(failure) = answer.failure() {
                progress.set(Some(Err(failure)));
                return;
            }
            let mut now = DeleteProgress::answered(dry_run, answer.status, answer.object.as_ref());
            progress.set(Some(Ok(now.clone())));
            if now.changed() {
                on_changed.run(());
            }
            while now.following() {
                sleep(FOLLOW_EVERY).await;
                now = follow_once(&client, &object, &now).await;
                progress.set(Some(Ok(now.clone())));
                if !now.following() {
                    on_changed.run(());
                }
            }
        };
        let run = tasks.run(work);
        async move {
            run.await;
        }
    });
    UseDelete { current, send, progress }
}

/// One read of `object` while it is finalized, and where that leaves it.
async fn follow_once(client: &Client, object: &ObjectRef, now: &DeleteProgress) -> DeleteProgress {
    match read_object(client, object).await {
        Ok(value) => now.read(FollowRead::Found(&value)),
        Err(error) if error.is_not_found() => now.read(FollowRead::NotFound),
        Err(_) => now.read(FollowRead::Failed),
    }
}

/// What came of a deletecollection: the status code and text of a success, or why it failed.
pub type CollectionDeleted = Result<(u16, String), WriteFailure>;

/// What [`use_delete_collection`] gives the panel.
#[derive(Clone, Copy)]
pub struct UseDeleteCollection {
    /// How many objects match now: `None` while counting.
    pub count: RwSignal<Option<Result<usize, CountError>>>,
    /// Sends the deletecollection (a dry run when `true`); its value: the status line of a
    /// success, or why it failed.
    pub send: Action<bool, Option<CollectionDeleted>>,
}

/// Why a collection could not be counted.
#[derive(Debug, Clone, PartialEq)]
pub enum CountError {
    Api(ApiError),
    /// The answer was not a list.
    NotAList,
}

impl crate::i18n::Localized for CountError {
    fn text(&self) -> crate::i18n::Text {
        match self {
            CountError::Api(error) => error.text(),
            CountError::NotAList => crate::i18n::Text::new(crate::i18n::Msg::CountNotAList),
        }
    }
}

/// The Delete-collection panel's driver for what `params` selects in `collection`; `on_changed`
/// hears each deletecollection the server accepted.
pub fn use_delete_collection(
    collection: Collection,
    params: ListParams,
    on_changed: Callback<()>,
) -> UseDeleteCollection {
    let client = use_client();
    let tasks = client.tasks();
    let count = RwSignal::new(None);
    let recount = {
        let (client, collection, params, tasks) = (client.clone(), collection.clone(), params.clone(), tasks.clone());
        move || {
            let (client, request) = (client.clone(), requests::count_collection(&collection, &params));
            tasks.spawn(async move {
                let counted = match client.document(request).await {
                    Ok((_, list)) => count_of(&list).ok_or(CountError::NotAList),
                    Err(error) => Err(CountError::Api(error)),
                };
                count.set(Some(counted));
            });
        }
    };
    recount();
    let send = Action::new_local(move |dry_run: &bool| {
        let options = DeleteParams { dry_run: *dry_run, ..DeleteParams::default() };
        let request = requests::delete_collection(&collection, &params, &options);
        let (client, recount, tasks) = (client.clone(), recount.clone(), Tasks::clone(&tasks));
        tasks.run(async move {
            let answer = send_write(&client, request).await;
            recount();
            match answer.failure() {
                Some(failure) => Err(failure),
                None => {
                    on_changed.run(());
                    Ok((answer.status, answer.status_text))
                }
            }
        })
    });
    UseDeleteCollection { count, send }
}
