//! `pods/portforward` over SPDY/3.1, as the kubelet serves it, without I/O: a [`Session`] takes
//! the client's bytes (from a SPDY upgrade or tunnelled through a WebSocket, `http::exec::
//! portforward`) and answers with bytes. What it does, and where the kubelet does the same:
//!
//! - Each SYN_STREAM is checked as `httpStreamReceived` checks it (pkg/kubelet/cri/streaming/
//!   portforward/httpstream.go): a `port` header of 1–65535 and a `streamType` of `error` or
//!   `data`; a stream without them is reset (RST_STREAM CANCEL, `newSpdyStream` in
//!   k8s.io/apimachinery/pkg/util/httpstream/spdy/connection.go), any other gets a SYN_REPLY with
//!   no headers. A stream id lower than one already seen is a protocol error (RST_STREAM
//!   PROTOCOL_ERROR, spdystream's `validateStreamId`).
//! - Streams pair up by their `requestID` header (or, from a client that sends none, by the stream
//!   id: the error stream's, the data stream's minus 2, as `httpStreamHandler.requestID` guesses);
//!   a second stream of one type for a request gets "error processing stream for request ID: data
//!   stream already assigned" on the request's error stream.
//! - A pair complete, the data stream's bytes go to the simulated container's HTTP server on the
//!   data stream's port (`exec::page`), and its answers come back as DATA frames of at most 32 KiB
//!   (the kubelet copies with `io.Copy`'s buffer). A port no container declares gets the kubelet's
//!   "error forwarding port …: connection refused" on the error stream.
//! - When the client is done writing (FIN on the data stream) or resets the data stream, or when
//!   the server closes its connection, the kubelet's `portForward` returns and closes both
//!   streams: FIN on each (an empty DATA frame with FLAG_FIN, spdystream's `Stream.Close`), the
//!   data stream's only if the client did not reset it.
//! - A PING from the client (odd id) is echoed, as spdystream's `handlePingFrame` does; a GOAWAY
//!   ends the session. SETTINGS and WINDOW_UPDATE change nothing: spdystream keeps no flow-control
//!   window, so neither do kubectl or the kubelet. Bytes that are not SPDY/3 end the session
//!   with a GOAWAY (PROTOCOL_ERROR), where spdystream stops reading and the kubelet closes.
//!
//! Not simulated: the kubelet's stream-creation timeout (a pair left incomplete waits forever
//! here) and its idle timeout.

use std::collections::HashMap;

use serde_json::Value;

use crate::exec::page::{Connection, Reply, Server};
use crate::exec::spdy::{self, Decoder, Encoder, Frame, Headers, CANCEL, FLAG_FIN, PROTOCOL_ERROR};

/// The largest DATA frame kube-sim writes: what the kubelet's `io.Copy` reads at a time.
const CHUNK: usize = 32 * 1024;

/// The kubelet's words for a port nothing listens on (`httpStreamHandler.portForward`).
pub fn refused(pod: &Value, port: u16) -> String {
    format!(
        "error forwarding port {port} to pod {}, uid {}: failed to connect to localhost:{port} inside the pod's network namespace: connect: connection refused",
        pod["metadata"]["name"].as_str().unwrap_or_default(),
        pod["metadata"]["uid"].as_str().unwrap_or_default(),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Data,
    Error,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Data => "data",
            Kind::Error => "error",
        }
    }
}

/// One forwarded connection: its two streams and the container's end.
#[derive(Debug, Default)]
struct Pair {
    data: Option<u32>,
    error: Option<u32>,
    /// The data stream's port.
    port: u16,
    connection: Option<Connection>,
    /// Bytes the client sent on the data stream before the error stream came.
    pending: Vec<u8>,
    /// FIN on the data stream: the client sends no more.
    client_done: bool,
    data_reset: bool,
    error_reset: bool,
}

/// What to send after some bytes from the client, and whether the connection is over.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub bytes: Vec<u8>,
    pub end: bool,
}

