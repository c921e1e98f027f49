//! Metadata-only views: `PartialObjectMetadata` and `PartialObjectMetadataList`, what the server
//! answers to `Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`.
//!
//! `ObjectMeta` is `k8s-openapi`'s; the two wrappers are ours (`k8s-openapi` has no type for
//! them). [`metadata_list_from_json`] is the fast path for a server that could not convert: it
//! reads only `metadata` of each item of a full JSON list and skips the rest without building it.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;

use crate::api::codec::json::json_error;
use crate::api::codec::value::Value;
use crate::api::error::DecodeError;
use crate::api::view::list::List;
use crate::api::view::shape::{from_document, ViewError};

/// One object's type and metadata, without spec or status.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartialObjectMetadata {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
}

/// A collection of [`PartialObjectMetadata`].
pub type PartialObjectMetadataList = List<PartialObjectMetadata>;

impl PartialObjectMetadata {
    /// The type and metadata of any object document (a full object or a
    /// `PartialObjectMetadata`).
    pub fn from_document(document: &Value) -> Result<Self, ViewError> {
        from_document(document, "$", "an object with metadata")
    }
}

impl PartialObjectMetadataList {
    /// The metadata of any collection document (a full list or a `PartialObjectMetadataList`).
    pub fn from_document(document: &Value) -> Result<Self, ViewError> {
        from_document(document, "$", "a collection with metadata")
    }
}

/// Reads only the list metadata and each item's type and metadata from a JSON list body.
pub fn metadata_list_from_json(body: &[u8]) -> Result<PartialObjectMetadataList, DecodeError> {
    serde_json::from_slice(body).map_err(|e| json_error(body, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::codec::json::decode_json;
    use crate::api::testdata::shared_file;

    #[test]
    fn a_full_list_and_its_metadata_only_view_name_the_same_objects() {
        let bytes = shared_file("kube/vectors/podlist.json");
        let fast = metadata_list_from_json(&bytes).expect("fast path");
        let slow = PartialObjectMetadataList::from_document(&decode_json(&bytes).expect("json")).expect("view");
        assert_eq!(fast, slow);
        assert!(!fast.items.is_empty());
        assert!(fast.items.iter().all(|i| i.metadata.name.is_some()));
        assert_eq!(fast.kind, "PodList");
    }

    #[test]
    fn a_real_partial_object_metadata_list_reads() {
        let text =
            String::from_utf8(shared_file("kube/real-apiserver/40-partialobjectmetadata-list.txt")).expect("utf-8");
        let body = text
            .split_once("=== BODY")
            .and_then(|(_, b)| b.split_once('\n'))
            .map(|(_, b)| b.trim())
            .unwrap_or_default();
        let list = metadata_list_from_json(body.as_bytes()).expect("list");
        assert_eq!(list.kind, "PartialObjectMetadataList");
        assert!(list.items.iter().all(|i| i.kind == "PartialObjectMetadata"));
        assert!(list.metadata.resource_version.is_some());
    }

    #[test]
    fn one_objects_metadata_reads_from_a_document() {
        let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("json");
        let meta = PartialObjectMetadata::from_document(&pod).expect("metadata");
        assert_eq!(meta.kind, "Pod");
        assert!(meta.metadata.uid.is_some());
        assert!(PartialObjectMetadata::from_document(&Value::Int(1)).is_err());
        assert!(metadata_list_from_json(b"{").is_err());
    }
}
