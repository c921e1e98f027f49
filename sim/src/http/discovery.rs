//! Discovery documents generated from the registry: `/version`, `/api`, `/api/v1`, `/apis`,
//! `/apis/GROUP`, `/apis/GROUP/VERSION`, the aggregated `APIGroupDiscoveryList` (v2 only, as
//! kube-apiserver 1.36: an Accept that asks for v2beta1 gets its fallback, with Etag and
//! `If-None-Match`). The OpenAPI documents are `openapi`'s.

use serde_json::{json, Map, Value};

use crate::store::registry::{Group, GroupVersion, Registry, ResourceType};
use kube_wire::media_type::Essence;

pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "36",
        "emulationMajor": "1",
        "emulationMinor": "36",
        "minCompatibilityMajor": "1",
        "minCompatibilityMinor": "35",
        "gitVersion": "v1.36.3-kube-sim",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-11-22T00:00:00Z",
        "goVersion": "go1.27.3",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// How a discovery request wants its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryFormat {
    Legacy,
    /// The aggregated document of this version, in JSON or (`protobuf`) as a k8s-pb
    /// `APIGroupDiscoveryList` (real-apiserver 04e).
    Aggregated {
        version: &'static str,
        protobuf: bool,
    },
}

/// Which discovery documents a server has (`--legacy-discovery-only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// Aggregated discovery for an Accept that asks for it, else legacy (1.26 and later).
    AggregatedAndLegacy,
    /// Legacy discovery only, as before 1.26 or with the AggregatedDiscoveryEndpoint gate off:
    /// the legacy handlers negotiate with the default endpoint restrictions, which refuse any
    /// conversion (`as=`, `g=`, `v=`), so an `as=APIGroupDiscoveryList` range is skipped like one
    /// the server cannot produce: the next range answers (`application/json`: the legacy
    /// document), or 406 when none is left (kubernetes `apiserver/pkg/endpoints/discovery/
    /// aggregated/wrapper.go`, `discovery/unaggregated/root.go` and `legacy.go`,
    /// `handlers/negotiation/negotiate.go` `emptyEndpointRestrictions`).
    LegacyOnly,
}

impl Served {
    /// What `--legacy-discovery-only` says.
    pub fn given(legacy_discovery_only: bool) -> Served {
        if legacy_discovery_only {
            Served::LegacyOnly
        } else {
            Served::AggregatedAndLegacy
        }
    }
}

/// `None` means 406: nothing listed that discovery can serve (CBOR is not, nor protobuf but for
/// the aggregated document, nor the aggregated document when only legacy is `served`).
pub fn discovery_format(accept: Option<&str>, served: Served) -> Option<DiscoveryFormat> {
    let Some(header) = accept.filter(|h| !h.trim().is_empty()) else {
        return Some(DiscoveryFormat::Legacy);
    };
    crate::encoding::negotiate::ranges(header).iter().find_map(|m| {
        let (json_like, protobuf) = match &m.essence {
            Essence::Json | Essence::Any => (true, false),
            Essence::Other(other) => (other == "application/*", false),
            Essence::Protobuf => (false, true),
            _ => (false, false),
        };
        match (json_like || protobuf, &m.conversion) {
            (true, None) if json_like => Some(DiscoveryFormat::Legacy),
            (true, Some(c))
                if served == Served::AggregatedAndLegacy
                    && c.kind == "APIGroupDiscoveryList"
                    && c.group == "apidiscovery.k8s.io" =>
            {
                match c.version.as_str() {
                    "v2" => Some(DiscoveryFormat::Aggregated { version: "v2", protobuf }),
                    // 1.36 no longer serves v2beta1 (recorded: 03-discovery-apis-aggregated-v2beta1).
                    _ => None,
                }
            }
            _ => None,
        }
    })
}

pub fn api_versions(host: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]
    })
}

fn gv_ref(group: &str, version: &str) -> Value {
    json!({"groupVersion": format!("{group}/{version}"), "version": version})
}

pub fn api_group(group: &Group) -> Value {
    json!({
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group.name,
        "versions": group.versions.iter().map(|v| gv_ref(&group.name, &v.version)).collect::<Vec<_>>(),
        "preferredVersion": gv_ref(&group.name, &group.versions[0].version),
    })
}

