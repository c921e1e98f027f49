//! The real serializers' protobuf vectors (`tests/fixtures/kube/vectors`) and the real API
//! server's protobuf answers (`tests/fixtures/kube/real-apiserver`) against their JSON, and bad
//! input.

use super::*;

/// A file of the repository's real wire data, `tests/fixtures/kube`.
fn shared(path: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kube").join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The response body of a `real-apiserver` recording: hex for a binary body, else its text.
fn recorded_body(name: &str) -> Vec<u8> {
    let text = String::from_utf8(shared(&format!("real-apiserver/{name}.txt"))).expect("a recording is text");
    let (head, body) = text.split_once("=== BODY (").expect("the recording has a body");
    assert!(head.contains("=== RESPONSE ==="), "{name}: the body follows the response");
    let (kind, body) = body.split_once(") ===\n").expect("the body's heading ends");
    if !kind.ends_with("binary; hex") {
        return body.as_bytes().to_vec();
    }
    let hex: String = body.lines().take_while(|l| !l.is_empty() && !l.starts_with("===")).collect();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
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

#[track_caller]
fn check(got: &Value, want: &Value, expect_differences: &[&str]) {
    let mut out = Vec::new();
    differences("", got, want, &mut out);
    assert_eq!(out, expect_differences);
}

#[track_caller]
fn check_vector(name: &str, expect_differences: &[&str]) {
    let got = decode_object(&shared(&format!("vectors/{name}.pb"))).unwrap_or_else(|e| panic!("{name}.pb: {e}"));
    let want: Value = serde_json::from_slice(&shared(&format!("vectors/{name}.json"))).expect("the JSON vector parses");
    check(&got, &want, expect_differences);
}

#[test]
fn a_configmap_decodes_to_its_json_but_for_a_pointer_set_to_false() {
    check_vector("configmap", &["immutable: null instead of false"]);
}

#[test]
fn a_pod_decodes_to_its_json_but_for_a_pointer_set_to_zero() {
    // `priority` is a pointer set to 0, which the protobuf form cannot tell from unset (nor its
    // doc from a plain int).
    check_vector("pod", &["spec.priority: null instead of 0"]);
}

#[test]
fn a_pod_list_decodes_to_its_json_item_by_item() {
    check_vector(
        "podlist",
        &[
            "items[0].spec.priority: null instead of 0",
            "items[1].spec.priority: null instead of 0",
            "items[2].spec.priority: null instead of 0",
        ],
    );
}

#[test]
fn a_410_status_decodes_to_its_json() {
    check_vector("status-410-expired", &[]);
}

#[test]
fn each_frame_of_a_protobuf_watch_is_the_json_watch_event() {
    let stream = shared("vectors/watch.pbstream");
    let lines = shared("vectors/watch.jsonl");
    let want: Vec<Value> = lines
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("json"))
        .collect();
    let mut rest = &stream[..];
    let mut got = Vec::new();
    while let Some((length, tail)) = rest.split_first_chunk::<4>() {
        let length = u32::from_be_bytes(*length) as usize;
        let (frame, tail) = tail.split_at(length);
        got.push(watch_event_to_json(frame).unwrap_or_else(|e| panic!("frame {}: {e}", got.len())));
        rest = tail;
    }
    assert!(rest.is_empty(), "the stream ends with a whole frame");
    assert_eq!(got.len(), want.len(), "as many events as the JSON watch");
    for (got, want) in got.iter().zip(&want) {
        // The vector's pod sets `priority: 0`, and the one being deleted
        // `deletionGracePeriodSeconds: 0`: pointers set to zero, which protobuf does not tell from
        // unset (see above). The BOOKMARK's pod has neither.
        let mut expected = Vec::new();
        if want["object"]["metadata"].get("deletionGracePeriodSeconds").is_some() {
            expected.push("object.metadata.deletionGracePeriodSeconds: null instead of 0");
        }
        if want["object"]["spec"].get("priority").is_some() {
            expected.push("object.spec.priority: null instead of 0");
        }
        check(got, want, &expected);
    }
}

#[test]
fn the_real_servers_metadata_only_list_in_protobuf_is_its_json_list() {
    let got = decode_object(&recorded_body("42-partialobjectmetadata-list-protobuf")).expect("decodes");
    let want: Value = serde_json::from_slice(&recorded_body("40-partialobjectmetadata-list")).expect("json");
    assert_eq!(got["kind"], "PartialObjectMetadataList");
    assert_eq!(got["apiVersion"], "meta.k8s.io/v1");
    let item = &got["items"][0];
    let name = item["metadata"]["name"].as_str().expect("a named item");
    let same = want["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["metadata"]["name"] == name)
        .expect("the same widget");
    // The JSON list writes each item's TypeMeta; the protobuf message of an item has none, and
    // the decoder gives it as the server's JSON does.
    check(item, same, &[]);
}

#[test]
fn the_real_servers_aggregated_discovery_in_protobuf_is_its_json() {
    let got = decode_object(&recorded_body("04e-discovery-apis-aggregated-v2-protobuf")).expect("decodes");
    let want: Value = serde_json::from_slice(&recorded_body("02-discovery-apis-aggregated-v2")).expect("json");
    check(&got, &want, &[]);
}

#[test]
fn the_real_servers_406_for_a_custom_resource_is_a_status() {
    let got = decode_object(&recorded_body("43b-cr-protobuf-only-406")).expect("decodes");
    assert_eq!(got["kind"], "Status");
    assert_eq!(got["code"], 406);
    assert_eq!(got["reason"], "NotAcceptable");
}

#[test]
fn a_body_without_the_magic_is_refused() {
    assert_eq!(decode_object(b"\x0a\x00"), Err(DecodeError::NoMagic));
    assert!(DecodeError::NoMagic.to_string().contains("k8s\\x00"));
}

#[test]
fn a_type_without_a_message_names_its_api_version_and_kind() {
    let err = raw_to_json("example.com/v1", "Widget", b"").expect_err("no message");
    assert_eq!(err.to_string(), "no kind \"Widget\" is registered for version \"example.com/v1\" in protobuf");
    assert!(!has_message("example.com/v1", "Widget"));
    assert!(has_message("v1", "PodList"));
}

#[test]
fn a_cut_message_says_which_type_and_field_it_was_reading() {
    let pod = shared("vectors/pod.pb");
    for cut in [pod.len() - 1, pod.len() / 2, 20] {
        match decode_object(&pod[..cut]) {
            Err(DecodeError::Envelope(e)) => assert!(!e.is_empty()),
            Err(DecodeError::Message { api_version, kind, error }) => {
                assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Pod"));
                assert!(error.contains("failed to decode"), "{error}");
            }
            other => panic!("a pod cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn a_watch_frame_that_is_no_event_says_so() {
    let err = watch_event_to_json(b"\x0a\x05ADD").expect_err("cut");
    assert!(matches!(err, DecodeError::WatchEvent(_)), "{err:?}");
    let not_a_body = watch_event_to_json(b"\x0a\x05ADDED\x12\x04\x0a\x02{}").expect_err("no magic");
    assert!(not_a_body.to_string().starts_with("watch event: object: provided object is not"), "{not_a_body}");
}

#[test]
fn go_durations_read_as_go_writes_them() {
    assert_eq!(go_duration(0), "0s");
    assert_eq!(go_duration(1_500_000_000), "1.5s");
    assert_eq!(go_duration(90 * 1_000_000_000), "1m30s");
    assert_eq!(go_duration(3_600 * 1_000_000_000), "1h0m0s");
}

/// The real serializer's ConfigMap with a byte that is not UTF-8 put in a string of a map entry
/// (`data`) and in one of ObjectMeta (`name`): the object decodes, each bad byte reads U+FFFD as
/// the real server's JSON writes it, and `binaryData` (bytes, not UTF-8 either) is untouched.
#[test]
fn a_string_that_is_not_utf8_reads_as_the_real_servers_json_writes_it() {
    let mut bytes = shared("vectors/configmap.pb");
    for text in [&b"mode=production"[..], &b"app-config"[..]] {
        let at = bytes.windows(text.len()).position(|w| w == text).expect("the string is in the bytes");
        bytes[at] = 0xff;
    }
    let got = decode_object(&bytes).expect("decodes");
    let mut want: Value = serde_json::from_slice(&shared("vectors/configmap.json")).expect("json");
    want["data"]["app.properties"] = json!("\u{FFFD}ode=production\nreplicas=3\n");
    want["metadata"]["name"] = json!("\u{FFFD}pp-config");
    check(&got, &want, &["immutable: null instead of false"]);
    assert_eq!(lenient::go_lossy(b"a\xf0\x9f\x98b"), "a\u{FFFD}\u{FFFD}\u{FFFD}b", "one U+FFFD a byte, as Go");
}