/// The server's side of one port-forward connection.
pub struct Session {
    pod: Value,
    decoder: Decoder,
    encoder: Encoder,
    /// The lowest id the client's next stream may have (spdystream's `receivedStreamId`).
    next_stream_id: u32,
    /// Open streams: their request id and type.
    streams: HashMap<u32, (String, Kind)>,
    pairs: HashMap<String, Pair>,
    ended: bool,
}

impl Session {
    pub fn new(pod: Value) -> Session {
        Session {
            pod,
            decoder: Decoder::new(),
            encoder: Encoder::new(),
            next_stream_id: 1,
            streams: HashMap::new(),
            pairs: HashMap::new(),
            ended: false,
        }
    }

    /// Takes bytes from the client as they came (any split); answers with the frames they call for.
    pub fn receive(&mut self, bytes: &[u8]) -> Output {
        let mut out = Vec::new();
        if !self.ended {
            self.decoder.push(bytes);
        }
        while !self.ended {
            match self.decoder.next_frame() {
                Ok(Some(frame)) => self.frame(frame, &mut out),
                Ok(None) => break,
                Err(_) => {
                    let last_good_stream_id = self.next_stream_id.saturating_sub(2);
                    out.extend(self.encoder.encode(&Frame::GoAway { last_good_stream_id, status: PROTOCOL_ERROR }));
                    self.ended = true;
                }
            }
        }
        Output { bytes: out, end: self.ended }
    }

    fn frame(&mut self, frame: Frame, out: &mut Vec<u8>) {
        match frame {
            Frame::SynStream { stream_id, flags, headers, .. } => self.open(stream_id, flags, &headers, out),
            Frame::Data { stream_id, flags, data } => self.data(stream_id, flags, &data, out),
            Frame::RstStream { stream_id, .. } => self.reset(stream_id, out),
            Frame::Ping { id } if id % 2 == 1 => out.extend(self.encoder.encode(&Frame::Ping { id })),
            Frame::GoAway { .. } => self.ended = true,
            // SETTINGS, WINDOW_UPDATE, HEADERS, a SYN_REPLY (the server opens no stream), a PING
            // answering the server's (it sends none), other types: nothing to do.
            _ => {}
        }
    }

    fn open(&mut self, id: u32, flags: u8, headers: &Headers, out: &mut Vec<u8>) {
        if id == 0 || id < self.next_stream_id {
            out.extend(self.encoder.encode(&Frame::RstStream { stream_id: id, status: PROTOCOL_ERROR }));
            return;
        }
        self.next_stream_id = id.saturating_add(2);
        let Some((kind, port)) = check(headers) else {
            out.extend(self.encoder.encode(&Frame::RstStream { stream_id: id, status: CANCEL }));
            return;
        };
        out.extend(self.encoder.encode(&Frame::SynReply { stream_id: id, flags: 0, headers: Vec::new() }));
        let request = match spdy::header(headers, "requestid").filter(|r| !r.is_empty()) {
            Some(r) => r.to_string(),
            None if kind == Kind::Error => id.to_string(),
            None => (i64::from(id) - 2).to_string(),
        };
        let pair = self.pairs.entry(request.clone()).or_default();
        let slot = match kind {
            Kind::Data => &mut pair.data,
            Kind::Error => &mut pair.error,
        };
        if slot.is_some() {
            let message =
                format!("error processing stream for request {request}: {} stream already assigned", kind.word());
            if let (Some(error), false) = (pair.error, pair.error_reset) {
                let frame = Frame::Data { stream_id: error, flags: 0, data: message.into_bytes() };
                out.extend(self.encoder.encode(&frame));
            }
            return;
        }
        *slot = Some(id);
        if kind == Kind::Data {
            pair.port = port;
            pair.client_done |= flags & FLAG_FIN != 0;
        }
        self.streams.insert(id, (request.clone(), kind));
        if pair.data.is_some() && pair.error.is_some() {
            self.start(&request, out);
        }
    }

