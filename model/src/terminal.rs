//! A terminal session in a container: the plan (which pod, container, command; the request, its
//! WebSocket URL and the `kubectl` line that does the same) and the session's state machine
//! ([`Session::step`]: inputs from the user, the probe and the socket in, actions out; no clock,
//! no I/O, tested with transcripts). The driver is `client::terminal`.
//!
//! A browser's WebSocket tells nothing of a refused upgrade (no status, no body: only a close
//! with code 1006), so a session first sends the same request as a plain GET (the *probe*).
//! Every check the server makes before an upgrade (RBAC, the pod, the container) answers it as
//! it would the upgrade; an API server that has no objection answers 400 `Upgrade request
//! required`, and only then is the socket opened. `kubectl proxy` refuses exec and attach by
//! default (`--reject-paths`) with a plain-text 403 `Forbidden`, which the probe recognises.

use crate::exec_channel::{self, ChannelError, Ending, Frame, Protocol};
use crate::i18n::{Localized, Msg, Text};
use kube_wire::build::RequestBuilder;
use kube_wire::codec::json::decode_json;
use kube_wire::codec::value::Value;
use kube_wire::discovery::ResourceType;
use kube_wire::request::{Collection, Request, RequestError};

/// What runs: a command started in the container (`exec`), or the container's own process
/// (`attach`: its output, and stdin if it reads one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Exec { command: Vec<String> },
    Attach,
}

impl Mode {
    /// The subresource (`exec`, `attach`), which is also the kubectl command.
    pub fn subresource(&self) -> &'static str {
        match self {
            Mode::Exec { .. } => "exec",
            Mode::Attach => "attach",
        }
    }
}

/// The shell a session runs unless the user names another command.
pub const DEFAULT_COMMAND: &str = "sh";

/// Whether `subresource` of `resource` opens a terminal rather than being read: a core pod's
/// `exec` and `attach`, which the server allows with `create` (a `get` of them is the upgrade).
pub fn opens_terminal(resource: &ResourceType, subresource: &str) -> bool {
    resource.group.is_empty() && resource.plural == "pods" && matches!(subresource, "exec" | "attach")
}

/// One session's target: a container of a pod, with a terminal (`tty`) and stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionPlan {
    pub pods: ResourceType,
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub mode: Mode,
}

impl SessionPlan {
    /// The GET that is upgraded to a WebSocket (and sent plain as the probe).
    pub fn request(&self) -> Result<Request, RequestError> {
        let object = Collection::new(&self.pods, Some(self.namespace.as_str()))?
            .object(&self.pod)?
            .subresource(self.mode.subresource())?;
        let mut request = RequestBuilder::get(object.path());
        if let Mode::Exec { command } = &self.mode {
            for word in command {
                request = request.param("command", word);
            }
        }
        Ok(request
            .param("container", &self.container)
            .param("stdin", "true")
            .param("stdout", "true")
            .param("stderr", "true")
            .param("tty", "true")
            .build())
    }

    /// The socket's URL, given the API base as a person reads it (`http://127.0.0.1:8001`,
    /// with a path prefix when there is one): `ws:` for `http:`, `wss:` for `https:`.
    pub fn websocket_url(&self, http_base: &str) -> Result<String, RequestError> {
        let request = self.request()?;
        let base = if let Some(rest) = http_base.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = http_base.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            http_base.to_owned()
        };
        Ok(format!("{}{}", base.trim_end_matches('/'), request.path_and_query()))
    }

    /// The kubectl command that opens the same session.
    pub fn kubectl(&self) -> String {
        let mut line = format!(
            "kubectl {} -it -n {} {} -c {}",
            self.mode.subresource(),
            shell_quote(&self.namespace),
            shell_quote(&self.pod),
            shell_quote(&self.container)
        );
        if let Mode::Exec { command } = &self.mode {
            line.push_str(" --");
            for word in command {
                line.push(' ');
                line.push_str(&shell_quote(word));
            }
        }
        line
    }
}

