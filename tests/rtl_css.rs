//! Persian lays the page out right to left by `dir="rtl"` alone, which only works if the styles
//! say "start" and "end" rather than "left" and "right" (CSS logical properties). This reads
//! every stylesheet of `style/` and fails on a physical side outside the rules for code, which
//! stays left to right in every language.

use std::path::Path;

/// Declarations that name a physical side.
const PHYSICAL: [&str; 12] = [
    "padding-left",
    "padding-right",
    "margin-left",
    "margin-right",
    "border-left",
    "border-right",
    "text-align: left",
    "text-align: right",
    "float: left",
    "float: right",
    " left:",
    " right:",
];

/// Rules whose content is code (YAML, JSON, a diff), left to right whatever the page's direction.
const CODE_RULES: [&str; 1] = ["pre, .code, .editor, .diff"];

#[test]
fn the_stylesheets_name_sides_by_start_and_end() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("style");
    let mut sheets: Vec<_> = std::fs::read_dir(&dir)
        .expect("style/ is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "css"))
        .collect();
    sheets.sort();
    assert!(sheets.len() >= 3, "expected the app's stylesheets in {}, found {sheets:?}", dir.display());
    let mut found = Vec::new();
    for sheet in &sheets {
        let text = std::fs::read_to_string(sheet).expect("a stylesheet is text");
        // Each rule: its selector, then its declarations up to the closing brace.
        for rule in text.split('}') {
            let Some((selector, body)) = rule.split_once('{') else { continue };
            let selector = selector.rsplit("*/").next().unwrap_or(selector).trim();
            if CODE_RULES.contains(&selector) {
                continue;
            }
            let body = format!(" {}", body.replace(['\n', '\t', ';'], " "));
            for side in PHYSICAL {
                if body.contains(side) {
                    found.push(format!("{}: `{selector}` has `{}`", sheet.display(), side.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "physical sides where start/end (logical properties) belong:\n{}", found.join("\n"));
}
