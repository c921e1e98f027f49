//! In-browser benchmark (not part of the test run: `scripts/bench`, which enables the `bench`
//! feature): decode time of a 10,000-pod JSON list in wasm with the `api` decoders, against the
//! browser's own `JSON.parse` of the same bytes in the same page. It reports figures; it asserts
//! only that every decoder read all 10,000 items.
#![cfg(all(target_arch = "wasm32", feature = "bench"))]

use kube_api_explorer::api::json::decode_json;
use kube_api_explorer::api::list::RawList;
use kube_api_explorer::api::metadata::metadata_list_from_json;
use kube_api_explorer::api::value::Value;
use kube_api_explorer::client::now_ms;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A real pod from the shared vectors, embedded at build time.
const POD: &str = include_str!("../../shared/kube/vectors/pod.json");
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

#[wasm_bindgen_test]
fn decode_a_10000_pod_list_against_json_parse() {
    let body = pod_list();
    let megabytes = body.len() as f64 / 1e6;
    let js_text = js_sys::JsString::from(body.as_str());
    let json_parse = best_of(3, || {
        let parsed = js_sys::JSON::parse(&String::from(js_text.clone())).expect("JSON.parse");
        let items = js_sys::Reflect::get(&parsed, &"items".into()).expect("items");
        js_sys::Array::from(&items).length() as usize
    });
    let full = best_of(3, || match decode_json(body.as_bytes()) {
        Ok(list) => list.get("items").and_then(Value::as_array).map_or(0, <[Value]>::len),
        Err(_) => 0,
    });
    let raw = best_of(3, || RawList::from_json(body.as_bytes()).map_or(0, |l| l.items.len()));
    let metadata = best_of(3, || metadata_list_from_json(body.as_bytes()).map_or(0, |l| l.items.len()));
    console_log!(
        "{}",
        format!(
            "BENCH body {megabytes:.1} MB | JSON.parse {json_parse:.0} ms | api full tree {full:.0} ms (ratio {:.2}) | raw items {raw:.0} ms (ratio {:.2}) | metadata only {metadata:.0} ms (ratio {:.2})",
            full / json_parse,
            raw / json_parse,
            metadata / json_parse
        )
    );
}
