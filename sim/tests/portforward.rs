//! `pods/portforward` over WebSocket as the kubelet speaks it (pkg/kubelet/cri/streaming/
//! portforward/websocket.go: a data and an error channel a port, each opened by the port
//! number, two bytes little-endian), over SPDY/3.1 as kubectl speaks it (a SPDY upgrade, and
//! tunnelled through a WebSocket: the bytes the real kubectl 1.29 wrote, replayed), and
//! `pods/proxy` and `services/proxy`, all reaching the simulated container's HTTP page.

mod common;

use common::{from_hex, Sim};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

async fn web_pod(sim: &Sim) -> String {
    let (_, list) = sim.get_json("/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb").await;
    list["items"]
        .as_array()
        .and_then(|items| items.iter().find(|p| p["status"]["phase"] == "Running"))
        .and_then(|p| p["metadata"]["name"].as_str())
        .expect("a running web pod")
        .to_string()
}

async fn next_binary<S>(socket: &mut S) -> Vec<u8>
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_secs(10), socket.next())
            .await
            .expect("a message within 10 s")
            .expect("the stream is open")
            .expect("a message");
        if let Message::Binary(b) = message {
            return b.to_vec();
        }
    }
}

#[tokio::test]
async fn port_forward_carries_http_to_the_containers_port_and_refuses_an_undeclared_one() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = web_pod(&sim).await;
    let url = sim.url(&format!("/api/v1/namespaces/demo/pods/{pod}/portforward?ports=80,81")).replacen("http", "ws", 1);
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert("Sec-WebSocket-Protocol", HeaderValue::from_static("v4.channel.k8s.io"));
    let (mut socket, response) = tokio_tungstenite::connect_async(request).await.expect("upgrades");
    assert_eq!(
        response.headers().get("sec-websocket-protocol").map(|v| v.to_str().unwrap()),
        Some("v4.channel.k8s.io")
    );
    // Each channel opens with its port, little-endian: data 0 and error 1 for 80, 2 and 3 for 81.
    let mut opened = Vec::new();
    for _ in 0..4 {
        opened.push(next_binary(&mut socket).await);
    }
    assert_eq!(opened, [vec![0, 80, 0], vec![1, 80, 0], vec![2, 81, 0], vec![3, 81, 0]]);
    let mut request = vec![0u8];
    request.extend_from_slice(b"GET /hello?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n");
    socket.send(Message::Binary(request.into())).await.expect("sends");
    let answer = next_binary(&mut socket).await;
    assert_eq!(answer[0], 0, "on port 80's data channel");
    let text = String::from_utf8_lossy(&answer[1..]);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains(&format!("pod <b>demo/{pod}</b>, container <b>web</b>, port 80")), "{text}");
    assert!(text.contains("GET <code>/hello?x=1</code>"), "{text}");
    socket.send(Message::Binary(vec![2u8, b'G', b'E', b'T'].into())).await.expect("sends");
    let refused = next_binary(&mut socket).await;
    assert_eq!(refused[0], 3, "on port 81's error channel");
    assert!(String::from_utf8_lossy(&refused[1..]).contains("error forwarding port 81"), "{refused:?}");
}

#[tokio::test]
async fn port_forward_needs_ports_and_a_websocket() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = web_pod(&sim).await;
    let url = sim.url(&format!("/api/v1/namespaces/demo/pods/{pod}/portforward")).replacen("http", "ws", 1);
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert("Sec-WebSocket-Protocol", HeaderValue::from_static("v4.channel.k8s.io"));
    match tokio_tungstenite::connect_async(request).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), 400);
            let body = response.body().as_ref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            assert_eq!(body, "at least 1 port must be specified");
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    let resp = sim
        .client
        .post(sim.url(&format!("/api/v1/namespaces/demo/pods/{pod}/portforward?ports=80")))
        .send()
        .await
        .expect("a response");
    assert_eq!(resp.status().as_u16(), 400, "no upgrade");
}

