//! `metrics.k8s.io/v1beta1`, as metrics-server serves it behind kube-apiserver's aggregator
//! (kubernetes-sigs/metrics-server `pkg/api/{node,pod,table}.go`, v0.8): NodeMetrics and
//! PodMetrics, `get` and `list` only (a watch or a write is 405), lists in namespace/name order
//! with label and field selectors, PodMetrics of Running pods only, a Table for `kubectl get`.
//! The figures are `controllers::metrics`'s.
//!
//! Errors as metrics-server gives them: a pod or node that does not exist is its lister's
//! NotFound (`pod "x" not found`), one without metrics (not Running) is
//! `pods.metrics.k8s.io "NS/NAME" not found`.

use std::sync::Arc;

use axum::http::{Method, StatusCode};
use axum::response::Response;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::controllers::metrics::{self, Usage};
use crate::encoding::encode;
use crate::encoding::negotiate::{Protobuf, Shape, Target};
use crate::http::{bytes_response, require_verb, Ctx, ResourcePath};
use crate::rules::list::Query;
use crate::rules::selector::{FieldSelector, LabelSelector};
use crate::rules::status::{bad_request, method_not_allowed, ApiError, ApiResult, Details, Status};
use crate::store::object;
use crate::store::registry::ResourceType;

pub const GROUP: &str = "metrics.k8s.io";

/// ObjectMeta as metrics-server fills it, in Go's field order.
#[derive(Serialize)]
struct Meta {
    name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    namespace: String,
    #[serde(rename = "creationTimestamp")]
    creation_timestamp: String,
    #[serde(skip_serializing_if = "Map::is_empty")]
    labels: Map<String, Value>,
}

