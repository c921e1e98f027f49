//! The Kubernetes protobuf envelope (`application/vnd.kubernetes.protobuf`): the 4-byte magic
//! `k8s\0` and a `runtime.Unknown` message {1: typeMeta {1: apiVersion, 2: kind}, 2: raw,
//! 3: contentEncoding, 4: contentType}; and the frames of a protobuf watch (`;stream=watch`):
//! a `WatchEvent` {1: type, 2: object {1: raw}} whose raw bytes carry a full envelope.
//!
//! The raw object itself is not decoded (that needs every type's `.proto`): the envelope reports
//! its type, length and encoding. Invariants: a body without the magic is refused, as the concepts
//! page requires; a length field is checked against the bytes present before anything is copied;
//! unknown fields are skipped; groups (wire types 3, 4) are refused.

use crate::codec::value::{Map, Value};
use crate::error::{describe_byte, end_of_input, DecodeError, Format, Token};

/// The four bytes every protobuf body starts with.
pub const MAGIC: [u8; 4] = *b"k8s\0";

/// A decoded `runtime.Unknown` envelope.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Envelope {
    pub api_version: String,
    pub kind: String,
    /// The object's own protobuf bytes.
    pub raw: Vec<u8>,
    /// Empty when unspecified (no encoding).
    pub content_encoding: String,
    /// Empty when unspecified (protobuf).
    pub content_type: String,
}

impl Envelope {
    /// The summary `kube-decode` prints: `{"apiVersion","kind","rawBytes","contentEncoding","contentType"}`.
    pub fn summary(&self) -> Value {
        let mut map = Map::new();
        map.insert("apiVersion", Value::String(self.api_version.clone()));
        map.insert("kind", Value::String(self.kind.clone()));
        map.insert("rawBytes", Value::Int(i64::try_from(self.raw.len()).unwrap_or(i64::MAX)));
        map.insert("contentEncoding", Value::String(self.content_encoding.clone()));
        map.insert("contentType", Value::String(self.content_type.clone()));
        Value::Object(map)
    }

    /// The body bytes: magic and `runtime.Unknown` (for tests and the simulated cluster).
    pub fn encode(&self) -> Vec<u8> {
        let mut type_meta = Vec::new();
        put_bytes(&mut type_meta, 1, self.api_version.as_bytes());
        put_bytes(&mut type_meta, 2, self.kind.as_bytes());
        let mut out = MAGIC.to_vec();
        put_bytes(&mut out, 1, &type_meta);
        put_bytes(&mut out, 2, &self.raw);
        // The server writes both fields even when empty.
        put_bytes(&mut out, 3, self.content_encoding.as_bytes());
        put_bytes(&mut out, 4, self.content_type.as_bytes());
        out
    }
}

impl Envelope {
    /// The JSON form of a `v1` `Status` envelope's message (kind, apiVersion, metadata, status,
    /// message, reason, details, code): the one message the explorer decodes,
    /// so that an error answered in protobuf (the real server's 406 to a protobuf-only Accept,
    /// real-apiserver 43b) shows as a Status. `None` for any other kind.
    pub fn status(&self) -> Result<Option<Value>, DecodeError> {
        if self.kind != "Status" || self.api_version != "v1" {
            return Ok(None);
        }
        let mut map = Map::new();
        map.insert("kind", Value::String(self.kind.clone()));
        map.insert("apiVersion", Value::String(self.api_version.clone()));
        map.insert("metadata", Value::Object(Map::new()));
        let mut code = 0;
        let mut details = None;
        for field in Fields::new(&self.raw, 0) {
            let field = field?;
            let name = match field.number {
                2 => "status",
                3 => "message",
                4 => "reason",
                _ => "",
            };
            match (field.number, field.payload) {
                (2..=4, Payload::Bytes(b)) => {
                    let value = text(b);
                    if !value.is_empty() {
                        map.insert(name, Value::String(value));
                    }
                }
                (5, Payload::Bytes(b)) => {
                    details = Some(status_details(b, field.offset)?);
                }
                // int32: a negative code is written as its 64-bit two's complement.
                (6, Payload::Varint(v)) => code = i64::from(v as i32),
                (2..=4 | 6, _) => return Err(error(Token::StatusWireType, Token::OtherWireType, field.offset)),
                _ => {}
            }
        }
        if let Some(d) = details {
            map.insert("details", d);
        }
        map.insert("code", Value::Int(code));
        Ok(Some(Value::Object(map)))
    }
}

