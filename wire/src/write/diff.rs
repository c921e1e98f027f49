//! Diffs of two versions of an object: a structural diff (which JSON-pointer paths were added,
//! removed or changed, with old and new values) and a line diff of their YAML (side-by-side rows
//! and unified hunks), both shaped so that a view renders them without further logic.
//!
//! The structural diff is `json_patch::diff` read back against the old document; the line diff is
//! `similar`'s Myers diff of the two YAML texts. Neither algorithm is ours.
//!
//! Invariants: paths are RFC 6901 JSON pointers into the *old* document for removals and into the
//! *new* one otherwise; [`DiffOptions`] drop the same fields from both sides before comparing, so
//! an ignored field never shows up as a change; line numbers are 1-based.

use similar::{ChangeTag, DiffTag, TextDiff};

use crate::codec::value::Value;
use crate::codec::yaml::{encode_yaml, EncodeYamlError};

/// Which parts of the objects a diff leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffOptions {
    /// Leave out `metadata.managedFields` (server-side apply bookkeeping).
    pub ignore_managed_fields: bool,
    /// Leave out `status` (written by controllers, not by the user).
    pub ignore_status: bool,
    /// Leave out the fields the server changes on every write: `metadata.resourceVersion`,
    /// `metadata.generation`, `metadata.managedFields` and the deprecated `metadata.selfLink`.
    pub ignore_server_fields: bool,
}

impl DiffOptions {
    /// Compare everything.
    pub const EVERYTHING: DiffOptions =
        DiffOptions { ignore_managed_fields: false, ignore_status: false, ignore_server_fields: false };
    /// Compare what a user edits: no managed fields, no status, no server bookkeeping.
    pub const USER_EDITS: DiffOptions =
        DiffOptions { ignore_managed_fields: true, ignore_status: true, ignore_server_fields: true };

    /// `value` without the fields these options ignore.
    pub fn strip(&self, value: &Value) -> Value {
        let mut value = value.clone();
        let Value::Object(root) = &mut value else {
            return value;
        };
        if self.ignore_status {
            root.remove("status");
        }
        let mut metadata_fields: Vec<&str> = Vec::new();
        if self.ignore_managed_fields || self.ignore_server_fields {
            metadata_fields.push("managedFields");
        }
        if self.ignore_server_fields {
            metadata_fields.extend(["resourceVersion", "generation", "selfLink"]);
        }
        // `insert` replaces in place, so metadata keeps its position (and its YAML lines).
        if let Some(Value::Object(fields)) = root.get("metadata") {
            let mut fields = fields.clone();
            for field in metadata_fields {
                fields.remove(field);
            }
            root.insert("metadata", Value::Object(fields));
        }
        value
    }
}

/// What happened at one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Only in the new object.
    Added,
    /// Only in the old object.
    Removed,
    /// In both, with different values.
    Changed,
}

/// One difference between the old and the new object.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// RFC 6901 JSON pointer, e.g. `/spec/containers/0/image`.
    pub path: String,
    pub kind: ChangeKind,
    /// The value before (absent for [`ChangeKind::Added`]).
    pub old: Option<Value>,
    /// The value after (absent for [`ChangeKind::Removed`]).
    pub new: Option<Value>,
}

impl Change {
    /// The path as a person reads it: `spec.containers[0].image`.
    pub fn display_path(&self) -> String {
        display_pointer(&self.path)
    }
}

/// The structural diff of two objects.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectDiff {
    /// Changes depth first: within an object, additions and replacements (in the new object's
    /// key order) come before removals.
    pub changes: Vec<Change>,
}

