//! The authorizer: kube-apiserver's chain of the privileged-group authorizer (`system:masters`
//! may do everything) and RBAC over the stored Roles, ClusterRoles, RoleBindings and
//! ClusterRoleBindings (`rbac.authorization.k8s.io/v1`). It answers a request's [`Attributes`]
//! with a [`Decision`], lists a user's rules for SelfSubjectRulesReview, and words a denial as
//! kube-apiserver's 403.
//!
//! Rule matching, the bindings that apply to a user, the reasons (`RBAC: allowed by …`, the
//! errors of bindings whose role is missing) and the rule order follow
//! `plugin/pkg/auth/authorizer/rbac` and `pkg/registry/rbac/validation`: ClusterRoleBindings
//! first, then the RoleBindings of the request's namespace, each in name order.

use serde_json::{json, Map, Value};

use crate::auth::{UserInfo, MASTERS};
use crate::rules::status::{ApiError, Details, Status};
use crate::store::State;

pub const GROUP: &str = "rbac.authorization.k8s.io";
pub const CLUSTER_ROLES: &str = "rbac.authorization.k8s.io/clusterroles";
pub const ROLES: &str = "rbac.authorization.k8s.io/roles";
pub const CLUSTER_ROLE_BINDINGS: &str = "rbac.authorization.k8s.io/clusterrolebindings";
pub const ROLE_BINDINGS: &str = "rbac.authorization.k8s.io/rolebindings";

/// What a request asks to do, as kube-apiserver's `authorizer.Attributes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attributes {
    Resource(ResourceAttributes),
    NonResource { verb: String, path: String },
}

/// A resource request: the verb, the API group, the resource and subresource, and the
/// namespace and name when the request has them (empty otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceAttributes {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
}

impl Attributes {
    /// The `resourceAttributes` of a SelfSubjectAccessReview's spec.
    pub fn from_resource_review(v: &Value) -> Attributes {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        Attributes::Resource(ResourceAttributes {
            verb: s("verb"),
            group: s("group"),
            resource: s("resource"),
            subresource: s("subresource"),
            namespace: s("namespace"),
            name: s("name"),
        })
    }

    /// The `nonResourceAttributes` of a SelfSubjectAccessReview's spec.
    pub fn from_non_resource_review(v: &Value) -> Attributes {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        Attributes::NonResource { verb: s("verb"), path: s("path") }
    }

    fn namespace(&self) -> &str {
        match self {
            Attributes::Resource(r) => &r.namespace,
            Attributes::NonResource { .. } => "",
        }
    }
}

/// One rule of a Role or ClusterRole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolicyRule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub non_resource_urls: Vec<String>,
}

impl PolicyRule {
    pub fn from_json(v: &Value) -> PolicyRule {
        let list = |k: &str| -> Vec<String> {
            v[k].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
        };
        PolicyRule {
            verbs: list("verbs"),
            api_groups: list("apiGroups"),
            resources: list("resources"),
            resource_names: list("resourceNames"),
            non_resource_urls: list("nonResourceURLs"),
        }
    }

    /// Whether the rule allows the request (`RuleAllows` of the RBAC authorizer).
    pub fn allows(&self, attributes: &Attributes) -> bool {
        let verb = |v: &str| self.verbs.iter().any(|r| r == "*" || r == v);
        match attributes {
            Attributes::Resource(a) => {
                verb(&a.verb)
                    && self.api_groups.iter().any(|g| g == "*" || *g == a.group)
                    && self.matches_resource(&a.resource, &a.subresource)
                    && (self.resource_names.is_empty() || self.resource_names.contains(&a.name))
            }
            Attributes::NonResource { verb: v, path } => {
                verb(v)
                    && self.non_resource_urls.iter().any(|u| {
                        u == "*" || u == path || u.strip_suffix('*').is_some_and(|prefix| path.starts_with(prefix))
                    })
            }
        }
    }

    /// `*`, the resource (`pods/log` with its subresource), or `*/log` for any resource's log.
    fn matches_resource(&self, resource: &str, subresource: &str) -> bool {
        let combined = if subresource.is_empty() { resource.to_string() } else { format!("{resource}/{subresource}") };
        self.resources.iter().any(|r| {
            r == "*"
                || *r == combined
                || (!subresource.is_empty() && r.strip_prefix("*/").is_some_and(|sub| sub == subresource))
        })
    }
}

/// The authorizer's answer; a reason may be empty, as kube-apiserver's often is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow { reason: String },
    Deny { reason: String },
}

