//! `use_subresource`: the driver of an object's subresource panel. Choosing one asks the model
//! what it opens ([`crate::model::subresource::opens`]); a read is sent by the client, and its
//! answer kept as a document, as the server's answer, or as a typed problem. The reads belong to
//! the panel (dropped with it), and an answer that comes after another choice is dropped: what
//! the panel shows is always the last choice's.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::request::RequestError;
use crate::api::view::status::Status;
use crate::client::fetch::ClientError;
use crate::client::handle::use_client;
use crate::client::task::Tasks;
use crate::i18n::{Localized, Text};
use crate::model::subresource::{answer, opens, Answer, Opens};

/// Why a subresource has nothing to show.
#[derive(Debug, Clone, PartialEq)]
pub enum SubresourceProblem {
    /// Its request could not be made (nothing was sent).
    NotSent(RequestError),
    /// No answer came.
    Client(ClientError),
    /// An answer came that could not be decoded.
    Undecodable(Text),
}

impl Localized for SubresourceProblem {
    fn text(&self) -> Text {
        match self {
            SubresourceProblem::NotSent(e) => e.text(),
            SubresourceProblem::Client(e) => e.text(),
            SubresourceProblem::Undecodable(text) => text.clone(),
        }
    }
}

/// What the panel shows for the chosen subresource.
#[derive(Debug, Clone)]
pub enum Shown {
    /// The pod's log view.
    Log,
    /// A terminal on the subresource named.
    Terminal(String),
    /// What a read gave.
    Document(Value),
    /// The Status the server answered with.
    Status(Box<Status>),
    /// An answer that is neither: its HTTP status code and text.
    Code(u16, String),
    Problem(SubresourceProblem),
}

/// What [`use_subresource`] gives the panel.
#[derive(Clone, Copy)]
pub struct UseSubresource {
    /// The subresource chosen last.
    pub chosen: ReadSignal<Option<String>>,
    /// What it shows: `None` while a read is on its way.
    pub shown: ReadSignal<Option<Shown>>,
    choose: Callback<String>,
}

impl UseSubresource {
    /// Chooses `subresource`: opens its view, or sends its read.
    pub fn choose(&self, subresource: String) {
        self.choose.run(subresource);
    }
}

/// The subresource panel's driver for object `name` of `resource`, opened at the log when
/// `open_log`.
pub fn use_subresource(
    resource: ResourceType,
    namespace: Option<String>,
    name: String,
    open_log: bool,
) -> UseSubresource {
    let at_log = open_log && resource.subresources.iter().any(|s| s.name == "log");
    let chosen = RwSignal::new(at_log.then(|| "log".to_owned()));
    let shown = RwSignal::new(at_log.then_some(Shown::Log));
    let client = use_client();
    let tasks = Tasks::for_current_owner();
    // Each choice's number: an answer for an earlier one is not shown.
    let current = StoredValue::new(0u64);
    let choose = Callback::new(move |subresource: String| {
        let turn = current.get_value() + 1;
        current.set_value(turn);
        chosen.set(Some(subresource.clone()));
        let request = match opens(&resource, namespace.as_deref(), &name, &subresource) {
            Ok(Opens::Log) => return shown.set(Some(Shown::Log)),
            Ok(Opens::Terminal(subresource)) => return shown.set(Some(Shown::Terminal(subresource))),
            Err(e) => return shown.set(Some(Shown::Problem(SubresourceProblem::NotSent(e)))),
            Ok(Opens::Read(request)) => request,
        };
        shown.set(None);
        let client = client.clone();
        tasks.spawn(async move {
            let answer = match client.send(request).await {
                Err(e) => Shown::Problem(SubresourceProblem::Client(e)),
                Ok(fetched) => match fetched.decoded() {
                    Ok(decoded) => match answer(decoded, fetched.response.is_success()) {
                        Answer::Document(document) => Shown::Document(document),
                        Answer::Status(status) => Shown::Status(status),
                        Answer::Other => Shown::Code(fetched.response.status, fetched.response.status_text.clone()),
                    },
                    Err(text) => Shown::Problem(SubresourceProblem::Undecodable(text.clone())),
                },
            };
            if current.try_get_value() == Some(turn) {
                shown.set(Some(answer));
            }
        });
    });
    UseSubresource { chosen: chosen.read_only(), shown: shown.read_only(), choose }
}
