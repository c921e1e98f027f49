//! Discovery: what API groups, versions and resource types a server offers.
//!
//! Two sources feed one model, [`Discovery`]:
//! - the aggregated document (`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`
//!   on `/api` and `/apis`), one request per endpoint;
//! - the legacy documents (`/api` → `APIVersions`, `/apis` → `APIGroupList`, then one
//!   `APIResourceList` per group-version), used when a server does not serve the aggregated form.
//!
//! The legacy documents are `k8s-openapi` types; the aggregated document has no type there and is
//! modelled here. Groups keep the server's order (the server lists the preferred version first).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIResourceList, APIVersions};
use serde::Deserialize;

pub use k8s_openapi::apimachinery::pkg::version::Info as ServerVersion;

/// The `Accept` header that asks `/api` and `/apis` for aggregated discovery, with the legacy
/// documents as the fallback a server without aggregated discovery answers with.
pub const AGGREGATED_DISCOVERY_ACCEPT: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/// Whether a resource type lives in a namespace or at cluster scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// A subresource of a resource type, such as `status`, `scale` or `log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subresource {
    pub name: String,
    pub kind: String,
    pub verbs: Vec<String>,
}

/// One resource type of one group-version, as discovery describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceType {
    /// The group, empty for the core group.
    pub group: String,
    pub version: String,
    /// The plural name used in URLs, e.g. `pods`.
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub scope: Scope,
    pub verbs: Vec<String>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub subresources: Vec<Subresource>,
}

impl ResourceType {
    /// `group/version`, or just `version` for the core group, as in `apiVersion`.
    pub fn api_version(&self) -> String {
        group_version(&self.group, &self.version)
    }

    /// Whether objects of this type live in a namespace.
    pub fn is_namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }

    /// The namespace a request for this type is scoped to, given the one a view or a person
    /// chose: that namespace for a namespaced type, none for a cluster-scoped one. The scope
    /// rule, in one place: every request for a type chosen beside a namespace goes through it.
    pub fn scoped<'a>(&self, namespace: Option<&'a str>) -> Option<&'a str> {
        namespace.filter(|_| self.is_namespaced())
    }

    /// Whether the server allows `verb` (`get`, `list`, `watch`, `patch`, ...) on this type.
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// Whether `query` (case-insensitive) names this type by plural, singular, kind or short name,
    /// or is a prefix of one of them, as a filter box expects (`po`, `deploy`, `Config`).
    pub fn matches(&self, query: &str) -> bool {
        let query = query.trim().to_ascii_lowercase();
        if query.is_empty() {
            return true;
        }
        [&self.plural, &self.singular, &self.kind]
            .into_iter()
            .chain(self.short_names.iter())
            .any(|name| name.to_ascii_lowercase().starts_with(&query))
    }
}

/// One version of a group with its resource types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupVersionResources {
    pub version: String,
    pub resources: Vec<ResourceType>,
}

/// One API group (the core group has the empty name) with its versions, preferred first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiGroup {
    pub name: String,
    pub versions: Vec<GroupVersionResources>,
}

impl ApiGroup {
    /// The name a person reads: `core` for the unnamed legacy group.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            "core"
        } else {
            &self.name
        }
    }

    /// The preferred version (servers list it first).
    pub fn preferred_version(&self) -> Option<&str> {
        self.versions.first().map(|v| v.version.as_str())
    }
}

/// Everything discovery said about a server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    pub groups: Vec<ApiGroup>,
}

