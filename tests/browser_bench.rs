//! In-browser benchmark (not part of the test run: `scripts/bench`, which enables the `bench`
//! feature): decode time of a 10,000-pod JSON list in wasm with the `api` decoders, against the
//! browser's own `TextDecoder` + `JSON.parse` of the same bytes in the same page, and of the same
//! list in CBOR and in protobuf (decoded in full, as the on-demand protobuf part does); and where a watched page's time
//! goes per event (framing and decoding 10,000 JSON and CBOR watch events, applying them to a
//! reflector holding 10,000 pods). It reports figures; it asserts only that every decoder read all
//! 10,000 items and that every event was applied.
#![cfg(all(target_arch = "wasm32", feature = "bench"))]

use std::sync::Arc;

use kube_api_explorer::api::body::decode_body_in_full;
use kube_api_explorer::api::codec::cbor::{decode_cbor, encode_cbor, CborEncoding};
use kube_api_explorer::api::codec::json::decode_json;
use kube_api_explorer::api::codec::protobuf::{decode_envelope, Envelope};
use kube_api_explorer::api::codec::value::Value;
use kube_api_explorer::api::error::Format;
use kube_api_explorer::api::media_type::MediaType;
use kube_api_explorer::api::view::list::RawList;
use kube_api_explorer::api::view::metadata::metadata_list_from_json;
use kube_api_explorer::api::watch::lazy_list::scan_list;
use kube_api_explorer::client::fetch::now_ms;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A real pod from the shared vectors, embedded at build time.
const POD: &str = include_str!("fixtures/kube/vectors/pod.json");
/// The same pod as the real serializer writes it in protobuf.
const POD_PB: &[u8] = include_bytes!("fixtures/kube/vectors/pod.pb");
const PODS: usize = 10_000;

