//! Every file of `tests/fixtures/kube` goes through the decoder its media type calls for: bodies by
//! extension, the bodies inside recordings by their recorded `Content-Type`, watch responses by
//! the framer. What cannot be decoded must be exactly the expected exceptions below (text bodies,
//! a gzip body the browser would inflate first, user-edited YAML with a deliberate syntax error),
//! so nothing is silently skipped.

use std::path::{Path, PathBuf};

use kube_wire::body::{decode_body, decode_watch_body, BodyError};
use kube_wire::codec::json::decode_json;
use kube_wire::media_type::MediaType;

fn shared() -> PathBuf {
    kube_wire::testdata::shared_dir()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("listable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn media(text: &str) -> MediaType {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Decodes a body as a stream or a document; `Ok(None)` when the type is not a wire format.
fn decode(content_type: &str, watch: bool, body: &[u8]) -> Result<Option<usize>, BodyError> {
    let media_type = media(content_type);
    if media_type.essence.format().is_none() {
        return Ok(None);
    }
    if watch || media_type.is_watch_stream() {
        decode_watch_body(&media_type, body).map(|events| Some(events.len()))
    } else {
        decode_body(&media_type, body).map(|_| Some(1))
    }
}

fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).expect("ascii"), 16).expect("hex")).collect()
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| l.split_once(": ").filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()))
}

/// Outcome per file: `Ok(n)` decoded n documents/events, `Err(reason)` an expected exception.
fn check_file(path: &Path) -> Result<usize, String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let bytes = std::fs::read(path).expect("readable");
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    let in_dir = |d: &str| path.components().any(|c| c.as_os_str() == d);
    let decoded = |r: Result<Option<usize>, BodyError>| -> Result<usize, String> {
        match r {
            Ok(n) => Ok(n.unwrap_or(0)),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    };
    match ext {
        _ if in_dir("real-apiserver") && ext == "txt" => real_exchange(path, &String::from_utf8(bytes).expect("text")),
        _ if in_dir("client-go") => raw_http(path, &bytes),
        "json" if in_dir("recordings") => recording(path, &bytes),
        "json" => decoded(decode("application/json", false, &bytes)),
        "jsonl" => decoded(decode("application/json", true, &bytes)),
        "yaml" | "edited" | "original" => match decode("application/yaml", false, &bytes) {
            Ok(n) => Ok(n.unwrap_or(0)),
            Err(e) if name.ends_with(".edited") || name.ends_with(".original") => {
                Err(format!("user-edited YAML that does not parse: {e}"))
            }
            Err(e) => panic!("{}: {e}", path.display()),
        },
        "request" | "response" if bytes.iter().all(u8::is_ascii_whitespace) => Ok(0),
        "request" | "response" => decoded(decode("application/json", false, &bytes)),
        "cbor" => decoded(decode("application/cbor", false, &bytes)),
        "cbor-seq" | "cborseq" => decoded(decode("application/cbor-seq", false, &bytes)),
        "pb" => decoded(decode("application/vnd.kubernetes.protobuf", false, &bytes)),
        "pbstream" => decoded(decode("application/vnd.kubernetes.protobuf;stream=watch", false, &bytes)),
        "diag" | "txt" if in_dir("cbor") || in_dir("vectors") => {
            Err("diagnostic notation (checked in tests/kube_decode.rs)".into())
        }
        "md" => Err("documentation".into()),
        other => panic!("{}: no decoder chosen for .{other}", path.display()),
    }
}