/// Decodes a protobuf body: checks the magic, then reads the envelope.
pub fn decode_envelope(input: &[u8]) -> Result<Envelope, DecodeError> {
    if !input.starts_with(&MAGIC) {
        let found = match input.len() {
            n if n < MAGIC.len() && MAGIC.starts_with(input) => end_of_input(),
            _ => Token::Verbatim(format!("{:02x?}", &input[..input.len().min(4)])),
        };
        return Err(DecodeError::new(Format::Protobuf, Token::MagicPrefix("6b 38 73 00 (\"k8s\\0\")"), found, 0));
    }
    let mut envelope = Envelope::default();
    let body = &input[MAGIC.len()..];
    for field in Fields::new(body, MAGIC.len()) {
        let field = field?;
        match (field.number, field.payload) {
            (1, Payload::Bytes(type_meta)) => {
                for inner in Fields::new(type_meta, field.offset) {
                    let inner = inner?;
                    match (inner.number, inner.payload) {
                        (1, Payload::Bytes(b)) => envelope.api_version = text(b),
                        (2, Payload::Bytes(b)) => envelope.kind = text(b),
                        _ => {}
                    }
                }
            }
            (2, Payload::Bytes(raw)) => envelope.raw = raw.to_vec(),
            (3, Payload::Bytes(b)) => envelope.content_encoding = text(b),
            (4, Payload::Bytes(b)) => envelope.content_type = text(b),
            (1..=4, _) => return Err(error(Token::LengthDelimited, Token::OtherWireType, field.offset)),
            _ => {}
        }
    }
    Ok(envelope)
}

/// One event of a protobuf watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtobufWatchEvent {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
    pub event_type: String,
    pub object: Envelope,
}

impl ProtobufWatchEvent {
    /// `{"type": …, "object": <envelope summary>}`.
    pub fn summary(&self) -> Value {
        let mut map = Map::new();
        map.insert("type", Value::String(self.event_type.clone()));
        map.insert("object", self.object.summary());
        Value::Object(map)
    }

    /// The frame payload (without its length prefix).
    pub fn encode(&self) -> Vec<u8> {
        let mut raw_extension = Vec::new();
        put_bytes(&mut raw_extension, 1, &self.object.encode());
        let mut out = Vec::new();
        put_bytes(&mut out, 1, self.event_type.as_bytes());
        put_bytes(&mut out, 2, &raw_extension);
        out
    }
}

/// Decodes one `WatchEvent` message (a frame's payload). `base` is the payload's offset in the
/// stream, so errors point into the whole body.
pub fn decode_watch_event(payload: &[u8], base: usize) -> Result<ProtobufWatchEvent, DecodeError> {
    let mut event_type = None;
    let mut raw = None;
    for field in Fields::new(payload, base) {
        let field = field?;
        match (field.number, field.payload) {
            (1, Payload::Bytes(b)) => event_type = Some(text(b)),
            (2, Payload::Bytes(object)) => {
                for inner in Fields::new(object, field.offset) {
                    let inner = inner?;
                    if let (1, Payload::Bytes(b)) = (inner.number, inner.payload) {
                        raw = Some((b, inner.offset));
                    }
                }
            }
            _ => {}
        }
    }
    let event_type = event_type.ok_or_else(|| error(Token::WatchEventType, Token::None, base))?;
    let (raw, at) = raw.ok_or_else(|| error(Token::WatchEventObject, Token::None, base))?;
    let object = decode_envelope(raw).map_err(|e| e.shifted(at))?;
    Ok(ProtobufWatchEvent { event_type, object })
}

fn error(expected: Token, found: Token, offset: usize) -> DecodeError {
    DecodeError::new(Format::Protobuf, expected, found, offset)
}

