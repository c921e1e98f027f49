//! A list joined from its pages by "Load all", as `kubectl get -o json` joins its chunks into
//! one List: the first page's members (its kind, apiVersion and metadata, without `continue`
//! and `remainingItemCount`, which described one page) and every page's items in order.
//!
//! The items stay lazy (bytes of their page's body, see [`kube_wire::watch::lazy_list`]), so a
//! 10,000-pod list is held in about its wire size. Nothing is decoded while pages arrive: the
//! document view writes the items it shows ([`ListText`], [`crate::segments`]), each
//! decoded and dropped in turn.

use std::sync::Arc;

use crate::i18n::{Localized, Msg, Text};
use crate::list_text::{Items, ListText, ListTextError};
use crate::page::TextFormat;
use kube_wire::body::{decode_body, Decoded};
use kube_wire::codec::value::{Map, Value};
use kube_wire::error::Format;
use kube_wire::media_type::MediaType;
use kube_wire::view::list::ObjectList;
use kube_wire::watch::lazy::LazyObject;
use kube_wire::watch::lazy_list::{read_list, LazyList, ListDocument};

/// A list body's items, lazily for JSON and CBOR (the formats the fast pass reads), decoded
/// for the others (YAML).
pub fn lazy_list(content_type: Option<&MediaType>, body: &std::sync::Arc<[u8]>) -> Result<LazyList, Text> {
    match content_type.map(|media_type| (media_type, media_type.essence.format())) {
        Some((_, Some(format @ (Format::Json | Format::Cbor)))) => {
            read_list(format, body.clone()).map_err(|e| e.text())
        }
        Some((media_type, _)) => match decode_body(media_type, body).map_err(|e| e.text())? {
            Decoded::Document(document) => {
                ObjectList::from_document(&document).map(LazyList::from).map_err(|e| e.text())
            }
            Decoded::Envelope(_) => Err(Text::new(Msg::ListEnvelopeNotJoined)),
        },
        None => Err(Text::new(Msg::ListNoContentType)),
    }
}

/// The list that "Load all" built so far.
#[derive(Debug, Clone)]
pub struct JoinedList {
    /// The first page's members, `items` included (empty: the items are below).
    head: Map,
    items: Vec<LazyObject>,
    /// The items, shared with the texts written of them, once the last page is in.
    finished: Option<Arc<[LazyObject]>>,
}

impl JoinedList {
    /// Starts from the first page: `document` is it decoded (for its members, in the server's
    /// order), `items` its items.
    pub fn start(document: &Value, items: LazyList) -> Result<JoinedList, Text> {
        let Value::Object(members) = document else {
            return Err(Text::new(Msg::ListFirstPageNotAList));
        };
        JoinedList::start_from_members(members, items)
    }

    /// Starts from the first page read lazily (its members and its items).
    pub fn start_from_page(page: &ListDocument) -> Result<JoinedList, Text> {
        JoinedList::start_from_members(&page.head, page.list.clone())
    }

    /// One page as it came, its `continue` and `remainingItemCount` kept (they describe it): what
    /// the document view of a page read lazily shows.
    pub fn page(page: &ListDocument) -> JoinedList {
        let mut head = page.head.clone();
        if matches!(head.get("items"), Some(Value::Array(_))) {
            head.insert("items", Value::Array(Vec::new()));
        }
        JoinedList { head, items: Vec::new(), finished: Some(page.list.items.clone().into()) }
    }

