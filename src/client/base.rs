//! Where the API is: an origin and path prefix that request paths are appended to.

use crate::api::request::Request;

/// Where the API is. Empty means the page's own origin, the arrangement `trunk serve` and
/// `kubectl proxy --www` give. Built from a [`model::host::ApiBase`](crate::model::host::ApiBase),
/// which validated it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiBase(crate::model::host::ApiBase);

impl ApiBase {
    /// The page's own origin.
    pub fn same_origin() -> Self {
        ApiBase::default()
    }

    /// The base a host configured (already validated).
    pub fn configured(base: crate::model::host::ApiBase) -> Self {
        ApiBase(base)
    }

    /// The URL `fetch` is given for `request` (relative to the page when the base is the page's origin).
    pub fn url(&self, request: &Request) -> String {
        format!("{}{}", self.0.prefix(), request.path_and_query())
    }

    /// The absolute URL of `request`, as a person should read it in errors and the inspector.
    pub fn absolute_url(&self, request: &Request) -> String {
        format!("{}{}", self.display(), request.path_and_query())
    }

    /// How the base is shown to a person: with the page's origin when it is on the same origin.
    pub fn display(&self) -> String {
        let origin = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
        self.0.display(&origin)
    }
}
