//! What the user may do, in RBAC's terms, decided from the server's own answers: a [`Question`]
//! (verb, group, resource, subresource, namespace, name, as a SelfSubjectAccessReview asks it),
//! decided from a namespace's SelfSubjectRulesReview ([`decide`]) the way RBAC matches a rule,
//! said in words and as the `kubectl auth can-i` command that checks it; a 403 Status read back
//! into the question that was refused ([`Forbidden`]) with the Role an administrator could grant;
//! and the can-i matrix of the Access view.
//!
//! Invariants: no I/O. A rules review that says it is incomplete never makes a [`Decision::Denied`]
//! (a missing rule then proves nothing): the decision is [`Decision::Unknown`] and the caller asks
//! one precise SelfSubjectAccessReview instead.

use std::ops::{Deref, DerefMut};

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::commands::shell_quote;
use crate::i18n::{Msg, Text};
use kube_wire::access::{ResourceAttributes, ResourceRule, RulesReview};
use kube_wire::discovery::{ResourceType, Scope};
use kube_wire::request::{Collection, ObjectRef};
use kube_wire::view::status::Status;

/// The verbs of the can-i matrix, in kubectl's order.
pub const VERBS: [&str; 8] = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];

/// One action the user might take: the attributes a SelfSubjectAccessReview asks about
/// (`namespace: None` is the cluster scope: a cluster-scoped type, or a namespaced type in all
/// namespaces, which RBAC grants only through ClusterRoleBindings), decided, worded and turned into
/// a `kubectl auth can-i` command here. Its fields are the attributes' (through `Deref`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Question(pub ResourceAttributes);

impl Deref for Question {
    type Target = ResourceAttributes;

    fn deref(&self) -> &ResourceAttributes {
        &self.0
    }
}

impl DerefMut for Question {
    fn deref_mut(&mut self) -> &mut ResourceAttributes {
        &mut self.0
    }
}

impl Question {
    /// `verb` on the objects of `resource` in `namespace` (ignored for a cluster-scoped type).
    pub fn on(verb: &str, resource: &ResourceType, namespace: Option<&str>) -> Question {
        Question(ResourceAttributes {
            verb: verb.to_owned(),
            group: resource.group.clone(),
            resource: resource.plural.clone(),
            subresource: None,
            namespace: if resource.scope == Scope::Namespaced { namespace.map(str::to_owned) } else { None },
            name: None,
        })
    }

    /// `verb` on the object `object` refers to (its subresource included).
    pub fn object(verb: &str, object: &ObjectRef) -> Question {
        Question(ResourceAttributes {
            name: Some(object.name.clone()),
            subresource: object.subresource.clone(),
            ..Question::collection(verb, &object.collection).0
        })
    }

    /// `verb` on the objects of `collection`.
    pub fn collection(verb: &str, collection: &Collection) -> Question {
        Question(ResourceAttributes {
            verb: verb.to_owned(),
            group: collection.group.clone(),
            resource: collection.plural.clone(),
            subresource: None,
            namespace: collection.namespace.clone(),
            name: None,
        })
    }

    /// The same question about one object.
    pub fn named(mut self, name: &str) -> Question {
        self.0.name = Some(name.to_owned());
        self
    }

    /// The same question about a subresource (`log`, `scale`, `status`).
    pub fn subresource(mut self, subresource: &str) -> Question {
        self.0.subresource = Some(subresource.to_owned());
        self
    }

    /// `resource` or `resource.group`, as kubectl names a type.
    pub fn qualified_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// The `kubectl auth can-i` command that asks the server the same question. A namespaced type
    /// without a namespace is asked in all namespaces (`-A`).
    pub fn kubectl(&self, namespaced: bool) -> String {
        let mut target = self.qualified_resource();
        if let Some(name) = &self.name {
            target = format!("{target}/{name}");
        }
        let mut parts = vec!["kubectl auth can-i".to_owned(), shell_word(&self.verb), shell_word(&target)];
        if let Some(subresource) = &self.subresource {
            parts.push(format!("--subresource={}", shell_word(subresource)));
        }
        match &self.namespace {
            Some(namespace) => parts.push(format!("-n {}", shell_word(namespace))),
            None if namespaced => parts.push("-A".to_owned()),
            None => {}
        }
        parts.join(" ")
    }

