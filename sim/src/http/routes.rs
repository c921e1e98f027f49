//! The HTTP front: the router, the request context (method, path, query, headers, pretty), path
//! routing into discovery documents and resource paths, and rendering of objects and lists in
//! the negotiated representation.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::{middleware, Router};
use serde_json::Value;
use tower_http::compression::predicate::Predicate;
use tower_http::compression::CompressionLayer;

use crate::app::App;
use crate::encoding::encode;
use crate::encoding::negotiate::{Protobuf, Target};
use crate::http::discovery::{self, DiscoveryFormat};
use crate::http::read::{get_response, list_response};
use crate::http::{bytes_response, error_response, json_response, require_verb, Ctx, ResourcePath};
use crate::rules::list::{ListOptions, Query};
use crate::rules::status::{bad_request, method_not_allowed, not_acceptable, ApiError, ApiResult, Status};
use crate::{
    auth::access, http::access_log, http::cors, http::exec, http::faults, http::logs, http::watch, http::write, openapi,
};

/// Largest request body accepted, as kube-apiserver's default.
const MAX_BODY: usize = 3 * 1024 * 1024;

/// Responses are gzip-compressed only from 128 KiB on, as the real server does.
const GZIP_MIN: u64 = 128 * 1024;

#[derive(Debug, Clone, Copy)]
struct LargeBodies;

impl Predicate for LargeBodies {
    fn should_compress<B: http_body::Body>(&self, response: &axum::http::Response<B>) -> bool {
        response.body().size_hint().exact().is_some_and(|n| n >= GZIP_MIN)
    }
}

pub fn router(app: Arc<App>) -> Router {
    let www = app.www.as_ref().map(|www| www.routes()).unwrap_or_default();
    Router::new()
        .merge(faults::routes())
        .merge(www)
        .fallback(handle)
        .layer(CompressionLayer::new().compress_when(LargeBodies))
        .layer(middleware::from_fn_with_state(app.clone(), faults::middleware))
        .layer(middleware::from_fn(cors::middleware))
        .layer(middleware::from_fn(access_log::middleware))
        .with_state(app)
}

fn parse_query(raw: Option<&str>) -> Query {
    let mut q = HashMap::new();
    for (k, v) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        q.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
    q
}

/// The real server pretty-prints for browsers, curl and wget unless told `pretty=false`.
fn wants_pretty(query: &Query, headers: &HeaderMap) -> bool {
    match query.get("pretty").map(String::as_str) {
        Some("true" | "1") => true,
        Some("false" | "0") => false,
        _ => headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ua| ua.starts_with("Mozilla/5.0") || ua.starts_with("curl") || ua.starts_with("Wget")),
    }
}

async fn handle(State(app): State<Arc<App>>, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    let query = parse_query(parts.uri.query());
    // exec, attach and port-forward take the connection over: the upgrade is read before the
    // headers move.
    let stream = exec::Kind::of(parts.uri.path());
    let upgrade = match stream {
        Some(_) if exec::is_websocket(&parts.headers) => {
            Some(WebSocketUpgrade::from_request_parts(&mut parts, &()).await)
        }
        _ => None,
    };
    // A port-forward's SPDY/3.1 upgrade: the connection hyper hands over once the 101 is sent.
    let spdy = match stream {
        Some(exec::Kind::PortForward) if upgrade.is_none() => parts.extensions.remove::<hyper::upgrade::OnUpgrade>(),
        _ => None,
    };
    let raw_query = parts.uri.query().map(str::to_string);
    let mut ctx = Ctx {
        pretty: wants_pretty(&query, &parts.headers),
        method: parts.method,
        path: parts.uri.path().to_string(),
        query,
        headers: parts.headers,
        // Until its credentials are read, a request is the one without any.
        user: app.anonymous.clone(),
    };
    match access::admit(&app, &ctx) {
        Ok(user) => ctx.user = user,
        Err(refused) => return *refused,
    }
    if let Some(kind) = stream {
        return exec::serve(&app, &ctx, kind, upgrade, spdy, raw_query.as_deref()).await;
    }
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return error_response(
                &ctx,
                Status::failure(413, "RequestEntityTooLarge", format!("Request entity too large: limit is {MAX_BODY}"))
                    .into(),
            )
        }
    };
    match route(&app, &ctx, body).await {
        Ok(r) => r,
        Err(e) => error_response(&ctx, e),
    }
}

