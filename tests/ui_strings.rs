//! Every string the views show goes through the catalogue (`model/src/i18n/catalogue.rs`): this test
//! reads `src/ui/**/*.rs` and fails on literal text in `view!` markup (a text node such as
//! `<p>"Hello"</p>`), in a user-visible attribute (`title`, `aria-label`, `placeholder`, `alt`,
//! `label`), or as the value or `format!` text of a Rust block inside the markup
//! (`{if x { "Yes" } else { "No" }}`). Kubernetes terms, media types and symbols may stay
//! literal: they are the short allowlist below. The catalogue's own test checks each language file
//! against the catalogue.
//!
//! Texts made outside the views are seen where they are worded: the `Display` of the errors and
//! states of the model (`model/src`) and `src/client` (a thiserror `#[error("...")]`, or words written in an
//! `impl Display`) must come from the catalogue (`i18n::Localized`, its English filled by
//! `localized_display!`), so that the interface can show them in every language. The protocol
//! core (`wire/`) has no catalogue: each of its worded types must have a `Localized` text in the
//! app (`model/src/i18n/wire`), whose tests compare the two Englishes.

mod common;

use std::path::PathBuf;

use common::rust_files;

/// Words that are the same in every language: Kubernetes and protocol terms, formats, command
/// names. Literal text made only of these (and symbols, numbers, placeholders) may stay in a
/// view; anything else goes in the catalogue.
const ALLOWED_WORDS: &[&str] = &[
    "CBOR",
    "JSON",
    "YAML",
    "Table",
    "HTTP",
    "API",
    "curl",
    "kubectl",
    "proxy",
    "Pod",
    "resourceVersion",
    "sinceSeconds",
    "tailLines",
    "fieldValidation",
    "Background",
    "Foreground",
    "Orphan",
    "resourceVersionMatch",
    "managedFields",
    "ms",
    "uid",
    "generation",
    "rv",
    "spec",
    "status",
    "replicas",
    "protobuf",
];

/// Literal text allowed as a whole: the header lines of a request preview.
const ALLOWED_LITERALS: &[&str] = &["\\nContent-Type: ", "\\nContent-Length: {}\\n\\n"];

/// Files whose views are not converted yet. The test fails when one of them has no literal text
/// left, so that the list only shrinks.
const NOT_YET_CONVERTED: &[&str] = &[];

/// `Display` texts of `api`, `model` and `client` that are not converted yet, as `file: type`.
/// The test fails when one of them has no words left, so that the list only shrinks.
const DISPLAY_NOT_YET_CONVERTED: &[&str] = &[];

/// Files of `api`, `model` and `client` whose errors are still worded as English strings (an
/// `Err("…")`, `Err(format!("…"))`, `ok_or("…")`, `ok_or_else(|| format!("…"))`,
/// `map_err(|_| format!("…"))` with words). The test fails when one has none left, so that the
/// list only shrinks.
const ERRORS_NOT_YET_CONVERTED: &[&str] = &[];

/// Files whose worded errors stay English: `model/list_text.rs` writes a list's text item by item,
/// and its errors are written into that text as YAML comments (`# item 3 of the list cannot be
/// decoded: …`), beside the YAML they stand for, in the left-to-right document pane.
const ERRORS_ALLOWED: &[&str] = &["model/src/list_text.rs"];

/// `Display` texts that stay as they are in every language: the names of the concepts page's
/// resourceVersion semantics (Kubernetes terms, like the parameters they describe); why a
/// language file cannot be used (`TableError`: the page then falls back to English, the language
/// it is shown in); why a list's text cannot be written item by item (`ListTextError`, written
/// into that text as a YAML comment, as [`ERRORS_ALLOWED`] says).
const DISPLAY_ALLOWED: &[&str] =
    &["wire/src/params.rs: Semantics", "model/src/i18n/mod.rs: TableError", "model/src/list_text.rs: ListTextError"];

/// The folders of the app's layers below the views whose texts go through the catalogue.
const APP_FOLDERS: &[&str] = &["model/src", "src/client"];

/// The protocol core: its texts are English, and the app gives each worded type its catalogue
/// text in [`CORE_TEXTS`].
const CORE: &str = "wire/src";

/// Where the app maps the core's errors and states to catalogue texts.
const CORE_TEXTS: &str = "model/src/i18n/wire";

/// Attributes a person reads or hears.
const VISIBLE_ATTRIBUTES: &[&str] = &["title", "aria-label", "placeholder", "alt", "label", "aria-description"];

