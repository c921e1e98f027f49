//! The only edge: runs [`api::request::Request`](crate::api::request::Request) values over the
//! browser's `fetch`, and nothing else in the app does network I/O.
//!
//! | module | what it holds |
//! |---|---|
//! | [`access`] | the self reviews: who the user is, the rules of a namespace, one access question |
//! | [`logs`] | `use_log_follow`: the driver of `model::log_follow` (reads, follows, reconnections) |
//! | [`handle`] | [`handle::Client`], the one way to send anything: API base, write gate, observers, requests aborted with their owner |
//! | [`fetch`] | the one fetch stack: `open` (headers, then the body chunk by chunk) and `execute` (`open` + the whole body) |
//! | [`fetched`] | a response decoded by `api`, read as a document or a typed error |
//! | [`error`] | [`error::ApiError`]: `is_not_found()`, `status()` |
//! | [`operations`] | an operation's read and write (`model::operations` plans them) |
//! | [`answer`] | the answer to a write (status line, `Warning`s, object or `Status`, a typed [`answer::WriteFailure`]), and the read before one |
//! | [`load_all`] | the "Load all" driver: a list's pages followed to its end, the next asked for while one is joined |
//! | [`delete`] | `use_delete` (preconditions, the DELETE through an `Action`, the follow while finalizers run) and `use_delete_collection` (counted from a metadata-only list) |
//! | [`search`] | the Search screen's driver: the types listed a few at a time, their pages followed, the last search kept for the back button |
//! | [`scale`] | `use_scale`: a Scale panel's read, form and send (a Leptos `Action` bound to the panel) |
//! | [`schemas`] | the OpenAPI v3 document of a group version, for the write tools |
//! | [`bundle_file`] | files shipped beside the app (the language files), fetched on demand |
//! | [`stream`] | the page's budget of open streams |
//! | [`reflector`] | `use_reflector`: the list-then-watch driver of `api`'s reflector over streamed `fetch` |
//! | [`discovery`] | the server version and discovery, read once |
//! | [`clock`] | `use_wall_clock`: the time, ticking just past each whole second, for ages that stay true |
//! | [`terminal`] | `use_terminal`: a container's terminal, the probe over fetch and the session over a WebSocket |
//! | [`task`] | [`task::Tasks`]: work that may outlive its view (answers, streams, timers), dropped when the view's owner is cleaned up |
//!
//! It knows nothing of Kubernetes beyond turning request values into `fetch` calls and responses
//! into bytes, headers and timings; decoding is the `api` module's job.

pub mod access;
pub mod answer;
pub mod bundle_file;
pub mod clock;
pub mod delete;
pub mod discovery;
pub mod drain;
pub mod error;
pub mod fetch;
pub mod fetched;
pub mod field_owners;
pub mod handle;
pub mod load_all;
pub mod logs;
pub mod metrics;
pub mod object_events;
pub mod operations;
pub mod picture;
pub mod reflector;
pub mod relations;
pub mod scale;
pub mod schemas;
pub mod search;
pub mod stream;
pub mod subresource;
pub mod task;
pub mod terminal;
pub mod time_axis;
