//! Protobuf responses: a stored object's JSON turned into its k8s-pb message (`FromJson`,
//! generated in `generated/encode.rs` plus the hand-written forms below of the messages whose JSON
//! is not an object of their fields), wrapped in the `k8s\0` + `runtime.Unknown` envelope, and the
//! length-prefixed `WatchEvent` frames of a protobuf watch.
//!
//! Invariants: nothing here panics on any JSON; a value that does not fit its message (a string
//! where an integer belongs, a key that is no field of the message) is an [`EncodeError`] naming
//! the field's path, which the server answers with a 500 Status. A field is written when the
//! JSON has it (null counts as absent) and, if the JSON lacks a field without `omitempty`, as its
//! zero; Go's encoder also writes the zero of every non-pointer field that JSON's `omitempty` left
//! out, which a JSON object cannot tell from a nil pointer, so those are not written here (see
//! sim/README.md, "Protobuf").

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine;
use chrono::DateTime;
use prost::Message;
use serde_json::{Map, Value};

use super::generated;
use super::MAGIC;

use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta, Unknown};

/// Why an object has no protobuf form: what is wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    /// From the innermost segment out (pushed as the error returns up the tree).
    path: Vec<Segment>,
    message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl EncodeError {
    fn new(message: impl Into<String>) -> EncodeError {
        EncodeError { path: Vec::new(), message: message.into() }
    }

    /// The field's path, as `spec.containers[0].ports`; empty for the object itself.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for s in self.path.iter().rev() {
            match s {
                Segment::Key(k) if out.is_empty() => out.push_str(k),
                Segment::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path() {
            p if p.is_empty() => f.write_str(&self.message),
            p => write!(f, "field {p}: {}", self.message),
        }
    }
}

/// Adds the key a value was read from to the path of its error.
pub trait At<T> {
    fn at(self, key: &str) -> Result<T, EncodeError>;
}

impl<T> At<T> for Result<T, EncodeError> {
    fn at(self, key: &str) -> Result<T, EncodeError> {
        self.map_err(|mut e| {
            e.path.push(Segment::Key(key.to_string()));
            e
        })
    }
}

/// A message (or field value) read from its JSON form.
pub trait FromJson: Sized {
    fn from_json(v: &Value) -> Result<Self, EncodeError>;
}

/// The body of an object or list in protobuf: magic + `runtime.Unknown` with the typeMeta from
/// the JSON's apiVersion and kind, the message as raw, and contentEncoding and contentType
/// written empty, as the real encoder writes them (`1a 00 22 00`, `vectors/*.pb`).
pub fn encode_object(object: &Value) -> Result<Vec<u8>, EncodeError> {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
    let raw = generated::object_to_protobuf(api_version, kind, object).ok_or_else(|| {
        EncodeError::new(format!("no protobuf message for kind {kind:?} of apiVersion {api_version:?}"))
    })??;
    let unknown = Unknown {
        type_meta: Some(TypeMeta { api_version: Some(api_version.to_string()), kind: Some(kind.to_string()) }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut out = Vec::with_capacity(MAGIC.len() + unknown.encoded_len());
    out.extend_from_slice(MAGIC);
    unknown.encode(&mut out).map_err(|e| EncodeError::new(format!("protobuf: {e}")))?;
    Ok(out)
}

/// One frame of a protobuf watch (`;stream=watch`): a 4-byte big-endian length, then a
/// `WatchEvent` (no magic) whose object's raw bytes are the object's full envelope.
pub fn watch_frame(event_type: &str, object: &Value) -> Result<Vec<u8>, EncodeError> {
    let event = meta::WatchEvent {
        r#type: Some(event_type.to_string()),
        object: Some(RawExtension { raw: Some(encode_object(object)?) }),
    };
    let len = event.encoded_len();
    let prefix = u32::try_from(len).map_err(|_| EncodeError::new(format!("a watch event of {len} bytes")))?;
    let mut out = Vec::with_capacity(4 + len);
    out.extend_from_slice(&prefix.to_be_bytes());
    event.encode(&mut out).map_err(|e| EncodeError::new(format!("protobuf: {e}")))?;
    Ok(out)
}

/// Whether objects (and lists) of `api_version` `kind` have a protobuf form: the built-in types
/// of the stable groups, not custom resources.
pub fn has_message(api_version: &str, kind: &str) -> bool {
    generated::has_message(api_version, kind)
}

pub(crate) fn encode<M: Message + FromJson>(object: &Value) -> Option<Result<Vec<u8>, EncodeError>> {
    Some(M::from_json(object).map(|m| m.encode_to_vec()))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn expected(what: &str, got: &Value) -> EncodeError {
    EncodeError::new(format!("expected {what}, got {}", type_name(got)))
}

/// The fields of a message's JSON (null: none).
pub(crate) fn object(v: &Value) -> Result<&Map<String, Value>, EncodeError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match v {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        other => Err(expected("an object", other)),
    }
}

/// A key that is no field of the message: an error, but for the TypeMeta keys.
pub(crate) fn not_a_field(key: &str) -> Result<(), EncodeError> {
    match key {
        "apiVersion" | "kind" => Ok(()),
        _ => Err(EncodeError::new("no such field in the protobuf message")).at(key),
    }
}

impl FromJson for String {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        v.as_str().map(str::to_string).ok_or_else(|| expected("a string", v))
    }
}

impl FromJson for bool {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        v.as_bool().ok_or_else(|| expected("a boolean", v))
    }
}

