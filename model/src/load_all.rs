//! "Load all": how far following a list's continue tokens got, and why a page stops it, in the
//! reader's words. Pure: the client's `load_all` driver reads the pages.

use kube_wire::view::status::{Status, StatusExt};

use crate::i18n::{Msg, Text};

/// The explanation shown when a continue token has expired (from the concepts page).
pub const EXPIRED_EXPLANATION: Msg = Msg::ExpiredExplanation;

/// How far "load all" got.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadAllProgress {
    pub loaded: usize,
    /// `loaded` + the last page's `remainingItemCount`, when the server gave one.
    pub estimate: Option<usize>,
    pub error: Option<Text>,
    pub done: bool,
}

impl LoadAllProgress {
    /// Before the second page: `loaded` items, and the first page's `remainingItemCount`.
    pub fn started(loaded: usize, remaining: Option<i64>) -> Self {
        LoadAllProgress { loaded, estimate: remaining.map(|r| loaded + r.max(0) as usize), error: None, done: false }
    }
}

/// Why a page whose answer is `status` stops "Load all".
pub fn status_stop(status: &Status) -> Text {
    if status.is_expired() {
        EXPIRED_EXPLANATION.into()
    } else {
        Text::verbatim(format!("{} {}: {}", status.code, status.reason, status.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_estimates_from_the_remaining_item_count() {
        assert_eq!(LoadAllProgress::started(500, Some(1500)).estimate, Some(2000));
        assert_eq!(LoadAllProgress::started(500, None).estimate, None);
        // A negative count (a server's bug) adds nothing.
        assert_eq!(LoadAllProgress::started(500, Some(-3)).estimate, Some(500));
        assert!(!LoadAllProgress::started(0, None).done);
    }

    #[test]
    fn an_expired_token_is_explained_and_other_failures_are_the_servers_words() {
        let status = |code: u16, reason: &str, message: &str| Status {
            code,
            reason: reason.into(),
            message: message.into(),
            ..Status::default()
        };
        let expired =
            status(410, "Expired", "The provided continue parameter is too old to display a consistent list result.");
        assert_eq!(status_stop(&expired).msg, EXPIRED_EXPLANATION);
        let forbidden = status(403, "Forbidden", "pods is forbidden");
        assert_eq!(status_stop(&forbidden), Text::verbatim("403 Forbidden: pods is forbidden".to_string()));
    }
}
