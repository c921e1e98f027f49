//! CORS as the recorded API server answers a page on a local origin: the origin echoed with
//! credentials allowed, the usual request headers and methods, and only `Date` exposed (which is
//! why the explorer reads `Warning`, `Etag` and `Retry-After` only when served same-origin).
//! Preflight `OPTIONS` requests get 204 with the same headers.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

const ALLOW_HEADERS: &str =
    "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since";
const ALLOW_METHODS: &str = "POST, GET, OPTIONS, PUT, DELETE, PATCH";

/// Origins on this machine, as `--cors-allowed-origins` of a local cluster usually allows.
fn allowed(origin: &str) -> bool {
    let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")).unwrap_or_default();
    let host = rest.split(':').next().unwrap_or_default();
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn add_headers(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(header::ACCESS_CONTROL_ALLOW_CREDENTIALS, HeaderValue::from_static("true"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(ALLOW_HEADERS));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(ALLOW_METHODS));
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("Date"));
}

pub async fn middleware(req: Request, next: Next) -> Response {
    let origin = req.headers().get(header::ORIGIN).filter(|o| o.to_str().is_ok_and(allowed)).cloned();
    let Some(origin) = origin else { return next.run(req).await };
    if req.method() == Method::OPTIONS {
        let mut resp = Response::new(Body::empty());
        *resp.status_mut() = StatusCode::NO_CONTENT;
        add_headers(resp.headers_mut(), origin);
        return resp;
    }
    let mut resp = next.run(req).await;
    add_headers(resp.headers_mut(), origin);
    resp
}
