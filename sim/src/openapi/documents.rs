//! The OpenAPI documents kube-sim serves: one OpenAPI v3 document per served group version
//! (`/openapi/v3/apis/GROUP/VERSION`, `/openapi/v3/api/v1`), their index (`/openapi/v3`) and
//! the swagger 2.0 document of everything (`/openapi/v2`), as kube-apiserver 1.36 builds them.
//!
//! Where each comes from:
//! - core/v1, apps/v1, batch/v1: the vendored real documents, served byte for byte;
//! - every other built-in group version: its types' paths made from the vendored documents'
//!   (`paths`) and the schemas they reference from the Kubernetes 1.36.0 definitions
//!   (`definitions`), in the v3 form (`convert`). Kinds that 1.36.0 no longer defines (versions
//!   removed by then that the vendored discovery still lists) have neither paths nor schema;
//! - custom resources: the structural schema of their CRD version, with the paths, list schema
//!   and meta schemas of the recorded 1.36.3 CRD document (real-apiserver 155);
//! - `/openapi/v2`: the paths of all of these in their v2 form, and the definitions they
//!   reference (the 1.36.0 ones, and each custom resource's schema in v2 form).
//!
//! The built-in documents are made once, at the first request for an OpenAPI document (not at
//! start-up: the definitions take a while to parse); the custom resource ones at each request,
//! as CustomResourceDefinitions come and go.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use axum::body::Bytes;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha512};

use super::convert::{self, V3_PREFIX};
use super::definitions::Definitions;
use super::paths::{self, Target, Template};
use crate::store::registry::{Registry, ResourceType};

const OPENAPI_CORE: &str = include_str!("../../data/openapi-v3-api-v1.json");
const OPENAPI_APPS: &str = include_str!("../../data/openapi-v3-apis-apps-v1.json");
const OPENAPI_BATCH: &str = include_str!("../../data/openapi-v3-apis-batch-v1.json");
/// The 1.36.3 server's document of the widgets CRD's v1 (real-apiserver 155).
const OPENAPI_CRD: &str = include_str!("../../data/openapi-v3-apis-example.com-v1.json");
/// The 1.36.3 server's swagger 2.0 document (real-apiserver 153): the paths of discovery and
/// `/version/` come from it.
const OPENAPI_V2_RECORDED: &str = include_str!("../../data/openapi-v2-apiextensions-server.json");

/// The vendored OpenAPI v3 documents of the built-in groups, by path after `/openapi/v3/`.
pub fn builtin_openapi(path: &str) -> Option<&'static str> {
    match path {
        "api/v1" => Some(OPENAPI_CORE),
        "apis/apps/v1" => Some(OPENAPI_APPS),
        "apis/batch/v1" => Some(OPENAPI_BATCH),
        _ => None,
    }
}

/// One document as served: its JSON, the hash kube-apiserver names it by (upper-case hex
/// SHA-512 of the JSON, also its Etag) and when it was made (`Last-Modified`).
#[derive(Clone)]
pub struct Served {
    pub json: Bytes,
    pub hash: String,
    pub modified: SystemTime,
}

impl Served {
    fn new(json: Bytes) -> Served {
        Served { hash: hash(&json), json, modified: SystemTime::now() }
    }
}

pub fn hash(bytes: &[u8]) -> String {
    Sha512::digest(bytes).iter().map(|b| format!("{b:02X}")).collect()
}

/// The swagger 2.0 document as JSON, and its protobuf form once asked for (made from the JSON
/// then: the document's tree is not kept, it is tens of MB).
pub struct SwaggerV2 {
    pub served: Served,
    pub protobuf: OnceLock<Result<Bytes, String>>,
}

/// The last swagger 2.0 document made, with the custom resource parts it was made with: it is
/// made again only when those change.
static V2: Mutex<Option<(String, Arc<SwaggerV2>)>> = Mutex::new(None);

