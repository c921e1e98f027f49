//! Typed views over a decoded document ([`crate::codec::value::Value`]), whatever format it
//! came in: collections ([`list`]), server-side Tables ([`table`]), metadata-only objects
//! ([`metadata`]) and `Status` ([`status`]), with the shape errors and field readers they share
//! ([`shape`]).
//!
//! Invariant: a view never panics on a document of the wrong shape; it names the JSON path, what
//! it expected there and what it found.

pub mod list;
pub mod metadata;
pub mod shape;
pub mod status;
pub mod table;
