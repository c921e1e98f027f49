//! The reflector's side of the edge: the [`Action`]s the edge executes (requests and waits,
//! each with an [`OpId`]), the [`Input`]s it reports back (list pages, watch events, failures,
//! timers), how a request failed ([`Failure`]), and the connection state a status line shows.

use std::fmt;
use std::sync::Arc;

use crate::body::{decode_body, BodyError, Decoded};
use crate::codec::protobuf_full::{InFullDecoder, InFullError};
use crate::codec::value::{Map, Value};
use crate::error::Format;
use crate::media_type::MediaType;
use crate::request::Request;
use crate::view::list::ObjectList;
use crate::view::shape::ViewError;
use crate::view::status::{is_status, retry_after_header, status_from_document, Status, StatusExt};
use crate::view::table::Table;
use crate::watch::lazy_list::{scan_list, LazyList};
use crate::watch::{is_table, StreamError, UnsupportedStream, WatchEvent};

/// The id of one operation the edge runs for the reflector (a request or a wait), so that input
/// for an operation that was cancelled or superseded is recognised and ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub(crate) u64);

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What a request is for, so the edge knows how to read its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// Read the whole body; feed [`Input::ListPage`] or [`Input::ListFailed`]
    /// ([`Input::from_list_response`] does both).
    ListPage,
    /// Stream the body through a [`WatchDecoder`](crate::watch::WatchDecoder); feed
    /// [`Input::WatchOpened`], each [`Input::WatchEvent`], then [`Input::WatchEnded`] (or
    /// [`Input::WatchFailed`] for a non-2xx answer or no answer).
    StreamingList,
    /// Same as [`RequestKind::StreamingList`]: a watch from the resume point.
    Watch,
}

/// Why the reflector waits before retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// The server closed the watch (`timeoutSeconds`, or its own limit).
    WatchClosed,
    /// The watch stream broke, ended inside an event, or could not be decoded.
    WatchCut,
    /// The watch sent an ERROR event other than 410.
    WatchError,
    /// The watch request failed (no answer, or an HTTP error).
    WatchFailed,
    /// A list page request failed.
    ListFailed,
    /// 410 Gone again before any successful watch event: the relist waits.
    Expired,
}

impl fmt::Display for WaitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WaitReason::WatchClosed => "the watch ended",
            WaitReason::WatchCut => "the watch stream broke",
            WaitReason::WatchError => "the watch sent an error",
            WaitReason::WatchFailed => "the watch request failed",
            WaitReason::ListFailed => "the list request failed",
            WaitReason::Expired => "the resource version expired again",
        })
    }
}

/// Something the edge must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Execute `request` and report its outcome with inputs carrying `op`.
    Send { op: OpId, request: Request, kind: RequestKind },
    /// Abort operation `op` (a request or a wait); input for it is ignored from now on.
    Cancel(OpId),
    /// Wait `ms` milliseconds, then feed [`Input::TimerFired`] with `op`.
    Wait { op: OpId, ms: u64, reason: WaitReason },
}

/// Why a sync (a paged list or a streaming list) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncReason {
    /// The first sync of this reflector.
    Initial,
    /// A 410 Gone: the resume point or continue token expired, the cache is stale.
    Expired,
    /// A 504 "Too large resource version": the server does not know the resume point (it was
    /// restarted or replaced, its resourceVersions went back), the cache may be another server's.
    VersionUnknown,
}

/// The reflector's connection, as a status line shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionState {
    /// Fetching list page `page` (1-based); `remaining` is the server's `remainingItemCount`.
    Listing {
        page: u32,
        remaining: Option<i64>,
        reason: SyncReason,
    },
    /// A streaming list is sending the initial state (`open` once the server answered).
    StreamingInitial {
        open: bool,
        reason: SyncReason,
    },
    /// Watching; `open` once the server answered.
    Watching {
        open: bool,
    },
    /// Waiting `ms` before retry number `attempt`.
    Reconnecting {
        ms: u64,
        attempt: u32,
        reason: WaitReason,
    },
    Paused,
    Stopped,
}

