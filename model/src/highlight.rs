//! Syntax highlighting, folding and line paths for the object view and the editor: a line-by-line
//! tokenizer for YAML and JSON (JSON is read as YAML's flow style), the blocks each line opens
//! (by indentation, for folding), and the JSON pointer each line of a block-YAML text addresses,
//! so that field ownership and server warnings can be shown next to the line.
//!
//! Invariants: the tokens of a line concatenate to exactly the line's text (the overlay lines up
//! with the textarea character for character); nothing here panics on any input; a line whose
//! path cannot be told (blank, comment, flow style) has none rather than a guessed one.

use kube_wire::write::diff::pointer_from_segments;

/// What a piece of a line is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A mapping key.
    Key,
    /// A quoted or plain string value.
    String,
    Number,
    /// `true`/`false`.
    Bool,
    /// `null` or `~`.
    Null,
    /// `{ } [ ] , :` and a list's `-`.
    Punct,
    /// `# ...` to the end of the line (YAML only).
    Comment,
    /// Spaces and anything else.
    Plain,
}

impl TokenKind {
    /// The CSS class suffix of the kind.
    pub fn class(self) -> &'static str {
        match self {
            TokenKind::Key => "key",
            TokenKind::String => "string",
            TokenKind::Number => "number",
            TokenKind::Bool => "bool",
            TokenKind::Null => "null",
            TokenKind::Punct => "punct",
            TokenKind::Comment => "comment",
            TokenKind::Plain => "plain",
        }
    }
}

/// One coloured piece of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: String,
}

/// Whether `text` looks like JSON (its first non-blank character opens an object or array).
pub fn looks_like_json(text: &str) -> bool {
    matches!(text.trim_start().chars().next(), Some('{') | Some('['))
}

/// The tokens of every line of `text` (split at `\n`; a trailing `\r` stays in the last token).
pub fn highlight(text: &str) -> Vec<Vec<Token>> {
    let json = looks_like_json(text);
    text.split('\n').map(|line| highlight_line(line, json)).collect()
}

/// The tokens of one line; `json` makes `,` `]` `}` end plain scalars and turns off comments.
pub fn highlight_line(line: &str, json: bool) -> Vec<Token> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut push = |kind: TokenKind, piece: &[char]| {
        if piece.is_empty() {
            return;
        }
        let text: String = piece.iter().collect();
        match tokens.last_mut() {
            Some(last) if last.kind == kind && kind == TokenKind::Plain => last.text.push_str(&text),
            _ => tokens.push(Token { kind, text }),
        }
    };
    let mut flow_depth = 0usize;
    let mut i = 0;
    let ends_value = |c: char, depth: usize| json || depth > 0 && matches!(c, ',' | ']' | '}');
    while i < chars.len() {
        let c = chars[i];
        let at_boundary = i == 0 || chars[i - 1].is_whitespace();
        if c.is_whitespace() {
            let start = i;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            push(TokenKind::Plain, &chars[start..i]);
        } else if c == '#' && !json && at_boundary {
            push(TokenKind::Comment, &chars[i..]);
            i = chars.len();
        } else if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() {
                if c == '"' && chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c {
                    // '' is an escaped quote inside a single-quoted YAML string.
                    if c == '\'' && chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
            let end = i.min(chars.len());
            i = end;
            let kind = if key_follows(&chars, end) { TokenKind::Key } else { TokenKind::String };
            push(kind, &chars[start..end]);
        } else if matches!(c, '{' | '[') {
            flow_depth += 1;
            push(TokenKind::Punct, &chars[i..=i]);
            i += 1;
        } else if matches!(c, '}' | ']') {
            flow_depth = flow_depth.saturating_sub(1);
            push(TokenKind::Punct, &chars[i..=i]);
            i += 1;
        } else if (c == ',' && (json || flow_depth > 0))
            || (c == ':' && json)
            || ((c == ':' || c == '-') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()))
        {
            push(TokenKind::Punct, &chars[i..=i]);
            i += 1;
        } else {
            let start = i;
            while i < chars.len() {
                let here = chars[i];
                if here == ':' && chars.get(i + 1).is_none_or(|n| n.is_whitespace() || json) {
                    break;
                }
                if here == '#' && !json && chars[i - 1].is_whitespace() {
                    break;
                }
                if ends_value(here, flow_depth) && matches!(here, ',' | ']' | '}') {
                    break;
                }
                i += 1;
            }
            if i == start {
                // Nothing a scalar can start with: keep the character as it is.
                i += 1;
                push(TokenKind::Plain, &chars[start..i]);
                continue;
            }
            // Trailing spaces belong to the gap, not the scalar.
            let mut end = i;
            while end > start && chars[end - 1].is_whitespace() {
                end -= 1;
            }
            let word: String = chars[start..end].iter().collect();
            let kind = if key_follows(&chars, end) { TokenKind::Key } else { scalar_kind(&word) };
            push(kind, &chars[start..end]);
            push(TokenKind::Plain, &chars[end..i]);
        }
    }
    tokens
}

