//! Turning a server-side `Table` into what a person reads: cells formatted by their column's type
//! and format (dates as an age with the timestamp on hover), rows sortable by any column, a quick
//! text filter, and the fallback columns (name, namespace, age) for a server without Tables.
//!
//! "Now" is a parameter (milliseconds since the epoch), so that this module stays free of clocks.

use std::cmp::Ordering;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::jiff::Timestamp;

use crate::i18n::{Localized, Msg, Text};
use kube_wire::codec::value::Value;
use kube_wire::view::metadata::PartialObjectMetadata;
use kube_wire::view::table::{Table, TableColumnDefinition, TableRow};
use kube_wire::watch::lazy::ObjectHead;

/// The column a grid of a namespaced type across all namespaces starts with.
pub const NAMESPACE_COLUMN: &str = "Namespace";

/// Why a metadata-only list could not be matched with the rows of a grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataMismatch {
    Count { rows: usize, items: usize },
    Name { row: usize, shown: String, listed: String },
}

impl Localized for MetadataMismatch {
    fn text(&self) -> Text {
        match self {
            MetadataMismatch::Count { rows, items } => {
                Text::new(Msg::MetadataCountMismatch).with("items", items).with("rows", rows)
            }
            MetadataMismatch::Name { row, shown, listed } => Text::new(Msg::MetadataNameMismatch)
                .with("row", row)
                .with("shown", format!("{shown:?}"))
                .with("listed", format!("{listed:?}")),
        }
    }
}

crate::localized_display!(MetadataMismatch);

impl std::error::Error for MetadataMismatch {}

/// One cell as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    /// Shown on hover: the exact timestamp of an age, for instance.
    pub title: Option<String>,
    pub sort: SortKey,
}

impl Cell {
    /// The cell's text at `now_ms` (milliseconds since the epoch): a time (a `date` column, or an
    /// `Age` with its object's creation time) as its age then, as the server computes it (now
    /// minus the time, in kubectl's words), so that an age shown for minutes stays true; any
    /// other cell's text as it came.
    pub fn text_at(&self, now_ms: i64) -> std::borrow::Cow<'_, str> {
        match self.sort {
            SortKey::Time(at) => std::borrow::Cow::Owned(age(now_ms - at)),
            _ => std::borrow::Cow::Borrowed(&self.text),
        }
    }

    /// Whether the cell's text changes with time ([`Cell::text_at`]).
    pub fn ages(&self) -> bool {
        matches!(self.sort, SortKey::Time(_))
    }
}

/// How many milliseconds after `now_ms` the ages shown next turn over: just past the next whole
/// second of the epoch. A server's times are whole seconds (RFC 3339 without fractions), so every
/// age ([`Cell::text_at`]) changes on a whole second; a clock ticking once a second at another
/// phase would show each age up to a second behind what the server says at the same moment.
pub fn until_ages_turn(now_ms: i64) -> i64 {
    /// Past the second, so that a timer firing a little early still lands after it.
    const PAST_MS: i64 = 5;
    1000 - now_ms.rem_euclid(1000) + PAST_MS
}

/// What a column sorts by.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub enum SortKey {
    Missing,
    Number(f64),
    /// Milliseconds since the epoch; later is larger (so younger sorts after older).
    Time(i64),
    Text(String),
}

impl SortKey {
    fn compare(&self, other: &SortKey) -> Ordering {
        self.partial_cmp(other).unwrap_or(Ordering::Equal)
    }
}

/// A column as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub description: String,
    /// Hidden unless "wide" is on.
    pub priority: i64,
}

impl Column {
    /// The `Namespace` column a grid across all namespaces starts with.
    pub fn namespace() -> Column {
        Column { name: NAMESPACE_COLUMN.into(), description: "metadata.namespace".into(), priority: 0 }
    }
}

/// A row as shown, with the object's namespace and name to open it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Option<String>,
    /// The object's `metadata.resourceVersion`, when the row carries it.
    pub resource_version: Option<String>,
    pub cells: Vec<Cell>,
    /// Shown briefly highlighted: a live view's row that was just added or changed.
    pub highlight: bool,
}

impl Row {
    /// The row with its namespace (or nothing yet) as a first cell, under [`Column::namespace`].
    pub fn with_namespace_cell(mut self) -> Row {
        self.cells.insert(0, text_cell(self.namespace.as_deref().unwrap_or("")));
        self
    }
}