impl Discovery {
    /// Builds the model from aggregated documents (`/api` then `/apis`), in that order.
    pub fn from_aggregated(documents: &[ApiGroupDiscoveryList]) -> Self {
        let groups = documents
            .iter()
            .flat_map(|list| list.items.iter())
            .map(|group| ApiGroup {
                name: group.metadata.name.clone().unwrap_or_default(),
                versions: group
                    .versions
                    .iter()
                    .map(|v| GroupVersionResources {
                        version: v.version.clone(),
                        resources: v
                            .resources
                            .iter()
                            .map(|r| r.to_resource_type(group.metadata.name.as_deref().unwrap_or(""), &v.version))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Discovery { groups }
    }

    /// Builds the model from the legacy documents: `/api`, `/apis`, and the `APIResourceList` of
    /// each group-version that could be fetched. Group-versions without a list keep no resources.
    pub fn from_legacy(core: &APIVersions, groups: &APIGroupList, resource_lists: &[APIResourceList]) -> Self {
        let resources_of = |group_version: &str| -> Vec<ResourceType> {
            resource_lists
                .iter()
                .find(|list| list.group_version == group_version)
                .map(legacy_resources)
                .unwrap_or_default()
        };
        let core_group = ApiGroup {
            name: String::new(),
            versions: core
                .versions
                .iter()
                .map(|version| GroupVersionResources { version: version.clone(), resources: resources_of(version) })
                .collect(),
        };
        let named = groups.groups.iter().map(|group| {
            let preferred = group.preferred_version.as_ref().map(|p| p.version.as_str());
            let mut versions: Vec<_> = group
                .versions
                .iter()
                .map(|v| GroupVersionResources {
                    version: v.version.clone(),
                    resources: resources_of(&v.group_version),
                })
                .collect();
            // Preferred first, the rest in the server's order.
            versions.sort_by_key(|v| Some(v.version.as_str()) != preferred);
            ApiGroup { name: group.name.clone(), versions }
        });
        let groups = std::iter::once(core_group).filter(|g| !g.versions.is_empty()).chain(named).collect();
        Discovery { groups }
    }

    /// Every resource type of every group's preferred version, subresources excluded.
    pub fn preferred_resources(&self) -> impl Iterator<Item = &ResourceType> {
        self.groups.iter().filter_map(|g| g.versions.first()).flat_map(|v| v.resources.iter())
    }

    /// Every resource type once, as `kubectl api-resources` lists them: from its group's
    /// preferred version, or, for a type that version does not serve (a `v1beta1`-only
    /// `leasecandidates` beside `v1` `leases`), from the first other version that does.
    /// Subresources excluded.
    pub fn every_type(&self) -> impl Iterator<Item = &ResourceType> {
        self.groups.iter().flat_map(|group| {
            let mut seen = std::collections::HashSet::new();
            group.versions.iter().flat_map(|v| &v.resources).filter(move |r| seen.insert(r.plural.as_str()))
        })
    }

    /// The resource type served at `group`, `version` and `plural`, in whichever version of
    /// the group serves it.
    pub fn find_resource(&self, group: &str, version: &str, plural: &str) -> Option<&ResourceType> {
        self.groups
            .iter()
            .flat_map(|g| &g.versions)
            .flat_map(|v| &v.resources)
            .find(|r| r.group == group && r.version == version && r.plural == plural)
    }

    /// The resource type of objects of `kind` in `api_version` (`apps/v1`, `v1`), as an owner
    /// reference or an `involvedObject` names them.
    pub fn find_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceType> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.groups
            .iter()
            .filter(|g| g.name == group)
            .flat_map(|g| &g.versions)
            .filter(|v| v.version == version)
            .flat_map(|v| &v.resources)
            .find(|r| r.kind == kind)
    }

    /// The total number of resource types over all groups and versions.
    pub fn resource_count(&self) -> usize {
        self.groups.iter().flat_map(|g| &g.versions).map(|v| v.resources.len()).sum()
    }
}

/// `group/version`, or `version` alone for the core group.
pub fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// The URL path of a group-version's `APIResourceList`: `/api/v1` or `/apis/GROUP/VERSION`.
pub fn group_version_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

fn legacy_resources(list: &APIResourceList) -> Vec<ResourceType> {
    let (group, version) = match list.group_version.split_once('/') {
        Some((g, v)) => (g.to_owned(), v.to_owned()),
        None => (String::new(), list.group_version.clone()),
    };
    let mut types: Vec<ResourceType> = Vec::new();
    for r in &list.resources {
        if let Some((parent, sub)) = r.name.split_once('/') {
            if let Some(owner) = types.iter_mut().find(|t| t.plural == parent) {
                owner.subresources.push(Subresource {
                    name: sub.to_owned(),
                    kind: r.kind.clone(),
                    verbs: r.verbs.clone(),
                });
            }
            continue;
        }
        types.push(ResourceType {
            group: r.group.clone().unwrap_or_else(|| group.clone()),
            version: r.version.clone().unwrap_or_else(|| version.clone()),
            plural: r.name.clone(),
            singular: if r.singular_name.is_empty() { r.kind.to_ascii_lowercase() } else { r.singular_name.clone() },
            kind: r.kind.clone(),
            scope: if r.namespaced { Scope::Namespaced } else { Scope::Cluster },
            verbs: r.verbs.clone(),
            short_names: r.short_names.clone().unwrap_or_default(),
            categories: r.categories.clone().unwrap_or_default(),
            subresources: Vec::new(),
        });
    }
    types
}

/// `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`: the aggregated discovery document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ApiGroupDiscoveryList {
    #[serde(default)]
    pub items: Vec<ApiGroupDiscovery>,
}

/// One group of the aggregated document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ApiGroupDiscovery {
    #[serde(default)]
    pub metadata: DiscoveryMeta,
    #[serde(default)]
    pub versions: Vec<ApiVersionDiscovery>,
}

/// The metadata of an aggregated group: only the name is meaningful.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct DiscoveryMeta {
    pub name: Option<String>,
}

