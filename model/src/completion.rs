//! Help while writing an object's YAML, from its kind's schema: which member the cursor is on
//! (for its docs), what it is typing (a key of which mapping, or the value of which field), and
//! what may be typed there: the fields of the schema at that path not yet present, or a field's
//! enum values (and `true`/`false` for a boolean).
//!
//! Invariants: paths come from `model::highlight::yaml_line_pointers`, the same map that puts
//! owners, warnings and problems on the editor's lines, so a completion's path is the one the
//! gutter shows; block YAML and JSON written one member per line (as the editor writes it) are
//! completed, anything else (a flow collection, a quoted YAML key, a comment, a block scalar's
//! text, several JSON members on one line) answers `None`, never a guess; a candidate's text keeps
//! the document's syntax and indentation (a list's `- ` at its key's column in YAML; quoted keys
//! and string values in JSON); nothing here panics on any text or offset.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::highlight::{looks_like_json, yaml_line_pointers};
use kube_wire::explain::{Field, NotInSchema, SchemaTree, Shape, Step};
use kube_wire::write::diff::pointer_segments;

/// A key no document has: the placeholder whose path is the path a key typed there gets.
const PLACEHOLDER: &str = "\u{1}cursor";

/// What the cursor is typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typing {
    /// A key of the mapping at `parent` (a JSON pointer's segments; empty for the object).
    Key {
        parent: Vec<String>,
        /// The keys the mapping already has (on other lines).
        present: BTreeSet<String>,
        /// The key's column (in characters): its children are indented from it.
        column: usize,
        /// Whether a `:` follows the word already (then only the name is replaced).
        colon_follows: bool,
    },
    /// The value of the field at `field` (a JSON pointer's segments), after `key:`.
    Value {
        field: Vec<String>,
        /// Whether the cursor is right after the colon (a space goes before the value).
        space_needed: bool,
    },
}

/// Where the cursor is typing, and what a candidate replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorPlace {
    pub typing: Typing,
    /// What is typed of the key or value before the cursor.
    pub prefix: String,
    /// The byte range of the text a chosen candidate replaces: the whole word at the cursor (in
    /// JSON with its quotes).
    pub range: Range<usize>,
    /// The text is JSON: keys and string values are written quoted.
    pub json: bool,
}

/// One thing that may be typed at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What the list shows and the prefix is matched against: a field's name or a value.
    pub label: String,
    /// What replaces [`CursorPlace::range`].
    pub insert: String,
    /// The field's type in kubectl explain's words (`integer`, `[]Container`), or the value's
    /// field's type.
    pub type_label: String,
    /// Whether the field is required.
    pub required: bool,
    /// The path of the field (as the schema explorer takes it), for its docs.
    pub field: String,
    /// A value the field's description names ("One of Always, Never, IfNotPresent."), offered
    /// because the schema has no `enum` (the built-in kinds' documents carry none).
    pub from_description: bool,
}

/// Why nothing is offered at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoCandidates {
    /// The path is not in the schema (unknown, or below preserved unknown fields).
    NotInSchema(NotInSchema),
    /// The keys of a map are free (`metadata.labels`): the schema names none.
    FreeKeys { map: String },
    /// A list's members are items: a new one starts with `- `.
    ListItems { list: String },
    /// A string, number or boolean has no fields.
    Scalar { field: String },
    /// The field's value is not one of a set (no enum, not a boolean).
    NoValues { field: String },
    /// The object has every field of its schema already.
    AllPresent { object: String },
    /// Nothing starts with (or contains) what is typed.
    NoMatch { prefix: String },
}

