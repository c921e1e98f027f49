//! Browser tests: the `client` module and components, run in headless Chromium by
//! `wasm-bindgen-test-runner` (`cargo test --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]

use kube_api_explorer::client::discovery::LoadError;
use kube_api_explorer::client::error::ApiError;
use kube_api_explorer::client::fetch::{execute, now_ms, ClientError, Response};
use kube_api_explorer::client::fetched::{decode_response, Fetched};
use kube_api_explorer::client::handle::{Client, Exchange};
use kube_api_explorer::model::host::ApiBase;
use kube_api_explorer::model::requests;
use kube_api_explorer::ui::ErrorState;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The ConfigMap type, as discovery describes it.
fn configmap_type() -> kube_api_explorer::api::discovery::ResourceType {
    kube_api_explorer::api::discovery::ResourceType {
        group: String::new(),
        version: "v1".into(),
        plural: "configmaps".into(),
        singular: "configmap".into(),
        kind: "ConfigMap".into(),
        scope: kube_api_explorer::api::discovery::Scope::Namespaced,
        verbs: vec![],
        short_names: vec![],
        categories: vec![],
        subresources: vec![],
    }
}

/// The ConfigMaps of namespace `demo`.
fn configmaps() -> kube_api_explorer::api::request::Collection {
    kube_api_explorer::api::request::Collection::new(&configmap_type(), Some("demo")).expect("collection")
}

fn signal() -> web_sys::AbortSignal {
    web_sys::AbortController::new().expect("an AbortController").signal()
}

#[wasm_bindgen_test]
async fn execute_reads_status_headers_and_body_of_a_same_origin_response() {
    // The test runner serves its own page: a real HTTP exchange through fetch.
    let response = execute(&ApiBase::same_origin(), &requests::discovery_document("/"), &signal())
        .await
        .expect("the runner's page answers");
    assert_eq!(response.status, 200);
    assert!(response.header("content-type").is_some_and(|t| t.contains("text/html")), "{:?}", response.headers);
    assert!(!response.body.is_empty());
    assert!(response.total_ms >= response.time_to_headers_ms);
}

#[wasm_bindgen_test]
async fn execute_reports_a_closed_port_as_a_network_error_naming_the_url() {
    let base_request = requests::discovery_document("http://127.0.0.1:9/version");
    let error =
        execute(&ApiBase::same_origin(), &base_request, &signal()).await.expect_err("nothing listens on port 9");
    match &error {
        ClientError::Network { url, .. } => assert_eq!(url, "http://127.0.0.1:9/version"),
        other => panic!("expected a network error, got {other:?}"),
    }
    assert!(error.to_string().starts_with("could not reach http://127.0.0.1:9/version"), "{error}");
}

#[wasm_bindgen_test]
async fn the_client_refuses_writes_before_fetch_while_its_gate_is_closed_and_still_reads() {
    let owner = Owner::new();
    owner.set();
    let writes = RwSignal::new(false);
    let client = Client::new(ApiBase::same_origin(), writes.into());
    let seen = RwSignal::new(Vec::<(String, bool)>::new());
    client.subscribe(Callback::new(move |exchange: Exchange| {
        seen.update(|s| s.push((exchange.request.method().to_string(), exchange.outcome.is_ok())))
    }));
    let probe = configmaps().object("read-only-probe").expect("a name");
    let delete = requests::delete(&probe, &Default::default());
    let refused = client.send(delete.clone()).await;
    let read = client.send(requests::discovery_document("/")).await;
    match refused {
        Err(ClientError::ReadOnly { url, method }) => {
            assert!(url.ends_with("/read-only-probe"), "{url}");
            assert_eq!(method, "DELETE");
        }
        other => panic!("expected the DELETE refused in read-only mode, got {other:?}"),
    }
    assert_eq!(read.expect("GETs still go out").response.status, 200);
    assert_eq!(seen.get_untracked(), [("DELETE".to_owned(), false), ("GET".to_owned(), true)], "the observer saw both");
    writes.set(true);
    let sent = client.send(delete).await.expect("the gate is open: the DELETE reaches the runner");
    assert!(sent.response.status >= 400, "the runner refuses a DELETE: {}", sent.response.status);
}

