//! `pods/portforward`, as kube-apiserver and the kubelet's streaming server answer it, three ways:
//!
//! - **WebSocket, channels** (pkg/kubelet/cri/streaming/portforward/websocket.go): the `ports`
//!   query parameter names the ports (at least one, each 1–65535); the subprotocol is
//!   `v4.channel.k8s.io` (or `portforward.k8s.io`, `channel.k8s.io`, none: all binary); port i
//!   has data channel 2i and error channel 2i+1, and the server's first message on each is the
//!   port number, two bytes little-endian. A message from the client is its channel byte then
//!   data for that port's connection.
//! - **SPDY/3.1 through a WebSocket**, what kubectl 1.31 and later speak (`PortForwardWebsockets`,
//!   beta): the subprotocol `SPDY/3.1+portforward.k8s.io`, the SPDY byte stream in binary
//!   messages split anywhere, as kube-apiserver's `TunnelingHandler`
//!   (k8s.io/apiserver/pkg/util/proxy/streamtunnel.go) relays the kubelet's SPDY connection and
//!   client-go's `TunnelingConnection` (tools/portforward/tunneling_connection.go) reads it.
//! - **A SPDY/3.1 upgrade** (`Upgrade: SPDY/3.1`, `X-Stream-Protocol-Version:
//!   portforward.k8s.io`), what older kubectls speak and newer ones fall back to: 101 Switching
//!   Protocols with the negotiated version (`httpstream.Handshake`, `spdy.responseUpgrader`,
//!   k8s.io/apimachinery/pkg/util/httpstream/{httpstream.go,spdy/upgrade.go}), then SPDY on the
//!   connection.
//!
//! The two SPDY ways are one session (`exec::portforward`, streams paired by request id). Behind
//! each port is the simulated container's HTTP server (`exec::page`); a port no container
//! declares gets the kubelet's "connection refused" on its error channel or stream.

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::exec::page::{Connection, Reply, Server};
use crate::exec::portforward::{refused, Session};
use crate::http::{bytes_response, error_response, Ctx};
use crate::rules::status::bad_request;

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

/// The SPDY protocol version kube-sim's kubelet accepts (`portforward.k8s.io`, the only one).
const SPDY_PROTOCOL: &str = "portforward.k8s.io";
/// What kube-apiserver puts before a SPDY protocol to tunnel it through a WebSocket.
const TUNNEL_PREFIX: &str = "SPDY/3.1+";