/// Where the cursor (a byte offset into `text`) is typing, in block YAML: a key (after the
/// indentation and any list markers, before a `:`) or a value (after `key:`). `None` elsewhere.
pub fn cursor_place(text: &str, cursor: usize) -> Option<CursorPlace> {
    if cursor > text.len() || !text.is_char_boundary(cursor) {
        return None;
    }
    if looks_like_json(text) {
        return json_place(text, cursor);
    }
    let line_start = text[..cursor].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[cursor..].find('\n').map_or(text.len(), |i| cursor + i);
    let before = &text[line_start..cursor];
    let after = text[cursor..line_end].trim_end_matches('\r');
    let lead = lead_of(before);
    let content = &before[lead.len()..];
    // A key typed here would belong to this mapping; `None` inside a block scalar's text.
    let parent = key_parent(text, line_start, lead)?;
    if is_plain_word(content) && !content.starts_with('-') {
        let word = after.find(|c: char| c.is_whitespace() || c == ':').unwrap_or(after.len());
        let rest = &after[word..];
        let colon_follows = rest.trim_start().starts_with(':');
        if !rest.trim().is_empty() && !colon_follows {
            return None;
        }
        let line = text[..line_start].matches('\n').count();
        let present = present_keys(text, line, &parent);
        let typing = Typing::Key { parent, present, column: lead.chars().count(), colon_follows };
        return Some(CursorPlace {
            typing,
            prefix: content.to_string(),
            range: line_start + lead.len()..cursor + word,
            json: false,
        });
    }
    let colon = key_colon(content)?;
    let key = &content[..colon];
    let value = &content[colon + 1..];
    let typed = value.trim_start();
    if !is_plain_word(key) || !is_plain_word(typed) {
        return None;
    }
    let word = after.find(char::is_whitespace).unwrap_or(after.len());
    let rest = after[word..].trim();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return None;
    }
    let pointer = yaml_line_pointers(&text[..line_end]).pop().flatten()?;
    let field = pointer_segments(&pointer);
    if field.last().map(String::as_str) != Some(key) {
        return None;
    }
    let typing = Typing::Value { field, space_needed: value.is_empty() };
    Some(CursorPlace { typing, prefix: typed.to_string(), range: cursor - typed.len()..cursor + word, json: false })
}

/// [`cursor_place`] in a JSON text whose members each start a line: a key being typed (`"rep`
/// at the start of a line of an object, possibly before its closing quote and colon) or a value
/// (after `"key": `, bare or after its opening quote).
fn json_place(text: &str, cursor: usize) -> Option<CursorPlace> {
    let line_start = text[..cursor].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[cursor..].find('\n').map_or(text.len(), |i| cursor + i);
    let before = &text[line_start..cursor];
    let after = text[cursor..line_end].trim_end_matches('\r');
    let lead = &before[..before.len() - before.trim_start_matches([' ', '\t']).len()];
    let quoted = before[lead.len()..].strip_prefix('"')?;
    // The rest of the word at the cursor, and what follows it.
    let word_end = |quoted: bool| {
        let word = after.find(|c: char| c.is_whitespace() || matches!(c, '"' | ':' | ',')).unwrap_or(after.len());
        let closing = usize::from(quoted && after[word..].starts_with('"'));
        (word + closing, &after[word + closing..])
    };
    if is_plain_word(quoted) {
        let (end, rest) = word_end(true);
        let colon_follows = rest.trim_start().starts_with(':');
        if !colon_follows && !rest.trim().is_empty() {
            return None;
        }
        let key = serde_json::Value::String(PLACEHOLDER.to_string());
        let probe = format!("{}{lead}{key}: 0", &text[..line_start]);
        let mut parent = pointer_segments(&yaml_line_pointers(&probe).pop().flatten()?);
        if parent.pop().as_deref() != Some(PLACEHOLDER) {
            return None;
        }
        let line = text[..line_start].matches('\n').count();
        let present = present_keys(text, line, &parent);
        let typing = Typing::Key { parent, present, column: lead.chars().count(), colon_follows };
        let range = line_start + lead.len()..cursor + end;
        return Some(CursorPlace { typing, prefix: quoted.to_string(), range, json: true });
    }
    let close = quoted.find('"')?;
    let key = &quoted[..close];
    let value = quoted[close + 1..].trim_start().strip_prefix(':')?;
    let typed = value.trim_start();
    let (opened, word) = match typed.strip_prefix('"') {
        Some(word) => (true, word),
        None => (false, typed),
    };
    if !is_plain_word(key) || !is_plain_word(word) {
        return None;
    }
    let (end, rest) = word_end(opened);
    if !matches!(rest.trim(), "" | ",") {
        return None;
    }
    let field = pointer_segments(&yaml_line_pointers(&text[..line_end]).pop().flatten()?);
    if field.last().map(String::as_str) != Some(key) {
        return None;
    }
    let typing = Typing::Value { field, space_needed: value.is_empty() };
    Some(CursorPlace { typing, prefix: word.to_string(), range: cursor - typed.len()..cursor + end, json: true })
}

