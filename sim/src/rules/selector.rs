//! Label selectors (`=`, `==`, `!=`, `in`, `notin`, exists, `!`exists, `>`/`<`) and field
//! selectors (`=`, `==`, `!=` over the fields each type supports), parsed once per request and
//! matched against objects.

use kube_wire::selector as grammar;
use serde_json::Value;

use crate::store::object;
use crate::store::registry::ResourceType;

/// A label selector parsed by the explorer's own grammar (`api::selector`), matched against objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(grammar::LabelSelector);

impl LabelSelector {
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        grammar::LabelSelector::parse(s).map(LabelSelector).map_err(|e| e.message.to_string())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        let labels = object::labels(obj);
        self.0.matches(|k| labels.and_then(|l| l.get(k)).and_then(Value::as_str))
    }
}

/// Whether a `metav1.LabelSelector` object (matchLabels, matchExpressions) matches an object's
/// labels (`metav1.LabelSelectorAsSelector`: every requirement holds; `{}` matches everything).
pub fn object_selector_matches(selector: &Value, obj: &Value) -> bool {
    let labels = object::labels(obj);
    let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    let labels_match = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| label(k).is_some_and(|l| Some(l) == v.as_str()));
    let expressions_match = selector["matchExpressions"].as_array().into_iter().flatten().all(|e| {
        let key = e["key"].as_str().unwrap_or_default();
        let values: Vec<&str> = e["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        match e["operator"].as_str().unwrap_or_default() {
            "In" => label(key).is_some_and(|l| values.contains(&l)),
            "NotIn" => label(key).is_none_or(|l| !values.contains(&l)),
            "Exists" => label(key).is_some(),
            "DoesNotExist" => label(key).is_none(),
            _ => false,
        }
    });
    labels_match && expressions_match
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

/// Fields a type can be selected by, besides metadata.name and metadata.namespace.
fn supported_fields(rt: &ResourceType) -> Vec<String> {
    let fixed: &[&str] = match (rt.group.as_str(), rt.plural.as_str()) {
        ("", "pods") => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        ("", "events") | ("events.k8s.io", "events") => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        ("", "secrets") => &["type"],
        ("", "namespaces") => &["status.phase"],
        ("", "nodes") => &["spec.unschedulable"],
        ("", "services") => &["spec.clusterIP", "spec.type"],
        ("", "replicationcontrollers") | ("apps", "replicasets") => &["status.replicas"],
        ("batch", "jobs") => &["status.successful"],
        _ => &[],
    };
    let mut out: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
    if let Some(c) = &rt.custom {
        out.extend(c.selectable_fields.iter().cloned());
    }
    out
}

fn field_value(obj: &Value, field: &str) -> String {
    match field {
        "source" => object::path(obj, "source.component"),
        "spec.unschedulable" | "spec.hostNetwork" => {
            return object::path(obj, field).and_then(Value::as_bool).unwrap_or(false).to_string()
        }
        f => object::path(obj, f),
    }
    .map(|v| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    })
    .unwrap_or_default()
}

impl FieldSelector {
    pub fn parse(s: &str, rt: &ResourceType) -> Result<FieldSelector, String> {
        let parsed = grammar::FieldSelector::parse(s).map_err(|e| e.message.to_string())?;
        let supported = supported_fields(rt);
        let mut reqs = Vec::new();
        for mut r in parsed.0 {
            // events.k8s.io labels select the stored core Event's fields (`rules::events`).
            if crate::rules::events::is_events_group(&rt.group, &rt.plural) {
                r.field = crate::rules::events::core_field_label(&r.field)
                    .ok_or_else(|| format!("field label not supported: {}", r.field))?;
            }
            let k = r.field.as_str();
            if k != "metadata.name" && k != "metadata.namespace" && !supported.iter().any(|f| f == k) {
                return Err(format!("field label not supported: {k}"));
            }
            reqs.push((r.field, r.equals, r.value));
        }
        Ok(FieldSelector(reqs))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        self.0.iter().all(|(k, eq, v)| (field_value(obj, k) == *v) == *eq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(selector: &str, labels: Value, expect: bool) {
        let sel = LabelSelector::parse(selector).expect("selector parses");
        assert_eq!(sel.matches(&json!({"metadata": {"labels": labels}})), expect, "{selector}");
    }

    #[test]
    fn label_operators() {
        check("app=web", json!({"app": "web"}), true);
        check("app==web,tier!=front", json!({"app": "web", "tier": "back"}), true);
        check("tier in (front, back)", json!({"tier": "back"}), true);
        check("tier notin (front,back)", json!({"tier": "back"}), false);
        check("tier notin (front,back)", json!({}), true);
        check("tier", json!({"tier": "x"}), true);
        check("!tier", json!({"tier": "x"}), false);
    }

    #[test]
    fn bad_label_selector_is_an_error() {
        assert!(LabelSelector::parse("app in web").is_err());
        assert!(LabelSelector::parse("a b=c").is_err());
    }
}
