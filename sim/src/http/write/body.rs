//! Request bodies of writes: JSON, YAML, CBOR and protobuf read into a document (repeated keys
//! found, as Strict validation reports them), checked against the type and its schema.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Value};

use crate::encoding::negotiate::essence;
use crate::http::write::options::{FieldValidation, WriteOptions};
use crate::http::Ctx;
use crate::rules::status::{bad_request, invalid, ApiError, ApiResult, FieldError};
use crate::store::object;
use crate::store::registry::ResourceType;
use crate::{app::App, rules::status};

/// Records duplicate keys while building a `Value`, since serde_json keeps the last silently.
pub struct DupSeed<'a> {
    path: String,
    dups: &'a RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for DupSeed<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DupSeed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) =
            seq.next_element_seed(DupSeed { path: format!("{}[{}]", self.path, out.len()), dups: self.dups })?
        {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let path = if self.path.is_empty() { k.clone() } else { format!("{}.{k}", self.path) };
            let v = map.next_value_seed(DupSeed { path: path.clone(), dups: self.dups })?;
            if out.insert(k, v).is_some() {
                self.dups.borrow_mut().push(path);
            }
        }
        Ok(Value::Object(out))
    }
}

/// A decoded body with its duplicate fields.
pub struct Decoded {
    pub value: Value,
    pub duplicates: Vec<String>,
}

pub fn decode_json(body: &[u8]) -> Result<Decoded, String> {
    let dups = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = DupSeed { path: String::new(), dups: &dups }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(Decoded { value, duplicates: dups.into_inner() })
}

/// A CBOR body (with or without the 55799 tag), through the library's decoder; it refuses
/// duplicate keys itself, and tag-22 bytes come back as base64 text, their JSON form.
pub fn decode_cbor(body: &[u8]) -> Result<Decoded, String> {
    let doc = kube_wire::codec::cbor::decode_cbor(body).map_err(|e| e.to_string())?;
    Ok(Decoded { value: doc.to_serde_json(), duplicates: Vec::new() })
}

pub fn decode_yaml(body: &[u8]) -> Result<Decoded, String> {
    let value: Value = serde_yaml::from_slice(body).map_err(|e| e.to_string())?;
    Ok(Decoded { value, duplicates: Vec::new() })
}

/// Decodes a create or update body by its Content-Type (415 for anything else).
pub fn decode_object(ctx: &Ctx, body: &[u8]) -> ApiResult<Decoded> {
    let ct = ctx.header("content-type").map(essence).unwrap_or_else(|| "application/json".into());
    let decoded = match ct.as_str() {
        "application/json" => decode_json(body),
        "application/yaml" => decode_yaml(body),
        "application/cbor" => decode_cbor(body),
        "application/vnd.kubernetes.protobuf" => {
            let value = crate::encoding::protobuf::decode_object(body)
                .map_err(|e| bad_request(format!("the body of the request could not be decoded: {e}")))?;
            Ok(Decoded { value, duplicates: Vec::new() })
        }
        _ => {
            return Err(status::unsupported_media_type(&[
                "application/json",
                "application/yaml",
                "application/vnd.kubernetes.protobuf",
                "application/cbor",
            ]))
        }
    };
    let decoded = decoded.map_err(|e| bad_request(format!("couldn't get version/kind; json parse error: {e}")))?;
    if !decoded.value.is_object() {
        return Err(bad_request("couldn't get version/kind; json parse error: the body is not an object"));
    }
    Ok(decoded)
}

/// Checks apiVersion and kind of a body against the endpoint, filling them when absent.
pub fn check_type(rt: &ResourceType, obj: &mut Value) -> ApiResult<()> {
    let av = rt.api_version();
    if let Some(given) = obj["apiVersion"].as_str() {
        if given != av {
            return Err(bad_request(format!(
                "the API version in the data ({given}) does not match the expected API version ({av})"
            )));
        }
    }
    if let Some(given) = obj["kind"].as_str() {
        // A custom resource is decoded unstructured, then its type meta validated: 422
        // (apiextensions-apiserver pkg/registry/customresource/validator.go `ValidateTypeMeta`;
        // recorded against a real 1.36 server for #39: "kind: Invalid value: \"Gadget\": must be
        // Widget").
        if given != rt.kind && rt.is_custom() {
            let error = FieldError::invalid("kind", &json!(given), format!("must be {}", rt.kind));
            return Err(invalid(&rt.group, &rt.kind, object::name(obj), &[error]));
        }
        if given != rt.kind {
            return Err(bad_request(format!(
                "{given} in version \"{}\" cannot be handled as a {}: no kind \"{given}\" is registered for version \"{av}\"",
                rt.version, rt.kind
            )));
        }
    }
    if let Some(m) = obj.as_object_mut() {
        m.insert("apiVersion".into(), json!(av));
        m.insert("kind".into(), json!(rt.kind));
    }
    Ok(())
}

/// A built-in object that does not decode into its Go type: 400 at any validation level, as
/// kube-apiserver's decoder refuses it (`… cannot be handled as a Deployment: json: cannot
/// unmarshal …`).
pub fn decode_check(app: &App, rt: &ResourceType, obj: &Value) -> ApiResult<()> {
    match app.schemas.decode_error(rt, obj) {
        Some(message) => Err(bad_request(format!(
            "{} in version \"{}\" cannot be handled as a {}: {message}",
            rt.kind, rt.version, rt.kind
        ))),
        None => Ok(()),
    }
}

/// Unknown and duplicate fields: warnings for Warn, an error for Strict.
pub fn field_problems(
    app: &App,
    rt: &ResourceType,
    obj: &Value,
    duplicates: &[String],
    opts: &WriteOptions,
) -> Vec<String> {
    if opts.validation == FieldValidation::Ignore {
        return Vec::new();
    }
    let mut problems: Vec<String> = duplicates.iter().map(|d| format!("duplicate field \"{d}\"")).collect();
    problems.extend(app.schemas.unknown_fields(rt, obj).into_iter().map(|f| format!("unknown field \"{f}\"")));
    problems
}

pub fn strict_error(rt: &ResourceType, problems: &[String]) -> ApiError {
    bad_request(format!(
        "{} in version \"{}\" cannot be handled as a {}: strict decoding error: {}",
        rt.kind,
        rt.version,
        rt.kind,
        problems.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_body_keeps_its_last_value_and_names_its_repeated_keys() {
        let decoded = decode_json(br#"{"a":1,"b":{"c":1,"c":2},"a":3}"#).expect("json");
        assert_eq!(decoded.value, json!({"a": 3, "b": {"c": 2}}));
        assert_eq!(decoded.duplicates, ["b.c", "a"]);
        assert!(decode_json(b"{").is_err());
        let yaml = decode_yaml(b"a: 1\nb: [x]\n").expect("yaml");
        assert_eq!(yaml.value, json!({"a": 1, "b": ["x"]}));
    }
}
