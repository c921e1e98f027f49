//! `Status`: the object the API server returns for failures (and some successes, such as a plain
//! `DELETE`), in a response body or as the object of a watch `ERROR` event.
//!
//! The type is `kube-core`'s [`Status`] (code, reason, message, `details.causes`,
//! `details.retryAfterSeconds`, with `is_not_found()`-style helpers); this module reads it from a
//! decoded document of any format and adds the checks `kube-core` lacks.

pub use kube_core::response::{StatusCause, StatusDetails, StatusSummary};
pub use kube_core::Status;

use crate::codec::value::Value;
use crate::view::shape::{expect_kind, from_document, Expected, ViewError};

/// Reads a `Status` document (kind `Status`).
pub fn status_from_document(document: &Value) -> Result<Status, ViewError> {
    expect_kind(document, "Status")?;
    from_document(document, "$", Expected::Status)
}

/// Whether a document is a `Status` (so an error body or a `DELETE` answer, not the object).
pub fn is_status(document: &Value) -> bool {
    document.get("kind").and_then(Value::as_str) == Some("Status")
}

/// What `kube-core`'s `Status` helpers do not say.
pub trait StatusExt {
    /// 410 Gone / `Expired`: the resource version or continue token is too old; relist.
    fn is_expired(&self) -> bool;
    /// 429 or 5xx with `details.retryAfterSeconds`: how long to wait before retrying.
    fn retry_after_seconds(&self) -> Option<u32>;
    /// The field-level causes of a 422 Invalid (or 400 Strict validation) answer.
    fn causes(&self) -> &[StatusCause];
    /// 504 "Too large resource version": the server does not know the resource version it was
    /// asked for (it is newer than the server's own: a restarted or replaced server, or one
    /// behind the others). Read as client-go's reflector reads it (`isTooLargeResourceVersionError`
    /// in `client-go/tools/cache/reflector.go`): a cause `ResourceVersionTooLarge`, or, from
    /// servers before 1.17, the cause message alone.
    fn is_version_too_large(&self) -> bool;
}

impl StatusExt for Status {
    fn is_expired(&self) -> bool {
        self.code == 410 || self.reason == "Expired" || self.reason == "Gone"
    }

    fn retry_after_seconds(&self) -> Option<u32> {
        self.details.as_ref().map(|d| d.retry_after_seconds).filter(|s| *s > 0)
    }

    fn causes(&self) -> &[StatusCause] {
        self.details.as_ref().map_or(&[], |d| d.causes.as_slice())
    }

    fn is_version_too_large(&self) -> bool {
        self.code == 504
            && self
                .causes()
                .iter()
                .any(|c| c.reason == "ResourceVersionTooLarge" || c.message == "Too large resource version")
    }
}

/// The seconds of a `Retry-After` header in its delay-seconds form (the HTTP-date form needs a
/// clock and is not read).
pub fn retry_after_header(value: &str) -> Option<u32> {
    value.trim().parse::<u32>().ok()
}

/// A text a server sent (a `Warning` header's), with every control character (C0, DEL, C1)
/// written out as its code, `\u{1b}` for ESC: what is shown is what was sent, readable in any
/// font (the Unicode control pictures are missing from common ones), and nothing in it can move a
/// cursor, ring, erase or start an escape sequence in a terminal or a log it is copied to.
pub fn visible_controls(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            shown.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            shown.push(c);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::cbor::decode_cbor;
    use crate::codec::json::decode_json;
    use crate::testdata::shared_file;

    #[test]
    fn an_expired_status_from_every_format_reads_the_same() {
        let json =
            status_from_document(&decode_json(&shared_file("kube/vectors/status-410-expired.json")).expect("json"))
                .expect("status");
        let cbor =
            status_from_document(&decode_cbor(&shared_file("kube/vectors/status-410-expired.cbor")).expect("cbor"))
                .expect("status");
        assert_eq!(json, cbor);
        assert_eq!(json.code, 410);
        assert!(json.is_expired());
        assert!(json.is_failure());
        assert_eq!(json.retry_after_seconds(), None);
    }

    #[test]
    fn an_invalid_status_lists_its_causes() {
        let doc = decode_cbor(&shared_file("kube/cbor/status_invalid_422.cbor")).expect("cbor");
        assert!(is_status(&doc));
        let status = status_from_document(&doc).expect("status");
        assert!(status.is_invalid());
        assert!(!status.causes().is_empty());
        assert!(status.causes().iter().all(|c| !c.field.is_empty() || !c.message.is_empty()));
    }

    #[test]
    fn retry_after_comes_from_the_details() {
        let doc = decode_json(br#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":429,"reason":"TooManyRequests","details":{"retryAfterSeconds":1}}"#).expect("json");
        let status = status_from_document(&doc).expect("status");
        assert_eq!(status.retry_after_seconds(), Some(1));
        assert!(!status.is_expired());
        assert!(status.causes().is_empty());
    }

    #[test]
    fn another_kind_is_not_a_status() {
        let doc = decode_json(br#"{"kind":"Pod"}"#).expect("json");
        assert!(!is_status(&doc));
        assert!(status_from_document(&doc).is_err());
    }

    #[test]
    fn retry_after_is_read_in_its_delay_seconds_form() {
        assert_eq!(retry_after_header(" 7 "), Some(7));
        assert_eq!(retry_after_header("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(retry_after_header("-1"), None);
    }
}
