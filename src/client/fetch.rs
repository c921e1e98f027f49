//! The one fetch stack: a request value sent with `fetch` (`web_sys`), its body read chunk by
//! chunk through a `ReadableStreamDefaultReader`. [`open`] returns as soon as the headers arrive
//! (watches, streamed logs); [`execute`] is [`open`] and then the whole body, with timings. Every
//! request carries an `AbortSignal`, so its owner can cancel it.

use std::sync::Arc;

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader, RequestInit, RequestRedirect, ResponseType};

use crate::api::body::{BodyTooLarge, BoundedBody, MAX_BODY_BYTES};
use crate::api::request::Request;
use crate::client::stream::Permit;
use crate::i18n::{Localized, Msg, Text};
use crate::model::host::ApiBase;

/// A complete response: status, headers, the whole body, and when each part arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub url: String,
    pub status: u16,
    pub status_text: String,
    /// Header names in lower case, in the order the browser lists them.
    pub headers: Vec<(String, String)>,
    /// Shared: the wire inspector, the page and a lazy list's items hold the one copy.
    pub body: Arc<[u8]>,
    /// Milliseconds from sending to the response headers.
    pub time_to_headers_ms: f64,
    /// Milliseconds from sending to the last byte of the body.
    pub total_ms: f64,
}

impl Response {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// `Content-Encoding` (e.g. `gzip`): how the body came over the wire before the browser
    /// undid it.
    pub fn content_encoding(&self) -> Option<&str> {
        self.header("content-encoding")
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The start of the body as text, for error messages.
    pub fn body_excerpt(&self, max_chars: usize) -> String {
        // A character is at most four bytes: no need to read a long body past the excerpt.
        let head = &self.body[..self.body.len().min(max_chars.saturating_mul(4).saturating_add(4))];
        let text = String::from_utf8_lossy(head);
        let mut excerpt: String = text.chars().take(max_chars).collect();
        if text.chars().count() > max_chars || head.len() < self.body.len() {
            excerpt.push('…');
        }
        excerpt
    }
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// A body that stopped arriving (the connection was cut, or the request aborted), in the
/// browser's words, or one the client stopped reading at [`MAX_BODY_BYTES`]: what reading an
/// open [`Stream`] fails with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyCut {
    Cut(String),
    TooLarge(BodyTooLarge),
}

impl Localized for BodyCut {
    fn text(&self) -> Text {
        match self {
            BodyCut::Cut(message) => Text::verbatim(message),
            BodyCut::TooLarge(too_large) => too_large.text(),
        }
    }
}

impl BodyCut {
    /// The error of the request to `url` whose body this was.
    fn of(self, url: &str) -> ClientError {
        match self {
            BodyCut::Cut(message) => ClientError::Network { url: url.to_owned(), message },
            BodyCut::TooLarge(BodyTooLarge { limit }) => ClientError::TooLarge { url: url.to_owned(), limit },
        }
    }
}

crate::localized_display!(BodyCut);

impl std::error::Error for BodyCut {}

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// The browser could not reach the server at all (refused, reset, DNS, CORS), or the body
    /// stopped arriving.
    Network { url: String, message: String },
    /// The request could not even be built (a header the browser forbids, a bad URL).
    InvalidRequest { url: String, message: String },
    /// A write refused because the explorer is in read-only mode; nothing was sent.
    ReadOnly { url: String, method: String },
    /// The body went on past [`MAX_BODY_BYTES`]: the client stopped reading it there.
    TooLarge { url: String, limit: usize },
    /// The server answered with a redirect (3xx), which the client does not follow: an API server
    /// answers API requests itself, and a redirect could lead to another origin. The browser
    /// hides where it led (an opaque redirect).
    Redirected { url: String },
}

impl Localized for ClientError {
    fn text(&self) -> Text {
        match self {
            ClientError::Network { url, message } => {
                Text::new(Msg::CouldNotReach).with("url", url).with("error", message)
            }
            ClientError::InvalidRequest { url, message } => {
                Text::new(Msg::CouldNotBuildRequest).with("url", url).with("error", message)
            }
            ClientError::ReadOnly { url, method } => {
                Text::new(Msg::ReadOnlyNotSent).with("method", method).with("url", url)
            }
            ClientError::TooLarge { url, limit } => Text::new(Msg::BodyTooLarge)
                .with("url", url)
                .with_text("problem", BodyCut::TooLarge(BodyTooLarge { limit: *limit })),
            ClientError::Redirected { url } => Text::new(Msg::Redirected).with("url", url),
        }
    }
}

crate::localized_display!(ClientError);

impl std::error::Error for ClientError {}

/// An open streaming response: its status and headers, and the reader of its body.
pub struct Stream {
    pub status: u16,
    pub status_text: String,
    pub headers: Vec<(String, String)>,
    reader: Option<ReadableStreamDefaultReader>,
    /// The stream budget's slot of a watch, given back when the stream is dropped.
    pub(crate) permit: Option<Permit>,
}

