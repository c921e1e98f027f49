//! `Table` (`meta.k8s.io/v1`): the server-side rendering a list view shows, asked for with
//! `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (see "Receiving resources as Tables").
//!
//! A row's `object` depends on `includeObject`: absent (`None`), a `PartialObjectMetadata`
//! (`Metadata`, the default) or the full object (`Object`). In a Table watch only the first event
//! carries `columnDefinitions`; later ones (and BOOKMARK tables) have `null`, read here as `None`.
//! `k8s-openapi` has no Table type, so this one is ours.

use crate::codec::value::{Value, ValueKind};
use crate::view::list::ListMeta;
use crate::view::metadata::PartialObjectMetadata;
use crate::view::shape::{expect_kind, kind_of, opt_array, opt_int, opt_str, shape, ViewError};

/// A server-rendered table.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub api_version: String,
    pub metadata: ListMeta,
    /// `None` when the server sent `null` (later events of a Table watch).
    pub column_definitions: Option<Vec<TableColumnDefinition>>,
    pub rows: Vec<TableRow>,
}

/// One column: its name, OpenAPI type and format, what it means, and its priority (0 is shown
/// by default; higher only in wide output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableColumnDefinition {
    pub name: String,
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: i64,
}

/// One row: a cell per column and the object it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    pub cells: Vec<Value>,
    pub object: RowObject,
}

/// What a row carries of its object (`includeObject=None|Metadata|Object`).
#[derive(Debug, Clone, PartialEq)]
pub enum RowObject {
    None,
    Metadata(Box<PartialObjectMetadata>),
    Object(Value),
}

impl Table {
    /// Reads a `Table` document (JSON or CBOR).
    pub fn from_document(document: &Value) -> Result<Table, ViewError> {
        expect_kind(document, "Table")?;
        let column_definitions = opt_array(document, "columnDefinitions", "$")?.map(column_list).transpose()?;
        let rows = opt_array(document, "rows", "$")?
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, r)| row(r, i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Table {
            api_version: opt_str(document, "apiVersion", "$")?.unwrap_or_default(),
            metadata: ListMeta::from_document(document)?,
            column_definitions,
            rows,
        })
    }

    /// The indices of the columns to show: priority 0 only, or all of them in wide mode.
    pub fn visible_columns(&self, wide: bool) -> Vec<usize> {
        self.column_definitions
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, c)| wide || c.priority == 0)
            .map(|(i, _)| i)
            .collect()
    }
}

/// A Table row whose cells do not match its columns (a cell per column of `columnDefinitions` is
/// what the API server's table convertor writes, and what kubectl's printer insists on): the row
/// (from 0), the cells it has and the columns there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expected {columns} cells at $.rows[{row}].cells (one per column of columnDefinitions), found {cells}")]
pub struct RowWidth {
    pub row: usize,
    pub cells: usize,
    pub columns: usize,
}

/// Checks that every row of a Table document has a cell per column. A document that is not a
/// Table, or has no `columnDefinitions` (the later events of a Table watch), passes: there is
/// nothing to compare its rows with.
pub fn check_row_widths(document: &Value) -> Result<(), RowWidth> {
    if kind_of(document) != Some("Table") {
        return Ok(());
    }
    let Some(columns) = document.get("columnDefinitions").and_then(Value::as_array) else { return Ok(()) };
    let rows = document.get("rows").and_then(Value::as_array).unwrap_or_default();
    for (row, value) in rows.iter().enumerate() {
        let cells = value.get("cells").and_then(Value::as_array).map_or(0, <[Value]>::len);
        if cells != columns.len() {
            return Err(RowWidth { row, cells, columns: columns.len() });
        }
    }
    Ok(())
}

/// A Table's `columnDefinitions` (what [`Table::from_document`] reads of them).
pub fn column_definitions(columns: &Value) -> Result<Vec<TableColumnDefinition>, ViewError> {
    match columns.as_array() {
        Some(columns) => column_list(columns),
        None => Err(shape("$.columnDefinitions", ValueKind::Array, columns)),
    }
}

fn column_list(columns: &[Value]) -> Result<Vec<TableColumnDefinition>, ViewError> {
    columns.iter().enumerate().map(|(i, c)| column(c, i)).collect()
}

fn column(value: &Value, index: usize) -> Result<TableColumnDefinition, ViewError> {
    let path = format!("$.columnDefinitions[{index}]");
    if !matches!(value, Value::Object(_)) {
        return Err(shape(&path, ValueKind::Object, value));
    }
    Ok(TableColumnDefinition {
        name: opt_str(value, "name", &path)?.unwrap_or_default(),
        type_: opt_str(value, "type", &path)?.unwrap_or_default(),
        format: opt_str(value, "format", &path)?.unwrap_or_default(),
        description: opt_str(value, "description", &path)?.unwrap_or_default(),
        priority: opt_int(value, "priority", &path)?.unwrap_or_default(),
    })
}