/// Everything made once: the built-in documents and the pieces the others are made of.
struct Builtin {
    defs: Definitions,
    /// Built-in group version documents by path (`apis/apps/v1`).
    docs: BTreeMap<String, Served>,
    /// The v2 paths of all built-in group versions, as JSON (parsed when the v2 document is
    /// made, which is rare, rather than kept as a tree).
    v2_paths: String,
    /// The real CRD document: template of custom resource paths and source of their meta schemas.
    crd: Value,
    crd_template: Template,
}

static BUILTIN: OnceLock<Result<Builtin, String>> = OnceLock::new();

fn builtin(registry: &Registry) -> Result<&'static Builtin, String> {
    BUILTIN.get_or_init(|| Builtin::make(registry)).as_ref().map_err(Clone::clone)
}

fn parse(name: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("{name}: {e}"))
}

impl Builtin {
    fn make(registry: &Registry) -> Result<Builtin, String> {
        let core = parse("openapi-v3-api-v1.json", OPENAPI_CORE)?;
        let apps = parse("openapi-v3-apis-apps-v1.json", OPENAPI_APPS)?;
        let crd = parse("openapi-v3-apis-example.com-v1.json", OPENAPI_CRD)?;
        let defs = Definitions::load(&core)?;
        let namespaced = Template::from_document(&apps, "apps", "v1", "deployments", "Deployment")?;
        let cluster = Template::from_document(&core, "", "v1", "persistentvolumes", "PersistentVolume")?;
        let crd_template = Template::from_document(&crd, "example.com", "v1", "widgets", "Widget")?;
        let mut docs = BTreeMap::new();
        let mut v2_paths = Map::new();
        for group in registry.groups() {
            for gv in &group.versions {
                let types: Vec<&ResourceType> =
                    gv.resources.iter().filter(|r| !r.is_custom()).map(|r| r.as_ref()).collect();
                if types.is_empty() {
                    continue;
                }
                let path = gv_path(&group.name, &gv.version);
                let (served, doc) = match builtin_openapi(&path) {
                    Some(text) => (Served::new(Bytes::from_static(text.as_bytes())), parse(&path, text)?),
                    None => {
                        let doc =
                            builtin_document(&defs, &apps, &namespaced, &cluster, &group.name, &gv.version, &types);
                        (Served::new(Bytes::from(serde_json::to_vec(&doc).map_err(|e| e.to_string())?)), doc)
                    }
                };
                for (p, item) in doc["paths"].as_object().into_iter().flatten() {
                    v2_paths.insert(p.clone(), convert::path_item_to_v2(item, convert::Served::BuiltIn));
                }
                docs.insert(path, served);
            }
        }
        let v2_recorded = parse("openapi-v2-apiextensions-server.json", OPENAPI_V2_RECORDED)?["paths"].take();
        for p in ["/apis/", "/version/"] {
            let item = v2_recorded.get(p).ok_or_else(|| format!("the recorded v2 document has no {p}"))?;
            v2_paths.insert(p.to_string(), item.clone());
        }
        for group in registry
            .groups()
            .iter()
            .filter(|g| !g.name.is_empty() && g.versions.iter().any(|v| v.resources.iter().any(|r| !r.is_custom())))
        {
            if let Some((p, item)) = v2_group_path(&v2_recorded, &group.name) {
                v2_paths.insert(p, item);
            }
        }
        let v2_paths = serde_json::to_string(&v2_paths).map_err(|e| e.to_string())?;
        Ok(Builtin { defs, docs, v2_paths, crd, crd_template })
    }
}

/// The v2 path of a built-in group's discovery (`/apis/GROUP/`, `getAppsAPIGroup`), made from
/// the recorded apiextensions.k8s.io one (custom resource groups have none, as recorded).
fn v2_group_path(recorded: &Value, group: &str) -> Option<(String, Value)> {
    let item = recorded.get("/apis/apiextensions.k8s.io/")?;
    let tag = paths::tag(group, "");
    let tag = tag.trim_end_matches('_');
    let infix = paths::infix(group, "");
    let text = item
        .to_string()
        .replace("getApiextensionsAPIGroup", &format!("get{infix}APIGroup"))
        .replace("[\"apiextensions\"]", &format!("[\"{tag}\"]"));
    Some((format!("/apis/{group}/"), serde_json::from_str(&text).ok()?))
}

