//! The schema explorer's view of a [`SchemaTree`]: which fields show (a field shows when every
//! ancestor is open), which open for a deep link (`explain=spec.template.spec.containers` opens
//! the path down to it), the search by field name, path or words of the description, and the
//! versions of a kind that discovery serves, to compare.
//!
//! Invariants: a search answers fields in tree order, those whose name or path matches before
//! those matched by their description alone; every query word must match; results are capped
//! at [`MAX_RESULTS`] and the cap is reported, never hidden.

use std::collections::BTreeSet;

use kube_core::GroupVersionKind;

use kube_wire::discovery::{Discovery, ResourceType};
use kube_wire::explain::{parent_of, SchemaTree};

/// How many search results are listed.
pub const MAX_RESULTS: usize = 200;

/// The fields that show when the fields at `open` paths are expanded: the kind's own fields and
/// every field whose ancestors are all open, as indices into [`SchemaTree::fields`].
pub fn visible(tree: &SchemaTree, open: &BTreeSet<String>) -> Vec<usize> {
    tree.fields
        .iter()
        .enumerate()
        .filter(|(_, f)| ancestors(&f.path).iter().all(|a| open.contains(a)))
        .map(|(i, _)| i)
        .collect()
}

/// The paths of a field's ancestors, outermost first (`a.b.c` → `a`, `a.b`).
pub fn ancestors(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = parent_of(path);
    while !at.is_empty() {
        out.push(at.to_string());
        at = parent_of(at);
    }
    out.reverse();
    out
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchResult {
    /// Indices into [`SchemaTree::fields`], best first.
    pub fields: Vec<usize>,
    /// How many matched in all (more than listed when over [`MAX_RESULTS`]).
    pub total: usize,
}

/// The fields whose name or path, or else description, holds every word of `query`
/// (case-insensitive). An empty query finds nothing.
pub fn search(tree: &SchemaTree, query: &str) -> SearchResult {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    if words.is_empty() {
        return SearchResult::default();
    }
    let (mut by_name, mut by_description) = (Vec::new(), Vec::new());
    for (i, field) in tree.fields.iter().enumerate() {
        let path = field.path.to_lowercase();
        if words.iter().all(|w| path.contains(w.as_str())) {
            by_name.push(i);
            continue;
        }
        let description = field.description.to_lowercase();
        if words.iter().all(|w| path.contains(w.as_str()) || description.contains(w.as_str())) {
            by_description.push(i);
        }
    }
    let total = by_name.len() + by_description.len();
    let fields = by_name.into_iter().chain(by_description).take(MAX_RESULTS).collect();
    SearchResult { fields, total }
}

/// The kind a resource type serves.
pub fn kind_of(resource: &ResourceType) -> GroupVersionKind {
    GroupVersionKind { group: resource.group.clone(), version: resource.version.clone(), kind: resource.kind.clone() }
}

/// The versions of the resource type's group that serve the same plural, preferred first (the
/// discovery order): the versions a schema can be compared with.
pub fn versions_of(discovery: &Discovery, resource: &ResourceType) -> Vec<String> {
    discovery
        .groups
        .iter()
        .filter(|g| g.name == resource.group)
        .flat_map(|g| g.versions.iter())
        .filter(|v| v.resources.iter().any(|r| r.plural == resource.plural))
        .map(|v| v.version.clone())
        .collect()
}

/// The served kinds, one per resource type (subresources aside), sorted by kind then group and
/// version: what the explorer's kind picker lists.
pub fn served_kinds(discovery: &Discovery) -> Vec<ResourceType> {
    let mut kinds: Vec<ResourceType> =
        discovery.groups.iter().flat_map(|g| g.versions.iter()).flat_map(|v| v.resources.iter()).cloned().collect();
    kinds.sort_by(|a, b| (&a.kind, &a.group, &a.version).cmp(&(&b.kind, &b.group, &b.version)));
    kinds.dedup_by(|a, b| a.kind == b.kind && a.group == b.group && a.version == b.version);
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::discovery::Scope;
    use kube_wire::testdata::{discovery_of, resource_type};
    use kube_wire::testdata::{gvk, shared_schemas};

    fn deployment() -> SchemaTree {
        SchemaTree::build(shared_schemas(), &gvk("apps", "v1", "Deployment")).expect("tree")
    }

    #[test]
    fn only_the_fields_below_open_ones_show() {
        let tree = deployment();
        let names = |open: &[&str]| -> Vec<String> {
            let open = open.iter().map(|s| s.to_string()).collect();
            visible(&tree, &open).into_iter().map(|i| tree.fields[i].path.clone()).collect()
        };
        assert_eq!(names(&[]), ["apiVersion", "kind", "metadata", "spec", "status"]);
        let with_spec = names(&["spec"]);
        assert_eq!(with_spec.len(), 5 + 8);
        assert_eq!(with_spec[4], "spec.minReadySeconds");
        // A field opens only when all its ancestors are open.
        assert_eq!(names(&["spec.template"]).len(), 5);
        let deep = names(&ancestors("spec.template.spec.containers").iter().map(String::as_str).collect::<Vec<_>>());
        assert!(deep.contains(&"spec.template.spec.containers".to_string()));
        assert!(!deep.iter().any(|p| p.starts_with("spec.template.spec.containers.")));
    }

    #[test]
    fn a_deep_link_opens_every_ancestor() {
        assert_eq!(ancestors("spec.template.spec.containers"), ["spec", "spec.template", "spec.template.spec"]);
        assert!(ancestors("spec").is_empty());
        assert!(ancestors("").is_empty());
    }

    #[test]
    fn search_finds_names_first_then_descriptions() {
        let tree = deployment();
        let found = search(&tree, "MinReadySeconds");
        let paths: Vec<&str> = found.fields.iter().map(|&i| tree.fields[i].path.as_str()).collect();
        assert_eq!(paths[0], "spec.minReadySeconds");
        // The others mention it in their description only (status.availableReplicas: "ready for
        // at least minReadySeconds").
        assert!(paths.contains(&"status.availableReplicas"), "{paths:?}");
        assert!(paths[1..].iter().all(|p| !p.to_lowercase().contains("minreadyseconds")));
        assert_eq!(found.total, paths.len());
        let rollback = search(&tree, "rollback");
        assert!(rollback.total >= 1);
        let first = &tree.fields[rollback.fields[0]];
        assert!(
            !first.path.to_lowercase().contains("rollback") && first.description.to_lowercase().contains("rollback")
        );
        // Every word must match, in the path or the description.
        let both = search(&tree, "containers image");
        assert!(both.fields.iter().any(|&i| tree.fields[i].path == "spec.template.spec.containers.image"));
        assert!(both.fields.iter().all(|&i| tree.fields[i].path.to_lowercase().contains("containers")
            || tree.fields[i].description.to_lowercase().contains("containers")));
        assert_eq!(search(&tree, "  "), SearchResult::default());
        assert_eq!(search(&tree, "nothing-is-called-this").total, 0);
    }

    #[test]
    fn a_broad_search_is_capped_and_says_how_many_matched() {
        let tree = deployment();
        let found = search(&tree, "e");
        assert_eq!(found.fields.len(), MAX_RESULTS);
        assert!(found.total > MAX_RESULTS);
    }

    #[test]
    fn versions_and_kinds_come_from_discovery() {
        let mut old = resource_type("example.com", "v1beta1", "widgets", Scope::Namespaced);
        old.kind = "Widget".into();
        let mut new = resource_type("example.com", "v1", "widgets", Scope::Namespaced);
        new.kind = "Widget".into();
        let mut pods = resource_type("", "v1", "pods", Scope::Namespaced);
        pods.kind = "Pod".into();
        let discovery = discovery_of(vec![pods.clone(), new.clone(), old.clone()]);
        let mut versions = versions_of(&discovery, &new);
        versions.sort();
        assert_eq!(versions, ["v1", "v1beta1"]);
        assert_eq!(versions_of(&discovery, &pods), ["v1"]);
        let kinds: Vec<(String, String)> = served_kinds(&discovery).into_iter().map(|r| (r.kind, r.version)).collect();
        assert_eq!(
            kinds,
            [("Pod".into(), "v1".into()), ("Widget".into(), "v1".into()), ("Widget".into(), "v1beta1".into())]
        );
        assert_eq!(kind_of(&pods), gvk("", "v1", "Pod"));
    }
}
