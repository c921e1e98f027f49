//! The channel protocol of `pods/exec` and `pods/attach` over a WebSocket, as kube-apiserver
//! speaks it (`k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go`, the v5 translator
//! `apiserver/pkg/util/proxy/streamtranslator.go`, client-go's `tools/remotecommand`): every
//! binary message is one channel byte, then the data. The client writes stdin (0), resize (4,
//! JSON `{"Width","Height"}`) and, in v5 only, `[255, 0]` to close stdin; the server writes stdout
//! (1), stderr (2) and, last, the error channel (3): a `metav1.Status` without kind or apiVersion
//! saying how the process ended (`NonZeroExitCode` with the code in `details.causes`).
//!
//! Only the binary protocols are offered (`v5.channel.k8s.io`, then `v4.channel.k8s.io`); the
//! base64 ones and the unversioned `channel.k8s.io` (no Status on the error channel, so no exit
//! code) are not. Pure: bytes in, values out.

use crate::i18n::{Localized, Msg, Text};
use kube_wire::codec::json::decode_json;
use kube_wire::codec::value::Value;

/// A subprotocol of the channel protocol the explorer speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `v5.channel.k8s.io` (kube-apiserver 1.30+): v4 and a close signal for stdin.
    V5,
    /// `v4.channel.k8s.io`: the error channel carries a Status.
    V4,
}

impl Protocol {
    /// What the client offers in `Sec-WebSocket-Protocol`, best first: the server picks.
    pub const OFFER: [Protocol; 2] = [Protocol::V5, Protocol::V4];

    /// The subprotocol's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::V5 => "v5.channel.k8s.io",
            Protocol::V4 => "v4.channel.k8s.io",
        }
    }

    /// The protocol the server chose (`WebSocket.protocol` once open).
    pub fn negotiated(name: &str) -> Result<Protocol, ChannelError> {
        Protocol::OFFER
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| ChannelError::NotNegotiated(name.to_owned()))
    }
}

const STDIN: u8 = 0;
const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const ERROR: u8 = 3;
const RESIZE: u8 = 4;
const CLOSE: u8 = 255;

/// One message from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Bytes for the terminal (stdout; with a tty the kubelet merges stderr into it).
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// The error channel: how the process ended.
    Ended(Ending),
}

/// How the process ended, read from the error channel's Status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// `status: Success`: exit code 0.
    Success,
    /// `reason: NonZeroExitCode`: the code from `details.causes[reason=ExitCode]`.
    ExitCode { code: i32, message: String },
    /// Any other failure (the program could not start, the container is not running): the
    /// Status's message and reason.
    Failure { message: String, reason: String },
}

impl Ending {
    /// The exit code, when there is one (0 for a success).
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            Ending::Success => Some(0),
            Ending::ExitCode { code, .. } => Some(*code),
            Ending::Failure { .. } => None,
        }
    }
}

/// A message the protocol does not allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelError {
    /// A message without even a channel byte.
    Empty,
    /// A channel a server does not write on (0 and 4 are the client's).
    UnknownChannel(u8),
    /// The error channel's data is not a Status.
    NotAStatus(String),
    /// The server chose a subprotocol the explorer did not offer (or none).
    NotNegotiated(String),
}

impl Localized for ChannelError {
    fn text(&self) -> Text {
        match self {
            ChannelError::Empty => Text::new(Msg::TerminalEmptyMessage),
            ChannelError::UnknownChannel(channel) => Text::new(Msg::TerminalUnknownChannel).with("channel", channel),
            ChannelError::NotAStatus(problem) => Text::new(Msg::TerminalNotAStatus).with("problem", problem),
            ChannelError::NotNegotiated(name) => Text::new(Msg::TerminalNotNegotiated)
                .with("name", if name.is_empty() { "(none)" } else { name })
                .with("offer", format!("{}, {}", Protocol::V5.name(), Protocol::V4.name())),
        }
    }
}

crate::localized_display!(ChannelError);

/// Reads one binary message from the server.
pub fn decode(message: &[u8]) -> Result<Frame, ChannelError> {
    let (&channel, data) = message.split_first().ok_or(ChannelError::Empty)?;
    match channel {
        STDOUT => Ok(Frame::Stdout(data.to_vec())),
        STDERR => Ok(Frame::Stderr(data.to_vec())),
        ERROR => ending(data).map(Frame::Ended),
        other => Err(ChannelError::UnknownChannel(other)),
    }
}

/// The error channel's Status as an [`Ending`].
pub fn ending(data: &[u8]) -> Result<Ending, ChannelError> {
    let status = decode_json(data).map_err(|e| ChannelError::NotAStatus(e.to_string()))?;
    if status.as_object().is_none() {
        return Err(ChannelError::NotAStatus(String::from_utf8_lossy(data).into_owned()));
    }
    let text = |key: &str| status.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    match text("status").as_str() {
        "Success" => Ok(Ending::Success),
        "Failure" => {
            let (message, reason) = (text("message"), text("reason"));
            let code = (reason == "NonZeroExitCode").then(|| exit_code_cause(&status)).flatten();
            Ok(match code {
                Some(code) => Ending::ExitCode { code, message },
                None => Ending::Failure { message, reason },
            })
        }
        other => Err(ChannelError::NotAStatus(format!("status {other:?}"))),
    }
}

