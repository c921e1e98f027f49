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
//! in [`discovery`].

pub mod discovery;
pub mod request;

#[cfg(test)]
pub(crate) mod testdata;
