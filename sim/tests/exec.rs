//! `pods/exec` and `pods/attach` over WebSocket, spoken as kubectl speaks it (tokio-tungstenite):
//! the negotiated subprotocol, the channels of each message (stdin 0, stdout 1, stderr 2, error
//! 3, resize 4), the error channel's Status with the exit code (v5 and v4 words), a terminal
//! session with resize, v5's close of stdin against v4's lack of it, attach's log lines, the
//! refusals before the upgrade, and RBAC (`get` then `create` for a WebSocket GET).

mod common;

use std::time::Duration;

use common::Sim;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The first Running pod of `app` in `namespace`.
async fn pod_of(sim: &Sim, namespace: &str, app: &str) -> String {
    let (_, list) = sim.get_json(&format!("/api/v1/namespaces/{namespace}/pods?labelSelector=app%3D{app}")).await;
    list["items"]
        .as_array()
        .and_then(|items| items.iter().find(|p| p["status"]["phase"] == "Running"))
        .and_then(|p| p["metadata"]["name"].as_str())
        .expect("a running pod")
        .to_string()
}

fn ws_url(sim: &Sim, path: &str) -> String {
    sim.url(path).replacen("http://", "ws://", 1)
}

/// Opens `path` offering `protocols` (and `token`'s credentials); the socket and the subprotocol
/// the server chose.
async fn open(
    sim: &Sim,
    path: &str,
    protocols: &str,
    token: Option<&str>,
) -> Result<(Socket, Option<String>), (u16, String)> {
    let mut request = ws_url(sim, path).into_client_request().expect("a request");
    if !protocols.is_empty() {
        request.headers_mut().insert("Sec-WebSocket-Protocol", HeaderValue::from_str(protocols).unwrap());
    }
    if let Some(t) = token {
        request.headers_mut().insert("Authorization", HeaderValue::from_str(&format!("Bearer {t}")).unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, response)) => {
            let chosen = response.headers().get("sec-websocket-protocol").map(|v| v.to_str().unwrap().to_string());
            Ok((socket, chosen))
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response.body().as_ref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            Err((response.status().as_u16(), body))
        }
        Err(e) => panic!("connect failed: {e}"),
    }
}

/// The messages until the server closes (or `secs` pass), as `channel:text` lines.
async fn transcript(socket: &mut Socket, secs: u64) -> Vec<String> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while let Ok(Some(message)) = tokio::time::timeout_at(deadline, socket.next()).await {
        match message {
            Ok(Message::Binary(b)) => out.push(format!("{}:{}", b[0], String::from_utf8_lossy(&b[1..]))),
            Ok(Message::Text(t)) => out.push(format!("text:{t}")),
            Ok(Message::Close(frame)) => {
                // client-go takes anything but a normal closure as a failed stream.
                out.push(match frame {
                    Some(f) if u16::from(f.code) == 1000 => "close".into(),
                    other => format!("close {other:?}"),
                });
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    out
}

/// Reads stdout until it has shown `want` (or `secs` pass); what it read.
async fn read_until(socket: &mut Socket, want: &str, secs: u64) -> String {
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while !seen.contains(want) {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) if b.first() == Some(&1) => {
                seen.push_str(&String::from_utf8_lossy(&b[1..]))
            }
            Ok(Some(Ok(Message::Binary(b)))) => {
                seen.push_str(&format!("[{}:{}]", b[0], String::from_utf8_lossy(&b[1..])))
            }
            Ok(Some(Ok(_))) => {}
            _ => break,
        }
    }
    seen
}

async fn send(socket: &mut Socket, channel: u8, data: &[u8]) {
    let mut frame = vec![channel];
    frame.extend_from_slice(data);
    socket.send(Message::Binary(frame.into())).await.expect("sent");
}

fn exec_path(ns: &str, pod: &str, query: &str) -> String {
    format!("/api/v1/namespaces/{ns}/pods/{pod}/exec?{query}")
}

const SUCCESS: &str = r#"3:{"metadata":{},"status":"Success"}"#;