/// An integer, also written as a float with no fraction (`1.0`), as Go's decoder accepts it.
fn integer(v: &Value) -> Result<i64, EncodeError> {
    let Value::Number(n) = v else { return Err(expected("an integer", v)) };
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    match n.as_f64() {
        #[allow(clippy::cast_possible_truncation)]
        Some(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(f as i64),
        _ => Err(EncodeError::new(format!("{n} is not an int64"))),
    }
}

impl FromJson for i64 {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        integer(v)
    }
}

impl FromJson for i32 {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        let i = integer(v)?;
        i32::try_from(i).map_err(|_| EncodeError::new(format!("{i} does not fit an int32")))
    }
}

impl FromJson for f64 {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        v.as_f64().ok_or_else(|| expected("a number", v))
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        match v {
            Value::Null => Ok(None),
            v => T::from_json(v).map(Some),
        }
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        T::from_json(v).map(Box::new)
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        match v {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    T::from_json(x).map_err(|mut e| {
                        e.path.push(Segment::Index(i));
                        e
                    })
                })
                .collect(),
            other => Err(expected("a list", other)),
        }
    }
}

impl<T: FromJson> FromJson for BTreeMap<String, T> {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        object(v)?.iter().map(|(k, x)| Ok((k.clone(), T::from_json(x).at(k)?))).collect()
    }
}

fn base64(v: &Value) -> Result<Vec<u8>, EncodeError> {
    let text = v.as_str().ok_or_else(|| expected("base64 text", v))?;
    base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| EncodeError::new(format!("base64: {e}")))
}

/// A `[]byte` field: its JSON is standard base64.
pub(crate) fn bytes_from_json(v: &Value) -> Result<Option<Vec<u8>>, EncodeError> {
    match v {
        Value::Null => Ok(None),
        v => base64(v).map(Some),
    }
}

/// A `map[string][]byte` field (Secret `data`, ConfigMap `binaryData`).
pub(crate) fn bytes_map_from_json(v: &Value) -> Result<BTreeMap<String, Vec<u8>>, EncodeError> {
    object(v)?.iter().map(|(k, x)| Ok((k.clone(), base64(x).at(k)?))).collect()
}

/// JSON bytes of an embedded document (RawExtension, FieldsV1, apiextensions JSON).
fn json_bytes(v: &Value) -> Result<Vec<u8>, EncodeError> {
    serde_json::to_vec(v).map_err(|e| EncodeError::new(format!("JSON: {e}")))
}

fn rfc3339(v: &Value) -> Result<DateTime<chrono::FixedOffset>, EncodeError> {
    let text = v.as_str().ok_or_else(|| expected("an RFC 3339 time", v))?;
    DateTime::parse_from_rfc3339(text).map_err(|e| EncodeError::new(format!("time {text:?}: {e}")))
}

/// `metav1.Time`: whole seconds, and nanos written as 0, as Go's `Time.ProtoTime()` does (its
/// JSON has seconds only).
impl FromJson for meta::Time {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        Ok(meta::Time { seconds: Some(rfc3339(v)?.timestamp()), nanos: Some(0) })
    }
}

impl FromJson for meta::MicroTime {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        let t = rfc3339(v)?;
        let nanos = i32::try_from(t.timestamp_subsec_nanos()).unwrap_or(0);
        Ok(meta::MicroTime { seconds: Some(t.timestamp()), nanos: Some(nanos) })
    }
}

impl FromJson for meta::Timestamp {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        let m = object(v)?;
        let mut out = meta::Timestamp { seconds: Some(0), nanos: Some(0) };
        for (k, x) in m {
            match k.as_str() {
                "seconds" => out.seconds = Some(i64::from_json(x).at(k)?),
                "nanos" => out.nanos = Some(i32::from_json(x).at(k)?),
                _ => not_a_field(k)?,
            }
        }
        Ok(out)
    }
}

impl FromJson for meta::Duration {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        let text = v.as_str().ok_or_else(|| expected("a duration", v))?;
        let nanos = parse_go_duration(text).ok_or_else(|| EncodeError::new(format!("invalid duration {text:?}")))?;
        Ok(meta::Duration { duration: Some(nanos) })
    }
}