#[tokio::test]
async fn pod_and_service_proxies_reach_the_page() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = web_pod(&sim).await;
    let resp = sim.get(&format!("/api/v1/namespaces/demo/pods/{pod}/proxy/some/path")).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers().get("content-type").and_then(|v| v.to_str().ok()), Some("text/html; charset=utf-8"));
    let page = resp.text().await.expect("a page");
    assert!(page.contains(&format!("demo/{pod}")) && page.contains("<code>/some/path</code>"), "{page}");
    let resp = sim.get(&format!("/api/v1/namespaces/demo/pods/{pod}:80/proxy/")).await;
    assert_eq!(resp.status().as_u16(), 200);
    let resp = sim.get(&format!("/api/v1/namespaces/demo/pods/{pod}:81/proxy/")).await;
    assert_eq!(resp.status().as_u16(), 503, "nothing listens on 81");
    let resp = sim.get("/api/v1/namespaces/demo/services/web/proxy/x").await;
    assert_eq!(resp.status().as_u16(), 200);
    let page = resp.text().await.expect("a page");
    assert!(page.contains("container <b>web</b>, port 80") && page.contains("<code>/x</code>"), "{page}");
    let resp = sim.get("/api/v1/namespaces/demo/services/ghost/proxy/").await;
    assert_eq!(resp.status().as_u16(), 404);
}

/// What the real kubectl 1.29.14 wrote on its port-forward connection for one
/// `curl http://127.0.0.1:LOCAL/some/path` through it, as the TCP reads brought them (the first
/// five reads of the capture `data/kubectl-1.29-portforward.hex`): SYN_STREAM 1 (`streamType: error`, `port: 80`,
/// `requestID: 0`), FIN on 1, SYN_STREAM 3 (`data`), curl's request on 3, FIN on 3.
fn kubectl_1_29() -> Vec<&'static str> {
    let capture = include_str!("data/kubectl-1.29-portforward.hex");
    capture.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).take(5).collect()
}

/// The server's SPDY frames so far: the control frames' types, each data stream's bytes and
/// whether it ended (FIN). The header blocks are not read (their zlib stream is the sim's tests').
#[derive(Default, Debug)]
struct Frames {
    control: Vec<u16>,
    data: std::collections::BTreeMap<u32, (Vec<u8>, bool)>,
}

impl Frames {
    /// Reads the whole frames at the start of `buffer`, leaving a partial one.
    fn read(&mut self, buffer: &mut Vec<u8>) {
        while buffer.len() >= 8 {
            let length = u32::from_be_bytes([0, buffer[5], buffer[6], buffer[7]]) as usize;
            if buffer.len() < 8 + length {
                return;
            }
            let frame: Vec<u8> = buffer.drain(..8 + length).collect();
            if frame[0] & 0x80 != 0 {
                assert_eq!(frame[..2], [0x80, 3], "SPDY/3 control frame");
                self.control.push(u16::from_be_bytes([frame[2], frame[3]]));
            } else {
                let id = u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]);
                let entry = self.data.entry(id).or_default();
                entry.0.extend_from_slice(&frame[8..]);
                entry.1 |= frame[4] & 1 == 1;
            }
        }
    }

    fn done(&self) -> bool {
        [1, 3].iter().all(|id| self.data.get(id).is_some_and(|(_, fin)| *fin))
    }

    /// SYN_REPLY to both streams, the page on the data stream, nothing on the error stream, FIN on each.
    fn assert_page(&self, pod: &str) {
        assert_eq!(self.control, [2, 2], "a SYN_REPLY a stream");
        let page = String::from_utf8_lossy(&self.data[&3].0);
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(page.contains(&format!("pod <b>demo/{pod}</b>, container <b>web</b>, port 80")), "{page}");
        assert!(page.contains("GET <code>/some/path</code>"), "{page}");
        assert_eq!(self.data[&1], (Vec::new(), true), "the error stream: no error, then FIN");
    }
}

