//! `pods/exec` and `pods/attach` (and `pods/portforward`, whose session is `portforward`'s), as
//! kube-apiserver 1.36 answers them before the kubelet streams (`pkg/registry/core/pod/rest/subresources.go`, `pkg/registry/core/pod/strategy.go`):
//!
//! 1. A WebSocket GET is authorized as `get` by the filters like any request, then again as
//!    `create` (`ensureAuthorizedForVerb`, feature gate AuthorizePodWebsocketUpgradeCreatePermission,
//!    beta and on since 1.35): `pods "NAME" is forbidden: REASON`. A POST (SPDY) is a `create`.
//! 2. The pod (404), the container (`container` or the only one, else 400 as `validateContainer`
//!    words it: kube-apiserver does not read the `kubectl.kubernetes.io/default-container`
//!    annotation, kubectl does), a node (400 `pod NAME does not have a host assigned`).
//! 3. Only an upgrade request goes on (400 `Upgrade request required`). A WebSocket upgrade gets
//!    its subprotocol (`exec::protocol`: 403 with no body when none is known) and a session
//!    (`stream`); a SPDY upgrade of exec or attach, which kube-sim does not speak, gets a 400
//!    Status that says so, which kubectl prints. Port-forward speaks both (`portforward`).
//!
//! Options as the API reads them (`PodExecOptions`, `PodAttachOptions`): a bool parameter is
//! false only as `0` or `false`; `stdout` and `stderr` are defaulted to true whenever there are
//! parameters at all (`SetDefaults_PodExecOptions` runs after the query is read, so even
//! `stdout=false` ends true); `command` repeats.

mod portforward;
mod stream;

use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::app::App;
use crate::auth::rbac::{self, Decision};
use crate::auth::request_info;
use crate::exec::container::{Container, Lookup};
use crate::exec::main::{Line, Main};
use crate::exec::protocol;
use crate::http::{bytes_response, error_response, Ctx};
use crate::rules::status::{bad_request, resource_details, ApiError, Status};

/// Which streaming subresource a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Exec,
    Attach,
    PortForward,
}

impl Kind {
    /// `/api/v1/namespaces/NS/pods/NAME/exec` or `…/attach`.
    pub fn of(path: &str) -> Option<Kind> {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match segments.as_slice() {
            ["api", "v1", "namespaces", _, "pods", _, "exec"] => Some(Kind::Exec),
            ["api", "v1", "namespaces", _, "pods", _, "attach"] => Some(Kind::Attach),
            ["api", "v1", "namespaces", _, "pods", _, "portforward"] => Some(Kind::PortForward),
            _ => None,
        }
    }
}

/// Whether a request asks for a WebSocket (`Upgrade: websocket` and a `Connection` that
/// includes `upgrade`), as `wsstream.IsWebSocketRequest` reads it.
pub fn is_websocket(headers: &HeaderMap) -> bool {
    let value = |name| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_ascii_lowercase();
    value(header::UPGRADE) == "websocket" && connection_upgrade(headers)
}

fn connection_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case("upgrade"))
}

/// The options of one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
    pub tty: bool,
    pub container: Option<String>,
    pub command: Vec<String>,
}

impl Options {
    pub fn parse(raw_query: Option<&str>) -> Options {
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(raw_query.unwrap_or_default().as_bytes()).into_owned().collect();
        let first = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let flag = |key: &str| first(key).is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false"));
        let defaulted = !pairs.is_empty();
        Options {
            stdin: flag("stdin"),
            stdout: defaulted,
            stderr: defaulted,
            tty: flag("tty"),
            container: first("container").map(str::to_string),
            command: pairs.iter().filter(|(k, _)| k == "command").map(|(_, v)| v.clone()).collect(),
        }
    }
}