/// The source without line comments (a `//` outside a string) and without its tests module.
fn code_of(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end].lines().map(strip_comment).collect::<Vec<_>>().join("\n")
}

fn strip_comment(line: &str) -> &str {
    let (mut in_string, mut escaped) = (false, false);
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        let c = bytes[i];
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if c == b'"' && !is_char_literal(bytes, i) {
            in_string = true;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            return &line[..i];
        }
    }
    line
}

/// `'"'`: a quote that is a char literal, not the start of a string.
fn is_char_literal(bytes: &[u8], i: usize) -> bool {
    i > 0 && bytes[i - 1] == b'\'' && bytes.get(i + 1) == Some(&b'\'')
}

/// A string literal found in markup or in a Rust block of it.
#[derive(Debug)]
struct Literal {
    text: String,
    line: usize,
    why: &'static str,
}

/// The literals of one `view! { ... }` body that a person would see.
fn shown_literals(code: &str, start: usize, found: &mut Vec<Literal>) {
    let bytes = code.as_bytes();
    let line_of = |i: usize| code[..i].matches('\n').count() + 1;
    // Depth of `{}` inside the view body: 0 is markup, more is a Rust block.
    let (mut depth, mut i) = (0usize, start);
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                if depth == 0 {
                    return;
                }
                depth -= 1;
            }
            b'"' if !is_char_literal(bytes, i) => {
                let end = string_end(bytes, i);
                let text = code[i + 1..end].to_owned();
                let before = code[..i].trim_end();
                let after = code[end + 1..].trim_start();
                let why = if depth == 0 {
                    markup_role(before).filter(|role| *role != ARGUMENT || !looks_like_code(&text))
                } else if before.ends_with('{') && after.starts_with('}') && !looks_like_code(&text) {
                    Some("the value of a block in the markup")
                } else if before.ends_with("format!(") && !looks_like_code(&text) {
                    Some("format! text in the markup")
                } else {
                    None
                };
                if let Some(why) = why {
                    found.push(Literal { text, line: line_of(i), why });
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
}

const ARGUMENT: &str = "an argument of a visible attribute";

/// Text that reads as code rather than words, in Rust code inside the markup: class names
/// (`button button--quiet`), placeholder names (`count`), CSS values (`{}px`), one lowercase
/// identifier. A capitalized word or several plain words are text.
fn looks_like_code(text: &str) -> bool {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let code_token = |t: &str| {
        !t.is_empty() && t.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_{}".contains(c))
    };
    !tokens.is_empty()
        && tokens.iter().all(|t| code_token(t))
        && (tokens.len() == 1 || tokens.iter().any(|t| t.contains("--") || t.contains("__")))
}

/// Why a literal at the markup level is shown, from the code before it.
fn markup_role(before: &str) -> Option<&'static str> {
    if let Some(head) = before.strip_suffix('=') {
        let name: String = head.chars().rev().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        let name: String = name.chars().rev().collect();
        return VISIBLE_ATTRIBUTES.contains(&name.as_str()).then_some("a visible attribute");
    }
    if before.ends_with('(') || before.ends_with(',') {
        // An argument in an attribute's expression (`title=f("...")`): the attribute decides.
        let tag = &before[before.rfind('<').unwrap_or(0)..];
        let shown = VISIBLE_ATTRIBUTES.iter().any(|a| {
            tag.rfind(&format!(" {a}=")).is_some_and(|at| !tag[at..].contains("\n    ") || tag[at..].contains('('))
        });
        return shown.then_some(ARGUMENT);
    }
    Some("a text node")
}

fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'"' => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len() - 1
}

/// Whether a shown literal needs the catalogue: outside its `{placeholders}` it has a word (two
/// letters or more) that is not an allowed term.
fn needs_catalogue(text: &str) -> bool {
    let mut without_placeholders = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => without_placeholders.push(c),
            _ => {}
        }
    }
    without_placeholders
        .split(|c: char| !c.is_alphabetic())
        .any(|word| word.chars().count() >= 2 && !ALLOWED_WORDS.contains(&word))
}

/// The literal text of a file's views that is not in the catalogue.
fn offenders(code: &str) -> Vec<Literal> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("view! {") {
        let body = from + at + "view! {".len();
        shown_literals(code, body, &mut found);
        from = body;
    }
    found.retain(|l| !ALLOWED_LITERALS.contains(&l.text.as_str()) && needs_catalogue(&l.text));
    found
}

