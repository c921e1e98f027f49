//! The language shown and its strings (the app as shipped): what the text functions read, and what
//! the language switch (`ui::language`) sets.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;

use crate::i18n::{Language, Table};

/// The language shown and its strings (none for English).
#[derive(Clone, Default)]
pub(crate) struct Active {
    pub(crate) language: Language,
    pub(crate) table: Option<Arc<Table>>,
}

/// The page's language state. One per page (the app mounts once), so it is a thread-local of
/// reference-counted signals that any view, callback or component tested alone can read.
#[derive(Clone)]
pub(crate) struct State {
    pub(crate) active: ArcRwSignal<Active>,
    /// What the switch shows: the language asked for, possibly still loading.
    pub(crate) chosen: ArcRwSignal<Language>,
    /// The last language file that could not be used, and why.
    pub(crate) problem: ArcRwSignal<Option<String>>,
}

thread_local! {
    static STATE: State = State {
        active: ArcRwSignal::new(Active::default()),
        chosen: ArcRwSignal::new(Language::English),
        problem: ArcRwSignal::new(None),
    };
    /// The language files read so far, by [`Language`] (`as usize`): choosing a language again
    /// fetches nothing.
    pub(crate) static LOADED: RefCell<[Option<Arc<Table>>; Language::ALL.len()]> = const { RefCell::new([None, None, None, None]) };
}

pub(crate) fn state() -> State {
    STATE.with(State::clone)
}

/// Reads the active language, tracked inside a reactive closure; outside one (an event handler, a
/// task building an error message) it reads the language of the moment.
fn with_active<R>(f: impl FnOnce(&Active) -> R) -> R {
    let active = STATE.with(|s| s.active.clone());
    if leptos::reactive::graph::Observer::get().is_some() {
        active.with(f)
    } else {
        active.with_untracked(f)
    }
}

/// The language of the interface now (tracked).
pub fn language() -> Language {
    with_active(|a| a.language)
}

/// The strings of the language shown (none for English), tracked as [`with_active`] is.
pub(crate) fn with_table<R>(f: impl FnOnce(Option<&Table>) -> R) -> R {
    with_active(|a| f(a.table.as_deref()))
}
