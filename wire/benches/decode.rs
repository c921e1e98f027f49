//! Decode throughput on a 10,000-pod PodList (realistic pods from the recordings, each renamed,
//! managedFields dropped) in JSON, YAML and CBOR; the large-list fast paths (raw items, metadata
//! only); and watch framing of 10,000 events. A benchmark reports figures; it asserts nothing.
//!
//! Run with `cargo bench -p kube-wire --bench decode`. Native only (criterion does not build for wasm32).

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::benches();
    criterion::Criterion::default().configure_from_args().final_summary();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::hint::black_box;
    use std::sync::Arc;

    use criterion::{Criterion, Throughput};
    use kube_wire::codec::cbor::{decode_cbor, encode_cbor, CborEncoding};
    use kube_wire::codec::json::decode_json;
    use kube_wire::codec::value::{Map, Value};
    use kube_wire::codec::yaml::{decode_yaml, encode_yaml};
    use kube_wire::error::Format;
    use kube_wire::media_type::MediaType;
    use kube_wire::view::list::RawList;
    use kube_wire::view::metadata::metadata_list_from_json;
    use kube_wire::watch::lazy_list::scan_list;
    use kube_wire::watch::{encode_cbor_event, encode_json_event, CborSeqFramer, Framer, JsonFramer, WatchDecoder};

    const PODS: usize = 10_000;
    const CHUNK: usize = 16 * 1024;

    fn shared(relative: &str) -> Vec<u8> {
        kube_wire::testdata::shared_file(relative)
    }

    /// The recorded pods (kind cluster kube-system and the vector list), renamed to `count` pods.
    fn pods(count: usize) -> Vec<Value> {
        let mut recorded = Vec::new();
        for file in ["kube/cbor/podlist_kube-system.source.json", "kube/vectors/podlist.json"] {
            let list = decode_json(&shared(file)).expect("recorded list");
            recorded.extend(list.get("items").and_then(Value::as_array).expect("items").iter().cloned());
        }
        (0..count)
            .map(|i| {
                let mut pod = recorded[i % recorded.len()].clone();
                if let Value::Object(map) = &mut pod {
                    if let Some(Value::Object(meta)) = map.get("metadata").cloned() {
                        let mut meta = meta;
                        meta.insert("name", Value::String(format!("pod-{i:05}")));
                        meta.insert("uid", Value::String(format!("00000000-0000-4000-8000-{i:012}")));
                        meta.insert("resourceVersion", Value::String((100_000 + i).to_string()));
                        // managedFields dropped to come closer to the issue's ~20 MB (42 MB: the recorded
                        // kube-system pods average 4 KB even without them).
                        meta.remove("managedFields");
                        map.insert("metadata", Value::Object(meta));
                    }
                }
                pod
            })
            .collect()
    }

    fn pod_list(items: Vec<Value>) -> Value {
        let mut meta = Map::new();
        meta.insert("resourceVersion", Value::String("200000".into()));
        let mut list = Map::new();
        list.insert("kind", Value::String("PodList".into()));
        list.insert("apiVersion", Value::String("v1".into()));
        list.insert("metadata", Value::Object(meta));
        list.insert("items", Value::Array(items));
        Value::Object(list)
    }

    pub fn benches() {
        let items = pods(PODS);
        let list = pod_list(items.clone());
        let json = list.to_json().into_bytes();
        let yaml = encode_yaml(&list).expect("yaml");
        let cbor = encode_cbor(&list, CborEncoding::SERVER.shuffled(7));
        let json_events: Vec<u8> = items.iter().flat_map(|p| encode_json_event("MODIFIED", p)).collect();
        let cbor_events: Vec<u8> =
            items.iter().flat_map(|p| encode_cbor_event("MODIFIED", p, CborEncoding::SERVER)).collect();
        eprintln!(
            "PodList of {PODS} pods: JSON {:.1} MB, YAML {:.1} MB, CBOR {:.1} MB; watch of {PODS} events: JSON {:.1} MB, CBOR {:.1} MB",
            json.len() as f64 / 1e6,
            yaml.len() as f64 / 1e6,
            cbor.len() as f64 / 1e6,
            json_events.len() as f64 / 1e6,
            cbor_events.len() as f64 / 1e6
        );

        let mut c = Criterion::default().sample_size(10).configure_from_args();
        let mut group = c.benchmark_group("podlist-10k");
        group.throughput(Throughput::BytesDecimal(json.len() as u64));
        group.bench_function("json tree", |b| b.iter(|| decode_json(black_box(&json)).expect("json")));
        group.bench_function("json raw items", |b| b.iter(|| RawList::from_json(black_box(&json)).expect("json")));
        group.bench_function("json metadata only", |b| {
            b.iter(|| metadata_list_from_json(black_box(&json)).expect("json"))
        });
        group.throughput(Throughput::BytesDecimal(yaml.len() as u64));
        group.bench_function("yaml tree", |b| b.iter(|| decode_yaml(black_box(&yaml)).expect("yaml")));
        let shared_json: Arc<[u8]> = json.clone().into();
        group.bench_function("json lazy list", |b| {
            b.iter(|| scan_list(Format::Json, black_box(&shared_json)).expect("json"))
        });
        group.throughput(Throughput::BytesDecimal(cbor.len() as u64));
        group.bench_function("cbor tree", |b| b.iter(|| decode_cbor(black_box(&cbor)).expect("cbor")));
        let shared_cbor: Arc<[u8]> = cbor.clone().into();
        group.bench_function("cbor lazy list", |b| {
            b.iter(|| scan_list(Format::Cbor, black_box(&shared_cbor)).expect("cbor"))
        });
        group.finish();

        let mut group = c.benchmark_group("watch-10k-events");
        group.throughput(Throughput::BytesDecimal(json_events.len() as u64));
        group.bench_function("json framing", |b| {
            b.iter(|| {
                let mut framer = JsonFramer::new();
                let n: usize = json_events.chunks(CHUNK).map(|c| framer.push(c).expect("frames").len()).sum();
                assert_eq!(n, PODS);
            })
        });
        group.bench_function("json typed events", |b| {
            b.iter(|| {
                let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
                let n: usize = json_events.chunks(CHUNK).map(|c| decoder.push(c).expect("events").len()).sum();
                assert_eq!(n, PODS);
            })
        });
        group.throughput(Throughput::BytesDecimal(cbor_events.len() as u64));
        group.bench_function("cbor-seq framing", |b| {
            b.iter(|| {
                let mut framer = CborSeqFramer::new();
                let n: usize = cbor_events.chunks(CHUNK).map(|c| framer.push(c).expect("frames").len()).sum();
                assert_eq!(n, PODS);
            })
        });
        group.finish();
    }
}
