use std::num::NonZeroU32;

use super::*;
use crate::codec::json::decode_json;
use crate::codec::value::Value;
use crate::media_type::{Accept, MediaType};
use crate::params::IncludeObject;
use crate::reflector::machine::object_version;
use crate::request::{Collection, Request};
use crate::testdata::{real_apiserver_body, shared_file};
use crate::view::list::ListMeta;
use crate::view::list::{ContinueToken, ObjectList, ResourceVersion};
use crate::watch::lazy::{LazyObject, ObjectHead};
use crate::watch::WatchDecoder;
use crate::watch::{is_table, watched_object, WatchEvent};

/// What a test feeds; the harness fills in the id of the request or wait it answers.
enum Feed {
    Page(ObjectList),
    ListFailed(Failure),
    Opened,
    Event(WatchEvent),
    Ended(WatchEnd),
    WatchFailed(Failure),
    Timer,
    Pause,
    Resume,
    Stop,
}

struct Harness {
    reflector: Reflector,
    request: Option<OpId>,
    timer: Option<OpId>,
    jitter: Jitter,
}

impl Harness {
    #[track_caller]
    fn start(config: ReflectorConfig, expect: &[&str]) -> Harness {
        let (reflector, step) = Reflector::start(config).expect("valid config");
        let mut harness = Harness { reflector, request: None, timer: None, jitter: Jitter::NONE };
        let got = harness.render(step);
        assert_eq!(got, expect);
        harness
    }

    fn input(&self, feed: Feed) -> Input {
        let op = self.request.unwrap_or(OpId(0));
        match feed {
            Feed::Page(list) => Input::ListPage { op, list: list.into() },
            Feed::ListFailed(failure) => Input::ListFailed { op, failure },
            Feed::Opened => Input::WatchOpened { op },
            Feed::Event(event) => Input::WatchEvent { op, event },
            Feed::Ended(end) => Input::WatchEnded { op, end },
            Feed::WatchFailed(failure) => Input::WatchFailed { op, failure },
            Feed::Timer => Input::TimerFired { op: self.timer.unwrap_or(OpId(0)) },
            Feed::Pause => Input::Pause,
            Feed::Resume => Input::Resume,
            Feed::Stop => Input::Stop,
        }
    }

    /// Feeds one input and checks every action and change it produced, in order.
    #[track_caller]
    fn check(&mut self, feed: Feed, expect: &[&str]) {
        let input = self.input(feed);
        let step = self.reflector.step(input, self.jitter);
        let got = self.render(step);
        assert_eq!(got, expect);
    }

    fn render(&mut self, step: Step) -> Vec<String> {
        let mut lines = Vec::new();
        for action in step.actions {
            lines.push(match action {
                Action::Send { op, request, kind } => {
                    self.request = Some(op);
                    let kind = match kind {
                        RequestKind::ListPage => "list",
                        RequestKind::StreamingList => "stream",
                        RequestKind::Watch => "watch",
                    };
                    format!("{kind} {}", request.path_and_query())
                }
                Action::Cancel(op) => {
                    format!("cancel {}", if Some(op) == self.timer { "timer" } else { "request" })
                }
                Action::Wait { op, ms, reason } => {
                    self.timer = Some(op);
                    format!("wait {ms} ms: {reason}")
                }
            });
        }
        for change in step.changes {
            lines.push(match change {
                Change::Upsert(key) => format!("upsert {key}"),
                Change::Delete(key) => format!("delete {key}"),
                Change::InitialListComplete => "synced".to_string(),
                Change::Columns => "columns".to_string(),
                Change::State(state) => format!("state: {state}"),
                Change::Problem(problem) => format!("problem: {problem}"),
            });
        }
        lines
    }

    /// The cache as `key@resourceVersion`, in key order.
    fn cache(&self) -> Vec<String> {
        self.reflector
            .store()
            .iter()
            .map(|(key, cached)| {
                format!("{key}@{}", cached.resource_version.as_ref().map_or("", ResourceVersion::as_str))
            })
            .collect()
    }

    fn resume_point(&self) -> Option<&str> {
        self.reflector.resource_version().map(ResourceVersion::as_str)
    }
}

const PODS: &str = "/api/v1/namespaces/default/pods";

fn config(mode: Mode) -> ReflectorConfig {
    let collection = Collection {
        group: String::new(),
        version: "v1".to_string(),
        plural: "pods".to_string(),
        namespace: Some("default".to_string()),
    };
    ReflectorConfig {
        page_size: NonZeroU32::new(2),
        mode,
        watch_timeout_seconds: None,
        ..ReflectorConfig::new(collection)
    }
}

fn json(text: &str) -> Value {
    decode_json(text.as_bytes()).expect("test json")
}

/// Pod `name` with uid `u-NAME` at resourceVersion `rv`.
fn pod(name: &str, rv: &str) -> Value {
    json(&format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"default","uid":"u-{name}","resourceVersion":"{rv}"}}}}"#
    ))
}

fn page(rv: &str, continue_token: &str, items: &[Value]) -> Feed {
    Feed::Page(list(rv, continue_token, items))
}

fn list(rv: &str, continue_token: &str, items: &[Value]) -> ObjectList {
    ObjectList {
        api_version: "v1".to_string(),
        kind: "PodList".to_string(),
        metadata: ListMeta {
            resource_version: Some(ResourceVersion::new(rv)),
            continue_token: ContinueToken::new(continue_token),
            remaining_item_count: None,
        },
        items: items.to_vec(),
    }
}

fn event(event_type: &str, object: Value) -> Feed {
    Feed::Event(watch_event(event_type, object))
}

fn watch_event(event_type: &str, object: Value) -> WatchEvent {
    let mut document = crate::codec::value::Map::new();
    document.insert("type", Value::String(event_type.to_string()));
    document.insert("object", object);
    WatchEvent::from_document(&Value::Object(document)).expect("event")
}

fn bookmark(rv: &str) -> Feed {
    event("BOOKMARK", json(&format!(r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}"}}}}"#)))
}

fn initial_events_end(rv: &str) -> Feed {
    event(
        "BOOKMARK",
        json(&format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}","annotations":{{"k8s.io/initial-events-end":"true"}}}}}}"#
        )),
    )
}

fn status(code: u16, reason: &str, extra: &str) -> Value {
    json(&format!(
        r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"{reason} happened","reason":"{reason}","code":{code}{extra}}}"#
    ))
}

fn error_event(code: u16, reason: &str) -> Feed {
    event("ERROR", status(code, reason, ""))
}

fn http(code: u16, retry_after: Option<&str>) -> Failure {
    let body = status(code, "Failed", "").to_json();
    Failure::from_response(code, retry_after, Some(&MediaType::json()), body.as_bytes())
}

/// A list-then-watch reflector that sent its first page request.
fn listing() -> Harness {
    Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"])
}