/// `api/v1`, `apis/apps/v1`: a group version's path under `/openapi/v3/`.
pub fn gv_path(group: &str, version: &str) -> String {
    paths::prefix(group, version).trim_start_matches('/').to_string()
}

fn builtin_document(
    defs: &Definitions,
    apps: &Value,
    namespaced: &Template,
    cluster: &Template,
    group: &str,
    version: &str,
    types: &[&ResourceType],
) -> Value {
    let mut paths = Map::new();
    if let Some((p, item)) = namespaced.root(group, version) {
        paths.insert(p, item);
    }
    for rt in types {
        let gvk = |kind: String| (group.to_string(), version.to_string(), kind);
        let Some(schema) = defs.by_gvk.get(&gvk(rt.kind.clone())) else { continue };
        let list_schema = defs.by_gvk.get(&gvk(format!("{}List", rt.kind))).map(String::as_str).unwrap_or_default();
        let template = if rt.namespaced { namespaced } else { cluster };
        for (p, item) in template.instantiate(&Target { rt, schema, list_schema }) {
            paths.insert(p, item);
        }
    }
    let mut names = BTreeSet::new();
    convert::collect_refs(&Value::Object(paths.clone()), &mut names);
    let schemas: Map<String, Value> =
        closure(&defs.by_name, names).into_iter().map(|(n, s)| (n, convert::schema_to_v3(&s))).collect();
    json!({
        "openapi": "3.0.0",
        "info": apps["info"],
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": apps["components"]["securitySchemes"]},
    })
}

/// The schemas named by `roots` and every schema they reference, from `all`; names that `all`
/// does not have are left out (the document test lists none).
fn closure(all: &HashMap<String, Value>, roots: BTreeSet<String>) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut todo: Vec<String> = roots.into_iter().collect();
    while let Some(name) = todo.pop() {
        if out.contains_key(&name) {
            continue;
        }
        let Some(schema) = all.get(&name) else { continue };
        let mut refs = BTreeSet::new();
        convert::collect_refs(schema, &mut refs);
        todo.extend(refs.into_iter().filter(|r| !out.contains_key(r)));
        out.insert(name, schema.clone());
    }
    out
}

/// The component name of a custom resource's schema: the group reversed, `com.example.v1.Widget`.
pub fn crd_schema_name(rt: &ResourceType) -> String {
    let reversed: Vec<&str> = rt.group.split('.').rev().collect();
    format!("{}.{}.{}", reversed.join("."), rt.version, rt.kind)
}