/// A table ready to render.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

impl Grid {
    /// Formats a server-side Table. Rows take their name and namespace from the row's object
    /// (metadata or full object) when the server sent one, else from the `Name` column.
    pub fn from_table(table: &Table, now_ms: i64) -> Grid {
        let definitions = table.column_definitions.as_deref().unwrap_or_default();
        let rows = table.rows.iter().map(|row| Grid::table_row(definitions, row, now_ms)).collect();
        Grid { columns: Grid::table_columns(definitions), rows }
    }

    /// The columns of a Table's column definitions.
    pub fn table_columns(definitions: &[TableColumnDefinition]) -> Vec<Column> {
        definitions
            .iter()
            .map(|d| Column { name: d.name.clone(), description: d.description.clone(), priority: d.priority })
            .collect()
    }

    /// One Table row formatted by `definitions` (a row of a Table watch event arrives without
    /// them: the caller keeps them from the first event).
    pub fn table_row(definitions: &[TableColumnDefinition], row: &TableRow, now_ms: i64) -> Row {
        format_table_row(definitions, &row.cells, row_meta(&row.object), now_ms)
    }

    /// One row of a Table document as the server sent it (`rows[i]`), read in place: the row
    /// [`Grid::table_row`] gives for it once parsed, without copying the row's object (a live
    /// Table watch carries the whole object in every row, and formats each changed row alone).
    pub fn table_row_document(definitions: &[TableColumnDefinition], row: &Value, now_ms: i64) -> Row {
        let cells = row.get("cells").and_then(Value::as_array).unwrap_or_default();
        let meta = match row.get("object") {
            Some(object @ Value::Object(_)) => object_meta(object),
            _ => RowMeta::default(),
        };
        format_table_row(definitions, cells, meta, now_ms)
    }

    /// The fallback for a server that answered a full list: name, namespace and age.
    pub fn from_items(items: &[Value], now_ms: i64) -> Grid {
        let columns = vec![
            Column { name: "Name".into(), description: "metadata.name".into(), priority: 0 },
            Column { name: "Namespace".into(), description: "metadata.namespace".into(), priority: 0 },
            Column { name: "Age".into(), description: "metadata.creationTimestamp".into(), priority: 0 },
        ];
        let rows = items.iter().map(|item| Grid::item_row(item, now_ms)).collect();
        Grid { columns, rows }
    }

    /// Puts a `Namespace` column first, as `kubectl get --all-namespaces` does, filled from each
    /// row's namespace (empty for a row that does not know it yet: see
    /// [`Grid::fill_metadata`]). A grid that already has one is returned as it is.
    pub fn with_namespace_column(mut self) -> Grid {
        if self.columns.iter().any(|c| c.name == NAMESPACE_COLUMN) {
            return self;
        }
        self.columns.insert(0, Column::namespace());
        self.rows = self.rows.into_iter().map(Row::with_namespace_cell).collect();
        self
    }

    /// Gives the `page_rows` rows from `offset` on what a metadata-only list of the same page
    /// says of their objects: namespace (and its column's cell), uid, resourceVersion and the
    /// exact creation time behind the `Age` column. The list must name the same objects in the
    /// same order (the same page read again at the same snapshot); the first row whose name
    /// differs stops it, leaving the rows before it filled.
    pub fn fill_metadata(
        &mut self,
        offset: usize,
        page_rows: usize,
        items: &[PartialObjectMetadata],
        now_ms: i64,
    ) -> Result<(), MetadataMismatch> {
        let namespace_column = self.columns.iter().position(|c| c.name == NAMESPACE_COLUMN);
        let age_column = self.columns.iter().position(|c| c.name == "Age");
        if items.len() != page_rows || offset + page_rows > self.rows.len() {
            return Err(MetadataMismatch::Count { rows: page_rows, items: items.len() });
        }
        for (i, item) in items.iter().enumerate() {
            let row = &mut self.rows[offset + i];
            let meta = &item.metadata;
            let name = meta.name.as_deref().unwrap_or_default();
            if name != row.name {
                return Err(MetadataMismatch::Name {
                    row: offset + i,
                    shown: row.name.clone(),
                    listed: name.to_owned(),
                });
            }
            let meta = RowMeta::of(meta);
            if let Some(cell) = namespace_column.and_then(|c| row.cells.get_mut(c)) {
                *cell = text_cell(meta.namespace.as_deref().unwrap_or(""));
            }
            if let (Some(cell), Some(created)) = (age_column.and_then(|c| row.cells.get_mut(c)), &meta.created) {
                set_exact_age(cell, created, now_ms);
            }
            row.namespace = meta.namespace;
            row.uid = meta.uid;
            row.resource_version = meta.resource_version;
        }
        Ok(())
    }

