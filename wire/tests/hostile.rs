//! The hostile-server corpus (issue 41, item 4), natively: the bytes tests/e2e/hostile-server.js
//! sends for each case, given to the decoder the client gives them to, and the error each must
//! give: naming the format, what was expected, what was found and at which byte. The browser side
//! of each case is tests/e2e/specs/hostile.spec.js.

use kube_wire::body::decode_body;
use kube_wire::media_type::MediaType;

fn json() -> MediaType {
    "application/json".parse().expect("media type")
}

fn error_of(body: &[u8]) -> String {
    match decode_body(&json(), body) {
        Ok(decoded) => panic!("decoded a hostile body: {decoded:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_content_type_that_lies_names_the_first_byte_that_is_not_json() {
    let body = b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>";
    assert_eq!(error_of(body), "invalid JSON: expected a JSON value, found '<' at byte 0");
}

#[test]
fn invalid_utf8_names_the_byte_and_where() {
    let mut body = br#"{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":""#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    body.extend_from_slice(br#""}}]}"#);
    assert_eq!(body.iter().position(|&b| b == 0xff), Some(72));
    assert_eq!(error_of(&body), "invalid JSON: expected invalid unicode code point, found byte 0xff at byte 72");
}

#[test]
fn nesting_deeper_than_the_decoder_allows_is_refused_at_the_limit_without_overflowing_the_stack() {
    let deep = 100_000;
    let body = format!(r#"{{"kind":"ConfigMapList","items":{}{}}}"#, "[".repeat(deep), "]".repeat(deep));
    // The 129th `[` (the object is level 1, the items' array level 2): byte 32 + 127.
    assert_eq!(
        error_of(body.as_bytes()),
        "invalid JSON: expected nesting at most 128 deep, found deeper nesting at byte 159"
    );
}

#[test]
fn an_empty_200_is_an_error_not_an_empty_list() {
    assert_eq!(error_of(b""), "invalid JSON: expected a complete JSON value, found end of input at byte 0");
}

#[test]
fn a_status_with_html_in_its_message_keeps_the_markup_as_text() {
    let message = r#"<img src=x onerror="window.__hostile=1"><script>window.__hostile=2</script><b>admin</b> says no"#;
    let body = serde_json::json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": "Forbidden", "code": 403});
    let decoded = decode_body(&json(), body.to_string().as_bytes()).expect("a Status decodes").to_value();
    let status = kube_wire::view::status::status_from_document(&decoded).expect("a Status");
    assert_eq!(status.message, message);
}