fn row(value: &Value, index: usize) -> Result<TableRow, ViewError> {
    let path = format!("$.rows[{index}]");
    if !matches!(value, Value::Object(_)) {
        return Err(shape(&path, ValueKind::Object, value));
    }
    let cells = opt_array(value, "cells", &path)?.map(<[Value]>::to_vec).unwrap_or_default();
    let object = match value.get("object") {
        None | Some(Value::Null) => RowObject::None,
        Some(object) if object.get("kind").and_then(Value::as_str) == Some("PartialObjectMetadata") => {
            RowObject::Metadata(Box::new(PartialObjectMetadata::from_document(object)?))
        }
        Some(object @ Value::Object(_)) => RowObject::Object(object.clone()),
        Some(other) => return Err(shape(&format!("{path}.object"), ValueKind::Object, other)),
    };
    Ok(TableRow { cells, object })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::cbor::decode_cbor;
    use crate::codec::json::decode_json;
    use crate::testdata::shared_file;

    fn json_table(relative: &str) -> Table {
        Table::from_document(&decode_json(&shared_file(relative)).expect("json")).expect("table")
    }

    #[test]
    fn the_vector_table_has_typed_columns_and_metadata_rows() {
        let table = json_table("kube/vectors/table.json");
        let columns = table.column_definitions.as_ref().expect("columns");
        assert_eq!(columns[0].name, "Name");
        assert_eq!(columns[0].format, "name");
        assert_eq!(columns[2].type_, "integer");
        assert!(!columns[0].description.is_empty());
        assert_eq!(table.visible_columns(false), [0, 1, 2, 3]);
        assert_eq!(table.visible_columns(true).len(), columns.len());
        assert!(matches!(table.rows[0].object, RowObject::Metadata(_)));
        assert_eq!(table.rows[0].cells.len(), columns.len());
    }

    #[test]
    fn json_and_cbor_tables_read_the_same() {
        let json = json_table("kube/vectors/table.json");
        let cbor =
            Table::from_document(&decode_cbor(&shared_file("kube/vectors/table.cbor")).expect("cbor")).expect("table");
        assert_eq!(json.column_definitions, cbor.column_definitions);
        assert_eq!(json.rows.len(), cbor.rows.len());
        let aks =
            Table::from_document(&decode_cbor(&shared_file("kube/cbor/table_namespaces_aks.cbor")).expect("cbor"));
        assert!(aks.expect("table").column_definitions.is_some());
    }

    #[track_caller]
    fn check_rows(json: &str, expect: &str) {
        let table = Table::from_document(&decode_json(json.as_bytes()).expect("json")).map(|t| {
            t.rows
                .iter()
                .map(|r| match &r.object {
                    RowObject::None => "none",
                    RowObject::Metadata(_) => "metadata",
                    RowObject::Object(_) => "object",
                })
                .collect::<Vec<_>>()
                .join(",")
        });
        assert_eq!(table.map_err(|e| e.to_string()).as_deref(), Ok(expect));
    }

    #[test]
    fn row_objects_follow_include_object() {
        check_rows(
            r#"{"kind":"Table","columnDefinitions":null,"rows":[{"cells":[]},{"cells":[],"object":{"kind":"PartialObjectMetadata","metadata":{}}},{"cells":[],"object":{"kind":"Widget"}}]}"#,
            "none,metadata,object",
        );
    }

    #[test]
    fn a_malformed_table_names_the_bad_path() {
        let bad = decode_json(br#"{"kind":"Table","rows":[{"cells":[]},{"cells":[],"object":3}]}"#).expect("json");
        assert_eq!(
            Table::from_document(&bad).map_err(|e| e.to_string()),
            Err("expected an object at $.rows[1].object, found an integer".into())
        );
        let bad = decode_json(br#"{"kind":"Table","columnDefinitions":[{"priority":"x"}]}"#).expect("json");
        assert!(Table::from_document(&bad).is_err());
        let bad = decode_json(br#"{"kind":"Table","columnDefinitions":[1],"rows":[2]}"#).expect("json");
        assert!(Table::from_document(&bad).is_err());
        assert!(Table::from_document(&decode_json(br#"{"kind":"Pod"}"#).expect("json")).is_err());
    }

    #[test]
    fn in_a_table_watch_only_the_first_event_has_column_definitions() {
        let body = crate::testdata::real_apiserver_body("67-watch-table.txt");
        use crate::watch::Framer;
        let mut framer = crate::watch::JsonFramer::new();
        let events = framer.push(&body).expect("frames");
        let tables: Vec<Table> =
            events.iter().map(|e| Table::from_document(e.get("object").expect("object")).expect("table")).collect();
        assert!(tables.len() > 1);
        assert!(tables[0].column_definitions.is_some());
        assert!(tables[1..].iter().all(|t| t.column_definitions.is_none()));
        assert!(tables[1..].iter().all(|t| t.visible_columns(true).is_empty()));
    }

    #[test]
    fn a_real_table_with_full_objects_reads() {
        let text = String::from_utf8(shared_file("kube/real-apiserver/32-table-list-includeObject-Object.txt"))
            .expect("utf-8");
        let body = text
            .split_once("=== BODY")
            .and_then(|(_, b)| b.split_once('\n'))
            .map(|(_, b)| b.trim())
            .unwrap_or_default();
        let table = Table::from_document(&decode_json(body.as_bytes()).expect("json")).expect("table");
        assert!(table.rows.iter().all(|r| matches!(r.object, RowObject::Object(_))));
        let aks = json_table("kube/tables/aks_namespaces_table.body.json");
        assert!(!aks.rows.is_empty());
    }
}