impl Stream {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The next chunk of the body; `Ok(None)` at its end, `Err` when reading fails (the
    /// connection was cut, or the request aborted).
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, BodyCut> {
        let cut = |e: JsValue| BodyCut::Cut(describe(e));
        let Some(reader) = &self.reader else { return Ok(None) };
        let result = JsFuture::from(reader.read()).await.map_err(cut)?;
        let done = Reflect::get(&result, &JsValue::from_str("done")).map_err(cut)?;
        if done.as_bool() == Some(true) {
            return Ok(None);
        }
        let value = Reflect::get(&result, &JsValue::from_str("value")).map_err(cut)?;
        Ok(Some(value.dyn_into::<Uint8Array>().map_err(cut)?.to_vec()))
    }

    /// The whole response, once the rest of the body has arrived (a stream the server refused is
    /// read as the answer it is). The timings are not measured for a stream.
    pub async fn into_response(mut self, url: String) -> Result<Response, BodyCut> {
        let body = self.read_to_end().await?;
        Ok(Response {
            url,
            status: self.status,
            status_text: std::mem::take(&mut self.status_text),
            headers: std::mem::take(&mut self.headers),
            body: body.into(),
            time_to_headers_ms: 0.0,
            total_ms: 0.0,
        })
    }

    /// The whole remaining body, at most [`MAX_BODY_BYTES`] of it: past that the body is
    /// cancelled (the browser stops downloading it) and refused.
    pub async fn read_to_end(&mut self) -> Result<Vec<u8>, BodyCut> {
        let mut body = BoundedBody::new(MAX_BODY_BYTES);
        while let Some(chunk) = self.next_chunk().await? {
            if let Err(too_large) = body.push(&chunk) {
                if let Some(reader) = self.reader.take() {
                    let _ = reader.cancel();
                }
                return Err(BodyCut::TooLarge(too_large));
            }
        }
        Ok(body.into_bytes())
    }
}

/// The page's origin (`http://host:port`), which a same-origin [`ApiBase`] is relative to.
pub fn page_origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// Sends `request` with `signal` and returns as soon as the headers arrive. Knows nothing of the
/// write gate: [`crate::client::handle::Client`] is the way in.
pub async fn open(base: &ApiBase, request: &Request, signal: &AbortSignal) -> Result<Stream, ClientError> {
    let url = base.url(request);
    let network = |e: JsValue| ClientError::Network { url: url.clone(), message: describe(e) };
    let init = RequestInit::new();
    init.set_method(request.method().as_str());
    init.set_signal(Some(signal));
    // Never followed: the browser hands back an opaque redirect, refused below.
    init.set_redirect(RequestRedirect::Manual);
    let headers = web_sys::Headers::new().map_err(network)?;
    for (name, value) in request.headers() {
        headers
            .append(name, value)
            .map_err(|e| ClientError::InvalidRequest { url: url.clone(), message: describe(e) })?;
    }
    init.set_headers(&headers);
    if let Some(body) = request.body() {
        init.set_body(&Uint8Array::from(body));
    }
    let fetch_request = web_sys::Request::new_with_str_and_init(&url, &init)
        .map_err(|e| ClientError::InvalidRequest { url: url.clone(), message: describe(e) })?;
    let window = web_sys::window().ok_or_else(|| network(JsValue::from_str("no window")))?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_request(&fetch_request))
        .await
        .map_err(network)?
        .dyn_into()
        .map_err(network)?;
    if response.type_() == ResponseType::Opaqueredirect {
        return Err(ClientError::Redirected { url });
    }
    let mut header_pairs = Vec::new();
    if let Ok(Some(iterator)) = js_sys::try_iter(&response.headers()) {
        for entry in iterator.flatten() {
            let pair = js_sys::Array::from(&entry);
            if let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                header_pairs.push((name.to_ascii_lowercase(), value));
            }
        }
    }
    let reader = response.body().and_then(|body| body.get_reader().dyn_into::<ReadableStreamDefaultReader>().ok());
    Ok(Stream {
        status: response.status(),
        status_text: response.status_text(),
        headers: header_pairs,
        reader,
        permit: None,
    })
}

/// Sends `request` with `signal` and reads the whole body: [`open`], then the body to its end.
pub async fn execute(base: &ApiBase, request: &Request, signal: &AbortSignal) -> Result<Response, ClientError> {
    let fetch_url = base.url(request);
    let url = if request.path().starts_with('/') { base.absolute_url(request, &page_origin()) } else { fetch_url };
    let started = now_ms();
    let mut stream = open(base, request, signal).await.map_err(|error| with_url(error, &url))?;
    let time_to_headers_ms = now_ms() - started;
    let body = stream.read_to_end().await.map_err(|cut| cut.of(&url))?;
    Ok(Response {
        url,
        status: stream.status,
        status_text: std::mem::take(&mut stream.status_text),
        headers: std::mem::take(&mut stream.headers),
        body: Arc::from(body),
        time_to_headers_ms,
        total_ms: now_ms() - started,
    })
}

/// The same error, naming the request by its absolute URL.
fn with_url(error: ClientError, url: &str) -> ClientError {
    match error {
        ClientError::Network { message, .. } => ClientError::Network { url: url.to_owned(), message },
        ClientError::InvalidRequest { message, .. } => ClientError::InvalidRequest { url: url.to_owned(), message },
        ClientError::ReadOnly { method, .. } => ClientError::ReadOnly { url: url.to_owned(), method },
        ClientError::TooLarge { limit, .. } => ClientError::TooLarge { url: url.to_owned(), limit },
        ClientError::Redirected { .. } => ClientError::Redirected { url: url.to_owned() },
    }
}

fn describe(error: JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
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

/// Waits `duration` (a `setTimeout` promise).
pub async fn sleep(duration: std::time::Duration) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, duration.as_millis() as i32);
        }
    });
    let _ = JsFuture::from(promise).await;
}
