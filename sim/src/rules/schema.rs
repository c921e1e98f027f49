//! Schemas for field validation, strategic merge and apply: the vendored OpenAPI v3 documents
//! (core v1, apps v1, batch v1) with their `x-kubernetes-patch-merge-key` and
//! `x-kubernetes-patch-strategy` extensions, and the CRD's structural schema. Types without a
//! schema here are treated as schemaless: every field is accepted and lists are atomic.
//!
//! Unknown fields of built-in objects come from their Kubernetes 1.36 types (`typed.rs`), as
//! kube-apiserver finds them by decoding; the vendored documents predate fields that 1.36
//! objects carry (`status.hostIPs`, for one), so they only decide for custom resources and for
//! a body that does not decode into its type.

use std::collections::HashMap;

use serde_json::Value;

use kube_wire::codec::value::Value as LibValue;
use kube_wire::schema::OpenApiSchemas;
use kube_wire::validate::{validate, Lenient, Refusal};

use crate::openapi::documents;
use crate::rules::status::FieldError;
use crate::rules::typed::Types;
use crate::store::registry::ResourceType;

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

pub struct Schemas {
    components: HashMap<String, Value>,
    by_gvk: HashMap<(String, String, String), String>,
    typed: Types,
    /// The same documents as the explorer's library reads them: it words a decode error as Go's
    /// decoder does (`typed.rs` finds that the body does not decode; this says where and why).
    openapi: OpenApiSchemas,
}

impl Schemas {
    pub fn load() -> Result<Schemas, String> {
        let mut components = HashMap::new();
        let mut by_gvk = HashMap::new();
        let mut openapi = OpenApiSchemas::default();
        for path in ["api/v1", "apis/apps/v1", "apis/batch/v1"] {
            let text = documents::builtin_openapi(path).ok_or_else(|| format!("no OpenAPI document for {path}"))?;
            openapi.add_json(text.as_bytes()).map_err(|e| format!("OpenAPI {path}: {e}"))?;
            let doc: Value = serde_json::from_str(text).map_err(|e| format!("OpenAPI {path}: {e}"))?;
            if let Some(schemas) = doc["components"]["schemas"].as_object() {
                for (name, schema) in schemas {
                    for gvk in schema["x-kubernetes-group-version-kind"].as_array().into_iter().flatten() {
                        let key = (
                            gvk["group"].as_str().unwrap_or_default().to_string(),
                            gvk["version"].as_str().unwrap_or_default().to_string(),
                            gvk["kind"].as_str().unwrap_or_default().to_string(),
                        );
                        by_gvk.entry(key).or_insert_with(|| name.clone());
                    }
                    components.insert(name.clone(), schema.clone());
                }
            }
        }
        Ok(Schemas { components, by_gvk, typed: Types::new(), openapi })
    }

    /// The root schema of a type, if one is known.
    pub fn root<'a>(&'a self, rt: &'a ResourceType) -> Option<&'a Value> {
        if let Some(c) = &rt.custom {
            return Some(&c.schema);
        }
        let name = self.by_gvk.get(&(rt.group.clone(), rt.version.clone(), rt.kind.clone()))?;
        self.components.get(name)
    }

    /// Follows `$ref` and single-element `allOf` wrappers.
    pub fn resolve<'a>(&'a self, mut s: &'a Value) -> &'a Value {
        for _ in 0..16 {
            if let Some(r) = s["$ref"].as_str() {
                match r.strip_prefix("#/components/schemas/").and_then(|n| self.components.get(n)) {
                    Some(target) => s = target,
                    None => return s,
                }
            } else if let Some([inner]) = s["allOf"].as_array().map(Vec::as_slice) {
                s = inner;
            } else {
                return s;
            }
        }
        s
    }

