//! `pods/portforward` over WebSocket, as the kubelet's streaming server speaks it
//! (k8s.io/kubernetes pkg/kubelet/cri/streaming/portforward/websocket.go): the `ports` query
//! parameter names the ports (at least one, each 1–65535); the subprotocol is
//! `v4.channel.k8s.io` (or `portforward.k8s.io`, `channel.k8s.io`, none: all binary); port i
//! has data channel 2i and error channel 2i+1, and the server's first message on each is the
//! port number, two bytes little-endian. A message from the client is its channel byte then
//! data for that port's connection. Behind each port is the simulated container's HTTP server
//! (`exec::page`); a port no container declares gets the kubelet's "connection refused" on its
//! error channel.
//!
//! kubectl (1.31 and later) does not speak this: it tunnels SPDY/3.1 through a WebSocket
//! (`SPDY/3.1+portforward.k8s.io`) and falls back to a SPDY upgrade, neither of which kube-sim
//! simulates; its offer is refused with a 400 that says so.

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{header, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::exec::page::{Connection, Reply, Server};
use crate::http::{bytes_response, error_response, Ctx};
use crate::rules::status::{bad_request, ApiError};

const PROTOCOLS: [&str; 3] = ["v4.channel.k8s.io", "portforward.k8s.io", "channel.k8s.io"];

/// The ports of a request: `ports=80,8080` (repeated or comma-separated), as the kubelet reads
/// them (`parsePortForwardOptions`, words included).
pub fn ports(raw_query: Option<&str>) -> Result<Vec<u16>, String> {
    let mut out = Vec::new();
    for (k, v) in form_urlencoded::parse(raw_query.unwrap_or_default().as_bytes()) {
        if k != "ports" {
            continue;
        }
        for p in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match p.parse::<u16>() {
                Ok(n) if n > 0 => out.push(n),
                _ => return Err(format!("unable to parse \"{p}\" as a port: invalid port")),
            }
        }
    }
    if out.is_empty() {
        return Err("at least 1 port must be specified".into());
    }
    Ok(out)
}

/// Answers a port-forward request the filters and `exec::admit` have let in.
pub fn serve(
    ctx: &Ctx,
    pod: Value,
    upgrade: Option<Result<WebSocketUpgrade, WebSocketUpgradeRejection>>,
    raw_query: Option<&str>,
) -> Response {
    let offered: Vec<String> = ctx
        .headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|p| p.trim().to_string()))
        .collect();
    let upgrade = match upgrade {
        Some(Ok(u)) => u,
        Some(Err(rejection)) => {
            return error_response(ctx, bad_request(format!("invalid WebSocket request: {rejection}")))
        }
        None => return error_response(ctx, spdy()),
    };
    let chosen = offered.iter().find(|o| PROTOCOLS.contains(&o.as_str())).cloned();
    if chosen.is_none() && !offered.is_empty() {
        if offered.iter().any(|o| o.starts_with("SPDY/3.1")) {
            return error_response(ctx, spdy());
        }
        return bytes_response(StatusCode::FORBIDDEN, "text/plain; charset=utf-8", Default::default());
    }
    let ports = match ports(raw_query) {
        Ok(p) => p,
        Err(text) => return bytes_response(StatusCode::BAD_REQUEST, "text/plain; charset=utf-8", text.into()),
    };
    let upgrade = match chosen {
        Some(name) => upgrade.protocols([name]),
        None => upgrade,
    };
    upgrade.on_upgrade(move |socket| run(socket, pod, ports))
}

fn spdy() -> ApiError {
    bad_request(
        "kube-sim serves port-forward over WebSocket only (v4.channel.k8s.io: a data and an error channel a \
         port): this client asked for SPDY/3.1 (kubectl port-forward tunnels SPDY through its WebSocket), which \
         kube-sim does not simulate",
    )
}

/// The kubelet's words for a port nothing listens on.
fn refused(pod: &Value, port: u16) -> String {
    format!(
        "error forwarding port {port} to pod {}, uid {}: failed to connect to localhost:{port} inside the pod's network namespace: connect: connection refused",
        pod["metadata"]["name"].as_str().unwrap_or_default(),
        pod["metadata"]["uid"].as_str().unwrap_or_default(),
    )
}

async fn run(mut socket: WebSocket, pod: Value, ports: Vec<u16>) {
    let mut connections: Vec<Option<Connection>> =
        ports.iter().map(|p| Server::of(&pod, *p).map(Connection::new)).collect();
    for (i, port) in ports.iter().enumerate() {
        for channel in [2 * i, 2 * i + 1] {
            let mut first = vec![channel as u8];
            first.extend_from_slice(&port.to_le_bytes());
            if socket.send(Message::Binary(first.into())).await.is_err() {
                return;
            }
        }
    }
    let mut refused_sent = vec![false; ports.len()];
    while let Some(Ok(message)) = socket.recv().await {
        let data = match message {
            Message::Binary(b) => b.to_vec(),
            Message::Close(_) => break,
            _ => continue,
        };
        let Some((&channel, payload)) = data.split_first() else { continue };
        let index = usize::from(channel) / 2;
        if channel % 2 == 1 || index >= ports.len() {
            continue;
        }
        let replies = match connections[index].as_mut() {
            Some(c) => c.push(payload),
            None => {
                if !refused_sent[index] {
                    refused_sent[index] = true;
                    let mut msg = vec![channel + 1];
                    msg.extend_from_slice(refused(&pod, ports[index]).as_bytes());
                    if socket.send(Message::Binary(msg.into())).await.is_err() {
                        return;
                    }
                }
                continue;
            }
        };
        for reply in replies {
            let (bytes, close) = match reply {
                Reply::Send(b) => (b, false),
                Reply::SendAndClose(b) => (b, true),
            };
            let mut msg = vec![channel];
            msg.extend_from_slice(&bytes);
            if socket.send(Message::Binary(msg.into())).await.is_err() {
                return;
            }
            if close {
                // One connection a port: once the server closes it, so does the stream.
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_read_as_the_kubelet_reads_them() {
        assert_eq!(ports(Some("ports=80,8080&ports=9090")), Ok(vec![80, 8080, 9090]));
        assert_eq!(ports(None), Err("at least 1 port must be specified".into()));
        assert_eq!(ports(Some("ports=http")), Err("unable to parse \"http\" as a port: invalid port".into()));
        assert!(ports(Some("ports=0")).is_err());
    }
}
