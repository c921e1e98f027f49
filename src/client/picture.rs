//! `use_picture`: the picture of a namespace. It sends the lists
//! [`model::picture::plan`](crate::model::picture::plan) chose (one per type, the pods as a
//! Table), draws the picture with [`model::picture::picture`](crate::model::picture::picture),
//! and reads them again every [`READ_AGAIN_MS`](crate::model::relations::READ_AGAIN_MS) and on
//! [`UsePicture::refresh`]. Its requests end with the calling component.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::discovery::Discovery;
use crate::client::handle::use_client;
use crate::client::relations::objects;
use crate::i18n::{Localized, Text};
use crate::model::picture::{picture, plan, Picture};
use crate::model::relations::READ_AGAIN_MS;

/// What [`use_picture`] gives the view.
#[derive(Clone, Copy)]
pub struct UsePicture {
    /// The picture; `None` until the lists have been read.
    pub picture: RwSignal<Option<Picture>>,
    /// Why it cannot be drawn.
    pub problem: RwSignal<Option<Text>>,
    /// Reads the lists again.
    pub refresh: Callback<()>,
}

/// The picture of `namespace`, for the current owner.
pub fn use_picture(discovery: &Discovery, namespace: &str) -> UsePicture {
    let drawn = RwSignal::new(None);
    let problem = RwSignal::new(None);
    let lists = match plan(discovery, namespace) {
        Ok(lists) => lists,
        Err(error) => {
            problem.set(Some(error.text()));
            Vec::new()
        }
    };
    let client = use_client();
    let read_all = move || {
        let (client, lists) = (client.clone(), lists.clone());
        client.clone().tasks().spawn(async move {
            let mut held = Vec::with_capacity(lists.len());
            for list in &lists {
                match objects(&client, &list.request, list.kind).await {
                    Ok(objects) => held.push((list.kind, objects)),
                    Err(text) => {
                        problem.set(Some(text));
                        return;
                    }
                }
            }
            if problem.with_untracked(Option::is_some) {
                problem.set(None);
            }
            let now = Some(picture(&held));
            // Drawn again only when something changed.
            if drawn.with_untracked(|was| *was != now) {
                drawn.set(now);
            }
        });
    };
    read_all();
    use_client().tasks().every(Duration::from_millis(READ_AGAIN_MS), read_all.clone());
    UsePicture { picture: drawn, problem, refresh: Callback::new(move |()| read_all()) }
}
