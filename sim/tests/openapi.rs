//! `/openapi/v3` and `/openapi/v2` against what kube-apiserver serves: every index entry
//! resolves, every `$ref` resolves within its document, every served kind has a schema with its
//! `x-kubernetes-group-version-kind` and descriptions; the custom resource documents and the v2
//! definitions equal the real 1.36.3 server's (real-apiserver 155 and 153); hashes, Etags,
//! `?hash=` and content negotiation behave as kube-openapi's handlers; the protobuf form decodes
//! (with prost, independently of kube-sim's encoder) to the JSON document.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use common::Sim;
use serde_json::{json, Value};

/// The kinds the vendored discovery lists in versions that Kubernetes 1.36.0 no longer defines:
/// kube-sim serves their group versions without them (nothing real describes them).
const UNDEFINED_KINDS: &[&str] = &[
    "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy",
    "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding",
    // metrics-server's own types: not in the Kubernetes definitions kube-sim makes schemas from.
    "metrics.k8s.io/v1beta1 NodeMetrics",
    "metrics.k8s.io/v1beta1 PodMetrics",
    "resource.k8s.io/v1alpha3 DeviceClass",
    "resource.k8s.io/v1alpha3 ResourceClaim",
    "resource.k8s.io/v1alpha3 ResourceClaimTemplate",
    "resource.k8s.io/v1alpha3 ResourceSlice",
    "storage.k8s.io/v1alpha1 VolumeAttributesClass",
    "storagemigration.k8s.io/v1alpha1 StorageVersionMigration",
];

/// The gizmos CRD of the recorded server, with the schema its `/openapi/v2` shows (153).
fn gizmos_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.tools.example.org"},
        "spec": {"group": "tools.example.org", "scope": "Cluster",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"level": {"type": "integer"}, "mode": {"type": "string"}}}}}}}]}})
}

async fn with_gizmos() -> Sim {
    let sim = Sim::start(&["--dataset", "empty"]);
    let created = sim
        .send(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "application/json",
            gizmos_crd().to_string(),
        )
        .await;
    assert_eq!(created.status().as_u16(), 201);
    sim
}

/// The body of the recorded `/openapi/v2` answer (real-apiserver 153), gunzipped.
fn recorded_v2() -> Value {
    let path = common::shared_dir().join("kube/real-apiserver/153-gzip-openapi-v2.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let hex: String = text
        .split("=== BODY")
        .nth(1)
        .and_then(|b| b.split_once('\n'))
        .map(|(_, b)| b)
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let mut json = String::new();
    flate2::read::GzDecoder::new(&common::from_hex(&hex)[..]).read_to_string(&mut json).expect("gzip body");
    serde_json::from_str(&json).expect("JSON body")
}

fn refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                match (k.as_str(), child) {
                    ("$ref", Value::String(r)) => {
                        out.insert(r.clone());
                    }
                    _ => refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| refs(i, out)),
        _ => {}
    }
}

/// The `x-kubernetes-group-version-kind` entries of a document's schemas, as `group/version Kind`.
fn kinds(schemas: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for schema in schemas.as_object().into_iter().flatten().map(|(_, s)| s) {
        for gvk in schema["x-kubernetes-group-version-kind"].as_array().into_iter().flatten() {
            let g = gvk["group"].as_str().unwrap_or_default();
            let gv = if g.is_empty() {
                gvk["version"].as_str().unwrap_or_default().to_string()
            } else {
                format!("{g}/{}", gvk["version"].as_str().unwrap_or_default())
            };
            out.insert(format!("{gv} {}", gvk["kind"].as_str().unwrap_or_default()), schema.clone());
        }
    }
    out
}

