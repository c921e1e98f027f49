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
mod from_json;
mod generated;
mod to_json;

pub use encode::{encode_object, has_message, watch_frame, MAGIC};
pub use from_json::EncodeError;
pub use to_json::DecodeError;
use to_json::ToJson;

use prost::Message;
use serde_json::{json, Value};

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

/// An embedded object: JSON bytes, or a nested protobuf envelope (read by [`decode_object`],
/// which is why this impl lives here and not with the other forms in `to_json`).
impl ToJson for k8s_pb::apimachinery::pkg::runtime::RawExtension {
    fn to_json(&self) -> Value {
        let raw = self.raw.as_deref().unwrap_or_default();
        if raw.starts_with(MAGIC) {
            return decode_object(raw).unwrap_or(Value::Null);
        }
        serde_json::from_slice(raw).unwrap_or(Value::Null)
    }
}

/// The bytes of a real serializer's vector in `../shared/kube/vectors` (`KUBE_SHARED_DIR`
/// overrides where the shared folder is), for the vector tests here and in `encode`.
#[cfg(test)]
pub(crate) fn vector(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("KUBE_SHARED_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let path = dir.join("kube/vectors").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::to_json::go_duration;

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
    use crate::protobuf::to_json::is_zero;
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
