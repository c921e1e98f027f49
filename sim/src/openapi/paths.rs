//! The paths (operations) of a resource type in an OpenAPI v3 document, made from the paths
//! real servers serve for another type, as kube-apiserver makes every type's from the same
//! route builder: the operations of `deployments` (namespaced, with `status` and `scale`) in the
//! vendored apps/v1 document and of `persistentvolumes` (cluster-scoped, with `status`) in the
//! vendored core/v1 one for built-in types, and of `widgets` in the recorded 1.36.3 CRD document
//! (real-apiserver 155) for custom resources. The template's names are replaced by the type's
//! (operation ids, tags, descriptions, `$ref`s, `x-kubernetes-group-version-kind`), and only the
//! operations its verbs allow are kept.

use serde_json::{Map, Value};

use super::convert::V3_PREFIX;
use crate::store::registry::ResourceType;

/// The paths of one resource type of a real document, and the names to replace in them.
pub struct Template {
    /// `/apis/apps/v1`, `/api/v1`.
    prefix: String,
    plural: String,
    kind: String,
    /// `AppsV1`, as in `listAppsV1NamespacedDeployment`.
    infix: String,
    /// `apps_v1`.
    tag: String,
    /// The component names of the kind and its list.
    schema: String,
    list_schema: String,
    /// Paths relative to `prefix`, with their items.
    paths: Vec<(String, Value)>,
    /// The group version's own path (`/apis/apps/v1/`), if the document has it.
    root: Option<Value>,
}

/// What a template is instantiated for.
pub struct Target<'a> {
    pub rt: &'a ResourceType,
    /// The component names of the kind and its list.
    pub schema: &'a str,
    pub list_schema: &'a str,
}

impl Template {
    /// The paths of `plural` in `doc`, a real group version document.
    pub fn from_document(
        doc: &Value,
        group: &str,
        version: &str,
        plural: &str,
        kind: &str,
    ) -> Result<Template, String> {
        let prefix = prefix(group, version);
        let all = doc["paths"].as_object().ok_or("an OpenAPI document without paths")?;
        let mut paths = Vec::new();
        for (path, item) in all {
            let Some(rest) = path.strip_prefix(&prefix) else { continue };
            if rest.split('/').any(|s| s == plural) {
                paths.push((rest.to_string(), item.clone()));
            }
        }
        if paths.is_empty() {
            return Err(format!("no paths of {plural} under {prefix}"));
        }
        let find = |k: &str| -> Result<String, String> {
            let schemas = doc["components"]["schemas"].as_object().ok_or("an OpenAPI document without schemas")?;
            schemas
                .iter()
                .find(|(_, s)| {
                    s["x-kubernetes-group-version-kind"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|gvk| gvk["group"] == group && gvk["version"] == version && gvk["kind"] == k)
                })
                .map(|(name, _)| name.clone())
                .ok_or_else(|| format!("no schema of {group}/{version} {k}"))
        };
        Ok(Template {
            root: all.get(&format!("{prefix}/")).cloned(),
            infix: infix(group, version),
            tag: tag(group, version),
            schema: find(kind)?,
            list_schema: find(&format!("{kind}List"))?,
            prefix,
            plural: plural.to_string(),
            kind: kind.to_string(),
            paths,
        })
    }

    /// The same template for a cluster-scoped type: no namespace in paths, parameters and
    /// operation ids, and no list across namespaces (the collection is that list).
    pub fn cluster_scoped(&self) -> Template {
        let mut paths = Vec::new();
        for (path, item) in &self.paths {
            if !path.contains("{namespace}") {
                continue;
            }
            let path = path.replace("/namespaces/{namespace}", "");
            let mut item = item.clone();
            if let Some(m) = item.as_object_mut() {
                for (key, value) in m.iter_mut() {
                    if key == "parameters" {
                        if let Some(params) = value.as_array_mut() {
                            params.retain(|p| p["name"] != "namespace");
                        }
                    } else if let Some(id) = value.get_mut("operationId") {
                        *id = Value::String(id.as_str().unwrap_or_default().replace("Namespaced", ""));
                    }
                }
            }
            paths.push((path, item));
        }
        Template {
            prefix: self.prefix.clone(),
            plural: self.plural.clone(),
            kind: self.kind.clone(),
            infix: self.infix.clone(),
            tag: self.tag.clone(),
            schema: self.schema.clone(),
            list_schema: self.list_schema.clone(),
            paths,
            root: self.root.clone(),
        }
    }

