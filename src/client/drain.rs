//! `use_drain`: `kubectl drain` of one node from its screen, run with `model::operations::drain`'s
//! pieces: before anything is sent, the node's pods (every page) and what kubectl's filters make
//! of each under the options chosen; on Start the cordon (unless the node already is), the pods
//! listed again, nothing evicted when a filter refuses, else each pod's [`PodEviction`] run to its
//! end, all at once as kubectl runs them, each step's answer handed to the model, which says what
//! to send next and when. Cancel drops what is still running and says that the node stays
//! cordoned. The work belongs to a [`Tasks`] of its own, ended on Cancel and with the panel.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::client::answer::WriteFailure;
use crate::client::error::ApiError;
use crate::client::handle::{use_client, Client};
use crate::client::operations::{read_target, send_plan};
use crate::client::task::{sleep, Tasks};
use crate::i18n::{Localized, Msg, Text};
use crate::model::operations::drain::{
    evicted, pods_page, read_page, refusals, DrainError, DrainOptions, Next, NodePod, Phase, PodEviction, Refusal,
};
use crate::model::operations::{plan, Choices, Operation, OperationError, Target};

/// Why a drain could not go on.
#[derive(Debug, Clone, PartialEq)]
pub enum DrainProblem {
    /// The node or a page of its pods could not be read.
    Read(ApiError),
    /// A page of pods was not a list.
    Page(DrainError),
    /// The cordon could not be planned.
    Plan(OperationError),
    /// The cordon was refused or failed.
    Cordon(WriteFailure),
}

impl Localized for DrainProblem {
    fn text(&self) -> Text {
        match self {
            DrainProblem::Read(error) => error.text(),
            DrainProblem::Page(error) => error.text(),
            DrainProblem::Plan(error) => error.text(),
            DrainProblem::Cordon(WriteFailure::Refused(status)) => {
                Text::new(Msg::OpDrainCordonFailed).with("why", format!("{} {}", status.code, status.message))
            }
            DrainProblem::Cordon(WriteFailure::Problem(text)) => {
                Text::new(Msg::OpDrainCordonFailed).with_text("why", text.clone())
            }
        }
    }
}

/// Where the drain is.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Nothing sent: the pods and the filters' decisions are shown.
    Preview,
    Cordoning,
    Listing,
    /// A filter refused: nothing was evicted (the pods, by reason).
    Refused(Vec<(Refusal, Vec<String>)>),
    Evicting,
    /// Every eviction ended (see the tally).
    Finished,
    Cancelled,
    Stopped(DrainProblem),
}

/// What [`use_drain`] gives the panel.
#[derive(Clone, Copy)]
pub struct UseDrain {
    pub options: RwSignal<DrainOptions>,
    /// The pages of the node's pods as listed before Start (and again at Start).
    pages: RwSignal<Option<Result<Vec<Value>, DrainProblem>>>,
    /// Those pods with the filters' decisions under the options (decided again, not listed
    /// again, when an option changes).
    pub pods: Memo<Option<Result<Vec<NodePod>, DrainProblem>>>,
    pub stage: RwSignal<Stage>,
    /// Whether this drain cordoned the node (or found it cordoned): what Cancel leaves behind.
    pub cordoned: RwSignal<bool>,
    pub evictions: RwSignal<Vec<PodEviction>>,
    pub start: Callback<()>,
    pub cancel: Callback<()>,
    pub read_again: Callback<()>,
}

/// The drain of `target` (a Node); `on_written` runs after the cordon changed it.
pub fn use_drain(target: Target, on_written: Callback<()>) -> UseDrain {
    let client = use_client();
    let options = RwSignal::new(DrainOptions::default());
    let pages = RwSignal::new(None::<Result<Vec<Value>, DrainProblem>>);
    let pods = Memo::new(move |_| {
        pages.with(|pages| {
            pages.as_ref().map(|pages| match pages {
                Ok(pages) => options.with(|o| decide_pages(pages, o)),
                Err(problem) => Err(problem.clone()),
            })
        })
    });
    let drain = UseDrain {
        options,
        pages,
        pods,
        stage: RwSignal::new(Stage::Preview),
        cordoned: RwSignal::new(false),
        evictions: RwSignal::new(Vec::new()),
        start: Callback::new(|_| {}),
        cancel: Callback::new(|_| {}),
        read_again: Callback::new(|_| {}),
    };
    let run = StoredValue::new_local(None::<Tasks>);
    let end_run = move || {
        if let Some(tasks) = run.try_update_value(Option::take).flatten() {
            tasks.end();
        }
    };
    on_cleanup(end_run);
    let node = target.object.name.clone();
    let read_again = {
        let (client, node) = (client.clone(), node.clone());
        Callback::new(move |_| {
            let (client, node) = (client.clone(), node.clone());
            drain.pages.set(None);
            client.tasks().spawn(async move {
                let pages = list_pages(&client, &node).await;
                drain.pages.try_set(Some(pages));
            });
        })
    };
    read_again.run(());
    let start = {
        let client = client.clone();
        Callback::new(move |_| {
            end_run();
            let tasks = Tasks::unowned();
            run.set_value(Some(tasks.clone()));
            let (client, target) = (client.clone(), target.clone());
            let options = drain.options.get_untracked();
            drain.evictions.set(Vec::new());
            drain.cordoned.set(false);
            tasks.clone().spawn(async move {
                let stage = drive(&client, &target, options, drain, on_written).await;
                drain.stage.try_set(stage);
            });
        })
    };
    let cancel = Callback::new(move |_| {
        end_run();
        drain.stage.set(Stage::Cancelled);
    });
    UseDrain { start, cancel, read_again, ..drain }
}

