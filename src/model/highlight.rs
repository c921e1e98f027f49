//! Syntax highlighting and folding for the YAML and JSON the explorer shows and edits: text in,
//! lines of classified tokens and fold ranges out. It is line-oriented, as the documents are
//! (pretty JSON, block YAML), and total: any text gives tokens that join back to the same text.

/// What a token is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A mapping key (`name:` in YAML, `"name":` in JSON).
    Key,
    String,
    Number,
    /// `true`, `false`, `null`, `~`.
    Literal,
    /// Structure: `{ } [ ] , :` and YAML's `- `, `---`.
    Punctuation,
    /// `# ...` in YAML.
    Comment,
    /// Anything else (whitespace, plain scalars the tokenizer does not classify).
    Plain,
}

impl TokenKind {
    /// The CSS class of the token.
    pub fn class(self) -> &'static str {
        match self {
            TokenKind::Key => "tok-key",
            TokenKind::String => "tok-string",
            TokenKind::Number => "tok-number",
            TokenKind::Literal => "tok-literal",
            TokenKind::Punctuation => "tok-punct",
            TokenKind::Comment => "tok-comment",
            TokenKind::Plain => "tok-plain",
        }
    }
}

/// One piece of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: String,
}

/// The language of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Yaml,
    Json,
}

/// Splits `text` into lines of tokens. Joining every token of every line with `\n` between lines
/// gives `text` back.
pub fn highlight(text: &str, language: Language) -> Vec<Vec<Token>> {
    text.split('\n')
        .map(|line| match language {
            Language::Json => json_line(line),
            Language::Yaml => yaml_line(line),
        })
        .collect()
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

fn push(tokens: &mut Vec<Token>, kind: TokenKind, text: &str) {
    if text.is_empty() {
        return;
    }
    match tokens.last_mut() {
        Some(last) if last.kind == kind => last.text.push_str(text),
        _ => tokens.push(Token { kind, text: text.to_owned() }),
    }
}

fn scalar_kind(word: &str) -> TokenKind {
    let trimmed = word.trim();
    match trimmed {
        "true" | "false" | "null" | "~" | "True" | "False" | "Null" | "NULL" | "TRUE" | "FALSE" => TokenKind::Literal,
        _ if trimmed.parse::<f64>().is_ok() && trimmed.chars().any(|c| c.is_ascii_digit()) => TokenKind::Number,
        _ if trimmed.starts_with('"') || trimmed.starts_with('\'') => TokenKind::String,
        _ => TokenKind::String,
    }
}

/// The end (byte index after the closing quote) of a quoted string starting at `start`, or the
/// end of the line when it is not closed.
fn quoted_end(line: &str, start: usize) -> usize {
    let bytes = line.as_bytes();
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    line.len()
}

fn json_line(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => {
                let end = quoted_end(line, i).min(line.len());
                let rest = line[end..].trim_start();
                let kind = if rest.starts_with(':') { TokenKind::Key } else { TokenKind::String };
                push(&mut tokens, kind, &line[i..end]);
                i = end;
            }
            b'{' | b'}' | b'[' | b']' | b',' | b':' => {
                push(&mut tokens, TokenKind::Punctuation, &line[i..i + 1]);
                i += 1;
            }
            b' ' | b'\t' | b'\r' => {
                push(&mut tokens, TokenKind::Plain, &line[i..i + 1]);
                i += 1;
            }
            _ => {
                let end = line[i..].find([',', '}', ']', ' ', '\t', ':', '"']).map_or(line.len(), |n| i + n.max(1));
                let word = &line[i..end];
                let kind = match scalar_kind(word) {
                    TokenKind::String => TokenKind::Plain,
                    other => other,
                };
                push(&mut tokens, kind, word);
                i = end;
            }
        }
    }
    tokens
}

fn yaml_line(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let body_start = line.len() - line.trim_start().len();
    push(&mut tokens, TokenKind::Plain, &line[..body_start]);
    let mut rest = &line[body_start..];
    if rest.starts_with('#') {
        push(&mut tokens, TokenKind::Comment, rest);
        return tokens;
    }
    if rest == "---" || rest == "..." {
        push(&mut tokens, TokenKind::Punctuation, rest);
        return tokens;
    }
    // Sequence markers: `- `, possibly several (`- - a`).
    while rest.starts_with("- ") || rest == "-" {
        let n = rest.len().min(2);
        push(&mut tokens, TokenKind::Punctuation, &rest[..1]);
        push(&mut tokens, TokenKind::Plain, &rest[1..n]);
        rest = &rest[n..];
    }
    // A key: a quoted or plain scalar followed by `:` and a space or the end of the line.
    if let Some(key_end) = yaml_key_end(rest) {
        push(&mut tokens, TokenKind::Key, &rest[..key_end]);
        push(&mut tokens, TokenKind::Punctuation, ":");
        rest = &rest[key_end + 1..];
        let spaces = rest.len() - rest.trim_start().len();
        push(&mut tokens, TokenKind::Plain, &rest[..spaces]);
        rest = &rest[spaces..];
    }
    yaml_value(&mut tokens, rest);
    tokens
}