impl ObjectDiff {
    /// Whether the objects are the same (under the options the diff was made with).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// The structural diff of `old` and `new`.
pub fn diff_objects(old: &Value, new: &Value, options: DiffOptions) -> ObjectDiff {
    let old = options.strip(old).to_serde_json();
    let new = options.strip(new).to_serde_json();
    let patch = json_patch::diff(&old, &new);
    let mut scratch = old;
    let mut changes = Vec::new();
    // `json_patch::diff` removes trailing array items one by one at the same (shifted) index;
    // count them to report each at its index in the old document.
    let mut removed_from: Option<(String, usize)> = None;
    for op in patch.iter() {
        let path = op.path().to_string();
        let before = scratch.pointer(&path).map(Value::from_serde_json);
        let change = match op {
            json_patch::PatchOperation::Add(add) => Change {
                path: path.clone(),
                kind: ChangeKind::Added,
                old: None,
                new: Some(Value::from_serde_json(&add.value)),
            },
            json_patch::PatchOperation::Replace(replace) => Change {
                path: path.clone(),
                kind: ChangeKind::Changed,
                old: before,
                new: Some(Value::from_serde_json(&replace.value)),
            },
            _ => {
                let reported = match &mut removed_from {
                    Some((last, shift)) if *last == path => {
                        *shift += 1;
                        shifted_index(&path, *shift)
                    }
                    _ => {
                        removed_from = Some((path.clone(), 0));
                        path.clone()
                    }
                };
                Change { path: reported, kind: ChangeKind::Removed, old: before, new: None }
            }
        };
        changes.push(change);
        // The diff was made from `scratch`'s original, so every operation applies.
        let _ = json_patch::patch(&mut scratch, std::slice::from_ref(op));
    }
    ObjectDiff { changes }
}

/// `path` with its last (array index) segment increased by `shift`.
fn shifted_index(path: &str, shift: usize) -> String {
    match path.rsplit_once('/') {
        Some((parent, index)) => match index.parse::<usize>() {
            Ok(index) => format!("{parent}/{}", index + shift),
            Err(_) => path.to_string(),
        },
        None => path.to_string(),
    }
}

/// The unescaped segments of an RFC 6901 JSON pointer (`""` is the root: no segments).
pub fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer.trim_start_matches('/').split('/').map(|s| s.replace("~1", "/").replace("~0", "~")).collect()
}

/// The JSON pointer of `segments` (each escaped as RFC 6901 says).
pub fn pointer_from_segments<S: AsRef<str>>(segments: &[S]) -> String {
    segments.iter().map(|s| format!("/{}", s.as_ref().replace('~', "~0").replace('/', "~1"))).collect()
}

/// A JSON pointer as a person reads it: `/spec/containers/0/image` → `spec.containers[0].image`;
/// a key with a dot is quoted: `metadata.labels["app.kubernetes.io/name"]`.
pub fn display_pointer(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer_segments(pointer) {
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else if segment.contains(['.', '/', '[', ']', '"']) || segment.is_empty() {
            out.push_str(&format!("[{segment:?}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

/// How a row of a side-by-side diff differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// The same line on both sides.
    Same,
    /// A line replaced by another.
    Changed,
    /// Only on the new side.
    Added,
    /// Only on the old side.
    Removed,
}

/// A numbered line of one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in its text.
    pub number: usize,
    /// The line without its line ending.
    pub text: String,
}

/// One row of a side-by-side view: the old line on the left, the new one on the right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideBySideRow {
    pub kind: RowKind,
    pub old: Option<Line>,
    pub new: Option<Line>,
}

/// What a line of a unified hunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkLineKind {
    /// Unchanged, shown around the changes.
    Context,
    /// Only in the old text (`-`).
    Removed,
    /// Only in the new text (`+`).
    Added,
}

/// One line of a unified hunk, with its numbers on each side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub kind: HunkLineKind,
    pub old_number: Option<usize>,
    pub new_number: Option<usize>,
    pub text: String,
}

/// A unified-diff hunk: changed lines with their context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based first old line (0 when the old range is empty, as `diff -u` writes).
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<HunkLine>,
}

impl Hunk {
    /// The `@@ -a,b +c,d @@` header.
    pub fn header(&self) -> String {
        format!("@@ -{},{} +{},{} @@", self.old_start, self.old_len, self.new_start, self.new_len)
    }
}

/// A line diff of two texts, as side-by-side rows (every line) and unified hunks (changes with
/// context).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineDiff {
    pub rows: Vec<SideBySideRow>,
    pub hunks: Vec<Hunk>,
}

impl LineDiff {
    /// Whether the texts are equal.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// The hunks as unified-diff text (`@@` headers, then ` `, `-`, `+` lines).
    pub fn unified(&self) -> String {
        let mut out = String::new();
        for hunk in &self.hunks {
            out.push_str(&hunk.header());
            out.push('\n');
            for line in &hunk.lines {
                out.push(match line.kind {
                    HunkLineKind::Context => ' ',
                    HunkLineKind::Removed => '-',
                    HunkLineKind::Added => '+',
                });
                out.push_str(&line.text);
                out.push('\n');
            }
        }
        out
    }
}

