//! Faults on purpose, for the explorer's reliability tests, driven by admin endpoints outside the
//! API paths: `POST /_sim/drop-watches`, `/_sim/fail?status=&count=&retryAfter=[&watches=true]`
//! (with `watches=true` only watch requests fail),
//! `/_sim/slow?ms=`, `/_sim/truncate-next`, `/_sim/compact`, `/_sim/churn?rate=&seconds=` (a
//! steady rate of pod changes, for benchmarks), and `GET /_sim/state`. Each answers
//! 200 with a short JSON body. The middleware here applies the injected faults to API requests.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use http_body::Body as _;
use serde_json::{json, Value};

use crate::app::App;
use crate::encoding::encode;
use crate::rules::status::{Details, Status};

pub mod state;

use state::Failure;

/// Size of the pieces a slowed body is cut into.
const SLOW_PIECE: usize = 16 * 1024;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/_sim/drop-watches", post(drop_watches))
        .route("/_sim/fail", post(fail))
        .route("/_sim/slow", post(slow))
        .route("/_sim/truncate-next", post(truncate_next))
        .route("/_sim/compact", post(compact))
        .route("/_sim/churn", post(churn))
        .route("/_sim/state", get(state))
}

async fn drop_watches(State(app): State<Arc<App>>) -> Json<Value> {
    let watchers = app.faults.cuts.receiver_count();
    app.faults.cuts.send_modify(|n| *n += 1);
    Json(json!({"dropped": watchers}))
}

fn reason_for(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => ("BadRequest", "the server rejected our request for an unknown reason"),
        401 => ("Unauthorized", "Unauthorized"),
        403 => ("Forbidden", "forbidden: injected by kube-sim"),
        404 => ("NotFound", "the server could not find the requested resource"),
        409 => ("Conflict", "the server reported a conflict"),
        410 => ("Expired", "the requested resource version is no longer available"),
        429 => ("TooManyRequests", "Too many requests, please try again later."),
        503 => ("ServiceUnavailable", "the server is currently unable to handle the request"),
        504 => (
            "Timeout",
            "the server was unable to return a response in the time allotted, but may still be processing the request",
        ),
        _ => (
            "InternalError",
            "an error on the server (\"injected by kube-sim\") has prevented the request from succeeding",
        ),
    }
}

async fn fail(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, String>>) -> Response {
    let status = q.get("status").and_then(|s| s.parse::<u16>().ok()).filter(|s| (400..600).contains(s));
    let Some(status) = status else {
        return (StatusCode::BAD_REQUEST, Json(json!({"error": "status must be a number from 400 to 599"})))
            .into_response();
    };
    let count = q.get("count").and_then(|c| c.parse().ok()).unwrap_or(1);
    let retry_after = q.get("retryAfter").and_then(|c| c.parse().ok()).unwrap_or(1);
    let watches_only = q.get("watches").is_some_and(|w| w == "true");
    *app.faults.failure.lock().unwrap_or_else(|p| p.into_inner()) =
        Some(Failure { status, remaining: count, retry_after, watches_only });
    Json(json!({"status": status, "count": count, "retryAfter": retry_after, "watches": watches_only})).into_response()
}

async fn slow(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, String>>) -> Json<Value> {
    let ms = q.get("ms").and_then(|m| m.parse().ok()).unwrap_or(0);
    app.faults.slow_ms.store(ms, Ordering::SeqCst);
    Json(json!({"ms": ms}))
}

async fn truncate_next(State(app): State<Arc<App>>) -> Json<Value> {
    app.faults.truncate_next.store(true, Ordering::SeqCst);
    Json(json!({"truncateNext": true}))
}

async fn compact(State(app): State<Arc<App>>) -> Json<Value> {
    let rv = app.store.compact();
    Json(json!({"compactedResourceVersion": rv.to_string()}))
}

