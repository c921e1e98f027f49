//! The go-to box (`:` or Ctrl/Cmd-K): what a typed query matches, best first. A query is one or
//! two words. The first names a resource type (plural, singular, short name or kind, as kubectl
//! reads them, or its group) or a namespace, or an object of the type on screen. After a type, the
//! second word names an object of that type: `deploy web` opens the Deployment `web`.

use crate::view_state::ResourceKey;
use kube_wire::discovery::{Discovery, ResourceType};

/// How many matches the box lists at most.
pub const SHOWN: usize = 20;

/// Where a match leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A resource type's collection.
    Type(ResourceKey),
    /// The same view in another namespace.
    Namespace(String),
    /// One object.
    Object { key: ResourceKey, namespace: Option<String>, name: String },
}

/// One line of the box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub target: Target,
    /// What the line says first (the type's plural, the namespace, the object's name).
    pub label: String,
    /// What it says after (kind and group-version, "namespace", the object's kind).
    pub detail: String,
    /// Lower is better.
    score: u32,
}

/// An object the box may offer: of `key`'s type, named `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectName {
    pub namespace: Option<String>,
    pub name: String,
}

/// A query split into its words: the first, and the rest (an object's name after a type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub first: String,
    pub rest: Option<String>,
}

impl Query {
    /// Reads what was typed; `None` when it is blank.
    pub fn parse(text: &str) -> Option<Query> {
        let text = text.trim();
        let (first, rest) = match text.split_once(char::is_whitespace) {
            Some((first, rest)) => (first, Some(rest.trim().to_owned()).filter(|r| !r.is_empty())),
            None => (text, None),
        };
        (!first.is_empty()).then(|| Query { first: first.to_lowercase(), rest })
    }
}

/// How well `candidate` answers `word` (lower case): equal 0, a prefix 1, inside it 2; `None`
/// when it does not.
fn closeness(candidate: &str, word: &str) -> Option<u32> {
    let candidate = candidate.to_lowercase();
    if candidate == word {
        Some(0)
    } else if candidate.starts_with(word) {
        Some(1)
    } else if candidate.contains(word) {
        Some(2)
    } else {
        None
    }
}

/// How well a type answers `word`: by its names (short names and plural first, as kubectl reads
/// them), else by its group.
fn type_closeness(resource: &ResourceType, word: &str) -> Option<u32> {
    let names = [&resource.plural, &resource.singular, &resource.kind].into_iter().chain(resource.short_names.iter());
    let by_name = names.filter_map(|n| closeness(n, word)).min();
    let by_group = (!resource.group.is_empty()).then(|| closeness(&resource.group, word)).flatten().map(|c| c + 3);
    by_name.or(by_group)
}

fn key_of(resource: &ResourceType) -> ResourceKey {
    ResourceKey { group: resource.group.clone(), version: resource.version.clone(), plural: resource.plural.clone() }
}

/// The types that answer `word`, best first (a type's preferred version only; subresources are
/// not types).
pub fn types_matching<'a>(discovery: &'a Discovery, word: &str) -> Vec<(&'a ResourceType, u32)> {
    let mut found: Vec<(&ResourceType, u32)> = discovery
        .preferred_resources()
        .filter(|r| !r.plural.contains('/'))
        .filter_map(|r| type_closeness(r, word).map(|c| (r, c)))
        .collect();
    // Core types before others at the same closeness (as kubectl resolves `pods`), then by name.
    found.sort_by(|(a, x), (b, y)| {
        x.cmp(y).then(a.group.is_empty().cmp(&b.group.is_empty()).reverse()).then(a.plural.cmp(&b.plural))
    });
    found
}

/// The type the first word of `query` names when a second word follows (`deploy` of
/// `deploy web`): the best type match.
pub fn object_type<'a>(discovery: &'a Discovery, query: &Query) -> Option<&'a ResourceType> {
    query.rest.as_ref()?;
    types_matching(discovery, &query.first).into_iter().next().map(|(r, _)| r)
}

