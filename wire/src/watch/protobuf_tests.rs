//! The typed decoder of protobuf watches ([`WatchDecoder::protobuf`]): the real serializer's
//! stream gives the events of the same watch in JSON, however it is chunked; a frame that cannot
//! be decoded in full ends the stream with an error naming the event and its type.

use super::*;
use crate::codec::protobuf_full::tests::comparable;
use crate::codec::protobuf_full::{InFullDecoder, InFullError};
use crate::media_type::MediaType;
use crate::testdata::shared_file;

/// What the reflector takes from an event: its type, resource version, and object (compared as
/// the protobuf form can carry it).
fn seen(events: &[WatchEvent]) -> Vec<(&'static str, Option<String>, Option<serde_json::Value>)> {
    events
        .iter()
        .map(|event| {
            let object = event.object().map(|o| comparable(&o.value().expect("a tree")));
            (event.event_type(), event.resource_version().map(|rv| rv.to_string()), object)
        })
        .collect()
}

fn json_events() -> Vec<WatchEvent> {
    let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
    let events = decoder.push(&shared_file("kube/vectors/watch.jsonl")).expect("frames");
    decoder.finish().expect("complete");
    events
}

/// `watch.pbstream` with the object of its second event renamed to kind `Pxd`, which has no
/// message (same bytes, same length).
fn stream_with_unknown_kind() -> Vec<u8> {
    let mut body = shared_file("kube/vectors/watch.pbstream");
    let first = 4 + u32::from_be_bytes(body[..4].try_into().expect("4 bytes")) as usize;
    let kind = memchr::memmem::find(&body[first..], b"Pod").expect("the second event is a pod") + first;
    body[kind..kind + 3].copy_from_slice(b"Pxd");
    body
}

#[test]
fn a_protobuf_watch_gives_the_json_watchs_events_wherever_it_is_cut() {
    let stream = shared_file("kube/vectors/watch.pbstream");
    let want = json_events();
    assert_eq!(
        want.iter().map(WatchEvent::event_type).collect::<Vec<_>>(),
        ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]
    );
    for cut in 0..=stream.len() {
        let mut decoder = WatchDecoder::protobuf(InFullDecoder::of_k8s_pb());
        let mut events = decoder.push(&stream[..cut]).expect("frames");
        events.extend(decoder.push(&stream[cut..]).expect("frames"));
        decoder.finish().expect("complete");
        assert_eq!(seen(&events), seen(&want), "cut at byte {cut}");
    }
}

#[test]
fn a_protobuf_watch_read_byte_by_byte_keys_its_objects_as_json_does() {
    let stream = shared_file("kube/vectors/watch.pbstream");
    let mut decoder = WatchDecoder::protobuf(InFullDecoder::of_k8s_pb());
    let mut events = Vec::new();
    for byte in stream.chunks(1) {
        events.extend(decoder.push(byte).expect("frames"));
    }
    let heads = |events: &[WatchEvent]| -> Vec<_> {
        events.iter().filter_map(WatchEvent::object).map(|o| o.head().clone()).collect()
    };
    assert_eq!(heads(&events), heads(&json_events()));
}

#[test]
fn the_decoder_for_a_response_reads_protobuf_only_with_the_protobuf_decoder() {
    let stream = MediaType::protobuf_watch();
    assert_eq!(
        WatchDecoder::for_response(&stream, None).map(|_| ()).map_err(|e| e.to_string()),
        Err("expected a JSON or CBOR sequence watch stream, found application/vnd.kubernetes.protobuf;stream=watch"
            .to_string())
    );
    let mut decoder = WatchDecoder::for_response(&stream, Some(InFullDecoder::of_k8s_pb())).expect("protobuf");
    assert_eq!(decoder.push(&shared_file("kube/vectors/watch.pbstream")).expect("frames").len(), 4);
    // A JSON answer (the fallback of a type without protobuf) is read as JSON.
    let mut decoder = WatchDecoder::for_response(&MediaType::json(), Some(InFullDecoder::of_k8s_pb())).expect("json");
    assert_eq!(decoder.push(&shared_file("kube/vectors/watch.jsonl")).expect("frames").len(), 4);
}

#[test]
fn a_frame_of_a_type_without_a_message_ends_the_stream_naming_the_event_and_its_type() {
    let mut decoder = WatchDecoder::protobuf(InFullDecoder::of_k8s_pb());
    let error = decoder.push(&stream_with_unknown_kind()).expect_err("no message for Pxd");
    match &error {
        StreamError::InFull { event: 2, source: InFullError::NoMessage { api_version, kind } } => {
            assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Pxd"));
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().starts_with("event 2: v1 Pxd "), "{error}");
    // A failed decoder stays failed.
    assert_eq!(decoder.push(b"").expect_err("still failed"), error);
    assert_eq!(decoder.finish().expect_err("still failed"), error);
}

#[test]
fn a_cut_message_names_the_event_and_a_stream_cut_inside_a_frame_is_truncated() {
    // The first event's object cut short inside the frame: the frame is whole, its object is not.
    let stream = shared_file("kube/vectors/watch.pbstream");
    let first = 4 + u32::from_be_bytes(stream[..4].try_into().expect("4 bytes")) as usize;
    let mut decoder = WatchDecoder::protobuf(InFullDecoder::of_k8s_pb());
    let events = decoder.push(&stream[..first + 10]).expect("the first frame");
    assert_eq!(events.len(), 1);
    assert!(matches!(decoder.finish(), Err(StreamError::Truncated { event: 2, .. })));
    let mut bad = stream[..first].to_vec();
    let last = bad.len() - 1;
    bad[last] = 0xff;
    let mut decoder = WatchDecoder::protobuf(InFullDecoder::of_k8s_pb());
    let error = decoder.push(&bad).expect_err("a bad message");
    assert!(matches!(error, StreamError::Decode { event: 1, .. } | StreamError::InFull { event: 1, .. }), "{error}");
}
