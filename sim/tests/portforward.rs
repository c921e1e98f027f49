//! `pods/portforward` over WebSocket as the kubelet speaks it (pkg/kubelet/cri/streaming/
//! portforward/websocket.go: a data and an error channel a port, each opened by the port
//! number, two bytes little-endian), and `pods/proxy` and `services/proxy`, all reaching the
//! simulated container's HTTP page.

mod common;

use common::Sim;
use futures::{SinkExt, StreamExt};
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
