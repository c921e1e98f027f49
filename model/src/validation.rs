//! Validation while typing, placed on the editor's lines: the problems `api::validate` finds in
//! the edited text, each on the line that shows its field (the line paths come from
//! `model::highlight::yaml_line_pointers`, the same map that puts field owners and server warnings
//! in the gutter), and the text offsets a "go to line" selects.
//!
//! Invariants: a problem always gets a line of the text (a missing field's parent, else the first
//! line); a repeated key's problem is on its own occurrence, not the first; nothing here panics on
//! any text.

use crate::highlight::yaml_line_pointers;
use kube_wire::schema::OpenApiSchemas;
use kube_wire::validate::{read_lenient, validate, Problem, Refusal, Unreadable, ValidateError};
use kube_wire::write::diff::pointer_segments;

/// A problem on its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters) where the field's key starts.
    pub column: usize,
    /// The field as the server names it.
    pub field: String,
    /// The server's words.
    pub message: String,
    pub refusal: Refusal,
}

/// Why the text was not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotChecked {
    /// The text does not read as YAML or JSON (the editor shows where).
    Unreadable(Unreadable),
    /// No kind, or no schema for it.
    NoSchema(ValidateError),
}

/// The problems of the editor's `text` against `schemas`, in the validator's order.
pub fn check_edit(text: &str, schemas: &OpenApiSchemas) -> Result<Vec<LineProblem>, NotChecked> {
    let read = read_lenient(text).map_err(NotChecked::Unreadable)?;
    let problems = validate(&read, schemas).map_err(NotChecked::NoSchema)?;
    let lines: Vec<&str> = text.split('\n').collect();
    let pointers = yaml_line_pointers(text);
    Ok(problems.into_iter().map(|p| place(&lines, &pointers, p)).collect())
}

/// The 0-based line numbers that carry a problem, with the problems' texts, for the gutter.
pub fn problem_lines(problems: &[LineProblem]) -> Vec<(usize, String)> {
    problems.iter().map(|p| (p.line - 1, p.message.clone())).collect()
}

/// The byte range of 1-based `line` in `text` (without its newline), for selecting it.
pub fn line_range(text: &str, line: usize) -> (usize, usize) {
    let mut start = 0;
    for (index, part) in text.split('\n').enumerate() {
        if index + 1 == line {
            return (start, start + part.len());
        }
        start += part.len() + 1;
    }
    (text.len(), text.len())
}

fn place(lines: &[&str], pointers: &[Option<String>], problem: Problem) -> LineProblem {
    let mut pointer = problem.pointer.clone();
    let found = loop {
        if let Some(index) = line_of(lines, pointers, &pointer, problem.occurrence) {
            break Some(index);
        }
        // A missing field is shown on its parent's line.
        match pointer.rfind('/') {
            Some(cut) if !pointer.is_empty() => pointer.truncate(cut),
            _ => break None,
        }
    };
    let index = found.unwrap_or_else(|| lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0));
    let text = lines.get(index).copied().unwrap_or_default();
    let column = key_column(text);
    LineProblem { line: index + 1, column, field: problem.field, message: problem.message, refusal: problem.refusal }
}

/// The line (0-based) of the `occurrence`-th key line of `pointer` (a repeated key's lines all
/// have the same pointer); for occurrence 0 (not a repeat), the last key line, whose value is the
/// one the server keeps; else the first line with the pointer.
fn line_of(lines: &[&str], pointers: &[Option<String>], pointer: &str, occurrence: usize) -> Option<usize> {
    if pointer.is_empty() {
        return None;
    }
    let key = pointer_segments(pointer).pop().unwrap_or_default();
    let matching: Vec<usize> =
        pointers.iter().enumerate().filter(|(_, p)| p.as_deref() == Some(pointer)).map(|(i, _)| i).collect();
    let key_lines: Vec<usize> =
        matching.iter().copied().filter(|i| lines.get(*i).is_some_and(|l| starts_with_key(l, &key))).collect();
    let chosen = match occurrence {
        0 => key_lines.last(),
        n => key_lines.get(n).or(key_lines.last()),
    };
    chosen.or(matching.first()).copied()
}

