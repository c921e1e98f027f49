//! What one step of the reflector gives: the actions to run, the [`Change`]s to show, and the
//! problems it reports ([`ReflectorError`]).

use crate::api::params::ParamsError;
use crate::api::reflector::input::{status_text, Action, ConnectionState, Failure};
use crate::api::reflector::store::ObjectKey;
use crate::api::view::status::Status;
use crate::api::watch::StreamError;
use crate::i18n::{Localized, Msg, Text};

/// What changed, for the UI.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The object with this key was added or replaced in the cache.
    Upsert(ObjectKey),
    /// The object with this key left the cache.
    Delete(ObjectKey),
    /// A sync completed: the cache holds the whole collection (again, after a relist).
    InitialListComplete,
    /// A Table list page or watch event brought (new) column definitions:
    /// [`Reflector::table_columns`].
    Columns,
    /// The connection state changed.
    State(ConnectionState),
    /// Something to show the user; the reflector has already decided what to do about it.
    Problem(ReflectorError),
}

/// The outcome of one step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Step {
    /// To execute in order.
    pub actions: Vec<Action>,
    /// To show, in the order they happened.
    pub changes: Vec<Change>,
}

/// A problem the reflector reports (it keeps going unless it says it stopped).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReflectorError {
    Params(#[from] ParamsError),
    List(Failure),
    Watch(Failure),
    Cut(Text),
    Malformed(#[source] StreamError),
    WatchError(Box<Status>),
    Expired(Expiry),
    StreamingListUnsupported(Text),
    /// A `list item`, `ADDED`, `MODIFIED` or `DELETED` object.
    ObjectWithoutKey(&'static str),
    ListWithoutResourceVersion,
    Columns(Text),
}

/// What a 410 Gone said was too old.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    ContinueToken,
    StreamingListVersion,
    WatchVersion,
}

impl Localized for ReflectorError {
    fn text(&self) -> Text {
        match self {
            ReflectorError::Params(error) => Text::new(Msg::ProblemParams).with_text("error", error),
            ReflectorError::List(failure) => Text::new(Msg::ProblemListFailed).with_text("error", failure),
            ReflectorError::Watch(failure) => Text::new(Msg::ProblemWatchFailed).with_text("error", failure),
            ReflectorError::Cut(error) => Text::new(Msg::ProblemWatchBroke).with_text("error", error),
            ReflectorError::Malformed(error) => Text::new(Msg::ProblemWatchUndecodable).with_text("error", error),
            ReflectorError::WatchError(status) => {
                Text::new(Msg::ProblemWatchSentError).with("status", status_text(status))
            }
            ReflectorError::Expired(what) => Text::new(match what {
                Expiry::ContinueToken => Msg::ProblemContinueTokenExpired,
                Expiry::StreamingListVersion => Msg::ProblemStreamingListVersionExpired,
                Expiry::WatchVersion => Msg::ProblemWatchVersionExpired,
            }),
            ReflectorError::StreamingListUnsupported(why) => {
                Text::new(Msg::ProblemStreamingListUnsupported).with_text("why", why)
            }
            ReflectorError::ObjectWithoutKey(what) => Text::new(Msg::ProblemObjectWithoutKey).with("what", what),
            ReflectorError::ListWithoutResourceVersion => Text::new(Msg::ProblemListWithoutVersion),
            ReflectorError::Columns(error) => Text::new(Msg::ProblemColumns).with_text("error", error),
        }
    }
}

crate::localized_display!(ReflectorError);

impl ReflectorError {
    /// The server's Status behind this problem, if it sent one (a failed list or watch request, or
    /// an ERROR event).
    pub fn status(&self) -> Option<&Status> {
        match self {
            ReflectorError::List(Failure::Http { status: Some(status), .. })
            | ReflectorError::Watch(Failure::Http { status: Some(status), .. })
            | ReflectorError::WatchError(status) => Some(status),
            _ => None,
        }
    }
}

#[cfg(test)]
mod status_tests {
    use super::*;

    #[test]
    fn a_problem_gives_the_status_the_server_sent() {
        let status: Status = serde_json::from_str(
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":403,"reason":"Forbidden","message":"no"}"#,
        )
        .expect("status");
        let http = |status: Option<Status>| Failure::Http {
            code: 403,
            status: status.map(Box::new),
            retry_after_seconds: None,
        };
        assert_eq!(ReflectorError::List(http(Some(status.clone()))).status(), Some(&status));
        assert_eq!(ReflectorError::Watch(http(Some(status.clone()))).status(), Some(&status));
        assert_eq!(ReflectorError::WatchError(Box::new(status.clone())).status(), Some(&status));
        assert_eq!(ReflectorError::List(http(None)).status(), None);
        assert_eq!(ReflectorError::Cut("reset".into()).status(), None);
    }
}
