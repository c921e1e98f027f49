//! One request run and its body decoded by the `api` module, with what the wire inspector shows:
//! the request, the response's status and headers, the Content-Type that came back, and timings;
//! and what it answered, read as a document or a typed [`ApiError`].

use std::sync::{Arc, OnceLock};

use crate::api::body::{decode_body_with, BodyError, Decoded, YamlDecoder};
use crate::api::codec::value::Value;
use crate::api::error::Format;
use crate::api::media_type::MediaType;
use crate::api::request::Request;
use crate::api::view::status::{is_status, retry_after_header, status_from_document, StatusExt};
use crate::api::watch::lazy_list::{read_list_document, ListDocument};
use crate::client::error::ApiError;
use crate::client::fetch::{now_ms, Response};
use crate::i18n::{Localized, Msg, Text};

/// A response and what its body decoded to.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    pub request: Request,
    pub response: Response,
    /// The response's `Content-Type`, parsed; `None` when absent or not a media type.
    pub content_type: Option<MediaType>,
    /// The decoded body (or why it could not be decoded), once something asked for it: a caller
    /// that reads the body its own way (the lazy list of "Load all") leaves it undecoded, and the
    /// wire inspector neither decodes it nor keeps the tree.
    decoded: OnceLock<Result<Decoded, Text>>,
    /// Milliseconds the decoding took.
    decode_ms: OnceLock<f64>,
}

impl Fetched {
    /// A response, not decoded yet.
    pub fn new(request: Request, response: Response) -> Fetched {
        let content_type = response.header("content-type").and_then(|t| t.parse::<MediaType>().ok());
        Fetched { request, response, content_type, decoded: OnceLock::new(), decode_ms: OnceLock::new() }
    }

    /// The exchange as a log of many keeps it: without the decoded tree (which can be several
    /// times the body's size) and with only the first `keep` bytes of the body, copied, so that
    /// the log does not keep a large body alive (the log keeps the body's size beside them).
    pub fn for_log(&self, keep: usize) -> Fetched {
        let mut response = self.response.clone();
        if response.body.len() > keep {
            response.body = Arc::from(&response.body[..keep]);
        }
        Fetched {
            request: self.request.clone(),
            response,
            content_type: self.content_type.clone(),
            decoded: OnceLock::new(),
            decode_ms: self.decode_ms.clone(),
        }
    }

    /// The decoded body, or why it could not be decoded (naming what was expected and where),
    /// decoding it by its `Content-Type` on the first call.
    pub fn decoded(&self) -> &Result<Decoded, Text> {
        self.decoded.get_or_init(|| {
            let started = now_ms();
            let decoded = decode_by_type(self.content_type.as_ref(), &self.response);
            let _ = self.decode_ms.set(now_ms() - started);
            decoded
        })
    }

    /// The list a JSON or CBOR answer carries, read lazily (its items stay bytes of the body:
    /// see [`crate::api::watch::lazy_list`]), with the time it took as the decoding time; `None`
    /// for another Content-Type or an empty body. Read each time it is asked for.
    pub fn list_document(&self) -> Option<Result<ListDocument, Text>> {
        let format = self.content_type.as_ref()?.essence.format()?;
        if !matches!(format, Format::Json | Format::Cbor) || self.response.body.is_empty() {
            return None;
        }
        let started = now_ms();
        let read = read_list_document(format, self.response.body.clone()).map_err(|e| e.text());
        let _ = self.decode_ms.set(now_ms() - started);
        Some(read)
    }

    /// Milliseconds spent decoding the body in wasm; `None` while nobody asked for it decoded.
    pub fn decode_ms(&self) -> Option<f64> {
        self.decode_ms.get().copied()
    }

    /// The `Content-Type` header as sent.
    pub fn content_type_header(&self) -> &str {
        self.response.header("content-type").unwrap_or("(none)")
    }

    /// How long the server asked to wait before retrying: the `Retry-After` header, else the
    /// `Status`'s `details.retryAfterSeconds`.
    pub fn retry_after_seconds(&self) -> Option<u32> {
        self.response
            .header("retry-after")
            .and_then(retry_after_header)
            .or_else(|| self.status_body().and_then(Result::ok).and_then(|status| status.retry_after_seconds()))
    }

    /// The `Status` the server answered, if the body is one (failures, and some deletes).
    pub fn status_body(&self) -> Option<Result<crate::api::view::status::Status, ApiError>> {
        match self.decoded() {
            Ok(Decoded::Document(document)) if is_status(document) => Some(
                status_from_document(document)
                    .map_err(|e| ApiError::Undecodable { code: self.response.status, message: e.text() }),
            ),
            _ => None,
        }
    }

    /// The failure this answer is: a non-2xx status (with its `Status` when the body is one), or
    /// a body that could not be decoded. `None` for a success that decoded.
    pub fn error(&self) -> Option<ApiError> {
        let code = self.response.status;
        if !self.response.is_success() {
            return Some(match self.status_body() {
                Some(Ok(status)) => ApiError::Status(Box::new(status)),
                Some(Err(error)) => error,
                None => ApiError::Http {
                    code,
                    status_text: self.response.status_text.clone(),
                    excerpt: self.response.body_excerpt(300),
                },
            });
        }
        match self.decoded() {
            Ok(_) => None,
            Err(message) => Some(ApiError::Undecodable { code, message: message.clone() }),
        }
    }

    /// The document a successful answer carries (a protobuf envelope reads as its summary), or
    /// the failure it is.
    pub fn document(&self) -> Result<Value, ApiError> {
        if let Some(error) = self.error() {
            return Err(error);
        }
        match self.decoded() {
            Ok(decoded) => Ok(decoded.to_value()),
            Err(message) => Err(ApiError::Undecodable { code: self.response.status, message: message.clone() }),
        }
    }
}

/// A response with its body decoded according to its `Content-Type`.
pub fn decode_response(request: Request, response: Response) -> Fetched {
    let fetched = Fetched::new(request, response);
    fetched.decoded();
    fetched
}

fn decode_by_type(content_type: Option<&MediaType>, response: &Response) -> Result<Decoded, Text> {
    match content_type {
        _ if response.body.is_empty() => {
            Err(Text::new(Msg::HttpEmptyBody).with("status", format!("HTTP {}", response.status)))
        }
        Some(media_type) if media_type.essence.format().is_some() => {
            decode_body_with(media_type, &response.body, yaml_decoder()).map_err(|e| e.text())
        }
        _ => Err(Text::verbatim(format!(
            "HTTP {} {}: {}",
            response.status,
            response.status_text,
            response.body_excerpt(400)
        ))),
    }
}

/// The YAML decoder, once a part that asks for YAML has loaded it ([`load_yaml_decoder`]).
static YAML_DECODER: OnceLock<YamlDecoder> = OnceLock::new();

/// Makes YAML answers decodable from now on. The screens that can ask for YAML call it when they
/// load (`ui::routes` and `ui::decode`, at their split points), so that in a split build the YAML
/// parser, a good part of the page load, comes with them and not with the first page; until then
/// a YAML answer (only a server that ignores Accept would send one) is a clear error, not a guess.
pub fn load_yaml_decoder() {
    YAML_DECODER.get_or_init(|| |body| Ok(crate::api::codec::yaml::decode_yaml(body)?));
}

/// The decoder for YAML answers: the loaded one, or one that refuses; a build without split points
/// has it from the start.
fn yaml_decoder() -> YamlDecoder {
    #[cfg(not(feature = "split"))]
    load_yaml_decoder();
    YAML_DECODER.get().copied().unwrap_or(|_| Err(BodyError::YamlNotLoaded))
}
