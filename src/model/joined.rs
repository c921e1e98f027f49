//! A list joined from its pages by "Load all", as `kubectl get -o json` joins its chunks into
//! one List: the first page's members (its kind, apiVersion and metadata, without `continue`
//! and `remainingItemCount`, which described one page) and every page's items in order.
//!
//! The items stay lazy (bytes of their page's body, see [`crate::api::watch::lazy_list`]), so a
//! 10,000-pod list is held in about its wire size. The text the document view shows first (YAML
//! without managedFields) is written a page at a time as pages arrive, while the next page is
//! on the wire; any other text (JSON, or with managedFields) is written from the items when it
//! is asked for, each item decoded and dropped in turn.

use std::sync::Arc;

use serde::ser::{Error as _, SerializeSeq};
use serde::Serialize;

use crate::api::body::{decode_body, Decoded};
use crate::api::codec::value::{Map, Value};
use crate::api::error::Format;
use crate::api::media_type::MediaType;
use crate::api::view::list::ObjectList;
use crate::api::watch::lazy::LazyObject;
use crate::api::watch::lazy_list::{read_list, LazyList};
use crate::model::page::{json_text, yaml_text, MembersShown, Shown, ShownItems, TextFormat};

/// A list body's items, lazily for JSON and CBOR (the formats the fast pass reads), decoded
/// for the others (YAML).
pub fn lazy_list(content_type: Option<&MediaType>, body: &std::sync::Arc<[u8]>) -> Result<LazyList, String> {
    match content_type.map(|media_type| (media_type, media_type.essence.format())) {
        Some((_, Some(format @ (Format::Json | Format::Cbor)))) => read_list(format, body.clone()),
        Some((media_type, _)) => match decode_body(media_type, body).map_err(|e| e.to_string())? {
            Decoded::Document(document) => {
                ObjectList::from_document(&document).map(LazyList::from).map_err(|e| e.to_string())
            }
            Decoded::Envelope(_) => Err("a protobuf envelope is not a list the explorer joins".to_owned()),
        },
        None => Err("the body has no Content-Type the explorer reads".to_owned()),
    }
}

/// The list that "Load all" built so far.
#[derive(Debug, Clone)]
pub struct JoinedList {
    /// The first page's members, `items` included (empty: the items are below).
    head: Map,
    items: Vec<LazyObject>,
    /// The YAML of every item without managedFields, as a sequence, while pages are added.
    yaml_items: String,
    /// The whole list's YAML without managedFields, once [`JoinedList::finish`] wrote it (the
    /// items' YAML is then dropped: the text is held once, shared with the view).
    yaml: Option<Arc<String>>,
}

impl JoinedList {
    /// Starts from the first page: `document` is it decoded (for its members, in the server's
    /// order), `items` its items.
    pub fn start(document: &Value, items: LazyList) -> Result<JoinedList, String> {
        let Value::Object(members) = document else {
            return Err("the first page is not a list object".to_owned());
        };
        if !matches!(members.get("items"), Some(Value::Array(_)) | Some(Value::Null)) {
            return Err("the first page has no items array: not a list".to_owned());
        }
        let mut head = Map::new();
        for (key, value) in members.iter() {
            let value = match (key, value) {
                ("items", _) => Value::Array(Vec::new()),
                ("metadata", Value::Object(metadata)) => Value::Object(
                    metadata
                        .iter()
                        .filter(|(k, _)| !matches!(*k, "continue" | "remainingItemCount"))
                        .map(|(k, v)| (k.to_owned(), v.clone()))
                        .collect(),
                ),
                _ => value.clone(),
            };
            head.insert(key, value);
        }
        let mut joined = JoinedList { head, items: Vec::new(), yaml_items: String::new(), yaml: None };
        joined.push(items)?;
        Ok(joined)
    }

