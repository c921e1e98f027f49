//! English only, with the `english-only` feature: no switch, no language file, no `lang` or `dir`
//! set. What the interface would be without languages, built only by `scripts/bench languages` to
//! measure what the languages add to a page load; never shipped.

use leptos::prelude::*;

use crate::i18n::{Language, Table};
use crate::ui::host::Target;

/// The language of the interface: English.
pub fn language() -> Language {
    Language::English
}

/// Nothing to install: the page is in English.
pub fn install(_target: &Target) {}

/// No switch: the page is in English.
#[component]
pub fn LanguageSwitch() -> impl IntoView {}

/// No strings but the catalogue's English.
pub(super) fn with_table<R>(f: impl FnOnce(Option<&Table>) -> R) -> R {
    f(None)
}