#[tokio::test]
async fn a_command_runs_once_with_its_output_on_stdout_and_its_status_on_the_error_channel() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "web").await;
    let path = exec_path("demo", &pod, "command=echo&command=hi&stdout=true&stderr=true");
    let (mut socket, chosen) = open(&sim, &path, "v5.channel.k8s.io, v4.channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(chosen.as_deref(), Some("v5.channel.k8s.io"));
    assert_eq!(transcript(&mut socket, 10).await, ["1:", "1:hi\n", SUCCESS, "close"]);

    let path = exec_path(
        "demo",
        &pod,
        "command=sh&command=-c&command=echo%20%24HOSTNAME%3B%20nope%3B%20exit%203&stdout=true&stderr=true",
    );
    let (mut socket, _) = open(&sim, &path, "v5.channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(
        transcript(&mut socket, 10).await,
        [
            "1:".to_string(),
            format!("1:{pod}\n"),
            "2:sh: nope: command not found\n".into(),
            r#"3:{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#.into(),
            "close".into()
        ]
    );
}

#[tokio::test]
async fn v4_words_the_exit_as_the_kubelet_does_and_older_protocols_carry_only_the_message() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "api").await;
    let path = exec_path("demo", &pod, "command=sh&command=-c&command=exit%203&stdout=true");
    let (mut socket, chosen) = open(&sim, &path, "v4.channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(chosen.as_deref(), Some("v4.channel.k8s.io"));
    let t = transcript(&mut socket, 10).await;
    let status: Value = serde_json::from_str(t[1].strip_prefix("3:").expect("the error channel")).unwrap();
    assert_eq!(
        status["message"],
        "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
    );
    assert_eq!(status["details"]["causes"][0], json!({"reason": "ExitCode", "message": "3"}));

    let (mut socket, chosen) = open(&sim, &path, "channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(chosen.as_deref(), Some("channel.k8s.io"));
    assert_eq!(
        transcript(&mut socket, 10).await,
        [
            "1:",
            "3:command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3",
            "close"
        ]
    );
    let path = exec_path("demo", &pod, "command=echo&command=hi");
    let (mut socket, _) = open(&sim, &path, "base64.channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(transcript(&mut socket, 10).await, ["text:1", "text:1aGkK", "close"], "no message on success");
    assert_eq!(open(&sim, &path, "v3.channel.k8s.io", None).await.err(), Some((403, String::new())));
}

#[tokio::test]
async fn a_terminal_session_echoes_resizes_and_exits_with_its_code() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "web").await;
    let path = exec_path("demo", &pod, "command=sh&stdin=true&stdout=true&tty=true");
    let (mut socket, _) = open(&sim, &path, "v5.channel.k8s.io,v4.channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(read_until(&mut socket, "/ # ", 10).await, "/ # ");
    send(&mut socket, 0, b"echo hi\r").await;
    assert_eq!(read_until(&mut socket, "hi\r\n/ # ", 10).await, "echo hi\r\nhi\r\n/ # ");
    send(&mut socket, 4, br#"{"Width":100,"Height":30}"#).await;
    send(&mut socket, 0, b"stty size\r").await;
    assert!(read_until(&mut socket, "/ # ", 10).await.ends_with("30 100\r\n/ # "));
    send(&mut socket, 0, b"cat /etc/hostname; exit 3\r").await;
    let rest = transcript(&mut socket, 10).await;
    assert_eq!(rest.concat().matches(&pod).count(), 1, "{rest:?}");
    assert!(rest[rest.len() - 2].contains(r#""causes":[{"reason":"ExitCode","message":"3"}]"#), "{rest:?}");
}

#[tokio::test]
async fn v5_closes_stdin_with_channel_255_and_v4_cannot() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "web").await;
    let path = exec_path("demo", &pod, "command=cat&stdin=true&stdout=true&stderr=true");
    let (mut socket, _) = open(&sim, &path, "v5.channel.k8s.io", None).await.expect("upgraded");
    send(&mut socket, 0, b"abc").await;
    send(&mut socket, 255, &[0]).await;
    assert_eq!(transcript(&mut socket, 10).await.concat(), format!("1:1:abc{SUCCESS}close"));

    let (mut socket, _) = open(&sim, &path, "v4.channel.k8s.io", None).await.expect("upgraded");
    send(&mut socket, 0, b"abc").await;
    send(&mut socket, 255, &[0]).await;
    assert_eq!(transcript(&mut socket, 1).await.concat(), "1:1:abc", "v4 has no close signal: cat reads on");
    send(&mut socket, 0, b"more").await;
    assert_eq!(transcript(&mut socket, 1).await, ["1:more"]);
}

#[tokio::test]
async fn attach_streams_the_containers_log_lines_and_its_stdin() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "api").await;
    let path = format!("/api/v1/namespaces/demo/pods/{pod}/attach?stdin=true&stdout=true&stderr=true");
    let (mut socket, _) = open(&sim, &path, "v5.channel.k8s.io", None).await.expect("upgraded");
    let first = read_until(&mut socket, "msg=\"handled request\"", 5).await;
    assert!(first.contains(&format!("pod={pod} container=api")), "{first}");
    send(&mut socket, 0, b"ping\n").await;
    assert!(read_until(&mut socket, "ping\n", 5).await.ends_with("ping\n"));
}