    /// Both streams are there: connect to the container's port.
    fn start(&mut self, request: &str, out: &mut Vec<u8>) {
        let Some(pair) = self.pairs.get_mut(request) else { return };
        match Server::of(&self.pod, pair.port) {
            Some(server) => {
                pair.connection = Some(Connection::new(server));
                let pending = std::mem::take(&mut pair.pending);
                let done = pair.client_done;
                if !pending.is_empty() {
                    self.forward(request, &pending, out);
                }
                if done {
                    self.finish(request, out);
                }
            }
            None => {
                let message = refused(&self.pod, pair.port);
                if let Some(error) = pair.error {
                    out.extend(self.encoder.encode(&Frame::Data {
                        stream_id: error,
                        flags: 0,
                        data: message.into_bytes(),
                    }));
                }
                self.finish(request, out);
            }
        }
    }

    fn data(&mut self, id: u32, flags: u8, bytes: &[u8], out: &mut Vec<u8>) {
        // Data on the error stream (kubectl only closes it) or on a stream gone: nothing to do.
        let Some((request, Kind::Data)) = self.streams.get(&id).cloned() else { return };
        let Some(pair) = self.pairs.get_mut(&request) else { return };
        let fin = flags & FLAG_FIN != 0;
        if pair.connection.is_none() {
            pair.pending.extend_from_slice(bytes);
            pair.client_done |= fin;
            return;
        }
        if !bytes.is_empty() {
            self.forward(&request, bytes, out);
        }
        if fin {
            self.finish(&request, out);
        }
    }

    /// Bytes for the container; its answers on the data stream.
    fn forward(&mut self, request: &str, bytes: &[u8], out: &mut Vec<u8>) {
        let Some(pair) = self.pairs.get_mut(request) else { return };
        let (Some(connection), Some(data)) = (pair.connection.as_mut(), pair.data) else { return };
        let mut close = false;
        for reply in connection.push(bytes) {
            let bytes = match reply {
                Reply::Send(b) => b,
                Reply::SendAndClose(b) => {
                    close = true;
                    b
                }
            };
            for chunk in bytes.chunks(CHUNK) {
                out.extend(self.encoder.encode(&Frame::Data { stream_id: data, flags: 0, data: chunk.to_vec() }));
            }
        }
        if close {
            self.finish(request, out);
        }
    }

    fn reset(&mut self, id: u32, out: &mut Vec<u8>) {
        let Some((request, kind)) = self.streams.remove(&id) else { return };
        let Some(pair) = self.pairs.get_mut(&request) else { return };
        match kind {
            Kind::Error => pair.error_reset = true,
            Kind::Data => {
                pair.data_reset = true;
                if pair.error.is_some() {
                    self.finish(&request, out);
                }
            }
        }
    }

    /// The kubelet's `portForward` returned: FIN on both streams, and the pair is forgotten.
    fn finish(&mut self, request: &str, out: &mut Vec<u8>) {
        let Some(pair) = self.pairs.remove(request) else { return };
        let open = [(pair.data, pair.data_reset), (pair.error, pair.error_reset)];
        for (stream_id, reset) in open {
            let Some(stream_id) = stream_id else { continue };
            self.streams.remove(&stream_id);
            if !reset {
                out.extend(self.encoder.encode(&Frame::Data { stream_id, flags: FLAG_FIN, data: Vec::new() }));
            }
        }
    }
}

