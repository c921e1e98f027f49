//! The filters every API request passes before it is routed, in kube-apiserver's order:
//! authentication (401 `Unauthorized` for a bad token), impersonation (each `Impersonate-*`
//! header needs the `impersonate` verb on users, groups, serviceaccounts, uids or userextras,
//! else 403; groups without a user are a plain-text 500), then authorization of the request's
//! attributes (403 worded as kube-apiserver words it). A watch of a forbidden type is refused
//! here, before it streams.

use axum::http::StatusCode;
use axum::response::Response;

use crate::auth::rbac::{self, Attributes, Decision, ResourceAttributes};
use crate::auth::{self, UserInfo};
use crate::http::{bytes_response, error_response, status_response, Ctx};
use crate::rules::status::Status;
use crate::{app::App, auth::request_info};

/// The user a request is made by, or the response that refuses it.
pub fn admit(app: &App, ctx: &Ctx) -> Result<UserInfo, Box<Response>> {
    let user = auth::authenticate(&app.users, &app.anonymous, ctx.header("authorization"))
        .map_err(|_| Box::new(status_response(ctx, &Status::failure(401, "Unauthorized", "Unauthorized"))))?;
    let headers = ctx.headers.iter().filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)));
    let requests = auth::impersonation_requests(headers).map_err(|e| {
        let text = format!("Internal Server Error: {}: {e}\n", quote_uri(ctx));
        Box::new(bytes_response(StatusCode::INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", text.into()))
    })?;
    let state = app.store.read();
    let user = if requests.is_empty() {
        user
    } else {
        for r in &requests {
            let (group, resource, subresource, namespace, name) = r.target();
            let attributes = Attributes::Resource(ResourceAttributes {
                verb: "impersonate".into(),
                group: group.into(),
                resource: resource.into(),
                subresource: subresource.into(),
                namespace: namespace.into(),
                name: name.into(),
            });
            if let Decision::Deny { reason } = rbac::authorize(&state, &user, &attributes) {
                return Err(Box::new(error_response(ctx, rbac::forbidden(&user.username, &attributes, &reason))));
            }
        }
        auth::impersonated(&requests)
    };
    let attributes = request_info::attributes(ctx.method.as_str(), &ctx.path, &ctx.query);
    match rbac::authorize(&state, &user, &attributes) {
        Decision::Allow { .. } => Ok(user),
        Decision::Deny { reason } => {
            Err(Box::new(error_response(ctx, rbac::forbidden(&user.username, &attributes, &reason))))
        }
    }
}

/// The request's path as Go's `%q` prints it.
fn quote_uri(ctx: &Ctx) -> String {
    format!("\"{}\"", ctx.path.replace('\\', "\\\\").replace('"', "\\\""))
}
