//! `kube-decode` against every file of `tests/fixtures/kube/vectors` and `tests/fixtures/kube/cbor`: the
//! JSON it prints must equal (as a tree, numbers by value) the JSON form next to each file, and
//! every CBOR file must also equal its RFC 8949 diagnostic notation (`.diag`). No file is skipped:
//! the test fails if a file in those folders was not checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn shared() -> PathBuf {
    kube_wire::testdata::shared_dir()
}

struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn kube_decode(args: &[&str], input: &Path) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_kube-decode"))
        .args(args)
        .arg(input)
        .output()
        .unwrap_or_else(|e| panic!("cannot run kube-decode: {e}"));
    Output {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs kube-decode and parses each output line as JSON.
#[track_caller]
fn decode(content_type: &str, watch: bool, file: &Path) -> Vec<Value> {
    let mut args = vec!["--content-type", content_type];
    if watch {
        args.push("--watch");
    }
    let out = kube_decode(&args, file);
    assert_eq!(out.code, Some(0), "{}: {}", file.display(), out.stderr);
    assert!(out.stderr.is_empty());
    out.stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", file.display()))).collect()
}

fn json_lines(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).expect("readable");
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("json line")).collect()
}

fn json_file(file: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(file).expect("readable")).expect("json")
}

/// The same tree: objects by key set, numbers by value.
fn same_tree(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_tree(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_tree(v, w)))
        }
        _ => a == b,
    }
}

#[track_caller]
fn assert_same(got: &[Value], want: &[Value], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: number of documents");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(same_tree(g, w), "{what}: document {i} differs\n got: {g}\nwant: {w}");
    }
}

/// Files checked so far, to prove none was skipped.
#[derive(Default)]
struct Checked(BTreeSet<PathBuf>);

impl Checked {
    fn file(&mut self, path: PathBuf) -> PathBuf {
        self.0.insert(path.clone());
        path
    }

    #[track_caller]
    fn all_of(&self, dir: &Path) {
        for entry in std::fs::read_dir(dir).expect("listable") {
            let path = entry.expect("entry").path();
            assert!(self.0.contains(&path), "{} was not checked", path.display());
        }
    }
}

#[test]
fn every_vector_decodes_to_its_json_form() {
    let dir = shared().join("kube/vectors");
    let mut checked = Checked::default();
    for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
        let want = vec![json_file(&checked.file(dir.join(format!("{name}.json"))))];
        for (ext, content_type) in
            [("json", "application/json"), ("yaml", "application/yaml"), ("cbor", "application/cbor")]
        {
            let got = decode(content_type, false, &checked.file(dir.join(format!("{name}.{ext}"))));
            assert_same(&got, &want, &format!("{name}.{ext}"));
        }
        let diag = checked.file(dir.join(format!("{name}.cbor.diag")));
        assert_same(&diag_items(&diag), &want, &format!("{name}.cbor.diag"));
        let pb = dir.join(format!("{name}.pb"));
        if pb.exists() {
            let got = decode("application/vnd.kubernetes.protobuf", false, &checked.file(pb.clone()));
            assert_same(&got, &without_unset(&want), &format!("{name}.pb"));
            let envelope = decode_with("application/vnd.kubernetes.protobuf", &["--envelope"], &pb);
            if name.starts_with("status") {
                // A Status is decoded even so (the app shows an error answered in protobuf as one).
                assert_same(&envelope, &want, &format!("{name}.pb --envelope"));
            } else {
                assert_envelopes(&envelope, &want, name);
            }
        }
    }
    let apply = decode("application/apply-patch+cbor", false, &checked.file(dir.join("apply-pod.cbor")));
    assert_same(&apply, &diag_items(&checked.file(dir.join("apply-pod.cbor.diag"))), "apply-pod.cbor");

    let events = json_lines(&checked.file(dir.join("watch.jsonl")));
    assert_same(&decode("application/json", true, &dir.join("watch.jsonl")), &events, "watch.jsonl");
    assert_same(
        &decode("application/cbor-seq", false, &checked.file(dir.join("watch.cborseq"))),
        &events,
        "watch.cborseq",
    );
    assert_same(&diag_items(&checked.file(dir.join("watch.cborseq.diag"))), &events, "watch.cborseq.diag");
    let stream = "application/vnd.kubernetes.protobuf;stream=watch";
    let pb = decode(stream, false, &checked.file(dir.join("watch.pbstream")));
    assert_same(&pb, &without_unset(&events), "watch.pbstream");
    let envelopes = decode_with(stream, &["--envelope"], &dir.join("watch.pbstream"));
    assert_eq!(envelopes.len(), events.len());
    for (got, want) in envelopes.iter().zip(&events) {
        assert_eq!(got["type"], want["type"]);
        assert_envelopes(std::slice::from_ref(&got["object"]), std::slice::from_ref(&want["object"]), "watch.pbstream");
    }
    checked.all_of(&dir);
}

