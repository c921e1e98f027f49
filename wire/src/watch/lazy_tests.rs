use std::sync::Arc;

use crate::codec::cbor::decode_cbor;
use crate::codec::cbor::CborEncoding;
use crate::codec::json::decode_json;
use crate::codec::value::Value;
use crate::error::Format;
use crate::media_type::MediaType;
use crate::testdata::{dechunked_body, real_apiserver_body, shared_file};
use crate::watch::fast::*;
use crate::watch::fast_cbor::scan_cbor_event;
use crate::watch::lazy::*;
use crate::watch::object::watched_object;
use crate::watch::{encode_cbor_event, CborSeqFramer, Framer, JsonFramer, StreamError, WatchDecoder, WatchEvent};

/// The events of a stream read as before lazy decoding: each decoded in full, then typed.
fn fully(format: Format, bytes: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
    let documents = match format {
        Format::Cbor => CborSeqFramer::new().push(bytes)?,
        _ => JsonFramer::new().push(bytes)?,
    };
    documents
        .into_iter()
        .enumerate()
        .map(|(i, d)| WatchEvent::from_value(d).map_err(|source| StreamError::Event { event: i + 1, source }))
        .collect()
}

fn lazily(format: Format, bytes: &[u8]) -> Result<Vec<WatchEvent>, StreamError> {
    let content_type = if format == Format::Cbor { MediaType::cbor_seq() } else { MediaType::json() };
    let mut decoder = WatchDecoder::new(&content_type).expect("decoder");
    let events = decoder.push(bytes)?;
    decoder.finish()?;
    Ok(events)
}

fn streams() -> Vec<(Format, String, Vec<u8>)> {
    let mut streams = Vec::new();
    for name in [
        "kube/vectors/watch.jsonl",
        "kube/cbor/foobar_watch.source.jsonl",
        "kube/cbor/watch_pods.source.jsonl",
        "kube/cbor/watch_pods_sendInitialEvents.source.jsonl",
    ] {
        streams.push((Format::Json, name.to_string(), shared_file(name)));
    }
    for name in [
        "61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt",
        "65-watch-rv-too-old-410-in-stream.txt",
        "67-watch-table.txt",
    ] {
        streams.push((Format::Json, name.to_string(), real_apiserver_body(name)));
    }
    let raw = shared_file("kube/recordings/client-go/dynamic-testdata/TestGoldenResponse/responses/events");
    streams.push((Format::Json, "client-go events".to_string(), dechunked_body(&raw).0));
    for name in [
        "kube/vectors/watch.cborseq",
        "kube/cbor/foobar_watch.cbor-seq",
        "kube/cbor/watch_pods.cbor-seq",
        "kube/cbor/watch_pods_sendInitialEvents.cbor-seq",
    ] {
        streams.push((Format::Cbor, name.to_string(), shared_file(name)));
    }
    streams.push((Format::Cbor, "69-watch-cbor.txt".to_string(), real_apiserver_body("69-watch-cbor.txt")));
    streams
}

