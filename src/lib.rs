//! Kube API Explorer: explore a Kubernetes API server from the browser.
//!
//! The crate is layered so that data flows one way, bytes → decoded models → signals → views:
//!
//! - [`api`]: the protocol core, the workspace crate `kube-wire` (`wire/`), sans-I/O. It turns
//!   values into requests and bytes into values, builds natively and for wasm32, never touches the
//!   network, a clock or the DOM, and has no UI texts: [`i18n`] words its errors.
//! - `client` (wasm32 only): runs an [`api::request::Request`] over `fetch`.
//! - `ui` (wasm32 only): Leptos components; no parsing or protocol logic.
//!
//! The simulated cluster `kube-sim` (workspace member `sim/`) reuses the core natively.

pub use kube_wire as api;
pub mod i18n;
pub mod model;

#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
pub mod ui;
