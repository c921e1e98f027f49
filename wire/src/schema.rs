//! The OpenAPI v3 documents the API server publishes (`/openapi/v3/api/v1`,
//! `/openapi/v3/apis/apps/v1`, ...) as a lookup: the schema of a kind (found through
//! `x-kubernetes-group-version-kind`), the schema of a field path inside it, and what that field
//! says about patching (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`) and about
//! server-side apply (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`).
//!
//! Invariants: `$ref` and single-schema `allOf` wrappers are followed transparently (with a bound,
//! so a cyclic document cannot loop); the patch and list extensions are read from the property
//! itself, where the documents put them, before its `$ref` is followed; a field the schema does
//! not know has no schema (`None`), never a made-up one.

use std::collections::HashMap;

use kube_core::GroupVersionKind;
use serde_json::Value as Json;

use crate::codec::value::Value;

/// How many `$ref`/`allOf` hops a lookup follows before giving up (real documents need 2).
const MAX_REF_HOPS: usize = 16;

/// The schemas of one or more OpenAPI v3 documents, indexed by kind.
#[derive(Debug, Clone, Default)]
pub struct OpenApiSchemas {
    schemas: HashMap<String, Json>,
    kinds: HashMap<GroupVersionKind, String>,
}

/// An OpenAPI document that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error("invalid OpenAPI document: {0}")]
    Json(String),
    #[error("expected an OpenAPI v3 document with components.schemas, found none")]
    NoSchemas,
}

impl OpenApiSchemas {
    /// The schemas of one OpenAPI v3 document (JSON).
    pub fn from_json(document: &[u8]) -> Result<OpenApiSchemas, SchemaError> {
        let mut schemas = OpenApiSchemas::default();
        schemas.add_json(document)?;
        Ok(schemas)
    }

    /// Adds the schemas of another document (a later definition of the same name wins; the
    /// documents of one server agree on shared types).
    pub fn add_json(&mut self, document: &[u8]) -> Result<(), SchemaError> {
        let document: Json = serde_json::from_slice(document).map_err(|e| SchemaError::Json(e.to_string()))?;
        let Some(Json::Object(schemas)) = document.pointer("/components/schemas") else {
            return Err(SchemaError::NoSchemas);
        };
        for (name, schema) in schemas {
            if let Some(Json::Array(kinds)) = schema.get("x-kubernetes-group-version-kind") {
                for kind in kinds {
                    let text = |key: &str| kind.get(key).and_then(Json::as_str).unwrap_or_default().to_string();
                    let gvk = GroupVersionKind { group: text("group"), version: text("version"), kind: text("kind") };
                    self.kinds.insert(gvk, name.clone());
                }
            }
            self.schemas.insert(name.clone(), schema.clone());
        }
        Ok(())
    }

    /// How many named schemas are loaded.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// Whether no schema is loaded.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// The component name of a kind's schema (`io.k8s.api.apps.v1.Deployment`).
    pub fn kind_schema_name(&self, gvk: &GroupVersionKind) -> Option<&str> {
        self.kinds.get(gvk).map(String::as_str)
    }

    /// A named schema of `components.schemas`, as the document has it.
    pub fn schema(&self, name: &str) -> Option<&Json> {
        self.schemas.get(name)
    }

    /// The kinds whose schemas are loaded, sorted by group, version and kind.
    pub fn kinds(&self) -> Vec<&GroupVersionKind> {
        let mut kinds: Vec<&GroupVersionKind> = self.kinds.keys().collect();
        kinds.sort_by(|a, b| (&a.group, &a.version, &a.kind).cmp(&(&b.group, &b.version, &b.kind)));
        kinds
    }

    /// The schema of a kind.
    pub fn kind(&self, gvk: &GroupVersionKind) -> Option<SchemaNode<'_>> {
        let name = self.kinds.get(gvk)?;
        self.schemas.get(name).map(|node| SchemaNode { schemas: self, node })
    }

    /// The schema of the field at `path` in a kind, e.g. `["spec", "containers", "ports"]`
    /// (array items are stepped into implicitly).
    pub fn field(&self, gvk: &GroupVersionKind, path: &[&str]) -> Option<SchemaNode<'_>> {
        path.iter().try_fold(self.kind(gvk)?, |node, segment| node.property(segment))
    }
}

/// Whether a kind's schema is a Go type's (decoded by kube-apiserver into it, and patched by
/// strategic merge), not a custom resource's structural schema, whose name is its group reversed:
/// `com.example.v1.Widget`, and `io.k8s.networking.gateway.v1.HTTPRoute` for a CRD of a group
/// ending in `k8s.io` (the Gateway API's).
pub fn is_go_typed(name: &str) -> bool {
    ["io.k8s.api.", "io.k8s.apimachinery.", "io.k8s.kube-aggregator.", "io.k8s.apiextensions-apiserver."]
        .iter()
        .any(|prefix| name.starts_with(prefix))
}