    /// One object as a row of [`Grid::from_items`]'s columns (a live view formats each object
    /// that changed alone).
    pub fn item_row(item: &Value, now_ms: i64) -> Row {
        let metadata = item.get("metadata");
        let text = |key: &str| metadata.and_then(|m| m.get(key)).and_then(Value::as_str).map(str::to_owned);
        let name = text("name").unwrap_or_default();
        let namespace = text("namespace");
        let created = metadata.and_then(|m| m.get("creationTimestamp")).unwrap_or(&Value::Null);
        Row {
            cells: vec![text_cell(&name), text_cell(namespace.as_deref().unwrap_or("")), date_cell(created, now_ms)],
            uid: text("uid"),
            resource_version: text("resourceVersion"),
            namespace,
            name,
            highlight: false,
        }
    }

    /// One object as a row of [`Grid::from_items`]'s columns from its head alone (a watch event's
    /// object is not decoded to be shown).
    pub fn head_row(head: &ObjectHead, now_ms: i64) -> Row {
        let name = head.name.clone().unwrap_or_default();
        let created = head.creation_timestamp.as_deref().map_or(Value::Null, |c| Value::String(c.to_owned()));
        Row {
            cells: vec![
                text_cell(&name),
                text_cell(head.namespace.as_deref().unwrap_or("")),
                date_cell(&created, now_ms),
            ],
            uid: head.uid.clone(),
            resource_version: head.resource_version.clone(),
            namespace: head.namespace.clone(),
            name,
            highlight: false,
        }
    }

    /// One Table row from its cells and its object's head (`None`: the row has no object), as
    /// [`Grid::table_row_document`] gives it for the same row.
    pub fn table_row_head(
        definitions: &[TableColumnDefinition],
        cells: &[Value],
        head: Option<&ObjectHead>,
        now_ms: i64,
    ) -> Row {
        let meta = head.map(RowMeta::of_head).unwrap_or_default();
        format_table_row(definitions, cells, meta, now_ms)
    }

    /// The indices of the columns to show: priority 0 always, the others only when `wide`.
    pub fn visible_columns(&self, wide: bool) -> Vec<usize> {
        (0..self.columns.len()).filter(|&i| wide || self.columns[i].priority == 0).collect()
    }

    /// Whether some columns are hidden unless wide.
    pub fn has_wide_columns(&self) -> bool {
        self.columns.iter().any(|c| c.priority > 0)
    }

    /// The row indices, filtered by `filter` (case-insensitive, any cell or the name) and sorted
    /// by `sort` (column index, ascending?) with the server's order breaking ties.
    pub fn arrange(&self, filter: &str, sort: Option<(usize, bool)>) -> Vec<usize> {
        let needle = filter.trim().to_lowercase();
        let mut order: Vec<usize> = (0..self.rows.len())
            .filter(|&i| {
                needle.is_empty() || {
                    let row = &self.rows[i];
                    contains_ignoring_case(&row.name, &needle)
                        || row.cells.iter().any(|c| contains_ignoring_case(&c.text, &needle))
                }
            })
            .collect();
        if let Some((column, ascending)) = sort {
            order.sort_by(|&a, &b| {
                let key = |i: usize| self.rows[i].cells.get(column).map(|c| &c.sort);
                let ordering = match (key(a), key(b)) {
                    (Some(x), Some(y)) => x.compare(y),
                    _ => Ordering::Equal,
                };
                if ascending {
                    ordering
                } else {
                    ordering.reverse()
                }
            });
        }
        order
    }
}

/// Whether `text` contains `needle` (already lower case) ignoring case. ASCII text, what cells
/// almost always hold, is compared without allocating: filtering 10,000 rows of a live grid is
/// redone at every redraw.
fn contains_ignoring_case(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if !text.is_ascii() {
        return text.to_lowercase().contains(needle);
    }
    let needle = needle.as_bytes();
    text.as_bytes()
        .windows(needle.len())
        .any(|window| window.iter().zip(needle).all(|(a, b)| a.to_ascii_lowercase() == *b))
}