/// The JSON pointer segments of the member the line at the cursor shows (its key, or its list
/// item), for the docs at the cursor; `None` on a blank line or a comment.
pub fn member_at(text: &str, cursor: usize) -> Option<Vec<String>> {
    let cursor = cursor.min(text.len());
    let line = text.get(..cursor)?.matches('\n').count();
    let pointer = yaml_line_pointers(text).into_iter().nth(line).flatten()?;
    Some(pointer_segments(&pointer))
}

/// The fields (or values) `tree` offers at `place`, those starting with the typed prefix first
/// (required fields before the others, then by name), then those only containing it.
pub fn candidates(tree: &SchemaTree, place: &CursorPlace) -> Result<Vec<Candidate>, NoCandidates> {
    // Fields are sorted (required first); values keep the schema's order.
    let (offered, fields) = match &place.typing {
        Typing::Key { parent, present, column, colon_follows } => {
            key_candidates(tree, parent, present, *column, *colon_follows, place.json)?
        }
        Typing::Value { field, space_needed } => (value_candidates(tree, field, *space_needed, place.json)?, false),
    };
    let prefix = place.prefix.to_lowercase();
    let (mut starting, mut containing): (Vec<Candidate>, Vec<Candidate>) = offered
        .into_iter()
        .filter(|c| c.label.to_lowercase().contains(&prefix))
        .partition(|c| c.label.to_lowercase().starts_with(&prefix));
    if starting.is_empty() && containing.is_empty() {
        return Err(NoCandidates::NoMatch { prefix: place.prefix.clone() });
    }
    if fields {
        let order = |a: &Candidate, b: &Candidate| b.required.cmp(&a.required).then_with(|| a.label.cmp(&b.label));
        starting.sort_by(order);
        containing.sort_by(order);
    }
    starting.append(&mut containing);
    Ok(starting)
}

/// The byte offset in `text` of a position counted in UTF-16 code units (a textarea's
/// selection), clamped to the text and to a character's start.
pub fn byte_offset(text: &str, units: usize) -> usize {
    let mut counted = 0;
    for (at, c) in text.char_indices() {
        if counted >= units {
            return at;
        }
        counted += c.len_utf16();
    }
    text.len()
}

/// The position of byte offset `byte` counted in UTF-16 code units (for a textarea's selection).
pub fn utf16_offset(text: &str, byte: usize) -> usize {
    let mut byte = byte.min(text.len());
    while !text.is_char_boundary(byte) {
        byte -= 1;
    }
    text[..byte].encode_utf16().count()
}