    /// The paths of `target`, keyed by absolute path.
    pub fn instantiate(&self, target: &Target) -> Vec<(String, Value)> {
        let rt = target.rt;
        let names = Names {
            from: self,
            kind: &rt.kind,
            infix: infix(&rt.group, &rt.version),
            tag: tag(&rt.group, &rt.version),
            schema: target.schema,
            list_schema: target.list_schema,
            group: &rt.group,
            version: &rt.version,
        };
        let prefix = prefix(&rt.group, &rt.version);
        let mut out = Vec::new();
        for (path, item) in &self.paths {
            let segments: Vec<&str> = path.split('/').collect();
            let sub_at = segments.iter().position(|s| *s == "{name}").map(|i| i + 1);
            let template_sub = sub_at.and_then(|i| segments.get(i)).copied();
            match template_sub {
                None => {
                    let item = names.apply(item);
                    if let Some(item) = keep_allowed(item, &rt.verbs) {
                        out.push((format!("{prefix}{}", replace_plural(path, &self.plural, &rt.plural)), item));
                    }
                }
                Some(sub) => {
                    for s in &rt.subresources {
                        // Built-in subresources other than status and scale (approval) have the
                        // shape of status; core's others (log, exec…) are in the vendored document.
                        let from = if self.paths.iter().any(|(p, _)| p.ends_with(&format!("{{name}}/{}", s.name))) {
                            s.name.as_str()
                        } else if s.name != "scale" {
                            "status"
                        } else {
                            continue;
                        };
                        if from != sub {
                            continue;
                        }
                        let mut item = names.apply(item);
                        if from != s.name {
                            rename_subresource(&mut item, from, &s.name);
                        }
                        if let Some(item) = keep_allowed(item, &s.verbs) {
                            let path = replace_plural(path, &self.plural, &rt.plural)
                                .replace(&format!("{{name}}/{from}"), &format!("{{name}}/{}", s.name));
                            out.push((format!("{prefix}{path}"), item));
                        }
                    }
                }
            }
        }
        out
    }

    /// The group version's own path (`getAppsV1APIResources`) for `group`/`version`.
    pub fn root(&self, group: &str, version: &str) -> Option<(String, Value)> {
        let root = self.root.as_ref()?;
        let item = replace_strings(root, &|s| {
            s.replace(&self.infix, &infix(group, version)).replace(&self.tag, &tag(group, version))
        });
        Some((format!("{}/", prefix(group, version)), item))
    }
}

struct Names<'a> {
    from: &'a Template,
    kind: &'a str,
    infix: String,
    tag: String,
    schema: &'a str,
    list_schema: &'a str,
    group: &'a str,
    version: &'a str,
}

impl Names<'_> {
    fn apply(&self, item: &Value) -> Value {
        let from = self.from;
        let mut item = replace_strings(item, &|s| {
            if let Some(name) = s.strip_prefix(V3_PREFIX) {
                if name == from.schema {
                    return format!("{V3_PREFIX}{}", self.schema);
                }
                if name == from.list_schema {
                    return format!("{V3_PREFIX}{}", self.list_schema);
                }
                return s.to_string();
            }
            s.replace(&from.infix, &self.infix).replace(&from.tag, &self.tag).replace(&from.kind, self.kind)
        });
        set_gvk(&mut item, &from.kind, self.group, self.version, self.kind);
        item
    }
}

