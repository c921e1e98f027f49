//! The document model every decoder produces ([`value::Value`]) and the codecs of the
//! representations the API serves: JSON, YAML, CBOR with the Kubernetes rules, the protobuf
//! envelope, and the object inside it decoded in full (`protobuf_full`, on demand). Each codec reads bytes into a [`value::Value`] (errors carry a byte offset) and
//! writes one back in the form the server writes.
//!
//! Invariant: nothing here knows about Kubernetes objects, lists or watch events; the typed views
//! ([`crate::view`]) and watch framing ([`crate::watch`]) sit on top.

pub mod cbor;
pub mod json;
pub mod protobuf;
pub mod protobuf_full;
pub mod value;
pub mod yaml;
