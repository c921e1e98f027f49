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

// The second half: what a server may not make the page hold.

use kube_wire::body::{BodyTooLarge, BoundedBody, MAX_BODY_BYTES};
use kube_wire::watch::{Framer, JsonFramer, ProtobufFramer, Size, StreamError, MAX_EVENT_BYTES};

/// Feeds `first` and then `next` again and again (as the server writes them) until the framer
/// refuses; returns the error and the bytes fed.
fn feed_until_refused<F: Framer>(framer: &mut F, first: &[u8], next: &[u8]) -> (StreamError, usize) {
    let mut fed = 0;
    let mut chunk = first;
    loop {
        fed += chunk.len();
        if let Err(error) = framer.push(chunk) {
            return (error, fed);
        }
        assert!(fed <= 2 * MAX_EVENT_BYTES, "still taking an endless event after {fed} bytes");
        chunk = next;
    }
}

#[test]
fn a_protobuf_frame_announced_as_1_gib_is_refused_at_its_length_prefix() {
    let mut framer = ProtobufFramer::new();
    let filler = vec![b'a'; 64 * 1024];
    let (error, fed) = feed_until_refused(&mut framer, &[0x40, 0, 0, 0], &filler);
    assert_eq!(fed, 4, "refused as soon as the prefix is read, nothing of the frame waited for");
    assert_eq!(
        error,
        StreamError::TooLarge { event: 1, offset: 0, limit: MAX_EVENT_BYTES, found: Size::Announced(1 << 30) }
    );
    assert_eq!(
        error.to_string(),
        "event 1 at byte 0: expected at most 16777216 bytes, found 1073741824 bytes announced by its length prefix"
    );
    // A failed stream stays failed.
    assert_eq!(framer.push(&filler), Err(error));
}

#[test]
fn a_json_watch_line_that_never_ends_is_cut_past_the_event_limit() {
    let mut framer = JsonFramer::default();
    let filler = vec![b'a'; 64 * 1024];
    let first = br#"{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":""#;
    let (error, fed) = feed_until_refused(&mut framer, first, &filler);
    // Refused at the first chunk after the unframed event passed the limit.
    assert!(fed > MAX_EVENT_BYTES && fed <= MAX_EVENT_BYTES + 2 * filler.len(), "refused after {fed} bytes");
    let StreamError::TooLarge { event: 1, offset: 0, limit: MAX_EVENT_BYTES, found: Size::MoreThan(held) } = error
    else {
        panic!("expected TooLarge, found {error:?}");
    };
    assert!(held > MAX_EVENT_BYTES && held <= MAX_EVENT_BYTES + filler.len());
    assert!(error.to_string().starts_with("event 1 at byte 0: expected at most 16777216 bytes, found more than "));
}

#[test]
fn json_events_up_to_the_limit_still_frame_after_an_event_that_ended() {
    // The limit is on one event, not the stream: many events, each small, frame however many bytes.
    let event = br#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}
"#;
    let chunk = event.repeat(4096);
    let mut framer = JsonFramer::default();
    let mut events = 0;
    for _ in 0..((2 * MAX_EVENT_BYTES) / chunk.len() + 1) {
        events += framer.push(&chunk).expect("small events frame").len();
    }
    assert_eq!(events, 4096 * ((2 * MAX_EVENT_BYTES) / chunk.len() + 1));
}

