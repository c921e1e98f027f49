//! Label selectors (`=`, `==`, `!=`, `in`, `notin`, exists, `!`exists, `>`/`<`) and field
//! selectors (`=`, `==`, `!=` over the fields each type supports), parsed once per request and
//! matched against objects.

use serde_json::Value;

use crate::object;
use crate::registry::ResourceType;

#[derive(Debug, Clone, PartialEq)]
enum LabelOp {
    Eq(String),
    NotEq(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    NotExists,
    Gt(i64),
    Lt(i64),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<(String, LabelOp)>);

/// Splits on commas that are not inside parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 317
        && k.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_value(v: &str) -> bool {
    v.len() <= 63 && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn set_values(rest: &str) -> Option<Vec<String>> {
    let inner = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    let vals: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect();
    (!vals.is_empty() && vals.iter().all(|v| valid_value(v))).then_some(vals)
}

impl LabelSelector {
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(LabelSelector(reqs));
        }
        for part in split_top(s) {
            let p = part.trim();
            let bad = || {
                format!("unable to parse requirement: found '{p}', expected: identifier, '!', 'in', 'notin', '=', '==', '!='")
            };
            let req = if let Some(key) = p.strip_prefix('!') {
                (key.trim().to_string(), LabelOp::NotExists)
            } else if let Some((k, v)) = p.split_once("!=") {
                (k.trim().to_string(), LabelOp::NotEq(v.trim().to_string()))
            } else if let Some((k, v)) = p.split_once("==") {
                (k.trim().to_string(), LabelOp::Eq(v.trim().to_string()))
            } else if let Some((k, v)) = p.split_once('=') {
                (k.trim().to_string(), LabelOp::Eq(v.trim().to_string()))
            } else if let Some((k, v)) = p.split_once('>') {
                (k.trim().to_string(), LabelOp::Gt(v.trim().parse().map_err(|_| bad())?))
            } else if let Some((k, v)) = p.split_once('<') {
                (k.trim().to_string(), LabelOp::Lt(v.trim().parse().map_err(|_| bad())?))
            } else if let Some((k, rest)) = p.split_once(" notin ") {
                (k.trim().to_string(), LabelOp::NotIn(set_values(rest).ok_or_else(bad)?))
            } else if let Some((k, rest)) = p.split_once(" in ") {
                (k.trim().to_string(), LabelOp::In(set_values(rest).ok_or_else(bad)?))
            } else {
                (p.to_string(), LabelOp::Exists)
            };
            if !valid_key(&req.0) {
                return Err(bad());
            }
            if let LabelOp::Eq(v) | LabelOp::NotEq(v) = &req.1 {
                if !valid_value(v) {
                    return Err(format!("unable to parse requirement: values[0][{}]: Invalid value: \"{v}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", req.0));
                }
            }
            reqs.push(req);
        }
        Ok(LabelSelector(reqs))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        let labels = object::labels(obj);
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.0.iter().all(|(k, op)| match op {
            LabelOp::Eq(v) => get(k) == Some(v.as_str()),
            LabelOp::NotEq(v) => get(k) != Some(v.as_str()),
            LabelOp::In(vs) => get(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            LabelOp::NotIn(vs) => get(k).is_none_or(|l| vs.iter().all(|v| v != l)),
            LabelOp::Exists => get(k).is_some(),
            LabelOp::NotExists => get(k).is_none(),
            LabelOp::Gt(n) => get(k).and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l > *n),
            LabelOp::Lt(n) => get(k).and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l < *n),
        })
    }
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
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(FieldSelector(reqs));
        }
        let supported = supported_fields(rt);
        for part in s.split(',') {
            let p = part.trim();
            let (k, eq, v) = if let Some((k, v)) = p.split_once("!=") {
                (k, false, v)
            } else if let Some((k, v)) = p.split_once("==") {
                (k, true, v)
            } else if let Some((k, v)) = p.split_once('=') {
                (k, true, v)
            } else {
                return Err(format!("invalid selector: '{s}'; can't understand '{p}'"));
            };
            let k = k.trim();
            if k != "metadata.name" && k != "metadata.namespace" && !supported.iter().any(|f| f == k) {
                return Err(format!("field label not supported: {k}"));
            }
            reqs.push((k.to_string(), eq, v.trim().to_string()));
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