/// Every page of the node's pods.
async fn list_pages(client: &Client, node: &str) -> Result<Vec<Value>, DrainProblem> {
    let mut pages = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let (_, page) = client.document(pods_page(node, next.as_deref())).await.map_err(DrainProblem::Read)?;
        let (_, token) = read_page(&page, &DrainOptions::default()).map_err(DrainProblem::Page)?;
        pages.push(page);
        match token {
            Some(token) => next = Some(token),
            None => return Ok(pages),
        }
    }
}

/// The pods of `pages`, decided under `options`.
fn decide_pages(pages: &[Value], options: &DrainOptions) -> Result<Vec<NodePod>, DrainProblem> {
    let mut pods = Vec::new();
    for page in pages {
        pods.extend(read_page(page, options).map_err(DrainProblem::Page)?.0);
    }
    Ok(pods)
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// The drain from the cordon to the last eviction's end; the stage it ended in.
async fn drive(
    client: &Client,
    target: &Target,
    options: DrainOptions,
    drain: UseDrain,
    on_written: Callback<()>,
) -> Stage {
    drain.stage.try_set(Stage::Cordoning);
    let node = match read_target(client, target).await {
        Ok(node) => node,
        Err(error) => return Stage::Stopped(DrainProblem::Read(error)),
    };
    let choices = Choices { dry_run: options.dry_run, ..Choices::default() };
    match plan(Operation::Cordon, target, &node, &choices, (now_ms() / 1000) as i64) {
        Ok(cordon) => {
            let answer = send_plan(client, &cordon).await;
            if let Some(failure) = answer.failure() {
                return Stage::Stopped(DrainProblem::Cordon(failure));
            }
            if !options.dry_run {
                drain.cordoned.try_set(true);
                on_written.run(());
            }
        }
        // kubectl: "node/NAME already cordoned", and it drains on.
        Err(OperationError::AlreadyCordoned) => {
            drain.cordoned.try_set(true);
        }
        Err(error) => return Stage::Stopped(DrainProblem::Plan(error)),
    }
    drain.stage.try_set(Stage::Listing);
    let pods = match list_pages(client, &target.object.name).await {
        Ok(pages) => {
            let pods = decide_pages(&pages, &options);
            drain.pages.try_set(Some(Ok(pages)));
            match pods {
                Ok(pods) => pods,
                Err(problem) => return Stage::Stopped(problem),
            }
        }
        Err(problem) => return Stage::Stopped(problem),
    };
    let refused = refusals(&pods);
    if !refused.is_empty() {
        return Stage::Refused(
            refused
                .into_iter()
                .map(|(reason, pods)| (reason, pods.iter().map(|p| format!("{}/{}", p.namespace, p.name)).collect()))
                .collect(),
        );
    }
    drain.stage.try_set(Stage::Evicting);
    // An Eviction's path is made of the pod's namespace and name as the server listed them,
    // which are always valid path segments: `start` cannot fail for them.
    let started: Vec<(PodEviction, Next)> =
        evicted(&pods).into_iter().filter_map(|pod| PodEviction::start(pod.clone(), options, now_ms()).ok()).collect();
    drain.evictions.try_set(started.iter().map(|(e, _)| e.clone()).collect());
    let runs = started.into_iter().enumerate().map(|(i, (eviction, next))| {
        let client = client.clone();
        evict(client, eviction, next, move |state| {
            drain.evictions.try_update(|all| {
                if let Some(slot) = all.get_mut(i) {
                    *slot = state;
                }
            });
        })
    });
    futures::future::join_all(runs).await;
    Stage::Finished
}

/// One pod's eviction to its end: each answer to the model, which says what comes next.
async fn evict(client: Client, mut eviction: PodEviction, mut next: Next, publish: impl Fn(PodEviction)) {
    loop {
        let request = match next {
            Next::Finished => return,
            Next::Send(request) => request,
            Next::SendAt(request, at_ms) => {
                sleep(Duration::from_millis(at_ms.saturating_sub(now_ms()))).await;
                eviction.retrying();
                publish(eviction.clone());
                request
            }
        };
        let evicting = matches!(eviction.phase, Phase::Evicting { .. });
        let (status, body) = match client.send(request).await {
            Ok(fetched) => {
                let body: Option<Value> = fetched.decoded().as_ref().ok().map(|d| d.to_value());
                (fetched.response.status, body)
            }
            Err(error) => {
                eviction.phase = Phase::Failed { status: 0, message: error.to_string() };
                publish(eviction);
                return;
            }
        };
        let answered = if evicting {
            eviction.evicted(status, body.as_ref(), now_ms())
        } else {
            eviction.read(status, body.as_ref(), now_ms())
        };
        next = match answered {
            Ok(next) => next,
            Err(error) => {
                eviction.phase = Phase::Failed { status, message: error.to_string() };
                Next::Finished
            }
        };
        publish(eviction.clone());
    }
}