#[test]
fn a_body_that_never_ends_is_refused_at_the_body_limit_keeping_at_most_the_limit() {
    let mut body = BoundedBody::new(MAX_BODY_BYTES);
    let items = br#"{"metadata":{"name":"x"}},"#.repeat(2048);
    body.push(br#"{"kind":"ConfigMapList","apiVersion":"v1","items":["#).expect("the start fits");
    let refused = loop {
        if let Err(refused) = body.push(&items) {
            break refused;
        }
    };
    assert_eq!(refused, BodyTooLarge { limit: 128 * 1024 * 1024 });
    assert!(body.len() <= MAX_BODY_BYTES && body.len() > MAX_BODY_BYTES - items.len());
    // A body exactly at the limit is taken whole.
    let mut exact = BoundedBody::new(8);
    exact.push(b"1234").and_then(|()| exact.push(b"5678")).expect("at the limit");
    assert_eq!(exact.push(b"9"), Err(BodyTooLarge { limit: 8 }));
    assert_eq!(exact.into_bytes(), b"12345678");
}

// The third part (`faults`, session 7): a Table that does not add up, control characters in a
// Warning header. (The redirect to another origin is refused by the browser driver,
// `client::fetch::open`, before any byte reaches the decoders: its test is the browser spec.)

/// The Table tests/e2e/hostile-server.js sends for `table-mismatch`, with `rows` given.
fn table_with_rows(rows: serde_json::Value) -> Vec<u8> {
    serde_json::json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": "1"},
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name"},
            {"name": "Data", "type": "integer", "format": ""},
            {"name": "Age", "type": "string", "format": ""},
        ],
        "rows": rows,
    })
    .to_string()
    .into_bytes()
}

fn table_type() -> MediaType {
    "application/json;as=Table;g=meta.k8s.io;v=v1".parse().expect("media type")
}

fn row(cells: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"cells": cells, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "x"}}})
}

#[test]
fn a_table_row_with_fewer_or_more_cells_than_columns_is_refused_naming_the_row_and_the_counts() {
    let hostile = table_with_rows(serde_json::json!([
        row(serde_json::json!(["short-row"])),
        row(serde_json::json!(["long-row", 1, "1s", "extra", "more"]))
    ]));
    let refused = |body: &[u8]| decode_body(&table_type(), body).expect_err("a Table that does not add up").to_string();
    assert_eq!(refused(&hostile), "expected 3 cells at $.rows[0].cells (one per column of columnDefinitions), found 1");
    let long_second = table_with_rows(serde_json::json!([
        row(serde_json::json!(["a", 1, "1s"])),
        row(serde_json::json!(["long-row", 1, "1s", "extra", "more"]))
    ]));
    assert_eq!(
        refused(&long_second),
        "expected 3 cells at $.rows[1].cells (one per column of columnDefinitions), found 5"
    );
    let no_cells = table_with_rows(serde_json::json!([{"object": null}]));
    assert_eq!(
        refused(&no_cells),
        "expected 3 cells at $.rows[0].cells (one per column of columnDefinitions), found 0"
    );
}

#[test]
fn a_table_that_adds_up_and_a_watch_table_without_columns_still_decode() {
    let fine = table_with_rows(serde_json::json!([
        row(serde_json::json!(["a", 1, "1s"])),
        row(serde_json::json!(["b", 2, "2s"]))
    ]));
    assert!(decode_body(&table_type(), &fine).is_ok());
    // A later event of a Table watch: `columnDefinitions: null`, nothing to compare the rows with.
    let later = br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"2"},"columnDefinitions":null,"rows":[{"cells":["a"]}]}"#;
    assert!(decode_body(&table_type(), later).is_ok());
    // Not a Table: `rows` and `columnDefinitions` mean nothing.
    let other = br#"{"kind":"ConfigMap","columnDefinitions":[1,2],"rows":[{"cells":[]}]}"#;
    assert!(decode_body(&json(), other).is_ok());
}

#[test]
fn a_warning_with_control_characters_is_shown_with_them_made_visible() {
    // The text of the header tests/e2e/hostile-server.js sends for `warning-controls` (as the
    // browser hands it over, its bytes read as Latin-1, so byte 0x9b is U+009B), as
    // `model::write::parse_warnings` takes it out of its quotes.
    let text = "\u{1b}[31mdeprecated\u{1b}[0m\u{7} field\u{8}\u{8} \u{7f}\u{9b}2J\tend";
    let shown = vec![kube_wire::view::status::visible_controls(text)];
    assert_eq!(shown, vec![r"\u{1b}[31mdeprecated\u{1b}[0m\u{7} field\u{8}\u{8} \u{7f}\u{9b}2J\u{9}end".to_owned()]);
    assert!(shown[0].chars().all(|c| !c.is_control()));
    // Text without control characters is left as it is.
    assert_eq!(
        kube_wire::view::status::visible_controls("unknown field \"spec.x\" — ок"),
        "unknown field \"spec.x\" — ок"
    );
}