#[test]
fn every_recorded_stream_reads_lazily_as_it_decodes_in_full() {
    let mut fast = 0;
    for (format, name, bytes) in streams() {
        let lazy = lazily(format, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Every ADDED, MODIFIED and DELETED event took the fast pass: nothing decoded yet.
        for event in &lazy {
            if let Some(object) = event.object() {
                assert!(!object.is_decoded() && object.wire_len() > 0, "{name}: {event:?}");
                fast += 1;
            }
        }
        // The same heads, Table parts and (decoded now) trees as the full decoder's.
        assert_eq!(lazy, fully(format, &bytes).expect("full"), "{name}");
    }
    assert!(fast > 40, "{fast} events took the fast pass");
}

/// The events of `bytes` fed to a decoder in chunks of `sizes` (cycled), each as its debug
/// text (heads, Table parts, wire lengths: nothing decoded), or the error that ended them.
fn chunked(format: Format, bytes: &[u8], sizes: &[usize]) -> Result<Vec<String>, StreamError> {
    let content_type = if format == Format::Cbor { MediaType::cbor_seq() } else { MediaType::json() };
    let mut decoder = WatchDecoder::new(&content_type).expect("decoder");
    let mut events = Vec::new();
    let mut at = 0;
    for size in sizes.iter().cycle() {
        if at >= bytes.len() {
            break;
        }
        let end = (at + size).min(bytes.len());
        events.extend(decoder.push(&bytes[at..end])?.iter().map(|e| format!("{e:?}")));
        at = end;
    }
    decoder.finish()?;
    Ok(events)
}

#[test]
fn a_stream_reads_to_the_same_events_however_it_is_cut_into_chunks() {
    // The fast pass reads whole events from their first byte; an event cut by a chunk's end
    // is left to the framer, which finds its end in later chunks: nothing lost or repeated.
    for (format, name, bytes) in streams() {
        let whole = chunked(format, &bytes, &[bytes.len()]).unwrap_or_else(|e| panic!("{name}: {e}"));
        for sizes in [&[1][..], &[2], &[3], &[7], &[64], &[333], &[4096], &[1, 500, 13, 2048]] {
            assert_eq!(chunked(format, &bytes, sizes).as_ref(), Ok(&whole), "{name} in chunks of {sizes:?}");
        }
        if bytes.len() <= 16 * 1024 {
            for cut in 1..bytes.len() {
                let two = chunked(format, &bytes, &[cut, bytes.len()]);
                assert_eq!(two.as_ref(), Ok(&whole), "{name} cut at {cut}");
            }
        }
    }
    // A malformed event gets the same error (event number and stream offset) at any cut.
    let good = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a","resourceVersion":"1"}}"#);
    let bad = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"},"spec":{"c":[{"name":"c",}]}}"#);
    let stream = [good.clone(), good, bad].concat();
    let error = chunked(Format::Json, &stream, &[stream.len()]).expect_err("malformed");
    for size in 1..stream.len() {
        assert_eq!(chunked(Format::Json, &stream, &[size]).as_ref(), Err(&error), "chunks of {size}");
    }
    let mut repeated = cbor_event(Value::Int(1), CborEncoding::SERVER);
    // `spec` renamed `kind`: the object has that key twice.
    let spec = repeated.windows(4).position(|w| w == b"spec").expect("key spec");
    repeated[spec..spec + 4].copy_from_slice(b"kind");
    let stream = [cbor_event(Value::Int(2), CborEncoding::SERVER), repeated].concat();
    let error = chunked(Format::Cbor, &stream, &[stream.len()]).expect_err("a repeated key");
    assert!(error.to_string().starts_with("event 2: "), "{error}");
    for size in 1..stream.len() {
        assert_eq!(chunked(Format::Cbor, &stream, &[size]).as_ref(), Err(&error), "chunks of {size}");
    }
}

#[test]
fn an_object_is_decoded_once_on_demand() {
    let events = lazily(Format::Json, &shared_file("kube/vectors/watch.jsonl")).expect("events");
    let object = events[0].object().expect("an object");
    assert!(!object.is_decoded());
    let first = object.value().expect("tree");
    assert!(object.is_decoded());
    assert!(Arc::ptr_eq(&first, &object.value().expect("tree")));
    assert_eq!(object.head(), &ObjectHead::of(&first));
    assert_eq!(object.head().name.as_deref(), Some("web-7d4b9c8f5-x2x9q"));
    assert_eq!(object.head().creation_timestamp.as_deref(), Some("2024-05-01T12:00:00Z"));
}

/// Checks that the fast pass over `event` either refuses it or reads what the full decoder
/// reads: a fast pass that accepted what the full decoder refuses would keep a malformed
/// object.
#[track_caller]
fn check_against_full(format: Format, event: &[u8], at: usize) {
    let (fast, full) = match format {
        Format::Cbor => (scan_cbor_event(event, 0), decode_cbor(event)),
        _ => (scan_json_event(event, 0), decode_json(event)),
    };
    let Some(fast) = fast else { return };
    let full = full.unwrap_or_else(|e| panic!("{format} change at byte {at}: fast pass took what fails: {e}"));
    let object = full.get("object").expect("an object");
    assert_eq!(fast.object.value().as_deref(), Ok(object), "{format} change at byte {at}");
    assert_eq!(fast.object.head(), &ObjectHead::of(watched_object(object)), "{format} change at byte {at}");
    assert_eq!(fast.object, LazyObject::from_value(object.clone()), "{format} change at byte {at}");
}

#[test]
fn every_one_byte_change_of_an_event_is_refused_or_read_as_the_full_decoder_reads_it() {
    let jsonl = shared_file("kube/vectors/watch.jsonl");
    let table = real_apiserver_body("67-watch-table.txt");
    let json_events: Vec<&[u8]> = [&jsonl[..], &table[..]]
        .into_iter()
        .flat_map(|stream| stream.split(|b| *b == b'\n').find(|l| !l.is_empty()))
        .collect();
    for event in json_events {
        for at in 0..event.len() {
            for byte in [b'"', b'{', b'}', b']', b',', b'\\', b'x', 0xff] {
                let mut changed = event.to_vec();
                changed[at] = byte;
                check_against_full(Format::Json, &changed, at);
            }
        }
    }
    let cborseq = shared_file("kube/vectors/watch.cborseq");
    let (first, used) = crate::codec::cbor::decode_cbor_prefix(&cborseq).expect("an item");
    assert!(first.get("object").is_some());
    let event = &cborseq[..used];
    for at in 0..event.len() {
        for byte in [0x00, 0x18, 0x1f, 0x41, 0x5f, 0x61, 0x7f, 0x9f, 0xa2, 0xbf, 0xc2, 0xd6, 0xd9, 0xf7, 0xfb, 0xff] {
            let mut changed = event.to_vec();
            changed[at] = byte;
            check_against_full(Format::Cbor, &changed, at);
        }
    }
}

fn json_event(object: &str) -> Vec<u8> {
    format!("{{\"type\":\"MODIFIED\",\"object\":{object}}}\n").into_bytes()
}

#[test]
fn a_malformed_json_object_is_reported_at_arrival_naming_the_event_and_the_byte() {
    let good = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a","resourceVersion":"1"}}"#);
    let bad = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"},"spec":{"containers":[{"name":"c",}]}}"#);
    let stream = [good.clone(), bad].concat();
    let error = lazily(Format::Json, &stream).expect_err("malformed");
    let at = stream.windows(2).position(|w| w == b",}").expect("the stray comma") + 1;
    assert_eq!(
        error.to_string(),
        format!("event 2: invalid JSON: expected another member or element after ',', found '}}' at byte {at}")
    );
    assert_eq!(stream[at], b'}');
    assert_eq!(Err(error), fully(Format::Json, &stream));
    // Invalid UTF-8 in a string the fast pass would skip is refused at arrival too.
    let mut bytes = json_event(r#"{"kind":"Pod","metadata":{"name":"c"},"spec":{"note":"x"}}"#);
    let x = bytes.iter().rposition(|b| *b == b'x').expect("x");
    bytes[x] = 0xff;
    let error = lazily(Format::Json, &bytes).expect_err("not UTF-8");
    assert!(error.to_string().starts_with("event 1: invalid JSON: "), "{error}");
    assert_eq!(Err(error), fully(Format::Json, &bytes));
}

#[test]
fn the_json_fast_pass_reads_an_event_from_its_first_byte_and_says_where_it_ends() {
    let first = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a","resourceVersion":"7"}}"#);
    let second = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"}}"#);
    let stream = [first.clone(), second].concat();
    // The event, and its length up to its closing brace (not the newline or what follows).
    let (len, event) = scan_json_prefix(&stream, 100).expect("a whole event");
    assert_eq!(len, first.len() - 1);
    let event = event.expect("a MODIFIED event with an object");
    assert_eq!(event.event_type, FastType::Modified);
    assert_eq!(event.object.head().resource_version.as_deref(), Some("7"));
    assert_eq!(event.object.wire_len(), len);
    // An event the chunk cuts short is left to the framer, at every cut.
    for cut in 1..first.len() - 1 {
        assert!(scan_json_prefix(&first[..cut], 0).is_none(), "cut at {cut}");
    }
    // A whole event the fast pass does not take (a BOOKMARK) still has its end found.
    let bookmark = br#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}{"#;
    assert_eq!(scan_json_prefix(bookmark, 0).map(|(len, e)| (len, e.is_none())), Some((bookmark.len() - 1, true)));
    // Malformed JSON, or invalid UTF-8 in a string the pass skips, is left to the framer and
    // the full decoder (whose errors are the ones reported).
    assert!(scan_json_prefix(br#"{"type":"ADDED","object":{"a":1,}}"#, 0).is_none());
    let mut bytes = json_event(r#"{"kind":"Pod","metadata":{"name":"c"},"spec":{"note":"x"}}"#);
    let x = bytes.iter().rposition(|b| *b == b'x').expect("x");
    bytes[x] = 0xff;
    assert!(scan_json_prefix(&bytes, 0).is_none());
}

#[test]
fn a_lone_surrogate_escape_in_a_skipped_json_string_is_reported_when_the_object_is_decoded() {
    let good = json_event(r#"{"kind":"Pod","metadata":{"name":"a","uid":"u-a"}}"#);
    let odd = json_event(r#"{"kind":"Pod","metadata":{"name":"b","uid":"u-b"},"spec":{"note":"\ud800"}}"#);
    let stream = [good.clone(), odd.clone()].concat();
    let events = lazily(Format::Json, &stream).expect("the syntax is valid: both events arrive");
    let object = events[1].object().expect("an object");
    assert_eq!(object.head().uid.as_deref(), Some("u-b"));
    let error = object.value().expect_err("a lone surrogate is not text");
    let full = decode_json(&odd).expect_err("the full decoder refuses it");
    assert_eq!(error, full.clone().shifted(good.len()), "the offset is the stream's");
    assert!(error.to_string().starts_with("invalid JSON: expected "), "{error}");
}

#[test]
fn the_cbor_fast_pass_reads_an_event_from_its_first_byte_and_says_where_it_ends() {
    let event = cbor_event(Value::Int(1), CborEncoding::SERVER);
    let stream = [event.clone(), event.clone()].concat();
    let (len, fast) = crate::watch::fast_cbor::scan_cbor_prefix(&stream, 40).expect("a whole event");
    assert_eq!(len, event.len());
    let fast = fast.expect("an ADDED event with an object");
    assert_eq!(fast.event_type, FastType::Added);
    assert_eq!(fast.object.head().uid.as_deref(), Some("u-p"));
    assert_eq!(fast.object.wire_len(), event.len());
    for cut in 0..event.len() {
        assert!(crate::watch::fast_cbor::scan_cbor_prefix(&event[..cut], 0).is_none(), "cut at {cut}");
    }
    // A whole event the fast pass does not take still has its end found.
    let object = decode_json(br#"{"kind":"Pod","metadata":{"resourceVersion":"9"}}"#).expect("json");
    let bookmark = encode_cbor_event("BOOKMARK", &object, CborEncoding::SERVER);
    let read = crate::watch::fast_cbor::scan_cbor_prefix(&[bookmark.clone(), event].concat(), 0);
    assert_eq!(read.map(|(len, fast)| (len, fast.is_none())), Some((bookmark.len(), true)));
}

/// A server-form CBOR event whose `spec` is `spec`.
fn cbor_event(spec: Value, encoding: CborEncoding) -> Vec<u8> {
    let object = decode_json(br#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","uid":"u-p"}}"#);
    let Ok(Value::Object(mut object)) = object else { panic!("an object") };
    object.insert("spec", spec);
    encode_cbor_event("ADDED", &Value::Object(object), encoding)
}

#[test]
fn a_cbor_object_breaking_the_kubernetes_rules_is_refused_at_arrival() {
    let spec = decode_json(br#"{"aa":1,"ab":"xyz"}"#).expect("json");
    let good = cbor_event(spec.clone(), CborEncoding::CLIENT);
    assert!(lazily(Format::Cbor, &good).is_ok_and(|events| events[0].object().is_some_and(|o| !o.is_decoded())));
    // A repeated key deep in the object, in a member the fast pass steps over: the event arrives
    // (as a JSON event with a lone surrogate there does) and the key is found when the object is
    // decoded, in the full decoder's words, at its offset in the stream.
    let mut repeated = good.clone();
    let key = repeated.windows(3).rposition(|w| w[1..] == *b"ab" && (w[0] == 0x62 || w[0] == 0x42)).expect("key ab");
    repeated[key + 2] = b'a';
    let arrived = lazily(Format::Cbor, &repeated).expect("the event arrives");
    let object = arrived[0].object().expect("an object");
    assert_eq!(object.head().uid.as_deref(), Some("u-p"));
    let error = object.value().expect_err("a repeated key");
    assert_eq!(
        error.to_string(),
        format!("invalid CBOR: expected unique map keys, found key \"aa\" again at byte {key}")
    );
    let whole = fully(Format::Cbor, &repeated).expect_err("the full decoder refuses it");
    assert!(whole.to_string().contains(&error.to_string()), "{whole}");
    // A repeated key where the fast pass reads (the object's own members) is refused at arrival.
    let mut top = good.clone();
    let spec = top.windows(5).position(|w| w[1..] == *b"spec").expect("key spec");
    top[spec + 1..spec + 5].copy_from_slice(b"kind");
    let error = lazily(Format::Cbor, &top).expect_err("a repeated key");
    assert!(error.to_string().contains("expected unique map keys, found key \"kind\" again"), "{error}");
    assert_eq!(Err(error), fully(Format::Cbor, &top));
    // Invalid UTF-8 in a text string the fast pass skips.
    let mut text = good.clone();
    let at = text.windows(3).rposition(|w| w == b"xyz").expect("xyz");
    text[at - 1] = 0x63; // a text string of 3 bytes, whatever string type the encoding used
    text[at + 1] = 0xff;
    let error = lazily(Format::Cbor, &text).expect_err("not UTF-8");
    assert_eq!(
        error.to_string(),
        format!(
            "event 1: invalid CBOR: expected valid UTF-8 in a text string, found an invalid byte sequence at byte {}",
            at + 1
        )
    );
    assert_eq!(Err(error), fully(Format::Cbor, &text));
    // What the rules allow deep in an object is read as the full decoder reads it.
    for spec in [Value::Bytes(vec![1, 2]), Value::Int(i64::MIN), Value::Float(0.5), Value::Null, Value::Bool(true)] {
        let bytes = cbor_event(spec, CborEncoding::SERVER);
        assert_eq!(lazily(Format::Cbor, &bytes), fully(Format::Cbor, &bytes));
    }
    // A bignum (tag 2) where an integer was.
    let mut bignum = cbor_event(Value::Int(7), CborEncoding::CLIENT);
    let seven = bignum.iter().rposition(|b| *b == 0x07).expect("7");
    bignum.splice(seven..=seven, [0xc2, 0x41, 0x07]);
    let error = lazily(Format::Cbor, &bignum).expect_err("a bignum");
    assert!(error.to_string().contains("expected an integer within int64, found a bignum"), "{error}");
    assert_eq!(Err(error), fully(Format::Cbor, &bignum));
}

#[test]
fn a_lazy_object_debugs_as_its_head_and_what_it_keeps_not_its_bytes() {
    let events = lazily(Format::Json, &shared_file("kube/vectors/watch.jsonl")).expect("events");
    let wire = events[0].object().expect("an object");
    let text = format!("{wire:?}");
    assert!(text.starts_with("LazyObject { head: ObjectHead { kind: Some(\"Pod\")"), "{text}");
    assert!(text.contains("name: Some(\"web-7d4b9c8f5-x2x9q\")"), "{text}");
    assert!(text.ends_with(&format!("table: None, wire: JSON, {} bytes }}", wire.wire_len())), "{text}");
    let tree = LazyObject::from_value(decode_json(br#"{"kind":"Pod","metadata":{"name":"a"}}"#).expect("json"));
    let text = format!("{tree:?}");
    assert!(text.starts_with("LazyObject { head: ObjectHead { kind: Some(\"Pod\")"), "{text}");
    assert!(text.contains("table: None, tree: "), "{text}");
    let body =
        br#"{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"kind":"Pod","metadata":{"name":"b"}}]}"#;
    let list = crate::watch::lazy_list::read_list(Format::Json, Arc::from(&body[..])).expect("a list");
    let item = &list.items[0];
    assert!(format!("{item:?}").contains("slice: JSON, bytes "), "{item:?}");
}

#[test]
fn lazy_objects_are_equal_when_their_heads_table_parts_and_trees_are() {
    let events = lazily(Format::Json, &shared_file("kube/vectors/watch.jsonl")).expect("events");
    let wire = events[0].object().expect("an object");
    let tree = LazyObject::from_value((*wire.value().expect("a tree")).clone());
    assert_eq!(wire, &tree, "read from the wire or decoded already: the same object");
    let later = events[1].object().expect("an object");
    assert_ne!(wire, later, "the same pod at another resourceVersion");
    // A Table whose column definitions were taken is another object, though its head and
    // tree are the same.
    let table = real_apiserver_body("67-watch-table.txt");
    let events = lazily(Format::Json, &table).expect("events");
    let with_columns = events
        .iter()
        .filter_map(WatchEvent::object)
        .find(|o| o.table().is_some_and(|t| t.columns.is_some()))
        .expect("an event with column definitions");
    let mut without = with_columns.clone();
    assert!(without.take_columns().is_some());
    assert_eq!((without.head(), without.value()), (with_columns.head(), with_columns.value()));
    assert_ne!(with_columns, &without);
}
