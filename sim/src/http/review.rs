//! The review APIs: SelfSubjectReview (authentication.k8s.io/v1, `kubectl auth whoami`),
//! TokenReview (the authenticator's answer for `spec.token`), SelfSubjectAccessReview and SelfSubjectRulesReview (authorization.k8s.io/v1,
//! `kubectl auth can-i`, `kubectl auth can-i --list`). As in kube-apiserver they are create-only
//! and never stored: a POST answers 201 with the request's spec and the `status` that
//! kube-sim's authenticator (`auth.rs`) and authorizer (`rbac.rs`) give for the requesting user.

use axum::http::StatusCode;
use axum::response::Response;
use kube_wire::params::IncludeObject;
use serde_json::{json, Value};

use crate::app::App;
use crate::auth::rbac::{self, Attributes, Decision};
use crate::encoding::negotiate::Target;
use crate::http::write::body::decode_object;
use crate::http::{render_object, Ctx, ResourcePath};
use crate::rules::status::{bad_request, invalid, ApiResult, FieldError};
use crate::store::registry::ResourceType;

/// Whether a type is one of the reviews answered here rather than stored.
pub fn is_review(rt: &ResourceType) -> bool {
    matches!(
        (rt.group.as_str(), rt.plural.as_str()),
        ("authentication.k8s.io", "selfsubjectreviews" | "tokenreviews")
            | ("authorization.k8s.io", "selfsubjectaccessreviews" | "selfsubjectrulesreviews")
    )
}

/// Answers a POST of a review.
pub fn create(app: &App, ctx: &Ctx, path: &ResourcePath, body: &[u8]) -> ApiResult<Response> {
    let rt = &path.rt;
    let review = decode_object(ctx, body)?.value;
    if let Some(kind) = review["kind"].as_str().filter(|k| *k != rt.kind) {
        return Err(bad_request(format!(
            "{kind} in version \"{}\" cannot be handled as a {}: no kind \"{kind}\" is registered for version \"{}\"",
            rt.version,
            rt.kind,
            rt.api_version()
        )));
    }
    let user = &ctx.user;
    let spec = review.get("spec").cloned().unwrap_or_else(|| json!({}));
    let status = match rt.plural.as_str() {
        "selfsubjectreviews" => json!({"userInfo": user.to_json()}),
        "tokenreviews" => {
            if spec["token"].as_str().is_none_or(str::is_empty) {
                return Err(bad_request("token is required for TokenReview in authentication"));
            }
            token_review(&app.users, &spec)
        }
        "selfsubjectaccessreviews" => {
            let resource = spec.get("resourceAttributes").filter(|v| !v.is_null());
            let non_resource = spec.get("nonResourceAttributes").filter(|v| !v.is_null());
            let attributes = match (resource, non_resource) {
                (Some(a), None) => Attributes::from_resource_review(a),
                (None, Some(a)) => Attributes::from_non_resource_review(a),
                (Some(_), Some(n)) => {
                    return Err(invalid(
                        &rt.group,
                        &rt.kind,
                        "",
                        &[FieldError::invalid(
                            "spec.nonResourceAttributes",
                            n,
                            "cannot be specified in combination with resourceAttributes",
                        )],
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        &rt.group,
                        &rt.kind,
                        "",
                        &[FieldError::invalid(
                            "spec.resourceAttributes",
                            &Value::Null,
                            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
                        )],
                    ))
                }
            };
            let (allowed, reason) = match rbac::authorize(&app.store.read(), user, &attributes) {
                Decision::Allow { reason } => (true, reason),
                Decision::Deny { reason } => (false, reason),
            };
            let mut status = json!({"allowed": allowed});
            if !reason.is_empty() {
                status["reason"] = json!(reason);
            }
            status
        }
        _ => {
            let namespace = spec["namespace"].as_str().unwrap_or_default();
            if namespace.is_empty() {
                return Err(bad_request("no namespace on request"));
            }
            let rules = rbac::rules(&app.store.read(), user, namespace);
            let mut status = json!({"resourceRules": rules.resource_rules,
                "nonResourceRules": rules.non_resource_rules, "incomplete": rules.incomplete});
            if let Some(e) = rules.evaluation_error {
                status["evaluationError"] = json!(e);
            }
            status
        }
    };
    let mut answer = json!({"kind": rt.kind, "apiVersion": rt.api_version(), "metadata": {}});
    if rt.plural != "selfsubjectreviews" {
        answer["spec"] = spec;
    }
    answer["status"] = status;
    let output = ctx.output(Target::Object, rt.protobuf())?;
    render_object(ctx, rt, &answer, output, IncludeObject::Metadata, StatusCode::CREATED)
}

/// A TokenReview's status, as kube-apiserver's (pkg/registry/authentication/tokenreview/
/// storage.go): the token's user and the audiences it was asked for and holds (the API
/// server's when none are asked for), or `error` and an empty user when it authenticates no
/// one or for none of the audiences.
fn token_review(users: &crate::auth::Users, spec: &Value) -> Value {
    let token = spec["token"].as_str().unwrap_or_default();
    let wanted: Vec<String> = match spec["audiences"].as_array().filter(|a| !a.is_empty()) {
        Some(a) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
        None => vec![crate::auth::tokens::AUDIENCE.to_string()],
    };
    let found = match users.by_token(token) {
        // A token-file user is valid for the API server's audiences.
        Some(user) => Some((user, vec![crate::auth::tokens::AUDIENCE.to_string()])),
        None => crate::auth::tokens::verify(token, crate::auth::tokens::unix_now()),
    };
    match found {
        Some((user, held)) => {
            let audiences: Vec<&String> = wanted.iter().filter(|a| held.contains(a)).collect();
            if audiences.is_empty() {
                json!({"user": {}, "error": "[invalid bearer token, token audiences is invalid]"})
            } else {
                json!({"authenticated": true, "user": user.to_json(), "audiences": audiences})
            }
        }
        None => json!({"user": {}, "error": "[invalid bearer token, service account token has been invalidated]"}),
    }
}
