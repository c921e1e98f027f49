//! The definitions of every built-in type of Kubernetes 1.36.0, in the swagger 2.0 form that
//! `api/openapi-spec/swagger.json` has, read from the copy `kubernetes-validate` ships
//! (`data/kubernetes-1.36.0-definitions.json`, see `data/NOTICE`).
//!
//! That copy was turned into a JSON Schema 2020-12 document by openapi2jsonschema, which changed
//! the definitions in four mechanical ways; this module undoes each of them, and nothing else:
//! every optional `type` became `[type, "null"]`; `$ref`s point into `#/$defs/`; the `apiVersion`
//! and `kind` properties of each top-level kind gained an `enum` of their one value; and
//! `IntOrString` and `Quantity` became a `oneOf` without their description. Those two are put
//! back as the swagger document has them, with the descriptions of the vendored core v1
//! document.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

const DEFINITIONS: &str = include_str!("../../data/kubernetes-1.36.0-definitions.json");

const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/// A group, version and kind, as `x-kubernetes-group-version-kind` lists them.
pub type Gvk = (String, String, String);

pub struct Definitions {
    /// Swagger 2.0 schemas by definition name; `$ref`s are `#/definitions/NAME`.
    pub by_name: HashMap<String, Value>,
    /// The definition of each kind (the first that lists it).
    pub by_gvk: HashMap<Gvk, String>,
}

impl Definitions {
    /// Reads the vendored definitions; `core_v3` (the vendored core v1 OpenAPI v3 document)
    /// gives the descriptions of IntOrString and Quantity.
    pub fn load(core_v3: &Value) -> Result<Definitions, String> {
        let doc: Value =
            serde_json::from_str(DEFINITIONS).map_err(|e| format!("kubernetes-1.36.0-definitions.json: {e}"))?;
        let defs = doc["$defs"].as_object().ok_or("kubernetes-1.36.0-definitions.json: no $defs")?;
        let mut by_name = HashMap::new();
        let mut by_gvk = HashMap::new();
        for (name, schema) in defs {
            let mut schema = revert(schema);
            if let Some(gvks) = schema["x-kubernetes-group-version-kind"].as_array() {
                for gvk in gvks {
                    let key = (text(&gvk["group"]), text(&gvk["version"]), text(&gvk["kind"]));
                    by_gvk.entry(key).or_insert_with(|| name.clone());
                }
                if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                    for field in ["apiVersion", "kind"] {
                        if let Some(p) = props.get_mut(field).and_then(Value::as_object_mut) {
                            p.remove("enum");
                        }
                    }
                }
            }
            by_name.insert(name.clone(), schema);
        }
        let core = &core_v3["components"]["schemas"];
        for (name, format) in [(INT_OR_STRING, Some("int-or-string")), (QUANTITY, None)] {
            let description = core[name]["description"]
                .as_str()
                .ok_or_else(|| format!("the core v1 document has no description of {name}"))?;
            let mut schema = Map::new();
            schema.insert("description".into(), json!(description));
            if let Some(f) = format {
                schema.insert("format".into(), json!(f));
            }
            schema.insert("type".into(), json!("string"));
            by_name.insert(name.to_string(), Value::Object(schema));
        }
        Ok(Definitions { by_name, by_gvk })
    }
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Undoes the `[type, "null"]` and `#/$defs/` rewrites in one schema.
fn revert(schema: &Value) -> Value {
    match schema {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let v = match (k.as_str(), v) {
                    ("type", Value::Array(types)) => {
                        let kept: Vec<&Value> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
                        match kept.as_slice() {
                            [one] => (*one).clone(),
                            _ => Value::Array(kept.into_iter().cloned().collect()),
                        }
                    }
                    ("$ref", Value::String(r)) => json!(r.replace("#/$defs/", "#/definitions/")),
                    // Lists of names and values, not schemas.
                    ("enum" | "required" | "x-kubernetes-group-version-kind" | "x-kubernetes-list-map-keys", _) => {
                        v.clone()
                    }
                    ("properties", Value::Object(props)) => {
                        Value::Object(props.iter().map(|(p, s)| (p.clone(), revert(s))).collect())
                    }
                    _ => revert(v),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(revert).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load() -> Definitions {
        let core: Value = serde_json::from_str(include_str!("../../data/openapi-v3-api-v1.json")).expect("core v1");
        Definitions::load(&core).expect("definitions load")
    }

    #[test]
    fn the_json_schema_rewrites_are_undone() {
        let defs = load();
        let policy = &defs.by_name["io.k8s.api.networking.v1.NetworkPolicy"];
        assert_eq!(policy["properties"]["apiVersion"]["type"], "string");
        assert!(policy["properties"]["apiVersion"].get("enum").is_none());
        assert_eq!(policy["properties"]["spec"]["$ref"], "#/definitions/io.k8s.api.networking.v1.NetworkPolicySpec");
        let port = &defs.by_name["io.k8s.api.core.v1.ContainerPort"];
        assert_eq!(port["properties"]["hostPort"]["type"], "integer");
        assert_eq!(port["properties"]["hostPort"]["format"], "int32");
        let ios = &defs.by_name[INT_OR_STRING];
        assert_eq!((ios["type"].as_str(), ios["format"].as_str()), (Some("string"), Some("int-or-string")));
        assert!(ios["description"].as_str().is_some_and(|d| d.starts_with("IntOrString is a type")));
    }
}