/// The schemas (kind and list) and paths of custom resource types, in v3 form.
fn crd_parts(b: &Builtin, types: &[&ResourceType]) -> (Map<String, Value>, Map<String, Value>) {
    let template_schemas = &b.crd["components"]["schemas"];
    let widget = &template_schemas["com.example.v1.Widget"];
    let widget_list = &template_schemas["com.example.v1.WidgetList"];
    let mut schemas = Map::new();
    let mut paths = Map::new();
    for rt in types {
        let Some(custom) = &rt.custom else { continue };
        let name = crd_schema_name(rt);
        let list_name = format!("{name}List");
        let mut schema = custom.schema.clone();
        if let Some(m) = schema.as_object_mut() {
            let props = m.entry("properties").or_insert_with(|| json!({}));
            if let Some(props) = props.as_object_mut() {
                for field in ["apiVersion", "kind", "metadata"] {
                    props.insert(field.into(), widget["properties"][field].clone());
                }
            }
            m.insert(
                "x-kubernetes-group-version-kind".into(),
                json!([{"group": rt.group, "kind": rt.kind, "version": rt.version}]),
            );
        }
        let mut list = widget_list.clone();
        if let Some(m) = list.as_object_mut() {
            m.insert("description".into(), json!(format!("{}List is a list of {}", rt.kind, rt.kind)));
            m.insert(
                "x-kubernetes-group-version-kind".into(),
                json!([{"group": rt.group, "kind": format!("{}List", rt.kind), "version": rt.version}]),
            );
        }
        list["properties"]["items"]["description"] = json!(format!(
            "List of {}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
            rt.plural
        ));
        list["properties"]["items"]["items"] = json!({"$ref": format!("{V3_PREFIX}{name}")});
        let selectable: Vec<Value> = custom.selectable_fields.iter().map(|f| json!({"fieldPath": f})).collect();
        for s in [&mut schema, &mut list] {
            if let Some(m) = s.as_object_mut() {
                m.remove("x-kubernetes-selectable-fields");
                if !selectable.is_empty() {
                    m.insert("x-kubernetes-selectable-fields".into(), Value::Array(selectable.clone()));
                }
            }
        }
        let template = if rt.namespaced { None } else { Some(b.crd_template.cluster_scoped()) };
        let template = template.as_ref().unwrap_or(&b.crd_template);
        for (p, item) in template.instantiate(&Target { rt, schema: &name, list_schema: &list_name }) {
            paths.insert(p, item);
        }
        schemas.insert(name, schema);
        schemas.insert(list_name, list);
    }
    (schemas, paths)
}

/// The custom resource types of a group version, if it has any.
fn custom_types(registry: &Registry, group: &str, version: &str) -> Vec<std::sync::Arc<ResourceType>> {
    registry
        .group_version(group, version)
        .map(|gv| gv.resources.iter().filter(|r| r.is_custom()).cloned().collect())
        .unwrap_or_default()
}

fn crd_document(b: &Builtin, types: &[&ResourceType]) -> Value {
    let (mut schemas, paths) = crd_parts(b, types);
    let mut names = BTreeSet::new();
    convert::collect_refs(&Value::Object(schemas.clone()), &mut names);
    convert::collect_refs(&Value::Object(paths.clone()), &mut names);
    let template: HashMap<String, Value> =
        b.crd["components"]["schemas"].as_object().into_iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (name, schema) in closure(&template, names) {
        schemas.entry(name).or_insert(schema);
    }
    json!({"openapi": "3.0.0", "info": b.crd["info"], "paths": paths, "components": {"schemas": schemas}})
}

/// The v3 document at `path` (after `/openapi/v3/`), if a group version is served there.
pub fn v3_document(registry: &Registry, path: &str) -> Result<Option<Served>, String> {
    let b = builtin(registry)?;
    if let Some(doc) = b.docs.get(path) {
        return Ok(Some(doc.clone()));
    }
    let Some((group, version)) = path.strip_prefix("apis/").and_then(|r| r.split_once('/')) else { return Ok(None) };
    let types = custom_types(registry, group, version);
    if types.is_empty() {
        return Ok(None);
    }
    let refs: Vec<&ResourceType> = types.iter().map(|t| t.as_ref()).collect();
    let json = serde_json::to_vec(&crd_document(b, &refs)).map_err(|e| e.to_string())?;
    Ok(Some(Served::new(Bytes::from(json))))
}

/// The `/openapi/v3` index: every served group version with its document's hash.
pub fn v3_index(registry: &Registry) -> Result<Value, String> {
    let mut paths = Map::new();
    for group in registry.groups() {
        for gv in &group.versions {
            let path = gv_path(&group.name, &gv.version);
            if let Some(doc) = v3_document(registry, &path)? {
                paths.insert(
                    path.clone(),
                    json!({"serverRelativeURL": format!("/openapi/v3/{path}?hash={}", doc.hash)}),
                );
            }
        }
    }
    Ok(json!({"paths": paths}))
}