/// A string field as the real server's JSON writes it: Go's protobuf decoder takes any bytes,
/// and its JSON encoder writes U+FFFD for each byte that is not part of valid UTF-8
/// (encoding/json `encodeState.string`), so one bad byte does not fail the object.
fn text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('\u{FFFD}', chunk.invalid().len()));
    }
    out
}

/// A `StatusDetails` message {1 name, 2 group, 3 kind, 4 causes {1 reason, 2 message, 3 field},
/// 5 retryAfterSeconds, 6 uid} (k8s.io/apimachinery meta/v1 generated.proto) as its JSON, in
/// the Go struct's field order, empty fields left out.
fn status_details(raw: &[u8], base: usize) -> Result<Value, DecodeError> {
    let mut strings: [Option<String>; 4] = Default::default();
    let mut causes = Vec::new();
    let mut retry = None;
    for field in Fields::new(raw, base) {
        let field = field?;
        match (field.number, field.payload) {
            (n @ (1..=3 | 6), Payload::Bytes(b)) => strings[if n == 6 { 3 } else { n as usize - 1 }] = Some(text(b)),
            (4, Payload::Bytes(b)) => {
                let mut cause = Map::new();
                for inner in Fields::new(b, field.offset) {
                    let inner = inner?;
                    let key = match inner.number {
                        1 => "reason",
                        2 => "message",
                        3 => "field",
                        _ => continue,
                    };
                    if let Payload::Bytes(v) = inner.payload {
                        cause.insert(key, Value::String(text(v)));
                    }
                }
                causes.push(Value::Object(cause));
            }
            (5, Payload::Varint(v)) => retry = Some(i64::from(v as i32)),
            _ => {}
        }
    }
    let mut map = Map::new();
    for (key, value) in ["name", "group", "kind", "uid"].into_iter().zip(strings) {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            map.insert(key, Value::String(v));
        }
    }
    if !causes.is_empty() {
        map.insert("causes", Value::Array(causes));
    }
    if let Some(r) = retry.filter(|r| *r != 0) {
        map.insert("retryAfterSeconds", Value::Int(r));
    }
    Ok(Value::Object(map))
}

enum Payload<'a> {
    Varint(u64),
    Fixed,
    Bytes(&'a [u8]),
}

struct Field<'a> {
    number: u64,
    /// Offset of the field's payload in the whole input.
    offset: usize,
    payload: Payload<'a>,
}

/// Iterates the fields of a message; stops after the first error.
struct Fields<'a> {
    input: &'a [u8],
    pos: usize,
    base: usize,
    failed: bool,
}

impl<'a> Fields<'a> {
    fn new(input: &'a [u8], base: usize) -> Self {
        Fields { input, pos: 0, base, failed: false }
    }

    fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let at = self.pos;
            let Some(&byte) = self.input.get(at) else {
                return Err(error(Token::VarintByte, end_of_input(), self.base + at));
            };
            self.pos += 1;
            if shift == 63 && byte > 1 {
                return Err(error(Token::Varint64, describe_byte(self.input, at), self.base + at));
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(error(Token::VarintLength, Token::LongerOne, self.base + self.pos))
    }

