//! What one response becomes on screen: a grid (Table, metadata-only list, or the fallback
//! columns of a full list), a document to read, a protobuf envelope summary, or a Status error;
//! plus the list metadata (snapshot resourceVersion, continue token, remaining items).

use crate::api::body::Decoded;
use crate::api::codec::cbor::diagnostic;
use crate::api::codec::value::Value;
use crate::api::codec::yaml::encode_yaml;
use crate::api::view::list::{ListMeta, ObjectList};
use crate::api::view::shape::kind_of;
use crate::api::view::status::{is_status, status_from_document, Status};
use crate::api::view::table::Table;
use crate::model::cells::Grid;

/// What a page shows.
#[derive(Debug, Clone, PartialEq)]
pub enum PageBody {
    /// Rows to list (Table, PartialObjectMetadataList, or a full list with fallback columns).
    Grid(Grid),
    /// A document to read (one object, or a list asked for as JSON/YAML/CBOR).
    Document(Value),
    /// A protobuf envelope: what the envelope says; the raw object is not decoded.
    Envelope(Value),
    /// The server refused: its Status.
    Status(Box<Status>),
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
    /// Interprets a decoded body. `as_grid` asks for rows (the Table and metadata-only views);
    /// otherwise a list stays a document to read. `now_ms` formats ages.
    pub fn from_decoded(decoded: &Decoded, as_grid: bool, now_ms: i64) -> Page {
        let document = match decoded {
            Decoded::Envelope(envelope) => {
                let summary = envelope.summary();
                return Page {
                    kind: summary.get("kind").and_then(Value::as_str).map(str::to_owned),
                    body: PageBody::Envelope(summary),
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
        if as_grid {
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

/// `metadata.managedFields` removed from an object, or from every item of a list, for reading
/// without the field-ownership noise.
pub fn without_managed_fields(document: &Value) -> Value {
    let mut copy = document.clone();
    strip_managed_fields(&mut copy);
    if let Value::Object(map) = &mut copy {
        if let Some(Value::Array(items)) = map.get("items").cloned() {
            let items = items
                .into_iter()
                .map(|mut item| {
                    strip_managed_fields(&mut item);
                    item
                })
                .collect();
            map.insert("items", Value::Array(items));
        }
    }
    copy
}

fn strip_managed_fields(object: &mut Value) {
    if let Value::Object(map) = object {
        if let Some(Value::Object(mut meta)) = map.get("metadata").cloned() {
            if meta.remove("managedFields").is_some() {
                map.insert("metadata", Value::Object(meta));
            }
        }
    }
}

/// Appends the items of the next page of a list to `list`, as `kubectl get -o json` joins its
/// chunks into one List: the joined list keeps the first page's kind and apiVersion, and its
/// metadata loses `continue` and `remainingItemCount`, which described one page. Returns how many
/// items were added.
pub fn append_list_items(list: &mut Value, page: &Value) -> Result<usize, String> {
    let Some(more) = page.get("items").and_then(Value::as_array) else {
        return Err("the next page has no items array: not a list".to_owned());
    };
    let Value::Object(members) = list else {
        return Err("the first page is not a list object".to_owned());
    };
    let mut items = match members.remove("items") {
        Some(Value::Array(items)) => items,
        _ => return Err("the first page has no items array: not a list".to_owned()),
    };
    let added = more.len();
    items.extend(more.iter().cloned());
    members.insert("items", Value::Array(items));
    if let Some(Value::Object(mut metadata)) = members.remove("metadata") {
        metadata.remove("continue");
        metadata.remove("remainingItemCount");
        members.insert("metadata", Value::Object(metadata));
    }
    Ok(added)
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
    let shown = || if managed { document.clone() } else { without_managed_fields(document) };
    match format {
        TextFormat::Json => serde_json::to_string_pretty(&shown().to_serde_json()).unwrap_or_default(),
        TextFormat::Yaml => match encode_yaml(&shown()) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => format!("# cannot show as YAML: {e}"),
        },
        TextFormat::Hex => raw.map(hex_dump).unwrap_or_default(),
        TextFormat::Diagnostic => match raw.map(|r| diagnostic(r, MAX_DIAGNOSTIC_CHARS)) {
            Some(Ok(text)) => text,
            Some(Err(e)) => format!("not CBOR diagnostic notation: {e}"),
            None => String::new(),
        },
    }
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
    use crate::api::body::decode_body;
    use crate::api::media_type::MediaType;
    use crate::api::testdata::shared_file;

    fn decoded(path: &str, content_type: MediaType) -> Decoded {
        decode_body(&content_type, &shared_file(path)).expect("decodes")
    }

    #[test]
    fn pages_of_a_list_join_into_one_list_as_kubectl_does() {
        let doc = |json: &str| crate::api::codec::json::decode_json(json.as_bytes()).expect("json");
        let mut list = doc(
            r#"{"kind":"PodList","metadata":{"resourceVersion":"9","continue":"c1","remainingItemCount":1},"items":[{"n":1}]}"#,
        );
        let next = doc(r#"{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[{"n":2}]}"#);
        assert_eq!(append_list_items(&mut list, &next), Ok(1));
        assert_eq!(list, doc(r#"{"kind":"PodList","items":[{"n":1},{"n":2}],"metadata":{"resourceVersion":"9"}}"#));
        assert!(append_list_items(&mut list, &doc(r#"{"kind":"Pod"}"#)).expect_err("no items").contains("not a list"));
        assert!(append_list_items(&mut doc("[]"), &next).is_err());
    }

    #[test]
    fn a_table_becomes_a_grid_with_its_list_metadata() {
        let page = Page::from_decoded(&decoded("kube/vectors/table.json", MediaType::json()), true, 0);
        assert_eq!(page.kind.as_deref(), Some("Table"));
        assert!(matches!(&page.body, PageBody::Grid(g) if !g.rows.is_empty()));
        assert!(page.list.is_some());
    }

    #[test]
    fn a_full_list_gets_the_fallback_columns_or_stays_a_document() {
        let list = decoded("kube/vectors/podlist.json", MediaType::json());
        let grid = Page::from_decoded(&list, true, 0);
        match &grid.body {
            PageBody::Grid(g) => {
                assert_eq!(g.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Name", "Namespace", "Age"])
            }
            other => panic!("expected a grid, got {other:?}"),
        }
        let document = Page::from_decoded(&list, false, 0);
        assert!(matches!(document.body, PageBody::Document(_)));
        assert_eq!(document.item_count, grid.item_count);
    }

    #[test]
    fn a_cbor_list_reads_like_its_json_twin() {
        let cbor = Page::from_decoded(&decoded("kube/vectors/podlist.cbor", MediaType::cbor()), false, 0);
        let json = Page::from_decoded(&decoded("kube/vectors/podlist.json", MediaType::json()), false, 0);
        assert_eq!(cbor.item_count, json.item_count);
        assert_eq!(cbor.kind, json.kind);
    }

    #[test]
    fn a_failure_status_becomes_the_status() {
        let page = Page::from_decoded(&decoded("kube/vectors/status-410-expired.json", MediaType::json()), true, 0);
        assert!(matches!(&page.body, PageBody::Status(s) if s.code == 410));
    }

    #[test]
    fn a_protobuf_body_becomes_its_envelope_summary() {
        let page = Page::from_decoded(&decoded("kube/vectors/pod.pb", MediaType::protobuf()), true, 0);
        assert_eq!(page.kind.as_deref(), Some("Pod"));
        assert!(matches!(&page.body, PageBody::Envelope(s) if s.get("rawBytes").is_some()));
    }

    #[test]
    fn managed_fields_can_be_hidden() {
        let pod = match decoded("kube/vectors/pod.json", MediaType::json()) {
            Decoded::Document(d) => d,
            Decoded::Envelope(_) => unreachable!("json decodes to a document"),
        };
        let hidden = without_managed_fields(&pod);
        assert!(hidden.at(&["metadata", "managedFields"]).is_none());
        assert_eq!(hidden.at(&["metadata", "name"]), pod.at(&["metadata", "name"]));
        let list = match decoded("kube/vectors/podlist.json", MediaType::json()) {
            Decoded::Document(d) => d,
            Decoded::Envelope(_) => unreachable!("json decodes to a document"),
        };
        let hidden = without_managed_fields(&list);
        let items = hidden.get("items").and_then(Value::as_array).unwrap();
        assert!(!items.is_empty());
        assert!(items.iter().all(|item| item.at(&["metadata", "managedFields"]).is_none()));
    }

    #[test]
    fn a_document_is_shown_in_each_text_format_without_managed_fields_unless_asked() {
        let document = crate::api::codec::json::decode_json(
            br#"{"kind":"Pod","metadata":{"name":"a","managedFields":[{"manager":"kubectl"}]}}"#,
        )
        .expect("json");
        let yaml = document_text(&document, TextFormat::Yaml, None, false);
        assert!(yaml.contains("name: a") && !yaml.contains("managedFields"), "{yaml}");
        assert!(document_text(&document, TextFormat::Json, None, true).contains("\"manager\": \"kubectl\""));
        assert_eq!(document_text(&document, TextFormat::Hex, None, false), "");
        let cbor = crate::api::codec::cbor::encode_cbor(&document, crate::api::codec::cbor::CborEncoding::SERVER);
        assert!(document_text(&document, TextFormat::Hex, Some(&cbor), false).starts_with("00000000  d9 d9 f7 "));
        assert!(document_text(&document, TextFormat::Diagnostic, Some(&cbor), false).starts_with("55799("));
        assert!(document_text(&document, TextFormat::Diagnostic, Some(b"\xff"), false).starts_with("not CBOR"));
    }
}