/// The matches of `query`, best first, at most [`SHOWN`]:
/// - one word: types, namespaces, and objects of `current` (the type on screen, with its objects'
///   names as far as they are known);
/// - two words: objects of the type the first names (`objects`, its names as far as known) whose
///   name contains the rest.
pub fn matches(
    discovery: &Discovery,
    namespaces: &[String],
    current: Option<(&ResourceType, &[ObjectName])>,
    objects: &[ObjectName],
    query: &Query,
) -> Vec<Match> {
    let object_match = |resource: &ResourceType, object: &ObjectName, word: &str, base: u32| {
        closeness(&object.name, word).map(|c| Match {
            target: Target::Object {
                key: key_of(resource),
                namespace: object.namespace.clone(),
                name: object.name.clone(),
            },
            label: object.name.clone(),
            detail: match &object.namespace {
                Some(ns) if resource.is_namespaced() => format!("{} in {ns}", resource.kind),
                _ => resource.kind.clone(),
            },
            score: base + c,
        })
    };
    let mut found: Vec<Match> = Vec::new();
    match &query.rest {
        Some(rest) => {
            let rest = rest.to_lowercase();
            if let Some(resource) = object_type(discovery, query) {
                found.extend(objects.iter().filter_map(|o| object_match(resource, o, &rest, 0)));
            }
        }
        None => {
            let word = &query.first;
            found.extend(types_matching(discovery, word).into_iter().map(|(r, c)| Match {
                target: Target::Type(key_of(r)),
                label: r.plural.clone(),
                detail: format!("{} · {}", r.kind, r.api_version()),
                score: c * 10,
            }));
            found.extend(namespaces.iter().filter_map(|ns| {
                closeness(ns, word).map(|c| Match {
                    target: Target::Namespace(ns.clone()),
                    label: ns.clone(),
                    detail: "namespace".to_owned(),
                    score: c * 10 + 1,
                })
            }));
            if let Some((resource, names)) = current {
                found.extend(names.iter().filter_map(|o| {
                    object_match(resource, o, word, 0).map(|m| Match { score: m.score * 10 + 2, ..m })
                }));
            }
        }
    }
    // Stable: equal scores keep the order above (types, namespaces, objects; each sorted).
    found.sort_by_key(|m| m.score);
    found.truncate(SHOWN);
    found
}

/// The object a `kind/name` reference names, as kubectl prints an Event's object (`pod/web-1`,
/// the kind in lower case): the type whose kind that is (core first, as kubectl resolves it),
/// in `namespace` when the type is namespaced. `None` when no served type has that kind.
pub fn kind_slash_name(discovery: &Discovery, text: &str, namespace: Option<&str>) -> Option<Target> {
    let (kind, name) = text.trim().split_once('/')?;
    if kind.is_empty() || name.is_empty() || name.contains('/') {
        return None;
    }
    let resource = discovery
        .preferred_resources()
        .filter(|r| !r.plural.contains('/') && r.kind.eq_ignore_ascii_case(kind))
        .min_by_key(|r| !r.group.is_empty())?;
    let namespace = resource.scoped(namespace).map(str::to_owned);
    Some(Target::Object { key: key_of(resource), namespace, name: name.to_owned() })
}

/// The keys typed for the go-to box before its input can take them (its part still loading: a
/// k9s user types `:deploy web` at once): kept in order, and handed to the input when it
/// appears, so that nothing typed is lost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeAhead {
    text: String,
}