/// A `real-apiserver/*.txt` exchange: the request body and the response body by content type.
fn real_exchange(path: &Path, text: &str) -> Result<usize, String> {
    let (request, rest) = text.split_once("=== RESPONSE ===").expect("response section");
    let request = request.split_once("=== REQUEST ===").map(|(_, r)| r).unwrap_or(request);
    let (req_head, req_body) = request.trim_start().split_once("\n\n").unwrap_or((request, ""));
    let mut count = 0;
    if let (Some(content_type), false) = (header(req_head, "Content-Type"), req_body.trim().is_empty()) {
        let body = match req_body.trim().strip_prefix("(hex)") {
            Some(h) => hex(h),
            None => req_body.trim_end_matches('\n').as_bytes().to_vec(),
        };
        count += decode(content_type, false, &body)
            .unwrap_or_else(|e| panic!("{} request: {e}", path.display()))
            .unwrap_or(0);
    }
    let (head, body) = rest.split_once("=== BODY").expect("body section");
    let (kind, body) = body.split_once('\n').unwrap_or_default();
    let body = if kind.contains("hex") { hex(body) } else { body.trim_end_matches('\n').as_bytes().to_vec() };
    if header(head, "Content-Encoding") == Some("gzip") {
        return Err("gzip-encoded body (fetch inflates it before the app sees it)".into());
    }
    let Some(content_type) = header(head, "Content-Type") else { return Ok(count) };
    let request_line = req_head.lines().next().unwrap_or_default();
    let watch = request_line.contains("watch=1") || request_line.contains("watch=true");
    match decode(content_type, watch, &body) {
        Ok(Some(n)) => Ok(count + n),
        Ok(None) => Err(format!("{content_type} body")),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// A k8s-openapi recording: a JSON array of exchanges with their bodies.
fn recording(path: &Path, bytes: &[u8]) -> Result<usize, String> {
    decode_json(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let exchanges: serde_json::Value = serde_json::from_slice(bytes).expect("json");
    let mut count = 0;
    for exchange in exchanges.as_array().expect("array") {
        let url = exchange["request_url"].as_str().unwrap_or_default();
        let watch = url.contains("watch=true") || url.contains("watch=1");
        for (body, content_type) in [("request_body", "request_content_type"), ("response_body", "")] {
            let text = exchange[body].as_str().unwrap_or_default();
            let content_type = match exchange[content_type].as_str() {
                Some(ct) if ct != "None" => ct,
                _ if url.ends_with("/log") => "text/plain",
                _ => "application/json",
            };
            if text.is_empty() || (!text.starts_with('{') && !text.starts_with('[')) {
                continue;
            }
            count += decode(content_type, watch && body == "response_body", text.as_bytes())
                .unwrap_or_else(|e| panic!("{} {url}: {e}", path.display()))
                .unwrap_or(0);
        }
    }
    Ok(count)
}

/// A client-go golden HTTP request or response: headers, then a (possibly chunked) body.
fn raw_http(path: &Path, bytes: &[u8]) -> Result<usize, String> {
    let text = String::from_utf8_lossy(bytes);
    let Some((head, body)) = text.split_once("\r\n\r\n").or_else(|| text.split_once("\n\n")) else {
        // TestGoldenResponse/{create,get,...}: a bare JSON body.
        return decode("application/json", false, bytes)
            .map(|n| n.unwrap_or(0))
            .map_err(|e| panic!("{}: {e}", path.display()));
    };
    if !head.starts_with("HTTP/") && !head.contains(" HTTP/1.1") {
        return decode("application/json", false, bytes)
            .map(|n| n.unwrap_or(0))
            .map_err(|e| panic!("{}: {e}", path.display()));
    }
    let body = if header(head, "Transfer-Encoding") == Some("chunked") {
        dechunk(body.as_bytes())
    } else {
        body.as_bytes().to_vec()
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(0);
    }
    let content_type = header(head, "Content-Type").unwrap_or("application/json");
    let watch = head.lines().next().is_some_and(|l| l.contains("watch=true")) || path.ends_with("events");
    decode(content_type, watch, &body).map(|n| n.unwrap_or(0)).map_err(|e| panic!("{}: {e}", path.display()))
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..end]).expect("ascii").trim(), 16).expect("size");
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[end + 2..end + 2 + size]);
        rest = &rest[end + 4 + size..];
    }
    body
}

#[test]
fn every_shared_file_decodes_or_is_an_expected_exception() {
    let mut all = Vec::new();
    files(&shared().join("kube"), &mut all);
    all.sort();
    let mut exceptions = Vec::new();
    let mut documents = 0;
    for path in &all {
        match check_file(path) {
            Ok(n) => documents += n,
            Err(reason) => {
                exceptions.push(format!("{}: {reason}", path.strip_prefix(shared()).unwrap_or(path).display()))
            }
        }
    }
    let diagnostic = exceptions.iter().filter(|e| e.contains("diagnostic notation")).count();
    let other: Vec<&String> = exceptions.iter().filter(|e| !e.contains("diagnostic notation")).collect();
    assert_eq!(diagnostic, 10, "{exceptions:#?}");
    let expected_prefixes = [
        "kube/README.md: documentation",
        "kube/real-apiserver/153-gzip-openapi-v2.txt: gzip-encoded body",
        "kube/real-apiserver/159-get-cluster-scoped-with-namespace-404-plaintext.txt: text/plain",
        "kube/real-apiserver/160-unknown-resource-404-plaintext.txt: text/plain",
        "kube/recordings/kubectl-edit/testcase-apply-edit-last-applied-syntax-error/1.edited: user-edited YAML",
        "kube/recordings/kubectl-edit/testcase-apply-edit-last-applied-syntax-error/2.original: user-edited YAML",
        "kube/recordings/kubectl-edit/testcase-syntax-error/1.edited: user-edited YAML",
        "kube/recordings/kubectl-edit/testcase-syntax-error/2.original: user-edited YAML",
    ];
    let unexpected: Vec<&&String> =
        other.iter().filter(|e| !expected_prefixes.iter().any(|p| e.starts_with(p))).collect();
    assert!(unexpected.is_empty(), "unexpected exceptions: {unexpected:#?}");
    assert!(documents > 300, "decoded {documents} documents and events from {} files", all.len());
}
