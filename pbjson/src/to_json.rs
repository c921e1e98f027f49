//! Protobuf messages to JSON: the [`ToJson`] form of every message as the Go type it mirrors is
//! JSON-encoded (the generated `generated.rs` for messages that are objects of their fields, the
//! hand-written forms here for Time, MicroTime, Duration, FieldsV1, Quantity, IntOrString and the
//! apiextensions unions; RawExtension in `lib.rs`, beside the envelope it may carry), and the field
//! helpers the generated code writes with. A leaf of the crate: it knows no envelope and no
//! dispatch.

use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, SecondsFormat};
use prost::Message;
use serde_json::{json, Map, Value};

pub(crate) fn decode<M: Message + Default + ToJson>(raw: &[u8]) -> Option<Result<Value, prost::DecodeError>> {
    Some(crate::lenient::decode::<M>(raw).map(|m| m.to_json()))
}

/// A message's JSON, as the Go type it mirrors is encoded.
pub trait ToJson {
    fn to_json(&self) -> Value;
}

/// Whether a value is what Go's `omitempty` leaves out (see the crate's doc).
pub fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    }
}

pub(crate) fn field<T: ToJson>(m: &mut Map<String, Value>, name: &str, v: &T) {
    let v = v.to_json();
    if !is_zero(&v) {
        m.insert(name.to_string(), v);
    }
}

/// A field without `omitempty` (k8s-openapi does not wrap it in `Option`): written even when
/// it is its type's zero. An empty list is written `null`, as Go writes the nil slice its
/// protobuf decoder leaves for a repeated field with no element (a BOOKMARK's pod has
/// `"spec":{"containers":null}`).
pub(crate) fn required_field<T: ToJson>(m: &mut Map<String, Value>, name: &str, v: &T) {
    match v.to_json() {
        Value::Null => {}
        Value::Array(items) if items.is_empty() => {
            m.insert(name.to_string(), Value::Null);
        }
        v => {
            m.insert(name.to_string(), v);
        }
    }
}

/// A map: left out when empty (an empty message stays, as `resources: {}` does).
pub(crate) fn map_field<T: ToJson>(m: &mut Map<String, Value>, name: &str, v: &BTreeMap<String, T>) {
    if !v.is_empty() {
        m.insert(name.to_string(), v.to_json());
    }
}

/// A Go struct embedded with `json:",inline"`: its fields go into the parent's object.
pub(crate) fn inline_field<T: ToJson>(m: &mut Map<String, Value>, v: &T) {
    if let Value::Object(fields) = v.to_json() {
        m.extend(fields);
    }
}