/// What `user` may do: allowed for `system:masters`, else by the first RBAC rule that allows
/// it. A denial's reason names the bindings whose role is missing (`RBAC: …`), else is empty.
pub fn authorize(state: &State, user: &UserInfo, attributes: &Attributes) -> Decision {
    if user.in_group(MASTERS) {
        return Decision::Allow { reason: String::new() };
    }
    let mut allowed = None;
    let errors = visit_rules(state, user, attributes.namespace(), |source, rule| {
        if rule.allows(attributes) {
            allowed = Some(format!("RBAC: allowed by {}", source()));
            return false;
        }
        true
    });
    match allowed {
        Some(reason) => Decision::Allow { reason },
        None if errors.is_empty() => Decision::Deny { reason: String::new() },
        None => Decision::Deny { reason: format!("RBAC: {}", aggregate(&errors)) },
    }
}

/// A user's rules in a namespace, as SelfSubjectRulesReview's status reports them.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    pub resource_rules: Vec<Value>,
    pub non_resource_rules: Vec<Value>,
    pub incomplete: bool,
    /// Bindings whose role is missing, worded as kube-apiserver's `evaluationError`.
    pub evaluation_error: Option<String>,
}

/// The rules of `user` in `namespace`: the privileged group's (for `system:masters`), then
/// every rule of every binding that applies, a rule with resources as a resource rule and one
/// with non-resource URLs as a non-resource rule.
pub fn rules(state: &State, user: &UserInfo, namespace: &str) -> Rules {
    let mut resource_rules = Vec::new();
    let mut non_resource_rules = Vec::new();
    if user.in_group(MASTERS) {
        resource_rules.push(json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}));
        non_resource_rules.push(json!({"verbs": ["*"], "nonResourceURLs": ["*"]}));
    }
    let errors = visit_rules(state, user, namespace, |_, rule| {
        let field = |m: &mut Map<String, Value>, k: &str, v: &[String]| {
            if !v.is_empty() {
                m.insert(k.into(), json!(v));
            }
        };
        if !rule.resources.is_empty() {
            let mut m = Map::new();
            m.insert("verbs".into(), json!(rule.verbs));
            field(&mut m, "apiGroups", &rule.api_groups);
            field(&mut m, "resources", &rule.resources);
            field(&mut m, "resourceNames", &rule.resource_names);
            resource_rules.push(Value::Object(m));
        }
        if !rule.non_resource_urls.is_empty() {
            let mut m = Map::new();
            m.insert("verbs".into(), json!(rule.verbs));
            field(&mut m, "nonResourceURLs", &rule.non_resource_urls);
            non_resource_rules.push(Value::Object(m));
        }
        true
    });
    Rules {
        resource_rules,
        non_resource_rules,
        incomplete: false,
        evaluation_error: (!errors.is_empty()).then(|| aggregate(&errors)),
    }
}

/// Calls `visit` with a description of its source and each rule of each binding that applies
/// to `user` (ClusterRoleBindings, then the RoleBindings of `namespace`) until it returns
/// false; returns the errors of bindings whose role cannot be found.
fn visit_rules(
    state: &State,
    user: &UserInfo,
    namespace: &str,
    mut visit: impl FnMut(&dyn Fn() -> String, &PolicyRule) -> bool,
) -> Vec<String> {
    let mut errors = Vec::new();
    // ClusterRoleBindings apply everywhere ("" below); RoleBindings only in their namespace.
    let mut kinds = vec![(CLUSTER_ROLE_BINDINGS, None, "ClusterRoleBinding", "")];
    if !namespace.is_empty() {
        kinds.push((ROLE_BINDINGS, Some(namespace), "RoleBinding", namespace));
    }
    for (resource, listed_in, kind, scope) in kinds {
        for binding in state.list(resource, listed_in) {
            let Some(subject) = applies_to(user, &binding, scope) else { continue };
            let role_ref = &binding["roleRef"];
            let rules = match role_rules(state, role_ref, scope) {
                Ok(rules) => rules,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let source = || {
                let name = if scope.is_empty() {
                    name_of(&binding).to_owned()
                } else {
                    format!("{}/{scope}", name_of(&binding))
                };
                format!(
                    "{kind} {} of {} {} to {}",
                    go_quote(&name),
                    role_ref["kind"].as_str().unwrap_or_default(),
                    go_quote(role_ref["name"].as_str().unwrap_or_default()),
                    describe_subject(subject, scope)
                )
            };
            for rule in &rules {
                if !visit(&source, rule) {
                    return errors;
                }
            }
        }
    }
    errors
}

fn name_of(obj: &Value) -> &str {
    obj["metadata"]["name"].as_str().unwrap_or_default()
}

/// The rules of the role a binding refers to: a ClusterRole, or a Role of the binding's
/// namespace.
fn role_rules(state: &State, role_ref: &Value, namespace: &str) -> Result<Vec<PolicyRule>, String> {
    let name = role_ref["name"].as_str().unwrap_or_default();
    let role = match role_ref["kind"].as_str().unwrap_or_default() {
        "ClusterRole" => state
            .get(CLUSTER_ROLES, "", name)
            .ok_or_else(|| format!("clusterrole.{GROUP} {} not found", go_quote(name)))?,
        "Role" if !namespace.is_empty() => {
            state.get(ROLES, namespace, name).ok_or_else(|| format!("role.{GROUP} {} not found", go_quote(name)))?
        }
        other => return Err(format!("unsupported role reference kind: {}", go_quote(other))),
    };
    Ok(role["rules"].as_array().into_iter().flatten().map(PolicyRule::from_json).collect())
}

/// The first subject of a binding that names the user (or one of its groups, or its service
/// account, whose namespace defaults to the binding's).
fn applies_to<'b>(user: &UserInfo, binding: &'b Value, namespace: &str) -> Option<&'b Value> {
    binding["subjects"].as_array()?.iter().find(|s| {
        let name = s["name"].as_str().unwrap_or_default();
        match s["kind"].as_str().unwrap_or_default() {
            "User" => user.username == name,
            "Group" => user.in_group(name),
            "ServiceAccount" => {
                let ns = s["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or(namespace);
                !ns.is_empty() && user.username == format!("system:serviceaccount:{ns}:{name}")
            }
            _ => false,
        }
    })
}