/// Answers an exec, attach or port-forward request that the filters have let in: `upgrade` for a
/// WebSocket, `spdy_upgrade` (the connection hyper hands over after a 101) for a port-forward's SPDY
/// upgrade.
pub async fn serve(
    app: &Arc<App>,
    ctx: &Ctx,
    kind: Kind,
    upgrade: Option<Result<WebSocketUpgrade, WebSocketUpgradeRejection>>,
    spdy_upgrade: Option<hyper::upgrade::OnUpgrade>,
    raw_query: Option<&str>,
) -> Response {
    let (namespace, name) = match ctx.path.trim_matches('/').split('/').collect::<Vec<_>>().as_slice() {
        [_, _, _, ns, _, name, _] => (ns.to_string(), name.to_string()),
        _ => return error_response(ctx, ApiError::PageNotFound),
    };
    if kind == Kind::PortForward {
        return match admit_pod(app, ctx, &namespace, &name).and_then(|p| on_a_node(&p, &name).map(|()| p)) {
            Ok(pod) => portforward::serve(ctx, pod, upgrade, spdy_upgrade, raw_query),
            Err(e) => error_response(ctx, e),
        };
    }
    let options = Options::parse(raw_query);
    let (pod, container) = match admit(app, ctx, &namespace, &name, &options) {
        Ok(found) => found,
        Err(e) => return error_response(ctx, e),
    };
    let upgrade = match upgrade {
        Some(Ok(upgrade)) => upgrade,
        Some(Err(rejection)) => {
            return error_response(ctx, bad_request(format!("invalid WebSocket request: {rejection}")))
        }
        None if connection_upgrade(&ctx.headers) && ctx.method == Method::POST => return error_response(ctx, spdy()),
        None => return error_response(ctx, bad_request("Upgrade request required")),
    };
    let offered = ctx.headers.get_all(header::SEC_WEBSOCKET_PROTOCOL).iter().filter_map(|v| v.to_str().ok());
    let Some(protocol) = protocol::negotiate(offered) else {
        // golang.org/x/net/websocket's answer to a handshake it refuses.
        return bytes_response(StatusCode::FORBIDDEN, "text/plain; charset=utf-8", Default::default());
    };
    let session = stream::Session { app: app.clone(), kind, protocol, options, pod, container };
    if let Err(refusal) = session.check() {
        return *refusal;
    }
    let upgrade = match protocol.name() {
        Some(name) => upgrade.protocols([name]),
        None => upgrade,
    };
    upgrade.on_upgrade(move |socket| session.run(socket))
}

/// The checks before a stream is opened, in kube-apiserver's order: the `create` verb for a
/// WebSocket GET, the pod, the container, the node.
fn admit(app: &App, ctx: &Ctx, namespace: &str, name: &str, options: &Options) -> Result<(Value, String), ApiError> {
    let pod = admit_pod(app, ctx, namespace, name)?;
    let container = container_of(&pod, name, options.container.as_deref())?;
    on_a_node(&pod, name)?;
    Ok((pod, container))
}

fn on_a_node(pod: &Value, name: &str) -> Result<(), ApiError> {
    if pod["spec"]["nodeName"].as_str().unwrap_or_default().is_empty() {
        return Err(bad_request(format!("pod {name} does not have a host assigned")));
    }
    Ok(())
}

/// The checks every stream starts with: the `create` verb for a WebSocket GET, then the pod.
fn admit_pod(app: &App, ctx: &Ctx, namespace: &str, name: &str) -> Result<Value, ApiError> {
    if ctx.method == Method::GET {
        let attributes = request_info::attributes("POST", &ctx.path, &ctx.query);
        if let Decision::Deny { reason } = rbac::authorize(&app.store.read(), &ctx.user, &attributes) {
            let details =
                crate::rules::status::Details { name: name.to_string(), kind: "pods".into(), ..Default::default() };
            return Err(Status::failure(403, "Forbidden", format!("pods \"{name}\" is forbidden: {reason}"))
                .with_details(details)
                .into());
        }
    }
    let pods = app.registry.find("", "v1", "pods").ok_or(ApiError::PageNotFound)?;
    let pod = app.store.read().get("/pods", namespace, name).ok_or_else(|| {
        ApiError::from(
            Status::failure(404, "NotFound", format!("pods \"{name}\" not found"))
                .with_details(resource_details(&pods, name)),
        )
    })?;
    Ok((*pod).clone())
}

/// `validateContainer`: the named container (init and ephemeral ones count), or the only one.
fn container_of(pod: &Value, name: &str, wanted: Option<&str>) -> Result<String, ApiError> {
    let spec = &pod["spec"];
    let names = |field: &str| -> Vec<String> {
        spec[field].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str().map(str::to_string)).collect()
    };
    let containers = names("containers");
    match wanted.filter(|w| !w.is_empty()) {
        Some(w) => {
            let all = [names("initContainers"), containers, names("ephemeralContainers")].concat();
            if all.iter().any(|c| c == w) {
                Ok(w.to_string())
            } else {
                Err(bad_request(format!("container {w} is not valid for pod {name}")))
            }
        }
        None => match containers.as_slice() {
            [only] => Ok(only.clone()),
            [] => Err(bad_request(format!("a container name must be specified for pod {name}"))),
            _ => {
                let all = [names("initContainers"), containers, names("ephemeralContainers")].concat();
                Err(bad_request(format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    all.join(" ")
                )))
            }
        },
    }
}

