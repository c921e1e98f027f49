//! The HTTP answers of `/openapi/v3`, `/openapi/v3/<group version>` and `/openapi/v2`, as
//! kube-openapi's handlers give them (handler3 and handler, behind kube-apiserver's filters):
//!
//! - every answer has an `Etag` (the quoted upper-case hex SHA-512 of the JSON document) and
//!   `Last-Modified`; `If-None-Match` with that Etag gets 304;
//! - a group version document is JSON for `application/json`, `application/*`, `*/*` or no
//!   Accept (kube-sim has no protobuf form of v3 documents: a protobuf-only Accept gets 406, as
//!   any other unknown type does), with `Vary: Accept`;
//! - `?hash=` naming the current document makes it immutable (`Cache-Control: public,
//!   immutable`, `Expires` a year on); an outdated hash is a 301 to the current URL;
//! - `/openapi/v2` is JSON, or gnostic's protobuf for
//!   `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (as client-go asks);
//! - otherwise `Cache-Control: no-cache, private`, as every API answer; documents of 128 KiB
//!   and more are gzipped for a client that accepts it, by the router's compression layer.

use std::time::{Duration, SystemTime};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;

use super::documents::{self, Served};
use super::gnostic;
use crate::http::{bytes_response, Ctx};
use crate::rules::status::{method_not_allowed, ApiError, ApiResult, Status};
use crate::store::registry::Registry;

const JSON: &str = "application/json";
const V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
const V2_PROTOBUF_NEW: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// What an Accept header asks of an OpenAPI endpoint, in its order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    Json,
    Protobuf,
}

/// The first acceptable answer of `accept`, or `None` (406). `protobuf` says whether the
/// endpoint has a protobuf form.
pub fn negotiate(accept: Option<&str>, protobuf: bool) -> Option<Wanted> {
    let accept = accept.filter(|a| !a.trim().is_empty()).unwrap_or("*/*");
    accept.split(',').find_map(|clause| {
        let mut parts = clause.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let refused = parts.any(
            |p| matches!(p.trim().split_once('='), Some(("q", q)) if q.trim().parse::<f32>().is_ok_and(|q| q == 0.0)),
        );
        if refused {
            return None;
        }
        match media.as_str() {
            JSON | "application/*" | "*/*" => Some(Wanted::Json),
            V2_PROTOBUF | V2_PROTOBUF_NEW if protobuf => Some(Wanted::Protobuf),
            _ => None,
        }
    })
}

fn internal(e: String) -> ApiError {
    Status::failure(500, "InternalError", format!("OpenAPI documents: {e}")).into()
}

fn only_get(ctx: &Ctx) -> ApiResult<()> {
    if ctx.method == Method::GET || ctx.method == Method::HEAD {
        Ok(())
    } else {
        Err(method_not_allowed())
    }
}

fn http_date(t: SystemTime, zone: &str) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).format(&format!("%a, %d %b %Y %H:%M:%S {zone}")).to_string()
}

fn set(resp: &mut Response, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        resp.headers_mut().insert(name, v);
    }
}

/// The document's bytes, or 304 when the client has them.
fn content(ctx: &Ctx, content_type: &str, body: Bytes, etag: &str, modified: SystemTime) -> Response {
    let quoted = format!("\"{etag}\"");
    let mut resp = if ctx.header("if-none-match").is_some_and(|v| v.split(',').any(|t| t.trim() == quoted)) {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
        r
    } else {
        bytes_response(StatusCode::OK, content_type, body)
    };
    set(&mut resp, header::ETAG, &quoted);
    set(&mut resp, header::LAST_MODIFIED, &http_date(modified, "GMT"));
    resp
}

fn not_acceptable() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::NOT_ACCEPTABLE;
    r
}

/// `GET /openapi/v3`.
pub fn v3_index(registry: &Registry, ctx: &Ctx) -> ApiResult<Response> {
    only_get(ctx)?;
    let index = documents::v3_index(registry).map_err(internal)?;
    let body = Bytes::from(serde_json::to_vec(&index).map_err(|e| internal(e.to_string()))?);
    let etag = documents::hash(&body);
    Ok(content(ctx, JSON, body, &etag, SystemTime::now()))
}

/// `GET /openapi/v3/<path>`.
pub fn v3_document(registry: &Registry, ctx: &Ctx, path: &str) -> ApiResult<Response> {
    only_get(ctx)?;
    let doc: Served = documents::v3_document(registry, path).map_err(internal)?.ok_or(ApiError::PageNotFound)?;
    if negotiate(ctx.accept(), false).is_none() {
        return Ok(with_vary(not_acceptable()));
    }
    let mut resp = match ctx.query.get("hash") {
        Some(h) if !h.is_empty() && *h != doc.hash => {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::MOVED_PERMANENTLY;
            set(&mut r, header::LOCATION, &format!("/openapi/v3/{path}?hash={}", doc.hash));
            set(&mut r, header::ETAG, &format!("\"{}\"", doc.hash));
            r
        }
        Some(h) if !h.is_empty() => {
            let mut r = content(ctx, JSON, doc.json.clone(), &doc.hash, doc.modified);
            set(&mut r, header::CACHE_CONTROL, "public, immutable");
            let year = SystemTime::now() + Duration::from_secs(365 * 24 * 3600);
            set(&mut r, header::EXPIRES, &http_date(year, "UTC"));
            r
        }
        _ => content(ctx, JSON, doc.json.clone(), &doc.hash, doc.modified),
    };
    resp = with_vary(resp);
    Ok(resp)
}

/// `GET /openapi/v2`.
pub fn v2_document(registry: &Registry, ctx: &Ctx) -> ApiResult<Response> {
    only_get(ctx)?;
    let Some(wanted) = negotiate(ctx.accept(), true) else { return Ok(with_vary(not_acceptable())) };
    let doc = documents::v2_document(registry).map_err(internal)?;
    let resp = match wanted {
        Wanted::Json => content(ctx, JSON, doc.served.json.clone(), &doc.served.hash, doc.served.modified),
        Wanted::Protobuf => {
            let body = doc
                .protobuf
                .get_or_init(|| {
                    serde_json::from_slice(&doc.served.json)
                        .map(|tree| Bytes::from(gnostic::document(&tree)))
                        .map_err(|e| e.to_string())
                })
                .clone()
                .map_err(internal)?;
            content(ctx, V2_PROTOBUF_NEW, body, &doc.served.hash, doc.served.modified)
        }
    };
    Ok(with_vary(resp))
}

fn with_vary(mut resp: Response) -> Response {
    resp.headers_mut().append(header::VARY, HeaderValue::from_static("Accept"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_the_default_and_protobuf_only_where_served() {
        assert_eq!(negotiate(None, false), Some(Wanted::Json));
        assert_eq!(negotiate(Some("application/json, */*"), false), Some(Wanted::Json));
        assert_eq!(negotiate(Some(V2_PROTOBUF), true), Some(Wanted::Protobuf));
        assert_eq!(negotiate(Some(V2_PROTOBUF), false), None);
        assert_eq!(negotiate(Some("application/com.github.proto-openapi.spec.v3.v1.0+protobuf"), false), None);
        assert_eq!(negotiate(Some("application/yaml, application/json;q=0"), true), None);
        assert_eq!(negotiate(Some("text/html, application/*;q=0.5"), true), Some(Wanted::Json));
    }
}