/// One version of a group in the aggregated document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ApiVersionDiscovery {
    pub version: String,
    #[serde(default)]
    pub resources: Vec<ApiResourceDiscovery>,
    /// `Current` or `Stale` (an aggregated API server that could not be reached).
    pub freshness: Option<String>,
}

/// The kind a resource or subresource answers with.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct ResponseKind {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
}

/// One resource type in the aggregated document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ApiResourceDiscovery {
    pub resource: String,
    #[serde(default)]
    pub response_kind: ResponseKind,
    pub scope: String,
    #[serde(default)]
    pub singular_resource: String,
    #[serde(default)]
    pub verbs: Vec<String>,
    #[serde(default)]
    pub short_names: Vec<String>,
    #[serde(default)]
    pub categories: Vec<String>,
    #[serde(default)]
    pub subresources: Vec<ApiSubresourceDiscovery>,
}

/// One subresource in the aggregated document.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ApiSubresourceDiscovery {
    pub subresource: String,
    #[serde(default)]
    pub response_kind: ResponseKind,
    #[serde(default)]
    pub verbs: Vec<String>,
}

impl ApiResourceDiscovery {
    fn to_resource_type(&self, group: &str, version: &str) -> ResourceType {
        ResourceType {
            group: group.to_owned(),
            version: version.to_owned(),
            plural: self.resource.clone(),
            singular: if self.singular_resource.is_empty() {
                self.response_kind.kind.to_ascii_lowercase()
            } else {
                self.singular_resource.clone()
            },
            kind: self.response_kind.kind.clone(),
            scope: if self.scope == "Cluster" { Scope::Cluster } else { Scope::Namespaced },
            verbs: self.verbs.clone(),
            short_names: self.short_names.clone(),
            categories: self.categories.clone(),
            subresources: self
                .subresources
                .iter()
                .map(|s| Subresource {
                    name: s.subresource.clone(),
                    kind: s.response_kind.kind.clone(),
                    verbs: s.verbs.clone(),
                })
                .collect(),
        }
    }
}