#[wasm_bindgen_test]
async fn a_request_is_aborted_when_the_owner_of_its_handle_is_cleaned_up() {
    let app = Owner::new();
    app.set();
    let client = Client::new(ApiBase::same_origin(), Signal::stored(true));
    let view = app.child();
    let handle = view.with(|| client.for_current_owner());
    let (done, outcome) = futures::channel::oneshot::channel();
    wasm_bindgen_futures::spawn_local(async move {
        let _ = done.send(handle.send(requests::discovery_document("/?slow")).await);
    });
    // Let the task start its fetch, then leave the view.
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL)).await.ok();
    view.cleanup();
    match outcome.await.expect("the task ends") {
        Err(ClientError::Network { message, .. }) => assert!(message.to_lowercase().contains("abort"), "{message}"),
        other => panic!("expected the fetch aborted, got {other:?}"),
    }
    let later = client.send(requests::discovery_document("/")).await.expect("the app's own handle still sends");
    assert_eq!(later.response.status, 200);
}

#[wasm_bindgen_test]
fn an_answer_is_read_as_a_typed_error_never_a_sentence() {
    let response = |status: u16, body: &str| Response {
        url: "http://x/api/v1/namespaces/demo/pods/gone".to_owned(),
        status,
        status_text: String::new(),
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: body.as_bytes().into(),
        time_to_headers_ms: 0.0,
        total_ms: 0.0,
    };
    let not_found = decode_response(
        requests::discovery_document("/api/v1/namespaces/demo/pods/gone"),
        response(
            404,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"gone\" not found","reason":"NotFound","code":404}"#,
        ),
    );
    let error = not_found.error().expect("a 404 is a failure");
    assert!(error.is_not_found());
    assert_eq!(error.status().map(|s| s.reason.as_str()), Some("NotFound"));
    assert_eq!(error.to_string(), r#"404 NotFound: pods "gone" not found"#);
    let plain = decode_response(requests::discovery_document("/x"), response(503, ""));
    assert!(matches!(plain.error(), Some(ApiError::Http { code: 503, .. })));
    let ok = decode_response(requests::discovery_document("/x"), response(200, r#"{"kind":"Pod"}"#));
    assert!(ok.error().is_none());
    assert_eq!(ok.document().expect("a document").get("kind").and_then(|k| k.as_str()), Some("Pod"));
    let throttled = Fetched::new(
        requests::discovery_document("/x"),
        Response { headers: vec![("retry-after".to_owned(), "3".to_owned())], ..ok.response.clone() },
    );
    assert_eq!(throttled.retry_after_seconds(), Some(3));
    // A response read its own way is not decoded until something asks, and then once.
    let undecoded = Fetched::new(requests::discovery_document("/x"), response(200, r#"{"kind":"Pod"}"#));
    assert_eq!(undecoded.decode_ms(), None);
    assert!(undecoded.decoded().is_ok());
    assert!(undecoded.decode_ms().is_some());
    let logged = undecoded.for_log(64);
    assert_eq!(logged.decode_ms(), undecoded.decode_ms(), "the log keeps the timing");
    assert_eq!(logged.response, undecoded.response, "a body within the bound is kept whole");
    assert!(logged.document().is_ok(), "and decodes again if asked");
    // A body over the bound: its first bytes only, a copy (the log does not keep the body alive).
    let large = Fetched::new(requests::discovery_document("/x"), response(200, &"x".repeat(1000)));
    let logged = large.for_log(64);
    assert_eq!(&logged.response.body[..], &large.response.body[..64]);
    assert_eq!(std::sync::Arc::strong_count(&large.response.body), 1);
    assert_eq!((logged.response.status, logged.response.headers.clone()), (200, large.response.headers.clone()));
    let broken = Fetched::new(requests::discovery_document("/x"), response(200, r#"{"kind":"#));
    assert!(matches!(broken.error(), Some(ApiError::Undecodable { code: 200, .. })), "{:?}", broken.error());
    // An excerpt of a long body reads no further than it shows.
    let long = response(500, &"é".repeat(100_000));
    let excerpt = long.body_excerpt(10);
    assert_eq!(excerpt, format!("{}…", "é".repeat(10)));
}

#[wasm_bindgen_test]
fn now_ms_is_monotonic() {
    let first = now_ms();
    assert!(now_ms() >= first);
    assert!(first > 0.0);
}

#[wasm_bindgen_test]
async fn error_state_names_the_url_what_came_back_and_what_to_do() {
    let document = web_sys::window().unwrap().document().unwrap();
    let host = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    let error = LoadError::Http {
        url: "http://127.0.0.1:8080/version".to_owned(),
        status: 502,
        status_text: "Bad Gateway".to_owned(),
        excerpt: "connection refused".to_owned(),
    };
    let retries = RwSignal::new(0);
    let _handle = leptos::mount::mount_to(host.clone().dyn_into().unwrap(), move || {
        view! { <ErrorState error=error.clone() on_retry=move || retries.update(|n| *n += 1) /> }
    });
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("http://127.0.0.1:8080/version"), "{text}");
    assert!(text.contains("HTTP 502 Bad Gateway: connection refused"), "{text}");
    assert!(text.contains("kubectl proxy"), "{text}");
    let button: web_sys::HtmlElement = host.query_selector("button").unwrap().unwrap().dyn_into().unwrap();
    button.click();
    assert_eq!(retries.get_untracked(), 1);
}

#[wasm_bindgen_test]
async fn stream_permits_beyond_the_budget_wait_until_one_is_given_back() {
    use kube_api_explorer::client::stream::{budget_use, Permit};
    use std::cell::Cell;
    use std::rc::Rc;
    let limit = budget_use().2;
    let mut held = Vec::new();
    for _ in 0..limit {
        held.push(Permit::acquire().await);
    }
    assert_eq!(budget_use(), (limit, 0, limit));
    let granted = Rc::new(Cell::new(false));
    let flag = granted.clone();
    let (done_tx, done_rx) = futures::channel::oneshot::channel::<Permit>();
    wasm_bindgen_futures::spawn_local(async move {
        let permit = Permit::acquire().await;
        flag.set(true);
        let _ = done_tx.send(permit);
    });
    // Let the spawned task run up to its wait.
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL)).await.ok();
    assert!(!granted.get(), "a stream beyond the budget waits");
    assert_eq!(budget_use(), (limit, 1, limit));
    held.pop();
    let extra = done_rx.await.expect("the waiting stream gets the slot given back");
    assert!(granted.get());
    assert_eq!(budget_use(), (limit, 0, limit));
    drop(extra);
    held.clear();
    assert_eq!(budget_use(), (0, 0, limit));
}

/// Lets scheduled effects and tasks run (a macrotask turn).
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

#[wasm_bindgen_test]
async fn the_mount_api_applies_its_config_to_the_element_and_unmount_takes_everything_back() {
    use kube_api_explorer::ui::mount_api::mount_into;
    let document = web_sys::window().unwrap().document().unwrap();
    let element: web_sys::HtmlElement = document.create_element("div").unwrap().dyn_into().unwrap();
    document.body().unwrap().append_child(&element).unwrap();
    let config = js_sys::JSON::parse(
        r##"{"apiBase": "http://127.0.0.1:9", "readOnly": true, "theme": "dark", "accent": "#E4572E"}"##,
    )
    .unwrap();
    let handle = mount_into(element.clone(), config).map_err(wasm_bindgen::JsValue::from).expect("mounts");
    settle().await;
    assert!(handle.mounted());
    assert_eq!(element.get_attribute("data-theme").as_deref(), Some("dark"));
    assert_eq!(element.style().get_property_value("--accent").unwrap(), "#e4572e");
    assert!(element.class_list().contains("kae-mount"));
    let text = element.text_content().unwrap_or_default();
    assert!(text.contains("http://127.0.0.1:9"), "{text}");
    assert!(text.contains("from the mount config"), "{text}");
    assert!(text.contains("Read-only (set by the host)"), "{text}");

    handle.unmount();
    assert!(!handle.mounted());
    assert_eq!(element.child_element_count(), 0, "{:?}", element.inner_html());
    assert_eq!(element.get_attribute("data-theme"), None);
    assert_eq!(element.style().get_property_value("--accent").unwrap(), "");
    assert!(!element.class_list().contains("kae-mount"));
    let late = handle.navigate(js_sys::JSON::parse(r#"{"resource": "pods"}"#).unwrap());
    assert!(late.is_err());
    handle.unmount();
}

#[wasm_bindgen_test]
fn a_bad_mount_config_throws_naming_each_problem_and_mounts_nothing() {
    use kube_api_explorer::ui::mount_api::mount_into;
    let document = web_sys::window().unwrap().document().unwrap();
    let element: web_sys::HtmlElement = document.create_element("div").unwrap().dyn_into().unwrap();
    let config = js_sys::JSON::parse(r#"{"apiBase": "ftp://x", "accent": "url(x)", "colour": "red"}"#).unwrap();
    let Err(error) = mount_into(element.clone(), config) else { panic!("a bad config mounted") };
    let error = wasm_bindgen::JsValue::from(error);
    let message = js_sys::Reflect::get(&error, &"message".into()).unwrap().as_string().unwrap_or_default();
    assert!(message.starts_with("kube-api-explorer mount: "), "{message}");
    assert!(message.contains("config.accent \"url(x)\": expected a CSS colour"), "{message}");
    assert!(message.contains("config.colour: not a setting"), "{message}");
    assert!(message.contains("config.apiBase \"ftp://x\""), "{message}");
    assert_eq!(element.child_element_count(), 0);
}

/// kube-sim's address for the tests that need a real API server: `scripts/test` starts one and
/// sets `KUBE_SIM_URL` when it builds these tests.
fn kube_sim() -> ApiBase {
    let Some(url) = option_env!("KUBE_SIM_URL") else {
        panic!("KUBE_SIM_URL names no kube-sim: scripts/test starts one for the browser tests and sets it")
    };
    ApiBase::parse(url).expect("KUBE_SIM_URL is an http URL")
}

/// Waits (in macrotask turns) until `done` holds, for at most `seconds`.
async fn until(seconds: f64, mut done: impl FnMut() -> bool) -> bool {
    let started = now_ms();
    while !done() {
        if now_ms() - started > seconds * 1000.0 {
            return false;
        }
        settle().await;
    }
    true
}

/// What a test observer saw of a reflector.
#[derive(Default)]
struct Seen {
    before: Vec<(String, u64)>,
    after: Vec<Option<String>>,
    initial_list_complete: bool,
}

struct TestObserver(std::rc::Rc<std::cell::RefCell<Seen>>);

impl kube_api_explorer::client::reflector::ReflectorObserver for TestObserver {
    type Seen = String;

    fn before_event(&self, event: &kube_api_explorer::api::watch::WatchEvent, seq: u64, _arrived: f64) -> String {
        let name = event.object().and_then(|o| o.head().name.clone()).unwrap_or_default();
        self.0.borrow_mut().before.push((format!("{} {name}", event.event_type()), seq));
        name
    }

    fn after_event(
        &self,
        reflector: &kube_api_explorer::api::reflector::Reflector,
        key: Option<kube_api_explorer::api::reflector::ObjectKey>,
        name: String,
    ) {
        // After the event, the cache holds the object (or no longer does, for a DELETED one).
        let cached = key.and_then(|key| reflector.store().get(&key).map(|_| name));
        self.0.borrow_mut().after.push(cached);
    }

    fn stepped(&self, changes: Vec<kube_api_explorer::api::reflector::Change>) {
        if changes.iter().any(|c| matches!(c, kube_api_explorer::api::reflector::Change::InitialListComplete)) {
            self.0.borrow_mut().initial_list_complete = true;
        }
    }
}

#[wasm_bindgen_test]
async fn use_reflector_lists_then_watches_a_real_server_and_stops_with_its_owner() {
    use kube_api_explorer::api::discovery::{ApiGroup, Discovery, GroupVersionResources};
    use kube_api_explorer::api::reflector::ReflectorConfig;
    use kube_api_explorer::client::reflector::use_reflector;
    use kube_api_explorer::client::stream::budget_use;
    use kube_api_explorer::model::write::plan_creates;

    let client = Client::new(kube_sim(), Signal::stored(true));
    let collection = configmaps();
    let versions = vec![GroupVersionResources { version: "v1".into(), resources: vec![configmap_type()] }];
    let discovery = Discovery { groups: vec![ApiGroup { name: String::new(), versions }] };
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Seen::default()));
    // The hook runs in a mounted view, as the live view runs it; unmounting the view stops it.
    let document = web_sys::window().unwrap().document().unwrap();
    let host: web_sys::HtmlElement = document.create_element("div").unwrap().dyn_into().unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    let slot = std::rc::Rc::new(std::cell::RefCell::new(None));
    let (view_client, view_collection, view_slot, observed) =
        (client.clone(), collection.clone(), slot.clone(), seen.clone());
    let view = leptos::mount::mount_to(host, move || {
        view_client.provide();
        let returned = use_reflector(ReflectorConfig::new(view_collection), None, |_| TestObserver(observed));
        *view_slot.borrow_mut() = Some(returned);
        view! { <p>"live"</p> }
    });
    let returned = slot.borrow_mut().take().expect("the view ran the hook");
    let store = returned.store.clone().expect("the config is valid");
    assert!(until(10.0, || seen.borrow().initial_list_complete).await, "the streaming list completes");
    let listed = store.reflector().store().len();
    assert!(listed > 0, "demo has configmaps");
    assert_eq!(budget_use().0, 1, "the watch holds a slot of the stream budget");

    // A change made meanwhile arrives as an event, seen before and after it is applied.
    let name = format!("hook-{}", js_sys::Math::random().to_bits() % 1_000_000);
    let text = format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}}}}"#);
    let mut plan = plan_creates(&text, &discovery, Some("demo"), &Default::default());
    let create = plan.pop().and_then(|item| item.request.ok()).expect("a create of one ConfigMap");
    let created = client.send(create).await.expect("kube-sim answers");
    assert_eq!(created.response.status, 201, "{}", created.response.body_excerpt(300));
    let added = format!("ADDED {name}");
    assert!(until(10.0, || seen.borrow().before.iter().any(|(e, _)| *e == added)).await, "{:?}", seen.borrow().before);
    assert!(until(2.0, || store.reflector().store().len() == listed + 1).await);
    assert!(
        seen.borrow().after.contains(&Some(name.clone())),
        "the observer saw the object in the cache after the event"
    );
    let seqs: Vec<u64> = seen.borrow().before.iter().map(|(_, seq)| *seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "events are numbered in order: {seqs:?}");
    assert!(
        until(2.0, || returned.state.get_untracked().to_string().contains("watching")).await,
        "{}",
        returned.state.get_untracked()
    );
    assert!(!returned.resource_version.get_untracked().is_empty());

    // Pausing closes the watch and gives its slot back; leaving the view stops everything.
    returned.pause.run(true);
    assert!(until(5.0, || budget_use().0 == 0).await, "paused: {:?}", budget_use());
    returned.pause.run(false);
    assert!(until(5.0, || budget_use().0 == 1).await, "resumed: {:?}", budget_use());
    drop(view);
    assert!(until(5.0, || budget_use().0 == 0).await, "stopped: {:?}", budget_use());
    let _ = client.send(requests::delete(&collection.object(&name).expect("name"), &Default::default())).await;
}

