//! Browser tests: the `client` module and components, run in headless Chromium by
//! `wasm-bindgen-test-runner` (`cargo test --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]

use kube_api_explorer::api::request::Request;
use kube_api_explorer::client::discovery::LoadError;
use kube_api_explorer::client::{execute, now_ms, set_writes_allowed, writes_allowed, ApiBase, ClientError};
use kube_api_explorer::ui::ErrorState;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn execute_reads_status_headers_and_body_of_a_same_origin_response() {
    // The test runner serves its own page: a real HTTP exchange through fetch.
    let response = execute(&ApiBase::same_origin(), &Request::get("/")).await.expect("the runner's page answers");
    assert_eq!(response.status, 200);
    assert!(response.header("content-type").is_some_and(|t| t.contains("text/html")), "{:?}", response.headers);
    assert!(!response.body.is_empty());
    assert!(response.total_ms >= response.time_to_headers_ms);
}

#[wasm_bindgen_test]
async fn execute_reports_a_closed_port_as_a_network_error_naming_the_url() {
    let base_request = Request::get("http://127.0.0.1:9/version");
    let error = execute(&ApiBase::same_origin(), &base_request).await.expect_err("nothing listens on port 9");
    match &error {
        ClientError::Network { url, .. } => assert_eq!(url, "http://127.0.0.1:9/version"),
        other => panic!("expected a network error, got {other:?}"),
    }
    assert!(error.to_string().starts_with("could not reach http://127.0.0.1:9/version"), "{error}");
}

#[wasm_bindgen_test]
async fn read_only_refuses_writes_before_fetch_and_still_reads() {
    set_writes_allowed(false);
    let mut put = Request::get("/read-only-probe");
    put.method = kube_api_explorer::api::request::Method::Put;
    let refused = execute(&ApiBase::same_origin(), &put).await;
    let read = execute(&ApiBase::same_origin(), &Request::get("/")).await;
    set_writes_allowed(true);
    match refused {
        Err(ClientError::ReadOnly { url, method }) => {
            assert!(url.ends_with("/read-only-probe"), "{url}");
            assert_eq!(method, "PUT");
        }
        other => panic!("expected the PUT refused in read-only mode, got {other:?}"),
    }
    assert_eq!(read.expect("GETs still go out").status, 200);
    assert!(writes_allowed());
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
