//! The reflector: its connection states, why it waits, how a request failed, and the problems it
//! reports.

use kube_wire::reflector::input::{http_text, seconds, status_text};
use kube_wire::reflector::{
    ConnectionState, EdgeError, Expiry, Failure, Fallback, ReflectorError, StreamCut, SyncReason, Undecodable,
    WaitReason,
};

use crate::i18n::{Localized, Msg, Text};

impl Localized for WaitReason {
    fn text(&self) -> Text {
        Text::new(match self {
            WaitReason::WatchClosed => Msg::WaitWatchClosed,
            WaitReason::WatchCut => Msg::WaitWatchCut,
            WaitReason::WatchError => Msg::WaitWatchError,
            WaitReason::WatchFailed => Msg::WaitWatchFailed,
            WaitReason::ListFailed => Msg::WaitListFailed,
            WaitReason::Expired => Msg::WaitExpired,
        })
    }
}

impl Localized for SyncReason {
    fn text(&self) -> Text {
        Text::new(match self {
            SyncReason::Initial => Msg::StateListing,
            SyncReason::Expired => Msg::StateRelisting,
            SyncReason::VersionUnknown => Msg::StateRelistingUnknownVersion,
        })
    }
}

impl Localized for ConnectionState {
    fn text(&self) -> Text {
        match self {
            ConnectionState::Listing { page, remaining: Some(n), reason } => {
                Text::new(Msg::StateListPageMore).with_text("sync", reason).with("page", page).with("more", n)
            }
            ConnectionState::Listing { page, remaining: None, reason } => {
                Text::new(Msg::StateListPage).with_text("sync", reason).with("page", page)
            }
            ConnectionState::StreamingInitial { open: true, reason } => {
                Text::new(Msg::StateStreaming).with_text("sync", reason)
            }
            ConnectionState::StreamingInitial { open: false, reason } => {
                Text::new(Msg::StateStreamingWaiting).with_text("sync", reason)
            }
            ConnectionState::Watching { open: false } => Text::new(Msg::StateConnectingWatch),
            ConnectionState::Watching { open: true } => Text::new(Msg::StateWatching),
            ConnectionState::Reconnecting { ms, attempt, reason } => Text::new(Msg::StateReconnecting)
                .with("seconds", seconds(*ms))
                .with("attempt", attempt)
                .with_text("reason", reason),
            ConnectionState::Paused => Text::new(Msg::StatePaused),
            ConnectionState::Stopped => Text::new(Msg::StateStopped),
        }
    }
}

impl Localized for Failure {
    fn text(&self) -> Text {
        match self {
            Failure::Http { code, status, .. } => Text::verbatim(http_text(*code, status.as_deref())),
            Failure::Network(error) => Text::new(Msg::FailureNoResponse).with_text("error", error),
            Failure::Undecodable(error) => Text::new(Msg::FailureUndecodable).with_text("error", error),
        }
    }
}

impl Localized for Undecodable {
    fn text(&self) -> Text {
        match self {
            Undecodable::NoContentType => Msg::NoContentType.into(),
            Undecodable::NoContentTypeOnWatch => Msg::NoContentTypeOnWatch.into(),
            Undecodable::ExpectedList(found) => Text::new(Msg::ExpectedListFound).with("found", found),
            Undecodable::Body(error) => error.text(),
            Undecodable::View(error) => error.text(),
            Undecodable::InFull(error) => error.text(),
            Undecodable::Stream(error) => error.text(),
        }
    }
}

/// The edge's own text when it handed the core one (the client's errors are [`Text`]s), else its
/// words as they are.
impl Localized for EdgeError {
    fn text(&self) -> Text {
        match self.get_ref().downcast_ref::<Text>() {
            Some(text) => text.clone(),
            None => Text::verbatim(self),
        }
    }
}

impl Localized for StreamCut {
    fn text(&self) -> Text {
        match self {
            StreamCut::Truncated(error) => error.text(),
            StreamCut::Connection(error) => error.text(),
        }
    }
}

impl Localized for Fallback {
    fn text(&self) -> Text {
        match self {
            Fallback::StreamEnded => Msg::FallbackStreamEnded.into(),
            Fallback::EventBeforeBookmark(event) => Text::new(Msg::FallbackEventBeforeBookmark).with("event", event),
            Fallback::Refused(failure) => failure.text(),
        }
    }
}

impl Localized for ReflectorError {
    fn text(&self) -> Text {
        match self {
            ReflectorError::Params(error) => Text::new(Msg::ProblemParams).with_text("error", error),
            ReflectorError::List(failure) => Text::new(Msg::ProblemListFailed).with_text("error", failure),
            ReflectorError::Watch(failure) => Text::new(Msg::ProblemWatchFailed).with_text("error", failure),
            ReflectorError::Cut(error) => Text::new(Msg::ProblemWatchBroke).with_text("error", error),
            ReflectorError::Malformed(error) => Text::new(Msg::ProblemWatchUndecodable).with_text("error", error),
            ReflectorError::WatchError(status) => {
                Text::new(Msg::ProblemWatchSentError).with("status", status_text(status))
            }
            ReflectorError::Expired(what) => what.text(),
            ReflectorError::StreamingListUnsupported(why) => {
                Text::new(Msg::ProblemStreamingListUnsupported).with_text("why", why)
            }
            ReflectorError::ObjectWithoutKey(what) => Text::new(Msg::ProblemObjectWithoutKey).with("what", what),
            ReflectorError::ListWithoutResourceVersion => Text::new(Msg::ProblemListWithoutVersion),
            ReflectorError::Columns(error) => Text::new(Msg::ProblemColumns).with_text("error", error),
        }
    }
}

