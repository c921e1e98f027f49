//! Starts the built `kube-sim` on a free loopback port (it prints the bound address), gives the
//! tests an HTTP client and the shared recordings, and kills the server when dropped.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

pub struct Sim {
    child: Child,
    pub base: String,
    pub client: reqwest::Client,
}

impl Sim {
    pub fn start(args: &[&str]) -> Sim {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kube-sim"))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kube-sim starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(first)) = lines.next() {
                let _ = tx.send(first);
            }
            // Keep draining so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let first = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                panic!("kube-sim did not print its address within 60 s");
            }
        };
        let addr = first
            .split_whitespace()
            .find_map(|w| w.strip_prefix("http://"))
            .unwrap_or_else(|| panic!("no address in kube-sim's first line: {first}"))
            .to_string();
        let client = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().expect("client builds");
        Sim { child, base: format!("http://{addr}"), client }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("request succeeds")
    }

    pub async fn get_with(&self, path: &str, accept: &str) -> reqwest::Response {
        self.client.get(self.url(path)).header("Accept", accept).send().await.expect("request succeeds")
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        json_of(self.get(path).await).await
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        content_type: &str,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("valid method");
        self.client
            .request(method, self.url(path))
            .header("Content-Type", content_type)
            .body(body)
            .send()
            .await
            .expect("request succeeds")
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn json_of(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let bytes = resp.bytes().await.expect("body arrives");
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, value)
}

/// The repository's `tests/fixtures` (its `kube/` holds the recordings of real servers; its README
/// says where each set comes from).
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

pub fn shared_json(rel: &str) -> Value {
    let path = shared_dir().join("kube").join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// The JSON body of a real-apiserver exchange file (the first JSON value after `=== BODY`).
pub fn recorded_body(name: &str) -> Value {
    let path = shared_dir().join("kube/real-apiserver").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let body = text.split("=== BODY").nth(1).and_then(|b| b.split_once('\n')).map(|(_, b)| b).unwrap_or_default();
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) => v,
        _ => panic!("no JSON body in {}", path.display()),
    }
}

/// The recorded status code of a real-apiserver exchange.
pub fn recorded_status(name: &str) -> u16 {
    let path = shared_dir().join("kube/real-apiserver").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .find_map(|l| l.strip_prefix("HTTP/1.1 "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {}", path.display()))
}

/// Keys of a Status body that a recording and kube-sim must share.
pub fn assert_status_shape(actual: &Value, recorded: &Value) {
    for key in ["kind", "apiVersion", "status", "reason", "code"] {
        assert_eq!(actual[key], recorded[key], "Status.{key}: got {actual}, recorded {recorded}");
    }
    assert_eq!(actual["metadata"], serde_json::json!({}), "Status.metadata: {actual}");
    assert_eq!(
        actual["details"].is_null(),
        recorded["details"].is_null(),
        "Status.details presence: got {actual}, recorded {recorded}"
    );
}

/// A request recorded against the real server, as the exchange file writes it.
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

pub fn recorded_request(name: &str) -> RecordedRequest {
    let path = shared_dir().join("kube/real-apiserver").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let request = text
        .split("=== REQUEST ===\n")
        .nth(1)
        .and_then(|r| r.split("\n=== RESPONSE ===").next())
        .unwrap_or_else(|| panic!("no request in {}", path.display()));
    let (head, body) = request.split_once("\n\n").unwrap_or((request, ""));
    let mut lines = head.lines();
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .filter(|(k, _)| !matches!(k.to_ascii_lowercase().as_str(), "host" | "content-length"))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    RecordedRequest { method, path: target, headers, body: body.trim_end_matches('\n').to_string() }
}

impl Sim {
    /// Sends a recorded request as it was sent to the real server.
    pub async fn replay(&self, name: &str) -> reqwest::Response {
        let r = recorded_request(name);
        let method = reqwest::Method::from_bytes(r.method.as_bytes()).expect("valid method");
        let mut req = self.client.request(method, self.url(&r.path));
        for (k, v) in &r.headers {
            req = req.header(k, v);
        }
        if let Some(hex) = r.body.strip_prefix("(hex) ") {
            req = req.body(from_hex(hex.trim()));
        } else if !r.body.is_empty() {
            req = req.body(r.body.clone());
        }
        req.send().await.expect("request succeeds")
    }
}

/// Reads a watch body line by line with a bound on each wait.
pub struct WatchLines {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl WatchLines {
    pub fn new(resp: reqwest::Response) -> WatchLines {
        WatchLines { resp, buf: Vec::new() }
    }

    /// The next event, or `None` when the stream ended; panics after `secs` without one.
    pub async fn next(&mut self, secs: u64) -> Option<Value> {
        self.try_next(secs).await.unwrap_or_else(|e| panic!("{e}"))
    }

    pub async fn try_next(&mut self, secs: u64) -> Result<Option<Value>, String> {
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
                return serde_json::from_slice(&line).map(Some).map_err(|e| format!("event is not JSON: {e}"));
            }
            match tokio::time::timeout(Duration::from_secs(secs), self.resp.chunk()).await {
                Err(_) => return Err(format!("no watch event within {secs} s")),
                Ok(Err(e)) => return Err(format!("stream broke: {e}")),
                Ok(Ok(None)) => return Ok(None),
                Ok(Ok(Some(chunk))) => self.buf.extend_from_slice(&chunk),
            }
        }
    }
}

pub fn from_hex(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect()
}

/// The names of a list's items, in the list's order.
pub fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
        .collect()
}
