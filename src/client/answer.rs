//! The answer to a write (or to the read before one), as the write tools show it: the status
//! line, the `Warning` headers, and the object or the `Status` that came back.

use crate::api::codec::value::Value;
use crate::api::request::{ObjectRef, Request};
use crate::api::view::status::{visible_controls, Status};
use crate::client::error::ApiError;
use crate::client::handle::Client;
use crate::i18n::{Localized, Msg, Text};
use crate::model::requests;
use crate::model::write::parse_warnings;

/// The answer to one write, as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub status_text: String,
    /// `Warning` header texts.
    pub warnings: Vec<String>,
    /// The object returned (2xx).
    pub object: Option<Value>,
    /// The Status returned (failures, and some deletes).
    pub status_body: Option<Status>,
    /// The request could not be sent, or the answer not read: a catalogue text, shown in the
    /// interface's language.
    pub problem: Option<Text>,
}

/// Why a write did not succeed, as a view renders it: the server's `Status`, or a problem (not
/// sent, read-only, an answer that could not be read, a failure without a `Status`).
#[derive(Debug, Clone, PartialEq)]
pub enum WriteFailure {
    Refused(Box<Status>),
    Problem(Text),
}

impl Answer {
    /// Whether the server accepted the write (a 2xx).
    pub fn succeeded(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Why the write did not succeed, when it did not.
    pub fn failure(&self) -> Option<WriteFailure> {
        if self.succeeded() {
            return None;
        }
        Some(match (&self.status_body, &self.problem) {
            (Some(status), _) => WriteFailure::Refused(Box::new(status.clone())),
            (None, Some(problem)) => WriteFailure::Problem(problem.clone()),
            (None, None) => WriteFailure::Problem(
                Text::new(Msg::WriteAnsweredHttp).with("status", self.status).with("text", self.status_text.clone()),
            ),
        })
    }
}

/// Sends `request` through the client (which refuses writes in read-only mode) and reads the
/// answer.
pub async fn send_write(client: &Client, request: Request) -> Answer {
    let fetched = match client.send(request).await {
        Ok(fetched) => fetched,
        Err(error) => {
            return Answer {
                status: 0,
                status_text: String::new(),
                warnings: Vec::new(),
                object: None,
                status_body: None,
                problem: Some(error.text()),
            }
        }
    };
    // Shown as sent, with any control character a hostile server put in made visible.
    let warnings = fetched
        .response
        .header("warning")
        .map(|header| parse_warnings(header).iter().map(|w| visible_controls(w)).collect())
        .unwrap_or_default();
    let (object, status_body, problem) = match fetched.status_body() {
        Some(Ok(status)) => (None, Some(status), None),
        Some(Err(error)) => (None, None, Some(error.text())),
        None => match fetched.document() {
            Ok(object) => (Some(object), None, None),
            Err(error) if fetched.response.is_success() => (None, None, Some(error.text())),
            // A failure without a Status body: the answer's status line says what happened.
            Err(_) => (None, None, fetched.decoded().as_ref().err().cloned()),
        },
    };
    Answer {
        status: fetched.response.status,
        status_text: fetched.response.status_text.clone(),
        warnings,
        object,
        status_body,
        problem,
    }
}

/// GETs `object` as JSON.
pub async fn read_object(client: &Client, object: &ObjectRef) -> Result<Value, ApiError> {
    let request = requests::read_object(object);
    client.document(request).await.map(|(_, object)| object)
}
