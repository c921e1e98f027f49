//! The WebSocket channel protocols of `pods/exec` and `pods/attach`, sans I/O: which subprotocol
//! a client's offer gets, how a message carries a channel, and what the error channel says at the
//! end.
//!
//! Sources (k8s.io/apimachinery `pkg/util/remotecommand/constants.go` and
//! `pkg/util/httpstream/wsstream/conn.go`, the kubelet's CRI streaming server
//! `pkg/kubelet/cri/streaming/remotecommand/websocket.go`, kube-apiserver's
//! `staging/src/k8s.io/apiserver/pkg/util/proxy/{websocket,streamtranslator}.go`):
//!
//! - kube-apiserver answers an offer that includes `v5.channel.k8s.io` itself (its stream
//!   translator, which speaks only v5); any other offer is proxied to the kubelet, which speaks
//!   `v4.channel.k8s.io`, `v4.base64.channel.k8s.io`, `channel.k8s.io`, `base64.channel.k8s.io`
//!   and no subprotocol at all, choosing the first of the client's offer it knows; an offer of
//!   none of them is refused (golang.org/x/net/websocket's handshake: 403, empty body).
//! - A binary message is one channel byte then the data (stdin 0, stdout 1, stderr 2, error 3,
//!   resize 4); the base64 protocols send text messages: the channel as an ASCII digit, then the
//!   data in base64.
//! - v5 only: `[255, channel]` from the client closes that channel (stdin's EOF).
//! - The error channel: v4 and v5 write the `metav1.Status` as JSON without kind and apiVersion
//!   (`json.Marshal(status.Status())`, so `"metadata":{}` first); the older protocols write only
//!   the message of a failure and nothing on success.
//! - Once the streams are open, the server sends an empty message on the lowest channel it writes
//!   (stdout, else stderr, else error), so that the client knows the connection is up.

use base64::Engine;
use serde::Serialize;
use serde_json::{Map, Value};

/// Channel numbers, as `remotecommand` numbers them.
pub const STDIN: u8 = 0;
pub const STDOUT: u8 = 1;
pub const STDERR: u8 = 2;
pub const ERROR: u8 = 3;
pub const RESIZE: u8 = 4;
/// v5's close signal: `[255, channel]`.
pub const CLOSE: u8 = 255;

/// A negotiated subprotocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `v5.channel.k8s.io`: v4 plus the close signal, answered by kube-apiserver's translator.
    V5,
    /// `v4.channel.k8s.io`: binary, the error channel carries a Status as JSON.
    V4,
    /// `v4.base64.channel.k8s.io`.
    V4Base64,
    /// `channel.k8s.io`, or no subprotocol: binary, the error channel carries only a failure's
    /// message.
    Channel { named: bool },
    /// `base64.channel.k8s.io`.
    Base64Channel,
}

impl Protocol {
    /// The subprotocol name the handshake answers with (none for an offer of none).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Protocol::V5 => Some("v5.channel.k8s.io"),
            Protocol::V4 => Some("v4.channel.k8s.io"),
            Protocol::V4Base64 => Some("v4.base64.channel.k8s.io"),
            Protocol::Channel { named: true } => Some("channel.k8s.io"),
            Protocol::Channel { named: false } => None,
            Protocol::Base64Channel => Some("base64.channel.k8s.io"),
        }
    }

    fn base64(self) -> bool {
        matches!(self, Protocol::V4Base64 | Protocol::Base64Channel)
    }

    /// Whether the error channel carries a Status as JSON (v4 and v5) or only a message.
    fn status_json(self) -> bool {
        matches!(self, Protocol::V5 | Protocol::V4 | Protocol::V4Base64)
    }
}