/// Answers a port-forward request the filters and `exec::admit` have let in: `upgrade` when it
/// asks for a WebSocket, `spdy` (hyper's hand-over of the connection) when it does not.
pub fn serve(
    ctx: &Ctx,
    pod: Value,
    upgrade: Option<Result<WebSocketUpgrade, WebSocketUpgradeRejection>>,
    spdy: Option<OnUpgrade>,
    raw_query: Option<&str>,
) -> Response {
    let offered = values(ctx, header::SEC_WEBSOCKET_PROTOCOL);
    let upgrade = match upgrade {
        Some(Ok(u)) => u,
        Some(Err(rejection)) => {
            return error_response(ctx, bad_request(format!("invalid WebSocket request: {rejection}")))
        }
        None => return spdy_upgrade(ctx, pod, spdy),
    };
    if offered.iter().any(|o| o.starts_with(TUNNEL_PREFIX)) {
        return tunnel(pod, upgrade, &offered);
    }
    let chosen = offered.iter().find(|o| PROTOCOLS.contains(&o.as_str())).cloned();
    if chosen.is_none() && !offered.is_empty() {
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

/// The comma-separated values of every `name` header of the request.
fn values(ctx: &Ctx, name: impl header::AsHeaderName) -> Vec<String> {
    ctx.headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// `httpstream.Handshake`: the first of the client's `X-Stream-Protocol-Version`s the server
/// speaks, or the refusal: 403 with the versions it accepts (for a request without any, where the
/// kubelet answers an empty 200, kube-sim says why in a 400).
fn handshake(offered: &[String]) -> Result<String, Box<Response>> {
    if offered.is_empty() {
        return Err(Box::new(text(
            StatusCode::BAD_REQUEST,
            "unable to upgrade: X-Stream-Protocol-Version is required",
        )));
    }
    if offered.iter().any(|p| p == SPDY_PROTOCOL) {
        return Ok(SPDY_PROTOCOL.to_string());
    }
    let message = format!(
        "unable to upgrade: unable to negotiate protocol: client supports [{}], server accepts [{SPDY_PROTOCOL}]",
        offered.join(" ")
    );
    let mut response = text(StatusCode::FORBIDDEN, &message);
    response.headers_mut().insert("x-accepted-stream-protocol-versions", HeaderValue::from_static(SPDY_PROTOCOL));
    Err(Box::new(response))
}

/// A plain-text answer, as Go's `http.Error` writes it.
fn text(code: StatusCode, message: &str) -> Response {
    bytes_response(code, "text/plain; charset=utf-8", format!("{message}\n").into())
}

/// SPDY through a WebSocket: `TunnelingHandler` takes the offered `SPDY/3.1+….k8s.io` protocols
/// (400 without one), the kubelet's handshake picks one, and the WebSocket is upgraded with it.
fn tunnel(pod: Value, upgrade: WebSocketUpgrade, offered: &[String]) -> Response {
    let tunnelled: Vec<String> = offered
        .iter()
        .filter(|p| p.ends_with(".k8s.io"))
        .filter_map(|p| p.strip_prefix(TUNNEL_PREFIX))
        .map(str::to_string)
        .collect();
    if tunnelled.is_empty() {
        return text(StatusCode::BAD_REQUEST, "unable to upgrade: no tunneling spdy protocols provided");
    }
    let protocol = match handshake(&tunnelled) {
        Ok(p) => p,
        Err(refusal) => return *refusal,
    };
    upgrade.protocols([format!("{TUNNEL_PREFIX}{protocol}")]).on_upgrade(move |socket| tunnelled_session(socket, pod))
}

/// A SPDY/3.1 upgrade: `IsUpgradeRequest` (400 `Upgrade request required` without `Connection:
/// Upgrade`), the handshake, `responseUpgrader`'s header check (400), then 101 and the session
/// on the connection hyper hands over.
fn spdy_upgrade(ctx: &Ctx, pod: Value, spdy: Option<OnUpgrade>) -> Response {
    let connection = values(ctx, header::CONNECTION);
    if !connection.iter().any(|c| c.to_ascii_lowercase().contains("upgrade")) {
        return error_response(ctx, bad_request("Upgrade request required"));
    }
    let protocol = match handshake(&values(ctx, "x-stream-protocol-version")) {
        Ok(p) => p,
        Err(refusal) => return *refusal,
    };
    let upgrade = values(ctx, header::UPGRADE);
    let (true, Some(on_upgrade)) = (upgrade.iter().any(|u| u.eq_ignore_ascii_case("SPDY/3.1")), spdy) else {
        let message = format!(
            "unable to upgrade: missing upgrade headers in request: Connection: {}, Upgrade: {}",
            connection.join(", "),
            upgrade.join(", ")
        );
        return text(StatusCode::BAD_REQUEST, &message);
    };
    tokio::spawn(async move {
        if let Ok(upgraded) = on_upgrade.await {
            upgraded_session(TokioIo::new(upgraded), pod).await;
        }
    });
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    headers.insert(header::UPGRADE, HeaderValue::from_static("SPDY/3.1"));
    headers.insert("x-stream-protocol-version", HeaderValue::from_str(&protocol).expect("a header value"));
    response
}

/// The SPDY session on an upgraded connection: read what comes, write what it answers.
async fn upgraded_session<S: AsyncRead + AsyncWrite + Unpin>(mut io: S, pod: Value) {
    let mut session = Session::new(pod);
    let mut buffer = vec![0u8; 32 * 1024];
    loop {
        let n = match io.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let output = session.receive(&buffer[..n]);
        if !output.bytes.is_empty() && io.write_all(&output.bytes).await.is_err() {
            break;
        }
        if output.end {
            break;
        }
    }
    let _ = io.shutdown().await;
}

/// The SPDY session through a WebSocket: each binary message carries bytes of the stream, each
/// answer goes as one; a text message is an error (`TunnelingConnection.Read`); the end is a
/// normal closure, which the client reads as the stream's end.
async fn tunnelled_session(mut socket: WebSocket, pod: Value) {
    let mut session = Session::new(pod);
    while let Some(Ok(message)) = socket.recv().await {
        let bytes = match message {
            Message::Binary(b) => b,
            Message::Close(_) | Message::Text(_) => break,
            _ => continue,
        };
        let output = session.receive(&bytes);
        if !output.bytes.is_empty() && socket.send(Message::Binary(output.bytes.into())).await.is_err() {
            return;
        }
        if output.end {
            break;
        }
    }
    let close = CloseFrame { code: axum::extract::ws::close_code::NORMAL, reason: "".into() };
    let _ = socket.send(Message::Close(Some(close))).await;
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
