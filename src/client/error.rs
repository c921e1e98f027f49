//! What a request to the API answered when it did not succeed, as a type the views match on
//! ([`ApiError::is_not_found`], [`ApiError::status`]) rather than a sentence they parse.

use crate::api::view::status::Status;
use crate::client::fetch::ClientError;
use crate::i18n::{Localized, Msg, Text};

/// A failed request: not sent or not answered, a `Status` the server answered, an HTTP failure
/// without a `Status`, or a body the app could not read.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// Nothing came back (network, an invalid request, read-only mode).
    NotSent(ClientError),
    /// The server answered a failure `Status` (`code`, `reason`, `message`, `details`).
    Status(Box<Status>),
    /// The server answered a failure without a `Status` body (a proxy, a plain-text 404).
    Http { code: u16, status_text: String, excerpt: String },
    /// The answer's body could not be read as what the request asked for.
    Undecodable { code: u16, message: Text },
}

impl ApiError {
    /// The HTTP status code, when something answered.
    pub fn code(&self) -> Option<u16> {
        match self {
            ApiError::NotSent(_) => None,
            ApiError::Status(status) => Some(status.code),
            ApiError::Http { code, .. } | ApiError::Undecodable { code, .. } => Some(*code),
        }
    }

    /// The server's `Status`, when it sent one.
    pub fn status(&self) -> Option<&Status> {
        match self {
            ApiError::Status(status) => Some(status),
            _ => None,
        }
    }

    /// 404 Not Found: the object (or the type) is not there.
    pub fn is_not_found(&self) -> bool {
        self.code() == Some(404)
    }

    /// 409 Conflict: the object changed since it was read (or already exists).
    pub fn is_conflict(&self) -> bool {
        self.code() == Some(409)
    }

    /// 403 Forbidden: the user may not do this.
    pub fn is_forbidden(&self) -> bool {
        self.code() == Some(403)
    }
}

impl Localized for ApiError {
    fn text(&self) -> Text {
        match self {
            ApiError::NotSent(error) => error.text(),
            ApiError::Status(status) => {
                Text::verbatim(format!("{} {}: {}", status.code, status.reason, status.message))
            }
            ApiError::Http { code, status_text, excerpt } if excerpt.is_empty() => {
                Text::new(Msg::HttpWithoutBody).with("status", format!("HTTP {code} {status_text}"))
            }
            ApiError::Http { code, status_text, excerpt } => {
                Text::verbatim(format!("HTTP {code} {status_text}: {excerpt}"))
            }
            ApiError::Undecodable { code, message } => {
                Text::new(Msg::HttpBodyUnreadable).with("status", format!("HTTP {code}")).with_text("error", message)
            }
        }
    }
}

crate::localized_display!(ApiError);

impl std::error::Error for ApiError {}

impl From<ClientError> for ApiError {
    fn from(error: ClientError) -> Self {
        ApiError::NotSent(error)
    }
}