pub fn api_group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = registry
        .groups()
        .iter()
        .filter(|g| !g.name.is_empty())
        .map(|g| {
            let mut v = api_group(g);
            if let Some(m) = v.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
            }
            v
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

pub fn resource_list(group: &str, gv: &GroupVersion) -> Value {
    let group_version = if group.is_empty() { gv.version.clone() } else { format!("{group}/{}", gv.version) };
    let mut resources = Vec::new();
    for r in &gv.resources {
        let mut entry = Map::new();
        entry.insert("name".into(), json!(r.plural));
        entry.insert("singularName".into(), json!(r.singular));
        entry.insert("namespaced".into(), json!(r.namespaced));
        entry.insert("kind".into(), json!(r.kind));
        entry.insert("verbs".into(), json!(r.verbs));
        if !r.short_names.is_empty() {
            entry.insert("shortNames".into(), json!(r.short_names));
        }
        if !r.categories.is_empty() {
            entry.insert("categories".into(), json!(r.categories));
        }
        if let Some(h) = &r.storage_version_hash {
            entry.insert("storageVersionHash".into(), json!(h));
        }
        resources.push(Value::Object(entry));
        for s in &r.subresources {
            let mut sub = Map::new();
            sub.insert("name".into(), json!(format!("{}/{}", r.plural, s.name)));
            sub.insert("singularName".into(), json!(""));
            sub.insert("namespaced".into(), json!(r.namespaced));
            if !s.group.is_empty() {
                sub.insert("group".into(), json!(s.group));
            }
            if !s.version.is_empty() {
                sub.insert("version".into(), json!(s.version));
            }
            sub.insert("kind".into(), json!(s.kind));
            sub.insert("verbs".into(), json!(s.verbs));
            resources.push(Value::Object(sub));
        }
    }
    let mut doc = Map::new();
    doc.insert("kind".into(), json!("APIResourceList"));
    if !group.is_empty() {
        doc.insert("apiVersion".into(), json!("v1"));
    }
    doc.insert("groupVersion".into(), json!(group_version));
    doc.insert("resources".into(), Value::Array(resources));
    Value::Object(doc)
}

fn aggregated_resource(r: &ResourceType) -> Value {
    let mut m = Map::new();
    m.insert("resource".into(), json!(r.plural));
    m.insert("responseKind".into(), json!({"group": "", "version": "", "kind": r.kind}));
    m.insert("scope".into(), json!(if r.namespaced { "Namespaced" } else { "Cluster" }));
    m.insert("singularResource".into(), json!(r.singular));
    m.insert("verbs".into(), json!(r.verbs));
    if !r.short_names.is_empty() {
        m.insert("shortNames".into(), json!(r.short_names));
    }
    if !r.categories.is_empty() {
        m.insert("categories".into(), json!(r.categories));
    }
    if !r.subresources.is_empty() {
        let subs: Vec<Value> = r
            .subresources
            .iter()
            .map(|s| {
                json!({
                    "subresource": s.name,
                    "responseKind": {"group": s.group, "version": s.version, "kind": s.kind},
                    "verbs": s.verbs,
                })
            })
            .collect();
        m.insert("subresources".into(), Value::Array(subs));
    }
    Value::Object(m)
}

/// The aggregated document for `/api` (core only) or `/apis` (every named group).
pub fn aggregated(registry: &Registry, core: bool, version: &str) -> Value {
    let items: Vec<Value> = registry
        .groups()
        .iter()
        .filter(|g| g.name.is_empty() == core)
        .map(|g| {
            let mut meta = Map::new();
            if !g.name.is_empty() {
                meta.insert("name".into(), json!(g.name));
            }
            json!({
                "metadata": meta,
                "versions": g.versions.iter().map(|v| json!({
                    "version": v.version,
                    "resources": v.resources.iter().map(|r| aggregated_resource(r)).collect::<Vec<_>>(),
                    "freshness": v.freshness,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

pub fn aggregated_content_type(version: &str, protobuf: bool) -> String {
    let essence = if protobuf { "application/vnd.kubernetes.protobuf" } else { "application/json" };
    format!("{essence};g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList")
}

/// A strong Etag for a body: 64-bit FNV-1a in upper-case hex, quoted.
pub fn etag(body: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in body {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("\"{h:016X}\"")
}
