//! The lazy list reader against the full decoder, on real serializers' bytes and on bodies it
//! must hand over.

use std::sync::Arc;

use super::*;
use crate::codec::cbor::{encode_cbor, CborEncoding};
use crate::testdata::shared_file;
use crate::watch::lazy::ObjectHead;

/// What the full decoder makes of `body`, in the lazy list's terms.
fn full(format: Format, body: &[u8]) -> Result<LazyList, String> {
    let document = match format {
        Format::Cbor => decode_cbor(body),
        _ => decode_json(body),
    }
    .map_err(|e| e.to_string())?;
    ObjectList::from_document(&document).map(LazyList::from).map_err(|e| e.to_string())
}

/// The full decoder's members of the list in `body`, its items left out (an empty array).
fn full_head(format: Format, body: &[u8]) -> Map {
    let document = match format {
        Format::Cbor => decode_cbor(body),
        _ => decode_json(body),
    }
    .expect("full");
    let Value::Object(members) = document else { panic!("not an object") };
    members
        .entries()
        .iter()
        .map(|(k, v)| {
            (k.clone(), if k == "items" && v.as_array().is_some() { Value::Array(Vec::new()) } else { v.clone() })
        })
        .collect()
}

/// The fast pass took `body` and reads it as the full decoder does (heads, trees, metadata).
#[track_caller]
fn lazily_as_in_full(format: Format, body: &[u8]) -> LazyList {
    let fast = match format {
        Format::Cbor => scan_cbor_list(body),
        _ => scan_json_list(body),
    };
    assert!(fast.is_some(), "the fast pass refused the body");
    let lazy = read_list(format, Arc::from(body)).expect("lazy");
    let full = full(format, body).expect("full");
    let head = read_list_document(format, Arc::from(body)).expect("lazy").head;
    assert_eq!(head, full_head(format, body), "the list's own members, in order");
    assert_eq!((&lazy.kind, &lazy.api_version, &lazy.metadata), (&full.kind, &full.api_version, &full.metadata));
    assert_eq!(lazy.items.len(), full.items.len());
    for (lazy_item, full_item) in lazy.items.iter().zip(&full.items) {
        assert!(!lazy_item.is_decoded(), "an item was decoded before it was asked for");
        assert_eq!(lazy_item.head(), full_item.head());
        assert_eq!(lazy_item.value_unkept().expect("item"), full_item.value().expect("item"));
        assert!(!lazy_item.is_decoded(), "value_unkept kept the tree");
        assert_eq!(lazy_item.value().expect("item"), full_item.value().expect("item"));
        assert!(lazy_item.is_decoded());
    }
    lazy
}

#[test]
fn a_real_pod_list_reads_lazily_as_the_full_decoder_reads_it_in_json_and_cbor() {
    let json = shared_file("kube/vectors/podlist.json");
    let lazy = lazily_as_in_full(Format::Json, &json);
    assert!(!lazy.items.is_empty());
    assert_eq!(lazy.items[0].head().kind, None, "list items carry no kind of their own");
    lazily_as_in_full(Format::Cbor, &shared_file("kube/vectors/podlist.cbor"));

    let source = shared_file("kube/cbor/podlist_kube-system.source.json");
    let lazy = lazily_as_in_full(Format::Json, &source);
    let heads: Vec<&ObjectHead> = lazy.items.iter().map(LazyObject::head).collect();
    assert!(heads.iter().all(|h| h.name.is_some() && h.namespace.as_deref() == Some("kube-system") && h.uid.is_some()));
    let cbor = lazily_as_in_full(Format::Cbor, &shared_file("kube/cbor/podlist_kube-system.cbor"));
    assert_eq!(cbor.items.len(), lazy.items.len());
    assert_eq!(cbor.metadata, lazy.metadata);
}

#[test]
fn items_keep_their_bytes_in_the_shared_body_and_report_errors_at_their_offset_in_it() {
    let body = br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c1","remainingItemCount":3},
        "items":[{"metadata":{"name":"a","namespace":"n","uid":"u1","resourceVersion":"5"}},
                 {"metadata":{"name":"b"},"spec":{"x":"\ud800"}}]}"#;
    let list = read_list(Format::Json, Arc::from(&body[..])).expect("list");
    assert_eq!(list.metadata.resource_version.as_ref().map(|v| v.as_str()), Some("7"));
    assert_eq!(list.metadata.continue_token.as_ref().map(|t| t.as_str()), Some("c1"));
    assert_eq!(list.metadata.remaining_item_count, Some(3));
    assert_eq!(list.items[0].head().name.as_deref(), Some("a"));
    assert_eq!(list.items[0].head().resource_version.as_deref(), Some("5"));
    let second = &list.items[1];
    assert_eq!(second.head().name.as_deref(), Some("b"));
    let text = std::str::from_utf8(body).unwrap();
    let start = text.find(r#"{"metadata":{"name":"b"}"#).unwrap();
    assert_eq!(second.wire_len(), text.len() - start - 2);
    // The lone surrogate, skipped at first, is reported when the item is opened, at its offset
    // in the whole body (as the full decoder reports it).
    let error = second.value().expect_err("a lone surrogate");
    let whole = decode_json(body).expect_err("the full decoder refuses it too");
    assert_eq!(error.offset, whole.offset, "{error} vs {whole}");
}

