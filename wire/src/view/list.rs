//! Collections: what a **list** answers (`…List` kinds), with the `ListMeta` fields that drive
//! paging and list-then-watch: `metadata.resourceVersion`, `continue` and `remainingItemCount`.
//!
//! Two ways in:
//! - [`ObjectList::from_document`] over a decoded [`Value`] (any format);
//! - [`RawList::from_json`], the fast path for large JSON lists: items stay raw JSON text
//!   (`Box<RawValue>`), decoded on demand with [`RawList::item`], so a 10,000-item list is not
//!   turned into 10,000 trees just to show a page of it.
//!
//! Invariants: a [`ResourceVersion`] is opaque and only compared for equality (the concepts page
//! forbids ordering them); an empty `continue` is the last page, the same as an absent one.

use std::fmt;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::codec::json::{decode_json, json_error};
use crate::codec::value::{Value, ValueKind};
use crate::error::DecodeError;
use crate::view::shape::{opt_array, opt_int, opt_str, shape, ViewError};

/// The server's opaque version of an object or collection. Compare for equality only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(transparent)]
pub struct ResourceVersion(String);

impl ResourceVersion {
    pub fn new(version: impl Into<String>) -> Self {
        ResourceVersion(version.into())
    }

    /// `"0"`: "any" resource version (served from the watch cache) in get, list and watch.
    pub fn any() -> Self {
        ResourceVersion("0".to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// Whether this is the special value `"0"`.
    pub fn is_any(&self) -> bool {
        self.0 == "0"
    }
}

impl fmt::Display for ResourceVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The token that asks for the next page of a chunked list. Opaque; it expires (410 Gone).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct ContinueToken(String);

impl ContinueToken {
    /// A token; the empty string is no token (the last page).
    pub fn new(token: impl Into<String>) -> Option<Self> {
        let token = token.into();
        (!token.is_empty()).then_some(ContinueToken(token))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ContinueToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `metadata` of a collection.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMeta {
    /// The resource version the collection was constructed at.
    #[serde(default)]
    pub resource_version: Option<ResourceVersion>,
    /// The next page, if any (`"continue": ""` reads as `None`).
    #[serde(default, rename = "continue", deserialize_with = "continue_token")]
    pub continue_token: Option<ContinueToken>,
    /// How many items are left after this page (absent with selectors and on the last page).
    #[serde(default)]
    pub remaining_item_count: Option<i64>,
}

fn continue_token<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ContinueToken>, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.and_then(ContinueToken::new))
}

impl ListMeta {
    /// Reads `metadata` of a collection document.
    pub fn from_document(document: &Value) -> Result<ListMeta, ViewError> {
        let meta = match document.get("metadata") {
            None | Some(Value::Null) => return Ok(ListMeta::default()),
            Some(meta @ Value::Object(_)) => meta,
            Some(other) => return Err(shape("$.metadata", ValueKind::Object, other)),
        };
        Ok(ListMeta {
            resource_version: opt_str(meta, "resourceVersion", "$.metadata")?.map(ResourceVersion),
            continue_token: opt_str(meta, "continue", "$.metadata")?.and_then(ContinueToken::new),
            remaining_item_count: opt_int(meta, "remainingItemCount", "$.metadata")?,
        })
    }

    /// Whether this is the last page of a chunked list.
    pub fn is_last_page(&self) -> bool {
        self.continue_token.is_none()
    }
}

/// A collection envelope as every `…List` kind has it: its type, list metadata and items, with
/// the items kept as `T`: decoded trees ([`ObjectList`]), raw JSON text ([`RawList`]) or
/// metadata only ([`crate::view::metadata::PartialObjectMetadataList`]). `items: null` reads
/// as an empty collection.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "T: Deserialize<'de>"))]
pub struct List<T> {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ListMeta,
    #[serde(default = "Vec::new", deserialize_with = "null_as_empty")]
    pub items: Vec<T>,
}

/// `items: null` (an empty collection, as Go writes a nil slice) reads as no items.
fn null_as_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

/// A decoded collection: its items as document trees.
pub type ObjectList = List<Value>;

/// A JSON collection whose items are kept as raw JSON text until asked for.
pub type RawList = List<Box<RawValue>>;

impl ObjectList {
    /// Reads a collection document; its kind must end in `List` and `items` must be an array
    /// (or null, for an empty collection).
    pub fn from_document(document: &Value) -> Result<ObjectList, ViewError> {
        let kind = opt_str(document, "kind", "$")?.unwrap_or_default();
        if !kind.ends_with("List") {
            return Err(ViewError::Kind { expected: "a …List".to_string(), found: kind });
        }
        Ok(ObjectList {
            api_version: opt_str(document, "apiVersion", "$")?.unwrap_or_default(),
            kind,
            metadata: ListMeta::from_document(document)?,
            items: opt_array(document, "items", "$")?.map(<[Value]>::to_vec).unwrap_or_default(),
        })
    }
}

impl RawList {
    /// Splits a JSON list body into its metadata and raw items (one pass, no trees).
    pub fn from_json(body: &[u8]) -> Result<RawList, DecodeError> {
        serde_json::from_slice(body).map_err(|e| json_error(body, &e))
    }

    /// Decodes item `index` (offsets in an error are relative to that item's text).
    pub fn item(&self, index: usize) -> Option<Result<Value, DecodeError>> {
        self.items.get(index).map(|raw| decode_json(raw.get().as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::cbor::decode_cbor;
    use crate::testdata::shared_file;

    #[test]
    fn resource_versions_are_opaque_values_compared_for_equality() {
        assert_eq!(ResourceVersion::new("12"), ResourceVersion::new("12"));
        assert_ne!(ResourceVersion::new("12"), ResourceVersion::new("012"));
        assert!(ResourceVersion::any().is_any());
        assert_eq!(ResourceVersion::new("7").to_string(), "7");
        assert_eq!(ResourceVersion::new("7").as_str(), "7");
    }

    #[test]
    fn an_empty_continue_token_is_no_token() {
        assert_eq!(ContinueToken::new(""), None);
        let token = ContinueToken::new("abc").expect("token");
        assert_eq!((token.as_str(), token.to_string().as_str()), ("abc", "abc"));
    }

    #[track_caller]
    fn check_meta(json: &str, expect: (Option<&str>, Option<&str>, Option<i64>)) {
        let document = decode_json(json.as_bytes()).expect("json");
        let from_document = ListMeta::from_document(&document).expect("meta");
        let raw = RawList::from_json(json.as_bytes()).expect("raw");
        assert_eq!(from_document, raw.metadata);
        let got = (
            from_document.resource_version.as_ref().map(ResourceVersion::as_str),
            from_document.continue_token.as_ref().map(ContinueToken::as_str),
            from_document.remaining_item_count,
        );
        assert_eq!(got, expect);
    }

    #[test]
    fn list_metadata_reads_paging_fields() {
        check_meta(
            r#"{"kind":"PodList","metadata":{"resourceVersion":"5","continue":"t","remainingItemCount":3},"items":[]}"#,
            (Some("5"), Some("t"), Some(3)),
        );
        check_meta(
            r#"{"kind":"PodList","metadata":{"resourceVersion":"5","continue":""},"items":null}"#,
            (Some("5"), None, None),
        );
        check_meta(r#"{"kind":"PodList","items":[]}"#, (None, None, None));
        assert!(ListMeta::default().is_last_page());
    }

    #[test]
    fn a_paged_list_from_the_real_server_has_a_continue_token() {
        let body = real_body("20-list-limit2-page1.txt");
        let list = ObjectList::from_document(&decode_json(&body).expect("json")).expect("list");
        assert_eq!(list.items.len(), 2);
        assert!(!list.metadata.is_last_page());
        assert!(list.metadata.remaining_item_count.is_some());
    }

    /// The body of a recorded text exchange.
    fn real_body(name: &str) -> Vec<u8> {
        let text = String::from_utf8(shared_file(&format!("kube/real-apiserver/{name}"))).expect("utf-8");
        let body = text.split_once("=== BODY").map(|(_, b)| b).unwrap_or_default();
        body.split_once('\n').map(|(_, b)| b.trim().as_bytes().to_vec()).unwrap_or_default()
    }

    #[test]
    fn json_and_cbor_podlists_give_the_same_list() {
        let json = ObjectList::from_document(&decode_json(&shared_file("kube/vectors/podlist.json")).expect("json"))
            .expect("list");
        let cbor = ObjectList::from_document(&decode_cbor(&shared_file("kube/vectors/podlist.cbor")).expect("cbor"))
            .expect("list");
        assert_eq!(json.metadata, cbor.metadata);
        assert_eq!(json.items.len(), cbor.items.len());
        assert!(json.items.iter().zip(&cbor.items).all(|(a, b)| a.equivalent(b)));
        assert_eq!(json.kind, "PodList");
    }

    #[test]
    fn a_raw_list_decodes_items_on_demand() {
        let bytes = shared_file("kube/vectors/podlist.json");
        let raw = RawList::from_json(&bytes).expect("raw");
        let full = ObjectList::from_document(&decode_json(&bytes).expect("json")).expect("list");
        assert_eq!(raw.items.len(), full.items.len());
        assert_eq!(raw.item(0).map(|r| r.expect("item")), full.items.first().cloned());
        assert!(raw.item(full.items.len()).is_none());
        assert_eq!(raw.kind, "PodList");
    }

    #[test]
    fn a_non_list_or_a_malformed_list_is_refused() {
        assert!(ObjectList::from_document(&decode_json(br#"{"kind":"Pod"}"#).expect("json")).is_err());
        assert!(ObjectList::from_document(&decode_json(br#"{"kind":"PodList","items":{}}"#).expect("json")).is_err());
        assert!(ListMeta::from_document(&decode_json(br#"{"metadata":[]}"#).expect("json")).is_err());
        assert!(RawList::from_json(br#"{"items":[1,"#).is_err());
    }
}
