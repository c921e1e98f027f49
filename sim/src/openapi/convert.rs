//! Conversions between the swagger 2.0 (`/openapi/v2`) and OpenAPI 3.0 (`/openapi/v3/…`) forms
//! of the same schemas and operations, as kube-apiserver builds both from one description, and
//! the `$ref` walk that collects what a document references.
//!
//! Schemas: v2 writes `{"$ref": …, "description": …}`; v3 wraps a reference that has siblings in
//! `allOf` (`{"allOf": [{"$ref": …}], "description": …}`) and points into
//! `#/components/schemas/` instead of `#/definitions/`. v3 also carries `default`, and custom
//! resource schemas `nullable`, which v2 leaves out (real-apiserver 153 against 155).
//!
//! Custom resource schemas lose in v2 what kubectl's v2 reader cannot take, as apiextensions'
//! `ToStructuralOpenAPIV2` does: `allOf`, `anyOf`, `oneOf` and `not`, and the type, items and
//! properties of a `nullable` or `x-kubernetes-preserve-unknown-fields` schema.
//!
//! Operations: v3 parameters hold a `schema`, v2 ones the type itself; a v3 `requestBody`
//! becomes the v2 `body` parameter (required for create, update and patch) and `consumes`; the
//! content types of the responses become `produces`; v2 has `schemes: ["https"]`. The real
//! 1.36.3 server (real-apiserver 153) writes a built-in operation without its `401` response and
//! with `consumes: ["*/*"]` when it takes no body, a custom resource's with both its `401` and
//! `consumes: ["application/json", "application/yaml"]`.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

pub const V2_PREFIX: &str = "#/definitions/";
pub const V3_PREFIX: &str = "#/components/schemas/";

/// A swagger 2.0 schema in its OpenAPI v3 form.
pub fn schema_to_v3(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let v = match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => json!(r.replacen(V2_PREFIX, V3_PREFIX, 1)),
                    ("enum" | "required" | "x-kubernetes-group-version-kind" | "x-kubernetes-list-map-keys", _) => {
                        v.clone()
                    }
                    ("properties", Value::Object(props)) => {
                        Value::Object(props.iter().map(|(p, s)| (p.clone(), schema_to_v3(s))).collect())
                    }
                    _ => schema_to_v3(v),
                };
                out.insert(k.clone(), v);
            }
            if out.len() > 1 {
                if let Some(r) = out.remove("$ref") {
                    out.insert("allOf".into(), json!([{"$ref": r}]));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(schema_to_v3).collect()),
        other => other.clone(),
    }
}

/// An OpenAPI v3 schema in its swagger 2.0 form.
pub fn schema_to_v2(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => {
            let mut out = Map::new();
            let untyped = m.get("nullable") == Some(&Value::Bool(true))
                || m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
            for (k, v) in m {
                let v = match (k.as_str(), v) {
                    ("default" | "nullable" | "anyOf" | "oneOf" | "not", _) => continue,
                    ("type" | "items" | "properties", _) if untyped => continue,
                    ("$ref", Value::String(r)) => json!(r.replacen(V3_PREFIX, V2_PREFIX, 1)),
                    ("allOf", Value::Array(all)) => {
                        if let [only] = all.as_slice() {
                            if let Some(r) = only["$ref"].as_str() {
                                out.insert("$ref".into(), json!(r.replacen(V3_PREFIX, V2_PREFIX, 1)));
                            }
                        }
                        continue;
                    }
                    ("enum" | "required" | "x-kubernetes-group-version-kind" | "x-kubernetes-list-map-keys", _) => {
                        v.clone()
                    }
                    ("properties", Value::Object(props)) => {
                        Value::Object(props.iter().map(|(p, s)| (p.clone(), schema_to_v2(s))).collect())
                    }
                    _ => schema_to_v2(v),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(schema_to_v2).collect()),
        other => other.clone(),
    }
}

/// Who serves an operation: its v2 form differs (see the module's comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    BuiltIn,
    CustomResource,
}

/// A v3 path item (operations by method, and the parameters they share) in its v2 form.
pub fn path_item_to_v2(item: &Value, by: Served) -> Value {
    let mut out = Map::new();
    for (key, value) in item.as_object().into_iter().flatten() {
        let converted = match key.as_str() {
            "parameters" => Value::Array(value.as_array().into_iter().flatten().map(parameter_to_v2).collect()),
            method => operation_to_v2(method, value, by),
        };
        out.insert(key.clone(), converted);
    }
    Value::Object(out)
}

