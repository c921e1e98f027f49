//! Representations: which one a request gets (`negotiate`), objects and lists written in it
//! (`encode`, with each kind's key order from `ordered`), server-side Tables (`table`,
//! `workload_table`, and the `column` they share) and protobuf (`protobuf`).

pub mod column;
pub mod encode;
pub mod negotiate;
pub mod ordered;
pub mod protobuf;
pub mod table;
pub mod workload_table;
