//! The answer to a write: the object in the negotiated representation, with `Warning`s.

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use kube_wire::params::IncludeObject;
use serde_json::Value;

use crate::encoding::negotiate::Target;
use crate::http::{render_object, Ctx};
use crate::rules::status::ApiResult;
use crate::rules::status::{ApiError, Details, Status};
use crate::store::registry::ResourceType;

/// The stored object as the write's answer, with a `Warning` header per problem the write let
/// through (field validation `Warn`).
pub fn success(
    ctx: &Ctx,
    rt: &ResourceType,
    obj: &Value,
    code: StatusCode,
    warnings: &[String],
) -> ApiResult<Response> {
    let output = ctx.output(Target::Object, rt.protobuf())?;
    let mut resp = render_object(ctx, rt, obj, output, IncludeObject::Metadata, code)?;
    for w in warnings {
        let text = format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""));
        if let Ok(v) = HeaderValue::from_str(&text) {
            resp.headers_mut().append("warning", v);
        }
    }
    Ok(resp)
}

/// The 422 kube-apiserver answers a patch that applies to nothing it can store.
pub fn patch_rejected() -> ApiError {
    Status::failure(422, "Invalid", "the server rejected our request due to an error in our request")
        .with_details(Details::default())
        .into()
}
