//! **delete** and **deletecollection** (`DELETE`), with their options and preconditions.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use crate::http::write::after::after_write;
use crate::http::write::body::decode_json;
use crate::http::write::options::{options_invalid, WriteOptions};
use crate::http::write::reply::success;
use crate::http::{Ctx, ResourcePath};
use crate::rules::list::ListOptions;
use crate::rules::status::{bad_request, FieldError};
use crate::rules::status::{ApiResult, Details, Status};
use crate::store::deletion::MAX_GRACE_SECONDS;
use crate::store::deletion::{delete_in, DeleteOptions, Deleted};
use crate::store::Obj;
use crate::{app::App, rules::status, store::object};

pub fn delete(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let o = delete_options(ctx, body)?;
    let ns = path.namespace.clone().unwrap_or_default();
    let outcome = app.store.write(|txn| delete_in(app, txn, &rt, &ns, name, &o))?;
    match (&outcome, o.dry_run) {
        (Deleted::Gone(obj), false) => after_write(app, &rt, obj, true),
        (Deleted::Pending(obj), false) => after_write(app, &rt, obj, false),
        _ => {}
    }
    match outcome {
        Deleted::Pending(obj) => success(ctx, &rt, &obj, StatusCode::OK, &[]),
        Deleted::Gone(obj) if rt.group.is_empty() && rt.plural == "pods" => {
            success(ctx, &rt, &obj, StatusCode::OK, &[])
        }
        Deleted::Gone(obj) => {
            let s =
                Status::success(Details { uid: object::uid(&obj).to_string(), ..status::resource_details(&rt, name) });
            Ok(crate::http::status_response(ctx, &s))
        }
    }
}

pub fn delete_collection(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = ListOptions::parse(&ctx.query, &rt, false)?;
    let o = delete_options(ctx, body)?;
    let ns = path.namespace.clone();
    let (items, rv) = app.store.write(|txn| {
        let targets: Vec<Obj> =
            txn.state().list(&rt.storage_key(), ns.as_deref()).into_iter().filter(|x| opts.matches(x)).collect();
        let mut out = Vec::new();
        for t in targets {
            match delete_in(app, txn, &rt, object::namespace(&t), object::name(&t), &o) {
                Ok(Deleted::Gone(x)) => out.push((x, true)),
                Ok(Deleted::Pending(x)) => out.push((x, false)),
                Err(_) => {}
            }
        }
        (out, txn.state().rv)
    });
    if !o.dry_run {
        for (item, gone) in &items {
            after_write(app, &rt, item, *gone);
        }
    }
    let items: Vec<Obj> = items.into_iter().map(|(item, _)| item).collect();
    let items: Vec<Value> = items.iter().map(|i| crate::http::with_version(&rt, i)).collect();
    let list = json!({"apiVersion": rt.api_version(), "items": items, "kind": format!("{}List", rt.kind),
        "metadata": {"continue": "", "resourceVersion": rv.to_string()}});
    Ok(crate::http::json_response(ctx, StatusCode::OK, &list))
}

/// The options of a delete: its body (a `DeleteOptions`) and its query, which wins; a bad
/// propagation policy is a 422 worded as kube-apiserver words it.
pub fn delete_options(ctx: &Ctx, body: &[u8]) -> ApiResult<DeleteOptions> {
    let mut o = DeleteOptions::default();
    if !body.iter().all(u8::is_ascii_whitespace) {
        let v = decode_json(body)
            .map_err(|e| bad_request(format!("couldn't get version/kind; json parse error: {e}")))?
            .value;
        o.grace = v["gracePeriodSeconds"].as_i64();
        o.propagation = v["propagationPolicy"].as_str().map(str::to_string);
        o.uid = v["preconditions"]["uid"].as_str().map(str::to_string);
        o.resource_version = v["preconditions"]["resourceVersion"].as_str().map(str::to_string);
        o.dry_run = v["dryRun"].as_array().is_some_and(|a| a.iter().any(|d| d == "All"));
    }
    if let Some(g) = ctx.query.get("gracePeriodSeconds") {
        o.grace =
            Some(g.parse().map_err(|_| bad_request(format!("strconv.ParseInt: parsing \"{g}\": invalid syntax")))?);
    }
    if let Some(p) = ctx.query.get("propagationPolicy") {
        o.propagation = Some(p.clone());
    }
    if let Some(p) = ctx.query.get("preconditions.uid") {
        o.uid = Some(p.clone());
    }
    if let Some(p) = ctx.query.get("preconditions.resourceVersion") {
        o.resource_version = Some(p.clone());
    }
    o.dry_run = o.dry_run || WriteOptions::parse(ctx)?.dry_run;
    if let Some(p) = &o.propagation {
        if !matches!(p.as_str(), "Orphan" | "Background" | "Foreground") {
            return Err(options_invalid(
                "DeleteOptions",
                vec![FieldError::not_supported("propagationPolicy", p, &["Foreground", "Background", "Orphan", "nil"])],
            ));
        }
    }
    // Negative means now; anything beyond a year is clamped so timestamps stay representable.
    o.grace = o.grace.map(|g| g.clamp(0, MAX_GRACE_SECONDS));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use axum::http::Method;

    use super::*;
    use crate::rules::status::ApiError;

    fn ctx(query: &[(&str, &str)]) -> Ctx {
        Ctx::for_test(Method::DELETE, query)
    }

    #[test]
    fn the_query_wins_over_the_body() {
        let body = br#"{"kind":"DeleteOptions","gracePeriodSeconds":30,"propagationPolicy":"Orphan","preconditions":{"uid":"u1"}}"#;
        let options = delete_options(&ctx(&[("gracePeriodSeconds", "5"), ("propagationPolicy", "Foreground")]), body)
            .expect("valid");
        assert_eq!(options.grace, Some(5));
        assert_eq!(options.propagation.as_deref(), Some("Foreground"));
        assert_eq!(options.uid.as_deref(), Some("u1"));
        assert!(!options.dry_run);
        assert!(delete_options(&ctx(&[("dryRun", "All")]), b"").expect("valid").dry_run);
    }

    #[test]
    fn a_grace_period_is_clamped_and_a_bad_policy_refused() {
        assert_eq!(delete_options(&ctx(&[("gracePeriodSeconds", "-3")]), b"  ").expect("valid").grace, Some(0));
        let far = delete_options(&ctx(&[("gracePeriodSeconds", "999999999999")]), b"").expect("valid");
        assert_eq!(far.grace, Some(MAX_GRACE_SECONDS));
        match delete_options(&ctx(&[("propagationPolicy", "Sometimes")]), b"") {
            Err(ApiError::Status(status)) => {
                assert_eq!(status.code, 422);
                assert!(status.message.starts_with("DeleteOptions.meta.k8s.io"), "{}", status.message);
            }
            other => panic!("expected a 422, got {other:?}"),
        }
        assert!(delete_options(&ctx(&[("gracePeriodSeconds", "soon")]), b"").is_err());
        assert!(delete_options(&ctx(&[]), b"{not json").is_err());
    }
}