#[tokio::test]
async fn refusals_before_the_upgrade_are_the_real_servers() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "web").await;
    let v5 = "v5.channel.k8s.io";
    let (code, body) = open(&sim, &exec_path("demo", "nope", "command=ls"), v5, None).await.expect_err("refused");
    assert_eq!(code, 404);
    assert!(body.contains(r#""message":"pods \"nope\" not found""#), "{body}");
    let (code, body) =
        open(&sim, &exec_path("demo", &pod, "command=ls&container=db"), v5, None).await.expect_err("refused");
    assert_eq!(code, 400);
    assert!(body.contains(&format!("container db is not valid for pod {pod}")), "{body}");
    let resp = sim.get(&exec_path("demo", &pod, "command=ls")).await;
    assert_eq!(resp.status().as_u16(), 400);
    assert!(resp.text().await.unwrap().contains("Upgrade request required"));
    let resp = sim
        .client
        .post(sim.url(&exec_path("demo", &pod, "command=ls&stdout=true")))
        .header("Connection", "Upgrade")
        .header("Upgrade", "SPDY/3.1")
        .header("X-Stream-Protocol-Version", "v4.channel.k8s.io")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    assert!(resp.text().await.unwrap().contains("does not simulate; kubectl speaks WebSocket from 1.30 on"));
    // A program the container does not have: the runtime's failure, wrapped by the translator.
    let (mut socket, _) =
        open(&sim, &exec_path("demo", &pod, "command=vim&stdout=true"), v5, None).await.expect("upgraded");
    let t = transcript(&mut socket, 10).await;
    let status: Value = serde_json::from_str(t[1].strip_prefix("3:").unwrap()).unwrap();
    let message = status["message"].as_str().unwrap();
    assert!(
        message.starts_with("Internal error occurred: Internal error occurred: error executing command in container:"),
        "{message}"
    );
    assert!(message.ends_with("exec: \"vim\": executable file not found in $PATH: unknown"), "{message}");
}

#[tokio::test]
async fn a_container_not_yet_running_is_not_found_by_the_kubelet() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fresh"},
        "spec": {"containers": [{"name": "app", "image": "busybox:1.37"}]}});
    let resp = sim.send("POST", "/api/v1/namespaces/demo/pods", "application/json", pod.to_string()).await;
    assert_eq!(resp.status().as_u16(), 201);
    let path = exec_path("demo", "fresh", "command=ls&stdout=true");
    let (code, body) = open(&sim, &path, "v4.channel.k8s.io", None).await.expect_err("refused by the kubelet");
    assert_eq!((code, body.as_str()), (500, "container not found (\"app\")"));
    let (mut socket, _) = open(&sim, &path, "v5.channel.k8s.io", None).await.expect("the translator answers 101");
    let t = transcript(&mut socket, 10).await;
    assert!(t[1].contains(r#""message":"Internal error occurred: Internal error occurred: unable to upgrade connection: container not found (\"app\")""#), "{t:?}");
}

#[tokio::test]
async fn a_websocket_get_needs_get_and_create_on_pods_exec() {
    let sim = Sim::start(&["--dataset", "demo"]);
    let pod = pod_of(&sim, "demo", "web").await;
    let path = exec_path("demo", &pod, "command=ls&stdout=true");
    let (code, body) = open(&sim, &path, "v5.channel.k8s.io", Some("viewer-token")).await.expect_err("refused");
    assert_eq!(code, 403);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["message"],
        format!("pods \"{pod}\" is forbidden: User \"viewer\" cannot get resource \"pods/exec\" in API group \"\" in the namespace \"demo\"")
    );
    let resp = sim.client.post(sim.url(&path)).bearer_auth("viewer-token").send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    let body: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(
        body["message"],
        format!("pods \"{pod}\" is forbidden: User \"viewer\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"demo\"")
    );
    assert!(open(&sim, &path, "v5.channel.k8s.io", Some("dev-token")).await.is_ok(), "edit allows both");

    // A role with `get` alone passes the filters, then fails the `create` check of the upgrade.
    let cart = pod_of(&sim, "shop", "cart").await;
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "exec-get"},
        "rules": [{"apiGroups": [""], "resources": ["pods/exec"], "verbs": ["get"]}]});
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "exec-get"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "exec-get"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "dev"}]});
    for (plural, body) in [("roles", role), ("rolebindings", binding)] {
        let url = format!("/apis/rbac.authorization.k8s.io/v1/namespaces/shop/{plural}");
        assert_eq!(sim.send("POST", &url, "application/json", body.to_string()).await.status().as_u16(), 201);
    }
    let (code, body) = open(&sim, &exec_path("shop", &cart, "command=ls"), "v5.channel.k8s.io", Some("dev-token"))
        .await
        .expect_err("refused");
    assert_eq!(code, 403);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["message"], format!("pods \"{cart}\" is forbidden: "));
    assert_eq!(body["details"], json!({"name": cart, "kind": "pods"}));
}

