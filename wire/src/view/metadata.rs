//! Metadata-only views: `PartialObjectMetadata` and `PartialObjectMetadataList`, what the server
//! answers to `Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`.
//!
//! `ObjectMeta` is `k8s-openapi`'s; the two wrappers are ours (`k8s-openapi` has no type for
//! them). [`metadata_list_from_json`] is the fast path for a server that could not convert: it
//! reads only `metadata` of each item of a full JSON list and skips the rest without building it.
//! [`heads_from_json`] keeps less still: each item's namespace, name and labels ([`ObjectHead`]),
//! what a search across types shows of thousands of objects.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Deserializer};

use crate::codec::json::json_error;
use crate::codec::value::Value;
use crate::error::DecodeError;
use crate::view::list::List;
use crate::view::shape::{from_document, Expected, ViewError};

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
        from_document(document, "$", Expected::ObjectWithMetadata)
    }
}

impl PartialObjectMetadataList {
    /// The metadata of any collection document (a full list or a `PartialObjectMetadataList`).
    pub fn from_document(document: &Value) -> Result<Self, ViewError> {
        from_document(document, "$", Expected::CollectionWithMetadata)
    }
}

/// Reads only the list metadata and each item's type and metadata from a JSON list body.
pub fn metadata_list_from_json(body: &[u8]) -> Result<PartialObjectMetadataList, DecodeError> {
    serde_json::from_slice(body).map_err(|e| json_error(body, &e))
}

/// Where an object is, what it is called, its labels and the uids of its owners: all a search
/// result keeps of it. The
/// rest of the item (annotations, managedFields, and the spec and status of a full object when
/// the server could not convert) is stepped over without being built.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(from = "HeadItem")]
pub struct ObjectHead {
    /// `None` for a cluster-scoped object.
    pub namespace: Option<String>,
    /// Empty only in a malformed item (every stored object has a name).
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The uids its `ownerReferences` name (a search for what an object owns reads them).
    pub owners: Vec<String>,
}

/// A collection of [`ObjectHead`]s, with the list metadata that drives paging.
pub type ObjectHeadList = List<ObjectHead>;

#[derive(Deserialize)]
struct HeadItem {
    #[serde(default, deserialize_with = "null_as_default")]
    metadata: HeadMeta,
}

#[derive(Default, Deserialize)]
struct HeadMeta {
    #[serde(default, deserialize_with = "null_as_default")]
    name: String,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    labels: BTreeMap<String, String>,
    #[serde(default, rename = "ownerReferences", deserialize_with = "null_as_default")]
    owner_references: Vec<HeadOwner>,
}

#[derive(Default, Deserialize)]
struct HeadOwner {
    #[serde(default, deserialize_with = "null_as_default")]
    uid: String,
}

impl From<HeadItem> for ObjectHead {
    fn from(item: HeadItem) -> ObjectHead {
        let HeadMeta { name, namespace, labels, owner_references } = item.metadata;
        let owners = owner_references.into_iter().map(|o| o.uid).filter(|uid| !uid.is_empty()).collect();
        ObjectHead { namespace: namespace.filter(|n| !n.is_empty()), name, labels, owners }
    }
}

impl From<PartialObjectMetadata> for ObjectHead {
    fn from(object: PartialObjectMetadata) -> ObjectHead {
        let meta = object.metadata;
        ObjectHead {
            namespace: meta.namespace.filter(|n| !n.is_empty()),
            name: meta.name.unwrap_or_default(),
            labels: meta.labels.unwrap_or_default(),
            owners: meta.owner_references.unwrap_or_default().into_iter().map(|o| o.uid).collect(),
        }
    }
}

/// `null` reads as the default, as Go writes a nil map or an unset struct pointer.
fn null_as_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(deserializer: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Reads the list metadata and each item's [`ObjectHead`] from a JSON list body: a
/// `PartialObjectMetadataList`, or a full list from a server that could not convert.
pub fn heads_from_json(body: &[u8]) -> Result<ObjectHeadList, DecodeError> {
    serde_json::from_slice(body).map_err(|e| json_error(body, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::decode_json;
    use crate::testdata::shared_file;

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
    fn heads_name_the_same_objects_as_the_full_metadata() {
        let bytes = shared_file("kube/vectors/podlist.json");
        let full = metadata_list_from_json(&bytes).expect("metadata");
        let heads = heads_from_json(&bytes).expect("heads");
        assert_eq!(heads.metadata, full.metadata);
        assert_eq!(heads.items.len(), full.items.len());
        for (head, meta) in heads.items.iter().zip(&full.items) {
            assert_eq!(Some(&head.name), meta.metadata.name.as_ref());
            assert_eq!(head.namespace, meta.metadata.namespace);
            assert_eq!(Some(&head.labels), meta.metadata.labels.as_ref().or(Some(&BTreeMap::new())));
        }
    }

    #[test]
    fn a_heads_metadata_is_the_same_from_a_partial_object_metadata() {
        let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("json");
        let head = ObjectHead::from(PartialObjectMetadata::from_document(&pod).expect("metadata"));
        let [fast] =
            heads_from_json(&[b"{\"items\":[".as_slice(), &shared_file("kube/vectors/pod.json"), b"]}"].concat())
                .expect("heads")
                .items
                .try_into()
                .expect("one item");
        assert_eq!(head, fast);
        assert!(!head.name.is_empty() && head.namespace.is_some());
    }

    #[test]
    fn heads_read_nulls_and_absences_as_empty_and_cluster_scoped_objects_without_a_namespace() {
        let body = br#"{"kind":"PartialObjectMetadataList","metadata":{"continue":"t","remainingItemCount":3},
            "items":[{"metadata":{"name":"node-1","labels":null}},{"metadata":null},{},
            {"metadata":{"name":"a","namespace":"","labels":{"k":"v"},"managedFields":[{"manager":"x"}]},"spec":{"deep":[1,2]}}]}"#;
        let list = heads_from_json(body).expect("heads");
        assert_eq!(list.metadata.continue_token.as_ref().map(|t| t.as_str()), Some("t"));
        assert_eq!(list.metadata.remaining_item_count, Some(3));
        let names: Vec<&str> = list.items.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["node-1", "", "", "a"]);
        assert!(list.items.iter().all(|h| h.namespace.is_none()));
        assert_eq!(list.items[3].labels.get("k").map(String::as_str), Some("v"));
        assert!(heads_from_json(br#"{"items":null}"#).expect("empty").items.is_empty());
    }

    #[test]
    fn heads_of_bad_wire_data_are_an_error_that_says_where() {
        let error =
            heads_from_json(br#"{"items":[{"metadata":{"name":"a","labels":{"k":1}}}]}"#).expect_err("number label");
        let text = error.to_string();
        assert!(text.contains("expected a string"), "{text}");
        assert!(text.contains("column") || text.contains("offset") || text.contains("byte"), "{text}");
        assert!(heads_from_json(b"<html>").is_err());
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