/// `httpStreamReceived`: the stream's type and port, or none for a stream to refuse.
fn check(headers: &Headers) -> Option<(Kind, u16)> {
    let port = spdy::header(headers, "port")?;
    // strconv.ParseUint(s, 10, 16): digits only, at most 65535; then > 0.
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let port = port.parse::<u16>().ok().filter(|p| *p > 0)?;
    let kind = match spdy::header(headers, "streamtype")? {
        "error" => Kind::Error,
        "data" => Kind::Data,
        _ => return None,
    };
    Some((kind, port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::spdy::tests::{hex, kubectl_1_29};
    use serde_json::json;

    fn pod() -> Value {
        json!({"metadata": {"name": "web-1", "namespace": "demo", "uid": "u-1"},
            "spec": {"containers": [{"name": "web", "ports": [{"containerPort": 80}]}]}})
    }

    /// A client: frames it writes with its own context, what the server wrote back read with another.
    struct Client {
        session: Session,
        encoder: Encoder,
        decoder: Decoder,
        ended: bool,
    }

    impl Client {
        fn new() -> Client {
            Client { session: Session::new(pod()), encoder: Encoder::new(), decoder: Decoder::new(), ended: false }
        }

        fn bytes(&mut self, bytes: &[u8]) -> Vec<Frame> {
            let output = self.session.receive(bytes);
            self.ended = output.end;
            self.decoder.push(&output.bytes);
            std::iter::from_fn(|| self.decoder.next_frame().expect("the server writes SPDY/3")).collect()
        }

        fn send(&mut self, frames: &[Frame]) -> Vec<Frame> {
            let bytes: Vec<u8> = frames.iter().flat_map(|f| self.encoder.encode(f)).collect();
            self.bytes(&bytes)
        }
    }

    fn syn(stream_id: u32, pairs: &[(&str, &str)]) -> Frame {
        let headers = pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        Frame::SynStream { stream_id, associated_to: 0, priority: 0, flags: 0, headers }
    }

    fn reply(stream_id: u32) -> Frame {
        Frame::SynReply { stream_id, flags: 0, headers: Vec::new() }
    }

    fn data(stream_id: u32, bytes: &[u8]) -> Frame {
        Frame::Data { stream_id, flags: 0, data: bytes.to_vec() }
    }

    fn fin(stream_id: u32) -> Frame {
        Frame::Data { stream_id, flags: FLAG_FIN, data: Vec::new() }
    }

    fn page(frame: &Frame) -> String {
        match frame {
            Frame::Data { flags: 0, data, .. } => String::from_utf8_lossy(data).into_owned(),
            other => panic!("not data: {other:?}"),
        }
    }

    #[test]
    fn kubectls_connection_gets_the_containers_page_on_each_data_stream() {
        let mut client = Client::new();
        let mut got = Vec::new();
        for chunk in kubectl_1_29() {
            got.extend(client.bytes(&hex(chunk)));
        }
        assert!(!client.ended);
        assert_eq!(got.len(), 12, "{got:#?}");
        assert_eq!(got[..2], [reply(1), reply(3)]);
        let first = page(&got[2]);
        assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{first}");
        assert!(first.contains("pod <b>demo/web-1</b>, container <b>web</b>, port 80"), "{first}");
        assert!(first.contains("GET <code>/some/path</code>"), "{first}");
        assert!(matches!(&got[2], Frame::Data { stream_id: 3, .. }));
        // The client's FIN on the data stream: the kubelet's portForward returns, both streams close.
        assert_eq!(got[3..7], [fin(3), fin(1), reply(5), reply(7)]);
        assert!(page(&got[7]).contains("GET <code>/second</code>"));
        assert_eq!(got[8..], [fin(7), fin(5), Frame::Ping { id: 1 }, Frame::Ping { id: 3 }]);
    }

    #[test]
    fn an_undeclared_port_gets_the_kubelets_refusal_on_the_error_stream() {
        let mut client = Client::new();
        let got = client.send(&[
            syn(1, &[("streamtype", "error"), ("port", "81"), ("requestid", "0")]),
            fin(1),
            syn(3, &[("streamtype", "data"), ("port", "81"), ("requestid", "0")]),
        ]);
        assert_eq!(got.len(), 5, "{got:#?}");
        assert_eq!(got[..2], [reply(1), reply(3)]);
        assert_eq!(
            got[2],
            data(1, b"error forwarding port 81 to pod web-1, uid u-1: failed to connect to localhost:81 inside the pod's network namespace: connect: connection refused")
        );
        assert_eq!(got[3..], [fin(3), fin(1)]);
    }

    #[test]
    fn streams_without_a_port_or_type_are_reset_and_old_ids_refused() {
        let mut client = Client::new();
        let got = client.send(&[
            syn(1, &[("streamtype", "error"), ("requestid", "0")]),
            syn(3, &[("streamtype", "data"), ("port", "http")]),
            syn(5, &[("streamtype", "data"), ("port", "0")]),
            syn(7, &[("streamtype", "stdin"), ("port", "80")]),
            syn(9, &[("port", "80")]),
            syn(11, &[("streamtype", "error"), ("port", "80"), ("requestid", "0")]),
            syn(9, &[("streamtype", "data"), ("port", "80"), ("requestid", "0")]),
        ]);
        let reset = |stream_id, status| Frame::RstStream { stream_id, status };
        assert_eq!(
            got,
            [
                reset(1, CANCEL),
                reset(3, CANCEL),
                reset(5, CANCEL),
                reset(7, CANCEL),
                reset(9, CANCEL),
                reply(11),
                reset(9, PROTOCOL_ERROR)
            ]
        );
    }

    #[test]
    fn streams_pair_by_stream_id_without_a_request_id_and_data_may_come_first() {
        let mut client = Client::new();
        // An old client: no requestID; the data stream is the error stream's id + 2.
        let got = client.send(&[
            syn(1, &[("streamtype", "error"), ("port", "80")]),
            syn(3, &[("streamtype", "data"), ("port", "80")]),
            data(3, b"GET /old HTTP/1.1\r\nConnection: close\r\n\r\n"),
        ]);
        assert_eq!(got[..2], [reply(1), reply(3)]);
        assert!(page(&got[2]).contains("GET <code>/old</code>"));
        assert_eq!(got[3..], [fin(3), fin(1)], "the server closed: both streams end");
        // The data stream first, its bytes kept until the error stream comes; then a reset.
        let got = client.send(&[
            syn(5, &[("streamtype", "data"), ("port", "80"), ("requestid", "7")]),
            data(5, b"GET /early HTTP/1.1\r\n\r\n"),
            syn(7, &[("streamtype", "error"), ("port", "80"), ("requestid", "7")]),
            Frame::RstStream { stream_id: 5, status: CANCEL },
        ]);
        assert_eq!(got[..2], [reply(5), reply(7)]);
        assert!(page(&got[2]).contains("GET <code>/early</code>"));
        assert_eq!(got[3..], [fin(7)], "after a reset the data stream gets nothing more");
        assert!(client.send(&[data(5, b"GET / HTTP/1.1\r\n\r\n")]).is_empty(), "a stream gone");
    }

    #[test]
    fn a_second_stream_of_a_type_is_an_error_on_the_requests_error_stream() {
        let mut client = Client::new();
        let got = client.send(&[
            syn(1, &[("streamtype", "error"), ("port", "80"), ("requestid", "0")]),
            syn(3, &[("streamtype", "error"), ("port", "80"), ("requestid", "0")]),
        ]);
        assert_eq!(
            got,
            [reply(1), reply(3), data(1, b"error processing stream for request 0: error stream already assigned")]
        );
    }

    #[test]
    fn pings_settings_and_goaway() {
        let mut client = Client::new();
        let got = client.send(&[
            Frame::Settings { flags: 0, settings: vec![(0, 7, 65536)] },
            Frame::WindowUpdate { stream_id: 1, delta: 10 },
            Frame::Ping { id: 2 },
            Frame::Ping { id: 7 },
        ]);
        assert_eq!(got, [Frame::Ping { id: 7 }], "the client's pings (odd) are echoed");
        assert!(!client.ended);
        assert!(client.send(&[Frame::GoAway { last_good_stream_id: 0, status: 0 }]).is_empty());
        assert!(client.ended);
    }

    #[test]
    fn bytes_that_are_not_spdy_end_the_session_with_a_goaway() {
        let mut client = Client::new();
        client.send(&[syn(1, &[("streamtype", "error"), ("port", "80"), ("requestid", "0")])]);
        // A SYN_REPLY whose header block is no deflate stream (a block of the reserved type 3).
        let got = client.bytes(&hex("80030002 00000008 00000003 ffffffff"));
        assert_eq!(got, [Frame::GoAway { last_good_stream_id: 1, status: PROTOCOL_ERROR }]);
        assert!(client.ended);
    }
}