    /// Appends a page's items, writing their YAML. Answers how many items the list has now, or
    /// why an item cannot be shown.
    pub fn push(&mut self, page: LazyList) -> Result<usize, String> {
        let trees = page
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| item.value_unkept().map_err(|e| format!("item {} of the list: {e}", self.items.len() + i)))
            .collect::<Result<Vec<Arc<Value>>, String>>()?;
        if !trees.is_empty() {
            let yaml = serde_yaml::to_string(&ShownItems { items: &trees, managed: false })
                .map_err(|e| format!("cannot show as YAML: {e}"))?;
            self.yaml_items.push_str(&yaml);
        }
        self.items.extend(page.items);
        Ok(self.items.len())
    }

    /// Ends the list (the last page is in): its default text is written once, and shared.
    pub fn finish(&mut self) {
        self.yaml = Some(Arc::new(self.yaml_without_managed_fields()));
        self.yaml_items = String::new();
    }

    /// How many items the list has.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The list as text in `format` (YAML or JSON; the others are of one body's bytes and
    /// answer an empty text), without managedFields unless `managed`.
    pub fn text(&self, format: TextFormat, managed: bool) -> Arc<String> {
        Arc::new(match format {
            TextFormat::Yaml if !managed => match &self.yaml {
                Some(yaml) => return yaml.clone(),
                None => self.yaml_without_managed_fields(),
            },
            TextFormat::Yaml => yaml_text(&self.serialized(managed)),
            TextFormat::Json => json_text(&self.serialized(managed)),
            TextFormat::Hex | TextFormat::Diagnostic => String::new(),
        })
    }

    /// The head's YAML with its `items: []` line replaced by the items written so far. Only a
    /// top-level key starts a line at column 0 (nested keys, block scalars and folded strings
    /// are indented), so the line is the list's own `items`.
    fn yaml_without_managed_fields(&self) -> String {
        if let Some(yaml) = &self.yaml {
            return yaml.to_string();
        }
        let head = yaml_text(&Shown { document: &Value::Object(self.head.clone()), managed: false });
        if self.yaml_items.is_empty() {
            return head;
        }
        let at = if head.starts_with("items: []\n") { Some(0) } else { head.find("\nitems: []\n").map(|i| i + 1) };
        match at {
            Some(at) => {
                let mut text = String::with_capacity(head.len() + self.yaml_items.len());
                text.push_str(&head[..at]);
                text.push_str("items:\n");
                text.push_str(&self.yaml_items);
                text.push_str(&head[at + "items: []\n".len()..]);
                text
            }
            None => format!("# cannot show as YAML: the list's items key was not written as expected\n{head}"),
        }
    }

    fn serialized(&self, managed: bool) -> Serialized<'_> {
        Serialized { list: self, managed }
    }
}

/// The joined list serialized in one pass, each item decoded and dropped in turn.
struct Serialized<'a> {
    list: &'a JoinedList,
    managed: bool,
}

impl Serialize for Serialized<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let items = Items { items: &self.list.items, managed: self.managed };
        MembersShown { members: &self.list.head, items: &items, managed: self.managed }.serialize(serializer)
    }
}

struct Items<'a> {
    items: &'a [LazyObject],
    managed: bool,
}