/// `word` as a POSIX shell reads it back (single quotes when it has anything but safe characters).
fn shell_quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The containers a terminal can open in, from a pod document: `spec.containers`, then
/// `spec.ephemeralContainers` (init containers have ended once the pod runs).
pub fn containers_of(pod: &Value) -> Vec<String> {
    ["containers", "ephemeralContainers"]
        .iter()
        .flat_map(|key| pod.at(&["spec", key]).and_then(Value::as_array).unwrap_or_default())
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// The container chosen first: the one the `kubectl.kubernetes.io/default-container`
/// annotation names (as kubectl reads it; the API server does not), else the first.
pub fn default_container(pod: &Value) -> Option<String> {
    let containers = containers_of(pod);
    let annotated = pod
        .at(&["metadata", "annotations", "kubectl.kubernetes.io/default-container"])
        .and_then(Value::as_str)
        .filter(|name| containers.iter().any(|c| c == name))
        .map(str::to_owned);
    annotated.or_else(|| containers.into_iter().next())
}

/// A command line the user typed that cannot be split into words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    Empty,
    UnclosedQuote(char),
}

impl Localized for CommandError {
    fn text(&self) -> Text {
        match self {
            CommandError::Empty => Text::new(Msg::TerminalCommandEmpty),
            CommandError::UnclosedQuote(quote) => Text::new(Msg::TerminalCommandQuote).with("quote", quote),
        }
    }
}

crate::localized_display!(CommandError);

/// Splits a command line into argv as a shell would: words by blanks, single and double quotes,
/// backslashes. Nothing is expanded: each word goes as it is in a `command` parameter.
pub fn parse_command(line: &str) -> Result<Vec<String>, CommandError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(word.take()),
            '\'' | '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        None => return Err(CommandError::UnclosedQuote(c)),
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => current.extend(chars.next()),
                        Some(other) => current.push(other),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err(CommandError::Empty);
    }
    Ok(words)
}

/// The probe's answer: the status, the media type and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Why a session could not start or went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalError {
    /// `kubectl proxy`'s default `--reject-paths` refused the path (plain-text 403).
    ProxyRefused,
    /// The API server refused (RBAC, no such pod or container, no node): its Status.
    Refused { code: u16, reason: String, message: String },
    /// An answer to the probe that is neither the API's nor the proxy's.
    UnexpectedProbe { status: u16, body: String },
    /// The request could not be made (a name the path cannot hold) or sent: why, in the
    /// catalogue's words (shown in the reader's language).
    NotSent(Text),
    /// The socket closed before it opened: the browser does not say why.
    HandshakeFailed { code: u16 },
    /// The server chose no subprotocol or one not offered, or wrote what the protocol forbids.
    Protocol(ChannelError),
    /// The socket closed without the error channel's last word.
    ClosedEarly { code: u16, reason: String },
}

impl Localized for TerminalError {
    fn text(&self) -> Text {
        match self {
            TerminalError::ProxyRefused => Text::new(Msg::TerminalProxyRefused),
            TerminalError::Refused { code, reason, message } => {
                Text::new(Msg::TerminalRefused).with("code", code).with("reason", reason).with("message", message)
            }
            TerminalError::UnexpectedProbe { status, body } => {
                Text::new(Msg::TerminalUnexpectedProbe).with("status", status).with("body", body)
            }
            TerminalError::NotSent(error) => Text::new(Msg::NotSentError).with_text("error", error.clone()),
            TerminalError::HandshakeFailed { code } => Text::new(Msg::TerminalHandshakeFailed).with("code", code),
            TerminalError::Protocol(error) => error.text(),
            TerminalError::ClosedEarly { code, reason } => {
                Text::new(Msg::TerminalClosedEarly).with("code", code).with("reason", reason)
            }
        }
    }
}

crate::localized_display!(TerminalError);