    fn take(&mut self, len: u64, what: Token) -> Result<&'a [u8], DecodeError> {
        let remaining = self.input.len() - self.pos;
        match usize::try_from(len) {
            Ok(len) if len <= remaining => {
                let bytes = &self.input[self.pos..self.pos + len];
                self.pos += len;
                Ok(bytes)
            }
            _ => Err(error(Token::BytesOf { len, what: Box::new(what) }, end_of_input(), self.base + self.input.len())),
        }
    }

    fn field(&mut self) -> Result<Field<'a>, DecodeError> {
        let key_at = self.pos;
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 {
            return Err(error(Token::FieldNumber, Token::Field(0), self.base + key_at));
        }
        let payload = match key & 7 {
            0 => Payload::Varint(self.varint()?),
            1 => {
                self.take(8, Token::Fixed64)?;
                Payload::Fixed
            }
            2 => {
                let len = self.varint()?;
                let offset = self.pos;
                let bytes = self.take(len, Token::LengthDelimited)?;
                return Ok(Field { number, offset: self.base + offset, payload: Payload::Bytes(bytes) });
            }
            5 => {
                self.take(4, Token::Fixed32)?;
                Payload::Fixed
            }
            other => return Err(error(Token::WireTypes, Token::WireType(other), self.base + key_at)),
        };
        Ok(Field { number, offset: self.base + key_at, payload })
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.input.len() {
            return None;
        }
        let field = self.field();
        self.failed = field.is_err();
        Some(field)
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_bytes(out: &mut Vec<u8>, number: u64, bytes: &[u8]) {
    put_varint(out, number << 3 | 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::shared_file;

    #[test]
    fn every_protobuf_vector_reports_its_type_and_raw_length() {
        for (name, kind) in
            [("pod", "Pod"), ("podlist", "PodList"), ("configmap", "ConfigMap"), ("status-410-expired", "Status")]
        {
            let bytes = shared_file(&format!("kube/vectors/{name}.pb"));
            let envelope = decode_envelope(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((envelope.api_version.as_str(), envelope.kind.as_str()), ("v1", kind));
            assert!(!envelope.raw.is_empty());
            assert!(envelope.encode() == bytes, "{name} re-encodes to the same bytes");
        }
    }

    #[test]
    fn a_protobuf_status_reads_as_the_json_status_the_real_serializer_wrote() {
        let envelope = decode_envelope(&shared_file("kube/vectors/status-410-expired.pb")).expect("decodes");
        let status = envelope.status().expect("a Status message").expect("a v1 Status");
        let json = crate::codec::json::decode_json(&shared_file("kube/vectors/status-410-expired.json"))
            .expect("the JSON vector parses");
        assert!(status.equivalent(&json), "{}", status.to_json());
        let pod = decode_envelope(&shared_file("kube/vectors/pod.pb")).expect("decodes");
        assert_eq!(pod.status(), Ok(None), "only a Status is decoded");
    }

    /// The real 410 Status (vectors/status-410-expired.pb, the real serializer's bytes) with a
    /// `details` field appended as generated.proto numbers it, holding the causes of a real 422
    /// (cbor/status_invalid_422.source.json): the details come out as the real JSON has them, and
    /// as kube-pb-json (k8s-pb's generated messages) reads the same bytes.
    #[test]
    fn a_protobuf_status_keeps_its_details() {
        let mut envelope = decode_envelope(&shared_file("kube/vectors/status-410-expired.pb")).expect("decodes");
        let real = crate::codec::json::decode_json(&shared_file("kube/cbor/status_invalid_422.source.json"))
            .expect("the real 422 parses")
            .to_serde_json();
        let d = &real["details"];
        let mut details = Vec::new();
        for (n, key) in [(1, "name"), (2, "group"), (3, "kind")] {
            put_bytes(&mut details, n, d[key].as_str().expect("a string").as_bytes());
        }
        for c in d["causes"].as_array().expect("causes") {
            let mut cause = Vec::new();
            for (n, key) in [(1, "reason"), (2, "message"), (3, "field")] {
                put_bytes(&mut cause, n, c[key].as_str().expect("a string").as_bytes());
            }
            put_bytes(&mut details, 4, &cause);
        }
        put_bytes(&mut envelope.raw, 5, &details);
        let status = envelope.status().expect("decodes").expect("a Status").to_serde_json();
        assert_eq!(status["details"], *d, "{status}");
        assert_eq!(status["code"], 410);
        let by_k8s_pb = kube_pb_json::decode_object(&envelope.encode()).expect("k8s-pb reads the same bytes");
        assert_eq!(by_k8s_pb["details"], *d, "field numbers as generated.proto's");
    }

    /// A string with a byte that is not UTF-8, in the real serializer's bytes: the rest of the
    /// Status stands and the bad byte reads U+FFFD, as the real server's JSON writes it.
    #[test]
    fn a_string_that_is_not_utf8_reads_with_the_replacement_character() {
        let mut bytes = shared_file("kube/vectors/status-410-expired.pb");
        let at = bytes.windows(3).position(|w| w == b"too").expect("the message is in the bytes");
        bytes[at] = 0xff;
        bytes[at + 1] = 0xe2;
        let status = decode_envelope(&bytes).expect("decodes").status().expect("decodes").expect("a Status");
        let status = status.to_serde_json();
        assert_eq!(status["message"], "\u{FFFD}\u{FFFD}o old resource version: 123 (456789)");
        assert_eq!(status["reason"], "Expired");
        assert_eq!(text(b"a\xf0\x9f\x98b"), "a\u{FFFD}\u{FFFD}\u{FFFD}b", "one U+FFFD a byte, as Go");
    }

    #[test]
    fn the_summary_names_the_envelope_fields() {
        let envelope =
            Envelope { api_version: "v1".into(), kind: "Pod".into(), raw: vec![1, 2], ..Envelope::default() };
        assert_eq!(
            envelope.summary().to_json(),
            r#"{"apiVersion":"v1","kind":"Pod","rawBytes":2,"contentEncoding":"","contentType":""}"#
        );
    }

    #[track_caller]
    fn check(input: &[u8], expect: &str) {
        assert_eq!(decode_envelope(input).map_err(|e| e.to_string()), Err(expect.to_string()));
    }

    #[test]
    fn a_body_without_the_magic_is_refused() {
        check(
            b"{\"kind\":1}",
            "invalid protobuf: expected the magic prefix 6b 38 73 00 (\"k8s\\0\"), found [7b, 22, 6b, 69] at byte 0",
        );
        check(
            b"k8",
            "invalid protobuf: expected the magic prefix 6b 38 73 00 (\"k8s\\0\"), found end of input at byte 0",
        );
    }

    #[test]
    fn truncated_and_hostile_envelopes_are_errors() {
        check(
            b"k8s\0\x12\xff\xff\xff\xff\x0f",
            "invalid protobuf: expected 4294967295 bytes of a length-delimited field, found end of input at byte 10",
        );
        check(b"k8s\0\x12", "invalid protobuf: expected a varint byte, found end of input at byte 5");
        check(b"k8s\0\x0b", "invalid protobuf: expected wire type 0, 1, 2 or 5, found wire type 3 at byte 4");
        check(b"k8s\0\x00", "invalid protobuf: expected a field number above 0, found field 0 at byte 4");
        check(
            b"k8s\0\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f",
            "invalid protobuf: expected a varint within 64 bits, found byte 0x7f at byte 14",
        );
        check(
            b"k8s\0\x10\x01",
            "invalid protobuf: expected a length-delimited field, found another wire type at byte 4",
        );
    }

    #[test]
    fn an_envelope_string_that_is_not_utf8_is_read_not_refused() {
        let envelope = decode_envelope(b"k8s\0\x1a\x01\xff").expect("decodes");
        assert_eq!(envelope.content_encoding, "\u{FFFD}");
    }

    #[test]
    fn unknown_fields_are_skipped() {
        let mut body = MAGIC.to_vec();
        body.extend_from_slice(&[0x28, 0x05, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x3d, 0, 0, 0, 0]);
        assert_eq!(decode_envelope(&body), Ok(Envelope::default()));
    }

    #[test]
    fn a_watch_event_round_trips_and_needs_type_and_object() {
        let event = ProtobufWatchEvent {
            event_type: "ADDED".into(),
            object: Envelope { api_version: "v1".into(), kind: "Pod".into(), raw: vec![9], ..Envelope::default() },
        };
        assert_eq!(decode_watch_event(&event.encode(), 4), Ok(event.clone()));
        assert_eq!(event.summary().get("type").and_then(Value::as_str), Some("ADDED"));
        assert_eq!(
            decode_watch_event(&[], 4).map_err(|e| e.to_string()),
            Err("invalid protobuf: expected a WatchEvent type (field 1), found none at byte 4".to_string())
        );
        assert!(decode_watch_event(&[0x0a, 0x01, b'A'], 0).is_err());
    }
}
