//! What a simulated container answers on the ports it declares (`containerPort`, TCP): a small
//! HTTP/1.1 server, without I/O, whose page names the pod and the container and echoes the
//! request's method and path. Port-forward (`http::exec::portforward`) feeds it the bytes a
//! client sends; `pods/proxy` and `services/proxy` (`http::proxy`) ask it for one response.
//!
//! Invariants: a request is answered once its head (and its `Content-Length` body) is complete;
//! bytes after it stay for the next request (keep-alive); a head that is not HTTP gets a 400 and
//! the connection is closed, as a real server would.

use serde_json::Value;

/// The container serving a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub port: u16,
}

impl Server {
    /// The container of `pod` that declares `port`, if one does (init containers do not serve).
    pub fn of(pod: &Value, port: u16) -> Option<Server> {
        let container = pod["spec"]["containers"].as_array()?.iter().find(|c| {
            c["ports"].as_array().into_iter().flatten().any(|p| {
                p["containerPort"].as_u64() == Some(u64::from(port))
                    && p["protocol"].as_str().is_none_or(|x| x == "TCP")
            })
        })?;
        Some(Server {
            namespace: pod["metadata"]["namespace"].as_str().unwrap_or_default().to_string(),
            pod: pod["metadata"]["name"].as_str().unwrap_or_default().to_string(),
            container: container["name"].as_str().unwrap_or_default().to_string(),
            port,
        })
    }

    /// The page for `method` `path`: status, content type and body (empty for HEAD).
    pub fn page(&self, method: &str, path: &str) -> (u16, &'static str, String) {
        let body = format!(
            "<!doctype html>\n<html><head><title>{ns}/{pod}</title></head><body>\n\
             <h1>kube-sim</h1>\n<p>pod <b>{ns}/{pod}</b>, container <b>{container}</b>, port {port}</p>\n\
             <p>{method} <code>{path}</code></p>\n</body></html>\n",
            ns = escape(&self.namespace),
            pod = escape(&self.pod),
            container = escape(&self.container),
            port = self.port,
            method = escape(method),
            path = escape(path),
        );
        (200, "text/html; charset=utf-8", if method == "HEAD" { String::new() } else { body })
    }

    /// A whole HTTP/1.1 response to `method` `path`.
    pub fn response(&self, method: &str, path: &str) -> Vec<u8> {
        let (code, content_type, body) = self.page(method, path);
        let length = if method == "HEAD" { self.page("GET", path).2.len() } else { body.len() };
        format!(
            "HTTP/1.1 {code} OK\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\nServer: kube-sim\r\n\r\n{body}"
        )
        .into_bytes()
    }
}

/// What the server does with the bytes received so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A response to send; more may follow on the same connection.
    Send(Vec<u8>),
    /// A response to send, then close the connection.
    SendAndClose(Vec<u8>),
}

/// One connection to a [`Server`]: a push parser of requests.
#[derive(Debug)]
pub struct Connection {
    server: Server,
    buffer: Vec<u8>,
    closed: bool,
}

impl Connection {
    pub fn new(server: Server) -> Connection {
        Connection { server, buffer: Vec::new(), closed: false }
    }

    /// Takes bytes from the client; answers every request they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Reply> {
        if self.closed {
            return Vec::new();
        }
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = find(&self.buffer, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
            let mut lines = head.split("\r\n");
            let request_line: Vec<&str> = lines.next().unwrap_or_default().split(' ').collect();
            let [method, path, version] = request_line.as_slice() else {
                self.closed = true;
                out.push(Reply::SendAndClose(bad_request()));
                return out;
            };
            if !version.starts_with("HTTP/1.") {
                self.closed = true;
                out.push(Reply::SendAndClose(bad_request()));
                return out;
            }
            let length: usize = lines
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
                .and_then(|(_, v)| v.trim().parse().ok())
                .unwrap_or(0);
            if self.buffer.len() < end + 4 + length {
                break;
            }
            let response = self.server.response(method, path);
            let close = head.to_ascii_lowercase().contains("\r\nconnection: close") || *version == "HTTP/1.0";
            self.buffer.drain(..end + 4 + length);
            if close {
                self.closed = true;
                out.push(Reply::SendAndClose(response));
                return out;
            }
            out.push(Reply::Send(response));
        }
        out
    }
}

fn bad_request() -> Vec<u8> {
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"
        .to_vec()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server() -> Server {
        let pod = json!({"metadata": {"name": "web-1", "namespace": "demo"},
            "spec": {"containers": [{"name": "sidecar"}, {"name": "web", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}});
        assert_eq!(Server::of(&pod, 81), None, "an undeclared port serves nothing");
        Server::of(&pod, 80).expect("the web container serves 80")
    }

    #[test]
    fn the_page_names_pod_and_container_and_echoes_the_path() {
        let s = server();
        let (code, _, body) = s.page("GET", "/a<b>?x=1");
        assert_eq!(code, 200);
        assert!(body.contains("pod <b>demo/web-1</b>, container <b>web</b>, port 80"), "{body}");
        assert!(body.contains("GET <code>/a&lt;b&gt;?x=1</code>"), "{body}");
    }

    #[test]
    fn requests_split_anywhere_are_answered_once_complete_and_kept_alive() {
        let mut c = Connection::new(server());
        let two = b"GET /one HTTP/1.1\r\nHost: x\r\n\r\nPOST /two HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /three HTTP/1.1\r\nConnection: close\r\n\r\n";
        for split in 0..two.len() {
            let mut c2 = Connection::new(server());
            let mut replies = c2.push(&two[..split]);
            replies.extend(c2.push(&two[split..]));
            assert_eq!(replies.len(), 3, "split at {split}");
            assert!(matches!(replies[2], Reply::SendAndClose(_)));
        }
        let replies = c.push(b"GET /one HTTP/1.1\r\n\r\n");
        let Reply::Send(bytes) = &replies[0] else { panic!("{replies:?}") };
        let text = String::from_utf8_lossy(bytes);
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n") && text.contains("GET <code>/one</code>"), "{text}");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        assert!(head.contains(&format!("Content-Length: {}", body.len())), "{head}");
    }

    #[test]
    fn bytes_that_are_not_http_get_400_and_close() {
        let mut c = Connection::new(server());
        let replies = c.push(b"HELLO\r\n\r\n");
        assert!(matches!(&replies[..], [Reply::SendAndClose(b)] if b.starts_with(b"HTTP/1.1 400")));
        assert!(c.push(b"GET / HTTP/1.1\r\n\r\n").is_empty(), "closed");
    }
}