/// Reads the probe's answer: `Ok(())` when the server would upgrade.
pub fn read_probe(answer: &ProbeAnswer) -> Result<(), TerminalError> {
    let json = answer.content_type.as_deref().is_some_and(|t| t.trim_start().starts_with("application/json"));
    let body = String::from_utf8_lossy(&answer.body);
    let status = if json { decode_json(&answer.body).ok() } else { None };
    let field =
        |key: &str| status.as_ref().and_then(|s| s.get(key)).and_then(Value::as_str).unwrap_or_default().to_owned();
    let is_status = status.as_ref().and_then(|s| s.get("kind")).and_then(Value::as_str) == Some("Status");
    if is_status && answer.status == 400 && field("message") == "Upgrade request required" {
        return Ok(());
    }
    if is_status {
        return Err(TerminalError::Refused { code: answer.status, reason: field("reason"), message: field("message") });
    }
    if answer.status == 403 && body.trim() == "Forbidden" {
        return Err(TerminalError::ProxyRefused);
    }
    let body: String = body.chars().take(300).collect();
    Err(TerminalError::UnexpectedProbe { status: answer.status, body })
}

/// Where a session stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Not started.
    Idle,
    /// The probe is out.
    Checking,
    /// The socket is opening.
    Connecting,
    /// Connected, speaking `protocol`.
    Open {
        protocol: Protocol,
    },
    /// The process ended (the error channel's Status).
    Ended(Ending),
    /// The user closed the session.
    Closed,
    Failed(TerminalError),
}

impl Phase {
    /// Whether a session is under way (a new one cannot start).
    pub fn is_active(&self) -> bool {
        matches!(self, Phase::Checking | Phase::Connecting | Phase::Open { .. })
    }
}

/// What happens to a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Connect (or connect again).
    Start,
    /// The probe's answer, or why it was not sent (`Err`: a network failure).
    Probed(Result<ProbeAnswer, Text>),
    /// The socket opened; the subprotocol the server chose.
    Opened { protocol: String },
    /// A binary message from the server.
    Message(Vec<u8>),
    /// The socket closed (code and reason of the close event).
    Closed { code: u16, reason: String },
    /// The keyboard (or a paste), as UTF-8.
    Typed(Vec<u8>),
    /// The terminal's size in characters.
    Resized { cols: u16, rows: u16 },
    /// The user closes the session.
    Stop,
}

/// What the driver does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send the probe.
    Probe(Request),
    /// Open the socket at `url`, offering `protocols`.
    Open { url: String, protocols: Vec<&'static str> },
    /// Send a binary message.
    Send(Vec<u8>),
    /// Write bytes to the terminal.
    Show(Vec<u8>),
    /// Close the socket.
    Close,
}

/// One session: the plan, its URL, and where it stands.
#[derive(Debug, Clone)]
pub struct Session {
    plan: SessionPlan,
    url: Result<String, RequestError>,
    phase: Phase,
    size: Option<(u16, u16)>,
    /// The error channel's last word, kept until the socket closes.
    ending: Option<Ending>,
}

