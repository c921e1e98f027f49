//! TokenRequest: `POST …/serviceaccounts/NAME/token` (what `kubectl create token` sends), answered
//! as kube-apiserver's token REST does (pkg/registry/core/serviceaccount/storage/token.go): the
//! service account must exist, `expirationSeconds` defaults to an hour and may not be under ten
//! minutes (pkg/apis/authentication/validation), the audiences default to the API server's, and
//! the answer is 201 with the request's spec and `status.token` / `status.expirationTimestamp`.
//! The token is `auth::tokens`'s, which kube-sim then accepts as the service account.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use crate::app::App;
use crate::auth::tokens::{self, Grant, AUDIENCE};
use crate::encoding::encode;
use crate::encoding::negotiate::{Protobuf, Target};
use crate::encoding::ordered::{Order, Ordered};
use crate::http::write::body::decode_object;
use crate::http::{bytes_response, Ctx, ResourcePath};
use crate::rules::status::{bad_request, invalid, not_found, ApiResult, FieldError};
use crate::store::object;

/// Answers a TokenRequest for service account `name`.
pub fn request(app: &App, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let ns = path.namespace.clone().unwrap_or_default();
    let request = decode_object(ctx, body)?.value;
    if let Some(kind) = request["kind"].as_str().filter(|k| *k != "TokenRequest") {
        return Err(bad_request(format!("{kind} is not a TokenRequest")));
    }
    let Some(account) = app.store.read().get(&path.rt.storage_key(), &ns, name) else {
        return Err(not_found(&path.rt, name));
    };
    let mut spec = request.get("spec").filter(|s| s.is_object()).cloned().unwrap_or_else(|| json!({}));
    if spec["audiences"].as_array().is_none_or(Vec::is_empty) {
        spec["audiences"] = json!([AUDIENCE]);
    }
    let seconds = spec["expirationSeconds"].as_i64().unwrap_or(3600);
    spec["expirationSeconds"] = json!(seconds);
    if seconds < 600 {
        return Err(invalid(
            "authentication.k8s.io",
            "TokenRequest",
            name,
            &[FieldError::invalid(
                "spec.expirationSeconds",
                &json!(seconds),
                "may not specify a duration less than 10 minutes",
            )],
        ));
    }
    if seconds > 1 << 32 {
        return Err(invalid(
            "authentication.k8s.io",
            "TokenRequest",
            name,
            &[FieldError::invalid(
                "spec.expirationSeconds",
                &json!(seconds),
                "may not specify a duration larger than 2^32 seconds",
            )],
        ));
    }
    if spec.get("boundObjectRef").is_none() {
        spec["boundObjectRef"] = Value::Null;
    }
    let audiences: Vec<String> =
        spec["audiences"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_string)).collect();
    let now = tokens::unix_now();
    let token = tokens::issue(&Grant {
        namespace: &ns,
        name,
        uid: object::uid(&account),
        audiences: &audiences,
        now,
        expiration_seconds: seconds,
    });
    let expires = chrono::DateTime::from_timestamp(now + seconds, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    let answer = json!({
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"name": name, "namespace": ns, "creationTimestamp": object::now_string()},
        "spec": spec,
        "status": {"token": token, "expirationTimestamp": expires},
    });
    // Not `render_object`: that relabels the answer with the service account's apiVersion.
    let protobuf = if crate::encoding::protobuf::has_message("authentication.k8s.io/v1", "TokenRequest") {
        Protobuf::Encodes
    } else {
        Protobuf::NoMessage
    };
    let output = ctx.output(Target::Object, protobuf)?;
    let body = encode::body(output.format, &Ordered::new(&answer, Order::Typed), ctx.pretty)?;
    Ok(bytes_response(StatusCode::CREATED, output.content_type(), body))
}