    /// The schema of field `key` under `parent`; `metadata` of a CRD resolves to ObjectMeta.
    pub fn child<'a>(&'a self, parent: &'a Value, key: &str, at_root: bool) -> Option<&'a Value> {
        let p = self.resolve(parent);
        if let Some(s) = p["properties"].get(key) {
            return Some(self.resolve(s));
        }
        if at_root && key == "metadata" {
            return self.components.get(OBJECT_META);
        }
        match &p["additionalProperties"] {
            Value::Object(_) => Some(self.resolve(&p["additionalProperties"])),
            _ => None,
        }
    }

    pub fn items<'a>(&'a self, list: &'a Value) -> Option<&'a Value> {
        let l = self.resolve(list);
        l.get("items").map(|i| self.resolve(i))
    }

    /// The merge key of a list field for strategic merge and apply, if it is a keyed list.
    pub fn merge_keys(&self, list: &Value) -> Option<Vec<String>> {
        if let Some(k) = list["x-kubernetes-patch-merge-key"].as_str() {
            return Some(vec![k.to_string()]);
        }
        if list["x-kubernetes-list-type"] == "map" {
            return list["x-kubernetes-list-map-keys"]
                .as_array()
                .map(|a| a.iter().filter_map(|k| k.as_str().map(str::to_string)).collect());
        }
        None
    }

    pub fn merges(&self, list: &Value) -> bool {
        list["x-kubernetes-patch-strategy"].as_str().is_some_and(|s| s.split(',').any(|p| p == "merge"))
            || matches!(list["x-kubernetes-list-type"].as_str(), Some("map" | "set"))
    }

    /// Why a built-in object does not decode into its Go type, in Go's decoder's words
    /// (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type
    /// int32`), or `None` when it decodes. kube-apiserver refuses such a body (400) at any
    /// validation level and names only the first error; unknown fields are then not reported.
    pub fn decode_error(&self, rt: &ResourceType, obj: &Value) -> Option<String> {
        if rt.custom.is_some() || self.typed.unknown_fields(&rt.group, &rt.version, &rt.kind, obj).is_some() {
            return None;
        }
        // The type refused it (k8s-openapi's types also refuse a missing required field, which Go
        // accepts): only a problem Go's decoder has too counts.
        let read = Lenient { value: LibValue::from_serde_json(obj), duplicates: Vec::new() };
        let problems = validate(&read, &self.openapi).ok()?;
        problems.into_iter().find(|p| p.refusal == Refusal::Decode).map(|p| p.message)
    }

    /// Fields of `obj` that the schema does not know, as `spec.foo` / `spec.containers[0].bar`.
    pub fn unknown_fields(&self, rt: &ResourceType, obj: &Value) -> Vec<String> {
        if rt.custom.is_none() {
            if let Some(found) = self.typed.unknown_fields(&rt.group, &rt.version, &rt.kind, obj) {
                return found;
            }
        }
        let mut out = Vec::new();
        if let Some(root) = self.root(rt) {
            self.walk_unknown(root, obj, "", true, &mut out);
        }
        out
    }

    fn open(&self, s: &Value) -> bool {
        let s = self.resolve(s);
        s["x-kubernetes-preserve-unknown-fields"] == true
            || (s.get("properties").is_none()
                && !matches!(s["additionalProperties"], Value::Bool(false))
                && s["type"] != "array")
    }

    fn walk_unknown(&self, schema: &Value, v: &Value, path: &str, at_root: bool, out: &mut Vec<String>) {
        let schema = self.resolve(schema);
        match v {
            Value::Object(m) => {
                if self.open(schema)
                    && schema.get("properties").is_none()
                    && !schema["additionalProperties"].is_object()
                {
                    return;
                }
                for (k, child) in m {
                    if at_root && (k == "apiVersion" || k == "kind") {
                        continue;
                    }
                    let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    match self.child(schema, k, at_root) {
                        Some(cs) => self.walk_unknown(cs, child, &p, false, out),
                        None if schema["x-kubernetes-preserve-unknown-fields"] == true => {}
                        None => out.push(p),
                    }
                }
            }
            Value::Array(items) => {
                if let Some(is) = self.items(schema) {
                    for (i, item) in items.iter().enumerate() {
                        self.walk_unknown(is, item, &format!("{path}[{i}]"), false, out);
                    }
                }
            }
            _ => {}
        }
    }

