//! The interface's languages, sans-I/O: which languages there are, which one a browser's
//! preferences pick, the message catalogue ([`catalogue::Msg`], English compiled in), and the
//! other languages' tables parsed from their JSON files (`i18n/<tag>.json`, fetched by the page
//! only when a user picks the language). Builds natively, so the files are checked by `cargo test`.
//!
//! Kubernetes terms (Pod, resourceVersion, Table, CBOR, kinds, verbs, field names) are not
//! translated: they are what the API and `kubectl` say, in every language.

#[macro_use]
mod outside;
#[macro_use]
mod tools;
pub mod catalogue;
mod wire;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub use catalogue::Msg;

/// A language of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    /// English: compiled into the app, and what any missing string falls back to.
    #[default]
    English,
    Ukrainian,
    /// Simplified Chinese.
    Chinese,
    /// Persian, written right to left.
    Persian,
}

/// Which way a language's text runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Ltr,
    Rtl,
}

impl Direction {
    /// The value of the HTML `dir` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Ltr => "ltr",
            Direction::Rtl => "rtl",
        }
    }
}

impl Language {
    /// Every language, in the order the switch lists them.
    pub const ALL: [Language; 4] = [Language::English, Language::Ukrainian, Language::Chinese, Language::Persian];

    /// The BCP 47 tag: the `lang` attribute, the `Intl` locale, the remembered setting and the
    /// language file's name.
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Ukrainian => "uk",
            Language::Chinese => "zh-CN",
            Language::Persian => "fa",
        }
    }

    /// The language's name in itself, as the switch shows it.
    pub fn native_name(self) -> &'static str {
        match self {
            Language::English => "English",
            Language::Ukrainian => "Українська",
            Language::Chinese => "简体中文",
            Language::Persian => "فارسی",
        }
    }

    /// Which way the language runs.
    pub fn direction(self) -> Direction {
        match self {
            Language::Persian => Direction::Rtl,
            _ => Direction::Ltr,
        }
    }

    /// The language's file beside the app (`i18n/uk.json`); English has none, it is compiled in.
    pub fn file(self) -> Option<String> {
        (self != Language::English).then(|| format!("i18n/{}.json", self.tag()))
    }

    /// The language a tag names: an exact [`Language::tag`], or a browser language such as
    /// `uk-UA`, `fa-IR`, `zh-Hans-CN` or `en-GB`. Traditional Chinese (`zh-TW`, `zh-Hant`, `zh-HK`,
    /// `zh-MO`) is not Simplified Chinese and names none.
    pub fn from_tag(tag: &str) -> Option<Language> {
        let lower = tag.trim().to_ascii_lowercase();
        let mut subtags = lower.split(['-', '_']);
        match subtags.next()? {
            "en" => Some(Language::English),
            "uk" => Some(Language::Ukrainian),
            "fa" | "pes" => Some(Language::Persian),
            "zh" | "cmn" => {
                let traditional = subtags.any(|s| matches!(s, "hant" | "tw" | "hk" | "mo"));
                (!traditional).then_some(Language::Chinese)
            }
            _ => None,
        }
    }

    /// The first of the browser's languages (`navigator.languages`, most wanted first) that the
    /// interface speaks; English when none is.
    pub fn preferred<'a>(browser: impl IntoIterator<Item = &'a str>) -> Language {
        browser.into_iter().find_map(Language::from_tag).unwrap_or_default()
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.native_name())
    }
}

/// Why a language file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error("the language file is not a JSON object of strings: {0}")]
    NotJson(String),
    #[error("the language file has no string for {0}")]
    Missing(String),
    #[error("the language file has a key the catalogue does not know: {0}")]
    Unknown(String),
    #[error("the string for {key} has the placeholders {found:?}, English has {expected:?}")]
    Placeholders { key: String, expected: Vec<String>, found: Vec<String> },
}

/// One language's strings, in the catalogue's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    strings: Vec<String>,
}

impl Table {
    /// Parses a language file: a JSON object from each [`Msg::key`] to its translation. Strict
    /// (every key, no unknown key, the same placeholders as English): the test of the files uses
    /// it, and the page falls back to English for a file that fails it, saying why.
    pub fn parse(json: &str) -> Result<Table, TableError> {
        let mut map: BTreeMap<String, String> =
            serde_json::from_str(json).map_err(|e| TableError::NotJson(e.to_string()))?;
        let mut strings = Vec::with_capacity(Msg::ALL.len());
        for msg in Msg::ALL {
            let text = map.remove(msg.key()).ok_or_else(|| TableError::Missing(msg.key().to_owned()))?;
            let (expected, found) = (placeholders(msg.english()), placeholders(&text));
            if expected != found {
                return Err(TableError::Placeholders {
                    key: msg.key().to_owned(),
                    expected: expected.into_iter().map(str::to_owned).collect(),
                    found: found.into_iter().map(str::to_owned).collect(),
                });
            }
            strings.push(text);
        }
        match map.into_keys().next() {
            Some(unknown) => Err(TableError::Unknown(unknown)),
            None => Ok(Table { strings }),
        }
    }

    /// The translation of `msg`.
    pub fn get(&self, msg: Msg) -> &str {
        self.strings.get(msg as usize).map(String::as_str).unwrap_or_else(|| msg.english())
    }
}