/// Whether a line's content (after indentation and list markers) starts with `key:`.
fn starts_with_key(line: &str, key: &str) -> bool {
    let mut rest = line.trim_start();
    while let Some(after) = rest.strip_prefix("- ") {
        rest = after.trim_start();
    }
    rest = rest.trim_start_matches(['{', ',', ' ']);
    let quoted = [format!("\"{key}\""), format!("'{key}'"), key.to_string()];
    quoted.iter().any(|q| rest.strip_prefix(q.as_str()).is_some_and(|after| after.trim_start().starts_with(':')))
}

/// The 1-based column where a line's key (or content) starts.
fn key_column(line: &str) -> usize {
    let mut rest = line;
    let mut skipped = 0;
    loop {
        let trimmed = rest.trim_start();
        skipped += rest.chars().count() - trimmed.chars().count();
        rest = trimmed;
        match rest.strip_prefix("- ") {
            Some(after) => {
                skipped += 2;
                rest = after;
            }
            None => break,
        }
    }
    skipped + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widgets() -> OpenApiSchemas {
        let text = kube_wire::testdata::repository_file("sim/data/openapi-v3-apis-example.com-v1.json");
        OpenApiSchemas::from_json(text.as_bytes()).expect("document")
    }

    #[track_caller]
    fn check(text: &str, expect: &[(usize, usize, &str)]) {
        let got: Vec<(usize, usize, String)> =
            check_edit(text, &widgets()).expect("checked").into_iter().map(|p| (p.line, p.column, p.message)).collect();
        let expect: Vec<(usize, usize, String)> = expect.iter().map(|(l, c, m)| (*l, *c, m.to_string())).collect();
        assert_eq!(got, expect, "{text}");
    }

    #[test]
    fn yaml_problems_sit_on_their_fields_lines_and_repeats_on_their_own() {
        let text = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: small\n  ports:\n  - name: http\n    port: x\n  size: huge\n  replicas: 11\n  bogus: 1\n";
        check(
            text,
            &[
                (10, 3, "duplicate field \"spec.size\""),
                (12, 3, "unknown field \"spec.bogus\""),
                (10, 3, "spec.size: Unsupported value: \"huge\": supported values: \"small\", \"medium\", \"large\""),
                (9, 5, "spec.ports[0].port: Invalid value: \"string\": spec.ports[0].port in body must be of type integer: \"string\""),
                (11, 3, "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
            ],
        );
        // A missing required field is shown on its parent's line.
        check(
            "apiVersion: example.com/v1\nkind: Widget\nspec:\n  replicas: 1\n",
            &[(3, 1, "spec.size: Required value")],
        );
    }

    #[test]
    fn json_problems_sit_on_their_members_lines() {
        let text = "{\n  \"apiVersion\": \"example.com/v1\",\n  \"kind\": \"Widget\",\n  \"spec\": {\n    \"size\": \"small\",\n    \"replicas\": 1,\n    \"replicas\": 99\n  }\n}";
        check(
            text,
            &[
                (7, 5, "duplicate field \"spec.replicas\""),
                (7, 5, "spec.replicas: Invalid value: 99: spec.replicas in body should be less than or equal to 10"),
            ],
        );
    }

    #[test]
    fn unreadable_or_unknown_text_is_not_checked_and_lines_select() {
        assert!(matches!(check_edit("a: [1\n", &widgets()), Err(NotChecked::Unreadable(_))));
        assert!(matches!(check_edit("kind: Pod\napiVersion: v1\n", &widgets()), Err(NotChecked::NoSchema(_))));
        assert_eq!(line_range("a\nbc\nd", 2), (2, 4));
        assert_eq!(line_range("a\nbc", 9), (4, 4));
        let problems = check_edit("apiVersion: example.com/v1\nkind: Widget\nspec: {size: small, x: 1}\n", &widgets())
            .expect("checked");
        assert_eq!(problem_lines(&problems), [(2, "unknown field \"spec.x\"".to_string())]);
    }
}
