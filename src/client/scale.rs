//! `use_scale`: the driver of a Scale panel. It reads the object's `scale` subresource, keeps the
//! form's replicas (filled from what it read), and sends a [`ScaleOrder`] through a Leptos
//! `Action` bound to the panel's owner (dropped with it); after a real scale it reads the Scale
//! again and tells the screen. What to send is the model's ([`crate::model::scale`]).

use leptos::prelude::*;

use crate::api::request::ObjectRef;
use crate::client::answer::{read_object, send_write, WriteFailure};
use crate::client::error::ApiError;
use crate::client::handle::use_client;
use crate::i18n::{Localized, Text};
use crate::model::scale::{scale_of, ScaleFacts, ScaleOrder, ScaleOutcome};
use crate::model::write::{parse_replicas, SendOptions};

/// What came of one order: its outcome, or why it failed.
pub type ScaleResult = Result<ScaleOutcome, WriteFailure>;

/// What [`use_scale`] gives the panel.
#[derive(Clone, Copy)]
pub struct UseScale {
    /// The Scale as last read: `None` while reading.
    pub facts: RwSignal<Option<Result<ScaleFacts, ApiError>>>,
    /// The form's replicas, as typed (filled with `spec.replicas` when read).
    pub replicas: RwSignal<String>,
    /// The number the form asks for, or why it is not one.
    pub wanted: Memo<Result<i64, Text>>,
    /// Sends an order; its `pending` is "sending", its `value` what came of the last (`None`
    /// also when the panel went first).
    pub send: Action<ScaleOrder, Option<ScaleResult>>,
}

impl UseScale {
    /// Sends the form's replicas (a dry run when `dry_run`), unless they are not a number.
    pub fn submit(&self, dry_run: bool) {
        if let Ok(order) = ScaleOrder::from_form(&self.replicas.get_untracked(), dry_run) {
            self.send.dispatch_local(order);
        }
    }
}

/// The Scale panel's driver for `object` (whose `scale` subresource must be valid: `None` and the
/// error otherwise), sending with the write `options` of the moment; `on_written` hears each real
/// scale the server accepted.
pub fn use_scale(object: &ObjectRef, options: Signal<SendOptions>, on_written: Callback<()>) -> Result<UseScale, Text> {
    let scale = scale_of(object).map_err(|e| e.text())?;
    let client = use_client();
    let tasks = client.tasks();
    let facts = RwSignal::new(None);
    let replicas = RwSignal::new(String::new());
    let load = {
        let (client, scale, tasks) = (client.clone(), scale.clone(), tasks.clone());
        move || {
            let (client, scale) = (client.clone(), scale.clone());
            tasks.spawn(async move {
                let read = read_object(&client, &scale).await.map(|value| ScaleFacts::of(&value));
                if let Ok(ScaleFacts { spec_replicas: Some(n), .. }) = &read {
                    replicas.set(n.to_string());
                }
                facts.set(Some(read));
            });
        }
    };
    load();
    let send = Action::new_local(move |order: &ScaleOrder| {
        let (client, scale, order, load) = (client.clone(), scale.clone(), order.clone(), load.clone());
        let options = options.get_untracked();
        tasks.run(async move {
            let request = match order.request(&scale, &options) {
                Ok(request) => request,
                Err(error) => return Err(WriteFailure::Problem(error.text())),
            };
            let answer = send_write(&client, request).await;
            if let Some(failure) = answer.failure() {
                return Err(failure);
            }
            if !order.dry_run {
                on_written.run(());
                load();
            }
            Ok(ScaleOutcome::of(&order, answer.status, answer.object.as_ref()))
        })
    });
    let wanted = Memo::new(move |_| parse_replicas(&replicas.get()));
    Ok(UseScale { facts, replicas, wanted, send })
}
