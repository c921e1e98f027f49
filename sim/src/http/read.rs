//! **get** and **list**: one object, or a collection (paged, filtered, as a Table or
//! metadata-only when asked), in the negotiated representation.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::encoding::negotiate::{Format, Shape, Target};
use crate::encoding::ordered::{order_of, Order, Ordered};
use crate::http::{bytes_response, render_object, with_version, Ctx, ResourcePath};
use crate::rules::list::ListOptions;
use crate::rules::status::{bad_request, not_found, ApiResult};
use crate::{app::App, encoding::encode, encoding::table, rules::list};

/// Reads one object, honouring `resourceVersion` (a future one is 504).
pub fn get_response(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str) -> ApiResult<Response> {
    let rt = &path.rt;
    let output = ctx.output(Target::Object, rt.protobuf())?;
    let include = crate::encoding::table::parse_include_object(ctx.query.get("includeObject").map(String::as_str))
        .map_err(bad_request)?;
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
    render_object(ctx, rt, &obj, output, include, StatusCode::OK)
}

#[derive(Serialize)]
pub struct ListBody<'a> {
    kind: String,
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    metadata: Map<String, Value>,
    items: Vec<Ordered<'a>>,
}

#[derive(Serialize)]
pub struct MetadataList {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    metadata: Map<String, Value>,
    items: Vec<PartialItem>,
}

/// A PartialObjectMetadata list item, a struct on the wire.
pub struct PartialItem(Value);

impl Serialize for PartialItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Ordered::new(&self.0, Order::Typed).serialize(s)
    }
}

pub fn list_response(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, opts: &ListOptions) -> ApiResult<Response> {
    let rt = &path.rt;
    let output = ctx.output(Target::List, rt.protobuf())?;
    let include = crate::encoding::table::parse_include_object(ctx.query.get("includeObject").map(String::as_str))
        .map_err(bad_request)?;
    let mut page = list::list(&app.store, rt, path.namespace.as_deref(), opts)?;
    // events.k8s.io Events are stored as core Events: each item is converted (`rules::events`).
    if crate::rules::events::is_events_group(&rt.group, &rt.plural) {
        page.items = page.items.iter().map(|o| Arc::new(with_version(rt, o))).collect();
    }
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
        Shape::Object if output.format == Format::Cbor => encode::cbor_list(&encode::ListOf {
            kind: &format!("{}List", rt.kind),
            api_version: &api_version,
            metadata: &meta,
            items: &page.items,
            typed: !rt.is_custom(),
        })
        .into(),
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
            encode::body(output.format, &list, ctx.pretty)?
        }
        Shape::Table(v) => {
            let objs: Vec<Value> = page.items.iter().map(|o| with_version(rt, o)).collect();
            let refs: Vec<&Value> = objs.iter().collect();
            encode::body(output.format, &table::table(rt, &refs, meta, include, v.api_version(), true), ctx.pretty)?
        }
        Shape::Metadata(v) => {
            let items = page.items.iter().map(|o| PartialItem(table::partial_metadata(o, v.api_version()))).collect();
            let list =
                MetadataList { kind: "PartialObjectMetadataList", api_version: v.api_version(), metadata: meta, items };
            encode::body(output.format, &list, ctx.pretty)?
        }
    };
    Ok(bytes_response(StatusCode::OK, output.content_type(), body))
}