/// The first paragraph of a description (the schema's descriptions put details after a blank
/// line), with its line breaks as spaces.
pub fn first_paragraph(description: &str) -> String {
    let paragraph = description.trim().split("\n\n").next().unwrap_or_default();
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The fields of the object at `parent` not in `present` (and `true`), or the values of a list
/// item being typed there (and `false`).
fn key_candidates(
    tree: &SchemaTree,
    parent: &[String],
    present: &BTreeSet<String>,
    column: usize,
    colon_follows: bool,
    json: bool,
) -> Result<(Vec<Candidate>, bool), NoCandidates> {
    let located = tree.locate(parent).map_err(NoCandidates::NotInSchema)?;
    match located.shape {
        Shape::Object => {}
        Shape::Map => return Err(NoCandidates::FreeKeys { map: located.field }),
        Shape::List => return Err(NoCandidates::ListItems { list: located.field }),
        Shape::Scalar if located.step == Step::Item => return Ok((item_values(tree, &located.field, json)?, false)),
        Shape::Scalar => return Err(NoCandidates::Scalar { field: located.field }),
    }
    let fields: Vec<Candidate> = tree
        .children(&located.members)
        .filter(|f| !present.contains(&f.name))
        .map(|f| Candidate {
            label: f.name.clone(),
            insert: if json { json_key_insert(f, colon_follows) } else { key_insert(f, column, colon_follows) },
            type_label: f.type_label.clone(),
            required: f.required,
            field: f.path.clone(),
            from_description: false,
        })
        .collect();
    if fields.is_empty() {
        let any = tree.children(&located.members).next().is_some();
        return Err(match any {
            true => NoCandidates::AllPresent { object: located.field },
            false => NoCandidates::NotInSchema(NotInSchema::Preserved { field: located.field, rest: String::new() }),
        });
    }
    Ok((fields, true))
}

/// What a field's name is completed to: `name: ` for a scalar, `name:` and the next line indented
/// for an object or a map, `name:` and a first item's `- ` at the key's column for a list.
fn key_insert(field: &Field, column: usize, colon_follows: bool) -> String {
    if colon_follows {
        return field.name.clone();
    }
    match field.shape() {
        Shape::Scalar => format!("{}: ", field.name),
        Shape::Object | Shape::Map => format!("{}:\n{}", field.name, " ".repeat(column + 2)),
        Shape::List => format!("{}:\n{}- ", field.name, " ".repeat(column)),
    }
}

/// The values a list item being typed may take (after its `- `): the `enum` of the list's items.
fn item_values(tree: &SchemaTree, list: &str, json: bool) -> Result<Vec<Candidate>, NoCandidates> {
    let Some(field) = tree.field(list).filter(|f| !f.item_enum_values.is_empty()) else {
        return Err(NoCandidates::Scalar { field: list.to_string() });
    };
    let item_type = field.type_label.strip_prefix("[]").unwrap_or(&field.type_label);
    Ok(field
        .item_enum_values
        .iter()
        .map(|value| Candidate {
            label: value.clone(),
            insert: written_value(value, item_type == "string", json),
            type_label: item_type.to_string(),
            required: false,
            field: field.path.clone(),
            from_description: false,
        })
        .collect())
}

/// `value` (an enum value as JSON text, strings without quotes) as the document writes it: a
/// string quoted in JSON, and in YAML when it would read as something else.
fn written_value(value: &str, string: bool, json: bool) -> String {
    if string && (json || !reads_as_string(value)) {
        serde_json::Value::String(value.to_string()).to_string()
    } else {
        value.to_string()
    }
}

/// What a field's name is completed to in JSON: `"name": ` and, for an object, a map or a list,
/// its opening bracket.
fn json_key_insert(field: &Field, colon_follows: bool) -> String {
    let name = serde_json::Value::String(field.name.clone()).to_string();
    if colon_follows {
        return name;
    }
    match field.shape() {
        Shape::Scalar => format!("{name}: "),
        Shape::Object | Shape::Map => format!("{name}: {{"),
        Shape::List => format!("{name}: ["),
    }
}

/// The values the field at `segments` may take: its enum, or `true` and `false`.
fn value_candidates(
    tree: &SchemaTree,
    segments: &[String],
    space_needed: bool,
    json: bool,
) -> Result<Vec<Candidate>, NoCandidates> {
    let located = tree.locate(segments).map_err(NoCandidates::NotInSchema)?;
    let field = tree.field(&located.field).filter(|_| located.step == Step::Field);
    let Some(field) = field else { return Err(NoCandidates::NoValues { field: located.field }) };
    let described = described_values(&field.description);
    let (values, from_description): (Vec<String>, bool) = if !field.enum_values.is_empty() {
        (field.enum_values.clone(), false)
    } else if field.type_label == "boolean" {
        (vec!["true".into(), "false".into()], false)
    } else if field.type_label == "string" && !described.is_empty() {
        (described, true)
    } else {
        return Err(NoCandidates::NoValues { field: located.field });
    };
    let space = if space_needed { " " } else { "" };
    Ok(values
        .into_iter()
        .map(|value| {
            let written = written_value(&value, field.type_label == "string", json);
            Candidate {
                label: value,
                insert: format!("{space}{written}"),
                type_label: field.type_label.clone(),
                required: field.required,
                field: field.path.clone(),
                from_description,
            }
        })
        .collect())
}

/// The values a description names in the API conventions' words, "One of A, B, C." (each a
/// single word): the built-in kinds' schemas list their enums only so.
pub fn described_values(description: &str) -> Vec<String> {
    let Some(at) = description.find("One of ") else { return Vec::new() };
    let rest = &description[at + "One of ".len()..];
    let Some(end) = rest.find('.') else { return Vec::new() };
    let words: Vec<String> =
        rest[..end].split(',').flat_map(|part| part.split(" or ")).map(|w| w.trim().to_string()).collect();
    let word = |w: &String| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if words.len() < 2 || !words.iter().all(word) {
        return Vec::new();
    }
    words
}

/// Whether a plain YAML scalar `value` reads back as that string (not a number, boolean, null,
/// or something the syntax takes).
fn reads_as_string(value: &str) -> bool {
    let special = ["true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"];
    !value.is_empty()
        && !special.contains(&value.to_lowercase().as_str())
        && value.parse::<f64>().is_err()
        && is_plain_word(value)
        && !value.starts_with(['-', '?', '!', '&', '*', '%', '@', '`', '|', '>'])
}

/// The indentation and list markers (`- `) a line starts with.
fn lead_of(line: &str) -> &str {
    let mut at = line.len() - line.trim_start_matches(' ').len();
    while line[at..].starts_with("- ") {
        at += 2;
        at += line[at..].len() - line[at..].trim_start_matches(' ').len();
    }
    &line[..at]
}

/// Whether `word` can be (part of) a plain key or value: no spaces, no quotes, no flow or
/// comment characters, no `:`.
fn is_plain_word(word: &str) -> bool {
    !word.chars().any(|c| c.is_whitespace() || matches!(c, ':' | '#' | '"' | '\'' | '{' | '}' | '[' | ']' | ','))
}

/// The byte index in `content` of the colon that ends a key (followed by a space or the end).
fn key_colon(content: &str) -> Option<usize> {
    content
        .char_indices()
        .find_map(|(i, c)| (c == ':' && content[i + 1..].chars().next().is_none_or(|n| n == ' ')).then_some(i))
}

/// The mapping a key typed after `lead` on the line starting at `line_start` belongs to; `None`
/// when a key cannot be typed there (inside a block scalar's text).
fn key_parent(text: &str, line_start: usize, lead: &str) -> Option<Vec<String>> {
    let probe = format!("{}{lead}{PLACEHOLDER}:", &text[..line_start]);
    let pointer = yaml_line_pointers(&probe).pop().flatten()?;
    let mut segments = pointer_segments(&pointer);
    (segments.pop().as_deref() == Some(PLACEHOLDER)).then_some(segments)
}

/// The keys of the mapping at `parent` on the lines of `text` other than `line`.
fn present_keys(text: &str, line: usize, parent: &[String]) -> BTreeSet<String> {
    yaml_line_pointers(text)
        .into_iter()
        .enumerate()
        .filter(|(index, _)| *index != line)
        .filter_map(|(_, pointer)| {
            let mut segments = pointer_segments(&pointer?);
            let key = segments.pop()?;
            (segments == parent).then_some(key)
        })
        .collect()
}

#[cfg(test)]
#[path = "completion_tests.rs"]
mod tests;
