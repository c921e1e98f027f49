//! What a request asks to do, derived from its method, path and query as kube-apiserver's
//! `RequestInfoFactory` derives it, before any routing: the authorizer's [`Attributes`].
//!
//! - Paths outside `/api/VERSION/…` and `/apis/GROUP/VERSION/…` (discovery, `/version`,
//!   `/openapi/…`, `/healthz`) are non-resource requests; their verb is the method in lower case.
//! - Resource requests: GET and HEAD are `get` with a name, else `list`, or `watch` with the
//!   `watch` parameter or the `/watch/` path prefix; POST `create`, PUT `update`, PATCH
//!   `patch`, DELETE `delete`, or `deletecollection` without a name.
//! - `namespaces/NAME` is in the namespace NAME (so a RoleBinding there can let a user read its
//!   own namespace); a list or watch with the field selector `metadata.name=NAME` names NAME (so
//!   rules with `resourceNames` can allow `kubectl get pod x -w`).

use crate::auth::rbac::{Attributes, ResourceAttributes};
use crate::rules::list::Query;

/// Subresources of a namespace, which are not resource names in it.
const NAMESPACE_SUBRESOURCES: &[&str] = &["status", "finalize"];

pub fn attributes(method: &str, path: &str, query: &Query) -> Attributes {
    let non_resource = || Attributes::NonResource { verb: method.to_ascii_lowercase(), path: path.to_string() };
    let trimmed = path.trim_matches('/');
    let parts: Vec<&str> = if trimmed.is_empty() { Vec::new() } else { trimmed.split('/').collect() };
    if parts.len() < 3 || !matches!(parts[0], "api" | "apis") {
        return non_resource();
    }
    let mut rest = &parts[1..];
    let mut group = "";
    if parts[0] == "apis" {
        if rest.len() < 3 {
            return non_resource();
        }
        group = rest[0];
        rest = &rest[1..];
    }
    // The version.
    rest = &rest[1..];
    let mut verb = match method {
        "POST" => "create",
        "GET" | "HEAD" => "get",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" => "delete",
        _ => "",
    }
    .to_string();
    if matches!(rest.first(), Some(&("watch" | "proxy"))) && rest.len() >= 2 {
        verb = rest[0].to_string();
        rest = &rest[1..];
    }
    let mut namespace = "";
    if rest.first() == Some(&"namespaces") && rest.len() > 1 {
        namespace = rest[1];
        if rest.len() > 2 && !NAMESPACE_SUBRESOURCES.contains(&rest[2]) {
            rest = &rest[2..];
        }
    }
    let mut a =
        ResourceAttributes { verb, group: group.to_string(), namespace: namespace.to_string(), ..Default::default() };
    if rest.len() >= 3 && a.verb != "proxy" {
        a.subresource = rest[2].to_string();
    }
    if rest.len() >= 2 {
        a.name = rest[1].to_string();
    }
    if let Some(resource) = rest.first() {
        a.resource = resource.to_string();
    }
    if a.name.is_empty() && a.verb == "get" {
        a.verb = if query.get("watch").is_some_and(|w| go_bool(w)) { "watch" } else { "list" }.to_string();
        if let Some(name) = query.get("fieldSelector").and_then(|s| exact_name(s)) {
            a.name = name;
        }
    }
    if a.name.is_empty() && a.verb == "delete" {
        a.verb = "deletecollection".to_string();
    }
    Attributes::Resource(a)
}

/// `strconv.ParseBool`'s true.
fn go_bool(s: &str) -> bool {
    matches!(s, "1" | "t" | "T" | "true" | "TRUE" | "True")
}

/// The name a field selector requires (`metadata.name=x` or `==`, among other terms), if it is
/// a valid path segment.
fn exact_name(selector: &str) -> Option<String> {
    selector.split(',').find_map(|term| {
        let value = term.trim().strip_prefix("metadata.name")?;
        let value = value.strip_prefix("==").or_else(|| value.strip_prefix('='))?;
        let valid = !value.is_empty() && value != "." && value != ".." && !value.contains(['/', '%']);
        valid.then(|| value.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(method: &str, target: &str, expect: &str) {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let query: Query = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        let got = match attributes(method, path, &query) {
            Attributes::NonResource { verb, path } => format!("{verb} path {path}"),
            Attributes::Resource(a) => {
                format!("{} {}|{}|{}|{}|{}", a.verb, a.group, a.resource, a.subresource, a.namespace, a.name)
            }
        };
        assert_eq!(got, expect, "{method} {target}");
    }

    #[test]
    fn the_verb_and_resource_are_derived_as_kube_apiserver_derives_them() {
        check("GET", "/api/v1/namespaces/demo/pods", "list |pods||demo|");
        check("GET", "/api/v1/namespaces/demo/pods?watch=true", "watch |pods||demo|");
        check("GET", "/api/v1/namespaces/demo/pods?watch=false", "list |pods||demo|");
        check("GET", "/api/v1/watch/namespaces/demo/pods/web-1", "watch |pods||demo|web-1");
        check("GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-1&watch=1", "watch |pods|||web-1");
        check("GET", "/api/v1/namespaces/demo/pods/web-1", "get |pods||demo|web-1");
        check("GET", "/api/v1/namespaces/demo/pods/web-1/log", "get |pods|log|demo|web-1");
        check("HEAD", "/api/v1/nodes/node-1", "get |nodes|||node-1");
        check("POST", "/apis/apps/v1/namespaces/demo/deployments", "create apps|deployments||demo|");
        check("PUT", "/apis/apps/v1/namespaces/demo/deployments/web/scale", "update apps|deployments|scale|demo|web");
        check(
            "PATCH",
            "/apis/apps/v1/namespaces/demo/deployments/web/status",
            "patch apps|deployments|status|demo|web",
        );
        check("DELETE", "/api/v1/namespaces/demo/pods/web-1", "delete |pods||demo|web-1");
        check("DELETE", "/api/v1/namespaces/demo/pods", "deletecollection |pods||demo|");
        check("GET", "/api/v1/namespaces", "list |namespaces|||");
        check("GET", "/api/v1/namespaces/demo", "get |namespaces||demo|demo");
        check("PUT", "/api/v1/namespaces/demo/finalize", "update |namespaces|finalize|demo|demo");
        check(
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "create authorization.k8s.io|selfsubjectaccessreviews|||",
        );
    }

    #[test]
    fn discovery_and_other_paths_are_non_resource_requests() {
        check("GET", "/api", "get path /api");
        check("GET", "/api/v1", "get path /api/v1");
        check("GET", "/apis/apps/v1", "get path /apis/apps/v1");
        check("GET", "/version", "get path /version");
        check("GET", "/openapi/v3/apis/apps/v1", "get path /openapi/v3/apis/apps/v1");
        check("POST", "/metrics", "post path /metrics");
    }
}