/// Lets the tasks that are ready run (a few turns of the microtask queue and one of the tasks).
async fn let_tasks_run() {
    for _ in 0..3 {
        wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL)).await.ok();
    }
    kube_api_explorer::client::task::sleep(std::time::Duration::from_millis(10)).await;
}

#[wasm_bindgen_test]
async fn a_task_of_a_view_is_dropped_where_it_waits_when_the_view_is_cleaned_up() {
    use kube_api_explorer::client::task::Tasks;
    use std::cell::Cell;
    use std::rc::Rc;
    let app = Owner::new();
    app.set();
    let view = app.child();
    let (answer, arrives) = futures::channel::oneshot::channel::<u32>();
    let read = Rc::new(Cell::new(None));
    let (tasks, rows) = view.with(|| (Tasks::for_current_owner(), RwSignal::new(0u32)));
    {
        let read = read.clone();
        tasks.spawn(async move {
            let answer = arrives.await.unwrap_or_default();
            read.set(Some(answer));
            // After the view is gone this read would panic: the task must not get here.
            let _ = rows.get_untracked();
        });
    }
    let_tasks_run().await;
    view.cleanup();
    assert!(tasks.ended());
    let _ = answer.send(7);
    let_tasks_run().await;
    assert_eq!(read.get(), None, "the late answer was dropped unread");
    // Started after the end, a task never starts.
    let started = Rc::new(Cell::new(false));
    let flag = started.clone();
    tasks.spawn(async move { flag.set(true) });
    let_tasks_run().await;
    assert!(!started.get());
}

