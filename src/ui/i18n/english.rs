//! English only, with the `english-only` feature: the language is English and there are no other
//! strings. What the interface would be without languages, built only by `scripts/bench languages`
//! to measure what the languages add to a page load; never shipped.

use crate::i18n::{Language, Table};

/// The language of the interface: English.
pub fn language() -> Language {
    Language::English
}

/// No strings but the catalogue's English.
pub(crate) fn with_table<R>(f: impl FnOnce(Option<&Table>) -> R) -> R {
    f(None)
}
