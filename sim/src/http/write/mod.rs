//! Writes: POST create (generateName, AlreadyExists), PUT update (Conflict on a stale
//! resourceVersion), PATCH (JSON, merge, strategic merge, apply), DELETE with finalizers,
//! preconditions, propagationPolicy and gracePeriodSeconds, deletecollection, and the `status`
//! and `scale` subresources, and `pods/eviction` (`evict`). Every write shares the same
//! preparation: decoding with field validation, CRD defaulting and value checks,
//! server-managed metadata and managedFields, and `dryRun=All`, which runs everything but does not persist or notify watchers.
//!
//! The handlers are split by verb; what they share is in `options`, `body` and `reply`, and
//! what other writers share (the controllers, the dataset) is in `crate::store::lifecycle` and
//! `crate::store::deletion`.

pub mod after;
pub mod body;
pub mod create;
pub mod delete;
pub mod evict;
pub mod options;
pub mod patch;
pub mod reply;
pub mod scale;
pub mod update;