    /// The action in words: `patch deployments "web" in demo`, `list pods in all namespaces`,
    /// `delete namespaces (cluster-scoped)`.
    pub fn words(&self, namespaced: bool) -> Text {
        let mut what = format!("{} {}", self.verb, self.resource);
        if let Some(subresource) = &self.subresource {
            what = format!("{what}/{subresource}");
        }
        if let Some(name) = &self.name {
            what = format!("{what} \"{name}\"");
        }
        let mut action = Text::verbatim(what);
        if !self.group.is_empty() {
            action = Text::new(Msg::AccessActionOfGroup).with_text("action", action).with("group", &self.group);
        }
        match &self.namespace {
            Some(namespace) => Text::new(Msg::AccessActionIn).with_text("action", action).with("namespace", namespace),
            None if namespaced => Text::new(Msg::AccessActionAllNamespaces).with_text("action", action),
            None => Text::new(Msg::AccessActionClusterScoped).with_text("action", action),
        }
    }
}

/// A word as a shell reads it: bare when it is plain, single-quoted otherwise.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '='));
    if plain {
        word.to_owned()
    } else {
        shell_quote(word)
    }
}

/// What the server's answers say about a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    Allowed,
    Denied,
    /// Not known: the rules are incomplete or could not be read, and a precise review could not
    /// answer either. Actions stay enabled, and a 403 is explained when it comes.
    Unknown,
    /// Asked, no answer yet. Actions stay enabled meanwhile.
    Pending,
}

impl Decision {
    /// The mark of a can-i matrix cell.
    pub fn mark(self) -> &'static str {
        match self {
            Decision::Allowed => "yes",
            Decision::Denied => "no",
            Decision::Unknown => "?",
            Decision::Pending => "…",
        }
    }
}

/// Whether `rule` grants `question`, as RBAC's rule matching reads it: the verb, the group and
/// the resource each match exactly or through `*`; a rule for `resource/subresource` or
/// `*/subresource` covers only that subresource; a rule with resourceNames covers only a question
/// that names one of them (so never a list or a create).
pub fn rule_covers(rule: &ResourceRule, question: &Question) -> bool {
    let verb = rule.verbs.iter().any(|v| v == "*" || *v == question.verb);
    let group = rule.api_groups.iter().any(|g| g == "*" || *g == question.group);
    let combined = match &question.subresource {
        Some(sub) => format!("{}/{sub}", question.resource),
        None => question.resource.clone(),
    };
    let resource = rule.resources.iter().any(|r| {
        r == "*"
            || *r == combined
            || question.subresource.as_deref().is_some_and(|sub| r.strip_prefix("*/") == Some(sub))
    });
    let name = rule.resource_names.is_empty()
        || question.name.as_deref().is_some_and(|n| rule.resource_names.iter().any(|r| r == n));
    verb && group && resource && name
}

/// Decides `question` from the rules review of its namespace: allowed when a rule covers it,
/// denied when none does and the review is complete, unknown otherwise.
pub fn decide(review: &RulesReview, question: &Question) -> Decision {
    if review.resource_rules.iter().any(|rule| rule_covers(rule, question)) {
        Decision::Allowed
    } else if review.incomplete {
        Decision::Unknown
    } else {
        Decision::Denied
    }
}

/// Decides a cluster-scope `question` (a cluster-scoped type, or a namespaced type in all
/// namespaces) from the complete rules review of any one namespace. Those rules are the user's
/// ClusterRoleBindings' plus the namespace's RoleBindings', and only the former grant anything at
/// the cluster scope: so a "no" there is a "no" at the cluster scope, while a "yes" may come from
/// a RoleBinding and proves nothing (unknown).
pub fn decide_cluster_scope(review_of_a_namespace: &RulesReview, question: &Question) -> Decision {
    match decide(review_of_a_namespace, question) {
        Decision::Denied => Decision::Denied,
        _ => Decision::Unknown,
    }
}

