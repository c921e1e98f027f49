//! `pods/proxy` and `services/proxy`: kube-apiserver forwards the request to a pod's port and
//! hands back its answer (pkg/registry/core/pod/strategy.go and service/proxy.go
//! `ResourceLocation`). Here the simulated container's HTTP server (`exec::page`) answers.
//!
//! - `pods/NAME[:PORT]/proxy/PATH`, `pods/SCHEME:NAME:PORT/proxy/PATH`: without a port, the
//!   first port the pod's containers declare.
//! - `services/NAME[:PORT]/proxy/PATH`: PORT is a service port's name or number (without one,
//!   the service's only port); the request goes to a ready pod the selector picks, at the
//!   port's `targetPort` (a number, or a container port's name).
//! - No ready pod: 503 `no endpoints available for service "NAME"`; a port nothing listens on:
//!   503 `error trying to reach service: dial tcp IP:PORT: connect: connection refused`, as the
//!   real proxy's error responder words them.

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use crate::app::App;
use crate::exec::page::Server;
use crate::http::{bytes_response, Ctx};
use crate::rules::selector::object_selector_matches;
use crate::rules::status::{bad_request, not_found, ApiError, ApiResult, Status};

/// Answers `…/namespaces/NS/{pods,services}/NAME/proxy/REST`.
pub fn serve(app: &App, ctx: &Ctx, ns: &str, plural: &str, name: &str, rest: &[&str]) -> ApiResult<Response> {
    let path = format!("/{}", rest.join("/"));
    let rt = app.registry.find("", "v1", plural).ok_or(ApiError::PageNotFound)?;
    let (name, port) = split_name(name);
    let state = app.store.read();
    let (pod, port) = if plural == "pods" {
        let pod = state.get("/pods", ns, name).ok_or_else(|| not_found(&rt, name))?;
        let port = match port {
            Some(p) => p.parse::<u16>().map_err(|_| bad_request(format!("invalid port \"{p}\" for pod {name}")))?,
            None => first_port(&pod).unwrap_or(80),
        };
        ((*pod).clone(), port)
    } else {
        let svc = state.get("/services", ns, name).ok_or_else(|| not_found(&rt, name))?;
        let no_endpoints = || unavailable(format!("no endpoints available for service \"{name}\""));
        let sp = service_port(&svc, port).ok_or_else(no_endpoints)?;
        let pods = state.list("/pods", Some(ns));
        let pod = pods
            .iter()
            .find(|p| {
                !svc["spec"]["selector"].is_null()
                    && object_selector_matches(&serde_json::json!({"matchLabels": svc["spec"]["selector"]}), p)
                    && is_ready(p)
            })
            .ok_or_else(no_endpoints)?;
        let target = match &sp["targetPort"] {
            Value::String(named) => named_port(pod, named).ok_or_else(no_endpoints)?,
            other => other.as_u64().or(sp["port"].as_u64()).and_then(|p| u16::try_from(p).ok()).unwrap_or(80),
        };
        ((**pod).clone(), target)
    };
    let ip = pod["status"]["podIP"].as_str().unwrap_or_default().to_string();
    if ip.is_empty() {
        return Err(unavailable(format!("pod {} has no IP address", pod["metadata"]["name"].as_str().unwrap_or(name))));
    }
    let Some(server) = Server::of(&pod, port) else {
        return Err(unavailable(format!(
            "error trying to reach service: dial tcp {ip}:{port}: connect: connection refused"
        )));
    };
    let (code, content_type, body) = server.page(ctx.method.as_str(), &path);
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    Ok(bytes_response(code, content_type, Bytes::from(body)))
}

/// `NAME`, `NAME:PORT` or `SCHEME:NAME:PORT` (`net.SplitSchemeNamePort`).
fn split_name(raw: &str) -> (&str, Option<&str>) {
    let parts: Vec<&str> = raw.split(':').collect();
    match parts.as_slice() {
        [name] => (name, None),
        [name, port] => (name, Some(*port).filter(|p| !p.is_empty())),
        [_scheme, name, port] => (name, Some(*port).filter(|p| !p.is_empty())),
        _ => (raw, None),
    }
}

fn unavailable(message: String) -> ApiError {
    Status::failure(503, "ServiceUnavailable", message).into()
}

fn first_port(pod: &Value) -> Option<u16> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .find_map(|c| c["ports"][0]["containerPort"].as_u64())
        .and_then(|p| u16::try_from(p).ok())
}

fn service_port<'a>(svc: &'a Value, wanted: Option<&str>) -> Option<&'a Value> {
    let ports = svc["spec"]["ports"].as_array()?;
    match wanted {
        None if ports.len() == 1 => ports.first(),
        None => None,
        Some(w) => {
            ports.iter().find(|p| p["name"] == w || p["port"].as_u64().map(|n| n.to_string()).as_deref() == Some(w))
        }
    }
}

fn named_port(pod: &Value, name: &str) -> Option<u16> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .flat_map(|c| c["ports"].as_array().into_iter().flatten())
        .find(|p| p["name"] == name)
        .and_then(|p| p["containerPort"].as_u64())
        .and_then(|p| u16::try_from(p).ok())
}

fn is_ready(pod: &Value) -> bool {
    pod["metadata"]["deletionTimestamp"].is_null()
        && pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_carry_a_port_and_a_scheme() {
        assert_eq!(split_name("web"), ("web", None));
        assert_eq!(split_name("web:8080"), ("web", Some("8080")));
        assert_eq!(split_name("https:web:443"), ("web", Some("443")));
        assert_eq!(split_name("web:"), ("web", None));
    }

    #[test]
    fn a_service_port_is_named_numbered_or_the_only_one() {
        let svc = json!({"spec": {"ports": [{"name": "http", "port": 80}, {"name": "admin", "port": 9000}]}});
        assert_eq!(service_port(&svc, Some("admin")).map(|p| p["port"].clone()), Some(json!(9000)));
        assert_eq!(service_port(&svc, Some("80")).map(|p| p["name"].clone()), Some(json!("http")));
        assert!(service_port(&svc, None).is_none(), "two ports need a name");
    }
}
