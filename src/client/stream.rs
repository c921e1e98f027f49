//! Streaming responses over `fetch`: the body is read chunk by chunk through a
//! `ReadableStreamDefaultReader` (watch events arrive as the server sends them, not when the
//! response ends), and an `AbortController` cancels the request when the view goes away.
//!
//! Watches go through [`open_watch`]: it takes a slot of the page's
//! [`StreamBudget`](crate::model::streams::StreamBudget) first (waiting while the app already
//! holds its few streams), so open streams never take all of the browser's connections to the
//! origin and ordinary requests are not starved. The slot is given back when the stream is dropped.

use std::cell::RefCell;
use std::collections::HashMap;

use futures::channel::oneshot;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader, RequestInit};

use super::{ApiBase, ClientError};
use crate::api::request::Request;
use crate::model::streams::{Grant, StreamBudget, Ticket};

thread_local! {
    /// The page's stream budget, and how to wake each queued stream when its slot opens.
    static BUDGET: RefCell<(StreamBudget, HashMap<Ticket, oneshot::Sender<()>>)> =
        RefCell::new((StreamBudget::default(), HashMap::new()));
}

/// A slot of the stream budget, held from the request until the stream is dropped.
pub struct Permit(Ticket);

impl Drop for Permit {
    fn drop(&mut self) {
        let wake = BUDGET.with(|b| {
            let (budget, waiting) = &mut *b.borrow_mut();
            waiting.remove(&self.0);
            budget.release(self.0).into_iter().filter_map(|t| waiting.remove(&t)).collect::<Vec<_>>()
        });
        for sender in wake {
            let _ = sender.send(());
        }
    }
}

impl Permit {
    /// Waits for a slot (at once when the budget has one).
    pub async fn acquire() -> Permit {
        let (permit, wait) = BUDGET.with(|b| {
            let (budget, waiting) = &mut *b.borrow_mut();
            let (ticket, grant) = budget.ask();
            match grant {
                Grant::Open => (Permit(ticket), None),
                Grant::Queued { .. } => {
                    let (sender, receiver) = oneshot::channel();
                    waiting.insert(ticket, sender);
                    (Permit(ticket), Some(receiver))
                }
            }
        });
        if let Some(receiver) = wait {
            // Dropping the permit (the view went away while queued) leaves the queue.
            let _ = receiver.await;
        }
        permit
    }
}

/// Streams open now and streams waiting for a slot, for the status line.
pub fn budget_use() -> (usize, usize, usize) {
    BUDGET.with(|b| {
        let budget = &b.borrow().0;
        (budget.open_count(), budget.queued_count(), budget.limit())
    })
}

/// An open streaming response: its status and headers, and the reader of its body.
pub struct Stream {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    reader: Option<ReadableStreamDefaultReader>,
    /// The budget slot of a watch, given back when the stream is dropped.
    _permit: Option<Permit>,
}

impl Stream {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The next chunk of the body; `Ok(None)` at its end, `Err` when reading fails (the
    /// connection was cut, or the request aborted).
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        let Some(reader) = &self.reader else { return Ok(None) };
        let result = JsFuture::from(reader.read()).await.map_err(describe)?;
        let done = Reflect::get(&result, &JsValue::from_str("done")).map_err(describe)?;
        if done.as_bool() == Some(true) {
            return Ok(None);
        }
        let value = Reflect::get(&result, &JsValue::from_str("value")).map_err(describe)?;
        Ok(Some(value.dyn_into::<Uint8Array>().map_err(describe)?.to_vec()))
    }

    /// The whole remaining body.
    pub async fn read_to_end(&mut self) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// Takes a slot of the stream budget (waiting for one), then [`open`]s `request`; the stream
/// keeps the slot until it is dropped. `None` when `controller` aborted while waiting.
pub async fn open_watch(
    base: &ApiBase,
    request: &Request,
    controller: &AbortController,
) -> Option<Result<Stream, ClientError>> {
    let permit = Permit::acquire().await;
    if controller.signal().aborted() {
        return None;
    }
    Some(open(base, request, controller).await.map(|mut stream| {
        stream._permit = Some(permit);
        stream
    }))
}

/// Sends `request` with `controller`'s signal and returns as soon as the headers arrive.
pub async fn open(base: &ApiBase, request: &Request, controller: &AbortController) -> Result<Stream, ClientError> {
    let url = base.url(request);
    if request.method.is_write() && !super::writes_allowed() {
        return Err(ClientError::ReadOnly { url, method: request.method.to_string() });
    }
    let network = |e: JsValue| ClientError::Network { url: url.clone(), message: describe(e) };
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    init.set_signal(Some(&controller.signal()));
    let headers = web_sys::Headers::new().map_err(network)?;
    for (name, value) in &request.headers {
        headers
            .append(name, value)
            .map_err(|e| ClientError::InvalidRequest { url: url.clone(), message: describe(e) })?;
    }
    init.set_headers(&headers);
    if let Some(body) = &request.body {
        init.set_body(&Uint8Array::from(body.as_slice()));
    }
    let fetch_request = web_sys::Request::new_with_str_and_init(&url, &init)
        .map_err(|e| ClientError::InvalidRequest { url: url.clone(), message: describe(e) })?;
    let window = web_sys::window().ok_or_else(|| network(JsValue::from_str("no window")))?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_request(&fetch_request))
        .await
        .map_err(network)?
        .dyn_into()
        .map_err(network)?;
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
    Ok(Stream { status: response.status(), headers: header_pairs, reader, _permit: None })
}

fn describe(error: JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}
