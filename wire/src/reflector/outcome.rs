//! What one step of the reflector gives: the actions to run, the [`Change`]s to show, and the
//! problems it reports ([`ReflectorError`]).

use std::fmt;

use crate::params::ParamsError;
use crate::reflector::input::{status_text, Action, ConnectionState, Failure, StreamCut};
use crate::reflector::store::ObjectKey;
use crate::view::shape::ViewError;
use crate::view::status::{Status, StatusExt};
use crate::watch::StreamError;

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
    #[error("invalid list or watch parameters: {0}")]
    Params(#[from] ParamsError),
    #[error("list failed: {0}")]
    List(Failure),
    #[error("watch failed: {0}")]
    Watch(Failure),
    #[error("the watch stream broke: {0}")]
    Cut(StreamCut),
    #[error("the watch stream could not be decoded: {0}")]
    Malformed(#[source] StreamError),
    #[error("the watch sent an error: {}", status_text(.0))]
    WatchError(Box<Status>),
    #[error("{0}")]
    Expired(Expiry),
    #[error("the server does not support streaming lists ({0}): falling back to list then watch")]
    StreamingListUnsupported(Fallback),
    /// A `list item`, `ADDED`, `MODIFIED` or `DELETED` object.
    #[error("expected metadata.uid or metadata.name in a {0} object, found neither: ignored")]
    ObjectWithoutKey(&'static str),
    #[error("the list has no metadata.resourceVersion: watching from the most recent state")]
    ListWithoutResourceVersion,
    #[error("expected a Table's columnDefinitions, found something else ({0}): columns not updated")]
    Columns(ViewError),
}

/// What a 410 Gone said was too old, or a 504 that the server does not know the resource version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    ContinueToken,
    StreamingListVersion,
    WatchVersion,
    /// 504 "Too large resource version": newer than the server's own (a restarted or replaced
    /// server).
    VersionTooLarge,
}

impl fmt::Display for Expiry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expiry::ContinueToken => "the continue token expired (410 Gone): relisting",
            Expiry::StreamingListVersion => "the streaming list's resource version expired (410 Gone): relisting",
            Expiry::WatchVersion => "the watch's resource version expired (410 Gone): relisting",
            Expiry::VersionTooLarge => "the server does not know the resource version asked for (504 Too large resource version: a restarted or replaced server): relisting from scratch",
        })
    }
}

/// Why the reflector stopped asking for a streaming list and lists then watches instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Fallback {
    #[error("the stream ended before the initial-events-end bookmark")]
    StreamEnded,
    /// An event of this type came before the bookmark that ends the initial events.
    #[error("a {0} event before the initial-events-end bookmark")]
    EventBeforeBookmark(&'static str),
    /// The server refused `sendInitialEvents` (400 or 422).
    #[error(transparent)]
    Refused(Failure),
}

impl Failure {
    /// Whether the resume point is worthless, and why: a 410 Gone says `what` expired; a 504 "Too
    /// large resource version" says the server does not know it ([`Expiry::VersionTooLarge`]).
    /// Either way client-go relists from scratch (`client-go/tools/cache/reflector.go`:
    /// `isExpiredError(err) || isTooLargeResourceVersionError(err)`), and so does the reflector.
    pub fn expiry(&self, what: Expiry) -> Option<Expiry> {
        match self {
            _ if self.is_expired() => Some(what),
            Failure::Http { status: Some(status), .. } => expiry_of(status, what),
            _ => None,
        }
    }
}

/// What a Status (an answer's, or an in-stream ERROR's) says of the resume point: see
/// [`Failure::expiry`].
pub(crate) fn expiry_of(status: &Status, what: Expiry) -> Option<Expiry> {
    if status.is_expired() {
        Some(what)
    } else if status.is_version_too_large() {
        Some(Expiry::VersionTooLarge)
    } else {
        None
    }
}

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
        assert_eq!(ReflectorError::Cut(StreamCut::Connection("reset".into())).status(), None);
    }
}