/// Go's `time.ParseDuration`: an optional sign, then decimal numbers each with a unit (`ns`,
/// `us`, `µs`, `ms`, `s`, `m`, `h`), as `1h2m3.5s`; `0` alone is allowed.
pub fn parse_go_duration(text: &str) -> Option<i64> {
    let (sign, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (-1.0, &text[1..]),
        Some(b'+') => (1.0, &text[1..]),
        _ => (1.0, text),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0_f64;
    while !rest.is_empty() {
        let number_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..number_len].parse().ok()?;
        rest = &rest[number_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += number * scale;
    }
    #[allow(clippy::cast_possible_truncation)]
    let nanos = (sign * total).round() as i64;
    Some(nanos)
}

impl FromJson for meta::FieldsV1 {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        Ok(meta::FieldsV1 { raw: Some(json_bytes(v)?) })
    }
}

impl FromJson for k8s_pb::apimachinery::pkg::api::resource::Quantity {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        let string = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => return Err(expected("a quantity", other)),
        };
        Ok(Self { string: Some(string) })
    }
}

/// All three fields written, as Go's non-pointer `Type`, `IntVal` and `StrVal` are.
impl FromJson for k8s_pb::apimachinery::pkg::util::intstr::IntOrString {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        match v {
            Value::String(s) => Ok(Self { r#type: Some(1), int_val: Some(0), str_val: Some(s.clone()) }),
            Value::Number(_) => {
                Ok(Self { r#type: Some(0), int_val: Some(i32::from_json(v)?), str_val: Some(String::new()) })
            }
            other => Err(expected("an integer or a string", other)),
        }
    }
}

/// An embedded object, as JSON bytes (what the server holds for one it read from JSON).
impl FromJson for RawExtension {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        Ok(RawExtension { raw: Some(json_bytes(v)?) })
    }
}

impl FromJson for apiextensions::Json {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        Ok(apiextensions::Json { raw: Some(json_bytes(v)?) })
    }
}

impl FromJson for apiextensions::JsonSchemaPropsOrArray {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        match v {
            Value::Array(_) => Ok(Self { schema: None, j_son_schemas: FromJson::from_json(v)? }),
            v => Ok(Self { schema: Some(FromJson::from_json(v)?), j_son_schemas: Vec::new() }),
        }
    }
}

/// A boolean, or a schema (which allows, as Go's JSON decoder sets it).
impl FromJson for apiextensions::JsonSchemaPropsOrBool {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        match v {
            Value::Bool(b) => Ok(Self { allows: Some(*b), schema: None }),
            v => Ok(Self { allows: Some(true), schema: Some(FromJson::from_json(v)?) }),
        }
    }
}

impl FromJson for apiextensions::JsonSchemaPropsOrStringArray {
    fn from_json(v: &Value) -> Result<Self, EncodeError> {
        match v {
            Value::Array(_) => Ok(Self { schema: None, property: FromJson::from_json(v)? }),
            v => Ok(Self { schema: Some(FromJson::from_json(v)?), property: Vec::new() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_durations_parse_as_go_parses_them() {
        assert_eq!(parse_go_duration("0"), Some(0));
        assert_eq!(parse_go_duration("0s"), Some(0));
        assert_eq!(parse_go_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(parse_go_duration("1h2m3s"), Some(3_723_000_000_000));
        assert_eq!(parse_go_duration("-300ms"), Some(-300_000_000));
        assert_eq!(parse_go_duration("5"), None);
        assert_eq!(parse_go_duration("5x"), None);
        assert_eq!(parse_go_duration(""), None);
    }

    #[test]
    fn a_field_that_does_not_fit_is_an_error_naming_its_path() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a"}, {"name": "b", "ports": [{"containerPort": "eighty"}]}]}});
        let err = encode_object(&pod).expect_err("a string port does not fit int32");
        assert_eq!(err.path(), "spec.containers[1].ports[0].containerPort");
        assert_eq!(
            err.to_string(),
            "field spec.containers[1].ports[0].containerPort: expected an integer, got a string"
        );
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1}});
        assert_eq!(encode_object(&pod).expect_err("unknown field").path(), "metadata.bogus");
    }

    #[test]
    fn an_inlined_struct_takes_its_fields_from_the_parent() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "spec": {"volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "hostPath": {"path": 7}}]}});
        let err = encode_object(&pod).expect_err("a number path does not fit");
        assert_eq!(err.path(), "spec.volumes[1].hostPath.path");
    }

    #[test]
    fn a_kind_without_a_message_is_an_error() {
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget"});
        assert!(encode_object(&widget).expect_err("no message").to_string().contains("Widget"));
        assert!(!has_message("example.com/v1", "Widget"));
        assert!(has_message("v1", "PodList") && has_message("meta.k8s.io/v1", "PartialObjectMetadataList"));
    }

    #[test]
    fn the_envelope_writes_empty_content_encoding_and_type() {
        let body = encode_object(&json!({"apiVersion": "v1", "kind": "Status", "status": "Failure"}))
            .expect("a Status encodes");
        assert!(body.starts_with(b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Status"), "{body:x?}");
        assert!(body.ends_with(b"\x1a\x00\x22\x00"), "{body:x?}");
    }
}