/// The names of the `{name}` placeholders in a message.
pub fn placeholders(text: &str) -> BTreeSet<&str> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => {
                found.insert(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    found
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A piece of a message: its own text, or a `{name}` placeholder that the view fills with markup
/// (a command in `<code>`, a link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Placeholder(&'a str),
}

/// `template` cut at its placeholders, in order.
pub fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    let mut text_start = 0;
    let mut offset = 0;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}').filter(|&close| is_name(&after[..close])) {
            Some(close) => {
                let at = offset + open;
                if at > text_start {
                    out.push(Piece::Text(&template[text_start..at]));
                }
                out.push(Piece::Placeholder(&after[..close]));
                offset = at + close + 2;
                text_start = offset;
                rest = &template[offset..];
            }
            None => {
                offset += open + 1;
                rest = &template[offset..];
            }
        }
    }
    if text_start < template.len() {
        out.push(Piece::Text(&template[text_start..]));
    }
    out
}

/// `template` with each `{name}` replaced by its value from `args`; a placeholder without a value
/// stays as it is, so a mistake shows rather than vanishes.
pub fn fill(template: &str, args: &[(&str, &dyn fmt::Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after
            .find('}')
            .filter(|&close| is_name(&after[..close]))
            .and_then(|close| args.iter().find(|(name, _)| *name == &after[..close]).map(|(_, v)| (close, v)));
        match value {
            Some((close, value)) => {
                out.push_str(&value.to_string());
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

// Texts made outside the views: an error of `api`, `model` or `client`, a connection state, a
// question about access. Each is a catalogue message with named arguments ([`Text`]), so that
// there is one English copy of it (the catalogue's): `Display` fills it in English (what tests,
// logs and the `kube-decode` tool read), and the interface fills it in the language shown
// (`ui::i18n::tl`). An argument is either shown as it is (a name, a number, a media type, a
// server's words) or is itself a text (a cause inside a message), filled in the same language.

/// A catalogue message with its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub msg: Msg,
    pub args: Vec<(&'static str, Arg)>,
}

/// The value of a placeholder of a [`Text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Shown as it is, in every language: a name, a value, a field path, an operator, a number,
    /// a server's or a library's words. Inside a translated sentence it is isolated left to right
    /// ([`ltr_isolate`]), so that a right-to-left language keeps `'!', 'in'` or `metadata.name`
    /// in the order it was written.
    Plain(String),
    /// Another text, filled in the same language.
    Text(Text),
}

impl Text {
    /// `msg` without arguments (yet).
    pub fn new(msg: Msg) -> Text {
        Text { msg, args: Vec::new() }
    }

    /// A text that is the same in every language: a server's words, a name, a command.
    pub fn verbatim(text: impl fmt::Display) -> Text {
        Text::new(Msg::Verbatim).with("text", text)
    }

    /// The text with `{name}` shown as `value`, as it is.
    #[must_use]
    pub fn with(mut self, name: &'static str, value: impl fmt::Display) -> Text {
        self.args.push((name, Arg::Plain(value.to_string())));
        self
    }

    /// The text with `{name}` filled by another text, in the same language.
    #[must_use]
    pub fn with_text(mut self, name: &'static str, value: impl Localized) -> Text {
        self.args.push((name, Arg::Text(value.text())));
        self
    }

    /// The text in the language of `table` (English without one).
    pub fn in_table(&self, table: Option<&Table>) -> String {
        let template = table.map_or(self.msg.english(), |t| t.get(self.msg));
        let values: Vec<String> = self
            .args
            .iter()
            .map(|(_, arg)| match (arg, table) {
                (Arg::Plain(value), None) => value.clone(),
                (Arg::Plain(value), Some(_)) => ltr_isolate(value),
                (Arg::Text(text), _) => text.in_table(table),
            })
            .collect();
        let args: Vec<(&str, &dyn fmt::Display)> =
            self.args.iter().zip(&values).map(|((name, _), value)| (*name, value as &dyn fmt::Display)).collect();
        fill(template, &args)
    }
}

/// `value` between LEFT-TO-RIGHT ISOLATE (U+2066) and POP DIRECTIONAL ISOLATE (U+2069): laid out
/// left to right as one unit whatever the sentence around it, and without reordering the
/// sentence's own words (Unicode Bidirectional Algorithm, rule X5a). English, which runs left to
/// right and is what `Display`, logs and tests read, is filled without them: a translated table
/// gets them in every language, since only Persian needs them but none is harmed by them.
pub fn ltr_isolate(value: &str) -> String {
    format!("\u{2066}{value}\u{2069}")
}

/// A catalogue message without arguments.
impl From<Msg> for Text {
    fn from(msg: Msg) -> Text {
        Text::new(msg)
    }
}

/// A text that is the same in every language ([`Text::verbatim`]).
impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::verbatim(text)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text::verbatim(text)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.in_table(None))
    }
}

/// A text is what the client hands the protocol core as its error (`kube_wire`'s `EdgeError`),
/// which gives it back to be shown in the page's language.
impl std::error::Error for Text {}

/// Something whose words are a catalogue message: an error, a state. Its `Display` is
/// [`Localized::text`] in English ([`localized_display!`](crate::localized_display)).
pub trait Localized {
    fn text(&self) -> Text;
}

impl Localized for Text {
    fn text(&self) -> Text {
        self.clone()
    }
}

impl Localized for Msg {
    fn text(&self) -> Text {
        Text::new(*self)
    }
}

impl<T: Localized + ?Sized> Localized for &T {
    fn text(&self) -> Text {
        (**self).text()
    }
}

impl<T: Localized + ?Sized> Localized for Box<T> {
    fn text(&self) -> Text {
        (**self).text()
    }
}

/// `impl Display` for types whose text is [`Localized::text`]: the English of the catalogue.
#[macro_export]
macro_rules! localized_display {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl ::std::fmt::Display for $ty {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(&$crate::i18n::Localized::text(self).in_table(None))
                }
            }
        )+
    };
}

#[cfg(test)]
mod tests;