#[tokio::test]
async fn port_forward_over_a_spdy_upgrade_answers_kubectls_frames() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = web_pod(&sim).await;
    let mut tcp = tokio::net::TcpStream::connect(sim.base.trim_start_matches("http://")).await.expect("connects");
    let request = format!(
        "POST /api/v1/namespaces/demo/pods/{pod}/portforward HTTP/1.1\r\nHost: kube-sim\r\nConnection: Upgrade\r\n\
         Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\nContent-Length: 0\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.expect("writes");
    let mut buffer = Vec::new();
    let head_end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(std::time::Duration::from_secs(10), tcp.read(&mut chunk))
            .await
            .expect("an answer within 10 s")
            .expect("reads");
        assert!(n > 0, "closed before the answer: {}", String::from_utf8_lossy(&buffer));
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 101 switching protocols\r\n"), "{head}");
    assert!(head.contains("\r\nupgrade: spdy/3.1\r\n") && head.contains("\r\nconnection: upgrade\r\n"), "{head}");
    assert!(head.contains("\r\nx-stream-protocol-version: portforward.k8s.io\r\n"), "{head}");
    buffer.drain(..head_end);
    for chunk in kubectl_1_29() {
        tcp.write_all(&from_hex(chunk)).await.expect("writes");
    }
    let mut frames = Frames::default();
    while !frames.done() {
        frames.read(&mut buffer);
        if frames.done() {
            break;
        }
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(std::time::Duration::from_secs(10), tcp.read(&mut chunk))
            .await
            .expect("frames within 10 s")
            .expect("reads");
        assert!(n > 0, "closed early: {frames:?}");
        buffer.extend_from_slice(&chunk[..n]);
    }
    frames.assert_page(&pod);
}

#[tokio::test]
async fn port_forward_tunnels_spdy_through_a_websocket() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = web_pod(&sim).await;
    let url = sim.url(&format!("/api/v1/namespaces/demo/pods/{pod}/portforward")).replacen("http", "ws", 1);
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert("Sec-WebSocket-Protocol", HeaderValue::from_static("SPDY/3.1+portforward.k8s.io"));
    let (mut socket, response) = tokio_tungstenite::connect_async(request).await.expect("upgrades");
    assert_eq!(
        response.headers().get("sec-websocket-protocol").map(|v| v.to_str().unwrap()),
        Some("SPDY/3.1+portforward.k8s.io")
    );
    // The stream split across messages anywhere, as client-go writes it (a message a write).
    let bytes: Vec<u8> = kubectl_1_29().iter().flat_map(|h| from_hex(h)).collect();
    for chunk in bytes.chunks(5) {
        socket.send(Message::Binary(chunk.to_vec().into())).await.expect("sends");
    }
    let mut frames = Frames::default();
    let mut buffer = Vec::new();
    while !frames.done() {
        buffer.extend(next_binary(&mut socket).await);
        frames.read(&mut buffer);
    }
    frames.assert_page(&pod);
    // A SPDY protocol other than port-forward's: the kubelet's handshake refuses it.
    let url = sim.url(&format!("/api/v1/namespaces/demo/pods/{pod}/portforward")).replacen("http", "ws", 1);
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert("Sec-WebSocket-Protocol", HeaderValue::from_static("SPDY/3.1+v4.channel.k8s.io"));
    match tokio_tungstenite::connect_async(request).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status().as_u16(), 403),
        other => panic!("expected a 403, got {other:?}"),
    }
}

#[tokio::test]
async fn a_spdy_upgrade_needs_its_headers() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = web_pod(&sim).await;
    let url = sim.url(&format!("/api/v1/namespaces/demo/pods/{pod}/portforward"));
    let send = |headers: &'static [(&'static str, &'static str)]| {
        let mut request = sim.client.post(&url);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        async move {
            let resp = request.send().await.expect("a response");
            (resp.status().as_u16(), resp.text().await.unwrap_or_default())
        }
    };
    let (code, body) = send(&[("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1")]).await;
    assert_eq!((code, body.as_str()), (400, "unable to upgrade: X-Stream-Protocol-Version is required\n"));
    let (code, body) =
        send(&[("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1"), ("X-Stream-Protocol-Version", "v4.channel.k8s.io")])
            .await;
    assert_eq!(code, 403);
    assert!(body.contains("unable to negotiate protocol: client supports [v4.channel.k8s.io]"), "{body}");
    let (code, body) =
        send(&[("Connection", "Upgrade"), ("Upgrade", "h2c"), ("X-Stream-Protocol-Version", "portforward.k8s.io")])
            .await;
    assert_eq!(code, 400);
    assert!(body.starts_with("unable to upgrade: missing upgrade headers in request"), "{body}");
}
