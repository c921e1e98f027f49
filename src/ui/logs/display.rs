//! How the lines are shown: timestamps, wrap, the search and its count, pause, download.

use leptos::prelude::*;

use crate::client::logs::UseLogFollow;
use crate::i18n::Msg;
use crate::model::log_follow::{LogSource, ALL_CONTAINERS};
use crate::model::logs::{download_name, LogDisplay};
use crate::ui::i18n::{filled_text, live_text, text_now};
use crate::ui::intl;

use super::form::{LogForm, Shown};
use super::save::save_text;

/// The display options of the log and its pause and download.
#[component]
pub(super) fn LogDisplayBar(
    source: StoredValue<LogSource>,
    form: LogForm,
    follow: UseLogFollow,
    display: RwSignal<LogDisplay>,
    wrap: RwSignal<bool>,
    shown: Memo<Shown>,
    stick: StoredValue<bool>,
) -> impl IntoView {
    let download = move |_| {
        let container = form.container.with_untracked(|c| (c != ALL_CONTAINERS).then(|| c.clone()));
        let file = source.with_value(|s| download_name(&s.pod, container.as_deref()));
        let text = shown.with_untracked(|(text, ..)| text.clone());
        if let Err(message) = save_text(&file, &text) {
            leptos::logging::warn!("the log could not be downloaded: {message}");
        }
    };
    view! {
        <div class="toolbar" aria-label=live_text(Msg::LogDisplay) role="group">
            <label class="toolbar__field">
                <input
                    type="checkbox"
                    prop:checked=move || display.with(|d| d.timestamps)
                    on:change=move |e| display.update(|d| d.timestamps = event_target_checked(&e))
                />
                " "
                {live_text(Msg::Timestamps)}
            </label>
            <label class="toolbar__field">
                <input type="checkbox" prop:checked=wrap on:change=move |e| wrap.set(event_target_checked(&e)) />
                " "
                {live_text(Msg::Wrap)}
            </label>
            <label class="toolbar__field">
                {live_text(Msg::SearchLabel)}
                " "
                <input
                    type="search"
                    dir="auto"
                    aria-label=live_text(Msg::SearchTheLog)
                    placeholder=live_text(Msg::TextInLine)
                    prop:value=move || display.with(|d| d.search.clone())
                    on:input=move |e| display.update(|d| d.search = event_target_value(&e))
                />
            </label>
            <span class="muted" data-testid="log-count" aria-live="polite">
                {move || {
                    let (_, matching, kept, _) = shown.get();
                    if display.with(|d| d.search.trim().is_empty()) {
                        filled_text(Msg::LogLines, &[("count", &intl::count(kept))])
                    } else {
                        filled_text(Msg::MatchingLinesOf, &[("matching", &intl::count(matching)), ("kept", &intl::count(kept))])
                    }
                }}
            </span>
            {move || form.follow.get().then(|| view! { <PauseButton follow stick /> })}
            <button class="button button--quiet" data-testid="log-download" on:click=download>
                {live_text(Msg::Download)}
            </button>
        </div>
    }
}

/// Pause (the view stands still while lines keep coming) and Resume, with the count held.
#[component]
fn PauseButton(follow: UseLogFollow, stick: StoredValue<bool>) -> impl IntoView {
    let UseLogFollow { log, pause, .. } = follow;
    let held = move || log.with(|l| l.held());
    view! {
        <button
            class="button button--quiet"
            data-testid="log-pause"
            aria-pressed=move || held().is_some().to_string()
            title=live_text(Msg::PauseTitle)
            on:click=move |_| {
                let paused = log.with_untracked(|l| l.held().is_some());
                if paused {
                    stick.set_value(true);
                }
                pause.run(!paused);
            }
        >
            {move || match held() {
                Some(n) => filled_text(Msg::ResumeNew, &[("count", &n)]),
                None => text_now(Msg::Pause),
            }}
        </button>
    }
}