impl fmt::Display for SyncReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SyncReason::Initial => "listing",
            SyncReason::Expired => "relisting after 410 Gone",
            SyncReason::VersionUnknown => "relisting: the server does not know the resource version",
        })
    }
}

impl fmt::Display for ConnectionState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionState::Listing { page, remaining: Some(n), reason } => {
                write!(f, "{reason} (page {page}, {n} more)")
            }
            ConnectionState::Listing { page, remaining: None, reason } => write!(f, "{reason} (page {page})"),
            ConnectionState::StreamingInitial { open: true, reason } => write!(f, "{reason} (streaming)"),
            ConnectionState::StreamingInitial { open: false, reason } => {
                write!(f, "{reason} (streaming, waiting for the server)")
            }
            ConnectionState::Watching { open: false } => f.write_str("connecting the watch"),
            ConnectionState::Watching { open: true } => f.write_str("watching"),
            ConnectionState::Reconnecting { ms, attempt, reason } => {
                write!(f, "reconnecting in {} s (attempt {attempt}): {reason}", seconds(*ms))
            }
            ConnectionState::Paused => f.write_str("paused"),
            ConnectionState::Stopped => f.write_str("stopped"),
        }
    }
}

/// Milliseconds as seconds with one decimal, as a status line shows a wait.
pub fn seconds(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}

/// How a request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Failure {
    /// The server answered with a non-2xx status, maybe with a `Status` body and `Retry-After`.
    #[error("{}", http_text(*.code, .status.as_deref()))]
    Http { code: u16, status: Option<Box<Status>>, retry_after_seconds: Option<u32> },
    /// No answer (network error, aborted, refused): the browser's words, in the client's sentence.
    #[error("no response: {0}")]
    Network(EdgeError),
    /// A 2xx answer whose body is not what the request asks for.
    #[error("undecodable response: {0}")]
    Undecodable(Undecodable),
}

/// Why a 2xx answer's body is not what the request asks for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Undecodable {
    #[error("expected a Content-Type, found none")]
    NoContentType,
    #[error("expected a Content-Type on a watch response, found none")]
    NoContentTypeOnWatch,
    /// A protobuf list without the decoder of protobuf objects.
    #[error("expected a JSON, YAML or CBOR list, found {0}")]
    ExpectedList(Box<MediaType>),
    #[error(transparent)]
    Body(#[from] BodyError),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    InFull(#[from] InFullError),
    #[error(transparent)]
    Stream(#[from] UnsupportedStream),
}

/// An error of the edge that runs the reflector's requests: no answer, or a connection that
/// broke. The core does not look inside: its `Display` is the edge's English, and
/// [`EdgeError::get_ref`] hands the edge its own error back (to show it in the page's language).
#[derive(Clone)]
pub struct EdgeError(Arc<dyn std::error::Error + Send + Sync>);

/// An edge's plain words (the browser's message), as an [`EdgeError`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Words(String);

impl EdgeError {
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> EdgeError {
        EdgeError(Arc::new(error))
    }

    /// The error the edge gave.
    pub fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self.0.as_ref()
    }
}

impl From<String> for EdgeError {
    fn from(words: String) -> EdgeError {
        EdgeError::new(Words(words))
    }
}

impl From<&str> for EdgeError {
    fn from(words: &str) -> EdgeError {
        EdgeError::new(Words(words.to_owned()))
    }
}

impl fmt::Debug for EdgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EdgeError").field(&self.0.to_string()).finish()
    }
}

