//! A reflector in Kubernetes protobuf: what its requests ask for, its list pages decoded in full,
//! and the switch to JSON when the server has no protobuf form of the type (406).

use super::*;
use crate::codec::protobuf_full::InFullDecoder;
use crate::media_type::MediaType;
use crate::request::{Collection, Request};
use crate::testdata::shared_file;
use crate::view::list::ObjectList;

const PROTOBUF_OR_JSON: &str = "application/vnd.kubernetes.protobuf,application/json";
const PROTOBUF_WATCH_OR_JSON: &str = "application/vnd.kubernetes.protobuf;stream=watch,application/json";

fn pods() -> Collection {
    Collection { group: String::new(), version: "v1".into(), plural: "pods".into(), namespace: Some("demo".into()) }
}

/// The one request of `step`, with what it is for.
#[track_caller]
fn sent(step: &Step) -> (OpId, &Request, RequestKind) {
    match step.actions.as_slice() {
        [Action::Send { op, request, kind }] => (*op, request, *kind),
        other => panic!("expected one request, found {other:?}"),
    }
}

fn accept(request: &Request) -> &str {
    request.header_value("Accept").unwrap_or_default()
}

fn refused_406() -> Failure {
    let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotAcceptable","code":406}"#;
    Failure::from_response(406, None, Some(&MediaType::json()), body)
}

/// An empty last page at `rv`.
fn last_page(rv: &str) -> ObjectList {
    let document =
        format!(r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}"}},"items":[]}}"#);
    ObjectList::from_document(&crate::codec::json::decode_json(document.as_bytes()).expect("json")).expect("a list")
}

#[test]
fn list_pages_ask_for_protobuf_and_watches_for_its_watch_framing_each_with_the_json_fallback() {
    let config = ReflectorConfig { mode: Mode::ListThenWatch, ..ReflectorConfig::protobuf(pods()) };
    assert!(config.asks_for_protobuf());
    let (mut reflector, step) = Reflector::start(config).expect("valid");
    let (op, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::ListPage, PROTOBUF_OR_JSON));
    let page = ObjectList::from_document(
        &crate::codec::json::decode_json(
            br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}"#,
        )
        .expect("json"),
    )
    .expect("a list");
    let step = reflector.step(Input::ListPage { op, list: page.into() }, Jitter::NONE);
    let (_, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::Watch, PROTOBUF_WATCH_OR_JSON));

    let (_, step) = Reflector::start(ReflectorConfig::protobuf(pods())).expect("valid");
    let (_, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::StreamingList, PROTOBUF_WATCH_OR_JSON));
}

#[test]
fn json_and_cbor_reflectors_do_not_ask_for_protobuf_and_have_no_protobuf_fallback() {
    let mut json = ReflectorConfig::new(pods());
    assert!(!json.asks_for_protobuf() && !json.drop_protobuf());
    assert_eq!(json, ReflectorConfig::new(pods()), "unchanged");
    assert_eq!(json.watch_accept(), &json.accept);
    let mut cbor = ReflectorConfig { accept: crate::media_type::Accept::only(MediaType::cbor()), ..json };
    assert!(!cbor.asks_for_protobuf() && !cbor.drop_protobuf());
    let mut back = ReflectorConfig::protobuf(pods());
    assert!(back.drop_protobuf(), "protobuf was asked for");
    assert!(!back.asks_for_protobuf());
    assert_eq!(back.accept.to_string(), "application/json");
    assert_eq!(back.watch_accept().to_string(), "application/json");
}

#[test]
fn a_protobuf_list_page_is_read_with_the_protobuf_decoder_as_its_json_list() {
    let op = OpId(1);
    let body = shared_file("kube/vectors/podlist.pb");
    let protobuf = Some(InFullDecoder::of_k8s_pb());
    let Input::ListPage { list, .. } =
        Input::from_list_response(op, 200, None, Some(&MediaType::protobuf()), &body, protobuf)
    else {
        panic!("expected a page")
    };
    let json = shared_file("kube/vectors/podlist.json");
    let Input::ListPage { list: want, .. } =
        Input::from_list_response(op, 200, None, Some(&MediaType::json()), &json, None)
    else {
        panic!("expected a page")
    };
    assert_eq!(list.kind, want.kind);
    assert_eq!(list.metadata, want.metadata);
    let heads =
        |l: &crate::watch::lazy_list::LazyList| -> Vec<_> { l.items.iter().map(|i| i.head().clone()).collect() };
    assert_eq!(heads(&list), heads(&want));
    assert!(!heads(&list).is_empty());
}

