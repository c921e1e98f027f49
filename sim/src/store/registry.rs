//! The resource types kube-sim serves, read from the vendored discovery documents (core v1 and
//! the aggregated groups) plus the demo CustomResourceDefinition. Storage is generic, so every
//! listed type can be listed, watched and written; the verbs in discovery decide what is allowed.

use std::collections::HashMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde_json::Value;

const CORE_V1: &str = include_str!("../../data/core-v1-resources.json");
const AGGREGATED: &str = include_str!("../../data/aggregated-v2.json");
pub const WIDGETS_CRD: &str = include_str!("../../data/widgets-crd.json");

/// One served resource type in one group version, such as `apps/v1 deployments`.
#[derive(Debug, Clone)]
pub struct ResourceType {
    pub group: String,
    pub version: String,
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub verbs: Vec<String>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub subresources: Vec<Subresource>,
    pub storage_version_hash: Option<String>,
    /// Present for custom resources: the printer columns and the structural schema.
    pub custom: Option<CustomInfo>,
}

#[derive(Debug, Clone)]
pub struct Subresource {
    pub name: String,
    pub kind: String,
    pub group: String,
    pub version: String,
    pub verbs: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct CustomInfo {
    pub printer_columns: Vec<Value>,
    pub schema: Value,
    pub selectable_fields: Vec<String>,
    /// The `Warning` a deprecated version adds to every response.
    pub deprecation_warning: Option<String>,
}

impl ResourceType {
    /// Key under which objects of this type are stored, shared by all versions of the group
    /// (and, for `events.k8s.io` Events, with the core Events: `rules::events`).
    pub fn storage_key(&self) -> String {
        if crate::rules::events::is_events_group(&self.group, &self.plural) {
            return crate::rules::events::STORAGE_KEY.to_string();
        }
        format!("{}/{}", self.group, self.plural)
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `widgets.example.com` or `pods`, as used in Status messages.
    pub fn qualified_name(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    pub fn allows(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    pub fn subresource(&self, name: &str) -> Option<&Subresource> {
        self.subresources.iter().find(|s| s.name == name)
    }

    pub fn is_custom(&self) -> bool {
        self.custom.is_some()
    }

    /// Whether this type's objects have a protobuf message (built-in types of the stable groups).
    pub fn protobuf(&self) -> crate::encoding::negotiate::Protobuf {
        if !self.is_custom() && crate::encoding::protobuf::has_message(&self.api_version(), &self.kind) {
            crate::encoding::negotiate::Protobuf::Encodes
        } else {
            crate::encoding::negotiate::Protobuf::NoMessage
        }
    }
}

/// A group with its versions in order of preference.
#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub versions: Vec<GroupVersion>,
}

#[derive(Debug, Clone)]
pub struct GroupVersion {
    pub version: String,
    pub freshness: String,
    pub resources: Vec<Arc<ResourceType>>,
}

/// Every served group (the core group has the empty name). Custom resource types come and go
/// as CustomResourceDefinitions are created and deleted, so the tables sit behind a lock that is
/// only held for a lookup (never across the store's lock being taken).
#[derive(Debug)]
pub struct Registry {
    inner: RwLock<Tables>,
}

#[derive(Debug)]
struct Tables {
    groups: Vec<Group>,
    by_path: HashMap<(String, String, String), Arc<ResourceType>>,
    /// (group, plural) of a custom type served by a CRD written through the API -> the first
    /// resourceVersion its watch history holds.
    served_since: HashMap<(String, String), u64>,
}

impl Tables {
    fn reindex(&mut self) {
        self.by_path.clear();
        for group in &self.groups {
            for gv in &group.versions {
                for rt in &gv.resources {
                    self.by_path.insert((group.name.clone(), gv.version.clone(), rt.plural.clone()), rt.clone());
                }
            }
        }
    }
}

impl Registry {
    /// Builds the registry from the embedded documents; they are part of the binary, so a failure
    /// here is a build defect and reported as such.
    pub fn load() -> Result<Registry, String> {
        let core: Value = serde_json::from_str(CORE_V1).map_err(|e| format!("core-v1-resources.json: {e}"))?;
        let aggregated: Value = serde_json::from_str(AGGREGATED).map_err(|e| format!("aggregated-v2.json: {e}"))?;
        let crd: Value = serde_json::from_str(WIDGETS_CRD).map_err(|e| format!("widgets-crd.json: {e}"))?;
        let mut groups = vec![core_group(&core)];
        for item in aggregated["items"].as_array().into_iter().flatten() {
            groups.push(aggregated_group(item));
        }
        let mut tables = Tables { groups, by_path: HashMap::new(), served_since: HashMap::new() };
        add_custom_group(&mut tables.groups, crd_group(&crd)?);
        tables.reindex();
        Ok(Registry { inner: RwLock::new(tables) })
    }

    /// Serves `metrics.k8s.io/v1beta1` as kube-aggregator lists metrics-server's APIService in
    /// discovery: NodeMetrics (`nodes`, cluster-scoped) and PodMetrics (`pods`), `get` and `list`,
    /// no singular names (metrics-server v0.8's `GetSingularName` is empty). Its objects are
    /// made when read (`http::metrics`), never stored.
    pub fn serve_metrics(&self) {
        let resource = |plural: &str, kind: &str, scope: &str| {
            serde_json::json!({"resource": plural, "responseKind": {"group": "", "version": "", "kind": kind},
                "scope": scope, "singularResource": "", "verbs": ["get", "list"]})
        };
        let item = serde_json::json!({"metadata": {"name": "metrics.k8s.io"}, "versions": [{"version": "v1beta1",
            "freshness": "Current", "resources": [resource("nodes", "NodeMetrics", "Cluster"),
                resource("pods", "PodMetrics", "Namespaced")]}]});
        let mut t = self.write();
        t.groups.retain(|g| g.name != "metrics.k8s.io");
        t.groups.push(aggregated_group(&item));
        t.reindex();
    }

    fn read(&self) -> RwLockReadGuard<'_, Tables> {
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Tables> {
        self.inner.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Serves the types of a CustomResourceDefinition (replacing an earlier definition).
    pub fn add_custom(&self, crd: &Value) -> Result<(), String> {
        let group = crd_group(crd)?;
        let mut t = self.write();
        let plural = text(&crd["spec"]["names"]["plural"]);
        remove_custom_type(&mut t.groups, &group.name, &plural);
        add_custom_group(&mut t.groups, group);
        t.reindex();
        Ok(())
    }

    /// Stops serving a custom resource type.
    pub fn remove_custom(&self, group: &str, plural: &str) {
        let mut t = self.write();
        t.served_since.remove(&(group.to_string(), plural.to_string()));
        remove_custom_type(&mut t.groups, group, plural);
        t.reindex();
    }

    /// Records where a newly served custom type's watch history begins (kept while it is served).
    pub fn serve_since(&self, group: &str, plural: &str, rv: u64) {
        self.write().served_since.entry((group.to_string(), plural.to_string())).or_insert(rv);
    }

    /// The first resourceVersion a custom type's watch can start from, if it began to be served
    /// after start-up: a watch from before it is too old, as on kube-apiserver, whose watch cache
    /// for the type starts once the CRD is established.
    pub fn served_since(&self, group: &str, plural: &str) -> Option<u64> {
        self.read().served_since.get(&(group.to_string(), plural.to_string())).copied()
    }

    pub fn groups(&self) -> Vec<Group> {
        self.read().groups.clone()
    }

    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceType>> {
        self.read().by_path.get(&(group.to_string(), version.to_string(), plural.to_string())).cloned()
    }

    pub fn group(&self, name: &str) -> Option<Group> {
        self.read().groups.iter().find(|g| g.name == name).cloned()
    }

    pub fn group_version(&self, group: &str, version: &str) -> Option<GroupVersion> {
        self.group(group)?.versions.into_iter().find(|v| v.version == version)
    }

    /// The preferred version's type for a storage key, used by the dataset and garbage collection.
    pub fn by_storage_key(&self, key: &str) -> Option<Arc<ResourceType>> {
        let (group, plural) = key.split_once('/')?;
        let t = self.read();
        let g = t.groups.iter().find(|g| g.name == group)?;
        g.versions.iter().find_map(|v| v.resources.iter().find(|r| r.plural == plural).cloned())
    }

    /// All storage keys of namespaced types, for namespace deletion (not the metrics, which are
    /// not stored).
    pub fn namespaced_storage_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .read()
            .by_path
            .values()
            .filter(|r| r.namespaced && r.group != "metrics.k8s.io")
            .map(|r| r.storage_key())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// Adds a CRD's group, or its versions and type to the group already served.
fn add_custom_group(groups: &mut Vec<Group>, group: Group) {
    match groups.iter_mut().find(|g| g.name == group.name) {
        None => groups.push(group),
        Some(existing) => {
            for v in group.versions {
                match existing.versions.iter_mut().find(|e| e.version == v.version) {
                    Some(e) => e.resources.extend(v.resources),
                    None => existing.versions.push(v),
                }
            }
        }
    }
}

fn remove_custom_type(groups: &mut Vec<Group>, group: &str, plural: &str) {
    for g in groups.iter_mut().filter(|g| g.name == group) {
        for v in g.versions.iter_mut() {
            v.resources.retain(|r| !(r.is_custom() && r.plural == plural));
        }
        g.versions.retain(|v| !v.resources.is_empty());
    }
    groups.retain(|g| !g.versions.is_empty());
}

/// Whether a CustomResourceDefinition can be served.
pub fn check_crd(crd: &Value) -> Result<(), String> {
    crd_group(crd).map(|_| ())
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn core_group(doc: &Value) -> Group {
    let entries = doc["resources"].as_array().cloned().unwrap_or_default();
    let mut resources: Vec<ResourceType> = Vec::new();
    for e in entries.iter().filter(|e| !text(&e["name"]).contains('/')) {
        resources.push(ResourceType {
            group: String::new(),
            version: "v1".into(),
            plural: text(&e["name"]),
            singular: text(&e["singularName"]),
            kind: text(&e["kind"]),
            namespaced: e["namespaced"].as_bool().unwrap_or(false),
            verbs: strings(&e["verbs"]),
            short_names: strings(&e["shortNames"]),
            categories: strings(&e["categories"]),
            subresources: Vec::new(),
            storage_version_hash: e["storageVersionHash"].as_str().map(str::to_string),
            custom: None,
        });
    }
    for e in entries.iter() {
        let name = text(&e["name"]);
        if let Some((parent, sub)) = name.split_once('/') {
            if let Some(rt) = resources.iter_mut().find(|r| r.plural == parent) {
                rt.subresources.push(Subresource {
                    name: sub.to_string(),
                    kind: text(&e["kind"]),
                    group: text(&e["group"]),
                    version: text(&e["version"]),
                    verbs: strings(&e["verbs"]),
                });
            }
        }
    }
    Group {
        name: String::new(),
        versions: vec![GroupVersion {
            version: "v1".into(),
            freshness: "Current".into(),
            resources: resources.into_iter().map(Arc::new).collect(),
        }],
    }
}

fn aggregated_group(item: &Value) -> Group {
    let name = text(&item["metadata"]["name"]);
    let versions = item["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            let version = text(&v["version"]);
            let resources = v["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    Arc::new(ResourceType {
                        group: name.clone(),
                        version: version.clone(),
                        plural: text(&r["resource"]),
                        singular: text(&r["singularResource"]),
                        kind: text(&r["responseKind"]["kind"]),
                        namespaced: r["scope"] == "Namespaced",
                        verbs: strings(&r["verbs"]),
                        short_names: strings(&r["shortNames"]),
                        categories: strings(&r["categories"]),
                        subresources: r["subresources"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|s| Subresource {
                                name: text(&s["subresource"]),
                                kind: text(&s["responseKind"]["kind"]),
                                group: text(&s["responseKind"]["group"]),
                                version: text(&s["responseKind"]["version"]),
                                verbs: strings(&s["verbs"]),
                            })
                            .collect(),
                        storage_version_hash: None,
                        custom: None,
                    })
                })
                .collect();
            GroupVersion { version, freshness: v["freshness"].as_str().unwrap_or("Current").to_string(), resources }
        })
        .collect();
    Group { name, versions }
}

fn crd_group(crd: &Value) -> Result<Group, String> {
    let spec = &crd["spec"];
    let names = &spec["names"];
    let group = text(&spec["group"]);
    let mut versions = Vec::new();
    for v in spec["versions"].as_array().into_iter().flatten().filter(|v| v["served"] != false) {
        let version = text(&v["name"]);
        let kind = text(&names["kind"]);
        let mut subresources = Vec::new();
        if v["subresources"].get("status").is_some() {
            subresources.push(Subresource {
                name: "status".into(),
                kind: kind.clone(),
                group: String::new(),
                version: String::new(),
                verbs: vec!["get".into(), "patch".into(), "update".into()],
            });
        }
        if v["subresources"].get("scale").is_some() {
            subresources.push(Subresource {
                name: "scale".into(),
                kind: "Scale".into(),
                group: "autoscaling".into(),
                version: "v1".into(),
                verbs: vec!["get".into(), "patch".into(), "update".into()],
            });
        }
        versions.push(GroupVersion {
            version: version.clone(),
            freshness: "Current".into(),
            resources: vec![Arc::new(ResourceType {
                group: group.clone(),
                version,
                plural: text(&names["plural"]),
                singular: text(&names["singular"]),
                kind,
                namespaced: spec["scope"] == "Namespaced",
                verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                short_names: strings(&names["shortNames"]),
                categories: strings(&names["categories"]),
                subresources,
                storage_version_hash: None,
                custom: Some(CustomInfo {
                    printer_columns: v["additionalPrinterColumns"].as_array().cloned().unwrap_or_default(),
                    schema: v["schema"]["openAPIV3Schema"].clone(),
                    selectable_fields: v["selectableFields"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|f| f["jsonPath"].as_str())
                        .map(|p| p.trim_start_matches('.').to_string())
                        .collect(),
                    deprecation_warning: (v["deprecated"] == true).then(|| {
                        v["deprecationWarning"].as_str().map(str::to_string).unwrap_or_else(|| {
                            format!("{group}/{} {} is deprecated", text(&v["name"]), text(&names["kind"]))
                        })
                    }),
                }),
            })],
        });
    }
    if versions.is_empty() || group.is_empty() || text(&names["plural"]).is_empty() || text(&names["kind"]).is_empty() {
        return Err(
            "a CustomResourceDefinition needs spec.group, spec.names.plural, spec.names.kind and a served version"
                .into(),
        );
    }
    Ok(Group { name: group, versions })
}