fn describe_subject(subject: &Value, binding_namespace: &str) -> String {
    let kind = subject["kind"].as_str().unwrap_or_default();
    let name = subject["name"].as_str().unwrap_or_default();
    if kind == "ServiceAccount" {
        let ns = subject["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or(binding_namespace);
        return format!("{kind} {}", go_quote(&format!("{name}/{ns}")));
    }
    format!("{kind} {}", go_quote(name))
}

/// Errors joined as Go's `utilerrors.NewAggregate(…).Error()`: one as it is, more (without
/// repeats) in brackets.
fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    if errors.len() == 1 || seen.len() == 1 {
        return seen.join("");
    }
    format!("[{}]", seen.join(", "))
}

/// A string as Go's `%q` prints a plain one.
fn go_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The 403 kube-apiserver answers a denied request with (`responsewriters.Forbidden`):
/// `pods "web-1" is forbidden: User "viewer" cannot delete resource "pods" in API group "" in
/// the namespace "demo"`, the reason appended after a colon when there is one, and the details
/// naming the object (`kind` is the resource, as in every Status of apimachinery).
pub fn forbidden(username: &str, attributes: &Attributes, reason: &str) -> ApiError {
    let user = go_quote(username);
    let (message, details) = match attributes {
        Attributes::NonResource { verb, path } => {
            (format!("User {user} cannot {verb} path {}", go_quote(path)), Details::default())
        }
        Attributes::Resource(a) => {
            let resource =
                if a.subresource.is_empty() { a.resource.clone() } else { format!("{}/{}", a.resource, a.subresource) };
            let scope = if a.namespace.is_empty() {
                "at the cluster scope".to_string()
            } else {
                format!("in the namespace {}", go_quote(&a.namespace))
            };
            let message = format!(
                "User {user} cannot {} resource {} in API group {} {scope}",
                a.verb,
                go_quote(&resource),
                go_quote(&a.group)
            );
            let details = Details {
                name: a.name.clone(),
                group: a.group.clone(),
                kind: a.resource.clone(),
                ..Details::default()
            };
            (message, details)
        }
    };
    // kube-apiserver escapes these so that the message cannot carry markup.
    let message = message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let message = if reason.is_empty() { message } else { format!("{message}: {reason}") };
    let qualified =
        if details.group.is_empty() { details.kind.clone() } else { format!("{}.{}", details.kind, details.group) };
    let full = match (qualified.is_empty(), details.name.is_empty()) {
        (true, _) => format!("forbidden: {message}"),
        (false, true) => format!("{qualified} is forbidden: {message}"),
        (false, false) => format!("{qualified} {} is forbidden: {message}", go_quote(&details.name)),
    };
    Status::failure(403, "Forbidden", full).with_details(details).into()
}

#[cfg(test)]
#[path = "rbac_tests.rs"]
mod tests;
