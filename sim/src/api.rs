//! The HTTP front: the router, the request context (method, path, query, headers, pretty), path
//! routing into discovery documents and resource paths, and rendering of objects and lists in
//! the negotiated representation.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{middleware, Router};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use tower_http::compression::predicate::Predicate;
use tower_http::compression::CompressionLayer;

use crate::discovery::{self, DiscoveryFormat};
use crate::encode;
use crate::list::{self, ListOptions, Query};
use crate::negotiate::{self, Format, Output, Shape, Target};
use crate::ordered::{order_of, Order, Ordered};
use crate::registry::ResourceType;
use crate::status::{bad_request, method_not_allowed, not_acceptable, not_found, ApiError, ApiResult, Status};
use crate::table::{self, IncludeObject};
use crate::App;
use crate::{access_log, cors, faults, logs, watch, write};

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

/// What every handler reads from the request.
pub struct Ctx {
    pub method: Method,
    pub path: String,
    pub query: Query,
    pub headers: HeaderMap,
    pub pretty: bool,
}

impl Ctx {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn accept(&self) -> Option<&str> {
        self.header("accept")
    }

    pub fn output(&self, target: Target) -> ApiResult<Output> {
        negotiate::choose(self.accept(), target).ok_or_else(not_acceptable)
    }
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
    let (parts, body) = req.into_parts();
    let query = parse_query(parts.uri.query());
    let ctx = Ctx {
        pretty: wants_pretty(&query, &parts.headers),
        method: parts.method,
        path: parts.uri.path().to_string(),
        query,
        headers: parts.headers,
    };
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
    let format = negotiate::choose(ctx.accept(), Target::Status).map(|o| o.format).unwrap_or(Format::Json);
    let code = match s.code {
        0 => StatusCode::OK,
        c => StatusCode::from_u16(c).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    };
    let mut resp = bytes_response(code, content_type(format), encode::body(format, s, ctx.pretty));
    if let Some(secs) = s.details.as_ref().and_then(|d| d.retry_after_seconds) {
        if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
    }
    resp
}

pub fn content_type(format: Format) -> &'static str {
    match format {
        Format::Json => "application/json",
        Format::Yaml => "application/yaml",
        Format::Cbor => "application/cbor",
    }
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
    bytes_response(code, "application/json", encode::body(Format::Json, value, ctx.pretty))
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
        ["openapi", "v3"] => plain_get(ctx, || Some(discovery::openapi_index(&app.registry))),
        ["openapi", "v3", rest @ ..] => {
            let doc = discovery::openapi_document(&app.registry, &rest.join("/")).ok_or(ApiError::PageNotFound)?;
            Ok(bytes_response(StatusCode::OK, "application/json", Bytes::from(doc)))
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
    let output = ctx.output(Target::Plain)?;
    Ok(bytes_response(StatusCode::OK, content_type(output.format), encode::body(output.format, &doc, ctx.pretty)))
}