/// The line diff of two texts with `context` unchanged lines around each hunk.
pub fn line_diff(old: &str, new: &str, context: usize) -> LineDiff {
    let diff = TextDiff::from_lines(old, new);
    let old_lines: Vec<&str> = diff.old_slices().to_vec();
    let new_lines: Vec<&str> = diff.new_slices().to_vec();
    let line = |lines: &[&str], index: usize| Line { number: index + 1, text: trim_eol(lines[index]).to_string() };
    let mut rows = Vec::new();
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => rows.extend(old_range.zip(new_range).map(|(o, n)| SideBySideRow {
                kind: RowKind::Same,
                old: Some(line(&old_lines, o)),
                new: Some(line(&new_lines, n)),
            })),
            DiffTag::Delete => rows.extend(old_range.map(|o| SideBySideRow {
                kind: RowKind::Removed,
                old: Some(line(&old_lines, o)),
                new: None,
            })),
            DiffTag::Insert => rows.extend(new_range.map(|n| SideBySideRow {
                kind: RowKind::Added,
                old: None,
                new: Some(line(&new_lines, n)),
            })),
            DiffTag::Replace => {
                let paired = old_range.len().max(new_range.len());
                let (olds, news): (Vec<usize>, Vec<usize>) = (old_range.collect(), new_range.collect());
                for i in 0..paired {
                    let old = olds.get(i).map(|&o| line(&old_lines, o));
                    let new = news.get(i).map(|&n| line(&new_lines, n));
                    let kind = match (&old, &new) {
                        (Some(_), Some(_)) => RowKind::Changed,
                        (Some(_), None) => RowKind::Removed,
                        _ => RowKind::Added,
                    };
                    rows.push(SideBySideRow { kind, old, new });
                }
            }
        }
    }
    let hunks = diff
        .grouped_ops(context)
        .iter()
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let lines = group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|change| HunkLine {
                    kind: match change.tag() {
                        ChangeTag::Equal => HunkLineKind::Context,
                        ChangeTag::Delete => HunkLineKind::Removed,
                        ChangeTag::Insert => HunkLineKind::Added,
                    },
                    old_number: change.old_index().map(|i| i + 1),
                    new_number: change.new_index().map(|i| i + 1),
                    text: trim_eol(change.value()).to_string(),
                })
                .collect();
            let start = |range: &std::ops::Range<usize>| if range.is_empty() { range.start } else { range.start + 1 };
            Some(Hunk {
                old_start: start(&old_range),
                old_len: old_range.len(),
                new_start: start(&new_range),
                new_len: new_range.len(),
                lines,
            })
        })
        .collect();
    LineDiff { rows, hunks }
}

/// The line diff of the YAML forms of two objects, after leaving out what `options` ignore.
pub fn yaml_diff(old: &Value, new: &Value, options: DiffOptions, context: usize) -> Result<LineDiff, EncodeYamlError> {
    let old = String::from_utf8_lossy(&encode_yaml(&options.strip(old))?).into_owned();
    let new = String::from_utf8_lossy(&encode_yaml(&options.strip(new))?).into_owned();
    Ok(line_diff(&old, &new, context))
}