impl fmt::Display for EdgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for EdgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Two edge errors are the same when they say the same (the core compares, never inspects).
impl PartialEq for EdgeError {
    fn eq(&self, other: &EdgeError) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

/// A failed answer as a status line shows it: `HTTP 410 Expired: too old resource version`.
pub fn http_text(code: u16, status: Option<&Status>) -> String {
    match status {
        Some(s) if !s.message.is_empty() => format!("HTTP {code} {}: {}", s.reason, s.message),
        Some(s) if !s.reason.is_empty() => format!("HTTP {code} {}", s.reason),
        _ => format!("HTTP {code}"),
    }
}

/// A `Status` as a problem shows it: `410 Expired: too old resource version`.
pub fn status_text(status: &Status) -> String {
    match (status.reason.is_empty(), status.message.is_empty()) {
        (_, false) => format!("{} {}: {}", status.code, status.reason, status.message),
        (false, true) => format!("{} {}", status.code, status.reason),
        (true, true) => status.code.to_string(),
    }
}

impl Failure {
    /// A non-2xx response: its code, its `Retry-After` header (delay-seconds; the HTTP-date form
    /// needs a clock and is ignored) and its body, read as a `Status` when it is one.
    pub fn from_response(
        code: u16,
        retry_after: Option<&str>,
        content_type: Option<&MediaType>,
        body: &[u8],
    ) -> Failure {
        let status = content_type
            .and_then(|ct| decode_body(ct, body).ok())
            .and_then(|decoded| match decoded {
                Decoded::Document(document) if is_status(&document) => status_from_document(&document).ok(),
                _ => None,
            })
            .map(Box::new);
        let retry_after_seconds = retry_after.and_then(retry_after_header);
        Failure::Http { code, status, retry_after_seconds }
    }

    /// The HTTP status code, if there was an answer.
    pub fn code(&self) -> Option<u16> {
        match self {
            Failure::Http { code, .. } => Some(*code),
            Failure::Network(_) | Failure::Undecodable(_) => None,
        }
    }

    /// How long the server asked to wait: the `Retry-After` header, else the Status's
    /// `details.retryAfterSeconds`.
    pub fn retry_after_seconds(&self) -> Option<u32> {
        match self {
            Failure::Http { retry_after_seconds: Some(s), .. } => Some(*s),
            Failure::Http { status: Some(status), .. } => status.retry_after_seconds(),
            _ => None,
        }
    }

    /// 410 Gone: the resource version or continue token is too old.
    pub fn is_expired(&self) -> bool {
        match self {
            Failure::Http { code: 410, .. } => true,
            Failure::Http { status: Some(status), .. } => status.code == 410,
            _ => false,
        }
    }

    /// 400 or 422: how a server without streaming lists refuses `sendInitialEvents`.
    pub(crate) fn refuses_parameters(&self) -> bool {
        matches!(self.code(), Some(400 | 422))
    }
}

/// How a watch stream ended.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEnd {
    /// The server closed the stream between events (`timeoutSeconds`, or its own limit).
    Closed,
    /// The connection broke (the browser's words), or the stream ended inside an event.
    Cut(StreamCut),
    /// An event could not be framed or decoded; the edge stopped reading.
    Malformed(StreamError),
}

impl WatchEnd {
    /// The end a decoder's `finish()` reports: a clean end, or a stream truncated inside an event.
    pub fn from_finish(result: Result<(), StreamError>) -> WatchEnd {
        match result {
            Ok(()) => WatchEnd::Closed,
            Err(error @ StreamError::Truncated { .. }) => WatchEnd::Cut(StreamCut::Truncated(error)),
            Err(error) => WatchEnd::Malformed(error),
        }
    }
}

/// Why a watch stream stopped short.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StreamCut {
    /// The stream ended inside an event.
    #[error(transparent)]
    Truncated(StreamError),
    /// The connection broke: the edge's words.
    #[error(transparent)]
    Connection(EdgeError),
}

/// What the edge saw. Inputs carry the [`OpId`] of the action they answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A list page arrived (2xx) and decoded.
    ListPage { op: OpId, list: LazyList },
    /// A list page request failed.
    ListFailed { op: OpId, failure: Failure },
    /// A watch (or streaming list) answered 2xx; events follow.
    WatchOpened { op: OpId },
    /// One decoded event of a watch.
    WatchEvent { op: OpId, event: WatchEvent },
    /// The watch stream ended.
    WatchEnded { op: OpId, end: WatchEnd },
    /// The watch request failed before a stream began (non-2xx, or no answer).
    WatchFailed { op: OpId, failure: Failure },
    /// The wait `op` elapsed.
    TimerFired { op: OpId },
    /// Stop talking to the server for now; the cache stays.
    Pause,
    /// Continue after [`Input::Pause`] where the reflector left off.
    Resume,
    /// Stop for good; the cache stays readable.
    Stop,
}

