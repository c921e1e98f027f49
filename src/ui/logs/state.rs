//! Where each container's log stands, in words, and why a log could not be read.

use leptos::prelude::*;

use crate::i18n::{Localized, Msg};
use crate::model::log_follow::{Ended, LogFailure, LogFollow, Phase};
use crate::model::logs::DEFAULT_CAP;
use crate::ui::i18n::{filled_text, localized, text_now, worded};
use crate::ui::intl;
use crate::ui::status_view::StatusView;

use super::form::Shown;

/// The state line: each container's phase (a failure is shown below it instead) and the lines
/// dropped to keep the cap.
#[component]
pub(super) fn LogStateLine(log: ReadSignal<LogFollow>, shown: Memo<Shown>) -> impl IntoView {
    view! {
        <p class="muted log-state" data-testid="log-state" aria-live="polite">
            {move || {
                let (_, _, _, dropped) = shown.get();
                let mut parts: Vec<String> = log.with(|log| {
                    let several = log.source().several();
                    log.phases()
                        .filter_map(|(c, p)| {
                            let words = phase_words(p)?;
                            Some(if several { format!("{c}: {words}") } else { words })
                        })
                        .collect()
                });
                if dropped > 0 {
                    parts.push(filled_text(
                        Msg::OlderDropped,
                        &[("dropped", &intl::number(dropped as f64, 0)), ("cap", &intl::count(DEFAULT_CAP))],
                    ));
                }
                parts.join(" · ")
            }}
        </p>
    }
}

/// A phase in words; `None` for a failure (shown on its own).
fn phase_words(phase: &Phase) -> Option<String> {
    Some(match phase {
        Phase::Reading => text_now(Msg::LogReading),
        Phase::Following => text_now(Msg::LogFollowing),
        Phase::Reconnecting { attempt, seconds } => {
            filled_text(Msg::Reconnecting, &[("seconds", seconds), ("attempt", attempt)])
        }
        Phase::Ended(Ended::Read { lines }) => filled_text(Msg::LinesRead, &[("count", lines)]),
        Phase::Ended(Ended::Stopped(failure)) => {
            let reason = match failure {
                LogFailure::Status(status) => status.message.clone(),
                LogFailure::Request(error) => localized(error),
                LogFailure::Unanswered(text) => localized(text),
            };
            filled_text(Msg::StoppedWith, &[("reason", &reason)])
        }
        Phase::Failed(_) => return None,
    })
}

/// Why a container's log could not be read: the server's `Status`, or the error in words.
#[component]
pub(crate) fn LogFailures(log: ReadSignal<LogFollow>) -> impl IntoView {
    move || {
        let failures: Vec<(String, LogFailure)> = log.with(|log| {
            log.phases()
                .filter_map(|(c, p)| match p {
                    Phase::Failed(failure) => Some((c.to_owned(), failure.clone())),
                    _ => None,
                })
                .collect()
        });
        failures
            .into_iter()
            .map(|(c, failure)| {
                let text = match failure {
                    LogFailure::Status(status) => return view! { <StatusView status=*status /> }.into_any(),
                    LogFailure::Request(error) => error.text(),
                    LogFailure::Unanswered(text) => text,
                };
                view! {
                    <p class="warning" role="alert">
                        {worded(move || format!("{c}: {}", localized(&text)))}
                    </p>
                }
                .into_any()
            })
            .collect_view()
    }
}
