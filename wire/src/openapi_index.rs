//! The index the API server publishes at `/openapi/v3`: one entry per group version
//! (`api/v1`, `apis/apps/v1`) with the address of its document, whose `?hash=` query changes
//! whenever the document does. A client keeps a document by that address and fetches it again
//! only when the index names a new one (the hashed addresses are served as immutable).
//!
//! Invariants: an index that is not JSON or has no `paths` is an error naming what was
//! expected; a group version the index does not list is an error naming the key looked for.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::build::RequestBuilder;
use crate::media_type::{Accept, MediaType};

/// The `/openapi/v3` index: group-version key → server-relative URL of its document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpenApiIndex {
    documents: BTreeMap<String, String>,
}

/// An index that cannot be read, or a group version it does not list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error("the /openapi/v3 index is not JSON: {0}")]
    Json(String),
    #[error("expected the /openapi/v3 index to be an object with \"paths\", found none")]
    NoPaths,
    #[error("the /openapi/v3 index lists no {0} (the server publishes no OpenAPI v3 document for it)")]
    Unlisted(String),
    #[error(
        "the /openapi/v3 index entry {key}: expected a serverRelativeURL starting with /openapi/v3/, found {found:?}"
    )]
    BadUrl { key: String, found: String },
}

/// The index key of a group version: `api/v1` for the core group, `apis/GROUP/VERSION` else.
pub fn index_key(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

impl RequestBuilder {
    /// **get** `/openapi/v3`, the index.
    pub fn openapi_index() -> RequestBuilder {
        RequestBuilder::get("/openapi/v3").header("Accept", Accept::only(MediaType::json()).to_string())
    }

    /// **get** a group version's document at the address `index` gives (hash included).
    pub fn openapi_document(index: &OpenApiIndex, group: &str, version: &str) -> Result<RequestBuilder, IndexError> {
        let url = index.url(group, version)?;
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let request = form_urlencoded::parse(query.as_bytes())
            .fold(RequestBuilder::get(path), |request, (name, value)| request.param(name, value));
        Ok(request.header("Accept", Accept::only(MediaType::json()).to_string()))
    }
}

impl OpenApiIndex {
    /// Reads the index document.
    pub fn from_json(body: &[u8]) -> Result<OpenApiIndex, IndexError> {
        let document: Json = serde_json::from_slice(body).map_err(|e| IndexError::Json(e.to_string()))?;
        let Some(Json::Object(paths)) = document.get("paths") else { return Err(IndexError::NoPaths) };
        let documents = paths
            .iter()
            .map(|(key, entry)| {
                let url = entry.get("serverRelativeURL").and_then(Json::as_str).unwrap_or_default();
                (key.clone(), url.to_string())
            })
            .collect();
        Ok(OpenApiIndex { documents })
    }

    /// The server-relative URL (with its `?hash=`) of a group version's document.
    pub fn url(&self, group: &str, version: &str) -> Result<&str, IndexError> {
        let key = index_key(group, version);
        let url = self.documents.get(&key).ok_or_else(|| IndexError::Unlisted(key.clone()))?;
        if !url.starts_with("/openapi/v3/") {
            return Err(IndexError::BadUrl { key, found: url.clone() });
        }
        Ok(url)
    }

    /// How many documents the index lists.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the index lists no document.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::real_apiserver_body as recorded_body;

    #[test]
    fn the_recorded_index_names_each_group_versions_document_with_its_hash() {
        let index = OpenApiIndex::from_json(&recorded_body("04g-openapi-v3-root.txt")).expect("index");
        assert!(index.len() > 5 && !index.is_empty());
        let url = index.url("example.com", "v1").expect("example.com/v1");
        assert!(url.starts_with("/openapi/v3/apis/example.com/v1?hash=CD1D478E65FFAB14"), "{url}");
        let request = RequestBuilder::openapi_document(&index, "example.com", "v1").expect("request").build();
        assert_eq!(request.path, "/openapi/v3/apis/example.com/v1");
        assert_eq!(request.query.first().map(|(k, _)| k.as_str()), Some("hash"));
        assert_eq!(request.path_and_query(), url);
        assert_eq!(RequestBuilder::openapi_index().build().path, "/openapi/v3");
    }

    #[test]
    fn a_group_version_the_index_does_not_list_is_named() {
        let index = OpenApiIndex::from_json(&recorded_body("04g-openapi-v3-root.txt")).expect("index");
        assert_eq!(index.url("nope.io", "v9"), Err(IndexError::Unlisted("apis/nope.io/v9".into())));
        assert_eq!(index_key("", "v1"), "api/v1");
        assert_eq!(index_key("apps", "v1"), "apis/apps/v1");
        let odd = OpenApiIndex::from_json(br#"{"paths":{"api/v1":{"serverRelativeURL":"http://elsewhere/x"}}}"#)
            .expect("index");
        assert!(matches!(odd.url("", "v1"), Err(IndexError::BadUrl { .. })));
    }

    #[test]
    fn a_broken_index_is_refused_with_what_was_expected() {
        assert_eq!(OpenApiIndex::from_json(b"{}"), Err(IndexError::NoPaths));
        assert!(matches!(OpenApiIndex::from_json(b"<html>"), Err(IndexError::Json(_))));
    }
}