/// The subprotocol for a `Sec-WebSocket-Protocol` offer (the header's comma-separated values,
/// all of its lines), or `None` when the server knows none of them.
pub fn negotiate<'a>(offered: impl IntoIterator<Item = &'a str>) -> Option<Protocol> {
    let offered: Vec<&str> = offered.into_iter().flat_map(|h| h.split(',')).map(str::trim).collect();
    let offered: Vec<&str> = offered.into_iter().filter(|p| !p.is_empty()).collect();
    if offered.contains(&"v5.channel.k8s.io") {
        return Some(Protocol::V5);
    }
    if offered.is_empty() {
        return Some(Protocol::Channel { named: false });
    }
    offered.iter().find_map(|p| match *p {
        "v4.channel.k8s.io" => Some(Protocol::V4),
        "v4.base64.channel.k8s.io" => Some(Protocol::V4Base64),
        "channel.k8s.io" => Some(Protocol::Channel { named: true }),
        "base64.channel.k8s.io" => Some(Protocol::Base64Channel),
        _ => None,
    })
}

/// A message to send: binary, or text for the base64 protocols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Binary(Vec<u8>),
    Text(String),
}

/// `data` on `channel` as a message of `protocol`.
pub fn frame(protocol: Protocol, channel: u8, data: &[u8]) -> Frame {
    if protocol.base64() {
        let mut text = String::with_capacity(1 + data.len() * 4 / 3 + 4);
        text.push(char::from(b'0' + channel));
        text.push_str(&base64::engine::general_purpose::STANDARD.encode(data));
        Frame::Text(text)
    } else {
        let mut bytes = Vec::with_capacity(1 + data.len());
        bytes.push(channel);
        bytes.extend_from_slice(data);
        Frame::Binary(bytes)
    }
}

/// What a client's message asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    Stdin(Vec<u8>),
    /// A terminal size (`{"Width":…,"Height":…}`); one message may hold several.
    Resize(Vec<(u16, u16)>),
    /// v5's close of stdin.
    CloseStdin,
    /// Nothing the server acts on (an empty message, another channel, a channel the request did
    /// not open), as the real server drops them.
    Ignored,
    /// A message the protocol cannot carry (bad base64, a close signal without one channel
    /// byte); the real server stops reading the connection.
    Broken(String),
}

/// Reads a client's message: `binary` or text `data`.
pub fn read(protocol: Protocol, data: &[u8]) -> Incoming {
    let Some((&first, rest)) = data.split_first() else { return Incoming::Ignored };
    let channel = if protocol.base64() { first.wrapping_sub(b'0') } else { first };
    if protocol == Protocol::V5 && channel == CLOSE {
        return match rest {
            [STDIN] => Incoming::CloseStdin,
            [_] => Incoming::Ignored,
            _ => Incoming::Broken(format!("single channel byte should follow close signal, got {} bytes", rest.len())),
        };
    }
    let payload = if protocol.base64() {
        match base64::engine::general_purpose::STANDARD.decode(rest) {
            Ok(p) => p,
            Err(e) => return Incoming::Broken(format!("channel {channel}: invalid base64: {e}")),
        }
    } else {
        rest.to_vec()
    };
    match channel {
        STDIN => Incoming::Stdin(payload),
        RESIZE => Incoming::Resize(sizes(&payload)),
        _ => Incoming::Ignored,
    }
}

/// The terminal sizes in a resize message: JSON objects one after another, as Go's
/// `json.Decoder` reads the stream (`remotecommand.TerminalSize` has no JSON tags, so the keys are
/// `Width` and `Height`; Go matches them case-insensitively). Reading stops at the first value
/// that is not such an object, as the real decoder loop does.
fn sizes(payload: &[u8]) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    for value in serde_json::Deserializer::from_slice(payload).into_iter::<Value>() {
        let Ok(Value::Object(map)) = value else { break };
        let field = |name: &str| {
            map.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.as_u64()).map(|n| n as u16)
        };
        out.push((field("Width").unwrap_or(0), field("Height").unwrap_or(0)));
    }
    out
}