/// The kind field of a JSON document, to tell an aggregated answer from a legacy one on `/apis`.
pub fn document_kind(body: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct KindOnly {
        kind: Option<String>,
    }
    serde_json::from_slice::<KindOnly>(body).ok().and_then(|k| k.kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::shared_file;

    fn aggregated() -> Discovery {
        let apis: ApiGroupDiscoveryList = serde_json::from_slice(&shared_file("kube/discovery/aggregated_v2.json"))
            .expect("aggregated document decodes");
        Discovery::from_aggregated(&[apis])
    }

    #[test]
    fn a_namespace_scopes_only_namespaced_types() {
        let discovery = aggregated();
        let find = |plural: &str| {
            discovery
                .groups
                .iter()
                .flat_map(|g| &g.versions)
                .flat_map(|v| &v.resources)
                .find(|r| r.plural == plural)
                .cloned()
        };
        let (namespaced, cluster) =
            (find("deployments").expect("deployments"), find("apiservices").expect("apiservices"));
        assert!(namespaced.is_namespaced() && !cluster.is_namespaced());
        assert_eq!(namespaced.scoped(Some("demo")), Some("demo"));
        assert_eq!(namespaced.scoped(None), None);
        assert_eq!(cluster.scoped(Some("demo")), None);
    }

    #[test]
    fn aggregated_document_gives_groups_with_resources_and_subresources() {
        let discovery = aggregated();
        let apps = discovery.groups.iter().find(|g| g.name == "apps").expect("apps group");
        assert_eq!(apps.preferred_version(), Some("v1"));
        let deployments = apps.versions[0].resources.iter().find(|r| r.plural == "deployments").expect("deployments");
        assert_eq!(deployments.kind, "Deployment");
        assert_eq!(deployments.scope, Scope::Namespaced);
        assert_eq!(deployments.short_names, ["deploy"]);
        assert_eq!(deployments.api_version(), "apps/v1");
        let subs: Vec<_> = deployments.subresources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(subs, ["scale", "status"]);
        assert!(deployments.supports("watch"));
    }

    #[test]
    fn legacy_documents_give_the_same_apps_resources_as_aggregated() {
        let core: APIVersions = serde_json::from_slice(&shared_file("kube/discovery/api.json")).unwrap();
        let groups: APIGroupList = serde_json::from_slice(&shared_file("kube/discovery/apis.json")).unwrap();
        let core_v1: APIResourceList = serde_json::from_slice(&shared_file("kube/discovery/api__v1.json")).unwrap();
        let apps_v1: APIResourceList =
            serde_json::from_slice(&shared_file("kube/discovery/apis__apps__v1.json")).unwrap();
        let legacy = Discovery::from_legacy(&core, &groups, &[core_v1, apps_v1]);
        assert_eq!(legacy.groups[0].display_name(), "core");
        let pods = legacy.groups[0].versions[0].resources.iter().find(|r| r.plural == "pods").expect("pods");
        assert!(pods.subresources.iter().any(|s| s.name == "log"));

        let plural = |d: &Discovery| -> Vec<String> {
            let apps = d.groups.iter().find(|g| g.name == "apps").unwrap();
            apps.versions[0].resources.iter().map(|r| r.plural.clone()).collect()
        };
        assert_eq!(plural(&legacy), plural(&aggregated()));
    }

    #[test]
    fn every_type_is_taken_once_from_the_preferred_version_or_else_the_first_that_serves_it() {
        use crate::testdata::{discovery_of, resource_type};
        let discovery = discovery_of(vec![
            resource_type("coordination.k8s.io", "v1", "leases", Scope::Namespaced),
            resource_type("coordination.k8s.io", "v1beta1", "leasecandidates", Scope::Namespaced),
            resource_type("coordination.k8s.io", "v1beta1", "leases", Scope::Namespaced),
            resource_type("coordination.k8s.io", "v1alpha2", "leasecandidates", Scope::Namespaced),
            resource_type("example.com", "v1", "leases", Scope::Namespaced),
        ]);
        let types: Vec<String> = discovery.every_type().map(|r| format!("{}/{}", r.api_version(), r.plural)).collect();
        assert_eq!(
            types,
            ["coordination.k8s.io/v1/leases", "coordination.k8s.io/v1beta1/leasecandidates", "example.com/v1/leases"]
        );
        let real = aggregated();
        assert!(real.every_type().count() >= real.preferred_resources().count());
    }

    #[test]
    fn filter_matches_short_names_kinds_and_prefixes() {
        let discovery = aggregated();
        let names = |q: &str| -> Vec<String> {
            discovery.preferred_resources().filter(|r| r.matches(q)).map(|r| r.plural.clone()).collect()
        };
        // Short names that begin no plural, singular or kind: only the short name matches.
        assert_eq!(names("sts"), ["statefulsets"]);
        assert_eq!(names("HPA"), ["horizontalpodautoscalers"]);
        assert_eq!(names("netpol"), ["networkpolicies"]);
        assert!(names("deploy").contains(&"deployments".to_owned()));
        assert!(names("DaemonSet").contains(&"daemonsets".to_owned()));
        assert!(!names("deploy").contains(&"daemonsets".to_owned()));
        assert_eq!(names("nosuchtype"), Vec::<String>::new());
    }

    #[test]
    fn find_kind_resolves_owner_references() {
        let discovery = aggregated();
        let rs = discovery.find_kind("apps/v1", "ReplicaSet").expect("replicasets");
        assert_eq!((rs.group.as_str(), rs.plural.as_str()), ("apps", "replicasets"));
        assert_eq!(discovery.find_kind("batch/v1", "CronJob").map(|r| r.plural.as_str()), Some("cronjobs"));
        assert_eq!(discovery.find_kind("v1", "ReplicaSet"), None);
        assert_eq!(discovery.find_kind("batch/v1", "ReplicaSet"), None);
        assert_eq!(discovery.find_kind("apps/v9", "ReplicaSet"), None);
    }

    #[test]
    fn find_resource_finds_a_type_in_the_version_that_serves_it() {
        let discovery = aggregated();
        let rs = discovery.find_resource("apps", "v1", "replicasets").expect("replicasets");
        assert_eq!(rs.kind, "ReplicaSet");
        assert_eq!(discovery.find_resource("", "v1", "replicasets"), None);
        assert_eq!(discovery.find_resource("batch", "v1", "cronjobs").map(|r| r.kind.as_str()), Some("CronJob"));
        assert_eq!(discovery.find_resource("apps", "v9", "replicasets"), None);
    }

    #[test]
    fn group_version_paths_distinguish_the_core_group() {
        assert_eq!(group_version_path("", "v1"), "/api/v1");
        assert_eq!(group_version_path("apps", "v1"), "/apis/apps/v1");
        assert_eq!(group_version("", "v1"), "v1");
    }

    #[test]
    fn document_kind_tells_aggregated_from_legacy() {
        assert_eq!(document_kind(br#"{"kind":"APIGroupDiscoveryList"}"#).as_deref(), Some("APIGroupDiscoveryList"));
        assert_eq!(document_kind(b"not json"), None);
    }
}

/// What `/api` or `/apis` answered: the aggregated document, or a legacy one.
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoveryRoot<Legacy> {
    Aggregated(ApiGroupDiscoveryList),
    Legacy(Legacy),
}

/// Why a discovery document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    /// `detail` is serde_json's words.
    #[error("expected {expected} from {path}, got a body that is not one: {detail}")]
    NotADocument { path: String, expected: &'static str, detail: String },
}

/// Decodes the answer of `/api` or `/apis` to the aggregated-discovery `Accept`: the aggregated
/// list when the server has it, else the legacy document (`APIVersions` or `APIGroupList`).
pub fn decode_root<Legacy: serde::de::DeserializeOwned>(
    path: &str,
    body: &[u8],
) -> Result<DiscoveryRoot<Legacy>, DiscoveryError> {
    let not_a_document = |expected: &'static str, e: serde_json::Error| DiscoveryError::NotADocument {
        path: path.to_owned(),
        expected,
        detail: e.to_string(),
    };
    if document_kind(body).as_deref() == Some("APIGroupDiscoveryList") {
        serde_json::from_slice(body)
            .map(DiscoveryRoot::Aggregated)
            .map_err(|e| not_a_document("an APIGroupDiscoveryList", e))
    } else {
        serde_json::from_slice(body).map(DiscoveryRoot::Legacy).map_err(|e| not_a_document("a discovery document", e))
    }
}

/// Decodes a group-version's `APIResourceList`.
pub fn decode_resource_list(path: &str, body: &[u8]) -> Result<APIResourceList, DiscoveryError> {
    serde_json::from_slice(body).map_err(|e| DiscoveryError::NotADocument {
        path: path.to_owned(),
        expected: "an APIResourceList",
        detail: e.to_string(),
    })
}

#[cfg(test)]
mod root_tests {
    use super::*;
    use crate::testdata::shared_file;

    #[test]
    fn decode_root_recognises_the_aggregated_document() {
        let body = shared_file("kube/discovery/aggregated_v2.json");
        let root = decode_root::<APIGroupList>("/apis", &body).unwrap();
        assert!(matches!(root, DiscoveryRoot::Aggregated(list) if !list.items.is_empty()));
    }

    #[test]
    fn decode_root_falls_back_to_the_legacy_document() {
        let body = shared_file("kube/discovery/api.json");
        let root = decode_root::<APIVersions>("/api", &body).unwrap();
        assert!(matches!(root, DiscoveryRoot::Legacy(v) if v.versions == ["v1"]));
    }

    #[test]
    fn decode_errors_name_the_path_and_what_was_expected() {
        let error = decode_root::<APIVersions>("/api", b"<html>").unwrap_err();
        assert!(error.to_string().starts_with("expected a discovery document from /api"), "{error}");
        let error = decode_resource_list("/api/v1", b"[]").unwrap_err();
        assert!(error.to_string().contains("an APIResourceList"), "{error}");
    }
}