/// Whether a `:` (after optional spaces) follows position `at`, making what precedes a key.
fn key_follows(chars: &[char], at: usize) -> bool {
    let mut j = at;
    while j < chars.len() && chars[j] == ' ' {
        j += 1;
    }
    chars.get(j) == Some(&':')
}

fn scalar_kind(word: &str) -> TokenKind {
    match word {
        "true" | "false" | "True" | "False" | "TRUE" | "FALSE" => TokenKind::Bool,
        "null" | "Null" | "NULL" | "~" => TokenKind::Null,
        _ if word.parse::<f64>().is_ok() && !word.starts_with('+') => TokenKind::Number,
        _ => TokenKind::String,
    }
}

/// One open level of the block structure while reading line paths.
#[derive(Debug, Clone)]
struct Frame {
    indent: usize,
    segment: String,
    item: Option<usize>,
}

/// The JSON pointer each line of a block-YAML `text` addresses (`/spec/replicas` for
/// `  replicas: 3`, `/spec/containers/0` for the line starting that item, a block scalar's key
/// for its continuation lines; in a JSON text, the first member or item a line starts); `None`
/// for blank lines, comments, document markers and closing brackets.
pub fn yaml_line_pointers(text: &str) -> Vec<Option<String>> {
    let lines: Vec<&str> = text.split('\n').collect();
    if looks_like_json(text) {
        return json_line_pointers(&lines);
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut block_scalar: Option<(usize, String)> = None;
    let path = |stack: &[Frame]| pointer_from_segments(&stack.iter().map(|f| f.segment.clone()).collect::<Vec<_>>());
    let mut out = Vec::with_capacity(lines.len());
    for raw in lines {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let indent = line.chars().take_while(|c| *c == ' ').count();
        let content = &line[indent..];
        if let Some((scalar_indent, pointer)) = &block_scalar {
            if content.is_empty() || indent > *scalar_indent {
                out.push(Some(pointer.clone()));
                continue;
            }
            block_scalar = None;
        }
        if content.is_empty() || content.starts_with('#') || content.starts_with("---") || content.starts_with("...") {
            out.push(None);
            continue;
        }
        let mut column = indent;
        let mut rest = content;
        // Each leading `- ` opens (or advances) a list item.
        while rest == "-" || rest.starts_with("- ") {
            while stack.last().is_some_and(|f| f.indent > column) {
                stack.pop();
            }
            let index = match stack.last() {
                Some(Frame { indent, item: Some(index), .. }) if *indent == column => {
                    let next = index + 1;
                    stack.pop();
                    next
                }
                _ => 0,
            };
            stack.push(Frame { indent: column, segment: index.to_string(), item: Some(index) });
            let after = rest.get(1..).unwrap_or("");
            let spaces = after.chars().take_while(|c| *c == ' ').count();
            column += 1 + spaces;
            rest = &after[spaces..];
        }
        if rest.is_empty() {
            out.push(Some(path(&stack)));
            continue;
        }
        match split_key(rest) {
            Some((key, value)) => {
                // A key at the column of a list's `-` ends that list (a compact sequence,
                // `ports:` then `- name: a` at the same indentation, then a sibling key).
                while stack.last().is_some_and(|f| f.indent >= column) {
                    stack.pop();
                }
                stack.push(Frame { indent: column, segment: key, item: None });
                let pointer = path(&stack);
                let value = value.trim();
                if value.starts_with('|') || value.starts_with('>') {
                    block_scalar = Some((column, pointer.clone()));
                }
                out.push(Some(pointer));
            }
            None => out.push(Some(path(&stack))),
        }
    }
    out
}

/// One open object or array while reading the lines of a JSON text.
struct JsonFrame {
    array: bool,
    key: Option<String>,
    index: usize,
}

/// The pointer of the first member or item each line of a JSON text starts.
fn json_line_pointers(lines: &[&str]) -> Vec<Option<String>> {
    let mut stack: Vec<JsonFrame> = Vec::new();
    let path = |stack: &[JsonFrame]| -> Option<String> {
        let mut segments = Vec::new();
        for frame in stack {
            segments.push(if frame.array { frame.index.to_string() } else { frame.key.clone()? });
        }
        (!segments.is_empty()).then(|| pointer_from_segments(&segments))
    };
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let mut pointer = None;
        for token in highlight_line(line, true) {
            match (token.kind, token.text.as_str()) {
                (TokenKind::Key, key) => {
                    if let Some(top) = stack.last_mut() {
                        top.key = Some(serde_json::from_str::<String>(key).unwrap_or_else(|_| key.to_string()));
                    }
                    if pointer.is_none() {
                        pointer = path(&stack);
                    }
                }
                (TokenKind::Punct, "{") | (TokenKind::Punct, "[") => {
                    if pointer.is_none() && stack.last().is_some_and(|f| f.array) {
                        pointer = path(&stack);
                    }
                    stack.push(JsonFrame { array: token.text == "[", key: None, index: 0 });
                }
                (TokenKind::Punct, "}") | (TokenKind::Punct, "]") => {
                    stack.pop();
                }
                (TokenKind::Punct, ",") => {
                    if let Some(top) = stack.last_mut() {
                        if top.array {
                            top.index += 1;
                        } else {
                            top.key = None;
                        }
                    }
                }
                (TokenKind::String | TokenKind::Number | TokenKind::Bool | TokenKind::Null, _)
                    if pointer.is_none() && stack.last().is_some_and(|f| f.array) =>
                {
                    pointer = path(&stack);
                }
                _ => {}
            }
        }
        out.push(pointer);
    }
    out
}