#[wasm_bindgen_test]
async fn a_task_of_a_view_that_lives_runs_to_its_end() {
    use kube_api_explorer::client::task::Tasks;
    use std::cell::Cell;
    use std::rc::Rc;
    let view = Owner::new();
    view.set();
    let tasks = Tasks::for_current_owner();
    let (answer, arrives) = futures::channel::oneshot::channel::<u32>();
    let read = Rc::new(Cell::new(None));
    let rows = RwSignal::new(1u32);
    let seen = read.clone();
    tasks.spawn(async move { seen.set(Some(rows.get_untracked() + arrives.await.unwrap_or_default())) });
    let _ = answer.send(7);
    let_tasks_run().await;
    assert_eq!(read.get(), Some(8));
}

#[wasm_bindgen_test]
async fn a_handles_tasks_end_with_the_owner_it_was_made_for_even_when_started_from_elsewhere() {
    use std::cell::Cell;
    use std::rc::Rc;
    let app = Owner::new();
    app.set();
    let client = Client::new(ApiBase::same_origin(), Signal::stored(true));
    let view = app.child();
    let handle = view.with(|| client.for_current_owner());
    // Started from the app's owner (as a click or a timer would, outside the view's).
    let finished = Rc::new(Cell::new(false));
    let flag = finished.clone();
    let sender = handle.clone();
    handle.tasks().spawn(async move {
        let _ = sender.send(requests::discovery_document("/?slow")).await;
        flag.set(true);
    });
    let_tasks_run().await;
    view.cleanup();
    kube_api_explorer::client::task::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!finished.get(), "the task ended with the view, not after its request");
    assert!(handle.tasks().ended());
}

