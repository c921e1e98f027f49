//! The interface's language in the browser: the catalogue's strings in the language chosen (the
//! switch in the top bar, remembered in localStorage; at first the browser's `navigator.languages`,
//! else English), the language files fetched the first time a language is chosen, and `lang` and
//! `dir` on `<html>` (or on a host's mount element) so that Persian lays out right to left.
//!
//! English is compiled in and shown until a chosen language's file has arrived; a file that cannot
//! be fetched or read leaves English in place with a message saying why. Views read strings with
//! [`live_text`] (a reactive text), [`text_now`] and [`filled_text`] (the text now, inside a
//! reactive closure), [`text_signal`] (a signal) and [`localized`] (a text made outside the views,
//! an error's).

use std::sync::Arc;

use leptos::prelude::*;

use crate::i18n::{fill, pieces, Localized, Msg, Piece, Text};

// The language shown and its strings, which `ui::language` (the switch) sets; with the
// `english-only` feature, English and no other strings (what the interface would be without
// languages, built only by `scripts/bench languages` to measure what they cost).
#[cfg_attr(feature = "english-only", path = "i18n/english.rs")]
pub(crate) mod active;

pub use active::language;
use active::with_table;

/// The text of `msg` in the current language (tracked: call it inside a reactive closure).
pub fn text_now(msg: Msg) -> String {
    with_table(|table| table.map_or(msg.english(), |t| t.get(msg)).to_owned())
}

/// A reactive text: `msg` in the current language, for a view's text or attribute.
pub fn live_text(msg: Msg) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    move || text_now(msg)
}

/// `msg` as a signal, for a prop that takes one.
pub fn text_signal(msg: Msg) -> Signal<String> {
    Signal::derive(move || text_now(msg))
}

/// A reactive text: see [`worded`].
pub type Worded = Arc<dyn Fn() -> String + Send + Sync>;

/// A reactive text that `make` words (through [`text_now`], [`filled_text`] or [`localized`]) in
/// the language of the moment, for a view's text or an attribute. Every such text is of one type, so they share one
/// copy of Leptos's code that renders and updates a text: a closure put in a view directly is a
/// type of its own and brings its own copy (about 0.5 KB each in the module a page load fetches).
pub fn worded(make: impl Fn() -> String + Send + Sync + 'static) -> Worded {
    Arc::new(make)
}

/// The text of `msg` with its `{name}` placeholders filled from `args` (tracked).
pub fn filled_text(msg: Msg, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    fill(&text_now(msg), args)
}

/// A text made outside the views (an error, a connection state) in the current language (tracked).
pub fn localized(text: &impl Localized) -> String {
    localized_now(text.text())
}

/// [`localized`] past its generic part, compiled once for every kind of text.
fn localized_now(text: Text) -> String {
    with_table(|table| text.in_table(table))
}

/// `msg` with each placeholder replaced by markup that `part` makes from its name (a button, a
/// link), so that a translation can put it where its grammar wants it.
pub fn rich<F, V>(msg: Msg, part: F) -> AnyView
where
    F: Fn(&str) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    rich_parts(msg, Arc::new(move |name: &str| part(name).into_any()))
}

/// [`rich`] past its generic part, compiled once for every caller.
fn rich_parts(msg: Msg, part: Arc<dyn Fn(&str) -> AnyView + Send + Sync>) -> AnyView {
    (move || {
        let template = text_now(msg);
        pieces(&template)
            .into_iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.to_owned().into_any(),
                Piece::Placeholder(name) => part(name),
            })
            .collect_view()
    })
    .into_any()
}

/// `msg` with its placeholders shown as code (`{proxy}` → `<code dir="ltr">kubectl proxy</code>`):
/// commands and paths stay left to right and untranslated inside a translated sentence.
pub fn with_code(msg: Msg, codes: &'static [(&'static str, &'static str)]) -> impl IntoView {
    rich(msg, move |name: &str| {
        let code = codes.iter().find(|(n, _)| *n == name).map_or(name, |(_, c)| *c).to_owned();
        view! { <code dir="ltr">{code}</code> }
    })
}