fn trim_eol(line: &str) -> &str {
    line.strip_suffix('\n').map_or(line, |l| l.strip_suffix('\r').unwrap_or(l))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::decode_json;
    use crate::testdata::shared_file;

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("test JSON")
    }

    #[track_caller]
    fn check(old: &str, new: &str, options: DiffOptions, expect: &[(&str, ChangeKind, Option<&str>, Option<&str>)]) {
        let diff = diff_objects(&json(old), &json(new), options);
        let got: Vec<(String, ChangeKind, Option<String>, Option<String>)> = diff
            .changes
            .iter()
            .map(|c| (c.path.clone(), c.kind, c.old.as_ref().map(Value::to_json), c.new.as_ref().map(Value::to_json)))
            .collect();
        let expect: Vec<(String, ChangeKind, Option<String>, Option<String>)> = expect
            .iter()
            .map(|(p, k, o, n)| (p.to_string(), *k, o.map(str::to_string), n.map(str::to_string)))
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn a_structural_diff_lists_added_removed_and_changed_paths_with_values() {
        check(
            r#"{"a":1,"b":{"c":"x","d":[1,2,3]},"gone":true}"#,
            r#"{"a":2,"b":{"c":"x","d":[1]},"new/key":{"k":null}}"#,
            DiffOptions::EVERYTHING,
            &[
                ("/a", ChangeKind::Changed, Some("1"), Some("2")),
                ("/b/d/1", ChangeKind::Removed, Some("2"), None),
                ("/b/d/2", ChangeKind::Removed, Some("3"), None),
                ("/new~1key", ChangeKind::Added, None, Some(r#"{"k":null}"#)),
                ("/gone", ChangeKind::Removed, Some("true"), None),
            ],
        );
    }

    #[test]
    fn ignored_fields_never_show_as_changes() {
        let old = r#"{"metadata":{"name":"a","resourceVersion":"1","generation":1,"managedFields":[{"manager":"x"}]},"spec":{"n":1},"status":{"phase":"A"}}"#;
        let new = r#"{"metadata":{"name":"a","resourceVersion":"2","generation":2,"managedFields":[]},"spec":{"n":2},"status":{"phase":"B"}}"#;
        check(old, new, DiffOptions::USER_EDITS, &[("/spec/n", ChangeKind::Changed, Some("1"), Some("2"))]);
        let only_managed = DiffOptions { ignore_managed_fields: true, ..DiffOptions::EVERYTHING };
        let diff = diff_objects(&json(old), &json(new), only_managed);
        let mut paths: Vec<&str> = diff.changes.iter().map(|c| c.path.as_str()).collect();
        paths.sort_unstable();
        assert_eq!(paths, ["/metadata/generation", "/metadata/resourceVersion", "/spec/n", "/status/phase"]);
        assert!(diff_objects(&json(old), &json(old), DiffOptions::EVERYTHING).is_empty());
    }

    #[test]
    fn pointers_read_as_dotted_paths_and_round_trip_their_escapes() {
        assert_eq!(display_pointer("/spec/containers/0/image"), "spec.containers[0].image");
        assert_eq!(
            display_pointer("/metadata/labels/app.kubernetes.io~1name"),
            r#"metadata.labels["app.kubernetes.io/name"]"#
        );
        assert_eq!(pointer_segments("/a~1b/c~0d"), ["a/b", "c~d"]);
        assert_eq!(pointer_from_segments(&["a/b", "c~d"]), "/a~1b/c~0d");
        assert!(pointer_segments("").is_empty());
        let change = Change { path: "/a/0".into(), kind: ChangeKind::Added, old: None, new: None };
        assert_eq!(change.display_path(), "a[0]");
    }

    #[test]
    fn a_line_diff_pairs_replaced_lines_and_numbers_both_sides() {
        let diff = line_diff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n", 1);
        let kinds: Vec<RowKind> = diff.rows.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [RowKind::Same, RowKind::Changed, RowKind::Same, RowKind::Same, RowKind::Added]);
        assert_eq!(diff.rows[1].old, Some(Line { number: 2, text: "b".into() }));
        assert_eq!(diff.rows[4].new, Some(Line { number: 5, text: "e".into() }));
        assert_eq!(diff.unified(), "@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n");
        assert_eq!(diff.hunks[0].lines[2].new_number, Some(2));
        assert!(line_diff("x\n", "x\n", 3).is_empty());
    }

    #[test]
    fn far_apart_changes_make_separate_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .map(|i| match i {
                2 => "two\n".to_string(),
                19 => "nineteen\n".to_string(),
                i => format!("{i}\n"),
            })
            .collect();
        let diff = line_diff(&old, &new, 2);
        let headers: Vec<String> = diff.hunks.iter().map(Hunk::header).collect();
        assert_eq!(headers, ["@@ -1,4 +1,4 @@", "@@ -17,4 +17,4 @@"]);
        let removed_only = line_diff("a\nb\n", "", 0);
        assert_eq!(removed_only.hunks[0].header(), "@@ -1,2 +0,0 @@");
    }

    #[test]
    fn the_yaml_diff_of_a_real_pod_shows_only_the_edited_line() {
        let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
        let mut edited = pod.to_serde_json();
        edited["metadata"]["labels"] = serde_json::json!({"app": "edited"});
        edited["metadata"]["resourceVersion"] = serde_json::json!("999999");
        let edited = Value::from_serde_json(&edited);
        let diff = yaml_diff(&pod, &edited, DiffOptions::USER_EDITS, 0).expect("yaml");
        let changed: Vec<&HunkLine> =
            diff.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.kind != HunkLineKind::Context).collect();
        assert!(
            changed.iter().any(|l| l.kind == HunkLineKind::Added && l.text.contains("app: edited")),
            "{}",
            diff.unified()
        );
        assert!(!diff.unified().contains("resourceVersion"));
        assert!(!diff.unified().contains("managedFields"));
        let stripped = DiffOptions::USER_EDITS.strip(&pod);
        let keys: Vec<&str> = stripped.as_object().map(|m| m.iter().map(|(k, _)| k).collect()).unwrap_or_default();
        assert_eq!(keys, ["kind", "apiVersion", "metadata", "spec"], "metadata stays in place");
    }
}