/// What a SPDY upgrade gets: kube-sim streams over WebSocket only.
fn spdy() -> ApiError {
    bad_request(
        "kube-sim serves exec and attach over WebSocket only (v5.channel.k8s.io, v4.channel.k8s.io): \
         this client asked for a SPDY/3.1 upgrade, which kube-sim does not simulate; kubectl speaks WebSocket \
         from 1.30 on",
    )
}

/// The ConfigMaps, Secrets and Services a container reads, from the store.
pub(crate) struct StoreLookup<'a>(&'a App);

impl Lookup for StoreLookup<'_> {
    fn object(&self, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        self.0.store.read().get(&format!("/{plural}"), namespace, name).map(|o| (*o).clone())
    }

    fn services(&self, namespace: &str) -> Vec<Value> {
        self.0.store.read().list("/services", Some(namespace)).into_iter().map(|o| (*o).clone()).collect()
    }
}

/// The container's own process ([`Main`]: its `command`, when kube-sim can run it) started at
/// `started`, and the lines it wrote at once.
pub(crate) fn main_process(
    app: &App,
    pod: &Value,
    container: &str,
    started: chrono::DateTime<chrono::Utc>,
) -> Option<(Main, Vec<Line>)> {
    // Most containers run their image's entrypoint: no need to read their ConfigMaps, Secrets and
    // Services (what `Container::of` reads) on every log request to find that out.
    let spec = &pod["spec"];
    let declared = spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(spec["initContainers"].as_array().into_iter().flatten())
        .find(|c| c["name"] == container)?;
    let given = |key: &str| declared[key].as_array().is_some_and(|words| !words.is_empty());
    if !given("command") && !given("args") {
        return None;
    }
    Main::start(Container::of(pod, container, false, &StoreLookup(app)), started)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_as_the_api_reads_them() {
        let o = Options::parse(Some("command=sh&command=-c&command=echo%20hi&stdin=true&tty=1&container=web"));
        assert_eq!(o.command, ["sh", "-c", "echo hi"]);
        assert!(o.stdin && o.tty && o.stdout && o.stderr);
        assert_eq!(o.container.as_deref(), Some("web"));
        let o = Options::parse(Some("command=ls&stdout=false&stdin=FALSE&tty=0"));
        assert!(o.stdout && o.stderr, "defaulted after the query is read");
        assert!(!o.stdin && !o.tty);
        assert!(Options::parse(Some("stdin=")).stdin, "anything but 0 and false is true");
        assert_eq!(Options::parse(None), Options::default(), "no parameters, no defaults");
    }

    #[test]
    fn the_container_is_the_named_or_the_only_one() {
        let pod = serde_json::json!({"spec": {"initContainers": [{"name": "init"}],
            "containers": [{"name": "app"}, {"name": "sidecar"}]}});
        let message = |r: Result<String, ApiError>| match r {
            Err(ApiError::Status(s)) => s.message,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            message(container_of(&pod, "p", None)),
            "a container name must be specified for pod p, choose one of: [init app sidecar]"
        );
        assert_eq!(message(container_of(&pod, "p", Some("db"))), "container db is not valid for pod p");
        assert_eq!(container_of(&pod, "p", Some("init")).ok().as_deref(), Some("init"));
        let single = serde_json::json!({"spec": {"containers": [{"name": "app"}]}});
        assert_eq!(container_of(&single, "p", None).ok().as_deref(), Some("app"));
    }

    #[test]
    fn only_exec_and_attach_paths_are_streams() {
        assert_eq!(Kind::of("/api/v1/namespaces/demo/pods/web-1/exec"), Some(Kind::Exec));
        assert_eq!(Kind::of("/api/v1/namespaces/demo/pods/web-1/attach"), Some(Kind::Attach));
        assert_eq!(Kind::of("/api/v1/namespaces/demo/pods/web-1/portforward"), Some(Kind::PortForward));
        assert_eq!(Kind::of("/api/v1/namespaces/demo/pods/web-1/log"), None);
        assert_eq!(Kind::of("/api/v1/pods/web-1/exec"), None);
    }
}
