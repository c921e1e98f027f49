//! English only, with the `english-only` feature: no switch, no language file, no `lang` or `dir`
//! set (see `ui::i18n`'s English-only part).

use leptos::prelude::*;

use crate::ui::host::Target;

/// Nothing to install: the page is in English.
pub fn install(_target: &Target) {}

/// No switch: the page is in English.
#[component]
pub fn LanguageSwitch() -> impl IntoView {}
