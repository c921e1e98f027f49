use super::*;
use crate::codec::cbor::CborEncoding;
use crate::codec::json::decode_json;
use crate::codec::protobuf::ProtobufWatchEvent;
use crate::codec::value::Value;
use crate::media_type::MediaType;
use crate::testdata::{dechunked_body, real_apiserver_body, shared_file};
use crate::view::list::ResourceVersion;
use crate::view::status::StatusExt;

#[test]
fn a_recorded_table_watch_is_about_the_rows_objects_and_its_bookmark_ends_the_initial_events() {
    let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
    let events = decoder.push(&real_apiserver_body("67-watch-table.txt")).expect("frames");
    decoder.finish().expect("complete");
    assert!(events.iter().filter_map(WatchEvent::object).all(|o| o.table().is_some()));
    assert!(events.iter().filter_map(WatchEvent::object).all(|o| is_table(&o.value().expect("tree"))));
    let names: Vec<&str> =
        events.iter().filter_map(WatchEvent::object).filter_map(|o| o.head().name.as_deref()).collect();
    assert_eq!(names.first(), Some(&"w-01"));
    assert_eq!(names.iter().filter(|n| **n == "w-watch-t").count(), 3, "added, modified, deleted");
    // The first event alone carries the columns.
    let with_columns =
        events.iter().filter_map(WatchEvent::object).filter(|o| o.table().is_some_and(|t| t.columns.is_some()));
    assert_eq!(with_columns.count(), 1);
    let bookmarks: Vec<&Bookmark> = events
        .iter()
        .filter_map(|e| match e {
            WatchEvent::Bookmark(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(bookmarks.len(), 2);
    assert!(bookmarks[0].initial_events_end, "the annotation is on the row's object");
    assert_eq!(bookmarks[0].resource_version, Some(ResourceVersion::new("26")));
    assert!(!bookmarks[1].initial_events_end);
    // A uid-bearing row object: the event is about it; the Table's version is the object's.
    let deleted = events.iter().rev().find(|e| e.event_type() == "DELETED").and_then(WatchEvent::object);
    let deleted = deleted.expect("a DELETED event");
    assert_eq!(deleted.head().uid.as_deref(), Some("3b94c478-72bb-4b77-adf4-304de6541a93"));
    assert_eq!(
        watched_object(&deleted.value().expect("tree")).at(&["metadata", "uid"]).and_then(Value::as_str),
        Some("3b94c478-72bb-4b77-adf4-304de6541a93")
    );
}

#[test]
fn watched_object_looks_through_one_row_tables_only() {
    let plain = decode_json(br#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}"#).expect("json");
    assert!(!is_table(&plain));
    assert_eq!(watched_object(&plain), &plain);
    let no_object =
        decode_json(br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":["p"]}]}"#).expect("json");
    assert!(is_table(&no_object));
    assert_eq!(watched_object(&no_object), &no_object, "includeObject=None leaves nothing to look at");
    let two = decode_json(
        br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":[],"object":{"metadata":{"name":"a"}}},{"cells":[],"object":{"metadata":{"name":"b"}}}]}"#,
    )
    .expect("json");
    assert_eq!(watched_object(&two), &two);
    let custom = decode_json(br#"{"kind":"Table","apiVersion":"furniture.example.com/v1","rows":[]}"#).expect("json");
    assert!(!is_table(&custom), "a custom resource of kind Table is not a server-side Table");
}

fn json_streams() -> Vec<(String, Vec<u8>)> {
    let mut streams: Vec<(String, Vec<u8>)> = [
        "kube/vectors/watch.jsonl",
        "kube/cbor/foobar_watch.source.jsonl",
        "kube/cbor/watch_pods.source.jsonl",
        "kube/cbor/watch_pods_sendInitialEvents.source.jsonl",
    ]
    .iter()
    .map(|p| (p.to_string(), shared_file(p)))
    .collect();
    for name in [
        "61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt",
        "65-watch-rv-too-old-410-in-stream.txt",
        "67-watch-table.txt",
    ] {
        streams.push((name.to_string(), real_apiserver_body(name)));
    }
    let raw = shared_file("kube/recordings/client-go/dynamic-testdata/TestGoldenResponse/responses/events");
    streams.push(("client-go events".to_string(), dechunked_body(&raw).0));
    for name in ["watch_event-watch_pods.json", "watch_event-watch_pods_without_initial_events.json"] {
        let recording: serde_json::Value =
            serde_json::from_slice(&shared_file(&format!("kube/recordings/k8s-openapi-v1-34/{name}"))).expect("json");
        let body = recording[0]["response_body"].as_str().expect("body").as_bytes().to_vec();
        streams.push((name.to_string(), body));
    }
    streams
}

fn cbor_streams() -> Vec<(String, Vec<u8>)> {
    let mut streams: Vec<(String, Vec<u8>)> = [
        "kube/vectors/watch.cborseq",
        "kube/cbor/foobar_watch.cbor-seq",
        "kube/cbor/watch_pods.cbor-seq",
        "kube/cbor/watch_pods_sendInitialEvents.cbor-seq",
    ]
    .iter()
    .map(|p| (p.to_string(), shared_file(p)))
    .collect();
    streams.push(("69-watch-cbor.txt".to_string(), real_apiserver_body("69-watch-cbor.txt")));
    streams
}

fn json_all(bytes: &[u8]) -> Vec<Value> {
    let mut framer = JsonFramer::new();
    let events = framer.push(bytes).expect("frames");
    framer.finish().expect("complete");
    events
}

fn cbor_all(bytes: &[u8]) -> Vec<Value> {
    let mut framer = CborSeqFramer::new();
    let events = framer.push(bytes).expect("frames");
    framer.finish().expect("complete");
    events
}

fn protobuf_all(bytes: &[u8]) -> Vec<ProtobufWatchEvent> {
    let mut framer = ProtobufFramer::new();
    let events = framer.push(bytes).expect("frames");
    framer.finish().expect("complete");
    events
}

/// Splits `bytes` at every point from `from` to `to` and checks the two pushes give `expect`.
#[track_caller]
fn check_splits<T: PartialEq + std::fmt::Debug>(
    name: &str,
    bytes: &[u8],
    range: std::ops::Range<usize>,
    frame: &dyn Fn(&[&[u8]]) -> Vec<T>,
    expect: &[T],
) {
    for split in range {
        let got = frame(&[&bytes[..split], &bytes[split..]]);
        assert!(got == expect, "{name}: split at {split} gives other events");
    }
}

fn json_chunks(chunks: &[&[u8]]) -> Vec<Value> {
    let mut framer = JsonFramer::new();
    let events = chunks.iter().flat_map(|c| framer.push(c).expect("frames")).collect();
    framer.finish().expect("complete");
    events
}

fn cbor_chunks(chunks: &[&[u8]]) -> Vec<Value> {
    let mut framer = CborSeqFramer::new();
    let events = chunks.iter().flat_map(|c| framer.push(c).expect("frames")).collect();
    framer.finish().expect("complete");
    events
}

fn protobuf_chunks(chunks: &[&[u8]]) -> Vec<ProtobufWatchEvent> {
    let mut framer = ProtobufFramer::new();
    let events = chunks.iter().flat_map(|c| framer.push(c).expect("frames")).collect();
    framer.finish().expect("complete");
    events
}

/// Every two-piece split of small streams. Large streams are fed one byte per chunk (every
/// byte boundary a split at once) and split in two near every event boundary and at a stride:
/// trying all of their split points in two pieces re-decodes the stream once per byte.
#[track_caller]
fn check_every_split<T: PartialEq + std::fmt::Debug>(
    name: &str,
    bytes: &[u8],
    boundaries: &[usize],
    frame: &dyn Fn(&[&[u8]]) -> Vec<T>,
) {
    let expect = frame(&[bytes]);
    if bytes.len() <= 12_000 {
        check_splits(name, bytes, 0..bytes.len() + 1, frame, &expect);
        return;
    }
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    assert!(frame(&bytewise) == expect, "{name}: one-byte chunks give other events");
    for &boundary in boundaries {
        let range = boundary.saturating_sub(3)..(boundary + 4).min(bytes.len() + 1);
        check_splits(name, bytes, range, frame, &expect);
    }
    for split in (0..bytes.len()).step_by(997) {
        check_splits(name, bytes, split..split + 1, frame, &expect);
    }
}

fn json_boundaries(bytes: &[u8]) -> Vec<usize> {
    bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1).collect()
}

fn cbor_boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (_, used) = crate::codec::cbor::decode_cbor_prefix(&bytes[at..]).expect("item");
        at += used;
        ends.push(at);
    }
    ends
}

#[test]
fn every_recorded_json_stream_frames_the_same_at_every_split_point() {
    for (name, bytes) in json_streams() {
        let events = json_all(&bytes);
        let lines = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count();
        assert_eq!(events.len(), lines, "{name}");
        let boundaries = json_boundaries(&bytes);
        check_every_split(&name, &bytes, &boundaries, &json_chunks);
    }
}

#[test]
fn every_recorded_cbor_stream_frames_the_same_at_every_split_point() {
    for (name, bytes) in cbor_streams() {
        let boundaries = cbor_boundaries(&bytes);
        assert_eq!(cbor_all(&bytes).len(), boundaries.len(), "{name}");
        check_every_split(&name, &bytes, &boundaries, &cbor_chunks);
    }
}

#[test]
fn the_protobuf_stream_frames_the_same_at_every_split_point() {
    let bytes = shared_file("kube/vectors/watch.pbstream");
    let events = protobuf_all(&bytes);
    assert_eq!(events.len(), 4);
    assert!(events.iter().all(|e| e.object.kind == "Pod" || e.object.kind == "Status"));
    check_every_split("watch.pbstream", &bytes, &[], &protobuf_chunks);
}

#[test]
fn cbor_watch_events_equal_their_json_source() {
    for (cbor, json) in [
        ("kube/vectors/watch.cborseq", "kube/vectors/watch.jsonl"),
        ("kube/cbor/foobar_watch.cbor-seq", "kube/cbor/foobar_watch.source.jsonl"),
        ("kube/cbor/watch_pods.cbor-seq", "kube/cbor/watch_pods.source.jsonl"),
        ("kube/cbor/watch_pods_sendInitialEvents.cbor-seq", "kube/cbor/watch_pods_sendInitialEvents.source.jsonl"),
    ] {
        let from_cbor = cbor_all(&shared_file(cbor));
        let from_json = json_all(&shared_file(json));
        assert_eq!(from_cbor.len(), from_json.len(), "{cbor}");
        assert!(from_cbor.iter().zip(&from_json).all(|(a, b)| a.equivalent(b)), "{cbor}");
    }
}

#[test]
fn one_byte_chunks_give_the_same_events() {
    let bytes = shared_file("kube/cbor/watch_pods.source.jsonl");
    let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(json_chunks(&chunks), json_all(&bytes));
    let bytes = shared_file("kube/cbor/watch_pods.cbor-seq");
    let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(cbor_chunks(&chunks), cbor_all(&bytes));
}

#[test]
fn the_real_chunking_of_a_watch_response_frames_the_same() {
    let raw = shared_file("kube/recordings/client-go/dynamic-testdata/TestGoldenResponse/responses/events");
    let (body, sizes) = dechunked_body(&raw);
    let mut chunks = Vec::new();
    let mut at = 0;
    for size in sizes {
        chunks.push(&body[at..at + size]);
        at += size;
    }
    assert_eq!(json_chunks(&chunks), json_all(&body));
}

fn typed(content_type: MediaType, bytes: &[u8]) -> Vec<WatchEvent> {
    let mut decoder = WatchDecoder::new(&content_type).expect("supported");
    let events = decoder.push(bytes).expect("events");
    decoder.finish().expect("complete");
    events
}

#[test]
fn a_streaming_list_ends_its_initial_events_with_a_marked_bookmark() {
    for (content_type, bytes) in [
        (MediaType::json(), real_apiserver_body("61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt")),
        (MediaType::cbor_seq(), shared_file("kube/cbor/watch_pods_sendInitialEvents.cbor-seq")),
    ] {
        let events = typed(content_type, &bytes);
        let end = events
            .iter()
            .position(|e| matches!(e, WatchEvent::Bookmark(b) if b.initial_events_end))
            .expect("end marker");
        assert!(events[..end].iter().all(|e| matches!(e, WatchEvent::Added(_))));
        assert!(events[end].resource_version().is_some());
        assert_eq!(events[end].event_type(), "BOOKMARK");
        assert!(events[end].object().is_none());
    }
}

#[test]
fn a_watch_from_a_compacted_version_gets_an_in_stream_410() {
    let events = typed(MediaType::json(), &real_apiserver_body("65-watch-rv-too-old-410-in-stream.txt"));
    match events.as_slice() {
        [WatchEvent::Error(status)] => assert!(status.is_expired()),
        other => panic!("expected one ERROR event, found {other:?}"),
    }
    assert_eq!(events[0].event_type(), "ERROR");
    assert_eq!(events[0].resource_version(), None);
}

#[test]
fn added_modified_and_deleted_carry_their_object_and_version() {
    let events = typed(MediaType::json(), &shared_file("kube/vectors/watch.jsonl"));
    let types: Vec<&str> = events.iter().map(WatchEvent::event_type).collect();
    assert_eq!(types, ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);
    assert!(events[0].object().is_some());
    let tree = events[1].object().expect("an object").value().expect("tree");
    assert_eq!(
        events[1].resource_version(),
        tree.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).map(ResourceVersion::new)
    );
}

#[track_caller]
fn check_event(document: &str, expect: Result<&str, &str>) {
    let value = decode_json(document.as_bytes()).expect("json");
    let got = WatchEvent::from_document(&value).map(|e| e.event_type()).map_err(|e| e.to_string());
    assert_eq!(got.as_deref().map_err(String::as_str), expect);
    // Taking the document gives the same event, or the same error, as reading a copy.
    assert_eq!(WatchEvent::from_value(value.clone()), WatchEvent::from_document(&value));
}

#[test]
fn an_event_taken_by_value_holds_the_documents_object_unchanged() {
    for line in shared_file("kube/vectors/watch.jsonl").split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let document = decode_json(line).expect("json");
        let event = WatchEvent::from_value(document.clone()).expect("event");
        match &event {
            WatchEvent::Bookmark(bookmark) => assert_eq!(Some(&bookmark.object), document.get("object")),
            other => {
                assert_eq!(other.object().map(|o| o.value().expect("tree")).as_deref(), document.get("object"))
            }
        }
    }
    // Not an object at all: the same error as an object without "object".
    check_event("[1]", Err("expected an object at $.object, found null"));
}

#[test]
fn event_documents_need_a_known_type_and_an_object() {
    check_event(r#"{"type":"ADDED","object":{}}"#, Ok("ADDED"));
    check_event(r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}"#, Ok("BOOKMARK"));
    check_event(
        r#"{"type":"RENAMED","object":{}}"#,
        Err(r#"expected ADDED, MODIFIED, DELETED, BOOKMARK or ERROR at $.type, found "RENAMED""#),
    );
    check_event(r#"{"type":"ADDED"}"#, Err("expected an object at $.object, found null"));
    check_event(r#"{"type":"ADDED","object":1}"#, Err("expected an object at $.object, found an integer"));
    check_event(r#"{"type":"ERROR","object":{"kind":"Pod"}}"#, Err("expected kind Status, found \"Pod\""));
}

#[test]
fn a_stream_ending_inside_an_event_is_truncated_at_its_last_byte() {
    let bytes = shared_file("kube/vectors/watch.jsonl");
    let mut framer = JsonFramer::new();
    let events = framer.push(&bytes[..bytes.len() - 10]).expect("frames");
    assert_eq!(events.len(), 3);
    assert_eq!(framer.finish(), Err(StreamError::Truncated { event: 4, offset: bytes.len() - 10 }));
    let bytes = shared_file("kube/vectors/watch.cborseq");
    let mut framer = CborSeqFramer::new();
    framer.push(&bytes[..100]).expect("frames");
    assert_eq!(
        framer.finish().map_err(|e| e.to_string()),
        Err("stream truncated at byte 100: expected the rest of event 1, found end of stream".to_string())
    );
    let mut framer = ProtobufFramer::new();
    framer.push(&[0, 0]).expect("frames");
    assert_eq!(framer.finish(), Err(StreamError::Truncated { event: 1, offset: 2 }));
}

#[test]
fn malformed_events_name_their_number_and_offset_and_poison_the_framer() {
    let mut framer = JsonFramer::new();
    let error = framer.push(b"{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":,}\n").expect_err("malformed");
    assert_eq!(error.to_string(), "event 2: invalid JSON: expected a JSON value, found ',' at byte 37");
    assert_eq!(framer.push(b"{}"), Err(error.clone()));
    assert_eq!(framer.finish(), Err(error));
    let mut framer = JsonFramer::new();
    assert_eq!(
        framer.push(b"  [1]").map_err(|e| e.to_string()),
        Err("event 1: invalid JSON: expected '{' starting an event, found '[' at byte 2".to_string())
    );
    let mut framer = CborSeqFramer::new();
    let error = framer.push(&[0x01, 0xa1, 0x01, 0x02]).expect_err("integer key");
    assert!(matches!(error, StreamError::Decode { event: 2, ref source } if source.offset == 2), "{error}");
    assert!(framer.push(&[]).is_err());
    assert!(framer.finish().is_err());
    let mut framer = ProtobufFramer::new();
    let error = framer.push(&[0, 0, 0, 1, 0x0b]).expect_err("group");
    assert!(matches!(error, StreamError::Decode { event: 1, ref source } if source.offset == 4), "{error}");
    assert!(framer.push(&[]).is_err());
    assert!(framer.finish().is_err());
}

#[test]
fn a_length_prefix_claiming_gigabytes_is_refused_at_once_or_only_waits_for_bytes() {
    // A protobuf frame larger than an event may be is refused as announced (the hostile corpus,
    // wire/tests/hostile.rs); one within the limit only waits for its bytes.
    let mut framer = ProtobufFramer::new();
    let too_large = StreamError::TooLarge {
        event: 1,
        offset: 0,
        limit: crate::watch::MAX_EVENT_BYTES,
        found: crate::watch::Size::Announced(0xffff_ffff),
    };
    assert_eq!(framer.push(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]), Err(too_large.clone()));
    assert_eq!(framer.finish(), Err(too_large));
    let mut framer = ProtobufFramer::new();
    assert_eq!(framer.push(&[0x00, 0xff, 0xff, 0xff, 1, 2, 3]), Ok(vec![]));
    assert_eq!(framer.finish(), Err(StreamError::Truncated { event: 1, offset: 7 }));
    let mut framer = CborSeqFramer::new();
    assert_eq!(framer.push(&[0x5b, 0, 0, 0, 1, 0, 0, 0, 0, 1]), Ok(vec![]));
    assert_eq!(framer.push(&[0x9b, 0xff]), Ok(vec![]));
    assert!(framer.finish().is_err());
}

#[test]
fn absurd_cbor_nesting_is_reported_not_buffered() {
    let mut framer = CborSeqFramer::new();
    let error = framer.push(&[0x9f; 500]).expect_err("too deep");
    assert!(error.to_string().contains("nesting"), "{error}");
}

#[test]
fn events_encode_as_the_server_writes_them() {
    let jsonl = shared_file("kube/vectors/watch.jsonl");
    let mut rewritten = Vec::new();
    for event in json_all(&jsonl) {
        let (Some(t), Some(o)) = (event.get("type").and_then(Value::as_str), event.get("object")) else {
            panic!("event")
        };
        rewritten.extend(encode_json_event(t, o));
    }
    assert!(rewritten == jsonl, "JSON events re-encode to the same bytes");
    let cborseq = shared_file("kube/vectors/watch.cborseq");
    let mut rewritten = Vec::new();
    for event in cbor_all(&cborseq) {
        let (Some(t), Some(o)) = (event.get("type").and_then(Value::as_str), event.get("object")) else {
            panic!("event")
        };
        rewritten.extend(encode_cbor_event(t, o, CborEncoding::SERVER));
    }
    assert!(rewritten == cborseq, "CBOR events re-encode to the same bytes");
}

#[test]
fn only_json_and_cbor_watches_have_a_typed_decoder() {
    assert!(WatchDecoder::new(&MediaType::json()).is_ok());
    assert!(WatchDecoder::new(&MediaType::cbor()).is_ok());
    assert_eq!(
        WatchDecoder::new(&MediaType::protobuf_watch()).map(|_| ()).map_err(|e| e.to_string()),
        Err("expected a JSON or CBOR sequence watch stream, found application/vnd.kubernetes.protobuf;stream=watch"
            .to_string())
    );
    let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
    let error = decoder.push(br#"{"type":"NOPE","object":{}}"#).expect_err("unknown type");
    assert!(matches!(error, StreamError::Event { event: 1, .. }));
}

#[test]
fn a_json_event_may_hold_max_event_bytes_and_is_cut_one_byte_later() {
    let first = b"{\"a\":1}\n";
    let mut stream = first.to_vec();
    stream.extend_from_slice(b"{\"a\":\"");
    stream.resize(first.len() + MAX_EVENT_BYTES, b'x');
    let mut framer = JsonFramer::new();
    assert_eq!(framer.push(&stream).map(|events| events.len()), Ok(1));
    // The unfinished second event holds MAX_EVENT_BYTES: the next chunk is still taken.
    assert_eq!(framer.push(b"x"), Ok(vec![]));
    // Now it holds one byte more than an event may: the stream is cut, at the event's start.
    let too_large = StreamError::TooLarge {
        event: 2,
        offset: first.len(),
        limit: MAX_EVENT_BYTES,
        found: Size::MoreThan(MAX_EVENT_BYTES + 1),
    };
    assert_eq!(framer.push(b"x"), Err(too_large.clone()));
    assert_eq!(
        too_large.to_string(),
        format!(
            "event 2 at byte 8: expected at most {MAX_EVENT_BYTES} bytes, found more than {} bytes with no end in sight",
            MAX_EVENT_BYTES + 1
        )
    );
    assert_eq!(framer.finish(), Err(too_large));
}

#[test]
fn a_protobuf_frame_announced_too_large_is_refused_at_its_own_offset_and_number() {
    let bytes = shared_file("kube/vectors/watch.pbstream");
    let frame_end = |start: usize| {
        let len = bytes[start..start + 4].iter().fold(0usize, |a, b| a << 8 | usize::from(*b));
        start + 4 + len
    };
    let (first, second) = (frame_end(0), frame_end(frame_end(0)));
    let mut framer = ProtobufFramer::new();
    assert_eq!(framer.push(&bytes[..first]).map(|events| events.len()), Ok(1));
    let mut chunk = bytes[first..second].to_vec();
    chunk.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
    let too_large =
        StreamError::TooLarge { event: 3, offset: second, limit: MAX_EVENT_BYTES, found: Size::Announced(0xffff_ffff) };
    assert_eq!(framer.push(&chunk), Err(too_large.clone()));
    assert_eq!(
        too_large.to_string(),
        format!(
            "event 3 at byte {second}: expected at most {MAX_EVENT_BYTES} bytes, found 4294967295 bytes announced by \
             its length prefix"
        )
    );
}

#[test]
fn braces_and_quotes_inside_json_strings_do_not_end_an_event() {
    let stream = br#"{"a":"}"}
{"b":"{[","c":"\"}"}
"#;
    let events = json_all(stream);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].get("a").and_then(Value::as_str), Some("}"));
    assert_eq!(events[1].get("b").and_then(Value::as_str), Some("{["));
    assert_eq!(events[1].get("c").and_then(Value::as_str), Some("\"}"));
}

#[test]
fn indefinite_length_cbor_items_end_at_their_own_break() {
    // {_ "a": [_ 1, 2]}, {"b": (_ "x")}, [_ ]: each its own event, in one chunk.
    let first = [0xbf, 0x61, b'a', 0x9f, 0x01, 0x02, 0xff, 0xff];
    let second = [0xa1, 0x61, b'b', 0x7f, 0x61, b'x', 0xff];
    let third = [0x9f, 0xff];
    let stream = [&first[..], &second[..], &third[..]].concat();
    let events = cbor_all(&stream);
    assert_eq!(
        events,
        [
            decode_json(br#"{"a":[1,2]}"#).expect("json"),
            decode_json(br#"{"b":"x"}"#).expect("json"),
            decode_json(b"[]").expect("json")
        ]
    );
    check_splits("indefinite lengths", &stream, 0..stream.len() + 1, &cbor_chunks, &events);
    // A break that closes nothing is malformed: the decoder says so.
    let mut framer = CborSeqFramer::new();
    let error = framer.push(&[0x01, 0xff, 0x02]).expect_err("a stray break");
    assert!(matches!(error, StreamError::Decode { event: 2, ref source } if source.offset == 1), "{error}");
}

#[test]
fn a_cbor_item_nested_as_deep_as_the_decoder_reads_is_framed_whatever_it_holds() {
    use crate::codec::value::MAX_DEPTH;
    // MAX_DEPTH arrays, the deepest holding an indefinite-length string (a string to the
    // decoder, one more open item to the framer), then another item in the same chunk.
    let mut deep = vec![0x81; MAX_DEPTH];
    deep.extend_from_slice(&[0x7f, 0x61, b'x', 0xff]);
    let stream = [&deep[..], &[0x01][..]].concat();
    let events = cbor_all(&stream);
    assert_eq!(events.len(), 2);
    assert_eq!(events[1], Value::Int(1));
    let mut innermost = &events[0];
    for _ in 0..MAX_DEPTH {
        innermost = &innermost.as_array().expect("an array")[0];
    }
    assert_eq!(innermost.as_str(), Some("x"));
}

#[test]
fn the_cbor_framer_offers_each_event_start_once_to_the_prefix_reader_and_decodes_the_rest() {
    use crate::codec::cbor::decode_cbor_prefix;
    use crate::watch::framer::{EventReader, PrefixReader};
    let items: [&[u8]; 3] =
        [&[0xa1, 0x61, b'a', 0x01], &[0xa1, 0x61, b'b', 0x83, 0x01, 0x02, 0x03], &[0xa1, 0x61, b'c', 0x61, b'x']];
    let stream = items.concat();
    let whole = cbor_all(&stream);
    // Each chunking: the events, where the prefix reader was asked (offset, number) and where
    // the framer decoded an event itself.
    let run = |chunks: &[&[u8]]| {
        let mut asked = Vec::new();
        let mut decoded = Vec::new();
        let mut events = Vec::new();
        let mut framer = CborSeqFramer::new();
        for chunk in chunks {
            let first: &mut PrefixReader<'_, Value> = &mut |bytes: &[u8], offset: usize, number: usize| {
                asked.push((offset, number));
                decode_cbor_prefix(bytes).ok().map(|(value, used)| (used, Ok(value)))
            };
            let decode: &mut EventReader<'_, Value> = &mut |bytes: &[u8], offset: usize, number: usize| {
                decoded.push((offset, number));
                crate::codec::cbor::decode_cbor(bytes).map_err(|source| StreamError::Decode { event: number, source })
            };
            events.extend(framer.push_with(chunk, Some(first), decode).expect("events"));
        }
        framer.finish().expect("complete");
        (events, asked, decoded)
    };
    // One chunk: the reader reads every event; it is not asked at the end of the bytes.
    assert_eq!(run(&[&stream[..]]), (whole.clone(), vec![(0, 1), (4, 2), (11, 3)], vec![]));
    // The second event cut by the chunk: the reader is asked at its start and gives up, the
    // framer steps through it and decodes it; the reader is not asked at its start again.
    assert_eq!(run(&[&stream[..6], &stream[6..]]), (whole, vec![(0, 1), (4, 2), (11, 3)], vec![(4, 2)]));
}
