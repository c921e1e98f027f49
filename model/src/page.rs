//! What one response becomes on screen: a grid (Table, metadata-only list, or the fallback
//! columns of a full list), a document to read, a protobuf envelope, or a Status error;
//! plus the list metadata (snapshot resourceVersion, continue token, remaining items).

use std::sync::Arc;

use crate::cells::Grid;
use crate::target::PageShape;
use kube_wire::body::Decoded;
use kube_wire::codec::cbor::diagnostic;
use kube_wire::codec::protobuf::Envelope;
use kube_wire::codec::value::{Map, Value};
use kube_wire::view::list::{ListMeta, ObjectList};
use kube_wire::view::shape::kind_of;
use kube_wire::view::status::{is_status, status_from_document, Status};
use kube_wire::view::table::Table;
use kube_wire::watch::lazy_list::ListDocument;

/// What a page shows.
#[derive(Debug, Clone, PartialEq)]
pub enum PageBody {
    /// Rows to list (Table, PartialObjectMetadataList, or a full list with fallback columns).
    Grid(Grid),
    /// A document to read (one object, or a list asked for as YAML, or one the lazy reader did
    /// not take).
    Document(Value),
    /// A list asked for as JSON or CBOR, read lazily: its items stay bytes of the body until
    /// they are shown.
    List(LazyPage),
    /// A protobuf envelope, whose object the on-demand protobuf part decodes in full (its summary
    /// is what the page load can show by itself).
    Envelope(Arc<Envelope>),
    /// The server refused: its Status.
    Status(Box<Status>),
}

/// A list read by [`kube_wire::watch::lazy_list::read_list_document`]. Pages compare by
/// identity: the same read, not equal bytes.
#[derive(Debug, Clone)]
pub struct LazyPage(pub Arc<ListDocument>);

impl PartialEq for LazyPage {
    fn eq(&self, other: &LazyPage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A decoded response, ready for the view.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub body: PageBody,
    /// The kind the document names (`Table`, `PodList`, `PartialObjectMetadataList`, ...).
    pub kind: Option<String>,
    /// The list metadata, for lists and Tables.
    pub list: Option<ListMeta>,
    /// How many items or rows the page holds, for lists.
    pub item_count: Option<usize>,
}

impl Page {
    /// A list read lazily, when it is one: a `…List` kind with an `items` array; otherwise
    /// `None` (the body is for [`Page::from_decoded`]).
    pub fn from_list_document(document: ListDocument) -> Option<Page> {
        let kind = document.head.get("kind").and_then(Value::as_str).map(str::to_owned);
        let is_list = kind.as_deref().is_some_and(|k| k.ends_with("List"));
        if !is_list || !matches!(document.head.get("items"), Some(Value::Array(_))) {
            return None;
        }
        Some(Page {
            kind,
            list: Some(document.list.metadata.clone()),
            item_count: Some(document.list.items.len()),
            body: PageBody::List(LazyPage(Arc::new(document))),
        })
    }