#[derive(Serialize)]
struct Item {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(rename = "apiVersion", skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    metadata: Meta,
    timestamp: String,
    window: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    containers: Option<Vec<Value>>,
}

#[derive(Serialize)]
struct List {
    kind: String,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    metadata: Map<String, Value>,
    items: Vec<Item>,
}

/// One measured object: its item and the sum of its usage, for the Table.
struct Measured {
    item: Item,
    total: Usage,
}

pub fn serve(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath) -> ApiResult<Response> {
    let rt = &path.rt;
    if path.subresource.is_some() {
        return Err(ApiError::PageNotFound);
    }
    if ctx.method != Method::GET && ctx.method != Method::HEAD {
        return Err(method_not_allowed());
    }
    if ctx.query.get("watch").is_some_and(|w| w == "true" || w == "1") || path.watch_path {
        require_verb(rt, "watch")?;
    }
    let now = object::now();
    let (n, at) = metrics::scrape(now);
    let nodes = rt.plural == "nodes";
    let namespace = path.namespace.as_deref();
    let target = if path.name.is_some() { Target::Object } else { Target::List };
    let output = ctx.output(target, Protobuf::NoMessage)?;
    let mut measured = match &path.name {
        Some(name) => vec![get(app, rt, namespace, name, n, &at)?],
        None => list(app, rt, namespace, &ctx.query, n, &at)?,
    };
    let body = match output.shape {
        Shape::Table(v) => encode::body(output.format, &table(&measured, v.api_version()), ctx.pretty)?,
        _ if path.name.is_some() => {
            let mut m = measured.remove(0);
            m.item.kind = Some(if nodes { "NodeMetrics" } else { "PodMetrics" });
            m.item.api_version = Some("metrics.k8s.io/v1beta1");
            encode::body(output.format, &m.item, ctx.pretty)?
        }
        _ => {
            let kind = if nodes { "NodeMetricsList" } else { "PodMetricsList" };
            let items = measured.into_iter().map(|m| m.item).collect();
            let list = List { kind: kind.into(), api_version: "metrics.k8s.io/v1beta1", metadata: Map::new(), items };
            encode::body(output.format, &list, ctx.pretty)?
        }
    };
    Ok(bytes_response(StatusCode::OK, output.content_type(), body))
}

fn meta(obj: &Value, namespaced: bool) -> Meta {
    Meta {
        name: obj["metadata"]["name"].as_str().unwrap_or_default().to_string(),
        namespace: if namespaced {
            obj["metadata"]["namespace"].as_str().unwrap_or_default().to_string()
        } else {
            String::new()
        },
        creation_timestamp: object::now_string(),
        labels: obj["metadata"]["labels"].as_object().cloned().unwrap_or_default(),
    }
}

fn pod_item(pod: &Value, n: i64, at: &str) -> Measured {
    let mut total = Usage::default();
    let containers = metrics::pod_usage(pod, n)
        .into_iter()
        .map(|(name, u)| {
            total += u;
            json!({"name": name, "usage": metrics::usage_json(u)})
        })
        .collect();
    let item = Item {
        kind: None,
        api_version: None,
        metadata: meta(pod, true),
        timestamp: at.to_string(),
        window: "15s",
        usage: None,
        containers: Some(containers),
    };
    Measured { item, total }
}

fn node_item(node: &Value, pods: &[Value], n: i64, at: &str) -> Measured {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let mut total = metrics::node_overhead(name, n);
    for pod in pods.iter().filter(|p| p["spec"]["nodeName"] == name && metrics::has_metrics(p)) {
        for (_, u) in metrics::pod_usage(pod, n) {
            total += u;
        }
    }
    let item = Item {
        kind: None,
        api_version: None,
        metadata: meta(node, false),
        timestamp: at.to_string(),
        window: "15s",
        usage: Some(metrics::usage_json(total)),
        containers: None,
    };
    Measured { item, total }
}

/// A lister's NotFound (`pod "x" not found`), or metrics-server's own for an object it has no
/// metrics for (`pods.metrics.k8s.io "demo/x" not found`).
fn not_found(kind: &str, group: &str, name: &str) -> ApiError {
    let qualified = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
    let details =
        Details { name: name.to_string(), group: group.to_string(), kind: kind.to_string(), ..Default::default() };
    Status::failure(404, "NotFound", format!("{qualified} \"{name}\" not found")).with_details(details).into()
}

fn get(
    app: &App,
    rt: &ResourceType,
    namespace: Option<&str>,
    name: &str,
    n: i64,
    at: &chrono::DateTime<chrono::Utc>,
) -> ApiResult<Measured> {
    let at = object::timestamp(*at);
    let state = app.store.read();
    if rt.plural == "nodes" {
        let node = state.get("/nodes", "", name).ok_or_else(|| not_found("node", "", name))?;
        let pods: Vec<Value> = state.list("/pods", None).iter().map(|p| (**p).clone()).collect();
        return Ok(node_item(&node, &pods, n, &at));
    }
    let ns = namespace.unwrap_or_default();
    let pod = state.get("/pods", ns, name).ok_or_else(|| not_found("pod", "", name))?;
    if !metrics::has_metrics(&pod) {
        return Err(not_found("pods", GROUP, &format!("{ns}/{name}")));
    }
    Ok(pod_item(&pod, n, &at))
}

fn list(
    app: &App,
    rt: &ResourceType,
    namespace: Option<&str>,
    query: &Query,
    n: i64,
    at: &chrono::DateTime<chrono::Utc>,
) -> ApiResult<Vec<Measured>> {
    let at = object::timestamp(*at);
    let labels = LabelSelector::parse(query.get("labelSelector").map(String::as_str).unwrap_or_default())
        .map_err(bad_request)?;
    let fields = FieldSelector::parse(query.get("fieldSelector").map(String::as_str).unwrap_or_default(), rt)
        .map_err(bad_request)?;
    let state = app.store.read();
    let pods: Vec<Value> = state.list("/pods", None).iter().map(|p| (**p).clone()).collect();
    let chosen = |o: &Value| labels.matches(o) && fields.matches(o);
    if rt.plural == "nodes" {
        let nodes = state.list("/nodes", None);
        return Ok(nodes.iter().filter(|node| chosen(node)).map(|node| node_item(node, &pods, n, &at)).collect());
    }
    // The store lists in namespace/name order, the order metrics-server sorts into.
    Ok(pods
        .iter()
        .filter(|p| namespace.is_none_or(|ns| p["metadata"]["namespace"] == ns))
        .filter(|p| chosen(p) && metrics::has_metrics(p))
        .map(|p| pod_item(p, n, &at))
        .collect())
}

/// metrics-server's Table: Name, then `cpu` and `memory` (summed over containers), then Window.
fn table(measured: &[Measured], api_version: &str) -> Value {
    let columns = json!([
        {"name": "Name", "type": "string", "format": "name", "description": "Name of the resource", "priority": 0},
        {"name": "cpu", "type": "string", "format": "quantity", "description": "", "priority": 0},
        {"name": "memory", "type": "string", "format": "quantity", "description": "", "priority": 0},
        {"name": "Window", "type": "string", "format": "duration", "description": "", "priority": 0}
    ]);
    let rows: Vec<Value> = measured
        .iter()
        .map(|m| {
            let usage = metrics::usage_json(m.total);
            json!({"cells": [m.item.metadata.name, usage["cpu"], usage["memory"], m.item.window],
                "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                    "metadata": {"name": m.item.metadata.name, "namespace": m.item.metadata.namespace,
                        "creationTimestamp": m.item.metadata.creation_timestamp}}})
        })
        .collect();
    let columns = if measured.is_empty() { json!([]) } else { columns };
    json!({"kind": "Table", "apiVersion": api_version, "metadata": {}, "columnDefinitions": columns, "rows": rows})
}