/// `key` and the rest of a `key: value` line (quotes removed from the key).
fn split_key(content: &str) -> Option<(String, &str)> {
    let tokens = highlight_line(content, false);
    let first = tokens.first()?;
    if first.kind != TokenKind::Key {
        return None;
    }
    let key = first.text.trim();
    let key = if key.len() >= 2 && (key.starts_with('"') && key.ends_with('"')) {
        serde_json::from_str::<String>(key).unwrap_or_else(|_| key[1..key.len() - 1].to_string())
    } else if key.len() >= 2 && key.starts_with('\'') && key.ends_with('\'') {
        key[1..key.len() - 1].replace("''", "'")
    } else {
        key.to_string()
    };
    let colon = content.find(':').map(|i| i + 1).unwrap_or(content.len());
    // The colon after a quoted key may follow the closing quote; find it after the key text.
    let after_key = content.get(first.text.len()..).unwrap_or("");
    let rest = after_key.trim_start().strip_prefix(':').unwrap_or_else(|| content.get(colon..).unwrap_or(""));
    Some((key, rest))
}

/// For each line, the index of the last line of the block it opens (the following lines indented
/// deeper than it), or `None` when it opens none. Folding line `i` hides lines `i+1..=end`.
pub fn fold_ends(text: &str) -> Vec<Option<usize>> {
    let lines: Vec<&str> = text.split('\n').collect();
    // A YAML sequence item (`- x`) belongs to the key above it even at the same indentation
    // (`containers:` then `- name: web`), so it counts one deeper.
    let indent = |line: &str| {
        let body = line.trim_start();
        let item = usize::from(body.starts_with("- ") || body == "-");
        (!body.is_empty()).then(|| line.len() - body.len() + item)
    };
    let indents: Vec<Option<usize>> = lines.iter().map(|l| indent(l)).collect();
    let mut ends = vec![None; lines.len()];
    // A stack of open lines; a line closes every open line indented at least as deep.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut last_content = 0;
    for (i, level) in indents.iter().enumerate() {
        let Some(level) = *level else { continue };
        while let Some(&(start, start_level)) = open.last() {
            if level > start_level {
                break;
            }
            open.pop();
            if last_content > start {
                ends[start] = Some(last_content);
            }
        }
        open.push((i, level));
        last_content = i;
    }
    for (start, _) in open {
        if last_content > start {
            ends[start] = Some(last_content);
        }
    }
    // YAML list items (`- a: 1` followed by `  b: 2`) nest by indentation too; a line whose
    // block is only deeper lines is foldable, anything else is not.
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str, json: bool) -> Vec<(TokenKind, std::string::String)> {
        highlight_line(line, json)
            .into_iter()
            .filter(|t| t.kind != TokenKind::Plain)
            .map(|t| (t.kind, t.text))
            .collect()
    }

    use TokenKind::*;

    #[test]
    fn yaml_lines_are_split_into_keys_values_and_comments() {
        assert_eq!(
            kinds("  replicas: 3 # three", false),
            vec![(Key, "replicas".into()), (Punct, ":".into()), (Number, "3".into()), (Comment, "# three".into())]
        );
        assert_eq!(
            kinds("- name: web", false),
            vec![(Punct, "-".into()), (Key, "name".into()), (Punct, ":".into()), (String, "web".into())]
        );
        assert_eq!(
            kinds("image: nginx:1.27", false),
            vec![(Key, "image".into()), (Punct, ":".into()), (String, "nginx:1.27".into())]
        );
        assert_eq!(kinds("a: null", false)[2], (Null, "null".into()));
        assert_eq!(kinds("a: true", false)[2], (Bool, "true".into()));
        assert_eq!(
            kinds("'it''s': \"x\\\"y\"", false),
            vec![(Key, "'it''s'".into()), (Punct, ":".into()), (String, "\"x\\\"y\"".into())]
        );
        assert_eq!(kinds("message: a, b # c", false)[2], (String, "a, b".into()));
    }

    #[test]
    fn json_lines_are_split_with_commas_and_brackets() {
        assert_eq!(
            kinds("  \"replicas\": 3,", true),
            vec![(Key, "\"replicas\"".into()), (Punct, ":".into()), (Number, "3".into()), (Punct, ",".into())]
        );
        assert_eq!(
            kinds("{\"a\":[1,true,null]}", true),
            vec![
                (Punct, "{".into()),
                (Key, "\"a\"".into()),
                (Punct, ":".into()),
                (Punct, "[".into()),
                (Number, "1".into()),
                (Punct, ",".into()),
                (Bool, "true".into()),
                (Punct, ",".into()),
                (Null, "null".into()),
                (Punct, "]".into()),
                (Punct, "}".into())
            ]
        );
    }

    #[test]
    fn tokens_always_rebuild_the_line() {
        let samples = [
            "",
            "   ",
            "a: b",
            "\"unterminated",
            "- - x",
            "key:    # c",
            "{[}]]],,::",
            "x: 'a''",
            "ü: ß # ∑",
            "\t- \"a\\",
            "#",
            "a:b",
            "- ",
        ];
        for sample in samples {
            for json in [false, true] {
                let rebuilt: std::string::String = highlight_line(sample, json).into_iter().map(|t| t.text).collect();
                assert_eq!(rebuilt, sample, "json={json}");
            }
        }
        assert_eq!(highlight("a: 1\nb: 2").len(), 2);
    }

    #[test]
    fn block_yaml_lines_map_to_json_pointers() {
        let text = "apiVersion: apps/v1\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/name: web\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        ports:\n        - containerPort: 80\n      - name: side\n  note: |\n    line one\n\n    line two\n  after: 1\n# comment\nstatus: {}";
        let got = yaml_line_pointers(text);
        let expect = [
            Some("/apiVersion"),
            Some("/metadata"),
            Some("/metadata/name"),
            Some("/metadata/labels"),
            Some("/metadata/labels/app.kubernetes.io~1name"),
            Some("/spec"),
            Some("/spec/replicas"),
            Some("/spec/template"),
            Some("/spec/template/spec"),
            Some("/spec/template/spec/containers"),
            Some("/spec/template/spec/containers/0/name"),
            Some("/spec/template/spec/containers/0/image"),
            Some("/spec/template/spec/containers/0/ports"),
            Some("/spec/template/spec/containers/0/ports/0/containerPort"),
            Some("/spec/template/spec/containers/1/name"),
            Some("/spec/note"),
            Some("/spec/note"),
            Some("/spec/note"),
            Some("/spec/note"),
            Some("/spec/after"),
            None,
            Some("/status"),
        ];
        let got: Vec<Option<&str>> = got.iter().map(Option::as_deref).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn indented_lists_and_scalar_items_have_paths_and_json_has_none() {
        let text = "finalizers:\n  - example.com/a\n  - example.com/b\nargs:\n- -x\n- \"quoted\": 1";
        let got: Vec<Option<std::string::String>> = yaml_line_pointers(text);
        assert_eq!(got[1].as_deref(), Some("/finalizers/0"));
        assert_eq!(got[2].as_deref(), Some("/finalizers/1"));
        assert_eq!(got[4].as_deref(), Some("/args/0"));
        assert_eq!(got[5].as_deref(), Some("/args/1/quoted"));
        // A key at the column of a compact sequence's `-` is the list's sibling, not its item's.
        let compact: Vec<Option<std::string::String>> =
            yaml_line_pointers("spec:\n  ports:\n  - name: http\n    port: 80\n  size: huge\n");
        assert_eq!(compact[3].as_deref(), Some("/spec/ports/0/port"));
        assert_eq!(compact[4].as_deref(), Some("/spec/size"));
        let json = "{\n  \"a\": 1,\n  \"spec\": {\n    \"list\": [\n      {\n        \"name\": \"x\"\n      },\n      \"two\"\n    ],\n    \"a/b\": {}\n  }\n}";
        let got: Vec<Option<std::string::String>> = yaml_line_pointers(json);
        let got: Vec<Option<&str>> = got.iter().map(Option::as_deref).collect();
        assert_eq!(
            got,
            vec![
                None,
                Some("/a"),
                Some("/spec"),
                Some("/spec/list"),
                Some("/spec/list/0"),
                Some("/spec/list/0/name"),
                None,
                Some("/spec/list/1"),
                None,
                Some("/spec/a~1b"),
                None,
                None
            ]
        );
    }

    #[test]
    fn blocks_fold_by_indentation() {
        let yaml = "metadata:\n  name: web\n  labels:\n    app: web\nspec:\n  replicas: 3\n";
        assert_eq!(fold_ends(yaml), vec![Some(3), None, Some(3), None, Some(5), None, None]);
        let json = "{\n  \"a\": {\n    \"b\": 1\n  },\n  \"c\": 2\n}";
        assert_eq!(fold_ends(json), vec![Some(4), Some(2), None, None, None, None]);
        assert_eq!(fold_ends("a\n\n  b\n\nc"), vec![Some(2), None, None, None, None]);
        let items = "containers:\n- name: a\n  image: x\n- name: b\nnext: 1";
        assert_eq!(fold_ends(items), vec![Some(3), Some(2), None, None, None]);
    }
}
