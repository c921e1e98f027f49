//! Replays the fuzz seed corpus (`fuzz/corpus/<target>/*`) natively: every decoder and framer
//! runs over every corpus file, whatever target it was saved for, and none may panic; each framer
//! also gives the same events however the file is chunked (the framer fuzz targets' own check,
//! `fuzz/common/framing.rs`). CI runs this with `cargo test`; the fuzzers themselves need
//! `cargo fuzz` (see `fuzz/`).

#[path = "../../fuzz/common/framing.rs"]
mod framing;

use std::path::PathBuf;

use kube_wire::body::{decode_body, decode_watch_body};
use kube_wire::codec::cbor::{decode_cbor, decode_cbor_prefix};
use kube_wire::codec::json::decode_json;
use kube_wire::codec::protobuf::{decode_envelope, decode_watch_event};
use kube_wire::codec::yaml::decode_yaml;
use kube_wire::media_type::{Accept, MediaType};
use kube_wire::view::list::RawList;
use kube_wire::view::metadata::metadata_list_from_json;
use kube_wire::watch::{CborSeqFramer, JsonFramer, ProtobufFramer, WatchDecoder};

fn corpus_files() -> Vec<PathBuf> {
    let root = kube_wire::testdata::repository_dir().join("fuzz/corpus");
    let mut files = Vec::new();
    for target in std::fs::read_dir(&root).expect("fuzz/corpus exists") {
        for file in std::fs::read_dir(target.expect("entry").path()).expect("target folder") {
            files.push(file.expect("entry").path());
        }
    }
    files.sort();
    files
}

fn every_decoder(data: &[u8]) {
    let _ = decode_json(data);
    let _ = decode_yaml(data);
    let _ = decode_cbor(data);
    let _ = decode_cbor_prefix(data);
    let _ = decode_envelope(data);
    let _ = decode_watch_event(data, 0);
    let _ = RawList::from_json(data);
    let _ = metadata_list_from_json(data);
    for content_type in
        ["application/json", "application/yaml", "application/cbor", "application/vnd.kubernetes.protobuf"]
    {
        let media_type: MediaType = content_type.parse().expect("media type");
        let _ = decode_body(&media_type, data);
        let _ = decode_watch_body(&media_type, data);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = text.parse::<MediaType>();
        let _ = Accept::parse(text);
    }
    for step in [1, 7, 4096] {
        framing::check_chunking::<JsonFramer>(data, step);
        framing::check_chunking::<CborSeqFramer>(data, step);
        framing::check_chunking::<ProtobufFramer>(data, step);
        // The typed decoders read events lazily: what they keep decodes on demand, or says why not.
        for media_type in [MediaType::json(), MediaType::cbor_seq()] {
            let mut decoder = WatchDecoder::new(&media_type).expect("a watch decoder");
            for chunk in data.chunks(step) {
                for event in decoder.push(chunk).unwrap_or_default() {
                    if let Some(object) = event.object() {
                        let _ = object.value();
                    }
                }
            }
            let _ = decoder.finish();
        }
    }
}

#[test]
fn every_decoder_survives_every_corpus_file() {
    let files = corpus_files();
    assert!(files.len() >= 20, "the seed corpus is there");
    for file in files {
        let data = std::fs::read(&file).expect("readable");
        every_decoder(&data);
        every_decoder(&data[..data.len() / 2]);
    }
}
