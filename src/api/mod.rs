//! The Kubernetes API concepts as plain Rust values: discovery documents, requests, and (in later
//! modules) media types, codecs and watch framing.
//!
//! Invariant: nothing here does I/O. No `leptos`, `web_sys`, `wasm_bindgen`, async runtime or clock
//! call may appear in this module tree, so every function is testable natively and cannot fail on
//! I/O. Only the edges (`client`, `ui`, `kube-sim`) talk to the outside world.
//!
//! What is reused and what is ours: `k8s-openapi` provides the typed discovery documents of the
//! legacy endpoints (`APIVersions`, `APIGroupList`, `APIResourceList`) and the version `Info`;
//! the aggregated discovery document (`apidiscovery.k8s.io/v2`) has no type there, so it is modelled
//! in [`discovery`]. `Status` is `kube-core`'s ([`status`]); `ObjectMeta` is `k8s-openapi`'s
//! ([`metadata`]). Ours, because neither crate has them: the document model ([`value`]) and its
//! codecs ([`json`], [`yaml`], [`cbor`] with the Kubernetes CBOR rules), media types and `Accept`
//! negotiation ([`media_type`]), and the `Table`, list and `PartialObjectMetadata` views.

pub mod body;
pub mod cbor;
pub mod discovery;
pub mod error;
pub mod json;
pub mod list;
pub mod media_type;
pub mod metadata;
pub mod params;
pub mod protobuf;
pub mod request;
pub mod status;
pub mod table;
pub mod value;
pub mod view;
pub mod watch;
pub mod yaml;

#[cfg(test)]
pub(crate) mod testdata;