impl Serialize for Items<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.items.len()))?;
        for (i, item) in self.items.iter().enumerate() {
            let tree = item.value_unkept().map_err(|e| S::Error::custom(format!("item {i} of the list: {e}")))?;
            seq.serialize_element(&Shown { document: &tree, managed: self.managed })?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::codec::cbor::{encode_cbor, CborEncoding};
    use crate::api::codec::json::decode_json;
    use crate::api::testdata::shared_file;
    use crate::model::page::document_text;

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("json")
    }

    /// `document`'s items as a lazy list read from its bytes in `format`.
    fn lazy(document: &Value, format: Format) -> LazyList {
        let bytes: Vec<u8> = match format {
            Format::Cbor => encode_cbor(document, CborEncoding::SERVER),
            _ => document.to_json().into_bytes(),
        };
        read_list(format, Arc::from(bytes)).expect("a list")
    }

    /// The real pod list split into pages of `size` (the last page's metadata as a last page's).
    fn pages(size: usize) -> (Value, Vec<Value>) {
        let whole = decode_json(&shared_file("kube/vectors/podlist.json")).expect("podlist");
        let items = whole.get("items").and_then(Value::as_array).expect("items").to_vec();
        assert!(items.len() > size, "the vector has more than one page");
        let pages = items
            .chunks(size)
            .enumerate()
            .map(|(i, chunk)| {
                let mut page = whole.clone();
                if let Value::Object(members) = &mut page {
                    members.insert("items", Value::Array(chunk.to_vec()));
                    let last = (i + 1) * size >= items.len();
                    let mut metadata = json(r#"{"resourceVersion":"9"}"#);
                    if !last {
                        metadata = json(r#"{"resourceVersion":"9","continue":"c","remainingItemCount":3}"#);
                    }
                    members.insert("metadata", metadata);
                }
                page
            })
            .collect();
        let mut joined = whole.clone();
        if let Value::Object(members) = &mut joined {
            members.insert("metadata", json(r#"{"resourceVersion":"9"}"#));
        }
        (joined, pages)
    }

    #[test]
    fn pages_join_into_the_text_of_the_one_list_in_every_format() {
        for format in [Format::Json, Format::Cbor] {
            let (whole, pages) = pages(2);
            let mut joined = JoinedList::start(&pages[0], lazy(&pages[0], format)).expect("first page");
            for page in &pages[1..] {
                joined.push(lazy(page, format)).expect("a page");
            }
            assert_eq!(joined.len(), whole.get("items").and_then(Value::as_array).unwrap().len());
            for text_format in [TextFormat::Yaml, TextFormat::Json] {
                for managed in [false, true] {
                    assert_eq!(
                        *joined.text(text_format, managed),
                        document_text(&whole, text_format, None, managed),
                        "{format} {text_format:?} managed={managed}"
                    );
                }
            }
            assert_eq!(*joined.text(TextFormat::Hex, false), "");
            let before = joined.text(TextFormat::Yaml, false);
            joined.finish();
            let finished = joined.text(TextFormat::Yaml, false);
            assert_eq!(finished, before);
            assert!(Arc::ptr_eq(&finished, &joined.text(TextFormat::Yaml, false)), "written once, then shared");
            assert_eq!(*joined.text(TextFormat::Json, true), document_text(&whole, TextFormat::Json, None, true));
        }
    }

    #[test]
    fn the_items_key_is_found_wherever_the_server_put_it() {
        // CBOR servers shuffle keys: items may come first, last or between.
        for first in [
            r#"{"items":[{"a":1}],"kind":"XList","metadata":{"continue":"c","resourceVersion":"1"}}"#,
            r#"{"kind":"XList","items":[{"a":1}],"metadata":{"resourceVersion":"1","remainingItemCount":1}}"#,
            r#"{"kind":"XList","metadata":{"resourceVersion":"1"},"items":[{"a":1}]}"#,
        ] {
            let first = json(first);
            let mut joined = JoinedList::start(&first, lazy(&first, Format::Json)).expect("first page");
            let next = json(r#"{"kind":"XList","metadata":{},"items":[{"b":{"c":[1,2]}}]}"#);
            joined.push(lazy(&next, Format::Json)).expect("a page");
            let mut whole = first.clone();
            if let Value::Object(members) = &mut whole {
                members.insert("items", json(r#"[{"a":1},{"b":{"c":[1,2]}}]"#));
                members.insert("metadata", json(r#"{"resourceVersion":"1"}"#));
            }
            assert_eq!(*joined.text(TextFormat::Yaml, false), document_text(&whole, TextFormat::Yaml, None, false));
        }
    }

    #[test]
    fn an_empty_list_stays_an_empty_list_and_a_non_list_is_refused() {
        let empty = json(r#"{"kind":"XList","metadata":{"resourceVersion":"1"},"items":[]}"#);
        let joined = JoinedList::start(&empty, lazy(&empty, Format::Json)).expect("empty");
        assert!(joined.is_empty());
        assert_eq!(*joined.text(TextFormat::Yaml, false), document_text(&empty, TextFormat::Yaml, None, false));
        let pod = json(r#"{"kind":"Pod","metadata":{"name":"a"}}"#);
        let error = JoinedList::start(&pod, lazy(&empty, Format::Json)).expect_err("not a list");
        assert!(error.contains("no items array"), "{error}");
        assert!(JoinedList::start(&json("[]"), lazy(&empty, Format::Json)).is_err());
    }

    #[test]
    fn a_body_is_read_lazily_in_json_and_cbor_and_decoded_in_yaml() {
        let list = json(r#"{"kind":"XList","metadata":{"resourceVersion":"1"},"items":[{"a":1},{"b":2}]}"#);
        let json_body: Arc<[u8]> = Arc::from(list.to_json().into_bytes());
        let cbor_body: Arc<[u8]> = Arc::from(encode_cbor(&list, CborEncoding::SERVER));
        let yaml_body: Arc<[u8]> = Arc::from(document_text(&list, TextFormat::Yaml, None, true).into_bytes());
        for (media_type, body, lazily) in [
            (MediaType::json(), &json_body, true),
            (MediaType::cbor(), &cbor_body, true),
            (MediaType::yaml(), &yaml_body, false),
        ] {
            let read = lazy_list(Some(&media_type), body).expect("a list");
            assert_eq!(read.items.len(), 2, "{media_type}");
            assert_eq!(read.items.iter().all(|item| !item.is_decoded()), lazily, "{media_type}");
            assert_eq!(*read.items[1].value().expect("item"), json(r#"{"b":2}"#));
        }
        assert!(lazy_list(None, &json_body).expect_err("no type").contains("Content-Type"));
        let pod: Arc<[u8]> = Arc::from(&br#"{"kind":"Pod"}"#[..]);
        assert!(lazy_list(Some(&MediaType::json()), &pod).is_err(), "a Pod is not a list");
    }

    #[test]
    fn an_item_that_cannot_be_decoded_is_named() {
        // A lone surrogate inside a string: the fast pass checks escapes for syntax only.
        let body = br#"{"kind":"XList","metadata":{},"items":[{"a":1},{"b":"\ud800"}]}"#;
        let list = read_list(Format::Json, Arc::from(&body[..])).expect("scanned");
        let first = json(r#"{"kind":"XList","metadata":{},"items":[]}"#);
        let mut joined = JoinedList::start(&first, lazy(&first, Format::Json)).expect("first page");
        let error = joined.push(list).expect_err("the second item is not UTF-16");
        assert!(error.starts_with("item 1 of the list:"), "{error}");
        assert!(joined.is_empty(), "a page that cannot be shown is not half-added");
    }
}
