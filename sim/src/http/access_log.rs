//! One log line per request on stderr: method, path, status, content type, bytes and duration.
//! Streaming bodies (watches, slowed bodies) are logged when they end.

use std::time::Instant;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use http_body::Body as _;

pub async fn middleware(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let target = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_default();
    let resp = next.run(req).await;
    let status = resp.status().as_u16();
    let content_type =
        resp.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("-").to_string();
    if let Some(n) = resp.body().size_hint().exact() {
        eprintln!("{method} {target} {status} {content_type} {n}B {:.1}ms", started.elapsed().as_secs_f64() * 1000.0);
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let line = LogOnEnd { method: method.to_string(), target, status, content_type, started, bytes: 0 };
    let stream = body.into_data_stream().scan(line, |line, chunk| {
        if let Ok(b) = &chunk {
            line.bytes += b.len();
        }
        futures::future::ready(Some(chunk))
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// Writes the log line of a streamed response when the stream is dropped (ended or cut).
struct LogOnEnd {
    method: String,
    target: String,
    status: u16,
    content_type: String,
    started: Instant,
    bytes: usize,
}

impl Drop for LogOnEnd {
    fn drop(&mut self) {
        eprintln!(
            "{} {} {} {} {}B {:.1}ms (streamed)",
            self.method,
            self.target,
            self.status,
            self.content_type,
            self.bytes,
            self.started.elapsed().as_secs_f64() * 1000.0
        );
    }
}
