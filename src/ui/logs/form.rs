//! The log form's options as typed, and what the lines area shows.

use leptos::prelude::*;

use crate::model::log_follow::LogAsk;

/// The options of the log form, as typed.
#[derive(Clone, Copy)]
pub(super) struct LogForm {
    /// A container's name, or `ALL_CONTAINERS`.
    pub(super) container: RwSignal<String>,
    pub(super) follow: RwSignal<bool>,
    pub(super) previous: RwSignal<bool>,
    pub(super) since: RwSignal<String>,
    pub(super) tail: RwSignal<String>,
}

impl LogForm {
    pub(super) fn ask(&self) -> LogAsk {
        LogAsk::of_form(
            self.container.get_untracked(),
            self.follow.get_untracked(),
            self.previous.get_untracked(),
            &self.since.get_untracked(),
            &self.tail.get_untracked(),
        )
    }
}

/// What the lines area shows: the text, how many lines match, are kept, were dropped.
pub(super) type Shown = (String, usize, usize, u64);