pub(crate) fn base64(bytes: &[u8]) -> Value {
    json!(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// A `[]byte` field: standard base64, as its JSON form is.
pub(crate) fn bytes_field(m: &mut Map<String, Value>, name: &str, v: &Option<Vec<u8>>) {
    if let Some(b) = v.as_ref().filter(|b| !b.is_empty()) {
        m.insert(name.to_string(), base64(b));
    }
}

/// A `map[string][]byte` field (Secret `data`, ConfigMap `binaryData`).
pub(crate) fn bytes_map_field(m: &mut Map<String, Value>, name: &str, v: &BTreeMap<String, Vec<u8>>) {
    if !v.is_empty() {
        m.insert(name.to_string(), Value::Object(v.iter().map(|(k, b)| (k.clone(), base64(b))).collect()));
    }
}

impl ToJson for String {
    fn to_json(&self) -> Value {
        json!(self)
    }
}
impl ToJson for bool {
    fn to_json(&self) -> Value {
        json!(self)
    }
}
impl ToJson for i32 {
    fn to_json(&self) -> Value {
        json!(self)
    }
}
impl ToJson for i64 {
    fn to_json(&self) -> Value {
        json!(self)
    }
}
/// A float64 as Go's JSON encoder writes it: without a fraction when it has none (`10`, not
/// `10.0`).
impl ToJson for f64 {
    fn to_json(&self) -> Value {
        #[allow(clippy::cast_possible_truncation)]
        if self.fract() == 0.0 && self.abs() < 1e15 {
            return json!(*self as i64);
        }
        json!(self)
    }
}
impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}
impl<T: ToJson> ToJson for Box<T> {
    fn to_json(&self) -> Value {
        self.as_ref().to_json()
    }
}
impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}
impl<T: ToJson> ToJson for BTreeMap<String, T> {
    fn to_json(&self) -> Value {
        Value::Object(self.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
    }
}

/// Go's zero `time.Time`, which its protobuf form carries for an unset time.
pub(crate) const ZERO_TIME_SECONDS: i64 = -62_135_596_800;

/// RFC 3339 in UTC, to the second (`Time`) or the microsecond (`MicroTime`), the fraction cut as
/// Go's encoder cuts it; no value for an unset or the zero time.
pub(crate) fn time(seconds: Option<i64>, nanos: Option<i32>, precision: SecondsFormat) -> Value {
    let seconds = seconds.unwrap_or(0);
    let nanos = nanos.unwrap_or(0);
    if seconds == ZERO_TIME_SECONDS || (seconds == 0 && nanos == 0) {
        return Value::Null;
    }
    match DateTime::from_timestamp(seconds, u32::try_from(nanos).unwrap_or(0)) {
        Some(t) => json!(t.to_rfc3339_opts(precision, true)),
        None => Value::Null,
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::Time {
    fn to_json(&self) -> Value {
        time(self.seconds, self.nanos, SecondsFormat::Secs)
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::MicroTime {
    fn to_json(&self) -> Value {
        time(self.seconds, self.nanos, SecondsFormat::Micros)
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::Timestamp {
    fn to_json(&self) -> Value {
        json!({"seconds": self.seconds.unwrap_or(0), "nanos": self.nanos.unwrap_or(0)})
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::Duration {
    fn to_json(&self) -> Value {
        json!(go_duration(self.duration.unwrap_or(0)))
    }
}

/// Go's `time.Duration.String()` for whole and fractional seconds: `1h2m3.5s`, `0s`.
pub fn go_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".into();
    }
    let sign = if nanos < 0 { "-" } else { "" };
    let n = nanos.unsigned_abs();
    let (h, rest) = (n / 3_600_000_000_000, n % 3_600_000_000_000);
    let (m, rest) = (rest / 60_000_000_000, rest % 60_000_000_000);
    let (s, frac) = (rest / 1_000_000_000, rest % 1_000_000_000);
    let mut seconds = s.to_string();
    if frac > 0 {
        let f = format!("{frac:09}");
        seconds = format!("{s}.{}", f.trim_end_matches('0'));
    }
    match (h, m) {
        (0, 0) => format!("{sign}{seconds}s"),
        (0, m) => format!("{sign}{m}m{seconds}s"),
        (h, m) => format!("{sign}{h}h{m}m{seconds}s"),
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::FieldsV1 {
    fn to_json(&self) -> Value {
        self.raw.as_deref().and_then(|r| serde_json::from_slice(r).ok()).unwrap_or(Value::Null)
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::api::resource::Quantity {
    fn to_json(&self) -> Value {
        self.string.to_json()
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::util::intstr::IntOrString {
    fn to_json(&self) -> Value {
        if self.r#type == Some(1) {
            json!(self.str_val.clone().unwrap_or_default())
        } else {
            json!(self.int_val.unwrap_or(0))
        }
    }
}

use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;

/// apiextensions `JSON`: raw JSON bytes (a default, an example, an enum value).
impl ToJson for apiextensions::Json {
    fn to_json(&self) -> Value {
        self.raw.as_deref().and_then(|r| serde_json::from_slice(r).ok()).unwrap_or(Value::Null)
    }
}

/// `items` of a schema: one schema, or a list of them.
impl ToJson for apiextensions::JsonSchemaPropsOrArray {
    fn to_json(&self) -> Value {
        if self.j_son_schemas.is_empty() {
            self.schema.to_json()
        } else {
            self.j_son_schemas.to_json()
        }
    }
}

/// `additionalProperties` / `additionalItems`: a schema, or a boolean.
impl ToJson for apiextensions::JsonSchemaPropsOrBool {
    fn to_json(&self) -> Value {
        match &self.schema {
            Some(schema) => schema.to_json(),
            None => json!(self.allows.unwrap_or(false)),
        }
    }
}

/// `dependencies` values: a schema, or a list of property names.
impl ToJson for apiextensions::JsonSchemaPropsOrStringArray {
    fn to_json(&self) -> Value {
        match &self.schema {
            Some(schema) => schema.to_json(),
            None => self.property.to_json(),
        }
    }
}
