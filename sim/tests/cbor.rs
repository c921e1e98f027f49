//! CBOR as the real server speaks it: responses in the server form (tag 55799, byte strings,
//! shuffled keys, `[]byte` as tag 22), CBOR Status errors, CBOR request bodies with or without
//! the tag, apply-patch+cbor, CBOR watch sequences, and 406 for a CBOR Table or discovery.

mod common;

use common::{json_of, recorded_status, Sim};
use kube_wire::codec::cbor::{decode_cbor, encode_cbor, CborEncoding};
use kube_wire::codec::value::Value as Doc;
use kube_wire::watch::{CborSeqFramer, Framer};

async fn cbor_get(sim: &Sim, path: &str) -> (u16, String, Vec<u8>) {
    let resp = sim.get_with(path, "application/cbor").await;
    let code = resp.status().as_u16();
    let ct = resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    (code, ct, resp.bytes().await.expect("body").to_vec())
}

#[tokio::test]
async fn objects_and_lists_in_the_server_form_with_shuffled_keys() {
    let sim = Sim::start(&[]);
    let path = "/apis/example.com/v1/namespaces/default/widgets/w-01";
    let (code, ct, bytes) = cbor_get(&sim, path).await;
    assert_eq!((code, ct.as_str()), (200, "application/cbor"));
    assert_eq!(&bytes[..3], &[0xd9, 0xd9, 0xf7], "self-described tag first");
    let doc = decode_cbor(&bytes).expect("valid Kubernetes CBOR");
    let (_, json) = sim.get_json(path).await;
    assert_eq!(doc.to_serde_json(), json, "the same object as the JSON form");
    let mut differs = false;
    for _ in 0..8 {
        let (_, _, again) = cbor_get(&sim, path).await;
        if again != bytes {
            differs = true;
            break;
        }
    }
    assert!(differs, "key order changes between identical requests");
    let (code, _, list) = cbor_get(&sim, "/api/v1/namespaces/shop/secrets").await;
    assert_eq!(code, 200);
    let list = decode_cbor(&list).expect("list decodes");
    let data = list
        .get("items")
        .and_then(|i| i.as_array())
        .and_then(|a| a.first())
        .and_then(|s| s.get("data"))
        .and_then(|d| d.get("username"))
        .cloned();
    assert_eq!(data, Some(Doc::Bytes(b"cart".to_vec())), "Secret data is tag-22 bytes");
}

#[tokio::test]
async fn recorded_cbor_exchanges_replay_with_the_same_status_and_type() {
    let sim = Sim::start(&[]);
    for file in [
        "52-cbor-table-406.txt",
        "54-cbor-error-status-404.txt",
        "56-cbor-create-without-self-describe-tag.txt",
        "77-ssa-apply-patch+cbor.txt",
    ] {
        let resp = sim.replay(file).await;
        assert_eq!(resp.status().as_u16(), recorded_status(file), "{file}");
        let ct = resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        let bytes = resp.bytes().await.expect("body");
        if ct == "application/cbor" {
            let status = decode_cbor(&bytes).expect("CBOR Status");
            assert_eq!(status.get("kind").and_then(|k| k.as_str()), Some("Status"), "{file}");
            assert_eq!(status.get("code").and_then(|k| k.as_i64()), Some(404), "{file}");
        } else {
            assert_eq!(ct, "application/json", "{file}");
        }
    }
    let widget = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w-cbor"}, "spec": {"size": "small"}});
    let body = encode_cbor(&Doc::from_serde_json(&widget), CborEncoding::SERVER);
    let resp = sim.send("POST", "/apis/example.com/v1/namespaces/default/widgets", "application/cbor", body).await;
    assert_eq!(resp.status().as_u16(), 201, "a CBOR create with the 55799 tag");
    let resp = sim.replay("58-cbor-merge-patch-body.txt").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/cbor");
    let patched = decode_cbor(&resp.bytes().await.expect("body")).expect("decodes");
    assert_eq!(patched.get("spec").and_then(|s| s.get("color")).and_then(|c| c.as_str()), Some("green"));
    let (code, _, _) = cbor_get(&sim, "/apis").await;
    assert_eq!(code, 406, "discovery is not served as CBOR");
}

#[tokio::test]
async fn cbor_watch_is_a_cbor_sequence_of_tagged_events() {
    let sim = Sim::start(&[]);
    let resp = sim.replay("69-watch-cbor.txt").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/cbor-seq");
    let mut resp = resp;
    let mut framer = CborSeqFramer::new();
    let mut events = Vec::new();
    while events.len() < 2 {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(30), resp.chunk())
            .await
            .expect("an event within 30 s")
            .expect("stream ok")
            .expect("stream open");
        events.extend(framer.push(&chunk).expect("valid CBOR sequence"));
    }
    assert_eq!(events[0].get("type").and_then(|t| t.as_str()), Some("ADDED"));
    let name =
        events[0].get("object").and_then(|o| o.get("metadata")).and_then(|m| m.get("name")).and_then(|n| n.as_str());
    assert_eq!(name, Some("w-01"));
    assert_eq!(events[1].get("type").and_then(|t| t.as_str()), Some("BOOKMARK"));
    let (code, _) = json_of(sim.get("/version").await).await;
    assert_eq!(code, 200);
}