    /// Value checks of a structural (CRD) schema: type, enum, minimum/maximum, required.
    pub fn validate_values(&self, rt: &ResourceType, obj: &Value) -> Vec<FieldError> {
        let mut out = Vec::new();
        if rt.group == "batch" && rt.kind == "CronJob" {
            out.extend(cron_schedule_errors(obj));
        }
        if rt.custom.is_none() {
            out.extend(crate::rules::required::errors(rt, obj));
        }
        if let Some(c) = &rt.custom {
            for part in ["spec", "status"] {
                if let (Some(s), Some(v)) = (c.schema["properties"].get(part), obj.get(part)) {
                    check_value(s, v, part, &mut out);
                }
            }
        }
        out
    }

    /// Fills `default`s of a structural schema, as the real server does for custom resources,
    /// and the defaults of built-in kinds (`defaults.rs`).
    pub fn apply_defaults(&self, rt: &ResourceType, obj: &mut Value) {
        match &rt.custom {
            Some(c) => default_into(&c.schema, obj),
            None => crate::rules::defaults::apply(rt, obj),
        }
    }
}

/// `validateScheduleFormat` of a CronJob (`pkg/apis/batch/validation`): the schedule must parse
/// as cron does and may not carry a time zone (that is `spec.timeZone`'s job).
fn cron_schedule_errors(obj: &Value) -> Vec<FieldError> {
    let Some(schedule) = obj["spec"]["schedule"].as_str() else {
        return vec![FieldError::required("spec.schedule", "")];
    };
    let mut out = Vec::new();
    if let Err(e) = crate::rules::cron::Schedule::parse(schedule) {
        out.push(FieldError::invalid("spec.schedule", &Value::from(schedule), e));
    }
    if schedule.contains("TZ") {
        out.push(FieldError::invalid(
            "spec.schedule",
            &Value::from(schedule),
            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
        ));
    }
    out
}

fn default_into(schema: &Value, v: &mut Value) {
    let Some(props) = schema["properties"].as_object() else { return };
    let Some(m) = v.as_object_mut() else { return };
    for (k, s) in props {
        if !m.contains_key(k) {
            if let Some(d) = s.get("default") {
                m.insert(k.clone(), d.clone());
            }
        }
        if let Some(child) = m.get_mut(k) {
            default_into(s, child);
        }
    }
}

fn type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        _ => true,
    }
}