/// Creates a pod in `default` whose container runs `script` with `sh -c`, and waits until it runs.
async fn running_script(sim: &Sim, name: &str, script: &str) {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", script]}]}});
    let (code, body) =
        common::json_of(sim.send("POST", "/api/v1/namespaces/default/pods", "application/json", pod.to_string()).await)
            .await;
    assert_eq!(code, 201, "{body}");
    for _ in 0..150 {
        let (_, p) = sim.get_json(&format!("/api/v1/namespaces/default/pods/{name}")).await;
        if p["status"]["phase"] == "Running" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{name} never ran");
}

#[tokio::test]
async fn a_containers_command_runs_its_output_is_the_log_and_its_files_are_there_for_exec() {
    // lightkube's test_pod_apis reads the first line of a busybox loop's log; client-node's
    // cpFromPod copies a file the pod's command wrote (`tar cf - -C /tmp test.txt`).
    let sim = Sim::start(&["--dataset", "demo"]);
    let script = "echo \"test content\" > /tmp/test.txt && while true;do echo 'this is a test';sleep 1; done";
    running_script(&sim, "looping", script).await;
    let log = sim.get("/api/v1/namespaces/default/pods/looping/log").await.text().await.unwrap();
    assert!(log.starts_with("this is a test\n"), "{log}");
    assert!(log.lines().all(|l| l == "this is a test"), "{log}");
    // A follow writes each line when the loop's sleep ends, stamped with its second.
    let resp = sim.get("/api/v1/namespaces/default/pods/looping/log?follow=true&timestamps=true&tailLines=0").await;
    let mut body = resp.bytes_stream();
    let mut followed = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while followed.lines().count() < 2 {
        match tokio::time::timeout_at(deadline, body.next()).await {
            Ok(Some(Ok(chunk))) => followed.push_str(&String::from_utf8_lossy(&chunk)),
            other => panic!("the follow stopped: {other:?} after {followed:?}"),
        }
    }
    let stamps: Vec<&str> = followed.lines().map(|l| l.split_once(' ').expect("stamped").0).collect();
    assert!(followed.lines().all(|l| l.ends_with(" this is a test")), "{followed}");
    assert!(stamps[0] < stamps[1], "{followed}");

    let path = exec_path("default", "looping", "command=cat&command=%2Ftmp%2Ftest.txt&stdout=true&stderr=true");
    let (mut socket, _) = open(&sim, &path, "v5.channel.k8s.io", None).await.expect("upgraded");
    assert_eq!(transcript(&mut socket, 10).await, ["1:", "1:test content\n", SUCCESS, "close"]);
    let path = exec_path(
        "default",
        "looping",
        "command=tar&command=cf&command=-&command=-C&command=%2Ftmp&command=test.txt&stdout=true&stderr=true",
    );
    let (mut socket, _) = open(&sim, &path, "v4.channel.k8s.io", None).await.expect("upgraded");
    let t = transcript(&mut socket, 10).await;
    let archive: String = t.iter().filter_map(|m| m.strip_prefix("1:")).collect();
    assert!(archive.starts_with("test.txt\0"), "a member named as given: {t:?}");
    assert!(archive.contains("test content\n"), "{t:?}");
    assert!(!t.iter().any(|m| m.starts_with("2:")), "nothing on stderr: {t:?}");

    // A command that is done: its log is what it wrote, and a follow of it ends.
    running_script(&sim, "once", "echo done; exit 0").await;
    let log = sim.get("/api/v1/namespaces/default/pods/once/log?follow=true").await;
    let text = tokio::time::timeout(Duration::from_secs(10), log.text()).await.expect("the follow ends").unwrap();
    assert_eq!(text, "done\n");
}
