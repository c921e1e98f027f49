//! One exec or attach session over a WebSocket: the connection-up message, then the simulated
//! process (`exec::shell`) or the container's log lines (attach) on stdout, the client's stdin,
//! resizes and v5 close signal fed in, and the error channel's Status at the end, then a close.
//!
//! Where the kubelet refuses before streaming, the answer depends on who terminates the
//! WebSocket: for v5, kube-apiserver's translator has already answered 101, so the kubelet's
//! refusal arrives as an InternalError on the error channel; for the other subprotocols the
//! kubelet's plain-text answer comes back as the HTTP response (`Session::check`).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use tokio::time::Instant;

use super::StoreLookup;
use super::{Kind, Options};
use crate::app::App;
use crate::exec::commands;
use crate::exec::container::Container;
use crate::exec::protocol::{self, Ending, Frame, Incoming, Protocol, ERROR, STDERR, STDOUT};
use crate::exec::shell::{Effect, Process};
use crate::http::bytes_response;
use crate::http::logs;
use crate::store::object;

pub struct Session {
    pub app: Arc<App>,
    pub kind: Kind,
    pub protocol: Protocol,
    pub options: Options,
    pub pod: Value,
    pub container: String,
}

/// Why the kubelet will not stream, in its words.
fn kubelet_refusal(options: &Options, pod: &Value, container: &str) -> Option<(StatusCode, String)> {
    if !options.stdin && !options.stdout && !options.stderr {
        return Some((StatusCode::BAD_REQUEST, "you must specify at least 1 of stdin, stdout, stderr".into()));
    }
    let running = pod["status"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(pod["status"]["initContainerStatuses"].as_array().into_iter().flatten())
        .any(|s| s["name"] == container && s["state"]["running"].is_object());
    (!running).then(|| (StatusCode::INTERNAL_SERVER_ERROR, format!("container not found (\"{container}\")")))
}

impl Session {
    /// The kubelet's refusal as the HTTP answer, where the kubelet terminates the WebSocket.
    pub fn check(&self) -> Result<(), Box<Response>> {
        if self.protocol == Protocol::V5 {
            return Ok(());
        }
        match kubelet_refusal(&self.options, &self.pod, &self.container) {
            Some((code, text)) => Err(Box::new(bytes_response(code, "text/plain; charset=utf-8", Bytes::from(text)))),
            None => Ok(()),
        }
    }

    pub async fn run(self, socket: WebSocket) {
        let mut link = Link { socket, protocol: self.protocol };
        // The connection-up message on the lowest channel written.
        let first = if self.options.stdout {
            STDOUT
        } else if self.options.stderr {
            STDERR
        } else {
            ERROR
        };
        if link.send(first, b"").await.is_err() {
            return;
        }
        if let Some((_, text)) = kubelet_refusal(&self.options, &self.pod, &self.container) {
            return link.end(&Ending::Internal(format!("unable to upgrade connection: {text}"))).await;
        }
        let mut cut = self.app.faults.watch_cuts();
        match self.kind {
            Kind::Exec => {
                if let Some(ending) = self.exec(&mut link, &mut cut).await {
                    link.end(&ending).await;
                }
            }
            // Port-forward has its own session (`portforward`); attach is what is left.
            Kind::Attach | Kind::PortForward => self.attach(&mut link, &mut cut).await,
        }
    }

    /// The container the command runs in: with the files its own process has written by now.
    fn container(&self) -> Container {
        let mut container = Container::of(&self.pod, &self.container, self.options.tty, &StoreLookup(&self.app));
        let started = logs::container_run(&self.pod, &self.container, false).map(|r| r.started);
        if let Some((mut main, _)) =
            started.ok().and_then(|s| super::main_process(&self.app, &self.pod, &self.container, s))
        {
            main.advance(object::now(), 0);
            container.files = main.container().files.clone();
        }
        container
    }

    /// Runs the command; `None` when the client went away or the streams were cut.
    async fn exec(&self, link: &mut Link, cut: &mut tokio::sync::watch::Receiver<u64>) -> Option<Ending> {
        let argv = self.options.command.clone();
        if let Some(refusal) = start_failure(&argv) {
            return Some(Ending::Internal(refusal));
        }
        let (mut process, effects) = Process::start(self.container(), &argv, self.options.tty, Box::new(object::now));
        let mut wake: Option<Instant> = None;
        let mut pending = effects;
        loop {
            for effect in pending.drain(..) {
                match effect {
                    Effect::Stdout(b) => link.send(STDOUT, &b).await.ok()?,
                    Effect::Stderr(b) => link.send(STDERR, &b).await.ok()?,
                    Effect::Sleep(d) => wake = Some(Instant::now() + d),
                    Effect::Exit(0) => return Some(Ending::Success),
                    Effect::Exit(code) => return Some(Ending::Exit { code, argv }),
                }
            }
            if !process.sleeping() {
                wake = None;
            }
            let sleep = async {
                match wake {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                incoming = link.recv() => match incoming? {
                    Incoming::Stdin(bytes) if self.options.stdin => pending = process.input(&bytes),
                    Incoming::CloseStdin if self.options.stdin => pending = process.close_stdin(),
                    Incoming::Resize(sizes) if self.options.tty => {
                        for (w, h) in sizes {
                            process.resize(w, h);
                        }
                    }
                    Incoming::Broken(_) => return None,
                    _ => {}
                },
                _ = sleep => {
                    wake = None;
                    pending = process.wake();
                }
                _ = cut.changed() => return None,
            }
        }
    }

    /// Streams the container's log lines from now on (its own process's when kube-sim runs its
    /// command), and echoes stdin, until the client goes.
    async fn attach(&self, link: &mut Link, cut: &mut tokio::sync::watch::Receiver<u64>) {
        let image = self.container().image;
        let started =
            logs::container_run(&self.pod, &self.container, false).map(|r| r.started).unwrap_or_else(|_| object::now());
        let mut main = super::main_process(&self.app, &self.pod, &self.container, started).map(|(mut main, _)| {
            main.advance(object::now(), 0);
            main
        });
        let mut next = logs::last_line(started, object::now()).map_or(0, |n| n + 1);
        let pod_name = self.pod["metadata"]["name"].as_str().unwrap_or_default().to_string();
        loop {
            // When the next output comes: the process's next wake, or the fake kubelet's next line.
            let at = match &main {
                Some(m) => m.next(),
                None => Some(logs::line_time(started, next)),
            };
            let wait = async {
                match at {
                    Some(at) => tokio::time::sleep((at - object::now()).to_std().unwrap_or(Duration::ZERO)).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = wait => {
                    let Some(at) = at else { continue };
                    let text = match main.as_mut() {
                        Some(m) => m.advance(at, usize::MAX).into_iter().map(|l| l.text).collect::<String>(),
                        None => {
                            next += 1;
                            logs::line(&pod_name, &self.container, &image, next - 1, at, false)
                        }
                    };
                    let text = if self.options.tty { text.replace('\n', "\r\n") } else { text };
                    if !text.is_empty() && link.send(STDOUT, text.as_bytes()).await.is_err() {
                        return;
                    }
                }
                incoming = link.recv() => match incoming {
                    Some(Incoming::Stdin(bytes)) if self.options.stdin => {
                        if link.send(STDOUT, &bytes).await.is_err() {
                            return;
                        }
                    }
                    Some(Incoming::Broken(_)) | None => return,
                    Some(_) => {}
                },
                _ = cut.changed() => return,
            }
        }
    }
}

/// Why the runtime cannot start `argv`, worded as containerd and runc word it (the exec id is
/// the runtime's own, random).
fn start_failure(argv: &[String]) -> Option<String> {
    let why = match argv.first() {
        None => "args must not be empty: unknown".to_string(),
        Some(program) if !commands::is_program(program) => format!(
            "exec failed: unable to start container process: exec: \"{program}\": executable file not found in $PATH: unknown"
        ),
        Some(_) => return None,
    };
    let id = object::new_uid().replace('-', "");
    Some(format!(
        "error executing command in container: failed to exec in container: failed to start exec \"{id}\": OCI runtime exec failed: {why}"
    ))
}

/// The WebSocket with the negotiated subprotocol.
struct Link {
    socket: WebSocket,
    protocol: Protocol,
}

impl Link {
    async fn send(&mut self, channel: u8, data: &[u8]) -> Result<(), axum::Error> {
        let message = match protocol::frame(self.protocol, channel, data) {
            Frame::Binary(b) => Message::Binary(b.into()),
            Frame::Text(t) => Message::Text(t.into()),
        };
        self.socket.send(message).await
    }

    /// The next message the server acts on; `None` once the client has gone.
    async fn recv(&mut self) -> Option<Incoming> {
        loop {
            let data: Vec<u8> = match self.socket.recv().await? {
                Ok(Message::Binary(b)) => b.to_vec(),
                Ok(Message::Text(t)) => t.as_bytes().to_vec(),
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            };
            match protocol::read(self.protocol, &data) {
                Incoming::Ignored => continue,
                other => return Some(other),
            }
        }
    }

    /// The error channel's last word, then the close.
    async fn end(mut self, ending: &Ending) {
        if let Some(bytes) = protocol::ending(self.protocol, ending) {
            if self.send(ERROR, &bytes).await.is_err() {
                return;
            }
        }
        // A normal closure (1000), as golang.org/x/net/websocket closes: client-go takes any
        // other close as a failed stream.
        let close = CloseFrame { code: close_code::NORMAL, reason: Default::default() };
        if self.socket.send(Message::Close(Some(close))).await.is_err() {
            return;
        }
        // The closing handshake (RFC 6455 section 7.1.1): read until the client's Close, so that
        // no message it sent is left unread. A TCP socket closed with unread bytes is reset, and a
        // reset can reach the browser before the frames sent just before it, which then sees the
        // stream end with 1006 and no exit status (a command that exits at once, while the
        // terminal's resize messages are still arriving). At most two seconds for a silent client.
        let socket = &mut self.socket;
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Some(Ok(message)) = socket.recv().await {
                if matches!(message, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
}