impl Localized for Expiry {
    fn text(&self) -> Text {
        Text::new(match self {
            Expiry::ContinueToken => Msg::ProblemContinueTokenExpired,
            Expiry::StreamingListVersion => Msg::ProblemStreamingListVersionExpired,
            Expiry::WatchVersion => Msg::ProblemWatchVersionExpired,
            Expiry::VersionTooLarge => Msg::ProblemVersionTooLarge,
        })
    }
}

#[cfg(test)]
mod tests {
    use kube_wire::codec::value::ValueKind;
    use kube_wire::media_type::MediaType;
    use kube_wire::params::ParamsError;
    use kube_wire::view::shape::{Expected, Found, ViewError};
    use kube_wire::view::status::Status;
    use kube_wire::watch::{StreamError, UnsupportedStream};

    use super::*;
    use crate::i18n::wire::tests::check_all;

    fn status() -> Status {
        Status { code: 410, reason: "Expired".into(), message: "too old resource version".into(), ..Status::default() }
    }

    #[test]
    fn connection_states_and_waits_read_in_english_as_their_catalogue_texts() {
        let waits = [
            WaitReason::WatchClosed,
            WaitReason::WatchCut,
            WaitReason::WatchError,
            WaitReason::WatchFailed,
            WaitReason::ListFailed,
            WaitReason::Expired,
        ];
        check_all(&waits);
        let mut states = vec![
            ConnectionState::Watching { open: false },
            ConnectionState::Watching { open: true },
            ConnectionState::Paused,
            ConnectionState::Stopped,
        ];
        for reason in [SyncReason::Initial, SyncReason::Expired, SyncReason::VersionUnknown] {
            states.push(ConnectionState::Listing { page: 2, remaining: Some(40), reason });
            states.push(ConnectionState::Listing { page: 1, remaining: None, reason });
            states.push(ConnectionState::StreamingInitial { open: true, reason });
            states.push(ConnectionState::StreamingInitial { open: false, reason });
        }
        states.extend(waits.map(|reason| ConnectionState::Reconnecting { ms: 1250, attempt: 3, reason }));
        check_all(&states);
    }

    #[test]
    fn failures_and_problems_read_in_english_as_their_catalogue_texts() {
        let view = ViewError::Shape {
            path: "$.columnDefinitions".into(),
            expected: Expected::Kind(ValueKind::Array),
            found: Found::Kind(ValueKind::Object),
        };
        let undecodable = [
            Undecodable::NoContentType,
            Undecodable::NoContentTypeOnWatch,
            Undecodable::ExpectedList(Box::new(MediaType::protobuf())),
            Undecodable::Body(kube_wire::body::BodyError::Unsupported("text/html".into())),
            Undecodable::View(view.clone()),
            Undecodable::InFull(kube_wire::codec::protobuf_full::InFullError::NoMessage {
                api_version: "example.com/v1".into(),
                kind: "Widget".into(),
            }),
            Undecodable::Stream(UnsupportedStream("application/yaml".into())),
        ];
        check_all(&undecodable);
        let http = Failure::Http { code: 410, status: Some(Box::new(status())), retry_after_seconds: None };
        let failures = vec![
            http.clone(),
            Failure::Http { code: 503, status: None, retry_after_seconds: Some(3) },
            Failure::Network("Failed to fetch".into()),
            Failure::Network(EdgeError::new(Text::new(Msg::CouldNotReach).with("url", "/api").with("error", "x"))),
            Failure::Undecodable(Undecodable::NoContentType),
        ];
        check_all(&failures);
        let truncated = StreamError::Truncated { event: 2, offset: 99 };
        let problems = vec![
            ReflectorError::Params(ParamsError::ZeroLimit),
            ReflectorError::List(http.clone()),
            ReflectorError::Watch(failures[2].clone()),
            ReflectorError::Cut(StreamCut::Truncated(truncated.clone())),
            ReflectorError::Cut(StreamCut::Connection("network error".into())),
            ReflectorError::Malformed(truncated),
            ReflectorError::WatchError(Box::new(status())),
            ReflectorError::Expired(Expiry::ContinueToken),
            ReflectorError::Expired(Expiry::StreamingListVersion),
            ReflectorError::Expired(Expiry::WatchVersion),
            ReflectorError::Expired(Expiry::VersionTooLarge),
            ReflectorError::StreamingListUnsupported(Fallback::StreamEnded),
            ReflectorError::StreamingListUnsupported(Fallback::EventBeforeBookmark("MODIFIED")),
            ReflectorError::StreamingListUnsupported(Fallback::Refused(http)),
            ReflectorError::ObjectWithoutKey("ADDED"),
            ReflectorError::ListWithoutResourceVersion,
            ReflectorError::Columns(view),
        ];
        check_all(&problems);
    }

    #[test]
    fn an_edge_error_that_is_a_catalogue_text_is_shown_in_the_page_language() {
        let reach = Text::new(Msg::CouldNotReach).with("url", "/api").with("error", "TypeError");
        let failure = Failure::Network(EdgeError::new(reach.clone()));
        assert_eq!(failure.text(), Text::new(Msg::FailureNoResponse).with_text("error", reach));
        let words = Failure::Network("reset".into());
        assert_eq!(words.text(), Text::new(Msg::FailureNoResponse).with_text("error", Text::verbatim("reset")));
    }
}