async fn route(app: &Arc<App>, ctx: &Ctx, body: Bytes) -> ApiResult<Response> {
    let segments: Vec<&str> = ctx.path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["version"] => Ok(json_response(ctx, StatusCode::OK, &discovery::version())),
        ["healthz" | "livez" | "readyz"] => {
            Ok(bytes_response(StatusCode::OK, "text/plain; charset=utf-8", Bytes::from_static(b"ok")))
        }
        ["api"] => discovery_doc(app, ctx, true),
        ["apis"] => discovery_doc(app, ctx, false),
        ["api", "v1"] => {
            plain_get(ctx, || app.registry.group_version("", "v1").map(|gv| discovery::resource_list("", &gv)))
        }
        ["apis", group] => plain_get(ctx, || app.registry.group(group).map(|g| discovery::api_group(&g))),
        ["apis", group, version] => {
            plain_get(ctx, || app.registry.group_version(group, version).map(|gv| discovery::resource_list(group, &gv)))
        }
        ["openapi", "v2"] => openapi::serve::v2_document(&app.registry, ctx),
        ["openapi", "v3"] => openapi::serve::v3_index(&app.registry, ctx),
        ["openapi", "v3", rest @ ..] => openapi::serve::v3_document(&app.registry, ctx, &rest.join("/")),
        ["api", "v1", "namespaces", ns, plural @ ("pods" | "services"), name, "proxy", rest @ ..] => {
            crate::http::proxy::serve(app, ctx, ns, plural, name, rest)
        }
        ["api", "v1", rest @ ..] => resource(app, ctx, "", "v1", rest, body).await,
        ["apis", group, version, rest @ ..] => resource(app, ctx, group, version, rest, body).await,
        _ => Err(ApiError::PageNotFound),
    }
}

fn plain_get(ctx: &Ctx, doc: impl FnOnce() -> Option<Value>) -> ApiResult<Response> {
    if ctx.method != Method::GET && ctx.method != Method::HEAD {
        return Err(method_not_allowed());
    }
    let doc = doc().ok_or(ApiError::PageNotFound)?;
    let output = ctx.output(Target::Plain, Protobuf::NoMessage)?;
    Ok(bytes_response(StatusCode::OK, output.content_type(), encode::body(output.format, &doc, ctx.pretty)?))
}

fn discovery_doc(app: &Arc<App>, ctx: &Ctx, core: bool) -> ApiResult<Response> {
    if ctx.method != Method::GET && ctx.method != Method::HEAD {
        return Err(method_not_allowed());
    }
    match discovery::discovery_format(ctx.accept(), discovery::Served::given(app.cli.legacy_discovery_only)) {
        // The discovery handlers' serializers have no CBOR, so their 406 is JSON whatever the
        // Accept (recorded against a real 1.36 server for #39: `/apis`, `Accept:
        // application/cbor`; apiserver/pkg/endpoints/discovery/root.go `ErrorNegotiated`).
        None => match not_acceptable() {
            ApiError::Status(s) => Ok(json_response(ctx, StatusCode::NOT_ACCEPTABLE, &s)),
            other => Err(other),
        },
        Some(DiscoveryFormat::Legacy) => {
            let host = ctx.header("host").unwrap_or("127.0.0.1").to_string();
            let doc = if core { discovery::api_versions(&host) } else { discovery::api_group_list(&app.registry) };
            Ok(json_response(ctx, StatusCode::OK, &doc))
        }
        Some(DiscoveryFormat::Aggregated { version, protobuf }) => {
            let doc = discovery::aggregated(&app.registry, core, version);
            let json = Bytes::from(encode::json(&doc, ctx.pretty));
            // The Etag is the document's, whatever its encoding: the real server sends the same
            // one for JSON and protobuf (real-apiserver 02 and 04e).
            let etag = discovery::etag(&json);
            let body = if protobuf { Bytes::from(encode::protobuf(&doc)?) } else { json };
            let mut resp = if ctx.header("if-none-match") == Some(etag.as_str()) {
                let mut r = Response::new(Body::empty());
                *r.status_mut() = StatusCode::NOT_MODIFIED;
                r
            } else {
                bytes_response(StatusCode::OK, &discovery::aggregated_content_type(version, protobuf), body)
            };
            let h = resp.headers_mut();
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public"));
            h.insert(header::VARY, HeaderValue::from_static("Accept"));
            if let Ok(v) = HeaderValue::from_str(&etag) {
                h.insert(header::ETAG, v);
            }
            Ok(resp)
        }
    }
}