#[tokio::test]
async fn every_served_kind_has_a_described_schema_whose_references_resolve() {
    let sim = with_gizmos().await;
    let (code, index) = sim.get_json("/openapi/v3").await;
    assert_eq!(code, 200);
    let entries = index["paths"].as_object().expect("paths");
    let (_, discovery) = common::json_of(
        sim.get_with("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").await,
    )
    .await;
    let (_, core) = sim.get_json("/api/v1").await;
    let mut served: Vec<(String, String)> = core["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| !r["name"].as_str().unwrap_or_default().contains('/'))
        .map(|r| ("api/v1".to_string(), format!("v1 {}", r["kind"].as_str().unwrap_or_default())))
        .collect();
    for g in discovery["items"].as_array().into_iter().flatten() {
        let group = g["metadata"]["name"].as_str().unwrap_or_default();
        for v in g["versions"].as_array().into_iter().flatten() {
            let version = v["version"].as_str().unwrap_or_default();
            for r in v["resources"].as_array().into_iter().flatten() {
                let kind = r["responseKind"]["kind"].as_str().unwrap_or_default();
                served.push((format!("apis/{group}/{version}"), format!("{group}/{version} {kind}")));
            }
        }
    }
    let mut undefined = Vec::new();
    let mut documents = BTreeMap::new();
    let mut documents_raw = BTreeMap::new();
    for (path, entry) in entries {
        let url = entry["serverRelativeURL"].as_str().unwrap_or_else(|| panic!("{path}: no serverRelativeURL"));
        assert!(url.starts_with(&format!("/openapi/v3/{path}?hash=")), "{url}");
        let (code, doc) = sim.get_json(url).await;
        assert_eq!(code, 200, "{url}");
        let mut all = BTreeSet::new();
        refs(&doc, &mut all);
        let schemas = &doc["components"]["schemas"];
        for r in &all {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{path}: foreign $ref {r}"));
            assert!(schemas.get(name).is_some(), "{path}: $ref {r} does not resolve");
        }
        assert!(doc["paths"].as_object().is_some_and(|p| !p.is_empty()), "{path}: no paths");
        documents.insert(path.clone(), kinds(schemas));
        documents_raw.insert(path.clone(), doc);
    }
    for (path, kind) in &served {
        let Some(doc_kinds) = documents.get(path) else { panic!("{path} ({kind}) is not in the index") };
        let Some(schema) = doc_kinds.get(kind) else {
            undefined.push(kind.clone());
            continue;
        };
        if kind.contains(".example.") || kind.starts_with("example.com") {
            continue;
        }
        assert!(schema["description"].as_str().is_some_and(|d| !d.is_empty()), "{kind}: no description");
        // A field's description is its own or, as kubectl explain shows it, its type's.
        for (field, prop) in schema["properties"].as_object().into_iter().flatten() {
            let referred = prop["allOf"][0]["$ref"]
                .as_str()
                .or(prop["$ref"].as_str())
                .and_then(|r| r.strip_prefix("#/components/schemas/"));
            let described = |s: &Value| s["description"].as_str().is_some_and(|d| !d.is_empty());
            let schemas = &documents_raw[path.as_str()]["components"]["schemas"];
            assert!(
                described(prop) || referred.is_some_and(|r| described(&schemas[r])),
                "{kind}.{field}: no description"
            );
        }
    }
    undefined.sort();
    undefined.dedup();
    assert_eq!(undefined, UNDEFINED_KINDS);
}

#[tokio::test]
async fn the_custom_resource_document_is_the_real_servers() {
    let sim = Sim::start(&["--dataset", "empty"]);
    let (code, mut doc) = sim.get_json("/openapi/v3/apis/example.com/v1").await;
    assert_eq!(code, 200);
    // kube-sim's CRD has the CEL rules of a real one; the recorded server's had none.
    assert_eq!(remove_cel_rules(&mut doc["components"]["schemas"]["com.example.v1.Widget"]), 3);
    assert_eq!(doc, common::recorded_body("155-openapi-v3-example.com-v1.txt"));
}

/// Removes every `x-kubernetes-validations` (CEL rules) from a schema; answers how many rules.
fn remove_cel_rules(v: &mut Value) -> usize {
    match v {
        Value::Object(m) => {
            let own = m.remove("x-kubernetes-validations").and_then(|r| r.as_array().map(Vec::len)).unwrap_or(0);
            own + m.values_mut().map(remove_cel_rules).sum::<usize>()
        }
        Value::Array(items) => items.iter_mut().map(remove_cel_rules).sum(),
        _ => 0,
    }
}

/// What the live server adds to the committed swagger.json kube-sim's definitions come from:
/// `enum` and a "Possible enum values" paragraph on enum fields.
fn strip_enums(v: &mut Value, in_crd: bool) {
    match v {
        Value::Object(m) => {
            // An `enum` list (not a property named `enum`, as JSONSchemaProps has).
            if !in_crd && m.get("enum").is_some_and(Value::is_array) && m.remove("enum").is_some() {
                if let Some(Value::String(d)) = m.get_mut("description") {
                    if let Some(at) = d.find("\n\nPossible enum values:") {
                        d.truncate(at);
                    }
                }
            }
            for (k, child) in m.iter_mut() {
                if k != "x-kubernetes-group-version-kind" {
                    strip_enums(child, in_crd);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| strip_enums(i, in_crd)),
        _ => {}
    }
}

#[tokio::test]
async fn v2_definitions_are_the_real_servers() {
    let sim = with_gizmos().await;
    let (code, mut ours) = sim.get_json("/openapi/v2").await;
    assert_eq!(code, 200);
    // The CEL rules of kube-sim's CRD, which the recorded server's had none of, go into v2 too.
    assert_eq!(remove_cel_rules(&mut ours["definitions"]["com.example.v1.Widget"]), 3);
    assert_eq!(ours["swagger"], "2.0");
    let real = recorded_v2();
    let mut compared = 0;
    for (name, real_def) in real["definitions"].as_object().expect("definitions") {
        // Which kinds list DeleteOptions and WatchEvent depends on the groups a server serves.
        if name.ends_with("meta.v1.DeleteOptions") || name.ends_with("meta.v1.WatchEvent") {
            continue;
        }
        let mut real_def = real_def.clone();
        strip_enums(&mut real_def, name.starts_with("com.example") || name.starts_with("org.example"));
        assert_eq!(ours["definitions"].get(name), Some(&real_def), "definition {name}");
        compared += 1;
    }
    assert_eq!(compared, real["definitions"].as_object().map_or(0, |d| d.len() - 2));
}

/// A v2 operation with its `#/parameters/…` references resolved and its parameters by name.
fn resolved(op: &Value, parameters: &Value) -> Value {
    let mut op = op.clone();
    if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
        for p in params.iter_mut() {
            if let Some(r) = p["$ref"].as_str().and_then(|r| r.strip_prefix("#/parameters/")) {
                *p = parameters[r].clone();
            }
        }
        params.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
    for key in ["consumes", "produces"] {
        if let Some(list) = op.get_mut(key).and_then(Value::as_array_mut) {
            list.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        }
    }
    op
}

#[tokio::test]
async fn v2_custom_resource_paths_are_the_real_servers() {
    let sim = with_gizmos().await;
    let (_, ours) = sim.get_json("/openapi/v2").await;
    let real = recorded_v2();
    let mut compared = 0;
    for (path, item) in real["paths"].as_object().expect("paths") {
        if !(path.starts_with("/apis/example.com/") || path.starts_with("/apis/tools.example.org/")) {
            continue;
        }
        let mine = ours["paths"].get(path).unwrap_or_else(|| panic!("no {path}"));
        for (method, op) in item.as_object().into_iter().flatten() {
            // The parameters a path's operations share are a list, resolved as an operation's.
            let wrap = |v: &Value| if method == "parameters" { json!({"parameters": v}) } else { v.clone() };
            let (want, got) = (resolved(&wrap(op), &real["parameters"]), resolved(&wrap(&mine[method]), &Value::Null));
            assert_eq!(got, want, "{method} {path}");
            compared += 1;
        }
    }
    assert!(compared >= 30, "compared {compared} operations");
}

#[tokio::test]
async fn hashes_etags_and_negotiation_follow_kube_openapi() {
    let sim = Sim::start(&["--dataset", "empty"]);
    let index = sim.get("/openapi/v3").await;
    assert_eq!(index.headers()["cache-control"], "no-cache, private");
    let etag = index.headers()["etag"].to_str().expect("etag").to_string();
    let (_, index) = common::json_of(index).await;
    assert_eq!(etag.len(), 130, "a quoted SHA-512: {etag}");
    let url = index["paths"]["apis/networking.k8s.io/v1"]["serverRelativeURL"].as_str().expect("listed").to_string();
    let hash = url.split_once("?hash=").map(|(_, h)| h.to_string()).expect("hash");

    let current = sim.get(&url).await;
    assert_eq!(current.status().as_u16(), 200);
    assert_eq!(current.headers()["cache-control"], "public, immutable");
    assert!(current.headers().contains_key("expires"));
    assert_eq!(current.headers()["etag"], format!("\"{hash}\"").as_str());
    assert_eq!(current.headers()["vary"], "Accept");

    let plain = sim.get("/openapi/v3/apis/networking.k8s.io/v1").await;
    assert_eq!(plain.headers()["cache-control"], "no-cache, private");
    assert!(plain.headers().contains_key("last-modified"));

    let stale = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
        .get(sim.url("/openapi/v3/apis/networking.k8s.io/v1?hash=0123"))
        .send()
        .await
        .expect("request");
    assert_eq!(stale.status().as_u16(), 301);
    assert_eq!(stale.headers()["location"], url.as_str());

    let again =
        sim.client.get(sim.url(&url)).header("If-None-Match", format!("\"{hash}\"")).send().await.expect("request");
    assert_eq!(again.status().as_u16(), 304);

    let v3_protobuf = sim.get_with(&url, "application/com.github.proto-openapi.spec.v3.v1.0+protobuf").await;
    assert_eq!(v3_protobuf.status().as_u16(), 406);
    assert_eq!(sim.get("/openapi/v3/apis/nope.example/v1").await.status().as_u16(), 404);

    let v2 = sim.get_with("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf").await;
    assert_eq!(v2.status().as_u16(), 200);
    assert_eq!(v2.headers()["content-type"], "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    assert_eq!(sim.get_with("/openapi/v2", "application/yaml").await.status().as_u16(), 406);
}

/// gnostic's `openapi.v2.Document`, as much of it as the check reads.
mod gnostic {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Document {
        #[prost(string, tag = "1")]
        pub swagger: String,
        #[prost(message, optional, tag = "8")]
        pub paths: Option<Paths>,
        #[prost(message, optional, tag = "9")]
        pub definitions: Option<Definitions>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Paths {
        #[prost(message, repeated, tag = "2")]
        pub path: Vec<NamedPathItem>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedPathItem {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub value: Option<PathItem>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct PathItem {
        #[prost(message, optional, tag = "2")]
        pub get: Option<Operation>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Operation {
        #[prost(string, tag = "5")]
        pub operation_id: String,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Definitions {
        #[prost(message, repeated, tag = "1")]
        pub additional_properties: Vec<NamedSchema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedSchema {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub value: Option<Schema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Schema {
        #[prost(string, tag = "1")]
        pub r#ref: String,
        #[prost(string, tag = "4")]
        pub description: String,
        #[prost(string, repeated, tag = "19")]
        pub required: Vec<String>,
        #[prost(message, optional, tag = "22")]
        pub r#type: Option<TypeItem>,
        #[prost(message, optional, tag = "25")]
        pub properties: Option<Properties>,
        #[prost(message, repeated, tag = "31")]
        pub vendor_extension: Vec<NamedAny>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TypeItem {
        #[prost(string, repeated, tag = "1")]
        pub value: Vec<String>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Properties {
        #[prost(message, repeated, tag = "1")]
        pub additional_properties: Vec<NamedSchema>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedAny {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub value: Option<Any>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Any {
        #[prost(string, tag = "2")]
        pub yaml: String,
    }
}

#[tokio::test]
async fn the_v2_protobuf_decodes_to_the_json_document() {
    use prost::Message;
    let sim = Sim::start(&["--dataset", "empty"]);
    let (_, json) = sim.get_json("/openapi/v2").await;
    let bytes = sim
        .get_with("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
        .await
        .bytes()
        .await
        .expect("body");
    let doc = gnostic::Document::decode(&bytes[..]).expect("an openapi.v2.Document");
    assert_eq!(doc.swagger, "2.0");
    let defs = doc.definitions.expect("definitions").additional_properties;
    assert_eq!(defs.len(), json["definitions"].as_object().map_or(0, |d| d.len()));
    for named in &defs {
        let schema = named.value.clone().unwrap_or_default();
        let want = &json["definitions"][&named.name];
        assert_eq!(schema.description, want["description"].as_str().unwrap_or_default(), "{}", named.name);
        let types: Vec<String> = schema.r#type.map(|t| t.value).unwrap_or_default();
        assert_eq!(types, want["type"].as_str().map(|t| vec![t.to_string()]).unwrap_or_default(), "{}", named.name);
        let props: Vec<String> = schema
            .properties
            .map(|p| p.additional_properties.into_iter().map(|p| p.name).collect())
            .unwrap_or_default();
        let want_props: Vec<String> =
            want["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
        assert_eq!(props, want_props, "{}", named.name);
        assert_eq!(
            schema.required,
            want["required"]
                .as_array()
                .map(|r| r.iter().filter_map(|s| s.as_str().map(String::from)).collect::<Vec<_>>())
                .unwrap_or_default()
        );
        for ext in &schema.vendor_extension {
            let yaml: Value = serde_yaml::from_str(&ext.value.clone().unwrap_or_default().yaml).expect("YAML");
            assert_eq!(&yaml, &want[&ext.name], "{} {}", named.name, ext.name);
        }
    }
    let paths = doc.paths.expect("paths").path;
    assert_eq!(paths.len(), json["paths"].as_object().map_or(0, |p| p.len()));
    let deployments =
        paths.iter().find(|p| p.name == "/apis/apps/v1/namespaces/{namespace}/deployments").expect("deployments");
    assert_eq!(
        deployments.value.clone().and_then(|v| v.get).map(|o| o.operation_id).as_deref(),
        Some("listAppsV1NamespacedDeployment")
    );
}
