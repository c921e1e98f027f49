//! A list's text written an item at a time. The document view of a list (a page, or the list
//! "Load all" joined) shows YAML or JSON of thousands of objects; writing all of it before the
//! first screen costs a decode and a serialization per item and holds tens of megabytes. Here the
//! text is cut into segments: the lines before the items (the list's own members up to the
//! `items` key), one segment per item, and the lines after them. Concatenated, the segments are
//! exactly the text [`crate::page::document_text`] writes for the whole list; each one can
//! be written alone, so a view writes the items on screen and leaves the rest as bytes.

use std::sync::Arc;

use crate::page::{json_text, yaml_text, MembersShown, Shown, ShownItems, TextFormat};
use kube_wire::codec::value::{Map, Value};
use kube_wire::error::DecodeError;
use kube_wire::watch::lazy::LazyObject;

/// Why a list's text cannot be written item by item, or one of its items cannot be written. The
/// view writes these into the text itself, as YAML comments beside what they stand for, so they
/// stay English (`tests/ui_strings.rs` allows it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListTextError {
    #[error("the list has no items array")]
    NoItemsArray,
    /// The members' text, written with an empty `items`, does not show it where expected.
    #[error("the list's items key was not written as expected in {0}")]
    ItemsKeyNotFound(&'static str),
    /// The raw bytes' formats (hex, CBOR diagnostic) are of a whole body.
    #[error("only YAML and JSON are written item by item")]
    NotItemByItem,
    /// A lazy item's bytes do not decode.
    #[error(transparent)]
    Undecodable(#[from] DecodeError),
    #[error("no such item")]
    NoSuchItem,
}

/// The text of a list's members and items, segment by segment.
#[derive(Debug, Clone)]
pub struct ListText {
    /// The lines before the first item (the `items` key's own line included), or the whole
    /// text when the list has no items.
    before: String,
    /// The lines after the last item.
    after: String,
    items: Items,
    format: TextFormat,
    managed: bool,
}

/// A list's items: lazy (bytes of the bodies they came in), or the items of a list decoded
/// already (a page the view read whole).
#[derive(Debug, Clone)]
pub enum Items {
    Lazy(Arc<[LazyObject]>),
    /// The list document; its `items` array.
    Decoded(Arc<Value>),
}

impl Items {
    fn len(&self) -> usize {
        match self {
            Items::Lazy(items) => items.len(),
            Items::Decoded(list) => list.get("items").and_then(Value::as_array).map_or(0, <[Value]>::len),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i` (in range) written by `write`, or why it cannot be decoded.
    fn with<R>(&self, i: usize, write: impl FnOnce(&Value) -> R) -> Result<R, ListTextError> {
        match self {
            Items::Lazy(items) => Ok(items[i].value_unkept().map(|tree| write(&tree))?),
            Items::Decoded(list) => match list.get("items").and_then(Value::as_array).and_then(|items| items.get(i)) {
                Some(item) => Ok(write(item)),
                None => Err(ListTextError::NoSuchItem),
            },
        }
    }

    fn wire_len(&self, i: usize) -> usize {
        match self {
            Items::Lazy(items) => items[i].wire_len(),
            Items::Decoded(_) => 0,
        }
    }
}

/// How a JSON list's `items` member is written when empty, at the top level (pretty JSON
/// indents a top-level member by two spaces, anything nested deeper; strings hold no newline).
const JSON_EMPTY_ITEMS: &str = "\n  \"items\": []";
/// The same in YAML: only a top-level key starts a line at column 0 (nested keys, block scalars
/// and folded strings are indented).
const YAML_EMPTY_ITEMS: &str = "items: []\n";

impl ListText {
    /// The text of a list whose members are `members` (its `items` member an array, whatever it
    /// holds: the items are `items`) in `format` (YAML or JSON), without managedFields unless
    /// `managed`.
    pub fn new(members: &Map, items: Items, format: TextFormat, managed: bool) -> Result<ListText, ListTextError> {
        if !matches!(members.get("items"), Some(Value::Array(_))) {
            return Err(ListTextError::NoItemsArray);
        }
        let none: ShownItems<'_, Arc<Value>> = ShownItems { items: &[], managed };
        let head = MembersShown { members, items: &none, managed };
        let (before, after) = match format {
            TextFormat::Yaml => {
                let head = yaml_text(&head);
                let at = if head.starts_with(YAML_EMPTY_ITEMS) {
                    Some(0)
                } else {
                    head.find(&format!("\n{YAML_EMPTY_ITEMS}")).map(|i| i + 1)
                };
                let at = at.ok_or(ListTextError::ItemsKeyNotFound("YAML"))?;
                match items.is_empty() {
                    true => (head, String::new()),
                    false => (format!("{}items:\n", &head[..at]), head[at + YAML_EMPTY_ITEMS.len()..].to_owned()),
                }
            }
            TextFormat::Json => {
                let head = json_text(&head);
                let at = head.find(JSON_EMPTY_ITEMS).ok_or(ListTextError::ItemsKeyNotFound("JSON"))?;
                let open = at + JSON_EMPTY_ITEMS.len() - 1;
                match items.is_empty() {
                    true => (head, String::new()),
                    false => (format!("{}\n", &head[..open]), format!("  ]{}", &head[open + 1..])),
                }
            }
            TextFormat::Hex | TextFormat::Diagnostic => return Err(ListTextError::NotItemByItem),
        };
        Ok(ListText { before, after, items, format, managed })
    }

    /// The text of `document`, when it is a list (an object with an `items` array).
    pub fn of_document(
        document: Arc<Value>,
        format: TextFormat,
        managed: bool,
    ) -> Option<Result<ListText, ListTextError>> {
        let Value::Object(members) = &*document else { return None };
        if !matches!(members.get("items"), Some(Value::Array(_))) {
            return None;
        }
        let members = members.clone();
        Some(ListText::new(&members, Items::Decoded(document), format, managed))
    }

    /// How many segments: the lines before the items, each item, the lines after.
    pub fn segment_count(&self) -> usize {
        self.items.len() + 2
    }

    /// How many items the list has.
    pub fn item_count(&self) -> usize {
        self.items.len()
    }

    pub fn is_json(&self) -> bool {
        self.format == TextFormat::Json
    }

    /// Segment `i`'s text: every line ends with a newline except, in JSON, the list's last.
    /// An item that cannot be decoded is a line saying so, in its place.
    pub fn segment(&self, i: usize) -> String {
        if i == 0 {
            return self.before.clone();
        }
        if i > self.items.len() {
            return if i == self.items.len() + 1 { self.after.clone() } else { String::new() };
        }
        let index = i - 1;
        let indent = if self.is_json() { "    " } else { "" };
        let (format, managed) = (self.format, self.managed);
        let written = self.items.with(index, |tree| match format {
            TextFormat::Json => json_text(&Shown { document: tree, managed }),
            _ => yaml_text(&ShownItems { items: &[tree], managed }),
        });
        let text = match written {
            Ok(text) => text,
            Err(e) => return format!("{indent}# item {index} of the list cannot be decoded: {e}\n"),
        };
        match self.format {
            TextFormat::Json => {
                let mut out = String::with_capacity(text.len() + text.len() / 8);
                for (n, line) in text.split('\n').enumerate() {
                    if n > 0 {
                        out.push('\n');
                    }
                    out.push_str(indent);
                    out.push_str(line);
                }
                if index + 1 < self.items.len() {
                    out.push(',');
                }
                out.push('\n');
                out
            }
            _ => text,
        }
    }

    /// About how many bytes segment `i` comes from (an item's wire size; 0 when unknown, as for
    /// an item decoded already), for estimating its height before it is written.
    pub fn segment_size(&self, i: usize) -> usize {
        match i {
            0 => self.before.len(),
            i if i <= self.items.len() => self.items.wire_len(i - 1),
            _ => self.after.len(),
        }
    }

    /// The whole text (what "Copy" copies): every item written in turn.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for i in 0..self.segment_count() {
            out.push_str(&self.segment(i));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::document_text;
    use kube_wire::codec::json::decode_json;
    use kube_wire::testdata::shared_file;

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("json")
    }

    fn parts(list: &Value) -> (Map, Items) {
        let Value::Object(members) = list else { panic!("a list object") };
        let items = members.get("items").and_then(Value::as_array).unwrap_or(&[]);
        (members.clone(), Items::Lazy(items.iter().cloned().map(LazyObject::from_value).collect()))
    }

    #[test]
    fn the_segments_join_into_the_text_of_the_whole_list() {
        let podlist = decode_json(&shared_file("kube/vectors/podlist.json")).expect("podlist");
        let lists = [
            podlist,
            json(r#"{"items":[{"a":1}],"kind":"XList","metadata":{"continue":"c"}}"#),
            json(r#"{"kind":"XList","items":[{"a":{"b":[1,2]}},{"c":"x\ny"}],"metadata":{}}"#),
            json(r#"{"kind":"XList","metadata":{"resourceVersion":"1"},"items":[{"a":[]},{}]}"#),
            json(r#"{"kind":"XList","metadata":{"resourceVersion":"1"},"items":[]}"#),
        ];
        for list in lists {
            let (members, items) = parts(&list);
            for format in [TextFormat::Yaml, TextFormat::Json] {
                for managed in [false, true] {
                    let text = ListText::new(&members, items.clone(), format, managed).expect("a list");
                    assert_eq!(text.segment_count(), items.len() + 2);
                    let decoded = ListText::of_document(Arc::new(list.clone()), format, managed)
                        .expect("a list")
                        .expect("written");
                    assert_eq!(decoded.text(), text.text(), "decoded items are written as lazy ones");
                    assert_eq!(
                        text.text(),
                        document_text(&list, format, None, managed),
                        "{format:?} managed={managed} of {}",
                        list.to_json()
                    );
                }
            }
        }
    }

    #[test]
    fn each_item_is_a_segment_of_its_own() {
        let list = json(r#"{"kind":"XList","metadata":{},"items":[{"name":"a"},{"name":"b"}]}"#);
        let (members, items) = parts(&list);
        let yaml = ListText::new(&members, items.clone(), TextFormat::Yaml, false).expect("yaml");
        assert_eq!(yaml.segment(0), "kind: XList\nmetadata: {}\nitems:\n");
        assert_eq!(yaml.segment(1), "- name: a\n");
        assert_eq!(yaml.segment(2), "- name: b\n");
        assert_eq!(yaml.segment(3), "");
        let json_text = ListText::new(&members, items, TextFormat::Json, false).expect("json");
        assert_eq!(json_text.segment(1), "    {\n      \"name\": \"a\"\n    },\n");
        assert_eq!(json_text.segment(2), "    {\n      \"name\": \"b\"\n    }\n");
        assert_eq!(json_text.segment(3), "  ]\n}");
        assert_eq!(json_text.segment(4), "", "past the end: nothing");
    }

    #[test]
    fn what_cannot_be_written_item_by_item_is_refused_with_why() {
        let list = json(r#"{"kind":"XList","metadata":{},"items":[{"name":"a"}]}"#);
        let (members, items) = parts(&list);
        for format in [TextFormat::Hex, TextFormat::Diagnostic] {
            let refused = ListText::new(&members, items.clone(), format, false).map(|_| ());
            assert_eq!(refused, Err(ListTextError::NotItemByItem), "{format:?}");
        }
        let Value::Object(mut no_items) = list.clone() else { unreachable!() };
        no_items.insert("items", Value::Null);
        let refused = ListText::new(&no_items, items, TextFormat::Yaml, false).map(|_| ());
        assert_eq!(refused, Err(ListTextError::NoItemsArray));
        assert_eq!(ListTextError::NoItemsArray.to_string(), "the list has no items array");
    }

    #[test]
    fn an_item_that_cannot_be_decoded_says_so_in_its_place() {
        // A lone surrogate inside a string: the fast pass checks escapes for syntax only.
        let body = br#"{"kind":"XList","metadata":{},"items":[{"a":1},{"b":"\ud800"}]}"#;
        let list = kube_wire::watch::lazy_list::read_list(kube_wire::error::Format::Json, Arc::from(&body[..]))
            .expect("scanned");
        let members = json(r#"{"kind":"XList","metadata":{},"items":[]}"#);
        let Value::Object(members) = members else { unreachable!() };
        let text = ListText::new(&members, Items::Lazy(list.items.into()), TextFormat::Yaml, false).expect("yaml");
        assert_eq!(text.segment(1), "- a: 1\n");
        let second = text.segment(2);
        assert!(second.starts_with("# item 1 of the list cannot be decoded:"), "{second}");
    }

    #[test]
    fn a_body_that_is_not_a_list_or_a_format_not_written_by_items_is_refused() {
        let Value::Object(pod) = json(r#"{"kind":"Pod","metadata":{}}"#) else { unreachable!() };
        assert!(ListText::new(&pod, Items::Lazy(Arc::from([])), TextFormat::Yaml, false).is_err());
        assert!(ListText::of_document(Arc::new(Value::Object(pod)), TextFormat::Yaml, false).is_none());
        let Value::Object(list) = json(r#"{"kind":"XList","items":[]}"#) else { unreachable!() };
        assert!(ListText::new(&list, Items::Lazy(Arc::from([])), TextFormat::Hex, false).is_err());
    }
}
