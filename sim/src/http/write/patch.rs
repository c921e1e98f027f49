//! **patch** (`PATCH`): JSON patch, merge patch, strategic merge patch, and server-side apply
//! handed to [`crate::http::apply`].

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use kube_wire::media_type::{Essence, MediaType, PatchType};
use serde_json::json;

use crate::encoding::negotiate::essence;
use crate::http::write::after::after_write;
use crate::http::write::body::{check_type, decode_json, field_problems};
use crate::http::write::options::{options_invalid, FieldValidation, WriteOptions};
use crate::http::write::reply::patch_rejected;
use crate::http::write::reply::success;
use crate::http::write::scale::scale_write;
use crate::http::write::update::{finish_update, How};
use crate::http::{Ctx, ResourcePath};
use crate::rules::patch::{self, PatchError};
use crate::rules::status::{bad_request, not_found, ApiResult, Cause, Details, FieldError, Status};
use crate::{app::App, http::apply, rules::status};

pub fn patch(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let ct = ctx.header("content-type").map(essence).unwrap_or_default();
    let accepted: &[&str] = if rt.is_custom() {
        &[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
            "application/apply-patch+cbor",
        ]
    } else {
        &[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml",
            "application/apply-patch+cbor",
        ]
    };
    // The patch types are api's; the merge semantics below are kube-sim's own (an independent
    // oracle for the explorer's patch builders).
    let media_type = ct.parse::<MediaType>().ok();
    let apply_cbor = media_type.as_ref().is_some_and(|m| m.essence == Essence::ApplyPatchCbor);
    let kind = match media_type.as_ref().and_then(PatchType::from_media_type) {
        Some(PatchType::StrategicMerge) if rt.is_custom() => None,
        other => other,
    };
    let Some(kind) = kind else { return Err(status::unsupported_media_type(accepted)) };
    let opts = WriteOptions::parse(ctx)?;
    if kind != PatchType::Apply && opts.force.is_some() {
        return Err(options_invalid(
            "PatchOptions",
            vec![FieldError::forbidden("force", "may not be specified for non-apply patch")],
        ));
    }
    if kind == PatchType::Apply {
        return apply::apply(app, ctx, path, name, body, &opts, apply_cbor);
    }
    if path.subresource.as_deref() == Some("scale") {
        return scale_write(app, ctx, path, name, None, Some((kind, body)));
    }
    let ns = path.namespace.clone().unwrap_or_default();
    let key = rt.storage_key();
    let sub = path.subresource.clone();
    let schema = app.schemas.root(&rt).cloned();
    let mut warnings = Vec::new();
    let stored = app.store.write(|txn| {
        let old = txn.get(&key, &ns, name).ok_or_else(|| not_found(&rt, name))?;
        let current = crate::http::with_version(&rt, &old);
        let patched = match kind {
            PatchType::Json => patch::json_patch(&current, body),
            PatchType::Merge => patch::merge_patch(&current, body),
            _ => match decode_json(body) {
                Ok(d) => patch::strategic_merge(&app.schemas, schema.as_ref(), &current, &d.value),
                Err(e) => Err(PatchError::Malformed(e)),
            },
        };
        let mut patched = match patched {
            Ok(p) if p.is_object() => p,
            Ok(_) | Err(PatchError::Rejected) => return Err(patch_rejected()),
            Err(PatchError::Malformed(e)) => return Err(bad_request(format!("error decoding patch: {e}"))),
        };
        check_type(&rt, &mut patched)?;
        let dups = if kind == PatchType::Json {
            Vec::new()
        } else {
            decode_json(body).map(|d| d.duplicates).unwrap_or_default()
        };
        let problems = field_problems(app, &rt, &patched, &dups, &opts);
        if opts.validation == FieldValidation::Strict && !problems.is_empty() {
            let text = serde_json::to_string(&patched).unwrap_or_default();
            let detail = format!("Invalid value: {}: strict decoding error: {}", json!(text), problems.join(", "));
            return Err(Status::failure(422, "Invalid", format!(" \"\" is invalid: patch: {detail}"))
                .with_details(Details {
                    causes: vec![Cause { reason: "FieldValueInvalid".into(), message: detail, field: "patch".into() }],
                    ..Details::default()
                })
                .into());
        }
        warnings = problems;
        finish_update(app, txn, &rt, &old, patched, How { opts: &opts, subresource: sub.as_deref(), managed: None })
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
    }
    success(ctx, &rt, &stored, StatusCode::OK, &warnings)
}
