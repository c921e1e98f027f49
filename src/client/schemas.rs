//! The OpenAPI v3 document of a group version, read for the write tools (strategic merge keys,
//! minimal apply configurations) and parsed by `api::schema`.

use crate::api::request::Request;
use crate::api::schema::OpenApiSchemas;
use crate::client::error::ApiError;
use crate::client::handle::Client;

/// Reads and parses `/openapi/v3/api[s/GROUP]/VERSION`.
pub async fn load_schemas(client: &Client, group: &str, version: &str) -> Result<OpenApiSchemas, ApiError> {
    let fetched = client.send(Request::openapi_v3(group, version)).await?;
    if let Some(error) = fetched.error() {
        return Err(error);
    }
    OpenApiSchemas::from_json(&fetched.response.body).map_err(|e| ApiError::Undecodable {
        code: fetched.response.status,
        message: format!("{}: {e}", fetched.response.url),
    })
}