async fn churn(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, String>>) -> Response {
    let number = |key: &str, default: u64| match q.get(key) {
        None => Ok(default),
        Some(v) => v.parse::<u64>().map_err(|_| format!("{key} must be a whole number, found {v:?}")),
    };
    let (rate, seconds) = match (number("rate", 1000), number("seconds", 10)) {
        (Ok(rate), Ok(seconds)) if rate <= 1_000_000 && seconds <= 3600 => (rate, seconds),
        (Err(e), _) | (_, Err(e)) => return (StatusCode::BAD_REQUEST, Json(json!({"error": e}))).into_response(),
        _ => {
            let error = "rate must be at most 1000000 per second and seconds at most 3600";
            return (StatusCode::BAD_REQUEST, Json(json!({"error": error}))).into_response();
        }
    };
    let generation = app.faults.churns.fetch_add(1, Ordering::SeqCst) + 1;
    let namespace = q.get("namespace").filter(|n| !n.is_empty()).cloned();
    let pods = crate::controllers::activity::churn(app.clone(), rate, seconds, namespace.clone(), generation);
    Json(json!({"rate": rate, "seconds": seconds, "namespace": namespace, "pods": pods})).into_response()
}

async fn state(State(app): State<Arc<App>>) -> Json<Value> {
    let s = app.store.read();
    Json(json!({
        "resourceVersion": s.rv.to_string(),
        "compactedResourceVersion": s.compacted_rv.to_string(),
        "openStreams": app.faults.cuts.receiver_count(),
        "counts": s.counts(),
    }))
}

/// Applies injected failures, slowness and truncation to API requests (not to `/_sim`).
pub async fn middleware(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    // Faults hit API requests only: not the controls, nor the static files of --www.
    let path = req.uri().path();
    if path.starts_with("/_sim/") || app.www.as_ref().is_some_and(|www| crate::http::www::is_static(www, path)) {
        return next.run(req).await;
    }
    let watch = path.contains("/watch/")
        || req.uri().query().is_some_and(|q| q.split('&').any(|kv| kv == "watch=true" || kv == "watch=1"));
    if let Some(f) = app.faults.take_failure(watch) {
        let (reason, message) = reason_for(f.status);
        let mut s = Status::failure(f.status, reason, message);
        let retry = matches!(f.status, 429 | 503);
        if retry {
            s = s.with_details(Details { retry_after_seconds: Some(f.retry_after), ..Details::default() });
        }
        let mut resp = Response::new(Body::from(encode::json(&s, false)));
        *resp.status_mut() = StatusCode::from_u16(f.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if retry {
            if let Ok(v) = HeaderValue::from_str(&f.retry_after.to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        return resp;
    }
    let resp = next.run(req).await;
    let slow = app.faults.slow_ms.load(Ordering::SeqCst);
    let truncate = app.faults.truncate_next.swap(false, Ordering::SeqCst);
    if slow == 0 && !truncate {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let total = body.size_hint().exact();
    parts.headers.remove(header::CONTENT_LENGTH);
    let delay = Duration::from_millis(slow);
    let pieces = body.into_data_stream().flat_map(move |chunk| {
        let items: Vec<Result<Bytes, axum::Error>> = match chunk {
            Ok(bytes) if slow > 0 => {
                let mut out = Vec::new();
                let mut rest = bytes;
                while rest.len() > SLOW_PIECE {
                    out.push(Ok(rest.split_to(SLOW_PIECE)));
                }
                out.push(Ok(rest));
                out
            }
            other => vec![other],
        };
        futures::stream::iter(items)
    });
    let mut sent = 0usize;
    let mut first = true;
    let limit = total.map(|t| (t / 2) as usize);
    let shaped = pieces
        .then(move |item| async move {
            if slow > 0 {
                tokio::time::sleep(delay).await;
            }
            item
        })
        .scan(false, move |done, item| {
            if *done {
                return futures::future::ready(None);
            }
            let out = match item {
                Ok(mut bytes) if truncate => {
                    let cut = match limit {
                        Some(l) => l.saturating_sub(sent),
                        None if first => bytes.len() / 2,
                        None => 0,
                    };
                    first = false;
                    if bytes.len() >= cut {
                        bytes.truncate(cut);
                        *done = true;
                    }
                    sent += bytes.len();
                    if *done {
                        vec![Ok(bytes), Err(std::io::Error::other("body truncated by /_sim/truncate-next"))]
                    } else {
                        vec![Ok(bytes)]
                    }
                }
                Ok(bytes) => vec![Ok(bytes)],
                Err(e) => vec![Err(std::io::Error::other(e))],
            };
            futures::future::ready(Some(futures::stream::iter(out)))
        })
        .flatten()
        .then(|item| async move {
            // Let the server flush the headers and the first half before the connection breaks.
            if item.is_err() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            item
        });
    Response::from_parts(parts, Body::from_stream(shaped))
}