/// Where the key ends (the index of its `:`), if `text` starts with a mapping key.
fn yaml_key_end(text: &str) -> Option<usize> {
    if text.starts_with('"') || text.starts_with('\'') {
        let end = quoted_end(text, 0);
        let after = &text[end..];
        return (after.starts_with(':') && (after.len() == 1 || after[1..].starts_with(' '))).then_some(end);
    }
    if text.starts_with(['{', '[', '|', '>', '&', '*', '!', '#']) {
        return None;
    }
    let mut search = 0;
    while let Some(found) = text[search..].find(':') {
        let at = search + found;
        let after = &text[at + 1..];
        if after.is_empty() || after.starts_with(' ') {
            return (at > 0 && !text[..at].contains(" #")).then_some(at);
        }
        search = at + 1;
    }
    None
}

fn yaml_value(tokens: &mut Vec<Token>, value: &str) {
    if value.is_empty() {
        return;
    }
    let (content, comment) = match value.find(" #") {
        Some(at) if !value.starts_with(['"', '\'']) => (&value[..at], &value[at..]),
        _ => (value, ""),
    };
    if content.starts_with('"') || content.starts_with('\'') {
        let end = quoted_end(content, 0);
        push(tokens, TokenKind::String, &content[..end]);
        push(tokens, TokenKind::Plain, &content[end..]);
    } else if matches!(content.trim(), "{}" | "[]" | "|" | "|-" | "|+" | ">" | ">-" | ">+") {
        push(tokens, TokenKind::Punctuation, content);
    } else {
        let trailing = content.len() - content.trim_end().len();
        push(tokens, scalar_kind(content), &content[..content.len() - trailing]);
        push(tokens, TokenKind::Plain, &content[content.len() - trailing..]);
    }
    push(tokens, TokenKind::Comment, comment);
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind::*;

    #[track_caller]
    fn check(line: &str, language: Language, expect: &[(TokenKind, &str)]) {
        let lines = highlight(line, language);
        assert_eq!(lines.len(), 1);
        let got: Vec<(TokenKind, &str)> = lines[0].iter().map(|t| (t.kind, t.text.as_str())).collect();
        assert_eq!(got, expect, "{line}");
    }

    #[test]
    fn yaml_lines_are_classified() {
        check(
            "  name: web",
            Language::Yaml,
            &[(Plain, "  "), (Key, "name"), (Punctuation, ":"), (Plain, " "), (String, "web")],
        );
        check(
            "- replicas: 3",
            Language::Yaml,
            &[(Punctuation, "-"), (Plain, " "), (Key, "replicas"), (Punctuation, ":"), (Plain, " "), (Number, "3")],
        );
        check(
            "ready: true # yes",
            Language::Yaml,
            &[(Key, "ready"), (Punctuation, ":"), (Plain, " "), (Literal, "true"), (Comment, " # yes")],
        );
        check(
            "image: \"nginx:1.27\"",
            Language::Yaml,
            &[(Key, "image"), (Punctuation, ":"), (Plain, " "), (String, "\"nginx:1.27\"")],
        );
        check(
            "url: http://x:80/a",
            Language::Yaml,
            &[(Key, "url"), (Punctuation, ":"), (Plain, " "), (String, "http://x:80/a")],
        );
        check("labels: {}", Language::Yaml, &[(Key, "labels"), (Punctuation, ":"), (Plain, " "), (Punctuation, "{}")]);
        check("\"a: b\": 1", Language::Yaml, &[(Key, "\"a: b\""), (Punctuation, ":"), (Plain, " "), (Number, "1")]);
        check("# comment", Language::Yaml, &[(Comment, "# comment")]);
        check("---", Language::Yaml, &[(Punctuation, "---")]);
        check("- plain", Language::Yaml, &[(Punctuation, "-"), (Plain, " "), (String, "plain")]);
    }

    #[test]
    fn json_lines_are_classified() {
        check(
            r#"  "replicas": 3,"#,
            Language::Json,
            &[
                (Plain, "  "),
                (Key, "\"replicas\""),
                (Punctuation, ":"),
                (Plain, " "),
                (Number, "3"),
                (Punctuation, ","),
            ],
        );
        check(
            r#""a": "x\"y", "b": null"#,
            Language::Json,
            &[
                (Key, "\"a\""),
                (Punctuation, ":"),
                (Plain, " "),
                (String, "\"x\\\"y\""),
                (Punctuation, ","),
                (Plain, " "),
                (Key, "\"b\""),
                (Punctuation, ":"),
                (Plain, " "),
                (Literal, "null"),
            ],
        );
        check(
            "[true, -1.5e3]",
            Language::Json,
            &[
                (Punctuation, "["),
                (Literal, "true"),
                (Punctuation, ","),
                (Plain, " "),
                (Number, "-1.5e3"),
                (Punctuation, "]"),
            ],
        );
    }

    #[test]
    fn tokens_join_back_to_the_text_whatever_it_is() {
        for text in
            ["a: 'it''s'\n  - b\n\"unclosed", "{\"k\": \"\\u00e9\"}\n]", "é: ü # ö\n\t- x", "\"", "'", ": :", ""]
        {
            for language in [Language::Yaml, Language::Json] {
                let joined: Vec<std::string::String> =
                    highlight(text, language).iter().map(|l| l.iter().map(|t| t.text.as_str()).collect()).collect();
                assert_eq!(joined.join("\n"), text, "{language:?}");
            }
        }
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
