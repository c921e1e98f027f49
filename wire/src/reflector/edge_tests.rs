//! The reflector's edges, one rule each: what a failed answer says and means, which answers are
//! read lazily, what the configuration asks for, and answers to requests no longer current.
//! (Written for the mutants `scripts/mutants reflector` found alive: each test names the mutant.)

use std::num::NonZeroU32;

use super::input::{http_text, Failure};
use super::*;
use crate::media_type::{Accept, MediaType};
use crate::request::Collection;
use crate::view::status::Status;

fn pods() -> Collection {
    Collection { group: String::new(), version: "v1".into(), plural: "pods".into(), namespace: None }
}

fn status(code: u16, reason: &str, message: &str) -> Status {
    Status { code, reason: reason.into(), message: message.into(), ..Status::default() }
}

#[test]
fn protobuf_is_asked_for_when_either_the_list_or_the_watch_asks_for_it_first() {
    // (mutant: `||` with `&&` in ReflectorConfig::asks_for_protobuf)
    let json = ReflectorConfig::new(pods());
    assert!(!json.asks_for_protobuf());
    let both = ReflectorConfig::protobuf(pods());
    assert!(both.asks_for_protobuf());
    let list_only =
        ReflectorConfig { watch_accept: Some(Accept::only(MediaType::json())), ..ReflectorConfig::protobuf(pods()) };
    assert!(list_only.asks_for_protobuf());
    let watch_only = ReflectorConfig {
        watch_accept: Some(Accept::only(MediaType::protobuf_watch())),
        ..ReflectorConfig::new(pods())
    };
    assert!(watch_only.asks_for_protobuf());
}

#[test]
fn a_failed_answer_reads_as_its_code_reason_and_message_whichever_it_has() {
    // (mutants: the match guards of http_text)
    assert_eq!(http_text(410, Some(&status(410, "Expired", "too old"))), "HTTP 410 Expired: too old");
    assert_eq!(http_text(429, Some(&status(429, "TooManyRequests", ""))), "HTTP 429 TooManyRequests");
    assert_eq!(http_text(500, Some(&status(500, "", ""))), "HTTP 500");
    assert_eq!(http_text(502, None), "HTTP 502");
}

#[test]
fn only_a_status_document_is_read_as_the_failures_status() {
    // (mutant: the guard is_status(&document) with true in Failure::from_response)
    let pod = br#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}"#;
    let failure = Failure::from_response(500, None, Some(&MediaType::json()), pod);
    assert_eq!(failure.to_string(), "HTTP 500");
    assert!(matches!(failure, Failure::Http { status: None, .. }));
}

#[test]
fn expiry_is_a_410_answer_or_a_410_status_and_nothing_else() {
    // (mutants: each match arm of Failure::is_expired deleted)
    let gone = Failure::Http { code: 410, status: None, retry_after_seconds: None };
    assert!(gone.is_expired());
    let inner = Failure::Http {
        code: 500,
        status: Some(Box::new(status(410, "Expired", "too old"))),
        retry_after_seconds: None,
    };
    assert!(inner.is_expired());
    let other = Failure::Http {
        code: 500,
        status: Some(Box::new(status(500, "InternalError", ""))),
        retry_after_seconds: None,
    };
    assert!(!other.is_expired());
}

#[test]
fn only_400_and_422_refuse_parameters() {
    // (mutant: Failure::refuses_parameters with true)
    let answer = |code| Failure::Http { code, status: None, retry_after_seconds: None };
    assert!(answer(400).refuses_parameters());
    assert!(answer(422).refuses_parameters());
    for code in [403, 404, 410, 429, 500] {
        assert!(!answer(code).refuses_parameters(), "{code}");
    }
    assert!(!Failure::Network("offline".into()).refuses_parameters());
}

#[test]
fn a_metadata_only_list_is_read_lazily_as_a_plain_list_is() {
    // (mutant: `==` with `!=` in Input::from_list_response: every conversion but Table read in full)
    let body = br#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},
        "items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"n","uid":"u-a","resourceVersion":"5"}}]}"#;
    let media_type = MediaType::json().with_conversion(crate::media_type::Conversion::partial_object_metadata_list());
    let Input::ListPage { list, .. } = Input::from_list_response(OpId(1), 200, None, Some(&media_type), body, None)
    else {
        panic!("expected a page")
    };
    assert_eq!(list.items.len(), 1);
    assert!(list.items.iter().all(|item| !item.is_decoded() && item.head().name.as_deref() == Some("a")));
}

#[test]
fn a_page_answering_a_request_no_longer_current_is_ignored() {
    // (mutant: the guard `got == op` with true in Reflector::transition, Listing + ListPage)
    let config =
        ReflectorConfig { page_size: NonZeroU32::new(2), mode: Mode::ListThenWatch, ..ReflectorConfig::new(pods()) };
    let (mut reflector, step) = Reflector::start(config).expect("valid config");
    let Some(Action::Send { op, .. }) = step.actions.first() else { panic!("expected a list request") };
    let body = br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]}"#;
    let Input::ListPage { list, .. } = Input::from_list_response(*op, 200, None, Some(&MediaType::json()), body, None)
    else {
        panic!("expected a page")
    };
    let stale = OpId(op.0 + 100);
    let step = reflector.step(Input::ListPage { op: stale, list }, Jitter::NONE);
    assert_eq!(step, Step::default());
}