/// What a row's object (metadata or full object) says of it, when the server sent one.
#[derive(Default)]
struct RowMeta {
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
    created: Option<String>,
}

fn row_meta(object: &kube_wire::view::table::RowObject) -> RowMeta {
    use kube_wire::view::table::RowObject;
    match object {
        RowObject::None => RowMeta::default(),
        RowObject::Metadata(meta) => RowMeta::of(&meta.metadata),
        RowObject::Object(value) => object_meta(value),
    }
}

impl RowMeta {
    /// What an object's head says of its row.
    fn of_head(head: &ObjectHead) -> RowMeta {
        RowMeta {
            namespace: head.namespace.clone(),
            name: head.name.clone(),
            uid: head.uid.clone(),
            resource_version: head.resource_version.clone(),
            created: head.creation_timestamp.clone(),
        }
    }

    /// What typed metadata (a `PartialObjectMetadata`'s) says of its row.
    fn of(meta: &ObjectMeta) -> RowMeta {
        RowMeta {
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
            uid: meta.uid.clone(),
            resource_version: meta.resource_version.clone(),
            created: meta.creation_timestamp.as_ref().map(|t| t.0.to_string()),
        }
    }
}

/// An `Age` cell as the server printed it ("5m"), given the exact creation time to show on hover
/// and to sort by.
fn set_exact_age(cell: &mut Cell, created: &str, now_ms: i64) {
    let exact = date_cell(&Value::String(created.to_owned()), now_ms);
    cell.title = exact.title;
    cell.sort = exact.sort;
}

/// What an object's (or a `PartialObjectMetadata`'s) metadata says of its row.
fn object_meta(object: &Value) -> RowMeta {
    let text = |key: &str| object.at(&["metadata", key]).and_then(Value::as_str).map(str::to_owned);
    RowMeta {
        namespace: text("namespace"),
        name: text("name"),
        uid: text("uid"),
        resource_version: text("resourceVersion"),
        created: text("creationTimestamp"),
    }
}

/// A Table row's cells formatted by `definitions`, named by its object's metadata.
fn format_table_row(definitions: &[TableColumnDefinition], cells: &[Value], meta: RowMeta, now_ms: i64) -> Row {
    let name_column = definitions.iter().position(|d| d.format == "name" || d.name == "Name");
    let age_column = definitions.iter().position(|d| d.name == "Age");
    let mut cells: Vec<Cell> = definitions
        .iter()
        .zip(cells.iter().chain(std::iter::repeat(&Value::Null)))
        .map(|(definition, value)| format_cell(definition, value, now_ms))
        .collect();
    // The server prints ages as text ("5m"); the row's metadata gives the exact time.
    if let (Some(i), Some(created)) = (age_column, meta.created.as_ref()) {
        if let Some(cell) = cells.get_mut(i) {
            set_exact_age(cell, created, now_ms);
        }
    }
    let name = meta.name.or_else(|| name_column.and_then(|i| cells.get(i)).map(|c| c.text.clone())).unwrap_or_default();
    Row {
        namespace: meta.namespace,
        name,
        uid: meta.uid,
        resource_version: meta.resource_version,
        cells,
        highlight: false,
    }
}

/// Formats one cell by its column's type and format, as `kubectl get` prints it.
pub fn format_cell(definition: &TableColumnDefinition, value: &Value, now_ms: i64) -> Cell {
    if definition.format == "date-time" || definition.format == "date" || definition.type_ == "date" {
        return date_cell(value, now_ms);
    }
    match value {
        Value::Null => Cell { text: "<none>".into(), title: None, sort: SortKey::Missing },
        Value::Int(n) => Cell { text: n.to_string(), title: None, sort: SortKey::Number(*n as f64) },
        Value::Float(x) => Cell { text: x.to_string(), title: None, sort: SortKey::Number(*x) },
        Value::Bool(b) => text_cell(if *b { "true" } else { "false" }),
        Value::String(s) => text_cell(s),
        other => text_cell(&other.to_json()),
    }
}

fn text_cell(text: &str) -> Cell {
    Cell { text: text.to_owned(), title: None, sort: SortKey::Text(text.to_lowercase()) }
}

