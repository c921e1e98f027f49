//! The reflector (client-go's name; kube-runtime's watcher + store): keeps a local cache of one
//! collection in step with the server by **list** then **watch** ("Efficient detection of
//! changes"), or by a streaming list ("Streaming lists"), as an explicit state machine.
//!
//! Sans-I/O in the kube-runtime shape: [`Reflector::step`] takes one [`Input`] (what the edge saw:
//! a list page, a watch event, a failure, a timer) and returns a [`Step`]: the [`Action`]s the edge
//! must run (send a request, cancel one, wait) and the [`Change`]s the UI should show (objects
//! upserted or deleted, the initial list complete, the connection state, problems). There is no
//! clock, no randomness and no async: the edge passes a [`Jitter`] fraction with every step and
//! reports elapsed waits as [`Input::TimerFired`], so every run is reproducible in a native test.
//!
//! Invariants:
//! - resource versions are opaque and only compared for equality ("Resource versions"); the resume
//!   point is the version of the last applied event or BOOKMARK, or of the completed list, never
//!   the version of an object of a list or of an initial event;
//! - the cache is keyed by `metadata.uid` (by namespace/name for objects without one), and applying
//!   the same object version twice changes nothing: a delivery whose (key, resourceVersion) was
//!   already applied, even out of order, is counted and ignored;
//! - a sync (paged list or streaming list) never empties the cache first: objects are upserted as
//!   they arrive and, when the sync completes, exactly the objects it did not mention are deleted;
//! - every request and wait has an [`OpId`]; input for an operation the reflector no longer waits
//!   for (cancelled, superseded) is ignored, so a late event from an aborted stream cannot corrupt
//!   the cache;
//! - 410 Gone (an HTTP 410 on a list page or watch, or an in-stream ERROR event with code 410)
//!   starts a fresh sync; any other failure waits with jittered exponential backoff (Retry-After
//!   wins when longer) and then retries what failed; the backoff resets after a successful watch
//!   event.
//!
//! Driving it (the edge: `client` plus a UI effect):
//! 1. `Reflector::start(config)` gives the reflector and its first [`Step`]; run its actions in
//!    order and show its changes, as after every [`Reflector::step`]. Pass each step a fresh
//!    `Jitter::new(random)`.
//! 2. [`Action::Send`] with [`RequestKind::ListPage`]: read the whole response and feed
//!    [`Input::from_list_response`] (no answer: [`Input::ListFailed`] with [`Failure::Network`]).
//! 3. [`Action::Send`] for a watch or streaming list: a non-2xx answer is [`Input::WatchFailed`]
//!    with [`Failure::from_response`], no answer is `WatchFailed` with `Failure::Network`, and a
//!    `Content-Type` that [`WatchDecoder`](crate::watch::WatchDecoder) refuses is `WatchFailed`
//!    with [`Failure::Undecodable`]. A 2xx answer is [`Input::WatchOpened`], then one
//!    [`Input::WatchEvent`] per event the decoder yields, then [`Input::WatchEnded`] with
//!    [`WatchEnd::from_finish`] of the decoder at the end of the body, [`WatchEnd::Cut`] when
//!    reading fails, or [`WatchEnd::Malformed`] (after aborting) when the decoder fails.
//! 4. [`Action::Cancel`]: abort that fetch or clear that timeout. [`Action::Wait`]: set a timeout
//!    and feed [`Input::TimerFired`] when it fires.
//! 5. On [`Change::Upsert`] and [`Change::Delete`] read [`Reflector::store`]; show
//!    [`Reflector::state`] (it also arrives as [`Change::State`]) and [`Change::Problem`]s.

pub mod config;
#[cfg(test)]
mod edge_tests;
pub mod input;
pub mod machine;
pub mod outcome;
#[cfg(test)]
mod protobuf_tests;
pub mod recent;
pub mod store;
#[cfg(test)]
mod tests;

pub use config::{BackoffConfig, Jitter, Mode, ReflectorConfig};
pub use input::{
    table_rows_as_list, Action, ConnectionState, EdgeError, Failure, Input, OpId, RequestKind, StreamCut, SyncReason,
    Undecodable, WaitReason, WatchEnd,
};
pub use machine::Reflector;
pub use outcome::{Change, Expiry, Fallback, ReflectorError, Step};
pub use store::{CachedObject, Counters, ObjectKey, Store};