/// Parses the part of a resource path after the group version.
fn resource_path(app: &App, group: &str, version: &str, rest: &[&str]) -> ApiResult<ResourcePath> {
    let (watch_path, rest) = match rest {
        ["watch", tail @ ..] => (true, tail),
        _ => (false, rest),
    };
    let find = |plural: &str| app.registry.find(group, version, plural).ok_or(ApiError::PageNotFound);
    let namespaces = app.registry.find(group, version, "namespaces");
    let namespaces_sub = |sub: &str| namespaces.as_ref().is_some_and(|rt| rt.subresource(sub).is_some());
    let path = match rest {
        [plural] => ResourcePath { rt: find(plural)?, namespace: None, name: None, subresource: None, watch_path },
        [plural, name] => {
            let rt = find(plural)?;
            if rt.namespaced {
                return Err(ApiError::PageNotFound);
            }
            ResourcePath { rt, namespace: None, name: Some(name.to_string()), subresource: None, watch_path }
        }
        ["namespaces", ns, third] if !namespaces_sub(third) => ResourcePath {
            rt: find(third)?,
            namespace: Some(ns.to_string()),
            name: None,
            subresource: None,
            watch_path,
        },
        [plural, name, sub] => {
            let rt = find(plural)?;
            if rt.namespaced {
                return Err(ApiError::PageNotFound);
            }
            ResourcePath {
                rt,
                namespace: None,
                name: Some(name.to_string()),
                subresource: Some(sub.to_string()),
                watch_path,
            }
        }
        ["namespaces", ns, plural, name] => ResourcePath {
            rt: find(plural)?,
            namespace: Some(ns.to_string()),
            name: Some(name.to_string()),
            subresource: None,
            watch_path,
        },
        ["namespaces", ns, plural, name, sub] => ResourcePath {
            rt: find(plural)?,
            namespace: Some(ns.to_string()),
            name: Some(name.to_string()),
            subresource: Some(sub.to_string()),
            watch_path,
        },
        _ => return Err(ApiError::PageNotFound),
    };
    if path.namespace.is_some() && !path.rt.namespaced {
        return Err(ApiError::PageNotFound);
    }
    if let Some(sub) = &path.subresource {
        if path.rt.subresource(sub).is_none() {
            return Err(ApiError::PageNotFound);
        }
    }
    Ok(path)
}

async fn resource(
    app: &Arc<App>,
    ctx: &Ctx,
    group: &str,
    version: &str,
    rest: &[&str],
    body: Bytes,
) -> ApiResult<Response> {
    let path = resource_path(app, group, version, rest)?;
    let warning = path.rt.custom.as_ref().and_then(|c| c.deprecation_warning.clone());
    let mut result = resource_call(app, ctx, &path, body);
    if let (Some(w), Ok(resp)) = (warning, result.as_mut()) {
        if let Ok(v) = HeaderValue::from_str(&format!("299 - \"{}\"", w.replace('"', "\\\""))) {
            resp.headers_mut().append("warning", v);
        }
    }
    result
}