/// How a command ended, for the error channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    Success,
    /// A non-zero exit code; `argv` is the command as the runtime names it.
    Exit {
        code: i32,
        argv: Vec<String>,
    },
    /// Anything else, worded as the kubelet words it (an InternalError).
    Internal(String),
}

/// What the error channel carries at the end, if anything: the Status JSON of v4 and v5 (v5's
/// as kube-apiserver's translator rewrites the kubelet's), or the bare message of the older
/// protocols.
pub fn ending(protocol: Protocol, ending: &Ending) -> Option<Vec<u8>> {
    let status = match ending {
        Ending::Success => ChannelStatus { status: "Success", ..ChannelStatus::default() },
        Ending::Exit { code, argv } => {
            // containerd's CodeExitError, then the kubelet's exec.go wording; the translator
            // decodes that into client-go's CodeExitError and words it again (its own
            // codeExitToStatusError).
            let inner = if protocol == Protocol::V5 {
                format!("command terminated with exit code {code}")
            } else {
                format!("error executing command [{}], exit code {code}", argv.join(" "))
            };
            ChannelStatus {
                metadata: Map::new(),
                status: "Failure",
                message: format!("command terminated with non-zero exit code: {inner}"),
                reason: "NonZeroExitCode",
                details: Some(Causes { causes: vec![Cause { reason: "ExitCode", message: code.to_string() }] }),
                code: 0,
            }
        }
        Ending::Internal(message) => {
            // The kubelet's NewInternalError; the translator reads it as a plain error and
            // wraps it once more.
            let status = internal_error(message.clone());
            if protocol == Protocol::V5 {
                internal_error(status.message)
            } else {
                status
            }
        }
    };
    if protocol.status_json() {
        return serde_json::to_vec(&status).ok();
    }
    (status.status != "Success").then(|| status.message.into_bytes())
}

/// `metav1.Status` as `json.Marshal(status.Status())` writes it: no kind or apiVersion, the
/// fields in Go's order, the empty ones left out (`metadata` is a struct: always written).
#[derive(Debug, Default, Serialize)]
struct ChannelStatus {
    metadata: Map<String, Value>,
    status: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    message: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Causes>,
    #[serde(skip_serializing_if = "is_zero")]
    code: u16,
}

#[derive(Debug, Serialize)]
struct Causes {
    causes: Vec<Cause>,
}

#[derive(Debug, Serialize)]
struct Cause {
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'static str,
    message: String,
}

fn is_zero(code: &u16) -> bool {
    *code == 0
}