    fn start_from_members(members: &Map, items: LazyList) -> Result<JoinedList, Text> {
        if !matches!(members.get("items"), Some(Value::Array(_)) | Some(Value::Null)) {
            return Err(Text::new(Msg::ListFirstPageNoItems));
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
        let mut joined = JoinedList { head, items: Vec::new(), finished: None };
        joined.push(items);
        Ok(joined)
    }

    /// Appends a page's items (still bytes of the page: nothing is decoded or written until it
    /// is shown). Answers how many items the list has now.
    pub fn push(&mut self, page: LazyList) -> usize {
        self.items.extend(page.items);
        self.items.len()
    }

    /// Ends the list (the last page is in): its items are shared from now on.
    pub fn finish(&mut self) {
        if self.finished.is_none() {
            self.finished = Some(std::mem::take(&mut self.items).into());
        }
    }

    fn items(&self) -> Arc<[LazyObject]> {
        match &self.finished {
            Some(items) => items.clone(),
            None => self.items.clone().into(),
        }
    }

    /// How many items the list has.
    pub fn len(&self) -> usize {
        self.finished.as_ref().map_or(self.items.len(), |items| items.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The list's text in `format` (YAML or JSON), without managedFields unless `managed`, to
    /// be written item by item.
    pub fn list_text(&self, format: TextFormat, managed: bool) -> Result<ListText, ListTextError> {
        ListText::new(&self.head, Items::Lazy(self.items()), format, managed)
    }

    /// The whole list as text in `format` (YAML or JSON; the others are of one body's bytes and
    /// answer an empty text), every item written in turn.
    pub fn text(&self, format: TextFormat, managed: bool) -> String {
        match format {
            TextFormat::Yaml | TextFormat::Json => match self.list_text(format, managed) {
                Ok(text) => text.text(),
                Err(e) => format!("# cannot show the list: {e}"),
            },
            TextFormat::Hex | TextFormat::Diagnostic => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::document_text;
    use kube_wire::codec::cbor::{encode_cbor, CborEncoding};
    use kube_wire::codec::json::decode_json;
    use kube_wire::testdata::shared_file;

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
                joined.push(lazy(page, format));
            }
            assert_eq!(joined.len(), whole.get("items").and_then(Value::as_array).unwrap().len());
            for text_format in [TextFormat::Yaml, TextFormat::Json] {
                for managed in [false, true] {
                    assert_eq!(
                        joined.text(text_format, managed),
                        document_text(&whole, text_format, None, managed),
                        "{format} {text_format:?} managed={managed}"
                    );
                }
            }
            assert_eq!(joined.text(TextFormat::Hex, false), "");
            let before = joined.text(TextFormat::Yaml, false);
            joined.finish();
            assert_eq!(joined.text(TextFormat::Yaml, false), before);
            assert_eq!(joined.len(), whole.get("items").and_then(Value::as_array).unwrap().len());
            assert_eq!(joined.text(TextFormat::Json, true), document_text(&whole, TextFormat::Json, None, true));
        }
    }

    #[test]
    fn a_page_read_lazily_shows_as_it_came_and_joins_as_the_decoded_page_does() {
        use kube_wire::watch::lazy_list::read_list_document;
        for format in [Format::Json, Format::Cbor] {
            let (whole, pages) = pages(2);
            let bytes = |page: &Value| -> Arc<[u8]> {
                match format {
                    Format::Cbor => Arc::from(encode_cbor(page, CborEncoding::SERVER)),
                    _ => Arc::from(page.to_json().into_bytes()),
                }
            };
            let first = read_list_document(format, bytes(&pages[0])).expect("first page");
            // Alone, the page is the text of the page itself, continue token and all.
            let page = JoinedList::page(&first);
            assert_eq!(page.len(), 2);
            for text_format in [TextFormat::Yaml, TextFormat::Json] {
                assert_eq!(
                    page.text(text_format, false),
                    document_text(&pages[0], text_format, None, false),
                    "{format}"
                );
            }
            assert!(page.text(TextFormat::Yaml, false).contains("continue: c"));
            // Joined, it reads as "Load all" of decoded first pages reads.
            let mut joined = JoinedList::start_from_page(&first).expect("first page");
            for page in &pages[1..] {
                joined.push(read_list_document(format, bytes(page)).expect("page").list);
            }
            joined.finish();
            assert_eq!(
                joined.text(TextFormat::Yaml, true),
                document_text(&whole, TextFormat::Yaml, None, true),
                "{format}"
            );
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
            joined.push(lazy(&next, Format::Json));
            let mut whole = first.clone();
            if let Value::Object(members) = &mut whole {
                members.insert("items", json(r#"[{"a":1},{"b":{"c":[1,2]}}]"#));
                members.insert("metadata", json(r#"{"resourceVersion":"1"}"#));
            }
            assert_eq!(joined.text(TextFormat::Yaml, false), document_text(&whole, TextFormat::Yaml, None, false));
        }
    }

    #[test]
    fn an_empty_list_stays_an_empty_list_and_a_non_list_is_refused() {
        let empty = json(r#"{"kind":"XList","metadata":{"resourceVersion":"1"},"items":[]}"#);
        let joined = JoinedList::start(&empty, lazy(&empty, Format::Json)).expect("empty");
        assert!(joined.is_empty());
        assert_eq!(joined.text(TextFormat::Yaml, false), document_text(&empty, TextFormat::Yaml, None, false));
        let pod = json(r#"{"kind":"Pod","metadata":{"name":"a"}}"#);
        let error = JoinedList::start(&pod, lazy(&empty, Format::Json)).expect_err("not a list");
        assert_eq!(error.to_string(), "the first page has no items array: not a list");
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
        assert_eq!(lazy_list(None, &json_body).expect_err("no type").msg, Msg::ListNoContentType);
        let pod: Arc<[u8]> = Arc::from(&br#"{"kind":"Pod"}"#[..]);
        assert!(lazy_list(Some(&MediaType::json()), &pod).is_err(), "a Pod is not a list");
    }

    #[test]
    fn an_item_that_cannot_be_decoded_is_named_in_its_place() {
        // A lone surrogate inside a string: the fast pass checks escapes for syntax only.
        let body = br#"{"kind":"XList","metadata":{},"items":[{"a":1},{"b":"\ud800"}]}"#;
        let list = read_list(Format::Json, Arc::from(&body[..])).expect("scanned");
        let first = json(r#"{"kind":"XList","metadata":{},"items":[]}"#);
        let mut joined = JoinedList::start(&first, lazy(&first, Format::Json)).expect("first page");
        assert_eq!(joined.push(list), 2, "items are joined as bytes, not decoded");
        let text = joined.text(TextFormat::Yaml, false);
        assert!(text.contains("- a: 1\n# item 1 of the list cannot be decoded:"), "{text}");
    }
}