    /// Interprets a decoded body. [`PageShape::Grid`] asks for rows (the Table and metadata-only
    /// views); otherwise a list stays a document to read. `now_ms` formats ages.
    pub fn from_decoded(decoded: &Decoded, shape: PageShape, now_ms: i64) -> Page {
        let document = match decoded {
            Decoded::Envelope(envelope) => {
                return Page {
                    kind: Some(envelope.kind.clone()).filter(|k| !k.is_empty()),
                    body: PageBody::Envelope(Arc::new(envelope.clone())),
                    list: None,
                    item_count: None,
                };
            }
            Decoded::Document(document) => document,
        };
        let kind = kind_of(document).map(str::to_owned);
        if is_status(document) {
            if let Ok(status) = status_from_document(document) {
                if status.code >= 400 {
                    return Page { body: PageBody::Status(Box::new(status)), kind, list: None, item_count: None };
                }
            }
        }
        let list = document.get("metadata").and_then(|_| ListMeta::from_document(document).ok());
        let is_list = kind.as_deref().is_some_and(|k| k.ends_with("List")) || document.get("items").is_some();
        if shape == PageShape::Grid {
            if kind.as_deref() == Some("Table") {
                if let Ok(table) = Table::from_document(document) {
                    let grid = Grid::from_table(&table, now_ms);
                    return Page { item_count: Some(grid.rows.len()), body: PageBody::Grid(grid), kind, list };
                }
            }
            if is_list {
                if let Ok(objects) = ObjectList::from_document(document) {
                    let grid = Grid::from_items(&objects.items, now_ms);
                    return Page { item_count: Some(grid.rows.len()), body: PageBody::Grid(grid), kind, list };
                }
            }
        }
        let item_count =
            if is_list { document.get("items").and_then(Value::as_array).map(<[Value]>::len) } else { None };
        Page { body: PageBody::Document(document.clone()), kind, list: if is_list { list } else { None }, item_count }
    }
}

/// A document as the document view shows it, serialized in place (nothing is copied): with
/// `metadata.managedFields` left out of the object, or of every item of a list, unless
/// `managed`.
pub struct Shown<'a> {
    pub document: &'a Value,
    pub managed: bool,
}

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.document {
            Value::Object(map) if !self.managed => {
                let items = match map.get("items") {
                    Some(Value::Array(items)) => items.iter().collect(),
                    _ => Vec::new(),
                };
                let items = ShownItems { items: &items, managed: false };
                MembersShown { members: map, items: &items, managed: false }.serialize(serializer)
            }
            document => document.serialize(serializer),
        }
    }
}

/// Items of a list as the document view shows them: each object without its managedFields
/// unless `managed`. `T` is a tree or a handle to one.
pub struct ShownItems<'a, T> {
    pub items: &'a [T],
    pub managed: bool,
}

impl<T: std::ops::Deref<Target = Value>> serde::Serialize for ShownItems<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.items.len()))?;
        for item in self.items {
            seq.serialize_element(&Shown { document: item, managed: self.managed })?;
        }
        seq.end()
    }
}

/// The members of an object or list in their order, with `metadata.managedFields` left out
/// unless `managed`, and an array `items` member written by `items`.
pub struct MembersShown<'a, I> {
    pub members: &'a Map,
    pub items: &'a I,
    pub managed: bool,
}

impl<I: serde::Serialize> serde::Serialize for MembersShown<'_, I> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut out = serializer.serialize_map(Some(self.members.len()))?;
        for (key, value) in self.members.iter() {
            match (key, value) {
                ("metadata", Value::Object(metadata)) if !self.managed => {
                    out.serialize_entry(key, &WithoutManaged(metadata))?
                }
                ("items", Value::Array(_)) => out.serialize_entry(key, self.items)?,
                _ => out.serialize_entry(key, value)?,
            }
        }
        out.end()
    }
}

/// Metadata without `managedFields`.
struct WithoutManaged<'a>(&'a Map);

impl serde::Serialize for WithoutManaged<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let shown = self.0.len() - usize::from(self.0.get("managedFields").is_some());
        let mut out = serializer.serialize_map(Some(shown))?;
        for (key, value) in self.0.iter().filter(|(key, _)| *key != "managedFields") {
            out.serialize_entry(key, value)?;
        }
        out.end()
    }
}

/// Text format of the document view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Yaml,
    Json,
    /// The raw body's bytes, sixteen a line.
    Hex,
    /// RFC 8949 diagnostic notation of a CBOR body.
    Diagnostic,
}

/// How much diagnostic notation is shown (a 10,000-pod list would be hundreds of megabytes).
const MAX_DIAGNOSTIC_CHARS: usize = 2_000_000;

/// `document` as text in `format` (`raw`, the body's bytes, for the hex and diagnostic views),
/// with `managedFields` left out unless `managed`. A document that cannot be shown so says why
/// in the text itself.
pub fn document_text(document: &Value, format: TextFormat, raw: Option<&[u8]>, managed: bool) -> String {
    let shown = Shown { document, managed };
    match format {
        TextFormat::Json => json_text(&shown),
        TextFormat::Yaml => yaml_text(&shown),
        TextFormat::Hex => raw.map(hex_dump).unwrap_or_default(),
        TextFormat::Diagnostic => match raw.map(|r| diagnostic(r, MAX_DIAGNOSTIC_CHARS)) {
            Some(Ok(text)) => text,
            Some(Err(e)) => format!("not CBOR diagnostic notation: {e}"),
            None => String::new(),
        },
    }
}