/// The swagger 2.0 document of every served type.
pub fn v2_document(registry: &Registry) -> Result<Arc<SwaggerV2>, String> {
    let b = builtin(registry)?;
    let mut crd_paths = Map::new();
    let mut crd_definitions = Map::new();
    for group in registry.groups() {
        for gv in &group.versions {
            let types = custom_types(registry, &group.name, &gv.version);
            if types.is_empty() {
                continue;
            }
            let refs: Vec<&ResourceType> = types.iter().map(|t| t.as_ref()).collect();
            let (schemas, paths) = crd_parts(b, &refs);
            for (p, item) in &paths {
                crd_paths.insert(p.clone(), convert::path_item_to_v2(item, convert::Served::CustomResource));
            }
            for (name, schema) in schemas {
                crd_definitions.insert(name, convert::schema_to_v2(&schema));
            }
        }
    }
    let key = serde_json::to_string(&(&crd_paths, &crd_definitions)).map_err(|e| e.to_string())?;
    let mut last = V2.lock().map_err(|_| "the OpenAPI v2 cache is poisoned".to_string())?;
    if let Some((made_with, doc)) = last.as_ref() {
        if *made_with == key {
            return Ok(doc.clone());
        }
    }
    let mut paths: Map<String, Value> = serde_json::from_str(&b.v2_paths).map_err(|e| e.to_string())?;
    paths.extend(crd_paths);
    let mut names = BTreeSet::new();
    convert::collect_refs(&Value::Object(paths.clone()), &mut names);
    convert::collect_refs(&Value::Object(crd_definitions.clone()), &mut names);
    let mut definitions: Map<String, Value> = closure(&b.defs.by_name, names).into_iter().collect();
    definitions.extend(crd_definitions);
    let tree = json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "1.36"},
        "paths": paths,
        "definitions": definitions,
        "securityDefinitions": {
            "BearerToken": {"description": "Bearer Token authentication", "type": "apiKey", "name": "authorization", "in": "header"}
        },
        "security": [{"BearerToken": []}],
    });
    let json = serde_json::to_vec(&tree).map_err(|e| e.to_string())?;
    let doc = Arc::new(SwaggerV2 { served: Served::new(Bytes::from(json)), protobuf: OnceLock::new() });
    *last = Some((key, doc.clone()));
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openapi::convert::V2_PREFIX;

    /// Names of `$ref`s that a document does not define: none, in a served document.
    pub fn dangling_refs(doc: &Value) -> Vec<String> {
        let (prefix, defined) = if doc.get("swagger").is_some() {
            (V2_PREFIX, &doc["definitions"])
        } else {
            (V3_PREFIX, &doc["components"]["schemas"])
        };
        let mut names = BTreeSet::new();
        convert::collect_refs(doc, &mut names);
        names.into_iter().filter(|n| defined.get(n).is_none()).map(|n| format!("{prefix}{n}")).collect()
    }

    fn registry() -> Registry {
        let r = Registry::load().expect("registry");
        let crd: Value = serde_json::from_str(crate::store::registry::WIDGETS_CRD).expect("crd");
        r.add_custom(&crd).expect("widgets");
        r
    }

    #[test]
    fn every_served_group_version_has_a_document_whose_references_resolve() {
        let registry = registry();
        let index = v3_index(&registry).expect("index");
        let paths = index["paths"].as_object().expect("paths");
        for group in registry.groups() {
            for gv in &group.versions {
                let path = gv_path(&group.name, &gv.version);
                assert!(paths.contains_key(&path), "{path} is in the index");
                let doc = v3_document(&registry, &path).expect("made").expect("served");
                let tree: Value = serde_json::from_slice(&doc.json).expect("JSON");
                assert_eq!(dangling_refs(&tree), Vec::<String>::new(), "{path}");
            }
        }
        let v2 = v2_document(&registry).expect("v2");
        let tree: Value = serde_json::from_slice(&v2.served.json).expect("JSON");
        assert_eq!(dangling_refs(&tree), Vec::<String>::new(), "/openapi/v2");
    }

    #[test]
    fn the_hash_is_upper_case_sha512() {
        assert_eq!(hash(b"").len(), 128);
        assert!(hash(b"").starts_with("CF83E1357EEFB8BD"));
    }
}
