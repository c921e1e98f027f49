//! The API's rules, shared by every handler: Status bodies worded as kube-apiserver's (`status`),
//! list options (`list`), label and field selectors (`selector`), the OpenAPI schemas and
//! validation (`schema`, `typed`), defaults (`defaults`), managedFields (`fields`) and the merge
//! semantics of the patch types and apply (`patch`), CronJob schedules (`cron`).

pub mod cron;
pub mod defaults;
pub mod fields;
pub mod list;
pub mod patch;
pub mod schema;
pub mod selector;
pub mod status;
pub mod typed;
