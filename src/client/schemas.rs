//! The OpenAPI v3 document of a group version, read for the write tools (strategic merge keys,
//! minimal apply configurations) and for the schema explorer (through the `/openapi/v3` index,
//! held by its hashed address), and parsed by `api::schema`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::api::explain::ExplainError;
use crate::api::openapi_index::OpenApiIndex;
use crate::api::schema::OpenApiSchemas;
use crate::client::error::ApiError;
use crate::client::fetched::Fetched;
use crate::client::handle::Client;
use crate::i18n::{Localized, Msg, Text};
use crate::model::requests;

/// Why a kind's schema (its tree of fields) is not there.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaError {
    /// The group version's OpenAPI document could not be read.
    Load(ApiError),
    /// The document (at `url`, when it is named) has no usable schema of the kind.
    Tree { url: Option<String>, error: ExplainError },
}

impl Localized for SchemaError {
    fn text(&self) -> Text {
        match self {
            SchemaError::Load(error) => error.text(),
            SchemaError::Tree { url: None, error } => error.text(),
            SchemaError::Tree { url: Some(url), error } => {
                Text::new(Msg::UrlError).with("url", url).with_text("error", error)
            }
        }
    }
}

crate::localized_display!(SchemaError);

impl std::error::Error for SchemaError {}

impl From<ApiError> for SchemaError {
    fn from(error: ApiError) -> Self {
        SchemaError::Load(error)
    }
}

/// Reads and parses `/openapi/v3/api[s/GROUP]/VERSION`.
pub async fn load_schemas(client: &Client, group: &str, version: &str) -> Result<OpenApiSchemas, ApiError> {
    let fetched = client.send(requests::openapi_document(group, version)).await?;
    if let Some(error) = fetched.error() {
        return Err(error);
    }
    OpenApiSchemas::from_json(&fetched.response.body).map_err(|e| ApiError::Undecodable {
        code: fetched.response.status,
        message: Text::new(Msg::UrlError).with("url", &fetched.response.url).with_text("error", e),
    })
}

/// A group version's schemas as the schema explorer reads them, with where they came from.
#[derive(Debug, Clone)]
pub struct IndexedSchemas {
    pub schemas: Arc<OpenApiSchemas>,
    /// The document's address, `?hash=` included.
    pub url: String,
    /// Whether the document was already held (the index named the same hash as before).
    pub cached: bool,
}

thread_local! {
    /// Parsed documents by their hashed address: the address changes when the document does, so
    /// a held one is never stale.
    static DOCUMENTS: RefCell<HashMap<String, Arc<OpenApiSchemas>>> = RefCell::new(HashMap::new());
}

/// Reads the `/openapi/v3` index, then the document it names for the group version unless a
/// document at that address (the same hash) is already held.
pub async fn load_indexed_schemas(client: &Client, group: &str, version: &str) -> Result<IndexedSchemas, ApiError> {
    let index = client.send_undecoded(requests::openapi_index()).await?;
    failure(&index)?;
    let undecodable = |code: u16, message: Text| ApiError::Undecodable { code, message };
    let parsed =
        OpenApiIndex::from_json(&index.response.body).map_err(|e| undecodable(index.response.status, e.text()))?;
    let request = requests::openapi_indexed_document(&parsed, group, version)
        .map_err(|e| undecodable(index.response.status, e.text()))?;
    let url = request.path_and_query();
    if let Some(schemas) = DOCUMENTS.with(|d| d.borrow().get(&url).cloned()) {
        return Ok(IndexedSchemas { schemas, url, cached: true });
    }
    let document = client.send_undecoded(request).await?;
    failure(&document)?;
    let schemas = OpenApiSchemas::from_json(&document.response.body).map(Arc::new).map_err(|e| {
        undecodable(document.response.status, Text::new(Msg::UrlError).with("url", &url).with_text("error", e))
    })?;
    DOCUMENTS.with(|d| d.borrow_mut().insert(url.clone(), schemas.clone()));
    Ok(IndexedSchemas { schemas, url, cached: false })
}

/// The failure an answer is, if it is not a success.
fn failure(fetched: &Fetched) -> Result<(), ApiError> {
    match fetched.response.is_success() {
        true => Ok(()),
        false => Err(fetched.error().unwrap_or(ApiError::Http {
            code: fetched.response.status,
            status_text: fetched.response.status_text.clone(),
            excerpt: String::new(),
        })),
    }
}