fn operation_to_v2(method: &str, op: &Value, by: Served) -> Value {
    let mut out = Map::new();
    let mut params: Vec<Value> = Vec::new();
    let consumes: Vec<String> = match op["requestBody"]["content"].as_object() {
        Some(content) => {
            if let Some(schema) = content.values().next().map(|c| &c["schema"]) {
                let mut body = json!({"name": "body", "in": "body", "schema": schema_to_v2(schema)});
                if matches!(method, "post" | "put" | "patch") {
                    body["required"] = json!(true);
                }
                params.push(body);
            }
            content.keys().cloned().collect()
        }
        None if by == Served::CustomResource => vec!["application/json".into(), "application/yaml".into()],
        None => vec!["*/*".into()],
    };
    params.extend(op["parameters"].as_array().into_iter().flatten().map(parameter_to_v2));
    let mut produces: Vec<String> = Vec::new();
    let mut responses = Map::new();
    for (code, response) in op["responses"].as_object().into_iter().flatten() {
        if code == "401" && by == Served::BuiltIn {
            continue;
        }
        let mut r = Map::new();
        r.insert("description".into(), response["description"].clone());
        if let Some(content) = response["content"].as_object() {
            for (ct, body) in content {
                if !produces.contains(ct) {
                    produces.push(ct.clone());
                }
                r.entry("schema").or_insert_with(|| schema_to_v2(&body["schema"]));
            }
        }
        responses.insert(code.clone(), Value::Object(r));
    }
    for (k, v) in op.as_object().into_iter().flatten() {
        match k.as_str() {
            "parameters" | "requestBody" | "responses" => {}
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out.insert("consumes".into(), json!(consumes));
    out.insert("produces".into(), json!(produces));
    out.insert("schemes".into(), json!(["https"]));
    if !params.is_empty() {
        out.insert("parameters".into(), Value::Array(params));
    }
    out.insert("responses".into(), Value::Object(responses));
    Value::Object(out)
}

fn parameter_to_v2(param: &Value) -> Value {
    let mut out = Map::new();
    for (k, v) in param.as_object().into_iter().flatten() {
        if k == "schema" {
            for (sk, sv) in v.as_object().into_iter().flatten() {
                out.insert(sk.clone(), schema_to_v2(sv));
            }
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// Adds the names of every schema `value` references (`#/definitions/NAME` or
/// `#/components/schemas/NAME`) to `names`.
pub fn collect_refs(value: &Value, names: &mut BTreeSet<String>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                if let ("$ref", Value::String(r)) = (k.as_str(), v) {
                    if let Some(name) = r.strip_prefix(V2_PREFIX).or_else(|| r.strip_prefix(V3_PREFIX)) {
                        names.insert(name.to_string());
                    }
                } else {
                    collect_refs(v, names);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, names)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn round_trip(v2: Value, v3: Value) {
        assert_eq!(schema_to_v3(&v2), v3);
        assert_eq!(schema_to_v2(&v3), v2);
    }

    #[test]
    fn a_reference_with_a_description_is_wrapped_in_all_of() {
        round_trip(
            json!({"properties": {"metadata": {"$ref": "#/definitions/M", "description": "d"}}}),
            json!({"properties": {"metadata": {"allOf": [{"$ref": "#/components/schemas/M"}], "description": "d"}}}),
        );
    }

    #[test]
    fn a_bare_reference_stays_bare() {
        round_trip(
            json!({"type": "array", "items": {"$ref": "#/definitions/M"}}),
            json!({"type": "array", "items": {"$ref": "#/components/schemas/M"}}),
        );
    }

    #[test]
    fn defaults_are_left_out_of_v2() {
        assert_eq!(schema_to_v2(&json!({"type": "integer", "default": 1})), json!({"type": "integer"}));
    }

    #[test]
    fn schemas_kubectl_cannot_read_in_v2_lose_their_type() {
        assert_eq!(
            schema_to_v2(
                &json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {}}})
            ),
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(schema_to_v2(&json!({"type": "string", "nullable": true})), json!({}));
        assert_eq!(schema_to_v2(&json!({"anyOf": [{"type": "integer"}], "type": "string"})), json!({"type": "string"}));
    }

    #[test]
    fn an_operation_gets_its_body_parameter_and_content_types() {
        let op = json!({
            "operationId": "patchX",
            "parameters": [{"name": "force", "in": "query", "description": "f", "schema": {"type": "boolean", "uniqueItems": true}}],
            "requestBody": {"content": {"application/merge-patch+json": {"schema": {"$ref": "#/components/schemas/P"}}}},
            "responses": {
                "200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/W"}}}},
                "401": {"description": "Unauthorized"}
            }
        });
        assert_eq!(
            operation_to_v2("patch", &op, Served::BuiltIn),
            json!({
                "operationId": "patchX",
                "consumes": ["application/merge-patch+json"],
                "produces": ["application/json"],
                "schemes": ["https"],
                "parameters": [
                    {"name": "body", "in": "body", "required": true, "schema": {"$ref": "#/definitions/P"}},
                    {"name": "force", "in": "query", "description": "f", "type": "boolean", "uniqueItems": true}
                ],
                "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/W"}}}
            })
        );
    }

    #[test]
    fn references_are_collected_from_both_forms() {
        let mut names = BTreeSet::new();
        collect_refs(&json!({"a": {"$ref": "#/definitions/A"}, "b": [{"$ref": "#/components/schemas/B"}]}), &mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["A", "B"]);
    }
}
