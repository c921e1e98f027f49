//! Kube API Explorer: explore a Kubernetes API server from the browser.
//!
//! The app is layered so that data flows one way, bytes → decoded models → signals → views, and
//! Cargo keeps the layers apart:
//!
//! - [`api`]: the protocol core, the workspace crate `kube-wire` (`wire/`), sans-I/O. It turns
//!   values into requests and bytes into values, builds natively and for wasm32, never touches the
//!   network, a clock or the DOM, and has no UI texts.
//! - [`model`] and [`i18n`]: the crate `kube-explorer-model` (`model/`), sans-I/O: the view state,
//!   the plans, the requests the app sends, and the languages (the core's errors in its words).
//! - `client` (wasm32 only): sends a [`api::request::Request`] over `fetch`.
//! - `ui` (wasm32 only): Leptos components; no parsing or protocol logic.
//!
//! This crate depends on the model crate only, and sees the core through what it re-exports:
//! [`api`] is the core without its request builder. So `client` and `ui` can hold, show and send
//! a request the model made, and cannot make or change one. The model's functions are the way:
//!
//! ```
//! use kube_api_explorer::model::requests;
//!
//! let request = requests::discovery_document("/apis/apps/v1");
//! assert_eq!((request.method().as_str(), request.path()), ("GET", "/apis/apps/v1"));
//! ```
//!
//! A view cannot make a request the way the views used to. The scale form built its merge patch
//! itself; a request has no constructor of its own any more:
//!
//! ```compile_fail,E0599
//! use kube_api_explorer::api::codec::value::Value;
//! use kube_api_explorer::api::media_type::PatchType;
//! use kube_api_explorer::api::params::WriteParams;
//! use kube_api_explorer::api::request::{ObjectRef, Request};
//!
//! fn scale(object: &ObjectRef, replicas: i64) -> Request {
//!     let body = Value::Int(replicas); // (the body does not matter here)
//!     Request::patch(object, PatchType::Merge, &body, &WriteParams::default()).expect("a patch")
//! }
//! ```
//!
//! nor can one be written out field by field (the fields are the core's):
//!
//! ```compile_fail,E0451
//! use kube_api_explorer::api::request::{Method, Request};
//!
//! let request = Request {
//!     method: Method::Delete,
//!     path: "/api/v1/namespaces/demo".to_owned(),
//!     query: Vec::new(),
//!     headers: Vec::new(),
//!     body: None,
//! };
//! ```
//!
//! or changed once the model made it:
//!
//! ```compile_fail,E0616
//! let mut request = kube_api_explorer::model::requests::version();
//! request.path = "/api/v1/secrets".to_owned();
//! ```
//!
//! The core's builder, which makes every request, cannot be named from here: not through the
//! core's crate (the app does not depend on it)...
//!
//! ```compile_fail,E0433
//! let request = kube_wire::build::RequestBuilder::get("/api/v1/secrets").build();
//! ```
//!
//! ...nor through the model's re-export of the core, which leaves the builder out:
//!
//! ```compile_fail,E0433
//! let request = kube_api_explorer::api::build::RequestBuilder::get("/api/v1/secrets").build();
//! ```
//!
//! The simulated cluster `kube-sim` (workspace member `sim/`) depends on the core, not on the app.

/// The explorer's pure models (the crate `kube-explorer-model`).
pub use kube_explorer_model as model;
/// The protocol core, without its request builder (`kube-wire` as the model re-exports it).
pub use kube_explorer_model::api;
/// The interface's languages: the catalogue, and the core's errors and states in its words.
pub use kube_explorer_model::i18n;
pub use kube_explorer_model::localized_display;

#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
pub mod ui;
