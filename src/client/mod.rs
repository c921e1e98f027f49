//! Runs [`api::request::Request`](crate::api::request::Request) values over the browser's `fetch`.
//!
//! This is the only module that does network I/O. It knows nothing of Kubernetes beyond turning a
//! request value into a `fetch` call and a response into bytes, headers and timings; decoding is
//! the `api` module's job.

pub mod discovery;
pub mod fetched;
pub mod stream;

use std::fmt;

use gloo_net::http::RequestBuilder;

use crate::api::request::{Method, Request};

/// Where the API is: an origin and path prefix that request paths are appended to. Empty means
/// the page's own origin, the arrangement `trunk serve` and `kubectl proxy --www` give. Built
/// from a [`model::host::ApiBase`](crate::model::host::ApiBase), which validated it.
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

/// A complete response: status, headers, the whole body, and when each part arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub url: String,
    pub status: u16,
    pub status_text: String,
    /// Header names in lower case, in the order the browser lists them.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Milliseconds from sending to the response headers.
    pub time_to_headers_ms: f64,
    /// Milliseconds from sending to the last byte of the body.
    pub total_ms: f64,
}

impl Response {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The start of the body as text, for error messages.
    pub fn body_excerpt(&self, max_chars: usize) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let mut excerpt: String = text.chars().take(max_chars).collect();
        if text.chars().count() > max_chars {
            excerpt.push('…');
        }
        excerpt
    }
}

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// The browser could not reach the server at all (refused, reset, DNS, CORS).
    Network { url: String, message: String },
    /// The request could not even be built (a header the browser forbids, a bad URL).
    InvalidRequest { url: String, message: String },
    /// A write refused because the explorer is in read-only mode; nothing was sent.
    ReadOnly { url: String, method: String },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Network { url, message } => write!(f, "could not reach {url}: {message}"),
            ClientError::InvalidRequest { url, message } => {
                write!(f, "could not build the request for {url}: {message}")
            }
            ClientError::ReadOnly { url, method } => {
                write!(f, "read-only mode: the {method} of {url} was not sent (switch read-only off to write)")
            }
        }
    }
}

impl std::error::Error for ClientError {}

thread_local! {
    /// Whether write requests may be sent (the UI's read-only switch keeps it in step).
    static WRITES_ALLOWED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Allows or forbids every write request from now on (read-only mode forbids them).
pub fn set_writes_allowed(allowed: bool) {
    WRITES_ALLOWED.with(|w| w.set(allowed));
}

/// Whether write requests may be sent now.
pub fn writes_allowed() -> bool {
    WRITES_ALLOWED.with(std::cell::Cell::get)
}

/// Sends `request` and reads the whole body. A write is refused, unsent, while writes are
/// forbidden.
pub async fn execute(base: &ApiBase, request: &Request) -> Result<Response, ClientError> {
    let fetch_url = base.url(request);
    let url = if request.path.starts_with('/') { base.absolute_url(request) } else { fetch_url.clone() };
    if request.method.is_write() && !writes_allowed() {
        return Err(ClientError::ReadOnly { url, method: request.method.to_string() });
    }
    let mut builder = RequestBuilder::new(&fetch_url).method(gloo_method(request.method));
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let built = match &request.body {
        Some(body) => builder.body(js_sys::Uint8Array::from(body.as_slice())),
        None => builder.build(),
    }
    .map_err(|e| ClientError::InvalidRequest { url: url.clone(), message: e.to_string() })?;

    let started = now_ms();
    let response = built.send().await.map_err(|e| ClientError::Network { url: url.clone(), message: e.to_string() })?;
    let time_to_headers_ms = now_ms() - started;
    let headers = response.headers().entries().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
    let body =
        response.binary().await.map_err(|e| ClientError::Network { url: url.clone(), message: e.to_string() })?;
    Ok(Response {
        url,
        status: response.status(),
        status_text: response.status_text(),
        headers,
        body,
        time_to_headers_ms,
        total_ms: now_ms() - started,
    })
}

fn gloo_method(method: Method) -> gloo_net::http::Method {
    match method {
        Method::Get => gloo_net::http::Method::GET,
        Method::Post => gloo_net::http::Method::POST,
        Method::Put => gloo_net::http::Method::PUT,
        Method::Patch => gloo_net::http::Method::PATCH,
        Method::Delete => gloo_net::http::Method::DELETE,
    }
}

thread_local! {
    /// The page's `performance` object, looked up once: the live view reads the clock several
    /// times per watch event.
    static PERFORMANCE: Option<web_sys::Performance> = web_sys::window().and_then(|w| w.performance());
}

/// Milliseconds since the page started (`performance.now()`; `Instant` panics on wasm32).
pub fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map(|p| p.now()).unwrap_or(0.0))
}