#[test]
fn every_string_the_views_show_is_in_the_catalogue() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for file in rust_files(&root.join("src/ui")) {
        let relative = file.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&file).expect("readable");
        let found = offenders(&code_of(&text));
        let pending = NOT_YET_CONVERTED.contains(&relative.as_str());
        if pending && found.is_empty() {
            problems.push(format!("{relative} has no literal text left: take it off NOT_YET_CONVERTED"));
        }
        if !pending {
            for l in found {
                problems.push(format!("{relative}:{}: {:?} ({})", l.line, l.text, l.why));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "text shown without the catalogue (model/src/i18n/catalogue.rs):\n{}",
        problems.join("\n")
    );
}

/// A `Display` text with words: an `#[error("...")]` of a type, or a literal written in an
/// `impl Display for` it.
#[derive(Debug)]
struct Worded {
    /// The type it belongs to.
    of: String,
    text: String,
    line: usize,
}

/// Words a person reads in a `Display`: a word (two letters or more, not an allowed term) beside
/// a space, or a literal that is one bare word (`"paused"`). Wire syntax (`;stream=watch`,
/// `{ns}/{name}`) has neither.
fn is_prose(text: &str) -> bool {
    let bare_word = text.len() >= 2 && text.chars().all(|c| c.is_ascii_lowercase());
    needs_catalogue(text) && (text.contains(' ') || bare_word)
}

/// The worded `Display` texts of a file of `api`, `model` or `client`.
fn worded_displays(code: &str) -> Vec<Worded> {
    let bytes = code.as_bytes();
    let line_of = |i: usize| code[..i].matches('\n').count() + 1;
    let mut found = Vec::new();
    // thiserror: `#[error("...")]` on a type or a variant; the type is the next `enum`/`struct`
    // at or after it.
    let mut from = 0;
    while let Some(at) = code[from..].find("#[error(") {
        let start = from + at + "#[error(".len();
        from = start;
        let rest = code[start..].trim_start();
        if !rest.starts_with('"') {
            continue;
        }
        let open = start + (code[start..].len() - rest.len());
        let end = string_end(bytes, open);
        let text = code[open + 1..end].to_owned();
        let type_name = |at: usize| {
            let name = code[at..].split_whitespace().nth(1).unwrap_or_default();
            name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>()
        };
        // A type's own attribute comes before it; a variant's, after the enum's head.
        let item_after = code[end..]
            .lines()
            .skip(1)
            .find(|l| !l.trim_start().starts_with("#["))
            .filter(|l| l.contains("struct ") || l.contains("enum "))
            .and_then(|l| code[end..].find(l).map(|i| end + i + l.find("struct ").or(l.find("enum ")).unwrap_or(0)));
        let before = &code[..open];
        let of = match item_after {
            Some(at) => type_name(at),
            None => before
                .rfind("enum ")
                .into_iter()
                .chain(before.rfind("struct "))
                .max()
                .map(type_name)
                .unwrap_or_default(),
        };
        found.push(Worded { of, text, line: line_of(open) });
    }
    // `impl Display for T { ... }`: every literal of its body.
    for head in ["impl fmt::Display for ", "impl std::fmt::Display for "] {
        let mut from = 0;
        while let Some(at) = code[from..].find(head) {
            let name_at = from + at + head.len();
            from = name_at;
            let of: String = code[name_at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let Some(open) = code[name_at..].find('{').map(|i| name_at + i) else { continue };
            let (mut depth, mut i) = (0usize, open);
            while i < bytes.len() {
                match bytes[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b'"' if !is_char_literal(bytes, i) => {
                        let end = string_end(bytes, i);
                        found.push(Worded { of: of.clone(), text: code[i + 1..end].to_owned(), line: line_of(i) });
                        i = end;
                    }
                    _ => {}
                }
                i += 1;
            }
        }
    }
    found.retain(|w| is_prose(&w.text));
    found
}

/// The source files of `folders` (their tests, test data and command-line tools left out): each
/// as its path from the repository's root and its text.
fn source_files(folders: &[&str]) -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in folders {
        for file in rust_files(&root.join(folder)) {
            let relative = file.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/");
            let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            if name == "tests" || name.ends_with("_tests") || name == "testdata" || relative.contains("/src/bin/") {
                continue;
            }
            files.push((relative, std::fs::read_to_string(&file).expect("readable")));
        }
    }
    files
}

