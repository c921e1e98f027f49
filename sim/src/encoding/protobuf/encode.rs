//! Protobuf responses: a stored object's JSON turned into its k8s-pb message (`FromJson`,
//! generated in `generated.rs` plus the hand-written forms below of the messages whose JSON
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

use prost::Message;
use serde_json::Value;

use super::from_json::EncodeError;
use super::generated;

use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta, Unknown};

use kube_pb_json::MAGIC;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::protobuf::from_json::parse_go_duration;
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

#[cfg(test)]
mod vectors {
    //! Our encoding of the real serializers' JSON vectors (`tests/fixtures/kube/vectors`) against their
    //! protobuf. Go's protobuf encoder writes every non-pointer field, zero or not, while its JSON
    //! leaves the zeros of `omitempty` fields out, and a JSON tree cannot tell such a field from a
    //! nil pointer: kube-sim writes what the JSON has. So the bodies are compared as decoded
    //! messages, and the fields where Go wrote a zero that kube-sim leaves out are listed exactly.

    use super::*;
    use crate::encoding::protobuf::vector;
    use k8s_pb::api::core::v1 as core;
    use std::fmt::Debug;

    fn json_vector(name: &str) -> Value {
        serde_json::from_slice(&vector(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// A zero scalar as prost's Debug prints it inside `Some(…)`.
    fn is_zero_scalar(value: &str) -> bool {
        matches!(value, "\"\"," | "0," | "false," | "0.0,")
    }

    /// The `{:#?}` lines of a message with every `Some(zero scalar)` and every `Some(Time)` of Go's
    /// zero time (no seconds, no nanos) made `None`, and the paths (field names by indentation)
    /// of the fields so changed, with their value.
    fn normalized(message: &impl Debug) -> (Vec<String>, Vec<(usize, String)>) {
        let text = format!("{message:#?}");
        let all: Vec<&str> = text.lines().collect();
        let mut stack: Vec<(usize, String)> = Vec::new();
        let mut lines = Vec::new();
        let mut zeros = Vec::new();
        let mut i = 0;
        while i < all.len() {
            let line = all[i];
            let indent = line.len() - line.trim_start().len();
            let trimmed = line.trim();
            stack.retain(|(d, _)| *d < indent);
            let name = trimmed.split_once(": ").map(|(n, _)| n.to_string());
            let next = |k: usize| all.get(i + k).map_or("", |l| l.trim());
            let zero = if trimmed.ends_with(": Some(") && is_zero_scalar(next(1)) && next(2) == ")," {
                Some((3, next(1).trim_end_matches(',').to_string()))
            } else if trimmed.ends_with(": Some(")
                && next(1) == "Time {"
                && next(2) == "seconds: None,"
                && next(3) == "nanos: None,"
                && next(4) == "},"
                && next(5) == "),"
            {
                Some((6, "the zero Time".to_string()))
            } else {
                None
            };
            if let (Some((skip, value)), Some(name)) = (zero, &name) {
                let mut path: Vec<&str> = stack.iter().map(|(_, n)| n.as_str()).collect();
                path.push(name);
                zeros.push((lines.len(), format!("{} = {value}", path.join("."))));
                lines.push(format!("{}{name}: None,", &line[..indent]));
                i += skip;
                continue;
            }
            if let Some(name) = name.filter(|_| trimmed.ends_with(['{', '[', '('])) {
                stack.push((indent, name));
            }
            lines.push(line.to_string());
            i += 1;
        }
        (lines, zeros)
    }

    /// Decodes both envelopes; the messages must be equal but for zero scalars Go wrote and we
    /// did not, which are returned.
    #[track_caller]
    fn differences<M: Message + Default + Debug>(ours: &[u8], real: &[u8]) -> Vec<String> {
        let open = |body: &[u8]| {
            let unknown = Unknown::decode(body.strip_prefix(MAGIC).expect("magic")).expect("runtime.Unknown");
            let raw = unknown.raw.clone().unwrap_or_default();
            (Unknown { raw: None, ..unknown }, M::decode(raw.as_slice()).expect("the message decodes"))
        };
        let (our_envelope, our_message) = open(ours);
        let (real_envelope, real_message) = open(real);
        assert_eq!(our_envelope, real_envelope, "the envelopes differ");
        let (our_lines, our_zeros) = normalized(&our_message);
        let (real_lines, real_zeros) = normalized(&real_message);
        assert_eq!(our_lines.join("\n"), real_lines.join("\n"), "the messages differ beyond zero scalars");
        real_zeros.into_iter().filter(|z| !our_zeros.contains(z)).map(|(_, z)| z).collect()
    }

    /// The fields of `metadata` (ObjectMeta) Go writes as zeros: the non-pointer `generateName`,
    /// `selfLink` and `generation`.
    const OBJECT_META_ZEROS: [&str; 3] =
        ["metadata.generate_name = \"\"", "metadata.self_link = \"\"", "metadata.generation = 0"];

    #[test]
    fn a_configmap_encodes_as_go_writes_it_but_for_objectmeta_zeros() {
        let ours = encode_object(&json_vector("configmap.json")).expect("encodes");
        assert_eq!(differences::<core::ConfigMap>(&ours, &vector("configmap.pb")), OBJECT_META_ZEROS);
    }

    #[test]
    fn a_status_encodes_as_go_writes_it_but_for_listmeta_zeros() {
        let ours = encode_object(&json_vector("status-410-expired.json")).expect("encodes");
        let real = vector("status-410-expired.pb");
        assert_eq!(
            differences::<meta::Status>(&ours, &real),
            ["metadata.self_link = \"\"", "metadata.resource_version = \"\"", "metadata.r#continue = \"\""]
        );
    }

    /// Where Go writes zeros in the pod of `pod.json` (and in each pod of `podlist.json`): the
    /// non-pointer fields JSON leaves out when zero. Sorted, duplicates (one per container, port,
    /// condition…) removed.
    const POD_ZEROS: &[&str] = &[
        "metadata.managed_fields.subresource = \"\"",
        "metadata.self_link = \"\"",
        "spec.containers.env.value = \"\"",
        "spec.containers.liveness_probe.handler.http_get.host = \"\"",
        "spec.containers.ports.host_ip = \"\"",
        "spec.containers.ports.host_port = 0",
        "spec.containers.readiness_probe.handler.tcp_socket.host = \"\"",
        "spec.containers.readiness_probe.initial_delay_seconds = 0",
        "spec.containers.stdin = false",
        "spec.containers.stdin_once = false",
        "spec.containers.tty = false",
        "spec.containers.working_dir = \"\"",
        "spec.host_ipc = false",
        "spec.host_network = false",
        "spec.host_pid = false",
        "spec.hostname = \"\"",
        "spec.priority_class_name = \"\"",
        "spec.service_account = \"\"",
        "spec.subdomain = \"\"",
        "spec.tolerations.value = \"\"",
        "status.conditions.last_probe_time = the zero Time",
        "status.conditions.message = \"\"",
        "status.conditions.observed_generation = 0",
        "status.conditions.reason = \"\"",
        "status.message = \"\"",
        "status.nominated_node_name = \"\"",
        "status.observed_generation = 0",
        "status.reason = \"\"",
        "status.resize = \"\"",
    ];

    fn distinct(mut fields: Vec<String>) -> Vec<String> {
        fields.sort();
        fields.dedup();
        fields
    }

    #[test]
    fn a_pod_encodes_as_go_writes_it_but_for_zeros_of_non_pointer_fields() {
        let ours = encode_object(&json_vector("pod.json")).expect("encodes");
        assert_eq!(distinct(differences::<core::Pod>(&ours, &vector("pod.pb"))), POD_ZEROS);
    }

    #[test]
    fn a_podlist_encodes_as_go_writes_it_but_for_the_same_zeros_in_its_pods() {
        let ours = encode_object(&json_vector("podlist.json")).expect("encodes");
        let got = distinct(differences::<core::PodList>(&ours, &vector("podlist.pb")));
        let mut want: Vec<String> = POD_ZEROS.iter().map(|z| format!("items.{z}")).collect();
        // One of its pods waits with a reason and no message; the list's ListMeta has no selfLink.
        want.push("items.status.container_statuses.state.waiting.message = \"\"".into());
        want.push("metadata.self_link = \"\"".into());
        assert_eq!(got, distinct(want));
    }

    #[test]
    fn watch_events_encode_as_the_real_stream_frames_them() {
        let real = vector("watch.pbstream");
        let events: Vec<Value> = vector("watch.jsonl")
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("a JSON event"))
            .collect();
        let mut rest = real.as_slice();
        let mut frames = Vec::new();
        while let [a, b, c, d, tail @ ..] = rest {
            let len = u32::from_be_bytes([*a, *b, *c, *d]) as usize;
            frames.push(meta::WatchEvent::decode(&tail[..len]).expect("a WatchEvent"));
            rest = &tail[len..];
        }
        assert_eq!(frames.len(), events.len());
        assert_eq!(frames.len(), 4, "ADDED, MODIFIED, DELETED, BOOKMARK");
        for (event, frame) in events.iter().zip(&frames) {
            let ty = event["type"].as_str().expect("type");
            let ours = watch_frame(ty, &event["object"]).expect("encodes");
            let len = u32::from_be_bytes(ours[..4].try_into().expect("4 bytes")) as usize;
            assert_eq!(len, ours.len() - 4, "{ty}: the length prefix counts the event");
            let ours = meta::WatchEvent::decode(&ours[4..]).expect("our WatchEvent");
            assert_eq!(ours.r#type, frame.r#type);
            let raw = |e: &meta::WatchEvent| e.object.as_ref().and_then(|o| o.raw.clone()).expect("object.raw");
            let (our_raw, real_raw) = (raw(&ours), raw(frame));
            assert!(real_raw.starts_with(MAGIC) && our_raw.starts_with(MAGIC), "{ty}: the object is a full envelope");
            let zeros = distinct(differences::<core::Pod>(&our_raw, &real_raw));
            if ty == "BOOKMARK" {
                // The bookmark's pod has a resourceVersion and nothing else, but its spec and
                // status are non-pointer structs: Go writes all their non-pointer scalars.
                let want = [
                    "metadata.creation_timestamp = the zero Time",
                    "metadata.generate_name = \"\"",
                    "metadata.generation = 0",
                    "metadata.name = \"\"",
                    "metadata.namespace = \"\"",
                    "metadata.self_link = \"\"",
                    "metadata.uid = \"\"",
                    "spec.dns_policy = \"\"",
                    "spec.host_ipc = false",
                    "spec.host_network = false",
                    "spec.host_pid = false",
                    "spec.hostname = \"\"",
                    "spec.node_name = \"\"",
                    "spec.priority_class_name = \"\"",
                    "spec.restart_policy = \"\"",
                    "spec.scheduler_name = \"\"",
                    "spec.service_account = \"\"",
                    "spec.service_account_name = \"\"",
                    "spec.subdomain = \"\"",
                    "status.host_ip = \"\"",
                    "status.message = \"\"",
                    "status.nominated_node_name = \"\"",
                    "status.observed_generation = 0",
                    "status.phase = \"\"",
                    "status.pod_ip = \"\"",
                    "status.qos_class = \"\"",
                    "status.reason = \"\"",
                    "status.resize = \"\"",
                ];
                assert_eq!(zeros, want);
                continue;
            }
            // The ADDED pod is still pending: no host or pod IP yet.
            let pending = ["status.host_ip = \"\"", "status.pod_ip = \"\""];
            let unexpected: Vec<&String> =
                zeros.iter().filter(|z| !POD_ZEROS.contains(&z.as_str()) && !pending.contains(&z.as_str())).collect();
            assert!(unexpected.is_empty() && zeros.len() > 20, "{ty}: {zeros:#?}");
        }
    }
}
