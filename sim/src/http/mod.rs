//! What every handler shares: the request context ([`Ctx`]: method, path, query, headers,
//! pretty-printing), the resource a path names ([`ResourcePath`]), and responses: objects in the
//! negotiated representation, `Status` bodies with `Retry-After`, plain bytes.
//!
//! Beside it, the handlers: `routes` (the router), `read` (get, list), `watch`, `logs`, `exec`
//! (exec and attach over WebSocket), `metrics` (metrics.k8s.io), `review`,
//! `apply`, `write` by verb, `discovery`, `faults` (`/_sim/…`), `www` (static files), `cors` and
//! `access_log`.

pub mod access_log;
pub mod apply;
pub mod cors;
pub mod discovery;
pub mod exec;
pub mod faults;
pub mod logs;
pub mod metrics;
pub mod proxy;
pub mod read;
pub mod review;
pub mod routes;
pub mod token;
pub mod watch;
pub mod write;
pub mod www;

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use kube_wire::params::IncludeObject;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::auth::UserInfo;
use crate::encoding::negotiate::{Format, Output, Protobuf, Shape, Target};
use crate::encoding::ordered::{order_of, Order, Ordered};
use crate::rules::list::Query;
use crate::rules::status::{method_not_allowed, not_acceptable, ApiError, ApiResult, Status};
use crate::store::registry::ResourceType;
use crate::{encoding::encode, encoding::negotiate, encoding::table};

/// What every handler reads from the request.
pub struct Ctx {
    pub method: Method,
    pub path: String,
    pub query: Query,
    pub headers: HeaderMap,
    pub pretty: bool,
    /// Who the request is made by, once `access::admit` has let it in.
    pub user: UserInfo,
}

impl Ctx {
    /// A request context for unit tests: `method` of `path` with `query`, no headers.
    #[cfg(test)]
    pub fn for_test(method: Method, query: &[(&str, &str)]) -> Ctx {
        Ctx {
            method,
            path: String::new(),
            query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            headers: HeaderMap::new(),
            pretty: false,
            user: crate::auth::Users::new(Vec::new()).named(crate::auth::DEFAULT_USER),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn accept(&self) -> Option<&str> {
        self.header("accept")
    }

    /// The representation of the answer; `protobuf` says whether its objects have a message.
    pub fn output(&self, target: Target, protobuf: Protobuf) -> ApiResult<Output> {
        negotiate::choose(self.accept(), target, protobuf).ok_or_else(not_acceptable)
    }
}

pub fn error_response(ctx: &Ctx, err: ApiError) -> Response {
    match err {
        ApiError::PageNotFound => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8"), (header::X_CONTENT_TYPE_OPTIONS, "nosniff")],
            "404 page not found\n",
        )
            .into_response(),
        ApiError::Status(s) => status_response(ctx, &s),
    }
}

pub fn status_response(ctx: &Ctx, s: &Status) -> Response {
    let format = negotiate::choose(ctx.accept(), Target::Status, Protobuf::Encodes).map_or(Format::Json, |o| o.format);
    let code = match s.code {
        0 => StatusCode::OK,
        c => StatusCode::from_u16(c).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    };
    // A Status always fits its message; JSON all the same if it did not.
    let (format, body) = match encode::body(format, s, ctx.pretty) {
        Ok(body) => (format, body),
        Err(_) => (Format::Json, Bytes::from(encode::json(s, ctx.pretty))),
    };
    let mut resp = bytes_response(code, format.content_type(), body);
    if let Some(secs) = s.details.as_ref().and_then(|d| d.retry_after_seconds) {
        if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
    }
    resp
}

pub fn bytes_response(code: StatusCode, content_type: &str, body: Bytes) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = code;
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    resp
}

pub fn json_response<T: Serialize + ?Sized>(ctx: &Ctx, code: StatusCode, value: &T) -> Response {
    bytes_response(code, "application/json", Bytes::from(encode::json(value, ctx.pretty)))
}

/// A path under `/api` or `/apis` that names a resource.
#[derive(Debug, Clone)]
pub struct ResourcePath {
    pub rt: Arc<ResourceType>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// The deprecated `/watch/` path prefix was used.
    pub watch_path: bool,
}

pub fn require_verb(rt: &ResourceType, verb: &str) -> ApiResult<()> {
    if rt.allows(verb) {
        Ok(())
    } else {
        Err(method_not_allowed())
    }
}

/// An object in the negotiated shape, with its apiVersion set to the requested version.
pub fn render_object(
    ctx: &Ctx,
    rt: &ResourceType,
    obj: &Value,
    output: Output,
    include: IncludeObject,
    code: StatusCode,
) -> ApiResult<Response> {
    let obj = with_version(rt, obj);
    let body = match output.shape {
        Shape::Object => encode::body(output.format, &Ordered::new(&obj, order_of(rt)), ctx.pretty)?,
        Shape::Table(v) => {
            let mut meta = Map::new();
            if let Some(rv) = obj["metadata"]["resourceVersion"].as_str() {
                meta.insert("resourceVersion".into(), Value::String(rv.into()));
            }
            encode::body(output.format, &table::table(rt, &[&obj], meta, include, v.api_version(), true), ctx.pretty)?
        }
        Shape::Metadata(v) => {
            let pm = table::partial_metadata(&obj, v.api_version());
            encode::body(output.format, &Ordered::new(&pm, Order::Typed), ctx.pretty)?
        }
    };
    Ok(bytes_response(code, output.content_type(), body))
}

/// Objects are stored once per group; a read through another version relabels them (and a read
/// of `events.k8s.io` Events converts the stored core Events).
pub fn with_version(rt: &ResourceType, obj: &Value) -> Value {
    if crate::rules::events::is_events_group(&rt.group, &rt.plural) {
        return crate::rules::events::from_storage(obj, &rt.api_version());
    }
    let mut o = obj.clone();
    if let Some(m) = o.as_object_mut() {
        m.insert("apiVersion".into(), Value::String(rt.api_version()));
    }
    o
}