fn resource_call(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, body: Bytes) -> ApiResult<Response> {
    let path = path.clone();
    let rt = path.rt.clone();
    if rt.group == crate::http::metrics::GROUP {
        return crate::http::metrics::serve(app, ctx, &path);
    }
    if let (Some(sub), Some(name)) = (path.subresource.clone(), path.name.clone()) {
        return subresource(app, ctx, &path, &name, &sub, &body);
    }
    match (&ctx.method, &path.name) {
        (&Method::GET, None) => {
            let opts = ListOptions::parse(&ctx.query, &rt, path.watch_path)?;
            if opts.watch {
                require_verb(&rt, "watch")?;
                return watch::watch_response(app, ctx, &path, opts);
            }
            require_verb(&rt, "list")?;
            list_response(app, ctx, &path, &opts)
        }
        (&Method::GET, Some(_)) if path.watch_path && path.subresource.is_none() => {
            require_verb(&rt, "watch")?;
            let opts = ListOptions::parse(&ctx.query, &rt, true)?;
            watch::watch_response(app, ctx, &path, opts)
        }
        (&Method::GET, Some(name)) => {
            require_verb(&rt, "get")?;
            get_response(app, ctx, &path, name)
        }
        (&Method::POST, None) => {
            require_verb(&rt, "create")?;
            if crate::http::review::is_review(&rt) {
                return crate::http::review::create(app, ctx, &path, &body);
            }
            write::create::create(app, ctx, &path, &body)
        }
        (&Method::POST, Some(name)) => Err(bad_request(format!(
            "the server does not allow this method on the requested resource (post {} {name})",
            rt.qualified_name()
        ))),
        (&Method::PUT, Some(name)) => {
            require_verb(&rt, "update")?;
            write::update::update(app, ctx, &path, name, &body)
        }
        (&Method::PATCH, Some(name)) => {
            require_verb(&rt, "patch")?;
            write::patch::patch(app, ctx, &path, name, &body)
        }
        (&Method::DELETE, Some(name)) => {
            require_verb(&rt, "delete")?;
            write::delete::delete(app, ctx, &path, name, &body)
        }
        (&Method::DELETE, None) => {
            require_verb(&rt, "deletecollection")?;
            write::delete::delete_collection(app, ctx, &path, &body)
        }
        _ => Err(method_not_allowed()),
    }
}

fn subresource(
    app: &Arc<App>,
    ctx: &Ctx,
    path: &ResourcePath,
    name: &str,
    sub: &str,
    body: &[u8],
) -> ApiResult<Response> {
    let verbs = path.rt.subresource(sub).map(|s| s.verbs.clone()).unwrap_or_default();
    let allowed = |verb: &str| if verbs.iter().any(|v| v == verb) { Ok(()) } else { Err(method_not_allowed()) };
    match (sub, &ctx.method) {
        ("log", &Method::GET) => logs::log(app, ctx, path, name),
        ("status", &Method::GET) => {
            allowed("get")?;
            get_response(app, ctx, path, name)
        }
        ("scale", &Method::GET) => {
            allowed("get")?;
            write::scale::scale_get(app, ctx, path, name)
        }
        ("status" | "scale", &Method::PUT) => {
            allowed("update")?;
            write::update::update(app, ctx, path, name, body)
        }
        ("status" | "scale", &Method::PATCH) => {
            allowed("patch")?;
            write::patch::patch(app, ctx, path, name, body)
        }
        ("token", &Method::POST) if path.rt.group.is_empty() && path.rt.plural == "serviceaccounts" => {
            allowed("create")?;
            crate::http::token::request(app, ctx, path, name, body)
        }
        ("eviction", &Method::POST) => {
            allowed("create")?;
            write::evict::evict(app, ctx, path, name, body)
        }
        _ => Err(method_not_allowed()),
    }
}