fn exit_code_cause(status: &Value) -> Option<i32> {
    status
        .at(&["details", "causes"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .find(|c| c.get("reason").and_then(Value::as_str) == Some("ExitCode"))
        .and_then(|c| c.get("message").and_then(Value::as_str))
        .and_then(|m| m.trim().parse().ok())
}

/// What the keyboard typed, for stdin.
pub fn stdin(data: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(data.len() + 1);
    message.push(STDIN);
    message.extend_from_slice(data);
    message
}

/// A terminal size for the resize channel.
pub fn resize(cols: u16, rows: u16) -> Vec<u8> {
    let mut message = vec![RESIZE];
    message.extend_from_slice(format!("{{\"Width\":{cols},\"Height\":{rows}}}").as_bytes());
    message
}

/// The end of stdin: `[255, 0]` in v5; v4 has no such signal (closing the socket is all).
pub fn close_stdin(protocol: Protocol) -> Option<Vec<u8>> {
    (protocol == Protocol::V5).then(|| vec![CLOSE, STDIN])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What kube-sim (as the v5 translator) wrote for `exit 3`, recorded with a WebSocket client.
    const EXIT_3_V5: &str = r#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#;

    fn error_channel(status: &str) -> Vec<u8> {
        let mut message = vec![3];
        message.extend_from_slice(status.as_bytes());
        message
    }

    #[test]
    fn the_server_channels_are_read() {
        assert_eq!(decode(&[1]), Ok(Frame::Stdout(vec![])), "the connection-up message");
        assert_eq!(decode(b"\x01/ # "), Ok(Frame::Stdout(b"/ # ".to_vec())));
        assert_eq!(decode(b"\x02oops"), Ok(Frame::Stderr(b"oops".to_vec())));
        assert_eq!(decode(&[]), Err(ChannelError::Empty));
        assert_eq!(decode(&[0, 1]), Err(ChannelError::UnknownChannel(0)));
        assert_eq!(decode(&[4]), Err(ChannelError::UnknownChannel(4)));
    }

    #[test]
    fn the_error_channel_says_how_the_process_ended() {
        let code = |status: &str| decode(&error_channel(status));
        assert_eq!(code(r#"{"metadata":{},"status":"Success"}"#), Ok(Frame::Ended(Ending::Success)));
        let Ok(Frame::Ended(ended)) = code(EXIT_3_V5) else { panic!("not an ending") };
        assert_eq!(ended.exit_code(), Some(3));
        // v4: the kubelet's words, the same cause.
        let v4 = EXIT_3_V5
            .replace("command terminated with exit code 3", "error executing command [sh -c exit 3], exit code 3");
        assert_eq!(ending(v4.as_bytes()).map(|e| e.exit_code()), Ok(Some(3)));
        let internal = r#"{"metadata":{},"status":"Failure","message":"Internal error occurred: container not found (\"app\")","reason":"InternalError","details":{"causes":[{"message":"x"}]},"code":500}"#;
        assert_eq!(
            ending(internal.as_bytes()),
            Ok(Ending::Failure {
                message: "Internal error occurred: container not found (\"app\")".to_owned(),
                reason: "InternalError".to_owned()
            })
        );
        // A NonZeroExitCode without a readable code is a failure, not exit code 0.
        let no_code = r#"{"status":"Failure","message":"m","reason":"NonZeroExitCode"}"#;
        assert_eq!(ending(no_code.as_bytes()).map(|e| e.exit_code()), Ok(None));
        assert!(matches!(ending(b"exit code 3"), Err(ChannelError::NotAStatus(_))));
        assert!(matches!(ending(b"[1]"), Err(ChannelError::NotAStatus(_))));
        assert!(matches!(ending(br#"{"status":"Maybe"}"#), Err(ChannelError::NotAStatus(_))));
    }

    #[test]
    fn the_client_channels_are_framed() {
        assert_eq!(stdin(b"echo hi\r"), b"\x00echo hi\r".to_vec());
        assert_eq!(resize(100, 30), b"\x04{\"Width\":100,\"Height\":30}".to_vec());
        assert_eq!(close_stdin(Protocol::V5), Some(vec![255, 0]));
        assert_eq!(close_stdin(Protocol::V4), None);
    }

    #[test]
    fn only_an_offered_protocol_is_accepted() {
        assert_eq!(Protocol::negotiated("v5.channel.k8s.io"), Ok(Protocol::V5));
        assert_eq!(Protocol::negotiated("v4.channel.k8s.io"), Ok(Protocol::V4));
        assert_eq!(Protocol::negotiated(""), Err(ChannelError::NotNegotiated(String::new())));
        assert!(Protocol::negotiated("base64.channel.k8s.io").is_err());
    }
}