impl TypeAhead {
    /// Takes a key (a `KeyboardEvent.key`) typed while the box loads: a character is added, a
    /// Backspace takes the last one away; any other key (Enter, arrows, Escape) is not the
    /// box's text and is left to its owner (`false`).
    pub fn key(&mut self, key: &str) -> bool {
        let mut chars = key.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if !c.is_control() => self.text.push(c),
            _ if key == "Backspace" => {
                self.text.pop();
            }
            _ => return false,
        }
        true
    }

    /// What was typed, handed over once: the buffer is empty afterwards.
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real server's discovery: the core group from its legacy `/api/v1` list, the others
    /// from its aggregated `/apis` document.
    fn discovery() -> Discovery {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIResourceList, APIVersions};
        use kube_wire::discovery::ApiGroupDiscoveryList;
        use kube_wire::testdata::shared_file;
        let read = |file: &str| shared_file(&format!("kube/discovery/{file}"));
        let versions: APIVersions = serde_json::from_slice(&read("api.json")).expect("/api");
        let core: APIResourceList = serde_json::from_slice(&read("api__v1.json")).expect("/api/v1");
        let apis: ApiGroupDiscoveryList = serde_json::from_slice(&read("aggregated_v2.json")).expect("/apis");
        let mut discovery = Discovery::from_legacy(&versions, &APIGroupList { groups: Vec::new() }, &[core]);
        discovery.groups.extend(Discovery::from_aggregated(&[apis]).groups);
        discovery
    }

    fn objects(names: &[(&str, &str)]) -> Vec<ObjectName> {
        names.iter().map(|(ns, n)| ObjectName { namespace: Some(ns.to_string()), name: n.to_string() }).collect()
    }

    fn labels(found: &[Match]) -> Vec<String> {
        found.iter().map(|m| m.label.clone()).collect()
    }

    #[test]
    fn an_events_object_cell_names_the_object_by_lower_case_kind() {
        let discovery = discovery();
        let pod = kind_slash_name(&discovery, "pod/web-1", Some("demo"));
        assert_eq!(
            pod,
            Some(Target::Object {
                key: ResourceKey { group: "".into(), version: "v1".into(), plural: "pods".into() },
                namespace: Some("demo".into()),
                name: "web-1".into()
            })
        );
        let Some(Target::Object { key, namespace, .. }) = kind_slash_name(&discovery, "deployment/web", Some("demo"))
        else {
            panic!("a deployment")
        };
        assert_eq!((key.group.as_str(), namespace.as_deref()), ("apps", Some("demo")));
        let Some(Target::Object { key, namespace, .. }) = kind_slash_name(&discovery, "node/node-1", Some("default"))
        else {
            panic!("a node")
        };
        assert_eq!((key.plural.as_str(), namespace), ("nodes", None), "a node is cluster-scoped");
        for text in ["", "pod", "/web", "pod/", "gizmo/x", "pod/a/b"] {
            assert_eq!(kind_slash_name(&discovery, text, Some("demo")), None, "{text:?}");
        }
    }

    #[test]
    fn a_query_is_a_first_word_and_the_rest() {
        assert_eq!(Query::parse("  "), None);
        assert_eq!(Query::parse("Deploy"), Some(Query { first: "deploy".into(), rest: None }));
        assert_eq!(Query::parse("deploy  web-1 "), Some(Query { first: "deploy".into(), rest: Some("web-1".into()) }));
    }

    #[test]
    fn types_match_by_short_name_kind_plural_and_group_as_kubectl_reads_them() {
        let discovery = discovery();
        let first = |word: &str| types_matching(&discovery, word).first().map(|(r, _)| r.plural.clone());
        assert_eq!(first("deploy").as_deref(), Some("deployments"));
        assert_eq!(first("po").as_deref(), Some("pods"));
        assert_eq!(first("cm").as_deref(), Some("configmaps"));
        assert_eq!(first("statefulset").as_deref(), Some("statefulsets"));
        // Core before other groups at the same closeness (kubectl's `events` is core/v1).
        let events = types_matching(&discovery, "events");
        assert_eq!((events[0].0.plural.as_str(), events[0].0.group.as_str()), ("events", ""));
        // By group, after every match by name.
        let apps = types_matching(&discovery, "apps");
        assert!(apps.iter().any(|(r, _)| r.plural == "deployments"), "{apps:?}");
        assert_eq!(types_matching(&discovery, "zzz").len(), 0);
    }

    #[test]
    fn one_word_lists_types_namespaces_and_objects_on_screen() {
        let discovery = discovery();
        let pods = discovery.preferred_resources().find(|r| r.plural == "pods").unwrap().clone();
        let names = objects(&[("demo", "web-1"), ("demo", "demo-worker")]);
        let namespaces = vec!["demo".to_owned(), "default".to_owned()];
        let query = Query::parse("de").unwrap();
        let found = matches(&discovery, &namespaces, Some((&pods, &names)), &[], &query);
        let labels = labels(&found);
        assert_eq!(labels[0], "deployments", "{labels:?}");
        assert!(labels.contains(&"demo".to_owned()) && labels.contains(&"default".to_owned()), "{labels:?}");
        assert!(labels.contains(&"demo-worker".to_owned()), "{labels:?}");
        let worker = found.iter().find(|m| m.label == "demo-worker").unwrap();
        assert_eq!(worker.detail, "Pod in demo");
        assert!(found.len() <= SHOWN);
    }

    #[test]
    fn a_type_then_a_name_lists_that_types_objects() {
        let discovery = discovery();
        let query = Query::parse("deploy web").unwrap();
        assert_eq!(object_type(&discovery, &query).map(|r| r.kind.as_str()), Some("Deployment"));
        let names = objects(&[("shop", "cart"), ("demo", "web"), ("demo", "web-canary")]);
        let found = matches(&discovery, &[], None, &names, &query);
        assert_eq!(labels(&found), ["web", "web-canary"]);
        assert_eq!(
            found[0].target,
            Target::Object {
                key: ResourceKey { group: "apps".into(), version: "v1".into(), plural: "deployments".into() },
                namespace: Some("demo".into()),
                name: "web".into()
            }
        );
        assert!(matches(&discovery, &[], None, &names, &Query::parse("nosuchtype web").unwrap()).is_empty());
    }

    #[test]
    fn keys_typed_while_the_box_loads_are_kept_in_order_and_handed_over_once() {
        let mut ahead = TypeAhead::default();
        for key in ["d", "e", "p", "x", "Backspace", "l", "o", "y", " ", "w", "é", "b"] {
            assert!(ahead.key(key), "{key}");
        }
        assert!(!ahead.key("Enter"));
        assert!(!ahead.key("ArrowDown"));
        assert!(!ahead.key("Shift"));
        assert!(!ahead.key("\u{7f}"));
        assert_eq!(ahead.take(), "deploy wéb");
        assert_eq!(ahead.take(), "");
        assert!(ahead.key("Backspace"), "a Backspace on nothing is still the box's");
        assert_eq!(ahead.take(), "");
    }
}
