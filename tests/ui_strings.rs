//! Every string the views show goes through the catalogue (`src/i18n/catalogue.rs`): this test
//! reads `src/ui/**/*.rs` and fails on literal text in `view!` markup (a text node such as
//! `<p>"Hello"</p>`), in a user-visible attribute (`title`, `aria-label`, `placeholder`, `alt`,
//! `label`), or as the value or `format!` text of a Rust block inside the markup
//! (`{if x { "Yes" } else { "No" }}`). Kubernetes terms, media types and symbols may stay
//! literal: they are the short allowlist below. Text built outside `view!` is not seen here; the
//! catalogue's own test checks each language file against the catalogue.

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
];

/// Literal text allowed as a whole: the header lines of a request preview.
const ALLOWED_LITERALS: &[&str] = &["\\nContent-Type: ", "\\nContent-Length: {}\\n\\n"];

/// Files whose views are not converted yet. The test fails when one of them has no literal text
/// left, so that the list only shrinks.
const NOT_YET_CONVERTED: &[&str] = &[];

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
    assert!(problems.is_empty(), "text shown without the catalogue (src/i18n/catalogue.rs):\n{}", problems.join("\n"));
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