impl Session {
    /// A session of `plan`, its socket under the API base `http_base` (see
    /// [`SessionPlan::websocket_url`]).
    pub fn new(plan: SessionPlan, http_base: &str) -> Session {
        let url = plan.websocket_url(http_base);
        Session { plan, url, phase: Phase::Idle, size: None, ending: None }
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn plan(&self) -> &SessionPlan {
        &self.plan
    }

    /// The socket's URL, or why there is none.
    pub fn url(&self) -> Result<&str, &RequestError> {
        self.url.as_deref()
    }

    /// Takes one input; answers what to do.
    pub fn step(&mut self, input: Input) -> Vec<Action> {
        match input {
            Input::Start if !self.phase.is_active() => self.start(),
            Input::Probed(answer) if self.phase == Phase::Checking => self.probed(answer),
            Input::Opened { protocol } if self.phase == Phase::Connecting => self.opened(&protocol),
            Input::Message(message) => self.message(&message),
            Input::Closed { code, reason } => self.closed(code, reason),
            Input::Typed(data) => match self.phase {
                Phase::Open { .. } if !data.is_empty() => vec![Action::Send(exec_channel::stdin(&data))],
                _ => vec![],
            },
            Input::Resized { cols, rows } => self.resized(cols, rows),
            Input::Stop if self.phase.is_active() => {
                let close = match self.phase {
                    Phase::Open { protocol } => exec_channel::close_stdin(protocol).map(Action::Send),
                    _ => None,
                };
                self.phase = Phase::Closed;
                close.into_iter().chain([Action::Close]).collect()
            }
            _ => vec![],
        }
    }

    fn start(&mut self) -> Vec<Action> {
        self.ending = None;
        match self.plan.request() {
            Ok(request) => {
                self.phase = Phase::Checking;
                vec![Action::Probe(request)]
            }
            Err(e) => self.fail(TerminalError::NotSent(e.text())),
        }
    }

    fn probed(&mut self, answer: Result<ProbeAnswer, Text>) -> Vec<Action> {
        let ready = answer.map_err(TerminalError::NotSent).and_then(|a| read_probe(&a));
        let url = match (ready, self.url.clone()) {
            (Err(e), _) => return self.fail(e),
            (Ok(()), Err(e)) => return self.fail(TerminalError::NotSent(e.text())),
            (Ok(()), Ok(url)) => url,
        };
        self.phase = Phase::Connecting;
        let protocols = Protocol::OFFER.iter().map(|p| p.name()).collect();
        vec![Action::Open { url, protocols }]
    }

    fn opened(&mut self, protocol: &str) -> Vec<Action> {
        match Protocol::negotiated(protocol) {
            Err(e) => {
                let mut actions = self.fail(TerminalError::Protocol(e));
                actions.push(Action::Close);
                actions
            }
            Ok(protocol) => {
                self.phase = Phase::Open { protocol };
                self.size.map(|(cols, rows)| Action::Send(exec_channel::resize(cols, rows))).into_iter().collect()
            }
        }
    }

    fn message(&mut self, message: &[u8]) -> Vec<Action> {
        if !matches!(self.phase, Phase::Open { .. }) {
            return vec![];
        }
        match exec_channel::decode(message) {
            Ok(Frame::Stdout(data) | Frame::Stderr(data)) if !data.is_empty() => vec![Action::Show(data)],
            Ok(Frame::Stdout(_) | Frame::Stderr(_)) => vec![],
            Ok(Frame::Ended(ending)) => {
                self.ending = Some(ending);
                vec![]
            }
            Err(e) => {
                let mut actions = self.fail(TerminalError::Protocol(e));
                actions.push(Action::Close);
                actions
            }
        }
    }

    fn closed(&mut self, code: u16, reason: String) -> Vec<Action> {
        self.phase = match (&self.phase, self.ending.take()) {
            (Phase::Open { .. }, Some(ending)) => Phase::Ended(ending),
            (Phase::Open { .. }, None) => Phase::Failed(TerminalError::ClosedEarly { code, reason }),
            (Phase::Connecting, _) => Phase::Failed(TerminalError::HandshakeFailed { code }),
            (other, _) => other.clone(),
        };
        vec![]
    }

    fn resized(&mut self, cols: u16, rows: u16) -> Vec<Action> {
        if cols == 0 || rows == 0 || self.size == Some((cols, rows)) {
            return vec![];
        }
        self.size = Some((cols, rows));
        match self.phase {
            Phase::Open { .. } => vec![Action::Send(exec_channel::resize(cols, rows))],
            _ => vec![],
        }
    }

    fn fail(&mut self, error: TerminalError) -> Vec<Action> {
        self.phase = Phase::Failed(error);
        vec![]
    }
}

#[cfg(test)]
#[path = "terminal_tests.rs"]
mod tests;