/// `apierrors.NewInternalError(err)`.
fn internal_error(message: String) -> ChannelStatus {
    ChannelStatus {
        metadata: Map::new(),
        status: "Failure",
        message: format!("Internal error occurred: {message}"),
        reason: "InternalError",
        details: Some(Causes { causes: vec![Cause { reason: "", message }] }),
        code: 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v5_wins_wherever_it_is_offered_else_the_kubelet_takes_the_first_it_knows() {
        assert_eq!(negotiate(["v4.channel.k8s.io, v5.channel.k8s.io"]), Some(Protocol::V5));
        assert_eq!(negotiate(["v5.channel.k8s.io", "v4.channel.k8s.io"]), Some(Protocol::V5));
        assert_eq!(negotiate(["v4.channel.k8s.io,channel.k8s.io"]), Some(Protocol::V4));
        assert_eq!(negotiate(["base64.channel.k8s.io, v4.channel.k8s.io"]), Some(Protocol::Base64Channel));
        assert_eq!(negotiate(["x.example, v4.base64.channel.k8s.io"]), Some(Protocol::V4Base64));
        assert_eq!(negotiate(Vec::<&str>::new()), Some(Protocol::Channel { named: false }));
        assert_eq!(negotiate(["v3.channel.k8s.io", "v2.channel.k8s.io"]), None, "SPDY's names are no subprotocols");
        assert_eq!(Protocol::Channel { named: false }.name(), None);
        assert_eq!(Protocol::V5.name(), Some("v5.channel.k8s.io"));
    }

    #[test]
    fn frames_carry_the_channel_first() {
        assert_eq!(frame(Protocol::V5, STDOUT, b"hi\n"), Frame::Binary(vec![1, b'h', b'i', b'\n']));
        assert_eq!(frame(Protocol::V4, STDOUT, b""), Frame::Binary(vec![1]), "the connection-up message");
        assert_eq!(frame(Protocol::V4Base64, STDERR, b"hi"), Frame::Text("2aGk=".into()));
        assert_eq!(read(Protocol::V5, &[0, b'l', b's', b'\n']), Incoming::Stdin(b"ls\n".to_vec()));
        assert_eq!(read(Protocol::Base64Channel, b"0bHMK"), Incoming::Stdin(b"ls\n".to_vec()));
        assert!(matches!(read(Protocol::Base64Channel, b"0!!"), Incoming::Broken(_)));
        assert_eq!(read(Protocol::V4, &[1, b'x']), Incoming::Ignored, "stdout is not the client's to write");
        assert_eq!(read(Protocol::V4, &[]), Incoming::Ignored);
    }

    #[test]
    fn only_v5_reads_the_close_signal() {
        assert_eq!(read(Protocol::V5, &[255, 0]), Incoming::CloseStdin);
        assert_eq!(read(Protocol::V5, &[255, 4]), Incoming::Ignored);
        assert!(matches!(read(Protocol::V5, &[255, 0, 1]), Incoming::Broken(_)));
        assert_eq!(read(Protocol::V4, &[255, 0]), Incoming::Ignored, "v4 has no channel 255");
    }

    #[test]
    fn resize_messages_are_json_terminal_sizes() {
        assert_eq!(read(Protocol::V5, b"\x04{\"Width\":120,\"Height\":40}"), Incoming::Resize(vec![(120, 40)]));
        assert_eq!(
            read(Protocol::V4, b"\x04{\"width\":80,\"height\":24}{\"Width\":100,\"Height\":30}"),
            Incoming::Resize(vec![(80, 24), (100, 30)])
        );
        assert_eq!(read(Protocol::V4, b"\x04not json"), Incoming::Resize(vec![]));
    }

    fn text(bytes: Option<Vec<u8>>) -> String {
        String::from_utf8(bytes.expect("something on the error channel")).expect("UTF-8")
    }

    #[test]
    fn the_error_channel_says_what_the_real_servers_say() {
        assert_eq!(text(ending(Protocol::V5, &Ending::Success)), r#"{"metadata":{},"status":"Success"}"#);
        assert_eq!(text(ending(Protocol::V4, &Ending::Success)), r#"{"metadata":{},"status":"Success"}"#);
        assert_eq!(ending(Protocol::Channel { named: true }, &Ending::Success), None);
        let exit = Ending::Exit { code: 3, argv: vec!["sh".into(), "-c".into(), "exit 3".into()] };
        assert_eq!(
            text(ending(Protocol::V5, &exit)),
            r#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#
        );
        let v4: Value = serde_json::from_slice(&ending(Protocol::V4, &exit).unwrap()).unwrap();
        assert_eq!(
            v4["message"],
            "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
        );
        assert_eq!(
            text(ending(Protocol::Base64Channel, &exit)),
            "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
        );
        let internal = Ending::Internal("unable to upgrade connection: container not found (\"web\")".into());
        let v5: Value = serde_json::from_slice(&ending(Protocol::V5, &internal).unwrap()).unwrap();
        assert_eq!(
            v5["message"],
            "Internal error occurred: Internal error occurred: unable to upgrade connection: container not found (\"web\")"
        );
        assert_eq!(
            text(ending(Protocol::V4, &internal)),
            r#"{"metadata":{},"status":"Failure","message":"Internal error occurred: unable to upgrade connection: container not found (\"web\")","reason":"InternalError","details":{"causes":[{"message":"unable to upgrade connection: container not found (\"web\")"}]},"code":500}"#
        );
    }
}