#[test]
fn bodies_the_fast_pass_does_not_take_get_the_full_decoders_answer() {
    let cases: &[&[u8]] = &[
        // Not a list, a repeated member, an item that is no object, trailing bytes, bad syntax,
        // items of the wrong type, a metadata of the wrong type.
        br#"{"kind":"Pod","items":[]}"#,
        br#"{"kind":"PodList","items":[],"items":[{"metadata":{"name":"x"}}]}"#,
        br#"{"kind":"PodList","items":[1]}"#,
        br#"{"kind":"PodList","items":[]} x"#,
        br#"{"kind":"PodList","items":[{]}"#,
        br#"{"kind":"PodList","items":{}}"#,
        br#"{"kind":"PodList","metadata":[]}"#,
        b"{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"\xff\"}}]}",
    ];
    for body in cases {
        let lazy =
            read_list(Format::Json, Arc::from(*body)).map(|l| (l.kind, l.items.len())).map_err(|e| e.to_string());
        let full = full(Format::Json, body).map(|l| (l.kind, l.items.len()));
        assert_eq!(lazy, full, "{}", String::from_utf8_lossy(body));
    }
    // A repeated member: the last one wins in JSON, as in the full decoder.
    let repeated = read_list(Format::Json, Arc::from(cases[1])).expect("list");
    assert_eq!(repeated.items[0].head().name.as_deref(), Some("x"));
    // `items: null` and no items at all are an empty list, taken by the fast pass.
    for body in [&br#"{"kind":"PodList","items":null}"#[..], br#"{"kind":"PodList"}"#] {
        assert!(scan_json_list(body).is_some());
        assert!(read_list(Format::Json, Arc::from(body)).expect("list").items.is_empty());
    }
}

#[test]
fn cbor_bodies_the_fast_pass_does_not_take_get_the_full_decoders_answer() {
    let encode = |json: &str| encode_cbor(&decode_json(json.as_bytes()).unwrap(), CborEncoding::SERVER);
    let good = encode(
        r#"{"kind":"PodList","metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}"#,
    );
    let lazy = lazily_as_in_full(Format::Cbor, &good);
    assert_eq!(lazy.items.iter().map(|i| i.head().name.clone().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
    let mut trailing = good.clone();
    trailing.push(0);
    let mut cut = good.clone();
    cut.truncate(good.len() - 3);
    for body in [encode(r#"{"kind":"PodList","items":[1]}"#), encode(r#"{"kind":"Pod"}"#), trailing, cut] {
        assert!(scan_cbor_list(&body).is_none());
        let lazy = read_list(Format::Cbor, Arc::from(&body[..])).map(|l| l.items.len()).map_err(|e| e.to_string());
        let full = full(Format::Cbor, &body).map(|l| l.items.len());
        assert_eq!(lazy, full);
    }
}

#[test]
fn a_table_is_not_read_as_lazy_items() {
    let table = br#"{"kind":"PodList","items":[{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[]}]}"#;
    assert!(scan_json_list(table).is_none());
    let list = read_list(Format::Json, Arc::from(&table[..])).expect("list");
    assert!(list.items[0].table().is_some());
}

#[test]
fn a_lists_own_members_are_kept_in_their_order_for_its_document_whoever_reads_it() {
    // Members the list types do not have (a server or proxy may add them) stay where they came,
    // with their values; a repeated one keeps its first place and its last value (JSON).
    let body = br#"{"kind":"PodList","x-extra":{"a":[1,2]},"apiVersion":"v1","metadata":{"resourceVersion":"9"},
        "items":[{"metadata":{"name":"a"}}],"trailer":"t","x-extra":"last"}"#;
    let document = read_list_document(Format::Json, Arc::from(&body[..])).expect("list");
    let keys: Vec<&str> = document.head.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["kind", "x-extra", "apiVersion", "metadata", "items", "trailer"]);
    assert_eq!(document.head.get("x-extra").and_then(Value::as_str), Some("last"));
    assert_eq!(document.head.get("items"), Some(&Value::Array(Vec::new())));
    assert_eq!(document.list.items.len(), 1);
    assert_eq!(document.head, full_head(Format::Json, body));
    // The same members from CBOR, through the fast pass.
    let cbor = encode_cbor(
        &decode_json(
            br#"{"kind":"PodList","x":{"b":true},"metadata":{},"items":[{"metadata":{"name":"a"}}],"z":null}"#,
        )
        .unwrap(),
        CborEncoding::SERVER,
    );
    assert!(scan_cbor_list(&cbor).is_some());
    let document = read_list_document(Format::Cbor, Arc::from(&cbor[..])).expect("list");
    assert_eq!(document.head, full_head(Format::Cbor, &cbor));
    assert_eq!(document.head.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["kind", "x", "metadata", "items", "z"]);
    // `items: null` stays null; a body only the full decoder takes gives its members too.
    let null = read_list_document(Format::Json, Arc::from(&br#"{"kind":"PodList","items":null}"#[..])).expect("list");
    assert_eq!(null.head.get("items"), Some(&Value::Null));
    let table = br#"{"kind":"PodList","v":1,"items":[{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[]}]}"#;
    assert!(scan_json_list(table).is_none());
    let document = read_list_document(Format::Json, Arc::from(&table[..])).expect("list");
    assert_eq!(document.head, full_head(Format::Json, table));
}
