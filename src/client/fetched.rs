//! One request run and its body decoded by the `api` module, with what the wire inspector shows:
//! the request, the response's status and headers, the Content-Type that came back, and timings.

use crate::api::body::{decode_body, Decoded};
use crate::api::media_type::MediaType;
use crate::api::request::Request;

use super::{execute, now_ms, ApiBase, ClientError, Response};

/// A response and what its body decoded to.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    pub request: Request,
    pub response: Response,
    /// The response's `Content-Type`, parsed; `None` when absent or not a media type.
    pub content_type: Option<MediaType>,
    /// The decoded body, or why it could not be decoded (naming what was expected and where).
    pub decoded: Result<Decoded, String>,
    /// Milliseconds spent decoding in wasm.
    pub decode_ms: f64,
}

impl Fetched {
    /// The `Content-Type` header as sent.
    pub fn content_type_header(&self) -> &str {
        self.response.header("content-type").unwrap_or("(none)")
    }
}

/// Runs `request` and decodes the body according to the response's `Content-Type`.
pub async fn fetch_decoded(base: &ApiBase, request: Request) -> Result<Fetched, ClientError> {
    let response = execute(base, &request).await?;
    Ok(decode_response(request, response))
}

/// Decodes a response's body according to its `Content-Type`.
pub fn decode_response(request: Request, response: Response) -> Fetched {
    let content_type = response.header("content-type").and_then(|t| t.parse::<MediaType>().ok());
    let started = now_ms();
    let decoded = match &content_type {
        _ if response.body.is_empty() => Err(format!("HTTP {} with an empty body", response.status)),
        Some(media_type) if media_type.essence.format().is_some() => {
            decode_body(media_type, &response.body).map_err(|e| e.to_string())
        }
        _ => Err(format!("HTTP {} {}: {}", response.status, response.status_text, response.body_excerpt(400))),
    };
    let decode_ms = now_ms() - started;
    Fetched { request, response, content_type, decoded, decode_ms }
}
