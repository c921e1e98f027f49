//! A server-side Table's column definition (`meta.k8s.io/v1` TableColumnDefinition), shared by
//! the generic printers (`table`) and the workload kinds' (`workload_table`).

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub format: String,
    pub description: String,
    pub priority: i64,
}