/// What a 403 Status says was refused, read from kube-apiserver's wording
/// (`pods "web-1" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in the
/// namespace "demo"`, `… at the cluster scope`, `User "x" cannot get path "/metrics"`, each with an
/// optional `: reason`) and its details (the object's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forbidden {
    pub user: String,
    pub verb: String,
    pub target: Target,
    /// What the authorizer added after the message (`RBAC: clusterrole.rbac.authorization.k8s.io
    /// "x" not found`), if anything.
    pub reason: Option<String>,
}

/// What a refused request was about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Resource {
        group: String,
        resource: String,
        subresource: Option<String>,
        /// `None`: the cluster scope.
        namespace: Option<String>,
        name: Option<String>,
    },
    /// A non-resource URL (`/metrics`, `/openapi/v3`).
    Path(String),
}

impl Forbidden {
    /// Reads a 403 Status; `None` when it is not one or its message is not kube-apiserver's.
    pub fn from_status(status: &Status) -> Option<Forbidden> {
        if status.code != 403 {
            return None;
        }
        let message = unescape_markup(&status.message);
        let at = message.find("User \"")?;
        let (user, rest) = go_unquote(&message[at + "User ".len()..])?;
        let rest = rest.strip_prefix(" cannot ")?;
        let (verb, rest) = rest.split_once(' ')?;
        let (target, rest) = if let Some(rest) = rest.strip_prefix("path ") {
            let (path, rest) = go_unquote(rest)?;
            (Target::Path(path), rest)
        } else {
            let rest = rest.strip_prefix("resource ")?;
            let (combined, rest) = go_unquote(rest)?;
            let rest = rest.strip_prefix(" in API group ")?;
            let (group, rest) = go_unquote(rest)?;
            let (namespace, rest) = if let Some(rest) = rest.strip_prefix(" in the namespace ") {
                let (namespace, rest) = go_unquote(rest)?;
                (Some(namespace), rest)
            } else {
                (None, rest.strip_prefix(" at the cluster scope")?)
            };
            let (resource, subresource) = match combined.split_once('/') {
                Some((resource, sub)) => (resource.to_owned(), Some(sub.to_owned())),
                None => (combined, None),
            };
            let name = status.details.as_ref().map(|d| d.name.clone()).filter(|n| !n.is_empty());
            (Target::Resource { group, resource, subresource, namespace, name }, rest)
        };
        let reason = rest.strip_prefix(": ").map(str::to_owned).filter(|r| !r.is_empty());
        Some(Forbidden { user, verb: verb.to_owned(), target, reason })
    }

    /// The refused action as a question (none for a non-resource URL).
    pub fn question(&self) -> Option<Question> {
        match &self.target {
            Target::Resource { group, resource, subresource, namespace, name } => Some(Question(ResourceAttributes {
                verb: self.verb.clone(),
                group: group.clone(),
                resource: resource.clone(),
                subresource: subresource.clone(),
                namespace: namespace.clone(),
                name: name.clone(),
            })),
            Target::Path(_) => None,
        }
    }