/// `shown` as pretty JSON (in the keys' own order), or why it cannot be.
pub fn json_text(shown: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(shown).unwrap_or_else(|e| format!("cannot show as JSON: {e}"))
}

/// `shown` as YAML, or why it cannot be (as a YAML comment).
pub fn yaml_text(shown: &impl serde::Serialize) -> String {
    serde_yaml::to_string(shown).unwrap_or_else(|e| format!("# cannot show as YAML: {e}"))
}

/// Bytes as a hex dump: offset, 16 bytes in hex, and their printable ASCII.
pub fn hex_dump(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 4);
    for (line, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x}  ", line * 16);
        for i in 0..16 {
            match chunk.get(i) {
                Some(b) => {
                    let _ = write!(out, "{b:02x} ");
                }
                None => out.push_str("   "),
            }
        }
        out.push(' ');
        out.extend(chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::body::decode_body;
    use kube_wire::media_type::MediaType;
    use kube_wire::testdata::shared_file;

    fn decoded(path: &str, content_type: MediaType) -> Decoded {
        decode_body(&content_type, &shared_file(path)).expect("decodes")
    }

    #[test]
    fn a_table_becomes_a_grid_with_its_list_metadata() {
        let page = Page::from_decoded(&decoded("kube/vectors/table.json", MediaType::json()), PageShape::Grid, 0);
        assert_eq!(page.kind.as_deref(), Some("Table"));
        assert!(matches!(&page.body, PageBody::Grid(g) if !g.rows.is_empty()));
        assert!(page.list.is_some());
    }

    #[test]
    fn a_full_list_gets_the_fallback_columns_or_stays_a_document() {
        let list = decoded("kube/vectors/podlist.json", MediaType::json());
        let grid = Page::from_decoded(&list, PageShape::Grid, 0);
        match &grid.body {
            PageBody::Grid(g) => {
                assert_eq!(g.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Name", "Namespace", "Age"])
            }
            other => panic!("expected a grid, got {other:?}"),
        }
        let document = Page::from_decoded(&list, PageShape::Document, 0);
        assert!(matches!(document.body, PageBody::Document(_)));
        assert_eq!(document.item_count, grid.item_count);
    }

    #[test]
    fn a_list_read_lazily_is_a_page_with_the_decoded_pages_kind_metadata_and_count() {
        use kube_wire::error::Format;
        use kube_wire::watch::lazy_list::read_list_document;
        for (path, format, media_type) in [
            ("kube/vectors/podlist.json", Format::Json, MediaType::json()),
            ("kube/vectors/podlist.cbor", Format::Cbor, MediaType::cbor()),
        ] {
            let read = read_list_document(format, Arc::from(shared_file(path))).expect("list");
            let lazy = Page::from_list_document(read).expect("a list");
            let whole = Page::from_decoded(&decoded(path, media_type), PageShape::Document, 0);
            assert_eq!(
                (&lazy.kind, &lazy.list, lazy.item_count),
                (&whole.kind, &whole.list, whole.item_count),
                "{path}"
            );
            assert!(
                matches!(&lazy.body, PageBody::List(LazyPage(list)) if list.list.items.iter().all(|i| !i.is_decoded()))
            );
        }
        // A list kind is needed, and an items array: anything else is the decoder's to show.
        for body in [&br#"{"kind":"Pod","items":[]}"#[..], br#"{"kind":"PodList","items":null}"#] {
            let read = read_list_document(Format::Json, Arc::from(body));
            assert!(read.ok().and_then(Page::from_list_document).is_none(), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_cbor_list_reads_like_its_json_twin() {
        let cbor = Page::from_decoded(&decoded("kube/vectors/podlist.cbor", MediaType::cbor()), PageShape::Document, 0);
        let json = Page::from_decoded(&decoded("kube/vectors/podlist.json", MediaType::json()), PageShape::Document, 0);
        assert_eq!(cbor.item_count, json.item_count);
        assert_eq!(cbor.kind, json.kind);
    }

    #[test]
    fn a_failure_status_becomes_the_status() {
        let page =
            Page::from_decoded(&decoded("kube/vectors/status-410-expired.json", MediaType::json()), PageShape::Grid, 0);
        assert!(matches!(&page.body, PageBody::Status(s) if s.code == 410));
    }

    #[test]
    fn a_protobuf_body_becomes_its_envelope() {
        let page = Page::from_decoded(&decoded("kube/vectors/pod.pb", MediaType::protobuf()), PageShape::Grid, 0);
        assert_eq!(page.kind.as_deref(), Some("Pod"));
        assert!(matches!(&page.body, PageBody::Envelope(e) if e.api_version == "v1" && !e.raw.is_empty()));
    }

    #[test]
    fn managed_fields_are_hidden_in_place_from_an_object_and_from_every_item_of_a_list() {
        let shown = |document: &Value, managed: bool| {
            kube_wire::codec::json::decode_json(json_text(&Shown { document, managed }).as_bytes()).expect("json")
        };
        let pod = match decoded("kube/vectors/pod.json", MediaType::json()) {
            Decoded::Document(d) => d,
            Decoded::Envelope(_) => unreachable!("json decodes to a document"),
        };
        assert!(pod.at(&["metadata", "managedFields"]).is_some());
        let hidden = shown(&pod, false);
        assert!(hidden.at(&["metadata", "managedFields"]).is_none());
        assert_eq!(hidden.at(&["metadata", "name"]), pod.at(&["metadata", "name"]));
        assert_eq!(shown(&pod, true), pod, "everything, in the keys' own order");
        let list = match decoded("kube/vectors/podlist.json", MediaType::json()) {
            Decoded::Document(d) => d,
            Decoded::Envelope(_) => unreachable!("json decodes to a document"),
        };
        let hidden = shown(&list, false);
        let items = hidden.get("items").and_then(Value::as_array).unwrap();
        assert_eq!(items.len(), list.get("items").and_then(Value::as_array).unwrap().len());
        assert!(items.iter().all(|item| item.at(&["metadata", "managedFields"]).is_none()));
        assert!(items.iter().all(|item| item.at(&["metadata", "name"]).is_some()));
        // Metadata whose only member is managedFields is shown empty, in both formats.
        let only = kube_wire::codec::json::decode_json(br#"{"metadata":{"managedFields":[]},"b":1.0}"#).unwrap();
        assert_eq!(json_text(&Shown { document: &only, managed: false }), "{\n  \"metadata\": {},\n  \"b\": 1\n}");
        assert_eq!(yaml_text(&Shown { document: &only, managed: false }), "metadata: {}\nb: 1\n");
    }

    #[test]
    fn a_document_is_shown_in_each_text_format_without_managed_fields_unless_asked() {
        let document = kube_wire::codec::json::decode_json(
            br#"{"kind":"Pod","metadata":{"name":"a","managedFields":[{"manager":"kubectl"}]}}"#,
        )
        .expect("json");
        let yaml = document_text(&document, TextFormat::Yaml, None, false);
        assert!(yaml.contains("name: a") && !yaml.contains("managedFields"), "{yaml}");
        assert!(document_text(&document, TextFormat::Json, None, true).contains("\"manager\": \"kubectl\""));
        assert_eq!(document_text(&document, TextFormat::Hex, None, false), "");
        let cbor = kube_wire::codec::cbor::encode_cbor(&document, kube_wire::codec::cbor::CborEncoding::SERVER);
        assert!(document_text(&document, TextFormat::Hex, Some(&cbor), false).starts_with("00000000  d9 d9 f7 "));
        assert!(document_text(&document, TextFormat::Diagnostic, Some(&cbor), false).starts_with("55799("));
        assert!(document_text(&document, TextFormat::Diagnostic, Some(b"\xff"), false).starts_with("not CBOR"));
    }
}