fn pod_list() -> String {
    let pod = POD.trim();
    let mut body = String::with_capacity(PODS * (pod.len() + 40) + 100);
    body.push_str(r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":["#);
    for i in 0..PODS {
        if i > 0 {
            body.push(',');
        }
        // Each pod gets its own name so no two items are the same text.
        body.push_str(&pod.replacen(r#""name":""#, &format!(r#""name":"p{i}-"#), 1));
    }
    body.push_str("]}\n");
    body
}

/// The list of [`pod_list`] as the server writes it in protobuf: the vector pod's message, each
/// item renamed the same way, in a `PodList` inside the `k8s\0` envelope.
fn protobuf_pod_list() -> Vec<u8> {
    use k8s_pb::api::core::v1::{Pod, PodList};
    use k8s_pb::apimachinery::pkg::apis::meta::v1::ListMeta;
    use prost::Message;

    let envelope = decode_envelope(POD_PB).expect("the vector's envelope");
    let pod = Pod::decode(&envelope.raw[..]).expect("the vector's pod");
    let items = (0..PODS)
        .map(|i| {
            let mut pod = pod.clone();
            if let Some(meta) = pod.metadata.as_mut() {
                meta.name = Some(format!("p{i}-{}", meta.name.as_deref().unwrap_or_default()));
            }
            pod
        })
        .collect();
    let list =
        PodList { metadata: Some(ListMeta { resource_version: Some("1".into()), ..ListMeta::default() }), items };
    Envelope { api_version: "v1".into(), kind: "PodList".into(), raw: list.encode_to_vec(), ..Envelope::default() }
        .encode()
}

fn items_of(list: &Value) -> usize {
    list.get("items").and_then(Value::as_array).map_or(0, <[Value]>::len)
}

/// Runs `f` `runs` times and returns the best time in milliseconds.
fn best_of(runs: usize, mut f: impl FnMut() -> usize) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let start = now_ms();
        assert_eq!(f(), PODS, "every decoder must read every item");
        best = best.min(now_ms() - start);
    }
    best
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The page's `TextDecoder`, called on a `Uint8Array` without the text passing through wasm.
    type TextDecoder;
    #[wasm_bindgen::prelude::wasm_bindgen(constructor)]
    fn new() -> TextDecoder;
    #[wasm_bindgen::prelude::wasm_bindgen(method)]
    fn decode(this: &TextDecoder, bytes: &js_sys::Uint8Array) -> js_sys::JsString;
    /// `JSON.parse` of a JS string handle (js_sys's takes a `&str`, which would copy the text
    /// out of and back into JS inside the timed region).
    #[wasm_bindgen::prelude::wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    fn json_parse(text: &js_sys::JsString) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>;
}

/// The same bytes on both sides, each doing what an app of its kind does with a response body:
/// the body is a `Uint8Array` in the page (what `response.arrayBuffer()` gives). The browser's side
/// is `TextDecoder` + `JSON.parse` (what `response.json()` does); the wasm side copies the bytes
/// into wasm memory (what the explorer's client does) and decodes them. Nothing else is converted
/// inside a timed region.
#[wasm_bindgen_test]
fn decode_a_10000_pod_list_against_json_parse() {
    let body = pod_list();
    let megabytes = body.len() as f64 / 1e6;
    let bytes = js_sys::Uint8Array::from(body.as_bytes());
    drop(body);
    let decoder = TextDecoder::new();
    let browser = best_of(3, || {
        let parsed = json_parse(&decoder.decode(&bytes)).expect("JSON.parse");
        let items = js_sys::Reflect::get(&parsed, &"items".into()).expect("items");
        js_sys::Array::from(&items).length() as usize
    });
    let copy = best_of(3, || {
        let copied = bytes.to_vec();
        // The copy is what the count below is of, so that it is not optimised away.
        if copied.len() == bytes.length() as usize {
            PODS
        } else {
            0
        }
    });
    let full = best_of(3, || match decode_json(&bytes.to_vec()) {
        Ok(list) => list.get("items").and_then(Value::as_array).map_or(0, <[Value]>::len),
        Err(_) => 0,
    });
    let raw = best_of(3, || RawList::from_json(&bytes.to_vec()).map_or(0, |l| l.items.len()));
    let metadata = best_of(3, || metadata_list_from_json(&bytes.to_vec()).map_or(0, |l| l.items.len()));
    // The lazy list (what a live view's list pages become): each item's bytes and head, no trees.
    let lazy = best_of(3, || {
        let body: Arc<[u8]> = bytes.to_vec().into();
        scan_list(Format::Json, &body).map_or(0, |l| l.items.len())
    });
    // The same list as the server writes it in CBOR, read the same way.
    let cbor_body = encode_cbor(&decode_json(&bytes.to_vec()).expect("the list"), CborEncoding::SERVER);
    let cbor_megabytes = cbor_body.len() as f64 / 1e6;
    let cbor_bytes = js_sys::Uint8Array::from(&cbor_body[..]);
    drop(cbor_body);
    let lazy_cbor = best_of(3, || {
        let body: Arc<[u8]> = cbor_bytes.to_vec().into();
        scan_list(Format::Cbor, &body).map_or(0, |l| l.items.len())
    });
    // Full trees of the same list in the three encodings: protobuf has no lazy reading (its
    // items are not self-describing), so the on-demand part decodes the whole list, as here.
    let cbor_full = best_of(3, || decode_cbor(&cbor_bytes.to_vec()).map_or(0, |list| items_of(&list)));
    let pb_body = protobuf_pod_list();
    let pb_megabytes = pb_body.len() as f64 / 1e6;
    let pb_bytes = js_sys::Uint8Array::from(&pb_body[..]);
    drop(pb_body);
    let pb_full = best_of(3, || {
        decode_body_in_full(&MediaType::protobuf(), &pb_bytes.to_vec()).map_or(0, |list| items_of(&list))
    });
    // Where protobuf's time goes: prost reading the k8s-pb messages alone, without the JSON form.
    let pb_messages = best_of(3, || {
        use prost::Message;
        let envelope = decode_envelope(&pb_bytes.to_vec()).expect("envelope");
        k8s_pb::api::core::v1::PodList::decode(&envelope.raw[..]).map_or(0, |list| list.items.len())
    });
    // And the messages with their JSON form (kube-pb-json's serde_json tree), without the
    // explorer's document tree made of it.
    let pb_json_form = best_of(3, || {
        let envelope = decode_envelope(&pb_bytes.to_vec()).expect("envelope");
        kube_pb_json::raw_to_json(&envelope.api_version, &envelope.kind, &envelope.raw)
            .map_or(0, |list| list["items"].as_array().map_or(0, Vec::len))
    });
    console_log!(
        "{}",
        format!(
            "BENCH full trees of the same list: JSON {megabytes:.1} MB {full:.0} ms | CBOR {cbor_megabytes:.1} MB {cbor_full:.0} ms ({:.2} of JSON) | protobuf {pb_megabytes:.1} MB {pb_full:.0} ms ({:.2} of JSON, {:.2} of JSON.parse; of it prost's messages alone {pb_messages:.0} ms, with their JSON form {pb_json_form:.0} ms)",
            cbor_full / full,
            pb_full / full,
            pb_full / browser,
        )
    );
    console_log!(
        "{}",
        format!(
            "BENCH body {megabytes:.1} MB from a Uint8Array | TextDecoder + JSON.parse {browser:.0} ms | copy into wasm {copy:.0} ms | copy + api full tree {full:.0} ms (ratio {:.2}) | copy + raw items {raw:.0} ms (ratio {:.2}) | copy + metadata only {metadata:.0} ms (ratio {:.2}) | copy + lazy list JSON {lazy:.0} ms (ratio {:.2}) | the same list in CBOR ({cbor_megabytes:.1} MB): copy + lazy list CBOR {lazy_cbor:.0} ms (ratio {:.2} of JSON.parse, {:.2} of the lazy JSON list)",
            full / browser,
            raw / browser,
            metadata / browser,
            lazy / browser,
            lazy_cbor / browser,
            lazy_cbor / lazy
        )
    );
}

/// The vector pod as pod number `i` at resourceVersion `rv`: its own name and uid.
fn numbered_pod(i: usize, rv: usize) -> Value {
    use kube_api_explorer::api::codec::json::decode_json as decode;
    let mut pod = decode(POD.trim().as_bytes()).expect("the vector pod");
    if let Value::Object(map) = &mut pod {
        if let Some(Value::Object(mut meta)) = map.get("metadata").cloned() {
            meta.insert("name", Value::String(format!("pod-{i:05}")));
            meta.insert("uid", Value::String(format!("00000000-0000-4000-8000-{i:012}")));
            meta.insert("resourceVersion", Value::String(rv.to_string()));
            map.insert("metadata", Value::Object(meta));
        }
    }
    pod
}

/// Where a watched page's time goes per event, without a server: 10,000 MODIFIED events (JSON,
/// then CBOR) framed and decoded in 64 KiB chunks, then applied to a reflector that holds 10,000
/// pods (dedupe, the cache, the replaced version freed).
#[wasm_bindgen_test]
fn watch_events_framed_decoded_and_applied_to_10000_pods() {
    use kube_api_explorer::api::codec::cbor::CborEncoding;
    use kube_api_explorer::api::media_type::MediaType;
    use kube_api_explorer::api::reflector::{Action, Input, Jitter, Mode, Reflector, ReflectorConfig};
    use kube_api_explorer::api::request::Collection;
    use kube_api_explorer::api::view::list::{ListMeta, ObjectList, ResourceVersion};
    use kube_api_explorer::api::watch::{encode_cbor_event, encode_json_event, Framer, JsonFramer, WatchDecoder};

    const CHUNK: usize = 64 * 1024;
    let modified: Vec<Value> = (0..PODS).map(|i| numbered_pod(i, 20_000 + i)).collect();
    for (name, media_type, stream) in [
        (
            "JSON",
            MediaType::json(),
            modified.iter().flat_map(|p| encode_json_event("MODIFIED", p)).collect::<Vec<u8>>(),
        ),
        (
            "CBOR",
            MediaType::cbor_seq(),
            modified.iter().flat_map(|p| encode_cbor_event("MODIFIED", p, CborEncoding::SERVER)).collect::<Vec<u8>>(),
        ),
    ] {
        let collection =
            Collection { group: String::new(), version: "v1".into(), plural: "pods".into(), namespace: None };
        let mut config = ReflectorConfig::new(collection);
        config.mode = Mode::ListThenWatch;
        config.page_size = None;
        let (mut reflector, step) = Reflector::start(config).expect("a reflector");
        let Some(Action::Send { op, .. }) = step.actions.first().cloned() else { panic!("a list request first") };
        let list = ObjectList {
            api_version: "v1".into(),
            kind: "PodList".into(),
            metadata: ListMeta { resource_version: Some(ResourceVersion::new("10000")), ..ListMeta::default() },
            items: (0..PODS).map(|i| numbered_pod(i, 10_000 + i)).collect(),
        };
        let step = reflector.step(Input::ListPage { op, list: list.into() }, Jitter::NONE);
        let Some(Action::Send { op, .. }) = step.actions.first().cloned() else { panic!("a watch after the list") };
        reflector.step(Input::WatchOpened { op }, Jitter::NONE);
        assert_eq!(reflector.store().len(), PODS);

        let started = now_ms();
        // The framer alone (each event handed over as it is framed, nothing decoded) is what
        // `JsonFramer` costs beyond its decode.
        let framed: usize = if name == "JSON" {
            let mut framer = JsonFramer::new();
            stream.chunks(CHUNK).map(|c| framer.push(c).map_or(0, |v| v.len())).sum()
        } else {
            PODS
        };
        let framing = now_ms() - started;
        assert_eq!(framed, PODS);
        // The JSON events one by one (each ends with a newline), decoded without framing.
        let started = now_ms();
        let decoded = if name == "JSON" {
            stream
                .split(|b| *b == b'\n')
                .filter(|line| !line.is_empty())
                .filter(|line| decode_json(line).is_ok())
                .count()
        } else {
            PODS
        };
        let decoding_only = now_ms() - started;
        assert_eq!(decoded, PODS);
        let started = now_ms();
        let mut decoder = WatchDecoder::new(&media_type).expect("a watch decoder");
        let mut events = Vec::with_capacity(PODS);
        for chunk in stream.chunks(CHUNK) {
            events.extend(decoder.push(chunk).expect("events"));
        }
        let decoding = now_ms() - started;
        assert_eq!(events.len(), PODS);
        let started = now_ms();
        for event in events {
            reflector.step(Input::WatchEvent { op, event }, Jitter::NONE);
        }
        let applying = now_ms() - started;
        assert_eq!(reflector.counters().events_applied, PODS as u64);
        // A second round: each event now replaces a version that came in a watch event (kept as
        // wire bytes), as in a page that watches for a while, not a decoded list item.
        let again: Vec<u8> = (0..PODS)
            .flat_map(|i| {
                let pod = numbered_pod(i, 30_000 + i);
                if name == "JSON" {
                    encode_json_event("MODIFIED", &pod)
                } else {
                    encode_cbor_event("MODIFIED", &pod, CborEncoding::SERVER)
                }
            })
            .collect();
        let mut decoder = WatchDecoder::new(&media_type).expect("a watch decoder");
        let events: Vec<_> = again.chunks(CHUNK).flat_map(|c| decoder.push(c).expect("events")).collect();
        let started = now_ms();
        for event in events {
            reflector.step(Input::WatchEvent { op, event }, Jitter::NONE);
        }
        let replacing = now_ms() - started;
        assert_eq!(reflector.counters().events_applied, 2 * PODS as u64);
        let per = |ms: f64| ms * 1000.0 / PODS as f64;
        let framing_only = if name == "JSON" {
            format!(" (framer with its decode {:.1}, decode alone {:.1})", per(framing), per(decoding_only))
        } else {
            String::new()
        };
        console_log!(
            "{}",
            format!(
                "BENCH watch {name} {:.1} MB, 10,000 events into 10,000 pods | µs per event: framed and decoded {:.1}{framing_only}, applied by the reflector {:.1} (replacing a listed pod) and {:.1} (replacing a watched version)",
                stream.len() as f64 / 1e6,
                per(decoding),
                per(applying),
                per(replacing),
            )
        );
    }
}