#[wasm_bindgen_test]
async fn work_run_for_an_action_resolves_to_nothing_when_its_view_is_cleaned_up() {
    use kube_api_explorer::client::task::Tasks;
    use std::cell::Cell;
    use std::rc::Rc;
    let app = Owner::new();
    app.set();
    let view = app.child();
    let tasks = view.with(Tasks::for_current_owner);
    // Lives: the output comes through.
    let (answer, arrives) = futures::channel::oneshot::channel::<u32>();
    let lived = tasks.run(async move { arrives.await.unwrap_or_default() + 1 });
    let _ = answer.send(1);
    assert_eq!(lived.await, Some(2));
    // The view goes while the work waits: the future resolves to None, and the work stops there.
    let (answer, arrives) = futures::channel::oneshot::channel::<u32>();
    let reached = Rc::new(Cell::new(false));
    let flag = reached.clone();
    let waiting = tasks.run(async move {
        let n = arrives.await.unwrap_or_default();
        flag.set(true);
        n
    });
    let outcome = Rc::new(Cell::new(None::<Option<u32>>));
    let seen = outcome.clone();
    wasm_bindgen_futures::spawn_local(async move { seen.set(Some(waiting.await)) });
    let_tasks_run().await;
    view.cleanup();
    let_tasks_run().await;
    assert_eq!(outcome.get(), Some(None), "resolved to nothing at the cleanup");
    let _ = answer.send(7);
    let_tasks_run().await;
    assert!(!reached.get(), "the late answer was dropped unread");
    // Run after the end: nothing at once.
    assert_eq!(tasks.run(async { 5 }).await, None);
}