fn discovery_doc(app: &Arc<App>, ctx: &Ctx, core: bool) -> ApiResult<Response> {
    if ctx.method != Method::GET && ctx.method != Method::HEAD {
        return Err(method_not_allowed());
    }
    match discovery::discovery_format(ctx.accept()) {
        None => Err(not_acceptable()),
        Some(DiscoveryFormat::Legacy) => {
            let host = ctx.header("host").unwrap_or("127.0.0.1").to_string();
            let doc = if core { discovery::api_versions(&host) } else { discovery::api_group_list(&app.registry) };
            Ok(json_response(ctx, StatusCode::OK, &doc))
        }
        Some(DiscoveryFormat::Aggregated(version)) => {
            let doc = discovery::aggregated(&app.registry, core, version);
            let body = encode::body(Format::Json, &doc, ctx.pretty);
            let etag = discovery::etag(&body);
            let mut resp = if ctx.header("if-none-match") == Some(etag.as_str()) {
                let mut r = Response::new(Body::empty());
                *r.status_mut() = StatusCode::NOT_MODIFIED;
                r
            } else {
                bytes_response(StatusCode::OK, &discovery::aggregated_content_type(version), body)
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
            if crate::review::is_review(&rt) {
                return crate::review::create(ctx, &path, &body);
            }
            write::create(app, ctx, &path, &body)
        }
        (&Method::POST, Some(name)) => Err(bad_request(format!(
            "the server does not allow this method on the requested resource (post {} {name})",
            rt.qualified_name()
        ))),
        (&Method::PUT, Some(name)) => {
            require_verb(&rt, "update")?;
            write::update(app, ctx, &path, name, &body)
        }
        (&Method::PATCH, Some(name)) => {
            require_verb(&rt, "patch")?;
            write::patch(app, ctx, &path, name, &body)
        }
        (&Method::DELETE, Some(name)) => {
            require_verb(&rt, "delete")?;
            write::delete(app, ctx, &path, name, &body)
        }
        (&Method::DELETE, None) => {
            require_verb(&rt, "deletecollection")?;
            write::delete_collection(app, ctx, &path, &body)
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
            write::scale_get(app, ctx, path, name)
        }
        ("status" | "scale", &Method::PUT) => {
            allowed("update")?;
            write::update(app, ctx, path, name, body)
        }
        ("status" | "scale", &Method::PATCH) => {
            allowed("patch")?;
            write::patch(app, ctx, path, name, body)
        }
        _ => Err(method_not_allowed()),
    }
}

pub fn require_verb(rt: &ResourceType, verb: &str) -> ApiResult<()> {
    if rt.allows(verb) {
        Ok(())
    } else {
        Err(method_not_allowed())
    }
}

/// Reads one object, honouring `resourceVersion` (a future one is 504).
fn get_response(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str) -> ApiResult<Response> {
    let rt = &path.rt;
    let output = ctx.output(Target::Object)?;
    let include = IncludeObject::parse(ctx.query.get("includeObject").map(String::as_str)).map_err(bad_request)?;
    let ns = path.namespace.as_deref().unwrap_or_default();
    let state = app.store.read();
    if let Some(rv) = ctx.query.get("resourceVersion").filter(|r| !r.is_empty()) {
        match rv.parse::<u64>() {
            Ok(n) if n > state.rv => return Err(list::too_large_rv(n, state.rv)),
            Ok(_) => {}
            Err(_) => {
                return Err(bad_request(format!(
                    "invalid resource version: strconv.ParseUint: parsing \"{rv}\": invalid syntax"
                )))
            }
        }
    }
    let obj = state.get(&rt.storage_key(), ns, name).ok_or_else(|| not_found(rt, name))?;
    drop(state);
    Ok(render_object(ctx, rt, &obj, output, include, StatusCode::OK))
}

/// An object in the negotiated shape, with its apiVersion set to the requested version.
pub fn render_object(
    ctx: &Ctx,
    rt: &ResourceType,
    obj: &Value,
    output: Output,
    include: IncludeObject,
    code: StatusCode,
) -> Response {
    let obj = with_version(rt, obj);
    let body = match output.shape {
        Shape::Object => encode::body(output.format, &Ordered::new(&obj, order_of(rt)), ctx.pretty),
        Shape::Table(v) => {
            let mut meta = Map::new();
            if let Some(rv) = obj["metadata"]["resourceVersion"].as_str() {
                meta.insert("resourceVersion".into(), Value::String(rv.into()));
            }
            encode::body(output.format, &table::table(rt, &[&obj], meta, include, v.api_version(), true), ctx.pretty)
        }
        Shape::Metadata(v) => {
            let pm = table::partial_metadata(&obj, v.api_version());
            encode::body(output.format, &Ordered::new(&pm, Order::Typed), ctx.pretty)
        }
    };
    bytes_response(code, output.content_type(), body)
}

/// Objects are stored once per group; a read through another version relabels them.
pub fn with_version(rt: &ResourceType, obj: &Value) -> Value {
    let mut o = obj.clone();
    if let Some(m) = o.as_object_mut() {
        m.insert("apiVersion".into(), Value::String(rt.api_version()));
    }
    o
}

#[derive(Serialize)]
struct ListBody<'a> {
    kind: String,
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    metadata: Map<String, Value>,
    items: Vec<Ordered<'a>>,
}

#[derive(Serialize)]
struct MetadataList {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    metadata: Map<String, Value>,
    items: Vec<PartialItem>,
}

/// A PartialObjectMetadata list item, a struct on the wire.
struct PartialItem(Value);

impl Serialize for PartialItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Ordered::new(&self.0, Order::Typed).serialize(s)
    }
}

fn list_response(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, opts: &ListOptions) -> ApiResult<Response> {
    let rt = &path.rt;
    let output = ctx.output(Target::List)?;
    let include = IncludeObject::parse(ctx.query.get("includeObject").map(String::as_str)).map_err(bad_request)?;
    let page = list::list(&app.store, rt, path.namespace.as_deref(), opts)?;
    let mut meta = Map::new();
    meta.insert("resourceVersion".into(), Value::String(page.rv.to_string()));
    let is_table = matches!(output.shape, Shape::Table(_));
    match &page.continue_token {
        Some(t) => {
            meta.insert("continue".into(), Value::String(t.clone()));
        }
        None if page.paged && !is_table => {
            meta.insert("continue".into(), Value::String(String::new()));
        }
        None => {}
    }
    if let Some(r) = page.remaining {
        meta.insert("remainingItemCount".into(), Value::from(r));
    }
    let api_version = rt.api_version();
    let body = match output.shape {
        Shape::Object => {
            let items = page
                .items
                .iter()
                .map(|o| Ordered {
                    value: o,
                    order: order_of(rt),
                    skip_type: !rt.is_custom(),
                    api_version: Some(&api_version),
                })
                .collect();
            let list = ListBody { kind: format!("{}List", rt.kind), api_version: &api_version, metadata: meta, items };
            encode::body(output.format, &list, ctx.pretty)
        }
        Shape::Table(v) => {
            let objs: Vec<Value> = page.items.iter().map(|o| with_version(rt, o)).collect();
            let refs: Vec<&Value> = objs.iter().collect();
            encode::body(output.format, &table::table(rt, &refs, meta, include, v.api_version(), true), ctx.pretty)
        }
        Shape::Metadata(v) => {
            let items = page.items.iter().map(|o| PartialItem(table::partial_metadata(o, v.api_version()))).collect();
            let list =
                MetadataList { kind: "PartialObjectMetadataList", api_version: v.api_version(), metadata: meta, items };
            encode::body(output.format, &list, ctx.pretty)
        }
    };
    Ok(bytes_response(StatusCode::OK, output.content_type(), body))
}