/// `x-kubernetes-group-version-kind` objects of the template's kind become the target's (those
/// of other kinds, such as a scale subresource's autoscaling/v1 Scale, stay).
fn set_gvk(v: &mut Value, template_kind: &str, group: &str, version: &str, kind: &str) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                if k == "x-kubernetes-group-version-kind" {
                    // The kind was already renamed with every other string.
                    if child["kind"] == kind || child["kind"] == template_kind {
                        *child = serde_json::json!({"group": group, "version": version, "kind": kind});
                    }
                } else {
                    set_gvk(child, template_kind, group, version, kind);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| set_gvk(i, template_kind, group, version, kind)),
        _ => {}
    }
}

fn rename_subresource(item: &mut Value, from: &str, to: &str) {
    let (from_title, to_title) = (title(from), title(to));
    for (key, op) in item.as_object_mut().into_iter().flatten() {
        if key == "parameters" {
            continue;
        }
        for field in ["operationId", "description"] {
            if let Some(Value::String(s)) = op.get_mut(field) {
                *s = s.replace(&from_title, &to_title).replace(from, to);
            }
        }
    }
}

/// Keeps the operations whose verb the type allows; `None` when none is left.
fn keep_allowed(mut item: Value, verbs: &[String]) -> Option<Value> {
    let m = item.as_object_mut()?;
    m.retain(|key, op| {
        key == "parameters"
            || match op["x-kubernetes-action"].as_str() {
                Some("list") => verbs.iter().any(|v| v == "list"),
                Some("watch" | "watchlist") => verbs.iter().any(|v| v == "watch"),
                Some("get") => verbs.iter().any(|v| v == "get"),
                Some("post") => verbs.iter().any(|v| v == "create"),
                Some("put") => verbs.iter().any(|v| v == "update"),
                Some("patch") => verbs.iter().any(|v| v == "patch"),
                Some("delete") => verbs.iter().any(|v| v == "delete"),
                Some("deletecollection") => verbs.iter().any(|v| v == "deletecollection"),
                _ => false,
            }
    });
    (m.keys().any(|k| k != "parameters")).then_some(item)
}

fn replace_strings(v: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match v {
        Value::String(s) => Value::String(f(s)),
        Value::Array(items) => Value::Array(items.iter().map(|i| replace_strings(i, f)).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), replace_strings(v, f))).collect::<Map<_, _>>())
        }
        other => other.clone(),
    }
}

fn replace_plural(path: &str, from: &str, to: &str) -> String {
    path.split('/').map(|s| if s == from { to } else { s }).collect::<Vec<_>>().join("/")
}

fn title(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

pub fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

/// The group's words as kube-apiserver names operations: `rbac.authorization.k8s.io` is
/// `RbacAuthorization`, `example.com` is `ExampleCom`, the core group `Core`.
fn group_words(group: &str) -> Vec<String> {
    if group.is_empty() {
        return vec!["Core".into()];
    }
    let group = group.strip_suffix(".k8s.io").unwrap_or(group);
    group.split('.').filter(|w| !w.is_empty()).map(title).collect()
}

/// `AppsV1`, `RbacAuthorizationV1`, `ExampleComV1beta1`.
pub fn infix(group: &str, version: &str) -> String {
    format!("{}{}", group_words(group).concat(), title(version))
}

/// `apps_v1`, `rbacAuthorization_v1`, `core_v1`.
pub fn tag(group: &str, version: &str) -> String {
    let words = group_words(group).concat();
    let mut chars = words.chars();
    let lower: String = chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default();
    format!("{lower}_{version}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_kube_apiserver() {
        assert_eq!(infix("rbac.authorization.k8s.io", "v1"), "RbacAuthorizationV1");
        assert_eq!(tag("rbac.authorization.k8s.io", "v1"), "rbacAuthorization_v1");
        assert_eq!(infix("example.com", "v1beta1"), "ExampleComV1beta1");
        assert_eq!(tag("example.com", "v1"), "exampleCom_v1");
        assert_eq!(infix("", "v1"), "CoreV1");
        assert_eq!(tag("flowcontrol.apiserver.k8s.io", "v1"), "flowcontrolApiserver_v1");
        assert_eq!(prefix("", "v1"), "/api/v1");
    }
}