/// `documents` as their protobuf form carries them: without null fields (Go writes an unset
/// field without `omitempty` as null; protobuf leaves it out) and without the pointers the
/// vectors set to their zero, which protobuf cannot tell from unset (`spec.priority: 0`,
/// `metadata.deletionGracePeriodSeconds: 0`, a ConfigMap's `immutable: false`). A `null` list
/// stays: Go's decoder leaves a nil slice there, written `null`.
fn without_unset(documents: &[Value]) -> Vec<Value> {
    fn strip(value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, v)| {
                        let pointer_zero =
                            matches!(k.as_str(), "priority" | "deletionGracePeriodSeconds" | "immutable")
                                && (v.as_i64() == Some(0) || v.as_bool() == Some(false));
                        let unset = v.is_null() && k.as_str() != "containers";
                        !pointer_zero && !unset
                    })
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    documents.iter().map(strip).collect()
}

/// Runs kube-decode with more arguments and parses each output line as JSON.
#[track_caller]
fn decode_with(content_type: &str, more: &[&str], file: &Path) -> Vec<Value> {
    let out = kube_decode(&[&["--content-type", content_type], more].concat(), file);
    assert_eq!(out.code, Some(0), "{}: {}", file.display(), out.stderr);
    out.stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", file.display()))).collect()
}

/// A protobuf envelope names the JSON form's apiVersion and kind and carries raw bytes.
#[track_caller]
fn assert_envelopes(got: &[Value], want: &[Value], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((&g["apiVersion"], &g["kind"]), (&w["apiVersion"], &w["kind"]), "{what}");
        assert!(g["rawBytes"].as_u64().is_some_and(|n| n > 0), "{what}");
        assert_eq!((&g["contentEncoding"], &g["contentType"]), (&Value::from(""), &Value::from("")), "{what}");
    }
}

#[test]
fn every_re_encoded_real_response_decodes_to_its_json_source() {
    let dir = shared().join("kube/cbor");
    let mut checked = Checked::default();
    for name in ["foobar_create_201", "podlist_kube-system", "status_invalid_422", "table_namespaces_aks"] {
        let want = vec![json_file(&checked.file(dir.join(format!("{name}.source.json"))))];
        let got = decode("application/cbor", false, &checked.file(dir.join(format!("{name}.cbor"))));
        assert_same(&got, &want, name);
        let diag = dir.join(format!("{name}.cbor.diag.txt"));
        if diag.exists() {
            assert_same(&diag_items(&checked.file(diag)), &want, &format!("{name}.cbor.diag.txt"));
        }
    }
    for name in ["foobar_watch", "watch_pods", "watch_pods_sendInitialEvents"] {
        let want = json_lines(&checked.file(dir.join(format!("{name}.source.jsonl"))));
        let got = decode("application/cbor-seq", false, &checked.file(dir.join(format!("{name}.cbor-seq"))));
        assert_same(&got, &want, name);
        assert_same(&decode("application/json", true, &dir.join(format!("{name}.source.jsonl"))), &want, name);
        let diag = dir.join(format!("{name}.cbor-seq.diag.txt"));
        if diag.exists() {
            assert_same(&diag_items(&checked.file(diag)), &want, &format!("{name}.cbor-seq.diag.txt"));
        }
    }
    checked.all_of(&dir);
}