impl Input {
    /// The input for the complete response to list page `op`: a page when the status is 2xx and
    /// the body decodes as a collection, a failure otherwise. A protobuf list is read with
    /// `protobuf` (its envelope's list decoded in full, as the JSON list); without it, it is a
    /// failure that says a list was expected.
    pub fn from_list_response(
        op: OpId,
        code: u16,
        retry_after: Option<&str>,
        content_type: Option<&MediaType>,
        body: &[u8],
        protobuf: Option<InFullDecoder>,
    ) -> Input {
        if !(200..300).contains(&code) {
            return Input::ListFailed { op, failure: Failure::from_response(code, retry_after, content_type, body) };
        }
        let Some(content_type) = content_type else {
            let failure = Failure::Undecodable(Undecodable::NoContentType);
            return Input::ListFailed { op, failure };
        };
        // JSON and CBOR lists (not Tables) are read lazily: items stay bytes of the body.
        let table = content_type.conversion.as_ref().is_some_and(|c| c.kind == "Table");
        if let Some(format @ (Format::Json | Format::Cbor)) = content_type.essence.format().filter(|_| !table) {
            let shared: Arc<[u8]> = Arc::from(body);
            if let Some(list) = scan_list(format, &shared) {
                return Input::ListPage { op, list };
            }
        }
        let list = match decode_body(content_type, body) {
            Ok(Decoded::Document(document)) if is_table(&document) => {
                table_rows_as_list(&document).map_err(Undecodable::from)
            }
            Ok(Decoded::Document(document)) => ObjectList::from_document(&document).map_err(Undecodable::from),
            Ok(Decoded::Envelope(envelope)) => match protobuf {
                Some(in_full) => in_full
                    .object(&envelope)
                    .map_err(Undecodable::from)
                    .and_then(|document| ObjectList::from_document(&document).map_err(Undecodable::from)),
                None => Err(Undecodable::ExpectedList(Box::new(content_type.clone()))),
            },
            Err(error) => Err(Undecodable::from(error)),
        };
        match list {
            Ok(list) => Input::ListPage { op, list: list.into() },
            Err(message) => Input::ListFailed { op, failure: Failure::Undecodable(message) },
        }
    }
}

/// A list page that came back as a server-side `Table`, as a list whose items are one-row Tables
/// (the shape of a Table watch event): each with the page's columns only on the first item, and
/// `metadata.resourceVersion` of its row's object. The page's `ListMeta` (resourceVersion,
/// continue, remainingItemCount) is kept.
pub fn table_rows_as_list(table: &Value) -> Result<ObjectList, ViewError> {
    // Validates the whole Table (columns, rows, row objects) before taking it apart.
    let checked = Table::from_document(table)?;
    let rows = table.get("rows").and_then(Value::as_array).unwrap_or_default();
    let columns = table.get("columnDefinitions").cloned().unwrap_or(Value::Null);
    let items = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut metadata = Map::new();
            if let Some(rv) = row.at(&["object", "metadata", "resourceVersion"]) {
                metadata.insert("resourceVersion", rv.clone());
            }
            let mut one = Map::new();
            one.insert("kind", Value::String("Table".to_string()));
            one.insert("apiVersion", Value::String(checked.api_version.clone()));
            one.insert("metadata", Value::Object(metadata));
            one.insert("columnDefinitions", if i == 0 { columns.clone() } else { Value::Null });
            one.insert("rows", Value::Array(vec![row.clone()]));
            Value::Object(one)
        })
        .collect();
    Ok(ObjectList { api_version: checked.api_version, kind: "Table".to_string(), metadata: checked.metadata, items })
}