fn date_cell(value: &Value, now_ms: i64) -> Cell {
    match value.as_str().map(|s| s.parse::<Timestamp>()) {
        Some(Ok(at)) => Cell {
            text: age(now_ms - at.as_millisecond()),
            title: Some(at.to_string()),
            sort: SortKey::Time(at.as_millisecond()),
        },
        Some(Err(_)) => text_cell(value.as_str().unwrap_or_default()),
        None => Cell { text: "<unknown>".into(), title: None, sort: SortKey::Missing },
    }
}

/// A duration as `kubectl` prints ages: `45s`, `12m`, `3h`, `3h20m` under a day, `5d`, `400d`.
pub fn age(elapsed_ms: i64) -> String {
    let seconds = elapsed_ms.max(0) / 1000;
    let (minutes, hours, days) = (seconds / 60, seconds / 3600, seconds / 86_400);
    match () {
        _ if seconds < 120 => format!("{seconds}s"),
        _ if minutes < 10 => format!("{minutes}m{}s", seconds % 60),
        _ if hours < 3 && minutes % 60 != 0 && hours > 0 => format!("{hours}h{}m", minutes % 60),
        _ if hours < 1 => format!("{minutes}m"),
        _ if days < 2 => format!("{hours}h"),
        _ if days < 8 && hours % 24 != 0 => format!("{days}d{}h", hours % 24),
        _ => format!("{days}d"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::codec::json::decode_json;
    use kube_wire::testdata::shared_file;

    fn table(path: &str) -> Table {
        Table::from_document(&decode_json(&shared_file(path)).unwrap()).unwrap()
    }

    #[track_caller]
    fn check_age(elapsed_seconds: i64, expect: &str) {
        assert_eq!(age(elapsed_seconds * 1000), expect);
    }

    #[test]
    fn ages_turn_just_past_each_whole_second() {
        assert_eq!(until_ages_turn(1_700_000_000_000), 1005);
        assert_eq!(until_ages_turn(1_700_000_000_400), 605);
        assert_eq!(until_ages_turn(1_700_000_000_999), 6);
        // Whatever the phase, the next tick's age of a whole-second time is one more second.
        let created = 1_700_000_000_000;
        for now in [created + 3_000, created + 3_250, created + 3_999] {
            let at = now + until_ages_turn(now);
            assert_eq!((at - created) / 1000, (now - created) / 1000 + 1, "from {now}");
        }
    }

    #[test]
    fn ages_read_like_kubectls() {
        check_age(0, "0s");
        check_age(-5, "0s");
        check_age(119, "119s");
        check_age(5 * 60 + 7, "5m7s");
        check_age(42 * 60, "42m");
        check_age(2 * 3600 + 20 * 60, "2h20m");
        check_age(20 * 3600, "20h");
        check_age(3 * 86_400 + 4 * 3600, "3d4h");
        check_age(400 * 86_400, "400d");
    }

    #[test]
    fn a_real_table_gives_columns_rows_and_dates_as_ages() {
        let t = table("kube/vectors/table.json");
        let now = "2030-01-01T00:00:00Z".parse::<Timestamp>().unwrap().as_millisecond();
        let grid = Grid::from_table(&t, now);
        assert_eq!(grid.columns.len(), t.column_definitions.as_ref().unwrap().len());
        assert_eq!(grid.rows.len(), t.rows.len());
        let age_column = grid.columns.iter().position(|c| c.name == "Age").expect("an Age column");
        let cell = &grid.rows[0].cells[age_column];
        // The server's own text, with the exact creation time on hover and as the sort key.
        assert_eq!(Value::String(cell.text.clone()), t.rows[0].cells[age_column]);
        assert!(cell.title.as_deref().is_some_and(|t| t.ends_with('Z')), "{cell:?}");
        assert!(matches!(cell.sort, SortKey::Time(_)), "{cell:?}");
        assert!(!grid.rows[0].name.is_empty());
    }

    #[test]
    fn a_table_row_formatted_alone_equals_the_same_row_of_the_whole_table() {
        let t = table("kube/vectors/table.json");
        let definitions = t.column_definitions.clone().unwrap_or_default();
        let grid = Grid::from_table(&t, 1_000);
        assert_eq!(Grid::table_columns(&definitions), grid.columns);
        for (row, shown) in t.rows.iter().zip(&grid.rows) {
            assert_eq!(&Grid::table_row(&definitions, row, 1_000), shown);
            assert!(!shown.highlight);
        }
        // A Table watch event's row: its version comes from the row's object.
        let body = kube_wire::testdata::real_apiserver_body("67-watch-table.txt");
        let document = decode_json(body.split(|b| *b == b'\n').next().unwrap_or_default()).expect("json");
        let event = Table::from_document(document.get("object").expect("object")).expect("a Table");
        let defs = event.column_definitions.clone().unwrap_or_default();
        let row = Grid::table_row(&defs, &event.rows[0], 0);
        assert_eq!((row.name.as_str(), row.resource_version.as_deref()), ("w-01", Some("8")));
        assert_eq!(row.uid.as_deref(), Some("cd2279a8-7d32-4571-b523-e1c1ef9a4db9"));
        assert_eq!(
            row.cells.iter().map(|c| c.text.as_str()).collect::<Vec<_>>()[..5],
            ["w-01", "small", "1", "<none>", "red"]
        );
        // Without definitions (the row of a later event, before the columns are known): no cells.
        assert!(Grid::table_row(&[], &event.rows[0], 0).cells.is_empty());
        // Read in place from the document, every row is the same as parsed first.
        let rows = document.at(&["object", "rows"]).and_then(Value::as_array).expect("rows");
        assert_eq!(Grid::table_row_document(&defs, &rows[0], 0), row);
        let vector = decode_json(&shared_file("kube/vectors/table.json")).expect("json");
        for (document_row, parsed) in
            vector.get("rows").and_then(Value::as_array).unwrap_or_default().iter().zip(&t.rows)
        {
            assert_eq!(
                Grid::table_row_document(&definitions, document_row, 1_000),
                Grid::table_row(&definitions, parsed, 1_000)
            );
        }
        // Not a row at all: empty cells, no object to name it.
        let nothing = Grid::table_row_document(&defs, &Value::Null, 0);
        assert_eq!((nothing.cells.len(), nothing.uid, nothing.resource_version), (defs.len(), None, None));
    }

    #[test]
    fn a_columns_only_page_reads_its_rows_metadata_from_a_metadata_list_of_the_same_page() {
        use kube_wire::view::table::RowObject;
        let with_metadata = table("kube/vectors/table.json");
        let items: Vec<PartialObjectMetadata> = with_metadata
            .rows
            .iter()
            .map(|r| match &r.object {
                RowObject::Metadata(meta) => (**meta).clone(),
                other => panic!("the vector's rows carry metadata, not {other:?}"),
            })
            .collect();
        let expected = Grid::from_table(&with_metadata, 0).with_namespace_column();
        assert_eq!(expected.columns[0].name, NAMESPACE_COLUMN);
        assert_eq!(expected.rows[0].cells[0].text, "default");
        // The same page asked with includeObject=None: names from the Name column, nothing else.
        let mut columns_only = with_metadata.clone();
        columns_only.rows.iter_mut().for_each(|r| r.object = RowObject::None);
        let fresh = || Grid::from_table(&columns_only, 0).with_namespace_column();
        let mut grid = fresh();
        assert!(grid.rows.iter().all(|r| r.namespace.is_none() && r.uid.is_none() && r.cells[0].text.is_empty()));
        assert_eq!(grid.rows[1].name, expected.rows[1].name);
        grid.fill_metadata(0, items.len(), &items, 0).expect("same page");
        assert_eq!(grid, expected);
        // Adding the column twice keeps one.
        assert_eq!(grid.clone().with_namespace_column(), grid);

        let mut short = fresh();
        assert_eq!(
            short.fill_metadata(0, items.len(), &items[1..], 0),
            Err(MetadataMismatch::Count { rows: 3, items: 2 })
        );
        let reversed: Vec<_> = items.iter().rev().cloned().collect();
        let mut shuffled = fresh();
        let error = shuffled.fill_metadata(0, items.len(), &reversed, 0).expect_err("another order");
        assert_eq!(
            error.to_string(),
            format!(
                "row 0 shows {:?} where the metadata list has {:?}",
                items[0].metadata.name.as_deref().unwrap(),
                items[2].metadata.name.as_deref().unwrap()
            )
        );
        assert!(shuffled.rows[0].namespace.is_none());
        // A later page fills only its own rows.
        let mut two_pages = fresh();
        two_pages.rows.extend(fresh().rows);
        two_pages.fill_metadata(3, 3, &items, 0).expect("second page");
        assert!(two_pages.rows[..3].iter().all(|r| r.namespace.is_none()));
        assert_eq!(two_pages.rows[3..], expected.rows[..]);
        assert!(two_pages.fill_metadata(4, 3, &items, 0).is_err());
    }

    #[test]
    fn wide_columns_are_the_priority_one_columns() {
        let grid = Grid::from_table(&table("kube/vectors/table.json"), 0);
        let narrow = grid.visible_columns(false);
        let wide = grid.visible_columns(true);
        assert!(narrow.len() <= wide.len());
        assert_eq!(wide.len(), grid.columns.len());
        assert!(narrow.iter().all(|&i| grid.columns[i].priority == 0));
        assert_eq!(grid.has_wide_columns(), narrow.len() < wide.len());
    }

    #[test]
    fn rows_filter_by_any_cell_and_sort_by_any_column() {
        let items: Vec<Value> = ["b", "a", "c"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                decode_json(
                    format!(r#"{{"metadata":{{"name":"{name}","namespace":"ns{i}","creationTimestamp":"2026-01-0{}T00:00:00Z"}}}}"#, i + 1)
                        .as_bytes(),
                )
                .unwrap()
            })
            .collect();
        let grid = Grid::from_items(&items, 0);
        for (item, row) in items.iter().zip(&grid.rows) {
            assert_eq!(&Grid::item_row(item, 0), row, "a row formatted alone is the list's row");
        }
        assert_eq!(grid.arrange("", Some((0, true))), [1, 0, 2]);
        assert_eq!(grid.arrange("", Some((0, false))), [2, 0, 1]);
        // Sorting by age: the oldest first when ascending by time.
        assert_eq!(grid.arrange("", Some((2, true))), [0, 1, 2]);
        assert_eq!(grid.arrange("NS2", None), [2]);
        assert_eq!(grid.rows[1].namespace.as_deref(), Some("ns1"));
    }

    #[test]
    fn the_quick_filter_ignores_case_in_ascii_and_other_text() {
        for (text, needle, expect) in [
            ("Running", "run", true),
            ("load-3", "load-3", true),
            ("CrashLoopBackOff", "loopb", true),
            ("abc", "abcd", false),
            ("abc", "", true),
            ("ÉTÉ", "été", true),
            ("plain", "é", false),
            ("Straße", "strasse", false),
        ] {
            assert_eq!(contains_ignoring_case(text, needle), expect, "{text:?} contains {needle:?}");
        }
    }

    #[test]
    fn an_age_read_later_is_older_and_other_cells_do_not_change() {
        let grid = Grid::from_table(&table("kube/vectors/table.json"), 0);
        let age_column = grid.columns.iter().position(|c| c.name == "Age").expect("an Age column");
        let cell = &grid.rows[0].cells[age_column];
        let SortKey::Time(created) = cell.sort else { panic!("an age sorts by its time: {cell:?}") };
        assert!(cell.ages());
        assert_eq!(cell.text_at(created + 2_000), "2s");
        assert_eq!(cell.text_at(created + 20_000), "20s");
        assert_eq!(cell.text_at(created + 3_600_000 + 20 * 60_000), "1h20m");
        let name = &grid.rows[0].cells[0];
        assert!(!name.ages());
        assert_eq!(name.text_at(created + 20_000), name.text);
    }

    #[test]
    fn cells_follow_their_column_type() {
        let column = |type_: &str, format: &str| TableColumnDefinition {
            name: "X".into(),
            type_: type_.into(),
            format: format.into(),
            description: String::new(),
            priority: 0,
        };
        assert_eq!(format_cell(&column("integer", ""), &Value::Int(3), 0).sort, SortKey::Number(3.0));
        assert_eq!(format_cell(&column("string", ""), &Value::Null, 0).text, "<none>");
        assert_eq!(format_cell(&column("boolean", ""), &Value::Bool(true), 0).text, "true");
        let date = format_cell(&column("string", "date"), &Value::String("1970-01-01T00:01:00Z".into()), 120_000);
        assert_eq!(date.text, "60s");
    }
}