/// The group, version and kind of an object from its `apiVersion` and `kind`.
pub fn gvk_of(object: &Value) -> Option<GroupVersionKind> {
    let api_version = object.get("apiVersion")?.as_str()?;
    let kind = object.get("kind")?.as_str()?;
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    Some(GroupVersionKind { group: group.into(), version: version.into(), kind: kind.into() })
}

/// What `x-kubernetes-patch-strategy` says (a comma-separated list, e.g. `merge,retainKeys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PatchStrategy {
    /// Lists are merged (by merge key for objects, as sets for scalars) instead of replaced.
    pub merge: bool,
    /// Keys of the map not named in the patch's `$retainKeys` are cleared.
    pub retain_keys: bool,
    /// The value is replaced as a whole.
    pub replace: bool,
}

/// What `x-kubernetes-list-type` says about a list under server-side apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListType {
    /// Replaced as a whole (also the meaning of no annotation).
    Atomic,
    /// Scalars, each owned separately.
    Set,
    /// Objects identified by `x-kubernetes-list-map-keys`.
    Map,
}

/// One schema in a document, with its `$ref`s resolvable.
#[derive(Debug, Clone, Copy)]
pub struct SchemaNode<'a> {
    schemas: &'a OpenApiSchemas,
    node: &'a Json,
}

