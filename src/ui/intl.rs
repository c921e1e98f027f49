//! Numbers, sizes, durations and dates in the interface's language, through the browser's `Intl`
//! (js-sys): Persian gets Persian digits, Ukrainian a comma for decimals, and so on. Each function
//! reads the current language, so a view that calls it inside a reactive closure follows the
//! switch. Kubernetes' own notations (`5m` ages as kubectl prints them, quantities such as
//! `100Mi`, timestamps in YAML) are values from the API and stay as they are.
//!
//! With the `english-only` feature (built only by `scripts/bench languages`, to measure what the
//! languages cost) the same functions format in Rust, in English, as an interface without `Intl`
//! would.

#[cfg(not(feature = "english-only"))]
mod browser;
#[cfg(not(feature = "english-only"))]
pub use browser::*;

#[cfg(feature = "english-only")]
mod english;
#[cfg(feature = "english-only")]
pub use english::*;
