//! JSON to protobuf messages: the [`FromJson`] form of every message (the generated
//! `generated.rs` for messages that are objects of their fields, the hand-written forms
//! here for the messages whose JSON is not), the [`EncodeError`] that names the path of a value
//! that does not fit, and the helpers the generated code reads with. A leaf of the protobuf
//! module: it knows no envelope and no dispatch.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine;
use chrono::DateTime;
use prost::Message;
use serde_json::{Map, Value};

use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::RawExtension;

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
    pub(crate) fn new(message: impl Into<String>) -> EncodeError {
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

pub(crate) fn encode<M: Message + FromJson>(object: &Value) -> Option<Result<Vec<u8>, EncodeError>> {
    Some(M::from_json(object).map(|m| m.encode_to_vec()))
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn expected(what: &str, got: &Value) -> EncodeError {
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
pub(crate) fn integer(v: &Value) -> Result<i64, EncodeError> {
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

pub(crate) fn base64(v: &Value) -> Result<Vec<u8>, EncodeError> {
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
pub(crate) fn json_bytes(v: &Value) -> Result<Vec<u8>, EncodeError> {
    serde_json::to_vec(v).map_err(|e| EncodeError::new(format!("JSON: {e}")))
}

pub(crate) fn rfc3339(v: &Value) -> Result<DateTime<chrono::FixedOffset>, EncodeError> {
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
