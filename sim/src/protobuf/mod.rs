//! Protobuf (`application/vnd.kubernetes.protobuf`) both ways. Responses are written by
//! [`encode`] (JSON to message, the reverse of what follows). Request bodies, as kubectl's typed
//! clients send built-in objects: the `k8s\0` magic, then a `runtime.Unknown` whose `typeMeta` names the
//! apiVersion and kind and whose `raw` holds the object's message. The messages are decoded with
//! k8s-pb (kube-rs's prost bindings of the Kubernetes .proto files) and turned into the JSON
//! kube-sim stores by `generated/decode.rs` (`tools/gen-protobuf-json.py`, from k8s-pb and
//! k8s-openapi) plus the hand-written JSON forms of the few messages whose JSON is not an object
//! of their fields (Time, MicroTime, Duration, FieldsV1, Quantity, IntOrString, RawExtension).
//!
//! Go's JSON encoder leaves out the fields a client did not set (`omitempty`), while the
//! protobuf encoder writes every non-pointer field: a field whose value is the zero of its type
//! (empty string, `false`, `0`, an empty list or map, the zero time) is left out here, unless
//! the field is required or its zero differs from leaving it out (a pointer, or a server
//! default other than zero: `spec.replicas: 0` stays). A pointer set to a zero that equals its
//! default (`immutable: false`) is left out, which the real server would keep.

pub mod encode;
mod generated;

pub use encode::{encode_object, has_message, watch_frame, EncodeError};

use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, Utc};
use prost::Message;
use serde_json::{json, Map, Value};

/// The magic prefix of every Kubernetes protobuf body.
pub const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body could not be read, in words for a 400 Status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a `k8s\0` + `runtime.Unknown` body into the object's JSON, with apiVersion and kind set
/// from the envelope's typeMeta.
pub fn decode_object(body: &[u8]) -> Result<Value, DecodeError> {
    let rest = body.strip_prefix(MAGIC).ok_or_else(|| {
        DecodeError(
            "provided object is not a Kubernetes protobuf message: the body does not start with \"k8s\\x00\"".into(),
        )
    })?;
    let unknown = k8s_pb::apimachinery::pkg::runtime::Unknown::decode(rest)
        .map_err(|e| DecodeError(format!("runtime.Unknown envelope: {e}")))?;
    if unknown.content_encoding.as_deref().is_some_and(|e| !e.is_empty()) {
        return Err(DecodeError(format!(
            "unsupported contentEncoding {:?} in the runtime.Unknown envelope",
            unknown.content_encoding.unwrap_or_default()
        )));
    }
    let type_meta = unknown.type_meta.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    if kind.is_empty() {
        return Err(DecodeError("Object 'Kind' is missing in the runtime.Unknown envelope".into()));
    }
    let raw = unknown.raw.unwrap_or_default();
    let mut value = generated::object_to_json(&api_version, &kind, &raw).ok_or_else(|| {
        DecodeError(format!("no kind \"{kind}\" is registered for version \"{api_version}\" in protobuf"))
    })??;
    if let Some(m) = value.as_object_mut() {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(kind));
    }
    Ok(value)
}

fn decode<M: Message + Default + ToJson>(raw: &[u8]) -> Option<Result<Value, DecodeError>> {
    Some(M::decode(raw).map(|m| m.to_json()).map_err(|e| DecodeError(format!("protobuf: {e}"))))
}

/// A message's JSON, as the Go type it mirrors is encoded.
pub trait ToJson {
    fn to_json(&self) -> Value;
}

/// Whether a value is what Go's `omitempty` leaves out (see the module doc).
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    }
}

fn field<T: ToJson>(m: &mut Map<String, Value>, name: &str, v: &T) {
    let v = v.to_json();
    if !is_zero(&v) {
        m.insert(name.to_string(), v);
    }
}

/// A field without `omitempty` (k8s-openapi does not wrap it in `Option`): written even when
/// it is its type's zero.
fn required_field<T: ToJson>(m: &mut Map<String, Value>, name: &str, v: &T) {
    let v = v.to_json();
    if !v.is_null() {
        m.insert(name.to_string(), v);
    }
}

/// A map: left out when empty (an empty message stays, as `resources: {}` does).
fn map_field<T: ToJson>(m: &mut Map<String, Value>, name: &str, v: &BTreeMap<String, T>) {
    if !v.is_empty() {
        m.insert(name.to_string(), v.to_json());
    }
}

/// A Go struct embedded with `json:",inline"`: its fields go into the parent's object.
fn inline_field<T: ToJson>(m: &mut Map<String, Value>, v: &T) {
    if let Value::Object(fields) = v.to_json() {
        m.extend(fields);
    }
}