#[test]
fn every_error_and_state_text_outside_the_views_is_in_the_catalogue() {
    let mut problems = Vec::new();
    let mut pending_seen = Vec::new();
    for (relative, text) in source_files(APP_FOLDERS) {
        for w in worded_displays(&code_of(&text)) {
            let key = format!("{relative}: {}", w.of);
            if DISPLAY_ALLOWED.contains(&key.as_str()) {
                continue;
            }
            if DISPLAY_NOT_YET_CONVERTED.contains(&key.as_str()) {
                pending_seen.push(key);
                continue;
            }
            problems.push(format!("{relative}:{}: {} shows {:?}", w.line, w.of, w.text));
        }
    }
    for pending in DISPLAY_NOT_YET_CONVERTED {
        if !pending_seen.iter().any(|seen| seen == pending) {
            problems.push(format!("{pending} has no words left: take it off DISPLAY_NOT_YET_CONVERTED"));
        }
    }
    assert!(
        problems.is_empty(),
        "Display texts worded outside the catalogue (give the type a Localized text and \
         localized_display!, see model/src/i18n/mod.rs):\n{}",
        problems.join("\n")
    );
}

/// The calls whose string argument is an error's words.
const ERROR_HEADS: &[&str] = &["Err(", "ok_or(", "ok_or_else(|| ", "map_err(|_| ", "map_err(|e| "];

/// Errors worded as string literals: a literal (or a `format!` text) that is the argument of one
/// of [`ERROR_HEADS`] and reads as prose.
fn worded_errors(code: &str) -> Vec<Worded> {
    let bytes = code.as_bytes();
    let line_of = |i: usize| code[..i].matches('\n').count() + 1;
    let mut found = Vec::new();
    for head in ERROR_HEADS {
        let mut from = 0;
        while let Some(at) = code[from..].find(head) {
            let start = from + at + head.len();
            from = start;
            let rest = code[start..].trim_start();
            let rest = rest.strip_prefix("format!(").map_or(rest, str::trim_start);
            if !rest.starts_with('"') {
                continue;
            }
            let open = code.len() - rest.len();
            let end = string_end(bytes, open);
            found.push(Worded {
                of: head.trim_end().to_owned(),
                text: code[open + 1..end].to_owned(),
                line: line_of(open),
            });
        }
    }
    found.retain(|w| is_prose(&w.text));
    found.sort_by_key(|w| w.line);
    found
}

/// The types of the core's files whose `Display` has words (those of [`DISPLAY_ALLOWED`] aside),
/// each with where it is worded.
fn worded_core_types() -> Vec<(String, String)> {
    let mut types = Vec::new();
    for (relative, text) in source_files(&[CORE]) {
        for w in worded_displays(&code_of(&text)) {
            let key = format!("{relative}: {}", w.of);
            if !DISPLAY_ALLOWED.contains(&key.as_str()) && !types.iter().any(|(of, _)| *of == w.of) {
                types.push((w.of, format!("{relative}:{}", w.line)));
            }
        }
    }
    types
}

#[test]
fn every_worded_type_of_the_core_has_a_catalogue_text_in_the_app() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let texts: String =
        rust_files(&root.join(CORE_TEXTS)).iter().map(|f| std::fs::read_to_string(f).expect("readable")).collect();
    let types = worded_core_types();
    assert!(types.len() > 30, "found only {} worded types in {CORE}", types.len());
    let missing: Vec<String> = types
        .iter()
        .filter(|(of, _)| !texts.contains(&format!("impl Localized for {of} {{")))
        .map(|(of, at)| format!("{at}: {of}"))
        .collect();
    assert!(
        missing.is_empty(),
        "types of the core worded in English only (give each an impl Localized in {CORE_TEXTS}, with a test \
         that its English is the catalogue's):\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_error_worded_outside_the_views_is_in_the_catalogue() {
    let mut problems = Vec::new();
    let mut pending_seen = Vec::new();
    for (relative, text) in source_files(&[APP_FOLDERS, &[CORE]].concat()) {
        if ERRORS_ALLOWED.contains(&relative.as_str()) {
            continue;
        }
        let found = worded_errors(&code_of(&text));
        if ERRORS_NOT_YET_CONVERTED.contains(&relative.as_str()) {
            if !found.is_empty() {
                pending_seen.push(relative);
            }
            continue;
        }
        for w in found {
            problems.push(format!("{relative}:{}: {} {:?}", w.line, w.of, w.text));
        }
    }
    for pending in ERRORS_NOT_YET_CONVERTED {
        if !pending_seen.iter().any(|seen| seen == pending) {
            problems.push(format!("{pending} has no worded errors left: take it off ERRORS_NOT_YET_CONVERTED"));
        }
    }
    assert!(
        problems.is_empty(),
        "errors worded outside the catalogue (return an i18n::Text, or a Localized error):\n{}",
        problems.join("\n")
    );
}