    /// The RBAC objects an administrator could create to allow exactly this, as YAML: a Role and
    /// a RoleBinding in the namespace, or a ClusterRole and a ClusterRoleBinding for the cluster
    /// scope and non-resource URLs.
    pub fn grant_yaml(&self) -> String {
        let rule = match &self.target {
            Target::Resource { group, resource, subresource, name, .. } => PolicyRule {
                api_groups: Some(vec![group.clone()]),
                resources: Some(vec![match subresource {
                    Some(sub) => format!("{resource}/{sub}"),
                    None => resource.clone(),
                }]),
                resource_names: name.clone().map(|n| vec![n]),
                verbs: vec![self.verb.clone()],
                non_resource_urls: None,
            },
            Target::Path(path) => PolicyRule {
                non_resource_urls: Some(vec![path.clone()]),
                verbs: vec![self.verb.clone()],
                ..PolicyRule::default()
            },
        };
        let role_name = self.role_name();
        let subject = Subject {
            kind: "User".into(),
            name: self.user.clone(),
            api_group: Some("rbac.authorization.k8s.io".into()),
            namespace: None,
        };
        let namespace = match &self.target {
            Target::Resource { namespace: Some(namespace), .. } => Some(namespace.clone()),
            _ => None,
        };
        let meta =
            |name: String| ObjectMeta { name: Some(name), namespace: namespace.clone(), ..ObjectMeta::default() };
        let documents = match &namespace {
            Some(_) => [
                yaml(&Role { metadata: meta(role_name.clone()), rules: Some(vec![rule]) }),
                yaml(&RoleBinding {
                    metadata: meta(format!("{role_name}-{}", self.user)),
                    role_ref: RoleRef {
                        api_group: Some("rbac.authorization.k8s.io".into()),
                        kind: "Role".into(),
                        name: role_name,
                    },
                    subjects: Some(vec![subject]),
                }),
            ],
            None => [
                yaml(&ClusterRole {
                    metadata: meta(role_name.clone()),
                    rules: Some(vec![rule]),
                    aggregation_rule: None,
                }),
                yaml(&ClusterRoleBinding {
                    metadata: meta(format!("{role_name}-{}", self.user)),
                    role_ref: RoleRef {
                        api_group: Some("rbac.authorization.k8s.io".into()),
                        kind: "ClusterRole".into(),
                        name: role_name,
                    },
                    subjects: Some(vec![subject]),
                }),
            ],
        };
        documents.join("---\n")
    }

    /// A name for the granting role: `pods-log-get`, `deployments.apps-patch`, `path-metrics-get`.
    fn role_name(&self) -> String {
        let what = match &self.target {
            Target::Resource { group, resource, subresource, .. } => {
                let mut what = resource.clone();
                if let Some(sub) = subresource {
                    what = format!("{what}-{sub}");
                }
                if !group.is_empty() {
                    what = format!("{what}.{group}");
                }
                what
            }
            Target::Path(path) => format!("path{}", path.replace(['/', '*'], "-").trim_end_matches('-')),
        };
        let name: String = format!("{what}-{}", self.verb)
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c.to_ascii_lowercase() } else { '-' })
            .collect();
        name.trim_matches(['-', '.']).to_owned()
    }
}

fn yaml<T: serde::Serialize>(object: &T) -> String {
    serde_yaml::to_string(object).unwrap_or_else(|e| format!("# could not be written: {e}\n"))
}

/// kube-apiserver escapes `&`, `<` and `>` in a Forbidden message; this reads them back.
fn unescape_markup(message: &str) -> String {
    message.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// Reads a string as Go's `%q` writes it at the start of `text`: the string and what follows.
fn go_unquote(text: &str) -> Option<(String, &str)> {
    let mut chars = text.strip_prefix('"')?.char_indices();
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &text[i + 2..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// One row of the can-i matrix: a resource type and its cells, one per verb of [`VERBS`] (`None`
/// where the type does not serve that verb).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixRow {
    /// `pods`, `deployments.apps`.
    pub resource: String,
    pub kind: String,
    pub cells: Vec<Option<Decision>>,
}

/// The can-i matrix of `types` in `namespace`, each served verb decided by `decide`; rows whose
/// resource or kind contains `filter` (any case), sorted by resource.
pub fn matrix(
    types: &[ResourceType],
    namespace: Option<&str>,
    filter: &str,
    mut decide: impl FnMut(&Question) -> Decision,
) -> Vec<MatrixRow> {
    let filter = filter.trim().to_lowercase();
    let mut rows: Vec<MatrixRow> = types
        .iter()
        .filter_map(|t| {
            let resource = Question::on("get", t, namespace).qualified_resource();
            let wanted = filter.is_empty()
                || resource.to_lowercase().contains(&filter)
                || t.kind.to_lowercase().contains(&filter);
            wanted.then(|| MatrixRow {
                cells: VERBS
                    .iter()
                    .map(|verb| t.supports(verb).then(|| decide(&Question::on(verb, t, namespace))))
                    .collect(),
                resource,
                kind: t.kind.clone(),
            })
        })
        .collect();
    rows.sort_by(|a, b| a.resource.cmp(&b.resource));
    rows.dedup_by(|a, b| a.resource == b.resource);
    rows
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