#[track_caller]
fn check_failure(args: &[&str], input: &[u8], code: i32, expect: &str) {
    let dir = std::env::temp_dir().join(format!("kube-decode-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(format!("input-{}", expect.len()));
    std::fs::write(&file, input).expect("write");
    let out = kube_decode(args, &file);
    assert_eq!(out.code, Some(code), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains(expect), "{} does not contain {expect}", out.stderr);
}

#[test]
fn bad_input_gives_one_line_naming_what_where_and_exit_code_1() {
    let pod = std::fs::read(shared().join("kube/vectors/pod.cbor")).expect("pod");
    check_failure(&["--content-type", "application/cbor"], &pod[..pod.len() / 2], 1, "found end of input at byte");
    check_failure(
        &["--content-type", "application/json"],
        b"{\"a\":}",
        1,
        "expected a JSON value, found '}' at byte 5",
    );
    check_failure(&["--content-type", "application/vnd.kubernetes.protobuf"], b"{}", 1, "expected the magic prefix");
    // A custom resource's object has no message: the error names its type (`--envelope` reads it).
    let widget =
        [&b"k8s\0\x0a\x18\x0a\x0eexample.com/v1\x12\x06Widget"[..], b"\x12\x02\x0a\x00\x1a\x00\x22\x00"].concat();
    check_failure(
        &["--content-type", "application/vnd.kubernetes.protobuf"],
        &widget,
        1,
        "example.com/v1 Widget has no protobuf message here",
    );
    let pod = std::fs::read(shared().join("kube/vectors/pod.pb")).expect("pod");
    let mut cut = pod.clone();
    // The envelope's raw field keeps its length; a field inside (status.qosClass, 9 bytes)
    // claims 127, more than its message holds. (A bad byte inside a string is no longer a
    // failure: it reads U+FFFD, as the real server's JSON writes it.)
    let qos_at = cut.windows(9).position(|w| w == b"Burstable").expect("the pod's qosClass");
    assert_eq!(cut[qos_at - 1], 9, "the string's length before it");
    cut[qos_at - 1] = 0x7f;
    check_failure(
        &["--content-type", "application/vnd.kubernetes.protobuf"],
        &cut,
        1,
        "the v1 Pod message could not be decoded",
    );
    let watch = std::fs::read(shared().join("kube/vectors/watch.jsonl")).expect("watch");
    check_failure(
        &["--content-type", "application/json", "--watch"],
        &watch[..watch.len() - 5],
        1,
        "stream truncated at byte",
    );
    check_failure(&["--content-type", "application/cbor-seq"], &[0x01, 0xff], 1, "event 2: invalid CBOR");
    check_failure(&["--content-type", "text/plain"], b"hello", 1, "expected a JSON, YAML, CBOR or protobuf media type");
    check_failure(&["--content-type", "application/yaml", "--watch"], b"a: 1", 1, "YAML has no watch framing");
}

#[test]
fn bad_arguments_exit_with_2() {
    let out = kube_decode(&["--content-type"], Path::new("x"));
    assert_eq!(out.code, Some(2));
    let out = kube_decode(&["--content-type", "json"], Path::new("x"));
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("expected a media type"));
    let out = kube_decode(&["--content-type", "application/json"], Path::new("/nonexistent/file"));
    assert_eq!(out.code, Some(2));
}

/// The data items of an RFC 8949 diagnostic notation file as the `.diag` files write them:
/// `'…'` byte strings (text), `"…"` text, `h'…'` bytes, `N(…)` tags (55799 unwrapped, 22 as
/// base64), `#` comment lines, items separated by commas or newlines, an optional hex dump.
fn diag_items(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).expect("readable");
    // Skip comments and the hex dump some files end with.
    let is_hex_dump = |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_hexdigit());
    let body: String = text.lines().filter(|l| !l.starts_with('#') && !is_hex_dump(l)).collect::<Vec<_>>().join("\n");
    let mut parser = Diag { bytes: body.as_bytes(), pos: 0 };
    let mut items = Vec::new();
    loop {
        parser.skip_separators();
        if parser.pos >= parser.bytes.len() {
            return items;
        }
        items.push(parser.value().into_json());
    }
}

