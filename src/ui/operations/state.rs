//! `use_operation`: one operation on one object as signals for its panel. It reads the object
//! (the plan's first request) when the panel opens, plans the write from it and the user's
//! choices, and sends exactly the write shown; after a write it reads the object again, so that
//! the plan shown is always the one the object as it is now would get.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::client::answer::Answer;
use crate::client::error::ApiError;
use crate::client::handle::use_client;
use crate::client::operations::{read_for, send_plan};
use crate::model::operations::{
    default_job_name, plan_with, revisions, Choices, Operation, OperationError, Plan, Revision, Target,
};

/// What the panel shows before anything is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Preview {
    /// The object is being read.
    Reading,
    /// The read failed.
    Unreadable(ApiError),
    /// kubectl would send nothing (or refuse): why.
    Refused(OperationError),
    /// The requests that will be sent.
    Ready(Plan),
}

/// The answer to a write sent, and whether it was a dry run.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub dry_run: bool,
    pub answer: Answer,
}

impl Sent {
    pub fn succeeded(&self) -> bool {
        (200..300).contains(&self.answer.status)
    }

    /// The name of the object the server answered with (the Job made by Run now).
    pub fn object_name(&self) -> Option<String> {
        self.answer.object.as_ref()?.at(&["metadata", "name"]).and_then(Value::as_str).map(str::to_owned)
    }
}

/// The signals of one operation's panel.
#[derive(Clone, Copy)]
pub struct OperationState {
    pub preview: Signal<Preview>,
    /// Dry run and the Job's name.
    pub choices: RwSignal<Choices>,
    pub sending: Signal<bool>,
    pub sent: Signal<Option<Sent>>,
    /// Reads the object again (and plans again).
    pub read_again: Callback<()>,
    /// Sends the write of the plan shown.
    pub send: Callback<()>,
    /// The workload's revisions (a Deployment's ReplicaSets, a StatefulSet's or DaemonSet's
    /// ControllerRevisions), oldest first, when the operation read them (undo).
    pub revisions: Signal<Vec<Revision>>,
}

/// Seconds since the epoch, from the browser's clock (`Instant` panics on wasm32).
fn now_seconds() -> i64 {
    (js_sys::Date::now() / 1000.0).floor() as i64
}

/// The state of `operation` on `target`; `on_written` runs after a write that was not a dry run
/// succeeded.
pub fn use_operation(target: Target, operation: Operation, on_written: Callback<()>) -> OperationState {
    let client = use_client();
    let kind = target.workload;
    let object = RwSignal::new(None::<(Result<(Value, Option<Value>), ApiError>, i64)>);
    let job_name =
        if operation.takes_name() { default_job_name(&target.object.name, now_seconds()) } else { String::new() };
    let choices = RwSignal::new(Choices { dry_run: false, job_name, ..Choices::default() });
    let sending = RwSignal::new(false);
    let sent = RwSignal::new(None::<Sent>);
    let read_again = {
        let (client, target) = (client.clone(), target.clone());
        Callback::new(move |_| {
            let (client, target) = (client.clone(), target.clone());
            object.set(None);
            client.tasks().spawn(async move {
                let read = read_for(&client, &target, operation).await;
                object.try_set(Some((read, now_seconds())));
            });
        })
    };
    read_again.run(());
    let preview = Memo::new(move |_| match object.get() {
        None => Preview::Reading,
        Some((Err(error), _)) => Preview::Unreadable(error),
        Some((Ok((value, related)), now)) => {
            match choices.with(|c| plan_with(operation, &target, &value, related.as_ref(), c, now)) {
                Ok(plan) => Preview::Ready(plan),
                Err(refused) => Preview::Refused(refused),
            }
        }
    });
    let send = Callback::new(move |_| {
        let Preview::Ready(plan) = preview.get_untracked() else { return };
        let dry_run = choices.with_untracked(|c| c.dry_run) && operation.offers_dry_run();
        let client = client.clone();
        sending.set(true);
        sent.set(None);
        client.clone().tasks().spawn(async move {
            let answer = send_plan(&client, &plan).await;
            let done = Sent { dry_run, answer };
            let changed = done.succeeded() && !dry_run;
            sending.try_set(false);
            sent.try_set(Some(done));
            if changed {
                on_written.run(());
                read_again.run(());
            }
        });
    });
    let revisions = Memo::new(move |_| {
        object.with(|read| match read {
            Some((Ok((workload, Some(list))), _)) => revisions(kind, workload, list).unwrap_or_default(),
            _ => Vec::new(),
        })
    });
    OperationState {
        preview: preview.into(),
        choices,
        sending: sending.into(),
        sent: sent.into(),
        read_again,
        send,
        revisions: revisions.into(),
    }
}
