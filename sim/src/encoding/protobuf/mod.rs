//! Protobuf (`application/vnd.kubernetes.protobuf`) both ways. Responses are written by
//! [`encode`] (JSON to message: `generated.rs`, from `pbjson/tools/gen-protobuf-json.py`, plus the
//! hand-written forms in `from_json`). Request bodies, as kubectl's typed clients send built-in
//! objects, are read by the crate `kube-pb-json` (`pbjson/`), which the explorer shares: the
//! `k8s\0` magic, then a `runtime.Unknown` whose `typeMeta` names the apiVersion and kind and
//! whose `raw` holds the object's message, turned into the JSON kube-sim stores. Its doc says
//! which zeros the protobuf form cannot carry.

pub mod encode;
mod from_json;
mod generated;

pub use encode::{encode_object, has_message, watch_frame};
pub use from_json::EncodeError;
pub use kube_pb_json::decode_object;

/// The bytes of a real serializer's vector in the repository's `tests/fixtures/kube/vectors`, for
/// the vector tests here and in `encode`.
#[cfg(test)]
pub(crate) fn vector(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kube/vectors").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    //! Every object of the demo dataset, JSON → protobuf → JSON.

    use super::*;
    use crate::cli::Dataset;
    use crate::store::registry::Registry;
    use crate::store::Store;
    use kube_pb_json::is_zero;
    use serde_json::Value;
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

    /// Paths where the two trees differ, as `a.b[2].c`.
    fn differences(path: &str, got: &Value, want: &Value, out: &mut Vec<String>) {
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

    #[test]
    fn every_demo_object_comes_back_from_protobuf_as_it_went_in() {
        let registry = Registry::load().expect("registry loads");
        let store = Store::new(Duration::from_secs(60), 1000, Duration::from_secs(60));
        store.write(|txn| crate::controllers::dataset::load(txn, &registry, Dataset::Demo, true));
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
                differences("", &without_zeros(&back), &without_zeros(&object), &mut out);
                assert_eq!(out, Vec::<String>::new(), "{name}");
                encoded += 1;
            }
        }
        assert!(encoded > 50 && custom > 0, "{encoded} built-in objects, {custom} custom resources");
    }
}