/// Answers the first page with pods a and b at resourceVersion 10: synced, the watch requested.
fn sync_a_and_b(h: &mut Harness) {
    h.check(
        page("10", "", &[pod("a", "5"), pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "upsert u-a",
            "upsert u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
}

/// A list-then-watch reflector synced at resourceVersion 10 with pods a and b, watching.
fn watching() -> Harness {
    let mut h = listing();
    sync_a_and_b(&mut h);
    h.check(Feed::Opened, &["state: watching"]);
    h
}

#[test]
fn a_paged_list_follows_continue_tokens_then_watches_from_the_lists_resource_version() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    let mut first = list("10", "t1", &[pod("a", "5"), pod("b", "6")]);
    first.metadata.remaining_item_count = Some(1);
    h.check(
        Feed::Page(first),
        &[&format!("list {PODS}?limit=2&continue=t1"), "upsert u-a", "upsert u-b", "state: listing (page 2, 1 more)"],
    );
    assert_eq!(h.resume_point(), None, "a page's version is not a resume point until the list completes");
    assert!(!h.reflector.is_synced());
    h.check(
        page("10", "", &[pod("c", "7")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "upsert u-c",
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(Feed::Opened, &["state: watching"]);
    h.check(event("MODIFIED", pod("a", "11")), &["upsert u-a"]);
    h.check(event("DELETED", pod("b", "12")), &["delete u-b"]);
    h.check(event("ADDED", pod("d", "13")), &["upsert u-d"]);
    assert_eq!(h.cache(), ["u-a@11", "u-c@7", "u-d@13"]);
    let cached = h.reflector.store().get(&ObjectKey::Uid("u-d".to_string())).expect("cached");
    assert_eq!(*cached.object.value().expect("tree"), pod("d", "13"));
    assert_eq!(h.reflector.store().get(&ObjectKey::Uid("u-b".to_string())), None);
    assert_eq!(h.reflector.config().page_size, NonZeroU32::new(2));
    assert_eq!(h.resume_point(), Some("13"));
    assert!(h.reflector.is_synced());
    let counters = h.reflector.counters();
    assert_eq!((counters.list_pages, counters.events_applied, counters.syncs, counters.watches), (2, 3, 1, 1));
}

#[test]
fn the_requests_carry_the_selectors_page_size_timeout_and_accept_header() {
    let collection = config(Mode::ListThenWatch).collection;
    let config = ReflectorConfig {
        label_selector: Some("app=web".to_string()),
        field_selector: Some("status.phase=Running".to_string()),
        accept: Accept::only(MediaType::cbor()),
        mode: Mode::ListThenWatch,
        ..ReflectorConfig::new(collection)
    };
    let (mut reflector, step) = Reflector::start(config).expect("valid");
    let [Action::Send { op, request, kind: RequestKind::ListPage }] = step.actions.as_slice() else {
        panic!("expected one list request, found {:?}", step.actions)
    };
    assert_eq!(
        request.path_and_query(),
        format!("{PODS}?labelSelector=app%3Dweb&fieldSelector=status.phase%3DRunning&limit=500")
    );
    assert_eq!(request.header_value("Accept"), Some("application/cbor"));
    let step = reflector.step(Input::ListPage { op: *op, list: list("10", "", &[]).into() }, Jitter::NONE);
    let [Action::Send { request, kind: RequestKind::Watch, .. }] = step.actions.as_slice() else {
        panic!("expected one watch request, found {:?}", step.actions)
    };
    assert_eq!(
        request.path_and_query(),
        format!("{PODS}?watch=true&labelSelector=app%3Dweb&fieldSelector=status.phase%3DRunning&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=290")
    );
    assert_eq!(request.header_value("Accept"), Some("application/cbor"));
}

#[test]
fn a_streaming_list_is_complete_at_the_initial_events_end_bookmark() {
    let mut h = Harness::start(
        config(Mode::StreamingList),
        &[
            &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
            "state: listing (streaming, waiting for the server)",
        ],
    );
    h.check(Feed::Opened, &["state: listing (streaming)"]);
    h.check(event("ADDED", pod("a", "8467")), &["upsert u-a"]);
    h.check(event("ADDED", pod("b", "5726")), &["upsert u-b"]);
    assert_eq!(h.resume_point(), None, "initial events carry object versions, not a resume point");
    h.check(initial_events_end("10245"), &["synced", "state: watching"]);
    assert_eq!(h.resume_point(), Some("10245"));
    assert_eq!(h.reflector.last_bookmark().map(ResourceVersion::as_str), Some("10245"));
    h.check(event("MODIFIED", pod("a", "10300")), &["upsert u-a"]);
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10300&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    assert_eq!(h.reflector.mode(), Mode::StreamingList);
    assert_eq!(h.cache(), ["u-a@10300", "u-b@5726"]);
}

#[test]
fn a_server_that_refuses_send_initial_events_falls_back_to_list_then_watch() {
    for code in [400, 422] {
        let mut h = Harness::start(config(Mode::StreamingList), &[
            &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
            "state: listing (streaming, waiting for the server)",
        ]);
        h.check(
            Feed::WatchFailed(http(code, None)),
            &[
                &format!("list {PODS}?limit=2"),
                &format!("problem: the server does not support streaming lists (HTTP {code} Failed: Failed happened): falling back to list then watch"),
                "state: listing (page 1)",
            ],
        );
        assert_eq!(h.reflector.mode(), Mode::ListThenWatch);
        h.check(
            page("10", "", &[pod("a", "5")]),
            &[
                &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
                "upsert u-a",
                "synced",
                "state: connecting the watch",
            ],
        );
    }
}

#[test]
fn a_stream_that_ends_before_the_initial_events_end_bookmark_falls_back() {
    let mut h = Harness::start(config(Mode::StreamingList), &[
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "state: listing (streaming, waiting for the server)",
    ]);
    h.check(event("ADDED", pod("a", "5")), &["upsert u-a", "state: listing (streaming)"]);
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &[
            &format!("list {PODS}?limit=2"),
            "problem: the server does not support streaming lists (the stream ended before the initial-events-end bookmark): falling back to list then watch",
            "state: listing (page 1)",
        ],
    );
    h.check(
        page("10", "", &[pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "upsert u-b",
            "delete u-a",
            "synced",
            "state: connecting the watch",
        ],
    );
}

#[test]
fn changes_or_plain_bookmarks_before_the_initial_events_end_fall_back() {
    for (feed, what) in [(event("MODIFIED", pod("a", "9")), "MODIFIED"), (bookmark("9"), "BOOKMARK")] {
        let mut h = Harness::start(config(Mode::StreamingList), &[
            &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
            "state: listing (streaming, waiting for the server)",
        ]);
        h.check(event("ADDED", pod("a", "5")), &["upsert u-a", "state: listing (streaming)"]);
        h.check(
            feed,
            &[
                "cancel request",
                &format!("list {PODS}?limit=2"),
                &format!("problem: the server does not support streaming lists (a {what} event before the initial-events-end bookmark): falling back to list then watch"),
                "state: listing (page 1)",
            ],
        );
        assert_eq!(h.reflector.mode(), Mode::ListThenWatch);
    }
}

#[test]
fn a_broken_streaming_list_retries_the_streaming_list_after_a_backoff() {
    let mut h = Harness::start(config(Mode::StreamingList), &[
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "state: listing (streaming, waiting for the server)",
    ]);
    h.check(
        Feed::Ended(WatchEnd::Cut(StreamCut::Connection("connection reset".into()))),
        &[
            "wait 500 ms: the watch stream broke",
            "problem: the watch stream broke: connection reset",
            "state: reconnecting in 0.5 s (attempt 1): the watch stream broke",
        ],
    );
    h.check(Feed::Timer, &[
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "state: listing (streaming, waiting for the server)",
    ]);
    assert_eq!(h.reflector.mode(), Mode::StreamingList);
}

#[test]
fn a_bookmark_only_stream_keeps_the_cache_and_moves_the_resume_point() {
    let mut h = watching();
    h.check(bookmark("20"), &[]);
    h.check(bookmark("30"), &[]);
    assert_eq!(h.resume_point(), Some("30"));
    assert_eq!(h.reflector.last_bookmark().map(ResourceVersion::as_str), Some("30"));
    assert_eq!(h.cache(), ["u-a@5", "u-b@6"]);
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=30&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    assert_eq!(h.reflector.counters().bookmarks, 2);
    assert_eq!(h.reflector.counters().events_applied, 0);
}

#[test]
fn a_dropped_connection_resumes_from_the_last_seen_resource_version() {
    let mut h = watching();
    h.check(event("MODIFIED", pod("a", "15")), &["upsert u-a"]);
    h.check(
        Feed::Ended(WatchEnd::Cut(StreamCut::Connection("network error".into()))),
        &[
            "wait 500 ms: the watch stream broke",
            "problem: the watch stream broke: network error",
            "state: reconnecting in 0.5 s (attempt 1): the watch stream broke",
        ],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=15&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    h.check(
        Feed::WatchFailed(Failure::Network("connection refused".into())),
        &[
            "wait 1000 ms: the watch request failed",
            "problem: watch failed: no response: connection refused",
            "state: reconnecting in 1.0 s (attempt 2): the watch request failed",
        ],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=15&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    h.check(event("ADDED", pod("c", "16")), &["upsert u-c", "state: watching"]);
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
}

#[test]
fn a_timeout_seconds_end_rewatches_from_the_last_resource_version_with_the_same_timeout() {
    let config = ReflectorConfig { watch_timeout_seconds: Some(60), ..config(Mode::ListThenWatch) };
    let mut h = Harness::start(config, &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    h.check(
        page("10", "", &[]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=60"),
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(event("ADDED", pod("a", "11")), &["upsert u-a", "state: watching"]);
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=11&allowWatchBookmarks=true&timeoutSeconds=60"),
            "state: connecting the watch",
        ],
    );
}

#[test]
fn an_in_stream_410_error_relists_and_deletes_exactly_what_vanished() {
    let mut h = watching();
    h.check(event("MODIFIED", pod("a", "20")), &["upsert u-a"]);
    h.check(
        error_event(410, "Expired"),
        &[
            "cancel request",
            &format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    assert!(!h.reflector.is_synced());
    assert_eq!(h.resume_point(), None);
    assert_eq!(h.cache(), ["u-a@20", "u-b@6"], "the stale cache stays visible while relisting");
    h.check(
        page("40", "", &[pod("a", "20"), pod("c", "35")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=40&allowWatchBookmarks=true"),
            "upsert u-c",
            "delete u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
    assert_eq!(h.cache(), ["u-a@20", "u-c@35"]);
    assert_eq!(h.reflector.counters().expired, 1);
}

#[test]
fn a_410_during_a_streaming_list_restarts_the_streaming_list() {
    let mut h = Harness::start(config(Mode::StreamingList), &[
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "state: listing (streaming, waiting for the server)",
    ]);
    h.check(error_event(410, "Expired"), &[
        "cancel request",
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "problem: the watch's resource version expired (410 Gone): relisting",
        "state: relisting after 410 Gone (streaming, waiting for the server)",
    ]);
    h.check(initial_events_end("50"), &["synced", "state: watching"]);
}

#[test]
fn an_http_410_on_the_watch_relists() {
    let mut h = watching();
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    h.check(bookmark("12"), &["state: watching"]);
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=12&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    h.check(
        Feed::WatchFailed(http(410, None)),
        &[
            &format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    h.check(
        page("30", "", &[pod("a", "5"), pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=30&allowWatchBookmarks=true"),
            "synced",
            "state: connecting the watch",
        ],
    );
}

/// The Status a server answers for a resourceVersion newer than its own (kube-sim's
/// `rules::list::too_large_rv`, as the apiserver's watch cache: `storage.NewTooLargeResourceVersionError`).
fn too_large() -> Value {
    status(
        504,
        "Timeout",
        r#","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}"#,
    )
}

/// A pod of another server: the same name, another uid.
fn pod_of_new_server(name: &str, rv: &str) -> Value {
    json(&format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"default","uid":"new-{name}","resourceVersion":"{rv}"}}}}"#
    ))
}

#[test]
fn a_replaced_server_that_does_not_know_the_watchs_version_is_relisted_from_scratch_and_followed() {
    // Synced at 10 with a and b, watching; the server is replaced by one whose versions went
    // back (it is at 3, with a new a and a c): the watch is cut, and resuming at 10 gets 504.
    let mut h = watching();
    h.check(
        Feed::Ended(WatchEnd::Cut(StreamCut::Connection("network error".into()))),
        &[
            "wait 500 ms: the watch stream broke",
            "problem: the watch stream broke: network error",
            "state: reconnecting in 0.5 s (attempt 1): the watch stream broke",
        ],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    let body = too_large().to_json();
    let failure = Failure::from_response(504, None, Some(&MediaType::json()), body.as_bytes());
    h.check(
        Feed::WatchFailed(failure),
        &[
            &format!("list {PODS}?limit=2"),
            "problem: the server does not know the resource version asked for (504 Too large resource version: a restarted or replaced server): relisting from scratch",
            "state: relisting: the server does not know the resource version (page 1)",
        ],
    );
    assert_eq!(h.resume_point(), None, "the old server's version is not sent again");
    h.check(
        page("3", "", &[pod_of_new_server("a", "2"), pod_of_new_server("c", "3")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=3&allowWatchBookmarks=true"),
            "upsert new-a",
            "upsert new-c",
            "delete u-a",
            "delete u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
    assert_eq!(h.cache(), ["new-a@2", "new-c@3"], "the cache equals the new server: nothing of the old one is left");
    assert_eq!(h.reflector.counters().expired, 1);
}

#[test]
fn an_in_stream_too_large_error_relists_and_a_504_without_the_cause_only_retries() {
    // The same Status as an ERROR event (how a watch cache answers a streaming list from a
    // version it does not have).
    let mut h = watching();
    h.check(
        event("ERROR", too_large()),
        &[
            "cancel request",
            &format!("list {PODS}?limit=2"),
            "problem: the server does not know the resource version asked for (504 Too large resource version: a restarted or replaced server): relisting from scratch",
            "state: relisting: the server does not know the resource version (page 1)",
        ],
    );
    // A plain 504 (a gateway's timeout) says nothing of the version: the watch is retried.
    let mut h = watching();
    h.check(
        Feed::WatchFailed(http(504, None)),
        &[
            "wait 500 ms: the watch request failed",
            "problem: watch failed: HTTP 504 Failed: Failed happened",
            "state: reconnecting in 0.5 s (attempt 1): the watch request failed",
        ],
    );
}

#[test]
fn a_410_relists_at_once_and_another_before_any_watch_event_backs_off() {
    let mut h = watching();
    h.check(bookmark("12"), &[]);
    h.check(
        Feed::WatchFailed(http(410, None)),
        &[
            &format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    h.check(
        page("40", "", &[pod("a", "5")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=40&allowWatchBookmarks=true"),
            "delete u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(
        error_event(410, "Gone"),
        &[
            "cancel request",
            "wait 500 ms: the resource version expired again",
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: reconnecting in 0.5 s (attempt 1): the resource version expired again",
        ],
    );
    h.check(Feed::Timer, &[&format!("list {PODS}?limit=2"), "state: relisting after 410 Gone (page 1)"]);
    h.check(
        page("50", "", &[pod("a", "5")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=50&allowWatchBookmarks=true"),
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(bookmark("51"), &["state: watching"]);
    h.check(
        error_event(410, "Expired"),
        &[
            "cancel request",
            &format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    assert_eq!(h.reflector.counters().expired, 3);
}

#[test]
fn an_http_410_on_a_continue_page_restarts_the_list_from_scratch() {
    let mut h = watching();
    h.check(event("MODIFIED", pod("a", "11")), &["upsert u-a"]);
    h.check(
        error_event(410, "Expired"),
        &[
            "cancel request",
            &format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    h.check(
        page("50", "t1", &[pod("a", "11"), pod("c", "45")]),
        &[&format!("list {PODS}?limit=2&continue=t1"), "upsert u-c", "state: relisting after 410 Gone (page 2)"],
    );
    h.check(
        Feed::ListFailed(http(410, None)),
        &[
            "wait 500 ms: the resource version expired again",
            "problem: the continue token expired (410 Gone): relisting",
            "state: reconnecting in 0.5 s (attempt 1): the resource version expired again",
        ],
    );
    h.check(Feed::Timer, &[&format!("list {PODS}?limit=2"), "state: relisting after 410 Gone (page 1)"]);
    h.check(
        page("60", "", &[pod("c", "45")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=60&allowWatchBookmarks=true"),
            "delete u-a",
            "delete u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
}

#[test]
fn a_first_list_whose_continue_token_expires_starts_again_at_once() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    h.check(
        page("10", "t1", &[pod("a", "5"), pod("b", "6")]),
        &[&format!("list {PODS}?limit=2&continue=t1"), "upsert u-a", "upsert u-b", "state: listing (page 2)"],
    );
    h.check(
        Feed::ListFailed(http(410, None)),
        &[
            &format!("list {PODS}?limit=2"),
            "problem: the continue token expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    h.check(
        page("20", "", &[pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=20&allowWatchBookmarks=true"),
            "delete u-a",
            "synced",
            "state: connecting the watch",
        ],
    );
}

#[test]
fn a_429_waits_for_retry_after_when_it_is_longer_than_the_backoff() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    h.check(
        Feed::ListFailed(http(429, Some("3"))),
        &[
            "wait 3000 ms: the list request failed",
            "problem: list failed: HTTP 429 Failed: Failed happened",
            "state: reconnecting in 3.0 s (attempt 1): the list request failed",
        ],
    );
    h.check(Feed::Timer, &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    let short = Failure::Http { code: 429, status: None, retry_after_seconds: Some(0) };
    h.check(
        Feed::ListFailed(short),
        &[
            "wait 1000 ms: the list request failed",
            "problem: list failed: HTTP 429",
            "state: reconnecting in 1.0 s (attempt 2): the list request failed",
        ],
    );
}

#[test]
fn a_failed_continue_page_is_retried_with_the_same_token() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    h.check(
        page("10", "t1", &[pod("a", "5")]),
        &[&format!("list {PODS}?limit=2&continue=t1"), "upsert u-a", "state: listing (page 2)"],
    );
    h.check(
        Feed::ListFailed(http(503, None)),
        &[
            "wait 500 ms: the list request failed",
            "problem: list failed: HTTP 503 Failed: Failed happened",
            "state: reconnecting in 0.5 s (attempt 1): the list request failed",
        ],
    );
    h.check(Feed::Timer, &[&format!("list {PODS}?limit=2&continue=t1"), "state: listing (page 2)"]);
    h.check(
        page("10", "", &[pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "upsert u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
    assert_eq!(h.cache(), ["u-a@5", "u-b@6"]);
}

#[test]
fn repeated_500s_double_the_backoff_up_to_the_cap_and_a_watch_event_resets_it() {
    let mut h = watching();
    let mut waits = Vec::new();
    for _ in 0..9 {
        let step = h.reflector.step(h.input(Feed::WatchFailed(http(500, None))), Jitter::NONE);
        for action in &step.actions {
            if let Action::Wait { op, ms, .. } = action {
                waits.push(*ms);
                h.timer = Some(*op);
            }
        }
        let step = h.reflector.step(h.input(Feed::Timer), Jitter::NONE);
        h.render(step);
    }
    assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    h.check(bookmark("11"), &["state: watching"]);
    h.check(
        Feed::WatchFailed(http(500, None)),
        &[
            "wait 500 ms: the watch request failed",
            "problem: watch failed: HTTP 500 Failed: Failed happened",
            "state: reconnecting in 0.5 s (attempt 1): the watch request failed",
        ],
    );
}

#[test]
fn jitter_shortens_a_wait_by_at_most_its_share_and_retry_after_still_wins() {
    let backoff = BackoffConfig::default();
    assert_eq!(backoff.delay_ms(0, Jitter::NONE, None), 500);
    assert_eq!(backoff.delay_ms(0, Jitter::new(1.0), None), 250);
    assert_eq!(backoff.delay_ms(2, Jitter::new(0.5), None), 1500);
    assert_eq!(backoff.delay_ms(40, Jitter::new(0.5), None), 22_500);
    assert_eq!(backoff.delay_ms(40, Jitter::new(7.0), None), 15_000, "fractions are clamped to 1");
    assert_eq!(backoff.delay_ms(3, Jitter::new(f64::NAN), None), 4000);
    assert_eq!((Jitter::new(-1.0).fraction(), Jitter::new(0.25).fraction()), (0.0, 0.25));
    assert_eq!(backoff.delay_ms(0, Jitter::new(1.0), Some(2)), 2000);
    assert_eq!(backoff.delay_ms(u32::MAX, Jitter::NONE, Some(u32::MAX)), u64::from(u32::MAX) * 1000);
    let none = BackoffConfig { jitter_share: 0.0, ..backoff };
    assert_eq!(none.delay_ms(1, Jitter::new(1.0), None), 1000);
}

#[test]
fn a_non_410_error_event_backs_off_honouring_its_retry_after_seconds() {
    let mut h = watching();
    let throttled = status(429, "TooManyRequests", r#","details":{"retryAfterSeconds":7}"#);
    h.check(
        event("ERROR", throttled),
        &[
            "cancel request",
            "wait 7000 ms: the watch sent an error",
            "problem: the watch sent an error: 429 TooManyRequests: TooManyRequests happened",
            "state: reconnecting in 7.0 s (attempt 1): the watch sent an error",
        ],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
}

#[test]
fn duplicate_and_out_of_order_deliveries_of_the_same_resource_version_are_ignored() {
    let mut h = watching();
    h.check(event("MODIFIED", pod("a", "11")), &["upsert u-a"]);
    h.check(event("MODIFIED", pod("a", "11")), &[]);
    h.check(event("MODIFIED", pod("a", "12")), &["upsert u-a"]);
    h.check(event("MODIFIED", pod("a", "11")), &[]);
    assert_eq!(h.cache(), ["u-a@12", "u-b@6"], "an older version delivered again does not roll back");
    h.check(event("DELETED", pod("b", "13")), &["delete u-b"]);
    h.check(event("ADDED", pod("b", "6")), &[]);
    h.check(event("DELETED", pod("b", "13")), &[]);
    assert_eq!(h.cache(), ["u-a@12"], "a listed version delivered again does not resurrect a deleted object");
    assert_eq!(h.resume_point(), Some("13"));
    let counters = h.reflector.counters();
    assert_eq!((counters.events_applied, counters.duplicates_ignored), (3, 4));
}

#[test]
fn a_list_page_delivered_twice_changes_nothing_the_second_time() {
    let mut h = watching();
    h.check(
        error_event(410, "Expired"),
        &[
            "cancel request",
            &format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting",
            "state: relisting after 410 Gone (page 1)",
        ],
    );
    h.check(
        page("30", "", &[pod("a", "5"), pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=30&allowWatchBookmarks=true"),
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(page("30", "", &[pod("a", "5")]), &[]);
    assert_eq!(h.cache(), ["u-a@5", "u-b@6"], "a page for a request no longer awaited is ignored");
}

#[test]
fn a_stream_cut_inside_an_event_resumes_from_the_last_complete_event() {
    let bytes = shared_file("kube/vectors/watch.jsonl");
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    h.check(
        page("123450", "", &[]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=123450&allowWatchBookmarks=true"),
            "synced",
            "state: connecting the watch",
        ],
    );
    let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
    let cut = bytes.len() - 10;
    let mut lines = Vec::new();
    for chunk in bytes[..cut].chunks(37) {
        for event in decoder.push(chunk).expect("frames") {
            let step = h.reflector.step(h.input(Feed::Event(event)), Jitter::NONE);
            lines.extend(h.render(step));
        }
    }
    let uid = "3f1c2a9e-6b1d-4c55-9f0e-2a7b8c9d0e1f";
    assert_eq!(
        lines,
        [format!("upsert {uid}"), "state: watching".to_string(), format!("upsert {uid}"), format!("delete {uid}")]
    );
    let end = WatchEnd::from_finish(decoder.finish());
    let message = format!("stream truncated at byte {cut}: expected the rest of event 4, found end of stream");
    let WatchEnd::Cut(cut_text) = &end else { panic!("{end:?}") };
    assert_eq!(cut_text.to_string(), message);
    h.check(
        Feed::Ended(end),
        &[
            "wait 500 ms: the watch stream broke",
            &format!("problem: the watch stream broke: {message}"),
            "state: reconnecting in 0.5 s (attempt 1): the watch stream broke",
        ],
    );
    assert_eq!(h.resume_point(), Some("123470"));
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=123470&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    assert!(h.reflector.store().is_empty());
}

#[test]
fn a_malformed_event_ends_the_watch_and_resumes_before_it() {
    let mut h = watching();
    let mut decoder = WatchDecoder::new(&MediaType::json()).expect("json");
    let error = decoder.push(br#"{"type":"RENAMED","object":{}}"#).expect_err("unknown type");
    h.check(Feed::Ended(WatchEnd::Malformed(error)), &[
        "wait 500 ms: the watch stream broke",
        "problem: the watch stream could not be decoded: event 1: expected ADDED, MODIFIED, DELETED, BOOKMARK or ERROR at $.type, found \"RENAMED\"",
        "state: reconnecting in 0.5 s (attempt 1): the watch stream broke",
    ]);
    assert_eq!(WatchEnd::from_finish(Ok(())), WatchEnd::Closed);
}

#[test]
fn pause_cancels_what_runs_and_resume_continues_where_it_left_off() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    h.check(
        page("10", "t1", &[pod("a", "5")]),
        &[&format!("list {PODS}?limit=2&continue=t1"), "upsert u-a", "state: listing (page 2)"],
    );
    h.check(Feed::Pause, &["cancel request", "state: paused"]);
    h.check(Feed::Pause, &[]);
    h.check(page("10", "", &[pod("b", "6")]), &[]);
    h.check(Feed::Resume, &[&format!("list {PODS}?limit=2&continue=t1"), "state: listing (page 2)"]);
    h.check(Feed::Resume, &[]);
    h.check(
        page("10", "", &[pod("b", "6")]),
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "upsert u-b",
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(
        Feed::Ended(WatchEnd::Closed),
        &["wait 500 ms: the watch ended", "state: reconnecting in 0.5 s (attempt 1): the watch ended"],
    );
    h.check(Feed::Pause, &["cancel timer", "state: paused"]);
    h.check(Feed::Timer, &[]);
    h.check(
        Feed::Resume,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    h.check(Feed::Pause, &["cancel request", "state: paused"]);
    h.check(
        Feed::Resume,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
}

#[test]
fn a_paused_streaming_list_starts_again_on_resume() {
    let mut h = Harness::start(config(Mode::StreamingList), &[
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "state: listing (streaming, waiting for the server)",
    ]);
    h.check(event("ADDED", pod("a", "5")), &["upsert u-a", "state: listing (streaming)"]);
    h.check(Feed::Pause, &["cancel request", "state: paused"]);
    h.check(Feed::Resume, &[
        &format!("stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"),
        "state: listing (streaming, waiting for the server)",
    ]);
    h.check(initial_events_end("9"), &["delete u-a", "synced", "state: watching"]);
}

#[test]
fn stop_cancels_and_is_final_but_the_cache_stays() {
    let mut h = watching();
    h.check(Feed::Stop, &["cancel request", "state: stopped"]);
    h.check(event("ADDED", pod("c", "11")), &[]);
    h.check(Feed::Resume, &[]);
    h.check(Feed::Stop, &[]);
    assert_eq!(h.cache(), ["u-a@5", "u-b@6"]);
    assert_eq!(h.reflector.state(), ConnectionState::Stopped);
    let mut paused = watching();
    paused.check(Feed::Pause, &["cancel request", "state: paused"]);
    paused.check(Feed::Stop, &["state: stopped"]);
}

#[test]
fn input_for_superseded_operations_is_ignored() {
    let mut h = watching();
    let old = h.request;
    h.check(
        Feed::WatchFailed(http(500, None)),
        &[
            "wait 500 ms: the watch request failed",
            "problem: watch failed: HTTP 500 Failed: Failed happened",
            "state: reconnecting in 0.5 s (attempt 1): the watch request failed",
        ],
    );
    h.check(
        Feed::Timer,
        &[
            &format!("watch {PODS}?watch=true&resourceVersion=10&allowWatchBookmarks=true"),
            "state: connecting the watch",
        ],
    );
    h.check(Feed::Timer, &[]);
    let stale = watch_event("ADDED", pod("z", "99"));
    let step = h.reflector.step(Input::WatchEvent { op: old.expect("op"), event: stale }, Jitter::NONE);
    assert_eq!(step, Step::default());
    let step = h.reflector.step(Input::WatchEnded { op: OpId(999), end: WatchEnd::Closed }, Jitter::NONE);
    assert_eq!(step, Step::default());
    assert_eq!(h.cache(), ["u-a@5", "u-b@6"]);
}

#[test]
fn objects_without_a_uid_are_keyed_by_namespace_and_name_and_nameless_ones_are_reported() {
    let mut h = watching();
    let no_uid = json(r#"{"kind":"Pod","metadata":{"name":"x","namespace":"default","resourceVersion":"11"}}"#);
    h.check(event("ADDED", no_uid), &["upsert default/x"]);
    let cluster = json(r#"{"kind":"Node","metadata":{"name":"n1","resourceVersion":"12"}}"#);
    h.check(event("ADDED", cluster), &["upsert n1"]);
    h.check(
        event("ADDED", json(r#"{"kind":"Pod","metadata":{"resourceVersion":"13"}}"#)),
        &["problem: expected metadata.uid or metadata.name in a ADDED object, found neither: ignored"],
    );
    h.check(
        event(
            "DELETED",
            json(r#"{"kind":"Pod","metadata":{"name":"x","namespace":"default","resourceVersion":"14"}}"#),
        ),
        &["delete default/x"],
    );
    assert_eq!(h.cache(), ["u-a@5", "u-b@6", "n1@12"]);
    assert_eq!(h.resume_point(), Some("14"));
}

#[test]
fn a_list_without_a_resource_version_is_reported_and_watched_from_the_most_recent_state() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    let list = ObjectList {
        api_version: "v1".into(),
        kind: "PodList".into(),
        metadata: ListMeta::default(),
        items: vec![pod("a", "5")],
    };
    h.check(
        Feed::Page(list),
        &[
            &format!("watch {PODS}?watch=true&allowWatchBookmarks=true"),
            "upsert u-a",
            "problem: the list has no metadata.resourceVersion: watching from the most recent state",
            "synced",
            "state: connecting the watch",
        ],
    );
    h.check(event("ADDED", pod("a", "5")), &["state: watching"]);
    assert_eq!(h.reflector.counters().duplicates_ignored, 1);
}

#[test]
fn a_reflector_without_a_page_size_lists_in_one_request() {
    let mut config = config(Mode::ListThenWatch);
    config.page_size = None;
    let (_, step) = Reflector::start(config).expect("valid");
    assert!(matches!(step.actions.as_slice(), [Action::Send { request, .. }] if request.path_and_query() == PODS));
}

#[test]
fn failures_read_the_status_and_retry_after_of_a_response() {
    let body = status(429, "TooManyRequests", r#","details":{"retryAfterSeconds":4}"#).to_json();
    let failure = Failure::from_response(429, None, Some(&MediaType::json()), body.as_bytes());
    assert_eq!(failure.code(), Some(429));
    assert_eq!(failure.retry_after_seconds(), Some(4));
    assert!(!failure.is_expired());
    assert_eq!(failure.to_string(), "HTTP 429 TooManyRequests: TooManyRequests happened");
    let header_wins = Failure::from_response(429, Some(" 2 "), Some(&MediaType::json()), body.as_bytes());
    assert_eq!(header_wins.retry_after_seconds(), Some(2));
    let plain = Failure::from_response(404, Some("Wed, 21 Oct 2026 07:28:00 GMT"), None, b"404 page not found");
    assert_eq!((plain.to_string(), plain.retry_after_seconds()), ("HTTP 404".to_string(), None));
    let expired = Failure::from_response(
        410,
        None,
        Some(&MediaType::json()),
        &shared_file("kube/vectors/status-410-expired.json"),
    );
    assert!(expired.is_expired());
    assert!(expired.to_string().starts_with("HTTP 410 Expired: "), "{expired}");
    assert_eq!(Failure::Network("offline".into()).code(), None);
    assert!(!Failure::Undecodable(Undecodable::NoContentType).is_expired());
}

#[test]
fn list_responses_become_pages_or_failures() {
    let op = OpId(7);
    let bytes = shared_file("kube/vectors/podlist.json");
    let Input::ListPage { op: got, list } =
        Input::from_list_response(op, 200, None, Some(&MediaType::json()), &bytes, None)
    else {
        panic!("expected a page")
    };
    assert_eq!((got, list.kind.as_str()), (op, "PodList"));
    // Read lazily: each item's head, no tree until one is asked for.
    assert!(!list.items.is_empty() && list.items.iter().all(|item| !item.is_decoded() && item.head().name.is_some()));
    let cbor = shared_file("kube/vectors/podlist.cbor");
    let Input::ListPage { list, .. } = Input::from_list_response(op, 200, None, Some(&MediaType::cbor()), &cbor, None)
    else {
        panic!("expected a page")
    };
    assert!(!list.items.is_empty() && list.items.iter().all(|item| !item.is_decoded() && item.head().name.is_some()));
    let check_failure = |input: Input, expect: &str| match input {
        Input::ListFailed { failure, .. } => assert_eq!(failure.to_string(), expect),
        other => panic!("expected a failure, found {other:?}"),
    };
    check_failure(
        Input::from_list_response(op, 200, None, Some(&MediaType::json()), br#"{"kind":"Pod"}"#, None),
        "undecodable response: expected kind a …List, found \"Pod\"",
    );
    check_failure(
        Input::from_list_response(op, 200, None, None, b"{}", None),
        "undecodable response: expected a Content-Type, found none",
    );
    check_failure(
        Input::from_list_response(
            op,
            200,
            None,
            Some(&MediaType::protobuf()),
            &shared_file("kube/vectors/podlist.pb"),
            None,
        ),
        "undecodable response: expected a JSON, YAML or CBOR list, found application/vnd.kubernetes.protobuf",
    );
    check_failure(Input::from_list_response(op, 500, Some("1"), None, b"", None), "HTTP 500");
    assert!(matches!(
        Input::from_list_response(op, 200, None, Some(&MediaType::json()), b"{", None),
        Input::ListFailed { failure: Failure::Undecodable(_), .. }
    ));
}

#[test]
fn the_connection_state_reads_as_a_status_line() {
    for (state, text) in [
        (ConnectionState::Listing { page: 1, remaining: None, reason: SyncReason::Initial }, "listing (page 1)"),
        (
            ConnectionState::Listing { page: 3, remaining: Some(253), reason: SyncReason::Expired },
            "relisting after 410 Gone (page 3, 253 more)",
        ),
        (
            ConnectionState::StreamingInitial { open: true, reason: SyncReason::Expired },
            "relisting after 410 Gone (streaming)",
        ),
        (ConnectionState::Watching { open: true }, "watching"),
        (
            ConnectionState::Reconnecting { ms: 12_345, attempt: 5, reason: WaitReason::ListFailed },
            "reconnecting in 12.3 s (attempt 5): the list request failed",
        ),
        (ConnectionState::Paused, "paused"),
    ] {
        assert_eq!(state.to_string(), text);
    }
    assert_eq!(OpId(3).to_string(), "#3");
}

/// Feeds a recorded watch body in chunks of `chunk` bytes, then its end; returns the rendered
/// changes and actions.
fn drive(h: &mut Harness, content_type: MediaType, bytes: &[u8], chunk: usize) -> Vec<String> {
    let mut decoder = WatchDecoder::new(&content_type).expect("decoder");
    let mut lines = Vec::new();
    let step = h.reflector.step(h.input(Feed::Opened), Jitter::NONE);
    lines.extend(h.render(step));
    for piece in bytes.chunks(chunk) {
        for event in decoder.push(piece).expect("frames") {
            let step = h.reflector.step(h.input(Feed::Event(event)), Jitter::NONE);
            lines.extend(h.render(step));
        }
    }
    let step = h.reflector.step(h.input(Feed::Ended(WatchEnd::from_finish(decoder.finish()))), Jitter::NONE);
    lines.extend(h.render(step));
    lines
}

#[test]
fn recorded_streaming_lists_sync_the_cache_in_json_and_cbor() {
    for (content_type, bytes, objects, resume) in [
        (MediaType::json(), real_apiserver_body("61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt"), 10, "26"),
        (MediaType::cbor_seq(), shared_file("kube/cbor/watch_pods_sendInitialEvents.cbor-seq"), 8, "498"),
        (MediaType::json(), shared_file("kube/cbor/watch_pods_sendInitialEvents.source.jsonl"), 8, "498"),
    ] {
        let mut config = config(Mode::StreamingList);
        config.collection.namespace = None;
        let (reflector, _) = Reflector::start(config).expect("valid");
        let mut h = Harness { reflector, request: None, timer: None, jitter: Jitter::NONE };
        h.request = Some(OpId(1));
        let lines = drive(&mut h, content_type, &bytes, 113);
        let synced = lines.iter().position(|l| l == "synced").expect("synced");
        assert_eq!(lines[..synced].iter().filter(|l| l.starts_with("upsert ")).count(), objects);
        assert!(h.reflector.is_synced());
        assert_eq!(h.reflector.store().len(), objects);
        assert_eq!(h.reflector.mode(), Mode::StreamingList);
        assert!(h.reflector.store().iter().all(|(key, _)| matches!(key, ObjectKey::Uid(_))));
        assert_eq!(h.resume_point(), Some(resume));
        assert!(lines.last().is_some_and(|l| l.starts_with("state: reconnecting")), "{lines:?}");
    }
}

#[test]
fn a_recorded_list_then_watch_keeps_the_cache_in_step() {
    let mut h =
        Harness::start(config(Mode::ListThenWatch), &[&format!("list {PODS}?limit=2"), "state: listing (page 1)"]);
    let bytes = shared_file("kube/vectors/podlist.json");
    let page = Input::from_list_response(h.request.expect("op"), 200, None, Some(&MediaType::json()), &bytes, None);
    let step = h.reflector.step(page, Jitter::NONE);
    let lines = h.render(step);
    assert!(lines.last().is_some_and(|l| l == "state: listing (page 2, 42 more)"), "{lines:?}");
    let last_page = Input::from_list_response(
        h.request.expect("op"),
        200,
        None,
        Some(&MediaType::json()),
        br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"123500","continue":""},"items":[]}"#,
        None,
    );
    let step = h.reflector.step(last_page, Jitter::NONE);
    assert_eq!(
        h.render(step),
        [
            format!("watch {PODS}?watch=true&resourceVersion=123500&allowWatchBookmarks=true"),
            "synced".to_string(),
            "state: connecting the watch".to_string()
        ]
    );
    let listed = h.reflector.store().len();
    let lines = drive(&mut h, MediaType::json(), &shared_file("kube/vectors/watch.jsonl"), 64);
    assert_eq!(h.resume_point(), Some("123480"), "the last BOOKMARK is the resume point");
    let uid = "3f1c2a9e-6b1d-4c55-9f0e-2a7b8c9d0e1f";
    assert_eq!(
        lines,
        [
            "state: watching".to_string(),
            format!("upsert {uid}"),
            format!("upsert {uid}"),
            format!("delete {uid}"),
            "wait 500 ms: the watch ended".to_string(),
            "state: reconnecting in 0.5 s (attempt 1): the watch ended".to_string(),
        ]
    );
    assert_eq!(h.reflector.store().len(), listed);
    assert_eq!(h.reflector.counters().bookmarks, 1);
}

fn widget_tables(mode: Mode) -> ReflectorConfig {
    let collection = Collection {
        group: "example.com".to_string(),
        version: "v1".to_string(),
        plural: "widgets".to_string(),
        namespace: Some("default".to_string()),
    };
    ReflectorConfig {
        page_size: NonZeroU32::new(3),
        mode,
        watch_timeout_seconds: None,
        ..ReflectorConfig::tables(collection, IncludeObject::Metadata)
    }
}

const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";

/// Every cached entry is a one-row Table without its columns, keyed by its row's object.
fn cached_rows(h: &Harness) -> Vec<String> {
    h.reflector
        .store()
        .iter()
        .map(|(_, cached)| {
            let tree = cached.object.value().expect("tree");
            assert!(is_table(&tree));
            let table = cached.object.table().expect("a Table");
            assert_eq!(table.columns, None, "the columns are kept once, by the reflector");
            let row = tree.at(&["rows"]).and_then(Value::as_array).expect("rows");
            assert_eq!(row.len(), 1);
            let cell = row[0].get("cells").and_then(Value::as_array).and_then(|c| c.first());
            assert_eq!(cell, table.cells.first());
            format!(
                "{}@{}",
                cell.and_then(Value::as_str).unwrap_or_default(),
                cached.resource_version.as_ref().map_or("", ResourceVersion::as_str)
            )
        })
        .collect()
}

#[test]
fn a_recorded_table_list_then_table_watch_keeps_rows_by_uid_and_the_columns_once() {
    let mut h = Harness::start(
        widget_tables(Mode::ListThenWatch),
        &[&format!("list {WIDGETS}?limit=3&includeObject=Metadata"), "state: listing (page 1)"],
    );
    let page_one = real_apiserver_body("30-table-list.txt");
    let input = Input::from_list_response(h.request.expect("op"), 200, None, Some(&MediaType::json()), &page_one, None);
    let step = h.reflector.step(input, Jitter::NONE);
    let lines = h.render(step);
    assert_eq!(lines.iter().filter(|l| *l == "columns").count(), 1, "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("upsert ")).count(), 3, "{lines:?}");
    assert!(lines[0].starts_with(&format!("list {WIDGETS}?limit=3&continue=")), "{lines:?}");
    assert!(lines[0].ends_with("&includeObject=Metadata"), "{lines:?}");
    let columns: Vec<&str> = h.reflector.table_columns().expect("columns").iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["Name", "Size", "Replicas", "Phase", "Color", "Age"]);
    assert!(h.reflector.store().iter().all(|(key, _)| matches!(key, ObjectKey::Uid(_))));
    // The last page: no rows (and a Table's last page has no continue key); its columns go
    // with its rows, of which there are none, so the known ones stay.
    let last = br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"17"},"columnDefinitions":[],"rows":[]}"#;
    let input = Input::from_list_response(h.request.expect("op"), 200, None, Some(&MediaType::json()), last, None);
    let step = h.reflector.step(input, Jitter::NONE);
    let lines = h.render(step);
    assert_eq!(
        lines,
        [
            format!("watch {WIDGETS}?watch=true&resourceVersion=17&allowWatchBookmarks=true&includeObject=Metadata"),
            "synced".to_string(),
            "state: connecting the watch".to_string(),
        ]
    );
    assert_eq!(h.reflector.table_columns().map(<[_]>::len), Some(6));
    assert_eq!(cached_rows(&h).len(), 3);
    // The recorded Table watch (from resourceVersion 0: it repeats what the list gave).
    let lines = drive(&mut h, MediaType::json(), &real_apiserver_body("67-watch-table.txt"), 97);
    assert!(!lines.iter().any(|l| l == "columns"), "the first event's columns are the list's: {lines:?}");
    assert_eq!(h.reflector.table_columns().map(<[_]>::len), Some(6));
    assert_eq!(h.reflector.counters().duplicates_ignored, 3, "w-01..w-03 at the versions listed");
    let mut rows = cached_rows(&h);
    rows.sort();
    assert_eq!(
        rows,
        [
            "w-01@8",
            "w-02@9",
            "w-03@10",
            "w-04@11",
            "w-05@12",
            "w-06@13",
            "w-cbor-notag@19",
            "w-cbor@20",
            "w-default@16",
            "w-gen-ljxtw@17"
        ]
    );
    assert!(lines.iter().any(|l| l == "delete 3b94c478-72bb-4b77-adf4-304de6541a93"), "{lines:?}");
    assert_eq!(h.resume_point(), Some("29"), "the last BOOKMARK, a Table too");
    assert_eq!(h.reflector.last_bookmark().map(ResourceVersion::as_str), Some("29"));
}

#[test]
fn a_recorded_table_watch_streams_the_initial_rows_up_to_the_bookmark_in_its_row() {
    let (reflector, step) = Reflector::start(widget_tables(Mode::StreamingList)).expect("valid");
    let Some(Action::Send { request, .. }) = step.actions.first() else { panic!("a request first") };
    assert!(request.path_and_query().ends_with("&includeObject=Metadata"));
    assert_eq!(
        request.header_value("Accept"),
        Some("application/json;as=Table;g=meta.k8s.io;v=v1,application/json;as=Table;g=meta.k8s.io;v=v1beta1,application/json")
    );
    let mut h = Harness { reflector, request: Some(OpId(1)), timer: None, jitter: Jitter::NONE };
    let lines = drive(&mut h, MediaType::json(), &real_apiserver_body("67-watch-table.txt"), 211);
    let synced = lines.iter().position(|l| l == "synced").expect("the row's initial-events-end completes it");
    assert_eq!(lines[..synced].iter().filter(|l| l.starts_with("upsert ")).count(), 10);
    assert_eq!(lines.iter().filter(|l| *l == "columns").count(), 1);
    assert_eq!(h.reflector.mode(), Mode::StreamingList, "no fall back");
    assert_eq!(h.reflector.store().len(), 10);
    assert_eq!(h.resume_point(), Some("29"));
    assert_eq!(h.reflector.counters().events_applied, 3, "ADDED, MODIFIED, DELETED of w-watch-t");
}

#[test]
fn a_table_page_becomes_one_row_tables_with_the_columns_on_the_first() {
    let document = decode_json(&real_apiserver_body("32-table-list-includeObject-Object.txt")).expect("json");
    let list = table_rows_as_list(&document).expect("a Table");
    assert!(!list.items.is_empty());
    assert_eq!(list.metadata, ListMeta::from_document(&document).expect("meta"));
    for (i, item) in list.items.iter().enumerate() {
        assert!(is_table(item));
        assert_eq!(item.get("columnDefinitions").is_some_and(|c| c.as_array().is_some()), i == 0);
        let object = watched_object(item);
        assert!(object.at(&["spec"]).is_some(), "includeObject=Object rows carry the whole object");
        let lazy = LazyObject::from_value(item.clone());
        assert_eq!(object_version(&lazy).as_ref().map(ResourceVersion::as_str), lazy.own_resource_version());
        assert_eq!(lazy.head(), &ObjectHead::of(object));
        assert!(matches!(ObjectKey::of(item), Some(ObjectKey::Uid(_))));
    }
    let broken = json(r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[7]}"#);
    let error = table_rows_as_list(&broken).expect_err("a row must be an object").to_string();
    assert!(error.contains("$.rows[0]"), "{error}");
}

#[test]
fn a_recorded_in_stream_410_relists() {
    let mut h = watching();
    let lines = drive(&mut h, MediaType::json(), &real_apiserver_body("65-watch-rv-too-old-410-in-stream.txt"), 50);
    assert_eq!(
        lines[..3],
        [
            "cancel request".to_string(),
            format!("list {PODS}?limit=2"),
            "problem: the watch's resource version expired (410 Gone): relisting".to_string()
        ]
    );
    assert_eq!(h.reflector.state(), ConnectionState::Listing { page: 1, remaining: None, reason: SyncReason::Expired });
}

#[test]
fn the_cache_does_not_depend_on_how_a_recorded_stream_is_chunked() {
    for (content_type, bytes) in [
        (MediaType::cbor_seq(), shared_file("kube/cbor/watch_pods_sendInitialEvents.cbor-seq")),
        (MediaType::json(), real_apiserver_body("61-watch-sendInitialEvents-NotOlderThan-bookmarks.txt")),
    ] {
        let mut results = Vec::new();
        for chunk in [1, 2, 3, 5, 8, 13, 97, 1000, bytes.len()] {
            let (reflector, _) = Reflector::start(config(Mode::StreamingList)).expect("valid");
            let mut h = Harness { reflector, request: Some(OpId(1)), timer: None, jitter: Jitter::NONE };
            let lines = drive(&mut h, content_type.clone(), &bytes, chunk);
            results.push((lines, h.cache(), h.resume_point().map(str::to_string)));
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{content_type}: chunking changed the outcome");
    }
}

/// A model server and a faulty network for [`a_reflector_converges_on_the_servers_state_through_any_faults`].
mod model {
    use std::collections::{BTreeMap, VecDeque};

    use super::*;
    use crate::view::status::status_from_document;
    use crate::watch::Bookmark;

    /// splitmix64: a seeded, reproducible sequence.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Rng {
            Rng(seed)
        }

        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        pub fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    /// Objects by name with their uid and resourceVersion, every change since the start, and
    /// the version up to which history has been compacted away.
    #[derive(Default)]
    pub struct Server {
        rv: u64,
        pub objects: BTreeMap<String, (String, u64)>,
        history: Vec<(u64, WatchEvent)>,
        compacted: u64,
        /// Paged list snapshots: the continue token is the index, then the offset.
        snapshots: Vec<(u64, Vec<Value>)>,
    }

    fn object(name: &str, uid: &str, rv: u64) -> Value {
        json(&format!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"default","uid":"{uid}","resourceVersion":"{rv}"}}}}"#
        ))
    }

    fn query<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
        request.query.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn expired() -> Failure {
        let status = status(410, "Expired", "");
        Failure::from_response(410, None, Some(&MediaType::json()), status.to_json().as_bytes())
    }

    impl Server {
        /// Creates, modifies or deletes one of five objects; returns the event.
        pub fn mutate(&mut self, rng: &mut Rng) -> WatchEvent {
            let name = ["a", "b", "c", "d", "e"][rng.below(5) as usize].to_string();
            self.rv += 1;
            let rv = self.rv;
            let event = match self.objects.get(&name).cloned() {
                None => {
                    let uid = format!("u-{name}-{rv}");
                    self.objects.insert(name.clone(), (uid.clone(), rv));
                    WatchEvent::Added(LazyObject::from_value(object(&name, &uid, rv)))
                }
                Some((uid, _)) if rng.chance(30) => {
                    self.objects.remove(&name);
                    WatchEvent::Deleted(LazyObject::from_value(object(&name, &uid, rv)))
                }
                Some((uid, _)) => {
                    self.objects.insert(name.clone(), (uid.clone(), rv));
                    WatchEvent::Modified(LazyObject::from_value(object(&name, &uid, rv)))
                }
            };
            self.history.push((rv, event.clone()));
            event
        }

        pub fn compact(&mut self) {
            self.compacted = self.rv;
        }

        fn items(&self) -> Vec<Value> {
            self.objects.iter().map(|(name, (uid, rv))| object(name, uid, *rv)).collect()
        }

        /// A page of two: a fresh snapshot, or the next page of one (410 once compacted).
        pub fn list(&mut self, request: &Request) -> Result<ObjectList, Failure> {
            let (index, offset) = match query(request, "continue") {
                None => {
                    self.snapshots.push((self.rv, self.items()));
                    (self.snapshots.len() - 1, 0)
                }
                Some(token) => {
                    let (index, offset) = token.split_once(':').expect("our token");
                    (index.parse().expect("index"), offset.parse().expect("offset"))
                }
            };
            let (rv, items) = &self.snapshots[index];
            if offset > 0 && *rv < self.compacted {
                return Err(expired());
            }
            let end = (offset + 2).min(items.len());
            let token = if end < items.len() { format!("{index}:{end}") } else { String::new() };
            Ok(list(&rv.to_string(), &token, &items[offset..end]))
        }

        fn bookmark(&self, initial_events_end: bool) -> WatchEvent {
            WatchEvent::Bookmark(Bookmark {
                resource_version: Some(ResourceVersion::new(self.rv.to_string())),
                initial_events_end,
                object: Value::Null,
            })
        }

        /// What a watch (or streaming list) request starts with, or how it fails.
        pub fn watch(&self, request: &Request) -> Result<VecDeque<WatchEvent>, Failure> {
            if query(request, "sendInitialEvents").is_some() {
                let mut events: VecDeque<WatchEvent> =
                    self.items().into_iter().map(|o| WatchEvent::Added(LazyObject::from_value(o))).collect();
                events.push_back(self.bookmark(true));
                return Ok(events);
            }
            let from: u64 = query(request, "resourceVersion").and_then(|v| v.parse().ok()).expect("resume point");
            if from < self.compacted {
                let status = status_from_document(&status(410, "Expired", "")).expect("status");
                return Ok(VecDeque::from([WatchEvent::Error(Box::new(status))]));
            }
            Ok(self.history.iter().filter(|(rv, _)| *rv > from).map(|(_, e)| e.clone()).collect())
        }

        pub fn watch_bookmark(&self) -> WatchEvent {
            self.bookmark(false)
        }
    }

    /// The one operation the reflector waits for.
    pub enum Current {
        Timer(OpId),
        List(OpId, Request),
        Connecting(OpId, Request),
        Streaming { op: OpId, pending: VecDeque<WatchEvent>, sent: Vec<WatchEvent> },
    }

    impl Current {
        /// The operation the actions start, if any; at most one at a time.
        #[track_caller]
        pub fn from_actions(actions: &[Action]) -> Option<Current> {
            let started: Vec<Current> = actions
                .iter()
                .filter_map(|action| match action {
                    Action::Send { op, request, kind: RequestKind::ListPage } => {
                        Some(Current::List(*op, request.clone()))
                    }
                    Action::Send { op, request, .. } => Some(Current::Connecting(*op, request.clone())),
                    Action::Wait { op, .. } => Some(Current::Timer(*op)),
                    Action::Cancel(_) => None,
                })
                .collect();
            assert!(started.len() <= 1, "more than one operation started: {actions:?}");
            started.into_iter().next()
        }
    }
}

/// Runs one seed: `rounds` of server changes, faults and deliveries, then a fault-free drain.
/// Returns what the run ended with.
fn converge(seed: u64, rounds: usize) -> Run {
    use model::{Current, Rng, Server};
    let mut rng = Rng::new(seed);
    let mut server = Server::default();
    for _ in 0..4 {
        server.mutate(&mut rng);
    }
    let mode = if rng.chance(50) { Mode::StreamingList } else { Mode::ListThenWatch };
    let (mut reflector, step) = Reflector::start(config(mode)).expect("valid");
    let mut current = Current::from_actions(&step.actions).expect("a first request");
    for round in 0..rounds + 400 {
        let faults = round < rounds;
        if faults && rng.chance(30) {
            let event = server.mutate(&mut rng);
            if let Current::Streaming { pending, .. } = &mut current {
                pending.push_back(event);
            }
        }
        if faults && rng.chance(3) {
            server.compact();
        }
        let jitter = Jitter::new(rng.below(1000) as f64 / 1000.0);
        let input = match current {
            Current::Timer(op) => Input::TimerFired { op },
            Current::List(op, ref request) => match server.list(request) {
                _ if faults && rng.chance(8) => Input::ListFailed { op, failure: http(500, Some("1")) },
                Ok(list) => Input::ListPage { op, list: list.into() },
                Err(failure) => Input::ListFailed { op, failure },
            },
            Current::Connecting(op, ref request) => match server.watch(request) {
                _ if faults && rng.chance(8) => Input::WatchFailed { op, failure: http(500, None) },
                _ if faults && query_has(request, "sendInitialEvents") && rng.chance(5) => {
                    Input::WatchFailed { op, failure: http(422, None) }
                }
                Ok(pending) => {
                    current = Current::Streaming { op, pending, sent: Vec::new() };
                    Input::WatchOpened { op }
                }
                Err(failure) => Input::WatchFailed { op, failure },
            },
            Current::Streaming { op, ref mut pending, ref mut sent } => {
                if faults && rng.chance(4) {
                    Input::WatchEnded { op, end: WatchEnd::Closed }
                } else if faults && rng.chance(3) {
                    Input::WatchEnded { op, end: WatchEnd::Cut(StreamCut::Connection("reset".into())) }
                } else if faults && !sent.is_empty() && rng.chance(8) {
                    let again = sent[rng.below(sent.len() as u64) as usize].clone();
                    Input::WatchEvent { op, event: again }
                } else if let Some(event) = pending.pop_front() {
                    sent.push(event.clone());
                    Input::WatchEvent { op, event }
                } else if rng.chance(20) && reflector.is_synced() {
                    Input::WatchEvent { op, event: server.watch_bookmark() }
                } else {
                    continue;
                }
            }
        };
        let step = reflector.step(input, jitter);
        if let Some(started) = Current::from_actions(&step.actions) {
            current = started;
        }
    }
    assert!(
        matches!(&current, Current::Streaming { pending, .. } if pending.is_empty()),
        "seed {seed}: not watching after the drain: {}",
        reflector.state()
    );
    assert!(reflector.is_synced(), "seed {seed}");
    let cache: Vec<String> = reflector
        .store()
        .iter()
        .map(|(key, c)| format!("{key}@{}", c.resource_version.as_ref().map_or("", ResourceVersion::as_str)))
        .collect();
    let mut expected: Vec<String> = server.objects.values().map(|(uid, rv)| format!("{uid}@{rv}")).collect();
    expected.sort();
    Run { cache, expected, counters: reflector.counters(), fell_back: mode != reflector.mode() }
}

/// The end of one [`converge`] run: the reflector's cache and the server's objects, both as
/// `uid@resourceVersion`, the counters, and whether a streaming list fell back.
struct Run {
    cache: Vec<String>,
    expected: Vec<String>,
    counters: Counters,
    fell_back: bool,
}

fn query_has(request: &Request, name: &str) -> bool {
    request.query.iter().any(|(n, _)| n == name)
}

#[test]
fn a_reflector_converges_on_the_servers_state_through_any_faults() {
    let (mut totals, mut fell_back) = ([0u64; 5], 0);
    for seed in 0..200 {
        let Run { cache, expected, counters, fell_back: fallback } = converge(seed, 300);
        assert_eq!(cache, expected, "seed {seed}");
        for (total, count) in totals.iter_mut().zip([
            counters.duplicates_ignored,
            counters.expired,
            counters.list_pages,
            counters.bookmarks,
            counters.events_applied,
        ]) {
            *total += count;
        }
        fell_back += u64::from(fallback);
    }
    assert!(totals.iter().all(|t| *t > 0), "every path was taken: {totals:?}");
    assert!(fell_back > 0, "no streaming list fell back");
}

/// Every input naming an operation other than the one awaited changes nothing, in each phase that
/// awaits one (each `got == op` guard of `Reflector::transition`), and the cache stays as it was.
#[test]
fn in_every_phase_input_for_another_operation_changes_nothing() {
    let stale = OpId(9_999);
    let inputs = || {
        vec![
            Input::ListPage { op: stale, list: list("99", "", &[pod("z", "99")]).into() },
            Input::ListFailed { op: stale, failure: http(410, None) },
            Input::WatchOpened { op: stale },
            Input::WatchEvent { op: stale, event: watch_event("ADDED", pod("z", "99")) },
            Input::WatchEnded { op: stale, end: WatchEnd::Closed },
            Input::WatchFailed { op: stale, failure: http(410, None) },
            Input::TimerFired { op: stale },
        ]
    };
    let ignores_all = |h: &mut Harness, phase: &str| {
        let cache = h.cache();
        for input in inputs() {
            let shown = format!("{input:?}");
            let step = h.reflector.step(input, Jitter::NONE);
            assert_eq!(step, Step::default(), "{phase}: {shown}");
        }
        assert_eq!(h.cache(), cache, "{phase}");
    };
    let mut h = listing();
    ignores_all(&mut h, "listing");
    // The watch requested, not open yet; then open.
    sync_a_and_b(&mut h);
    ignores_all(&mut h, "watch requested");
    h.check(Feed::Opened, &["state: watching"]);
    ignores_all(&mut h, "watching");
    h.check(
        Feed::WatchFailed(http(500, None)),
        &[
            "wait 500 ms: the watch request failed",
            "problem: watch failed: HTTP 500 Failed: Failed happened",
            "state: reconnecting in 0.5 s (attempt 1): the watch request failed",
        ],
    );
    ignores_all(&mut h, "backoff");

    let stream = format!(
        "stream {PODS}?watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true"
    );
    let mut s =
        Harness::start(config(Mode::StreamingList), &[&stream, "state: listing (streaming, waiting for the server)"]);
    ignores_all(&mut s, "streaming list requested");
    s.check(Feed::Opened, &["state: listing (streaming)"]);
    ignores_all(&mut s, "streaming list open");
    // The initial-events-end bookmark is counted (`bookmarks` counts every bookmark seen).
    s.check(initial_events_end("10"), &["synced", "state: watching"]);
    assert_eq!(s.reflector.counters().bookmarks, 1);
}

#[test]
fn the_store_is_empty_exactly_when_it_holds_no_object() {
    let mut h = watching();
    assert_eq!((h.reflector.store().len(), h.reflector.store().is_empty()), (2, false));
    h.check(event("DELETED", pod("a", "11")), &["delete u-a"]);
    h.check(event("DELETED", pod("b", "12")), &["delete u-b"]);
    assert_eq!((h.reflector.store().len(), h.reflector.store().is_empty()), (0, true));
}