impl<'a> SchemaNode<'a> {
    /// The schema after following `$ref` and single-schema `allOf` wrappers.
    fn resolved(self) -> SchemaNode<'a> {
        let mut node = self.node;
        for _ in 0..MAX_REF_HOPS {
            let next = if let Some(reference) = node.get("$ref").and_then(Json::as_str) {
                let name = reference.strip_prefix("#/components/schemas/").unwrap_or(reference);
                self.schemas.schemas.get(name)
            } else {
                match node.get("allOf").and_then(Json::as_array).map(Vec::as_slice) {
                    Some([only]) => Some(only),
                    _ => None,
                }
            };
            match next {
                Some(next) => node = next,
                None => break,
            }
        }
        SchemaNode { schemas: self.schemas, node }
    }

    /// The schema of member `name`: a declared property, or the `additionalProperties` schema
    /// of a map (labels, resource limits). Through an array, the items' member.
    pub fn property(self, name: &str) -> Option<SchemaNode<'a>> {
        let resolved = self.resolved();
        let resolved = match resolved.items() {
            Some(items) => items.resolved(),
            None => resolved,
        };
        let node = resolved
            .node
            .get("properties")
            .and_then(|p| p.get(name))
            .or_else(|| resolved.node.get("additionalProperties").filter(|a| a.is_object()))?;
        Some(SchemaNode { schemas: self.schemas, node })
    }

    /// The schema of an array's items.
    pub fn items(self) -> Option<SchemaNode<'a>> {
        let node = self.resolved().node.get("items")?;
        Some(SchemaNode { schemas: self.schemas, node })
    }

    /// The `type` of the schema (`object`, `array`, `string`, ...), if it says.
    pub fn type_name(self) -> Option<&'a str> {
        self.resolved().node.get("type").and_then(Json::as_str)
    }

    /// `x-kubernetes-patch-strategy`.
    pub fn patch_strategy(self) -> PatchStrategy {
        let text = self.extension("x-kubernetes-patch-strategy").and_then(Json::as_str).unwrap_or_default();
        let mut strategy = PatchStrategy::default();
        for part in text.split(',').map(str::trim) {
            match part {
                "merge" => strategy.merge = true,
                "retainKeys" => strategy.retain_keys = true,
                "replace" => strategy.replace = true,
                _ => {}
            }
        }
        strategy
    }

    /// `x-kubernetes-patch-merge-key`: the member that identifies an item of a merged list.
    pub fn patch_merge_key(self) -> Option<&'a str> {
        self.extension("x-kubernetes-patch-merge-key").and_then(Json::as_str)
    }

    /// `x-kubernetes-list-type`; a list without it is atomic.
    pub fn list_type(self) -> ListType {
        match self.extension("x-kubernetes-list-type").and_then(Json::as_str) {
            Some("set") => ListType::Set,
            Some("map") => ListType::Map,
            _ => ListType::Atomic,
        }
    }

    /// `x-kubernetes-list-map-keys`: the members that together identify an item of a map list.
    pub fn list_map_keys(self) -> Vec<&'a str> {
        self.extension("x-kubernetes-list-map-keys")
            .and_then(Json::as_array)
            .map(|keys| keys.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default()
    }

    /// An extension on the property itself, else on the schema it refers to.
    fn extension(self, name: &str) -> Option<&'a Json> {
        self.node.get(name).or_else(|| self.resolved().node.get(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{gvk, shared_schemas};

    #[track_caller]
    fn check(kind: (&str, &str, &str), path: &[&str], expect: (bool, Option<&str>)) {
        let field = shared_schemas().field(&gvk(kind.0, kind.1, kind.2), path).expect("field has a schema");
        assert_eq!((field.patch_strategy().merge, field.patch_merge_key()), expect, "{path:?}");
    }

    #[test]
    fn merge_keys_and_strategies_come_from_the_shared_documents() {
        let pod = ("", "v1", "Pod");
        check(pod, &["spec", "containers"], (true, Some("name")));
        check(pod, &["spec", "containers", "ports"], (true, Some("containerPort")));
        check(pod, &["spec", "containers", "env"], (true, Some("name")));
        check(pod, &["spec", "volumes"], (true, Some("name")));
        check(pod, &["metadata", "finalizers"], (true, None));
        check(pod, &["spec", "containers", "args"], (false, None));
        check(("apps", "v1", "Deployment"), &["spec", "template", "spec", "containers"], (true, Some("name")));
        check(("batch", "v1", "Job"), &["spec", "template", "spec", "initContainers"], (true, Some("name")));
        check(("", "v1", "Service"), &["spec", "ports"], (true, Some("port")));
        let volumes = shared_schemas().field(&gvk("", "v1", "Pod"), &["spec", "volumes"]).expect("volumes");
        assert!(volumes.patch_strategy().retain_keys);
        let strategy =
            shared_schemas().field(&gvk("apps", "v1", "Deployment"), &["spec", "strategy"]).expect("strategy");
        assert_eq!(strategy.patch_strategy(), PatchStrategy { merge: false, retain_keys: true, replace: false });
    }

    #[test]
    fn list_types_and_map_keys_describe_server_side_apply() {
        let ports = shared_schemas().field(&gvk("", "v1", "Service"), &["spec", "ports"]).expect("ports");
        assert_eq!(ports.list_type(), ListType::Map);
        assert_eq!(ports.list_map_keys(), ["port", "protocol"]);
        assert_eq!(ports.type_name(), Some("array"));
        let args = shared_schemas().field(&gvk("", "v1", "Pod"), &["spec", "containers", "args"]).expect("args");
        assert_eq!(args.list_type(), ListType::Atomic);
        assert!(args.list_map_keys().is_empty());
        assert_eq!(args.items().and_then(SchemaNode::type_name), Some("string"));
    }

    #[test]
    fn map_values_unknown_fields_and_unknown_kinds_resolve_as_they_should() {
        let schemas = shared_schemas();
        assert!(schemas.len() > 200);
        assert!(!schemas.is_empty());
        let label = schemas.field(&gvk("", "v1", "Pod"), &["metadata", "labels", "app"]).expect("a label value");
        assert_eq!(label.type_name(), Some("string"));
        assert!(schemas.field(&gvk("", "v1", "Pod"), &["spec", "bogus"]).is_none());
        assert!(schemas.kind(&gvk("example.com", "v1", "Widget")).is_none());
        assert_eq!(schemas.kind_schema_name(&gvk("apps", "v1", "Deployment")), Some("io.k8s.api.apps.v1.Deployment"));
        assert!(schemas.schema("io.k8s.api.core.v1.PodSpec").is_some_and(|s| s["properties"].is_object()));
        let kinds = schemas.kinds();
        assert!(kinds.contains(&&gvk("batch", "v1", "Job")));
        assert!(kinds
            .windows(2)
            .all(|w| (&w[0].group, &w[0].version, &w[0].kind) <= (&w[1].group, &w[1].version, &w[1].kind)));
    }

    #[test]
    fn the_kind_of_an_object_comes_from_its_api_version() {
        let deployment =
            crate::codec::json::decode_json(br#"{"apiVersion":"apps/v1","kind":"Deployment"}"#).expect("json");
        assert_eq!(gvk_of(&deployment), Some(gvk("apps", "v1", "Deployment")));
        let pod = crate::codec::json::decode_json(br#"{"apiVersion":"v1","kind":"Pod"}"#).expect("json");
        assert_eq!(gvk_of(&pod), Some(gvk("", "v1", "Pod")));
        assert_eq!(gvk_of(&Value::Null), None);
    }

    #[test]
    fn a_document_without_schemas_is_refused() {
        assert_eq!(OpenApiSchemas::from_json(b"{}").map(|s| s.len()), Err(SchemaError::NoSchemas));
        assert!(matches!(OpenApiSchemas::from_json(b"{"), Err(SchemaError::Json(_))));
    }
}
