//! The API's rules, shared by every handler: Status bodies worded as kube-apiserver's (`status`),
//! list options (`list`), label and field selectors (`selector`), the OpenAPI schemas and
//! validation (`schema`, `typed`), defaults (`defaults`, a Service's in `service`), the two shapes
//! of Events (`events`), managedFields (`fields`) and the merge
//! semantics of the patch types and apply (`patch`), CronJob schedules (`cron`).

pub mod cron;
pub mod defaults;
pub mod events;
pub mod fields;
pub mod list;
pub mod patch;
pub mod required;
pub mod schema;
pub mod selector;
pub mod service;
pub mod status;
pub mod typed;