#[track_caller]
fn check_errors(code: &str, expect: &[&str]) {
    let found: Vec<String> =
        worded_errors(&code_of(code)).into_iter().map(|w| format!("{} {}", w.of, w.text)).collect();
    assert_eq!(found, expect, "{code}");
}

#[test]
fn errors_worded_in_literals_are_found_and_codes_and_catalogue_texts_are_not() {
    check_errors(
        "fn f() -> Result<(), String> {\n    let a = x.ok_or(\"no such item\")?;\n    let b = y.map_err(|_| format!(\"expected a number, found {y:?}\"))?;\n    Err(\"the list is not an object\".to_owned())\n}",
        &["ok_or( no such item", "map_err(|_| expected a number, found {y:?}", "Err( the list is not an object"],
    );
    check_errors(
        "fn g() -> Result<(), Text> {\n    let k = key.ok_or_else(|| format!(\"{PREFIX}{kind}\"))?;\n    Err(Text::new(Msg::ListNotAnObject))\n}\n#[cfg(test)]\nmod tests {\n    fn t() { assert_eq!(f(), Err(\"the list is not an object\".into())); }\n}",
        &[],
    );
}

#[track_caller]
fn check_displays(code: &str, expect: &[&str]) {
    let found: Vec<String> =
        worded_displays(&code_of(code)).into_iter().map(|w| format!("{}: {}", w.of, w.text)).collect();
    assert_eq!(found, expect, "{code}");
}

#[test]
fn worded_error_attributes_and_display_literals_are_found() {
    check_displays(
        "#[derive(thiserror::Error)]\npub enum E {\n    #[error(\"no response: {0}\")]\n    A(String),\n    #[error(transparent)]\n    B(X),\n}",
        &["E: no response: {0}"],
    );
    check_displays(
        "#[derive(thiserror::Error)]\n#[error(\"{url} answered HTTP {status}\")]\npub struct F { url: String }",
        &["F: {url} answered HTTP {status}"],
    );
    check_displays(
        "impl fmt::Display for S {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        match self { S::A => f.write_str(\"paused\"), S::B => write!(f, \"reconnecting in {} s\", 1) }\n    }\n}",
        &["S: paused", "S: reconnecting in {} s"],
    );
}

#[test]
fn wire_syntax_and_catalogue_texts_are_not() {
    check_displays(
        "impl fmt::Display for M {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        f.write_str(\";stream=watch\")?;\n        write!(f, \"{ns}/{name}\")?;\n        f.write_str(\"protobuf\")\n    }\n}",
        &[],
    );
    check_displays("impl Localized for E {\n    fn text(&self) -> Text { Text::new(Msg::NoResponse).with(\"error\", 1) }\n}\ncrate::localized_display!(E);", &[]);
}

#[track_caller]
fn check(view_code: &str, expect: &[&str]) {
    let found: Vec<String> = offenders(&code_of(view_code)).into_iter().map(|l| l.text).collect();
    assert_eq!(found, expect, "{view_code}");
}

#[test]
fn text_nodes_visible_attributes_and_block_values_are_found() {
    check(r#"view! { <p>"Hello"</p> }"#, &["Hello"]);
    check(r#"view! { <p class="a b">{t(Msg::X)}" "<b>"Two words"</b></p> }"#, &["Two words"]);
    check(r#"view! { <input placeholder="Filter rows" title=t(Msg::X) /> }"#, &["Filter rows"]);
    check(r#"view! { <span title=format!("obeyed from {o}")>"·"</span> }"#, &["obeyed from {o}"]);
    check(r#"view! { <p>{if x { "Yes" } else { "No" }}</p> }"#, &["Yes", "No"]);
    check(r#"view! { <p>{move || format!("Page {}", n)}</p> }"#, &["Page {}"]);
}

#[test]
fn attributes_code_symbols_and_allowed_terms_are_not() {
    check(r#"view! { <p class="status-error" data-testid="x" role="alert">"JSON"" → "{t(Msg::Y)}</p> }"#, &[]);
    check(r#"view! { <p>{format!("HTTP {} {}", code, reason)}</p> }"#, &[]);
    check(r#"view! { <div class=if e { "topbar topbar--embed" } else { "topbar" }>"{n}"</div> }"#, &[]);
    check(r#"view! { <p>{value.get("kind").and_then(|k| k.as_str())}</p> }"#, &[]);
    check("view! { <p>\"kubectl proxy\"</p> }\n// view! { <p>\"Commented\"</p> }", &[]);
}
