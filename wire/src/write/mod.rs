//! The write path, on top of `json-patch` and `similar`: structural and YAML line diffs
//! ([`diff`]), JSON patches with `test` guards and merge patches ([`patch`]), strategic merge
//! patches from the kind's OpenAPI schema ([`strategic`]), server-side apply bodies and minimal apply configurations ([`apply`]), `PUT`
//! bodies and the three-way rebase after a 409 ([`update`]), field ownership from
//! `managedFields` and apply conflicts ([`managed_fields`]), dry-run reports ([`dry_run`]) and
//! multi-document YAML for create ([`documents`]).

pub mod apply;
pub mod diff;
pub mod documents;
pub mod dry_run;
pub mod managed_fields;
pub mod patch;
pub mod strategic;
pub mod update;