enum DiagValue {
    Json(Value),
    Bytes(Vec<u8>),
}

impl DiagValue {
    fn into_json(self) -> Value {
        match self {
            DiagValue::Json(v) => v,
            DiagValue::Bytes(b) => Value::String(String::from_utf8_lossy(&b).into_owned()),
        }
    }
}

struct Diag<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Diag<'_> {
    fn peek(&self) -> u8 {
        self.bytes.get(self.pos).copied().unwrap_or(0)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn skip_separators(&mut self) {
        while self.peek().is_ascii_whitespace() || self.peek() == b',' {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) {
        self.skip_ws();
        assert_eq!(self.peek() as char, byte as char, "diag at {}", self.pos);
        self.pos += 1;
    }

    fn quoted(&mut self, quote: u8) -> Vec<u8> {
        self.expect(quote);
        let mut out = Vec::new();
        loop {
            let b = self.peek();
            self.pos += 1;
            match b {
                b'\\' => {
                    let e = self.peek();
                    self.pos += 1;
                    out.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        other => other,
                    });
                }
                b if b == quote => return out,
                0 => panic!("unterminated string"),
                b => out.push(b),
            }
        }
    }

    fn value(&mut self) -> DiagValue {
        self.skip_ws();
        match self.peek() {
            b'{' => {
                self.pos += 1;
                let mut map = serde_json::Map::new();
                loop {
                    self.skip_ws();
                    if self.peek() == b'}' {
                        self.pos += 1;
                        return DiagValue::Json(Value::Object(map));
                    }
                    let key = match self.value().into_json() {
                        Value::String(k) => k,
                        other => panic!("non-string key {other}"),
                    };
                    self.expect(b':');
                    map.insert(key, self.value().into_json());
                    self.skip_ws();
                    if self.peek() == b',' {
                        self.pos += 1;
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == b']' {
                        self.pos += 1;
                        return DiagValue::Json(Value::Array(items));
                    }
                    items.push(self.value().into_json());
                    self.skip_ws();
                    if self.peek() == b',' {
                        self.pos += 1;
                    }
                }
            }
            b'\'' => DiagValue::Bytes(self.quoted(b'\'')),
            b'"' => DiagValue::Json(Value::String(String::from_utf8(self.quoted(b'"')).expect("text"))),
            b'h' if self.bytes.get(self.pos + 1) == Some(&b'\'') => {
                self.pos += 1;
                let hex = self.quoted(b'\'');
                let bytes = hex
                    .chunks(2)
                    .map(|p| u8::from_str_radix(std::str::from_utf8(p).expect("hex"), 16).expect("hex"))
                    .collect();
                DiagValue::Bytes(bytes)
            }
            b't' | b'f' | b'n' => {
                for (word, value) in [("true", Value::Bool(true)), ("false", Value::Bool(false)), ("null", Value::Null)]
                {
                    if self.bytes[self.pos..].starts_with(word.as_bytes()) {
                        self.pos += word.len();
                        return DiagValue::Json(value);
                    }
                }
                panic!("unknown word at {}", self.pos)
            }
            _ => {
                let start = self.pos;
                while matches!(self.peek(), b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                    self.pos += 1;
                }
                let number = std::str::from_utf8(&self.bytes[start..self.pos]).expect("ascii");
                if self.peek() == b'(' {
                    self.pos += 1;
                    let inner = self.value();
                    self.expect(b')');
                    return match (number, inner) {
                        ("22", DiagValue::Bytes(b)) => DiagValue::Json(Value::String(base64(&b))),
                        ("55799", inner) => inner,
                        (tag, _) => panic!("unexpected tag {tag}"),
                    };
                }
                DiagValue::Json(serde_json::from_str(number).unwrap_or_else(|e| panic!("number {number:?}: {e}")))
            }
        }
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |a, (i, b)| a | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