#[test]
fn a_protobuf_list_of_a_type_without_a_message_fails_naming_it() {
    let envelope = crate::codec::protobuf::Envelope {
        api_version: "example.com/v1".into(),
        kind: "WidgetList".into(),
        ..Default::default()
    };
    let input = Input::from_list_response(
        OpId(1),
        200,
        None,
        Some(&MediaType::protobuf()),
        &envelope.encode(),
        Some(InFullDecoder::of_k8s_pb()),
    );
    match input {
        Input::ListFailed { failure: Failure::Undecodable(text), .. } => {
            assert!(text.to_string().starts_with("example.com/v1 WidgetList "), "{text}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_406_to_protobuf_goes_on_in_json_at_once_and_only_once() {
    // A list page refused: the same page again, in JSON, with no wait.
    let config = ReflectorConfig { mode: Mode::ListThenWatch, ..ReflectorConfig::protobuf(pods()) };
    let (mut reflector, step) = Reflector::start(config).expect("valid");
    let (op, _, _) = sent(&step);
    let step = reflector.step(Input::ListFailed { op, failure: refused_406() }, Jitter::NONE);
    let (op, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::ListPage, "application/json"));
    assert!(!reflector.config().asks_for_protobuf());
    // Once in JSON, a 406 is an ordinary failure: it waits and retries.
    let step = reflector.step(Input::ListFailed { op, failure: refused_406() }, Jitter::NONE);
    assert!(matches!(step.actions.as_slice(), [Action::Wait { .. }]), "{:?}", step.actions);

    // A streaming list refused: the streaming list again, in JSON.
    let (mut reflector, step) = Reflector::start(ReflectorConfig::protobuf(pods())).expect("valid");
    let (op, _, _) = sent(&step);
    let step = reflector.step(Input::WatchFailed { op, failure: refused_406() }, Jitter::NONE);
    let (_, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::StreamingList, "application/json"));
    assert_eq!(reflector.mode(), Mode::StreamingList, "a 406 is no reason to give up streaming lists");
}

#[test]
fn a_406_to_a_protobuf_watch_watches_in_json_from_the_same_point() {
    let config = ReflectorConfig { mode: Mode::ListThenWatch, ..ReflectorConfig::protobuf(pods()) };
    let (mut reflector, step) = Reflector::start(config).expect("valid");
    let (op, _, _) = sent(&step);
    let body = shared_file("kube/vectors/podlist.pb");
    let page =
        Input::from_list_response(op, 200, None, Some(&MediaType::protobuf()), &body, Some(InFullDecoder::of_k8s_pb()));
    let step = reflector.step(page, Jitter::NONE);
    // The vector's list has more: the next page, in protobuf too; then the last page.
    let (op, next, kind) = sent(&step);
    assert_eq!((kind, accept(next)), (RequestKind::ListPage, PROTOBUF_OR_JSON));
    assert!(next.path_and_query().contains("&continue="), "{}", next.path_and_query());
    let step = reflector.step(Input::ListPage { op, list: last_page("123501").into() }, Jitter::NONE);
    let (op, watch, _) = sent(&step);
    let (watch_path, watch_accept) = (watch.path_and_query(), accept(watch).to_owned());
    assert_eq!(watch_accept, PROTOBUF_WATCH_OR_JSON);
    let step = reflector.step(Input::WatchFailed { op, failure: refused_406() }, Jitter::NONE);
    let (_, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::Watch, "application/json"));
    assert_eq!(request.path_and_query(), watch_path, "from the list's resourceVersion");
}

#[test]
fn a_reflector_that_drops_protobuf_before_its_first_request_resumes_in_json() {
    // What the edge does when the protobuf decoder cannot be loaded: the first step is not run.
    let (mut reflector, step) = Reflector::start(ReflectorConfig::protobuf(pods())).expect("valid");
    assert_eq!(accept(sent(&step).1), PROTOBUF_WATCH_OR_JSON);
    assert!(reflector.drop_protobuf());
    assert!(!reflector.drop_protobuf(), "once");
    let paused = reflector.step(Input::Pause, Jitter::NONE);
    assert!(matches!(paused.actions.as_slice(), [Action::Cancel(_)]), "{:?}", paused.actions);
    let step = reflector.step(Input::Resume, Jitter::NONE);
    let (_, request, kind) = sent(&step);
    assert_eq!((kind, accept(request)), (RequestKind::StreamingList, "application/json"));
}