fn base64(bytes: &[u8]) -> Value {
    json!(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// A `[]byte` field: standard base64, as its JSON form is.
fn bytes_field(m: &mut Map<String, Value>, name: &str, v: &Option<Vec<u8>>) {
    if let Some(b) = v.as_ref().filter(|b| !b.is_empty()) {
        m.insert(name.to_string(), base64(b));
    }
}

/// A `map[string][]byte` field (Secret `data`, ConfigMap `binaryData`).
fn bytes_map_field(m: &mut Map<String, Value>, name: &str, v: &BTreeMap<String, Vec<u8>>) {
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
const ZERO_TIME_SECONDS: i64 = -62_135_596_800;

fn time(seconds: Option<i64>, nanos: Option<i32>, format: &str) -> Value {
    let seconds = seconds.unwrap_or(0);
    let nanos = nanos.unwrap_or(0);
    if seconds == ZERO_TIME_SECONDS || (seconds == 0 && nanos == 0) {
        return Value::Null;
    }
    match DateTime::<Utc>::from_timestamp(seconds, u32::try_from(nanos).unwrap_or(0)) {
        Some(t) => json!(t.format(format).to_string()),
        None => Value::Null,
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::Time {
    fn to_json(&self) -> Value {
        time(self.seconds, self.nanos, "%Y-%m-%dT%H:%M:%SZ")
    }
}

impl ToJson for k8s_pb::apimachinery::pkg::apis::meta::v1::MicroTime {
    fn to_json(&self) -> Value {
        time(self.seconds, self.nanos, "%Y-%m-%dT%H:%M:%S%.6fZ")
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
fn go_duration(nanos: i64) -> String {
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

/// An embedded object: JSON bytes, or a nested protobuf envelope.
impl ToJson for k8s_pb::apimachinery::pkg::runtime::RawExtension {
    fn to_json(&self) -> Value {
        let raw = self.raw.as_deref().unwrap_or_default();
        if raw.starts_with(MAGIC) {
            return decode_object(raw).unwrap_or(Value::Null);
        }
        serde_json::from_slice(raw).unwrap_or(Value::Null)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_read_as_go_writes_them() {
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(1_500_000_000), "1.5s");
        assert_eq!(go_duration(90 * 1_000_000_000), "1m30s");
        assert_eq!(go_duration(3_600 * 1_000_000_000), "1h0m0s");
    }

    #[test]
    fn a_body_without_the_magic_is_refused() {
        let err = decode_object(b"\x0a\x00").expect_err("no magic");
        assert!(err.0.contains("k8s\\x00"), "{err}");
    }
}

#[cfg(test)]
mod vectors {
    //! The real serializers' protobuf vectors (`../shared/kube/vectors`) against their JSON.

    use super::*;
    use std::path::PathBuf;

    fn vector(name: &str) -> Vec<u8> {
        let dir = std::env::var_os("KUBE_SHARED_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
        let path = dir.join("kube/vectors").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// Paths where the two trees differ, as `a.b[2].c`.
    pub(super) fn differences(path: &str, got: &Value, want: &Value, out: &mut Vec<String>) {
        match (got, want) {
            (Value::Object(g), Value::Object(w)) => {
                for k in g.keys().chain(w.keys().filter(|k| !g.contains_key(*k))) {
                    let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    differences(&p, g.get(k).unwrap_or(&Value::Null), w.get(k).unwrap_or(&Value::Null), out);
                }
            }
            (Value::Array(g), Value::Array(w)) if g.len() == w.len() => {
                for (i, (a, b)) in g.iter().zip(w).enumerate() {
                    differences(&format!("{path}[{i}]"), a, b, out);
                }
            }
            _ if got == want => {}
            _ => out.push(format!("{path}: {got} instead of {want}")),
        }
    }

    #[track_caller]
    fn check(name: &str, expect_differences: &[&str]) {
        let got = decode_object(&vector(&format!("{name}.pb"))).unwrap_or_else(|e| panic!("{name}.pb: {e}"));
        let want: Value = serde_json::from_slice(&vector(&format!("{name}.json"))).expect("the JSON vector parses");
        let mut out = Vec::new();
        differences("", &got, &want, &mut out);
        assert_eq!(out, expect_differences, "{name}.pb decoded against {name}.json");
    }

    #[test]
    fn a_configmap_decodes_to_its_json_but_for_a_pointer_set_to_false() {
        check("configmap", &["immutable: null instead of false"]);
    }

    #[test]
    fn a_pod_decodes_to_its_json_but_for_a_pointer_set_to_zero() {
        // `priority` is a pointer set to 0, which the protobuf form cannot tell from unset
        // (nor its doc from a plain int).
        check("pod", &["spec.priority: null instead of 0"]);
    }
}

#[cfg(test)]
mod dataset {
    //! Every object of the demo dataset, JSON → protobuf → JSON.

    use super::*;
    use crate::cli::Dataset;
    use crate::registry::Registry;
    use crate::store::Store;
    use std::time::Duration;

    /// `object` without the fields the protobuf form cannot carry: a zero scalar (`false`, `0`,
    /// `""`), an empty list or map, an empty object left by them, unless the decoder keeps its
    /// zero (a required field, or one whose zero is not its default).
    fn without_zeros(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter().map(|(k, x)| (k.clone(), without_zeros(x))).filter(|(_, x)| !is_zero(x)).collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(without_zeros).collect()),
            other => other.clone(),
        }
    }

    #[test]
    fn every_demo_object_comes_back_from_protobuf_as_it_went_in() {
        let registry = Registry::load().expect("registry loads");
        let store = Store::new(Duration::from_secs(60), 1000, Duration::from_secs(60));
        store.write(|txn| crate::dataset::load(txn, &registry, Dataset::Demo));
        let state = store.read();
        let (mut encoded, mut custom) = (0, 0);
        for key in state.counts().keys() {
            for object in state.list(key, None) {
                let api_version = object["apiVersion"].as_str().unwrap_or_default();
                let kind = object["kind"].as_str().unwrap_or_default();
                let name = format!("{kind} {}", object["metadata"]["name"]);
                if !has_message(api_version, kind) {
                    custom += 1;
                    assert!(!api_version.ends_with(".k8s.io/v1") && api_version.contains('.'), "{name}: no message");
                    continue;
                }
                let bytes = encode_object(&object).unwrap_or_else(|e| panic!("{name}: {e}"));
                let back = decode_object(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
                // Either side without zeros: the decoder keeps required and pointer zeros.
                let mut out = Vec::new();
                super::vectors::differences("", &without_zeros(&back), &without_zeros(&object), &mut out);
                assert_eq!(out, Vec::<String>::new(), "{name}");
                encoded += 1;
            }
        }
        assert!(encoded > 50 && custom > 0, "{encoded} built-in objects, {custom} custom resources");
    }
}