fn check_value(s: &Value, v: &Value, path: &str, out: &mut Vec<FieldError>) {
    if v.is_null() && s["nullable"] != true {
        return;
    }
    let int_or_string = s["x-kubernetes-int-or-string"] == true;
    let expected = if int_or_string { Some("integer,string") } else { s["type"].as_str() };
    if let Some(ty) = expected {
        let ok = if int_or_string { type_matches("integer", v) || v.is_string() } else { type_matches(ty, v) };
        if !ok {
            out.push(FieldError {
                reason: "FieldValueTypeInvalid",
                field: path.to_string(),
                detail: format!(
                    "Invalid value: \"{}\": {path} in body must be of type {ty}: \"{}\"",
                    json_type(v),
                    json_type(v)
                ),
            });
            return;
        }
    }
    if let Some(options) = s["enum"].as_array() {
        if !options.contains(v) {
            let list: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            out.push(FieldError {
                reason: "FieldValueNotSupported",
                field: path.to_string(),
                detail: format!("Unsupported value: {v}: supported values: {}", list.join(", ")),
            });
        }
    }
    if let (Some(max), Some(n)) = (s["maximum"].as_f64(), v.as_f64()) {
        if n > max {
            out.push(FieldError::invalid(path, v, format!("{path} in body should be less than or equal to {max}")));
        }
    }
    if let (Some(min), Some(n)) = (s["minimum"].as_f64(), v.as_f64()) {
        if n < min {
            out.push(FieldError::invalid(path, v, format!("{path} in body should be greater than or equal to {min}")));
        }
    }
    if let Value::Object(m) = v {
        for r in s["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !m.contains_key(r) {
                out.push(FieldError::required(&format!("{path}.{r}"), ""));
            }
        }
        if let Some(props) = s["properties"].as_object() {
            for (k, child) in m {
                if let Some(cs) = props.get(k) {
                    check_value(cs, child, &format!("{path}.{k}"), out);
                }
            }
        }
    }
    if let (Value::Array(items), Some(is)) = (v, s.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check_value(is, item, &format!("{path}[{i}]"), out);
        }
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;
    use serde_json::json;

    #[test]
    fn unknown_fields_of_a_pod_and_a_widget() {
        let schemas = Schemas::load().expect("schemas load");
        let registry = Registry::load().expect("registry loads");
        let pods = registry.find("", "v1", "pods").expect("pods");
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "y"}},
            "spec": {"containers": [{"name": "c", "image": "i", "bogus": 1}], "foo": true}});
        assert_eq!(schemas.unknown_fields(&pods, &pod), vec!["spec.containers[0].bogus", "spec.foo"]);
        let widgets = registry.find("example.com", "v1", "widgets").expect("widgets");
        let w = json!({"metadata": {"name": "w"}, "spec": {"size": "small", "bogus": 1}});
        assert_eq!(schemas.unknown_fields(&widgets, &w), vec!["spec.bogus"]);
    }

    #[test]
    fn fields_a_kubernetes_1_36_pod_carries_are_not_unknown() {
        let schemas = Schemas::load().expect("schemas load");
        let registry = Registry::load().expect("registry loads");
        let pods = registry.find("", "v1", "pods").expect("pods");
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"hostIP": "172.18.0.2", "hostIPs": [{"ip": "172.18.0.2"}], "podIP": "10.244.1.7"}});
        assert_eq!(schemas.unknown_fields(&pods, &pod), Vec::<String>::new());
    }

    #[test]
    fn widget_values_are_checked() {
        let schemas = Schemas::load().expect("schemas load");
        let registry = Registry::load().expect("registry loads");
        let widgets = registry.find("example.com", "v1", "widgets").expect("widgets");
        let errors = schemas.validate_values(&widgets, &json!({"spec": {"size": "small", "replicas": 99}}));
        assert_eq!(errors[0].detail, "Invalid value: 99: spec.replicas in body should be less than or equal to 10");
        // As the real server words a missing required field (k8s-openapi v1.34 recording: FooBar
        // without spec.prop2 → "Required value", no trailing detail).
        let errors = schemas.validate_values(&widgets, &json!({"spec": {"replicas": 1}}));
        assert_eq!((errors[0].field.as_str(), errors[0].detail.as_str()), ("spec.size", "Required value"));
    }

    #[test]
    fn a_built_in_object_of_the_wrong_go_type_gets_go_s_decode_error() {
        let schemas = Schemas::load().expect("schemas load");
        let registry = Registry::load().expect("registry loads");
        let deployments = registry.find("apps", "v1", "deployments").expect("deployments");
        let bad = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": "three", "selector": {"matchLabels": {"a": "b"}}, "template": {}}});
        assert_eq!(
            schemas.decode_error(&deployments, &bad).as_deref(),
            Some("json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")
        );
        // A body k8s-openapi refuses only for a missing required field decodes in Go.
        let partial =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2}});
        assert_eq!(schemas.decode_error(&deployments, &partial), None);
        let widgets = registry.find("example.com", "v1", "widgets").expect("widgets");
        assert_eq!(schemas.decode_error(&widgets, &json!({"spec": {"replicas": "x"}})), None);
    }
}
