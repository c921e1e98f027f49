//! Validation of an edited object before it is sent: what the API server would refuse in it,
//! found from the OpenAPI v3 schema of its group version and worded as the server words it.
//!
//! Two servers' rules apply, chosen by the kind's schema:
//! - **built-in kinds** (schemas named `io.k8s.api.…` and the other Go-typed `io.k8s.` packages)
//!   are decoded by kube-apiserver into their Go types with `sigs.k8s.io/json`: a value of the
//!   wrong type or out of its Go type's range fails the decode (400, whatever `fieldValidation`
//!   says, and only the first such error is reported); unknown and duplicate fields are that
//!   decoder's strict errors (400 under Strict, a `Warning` under Warn);
//! - **custom resources** are decoded without a type, pruned by their structural schema (the
//!   pruned fields are the unknown ones, with the decoder's duplicates), then validated by
//!   kube-openapi's schema validator, whose errors `apiextensions-apiserver` turns into field
//!   errors (422 Invalid): type, enum, bounds, lengths, pattern, item counts, required.
//!
//! Field paths are written as the server writes them: `spec.ports[0].port`, map keys after a dot.
//! CEL rules (`x-kubernetes-validations`) and the Go-coded validation of built-in kinds (a
//! negative replica count, a malformed name) are not predicted: only what the schema states.
//!
//! Invariants: nothing here panics on any input (depth is bounded like the decoders'); a field the
//! schema leaves open (`x-kubernetes-preserve-unknown-fields`, a type with its own JSON decoding
//! such as Quantity, IntOrString or Time, a schema without a type) is never reported; a problem
//! names the field's JSON pointer so that the editor can put it on its line.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use crate::codec::value::{Map, Value, MAX_DEPTH};
use crate::schema::{gvk_of, is_go_typed, OpenApiSchemas};
use crate::write::diff::pointer_from_segments;

/// How many `$ref`/`allOf` hops a schema may take (real documents need 2).
const MAX_HOPS: usize = 16;
/// The prefix of a `$ref` inside an OpenAPI v3 document.
const REF_PREFIX: &str = "#/components/schemas/";

/// A text read for validation: the object (a repeated key keeps its last value, as Go's decoder
/// does) and the keys that were repeated.
#[derive(Debug, Clone, PartialEq)]
pub struct Lenient {
    pub value: Value,
    /// Every repeated key after its first occurrence, in text order.
    pub duplicates: Vec<Duplicate>,
}

/// A key repeated in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The JSON pointer of the member.
    pub pointer: String,
    /// The server's path of the member (`spec.replicas`).
    pub field: String,
    /// Which occurrence this is (1 for the second).
    pub occurrence: usize,
}

/// How the server treats a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// An unknown or duplicate field: refused (400) under `fieldValidation=Strict`, a `Warning`
    /// header under Warn, dropped under Ignore.
    Strict,
    /// The body does not decode into the kind's Go type: refused (400) at any validation level;
    /// the server names only the first one.
    Decode,
    /// The object breaks its schema: refused with 422 Invalid.
    Invalid,
}

/// One thing the server would refuse (or warn about).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The JSON pointer of the field (for a missing required field, the field itself).
    pub pointer: String,
    /// For a repeated key, which occurrence (1 for the second); 0 otherwise.
    pub occurrence: usize,
    /// The field as the server names it (`spec.replicas`).
    pub field: String,
    /// The server's words: `unknown field "spec.bogus"`, `json: cannot unmarshal …`, or a field
    /// error with its path (`spec.replicas: Invalid value: 99: …`).
    pub message: String,
    pub refusal: Refusal,
}

/// Why an object cannot be validated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidateError {
    #[error("expected an object with apiVersion and kind, found none")]
    NoKind,
    #[error("the OpenAPI document has no schema for {0} (no x-kubernetes-group-version-kind names it)")]
    UnknownKind(String),
}

/// Reads YAML or JSON text for validation (JSON is YAML's flow style), keeping repeated keys'
/// last values and noting them; a syntax error is the YAML decoder's error text.
pub fn read_lenient(text: &str) -> Result<Lenient, Unreadable> {
    let mut duplicates = Vec::new();
    let deserializer = serde_yaml::Deserializer::from_str(text);
    let seed = LenientSeed { path: Vec::new(), duplicates: &mut duplicates };
    let value = seed.deserialize(deserializer).map_err(|e| Unreadable(e.to_string()))?;
    Ok(Lenient { value, duplicates })
}

/// A text that does not read as YAML or JSON: the YAML decoder's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unreadable(pub String);

/// The problems of an object read by [`read_lenient`], against the schemas of its group version.
pub fn validate(object: &Lenient, schemas: &OpenApiSchemas) -> Result<Vec<Problem>, ValidateError> {
    let gvk = gvk_of(&object.value).ok_or(ValidateError::NoKind)?;
    let name =
        schemas.kind_schema_name(&gvk).ok_or_else(|| ValidateError::UnknownKind(crate::explain::kind_text(&gvk)))?;
    let root = schemas.schema(name).ok_or_else(|| ValidateError::UnknownKind(crate::explain::kind_text(&gvk)))?;
    let walker = Walker { schemas };
    let duplicates = object.duplicates.iter().map(|d| Problem {
        pointer: d.pointer.clone(),
        occurrence: d.occurrence,
        field: d.field.clone(),
        message: format!("duplicate field \"{}\"", d.field),
        refusal: Refusal::Strict,
    });
    if is_go_typed(name) {
        let mut typed = TypedWalk { walker: &walker, decode: Vec::new(), unknown: Vec::new() };
        let mut at = At::root();
        let context = GoContext { struct_name: short_name(name).to_string(), fields: Vec::new() };
        typed.walk(&object.value, root, &mut at, &context, 0);
        let mut problems: Vec<Problem> = typed.decode;
        problems.extend(duplicates);
        problems.extend(typed.unknown);
        return Ok(problems);
    }
    let mut problems: Vec<Problem> = duplicates.collect();
    let mut at = At::root();
    walker.prune(&object.value, root, &mut at, true, 0, &mut problems);
    // Structural validation covers the object's own fields; metadata is validated by Go code.
    if let (Value::Object(members), Some(properties)) =
        (&object.value, walker.resolve(root).get("properties").and_then(Json::as_object))
    {
        for (key, value) in members.iter() {
            if matches!(key, "apiVersion" | "kind" | "metadata") {
                continue;
            }
            if let Some(schema) = properties.get(key) {
                let mut at = At::root();
                at.push_key(key);
                walker.check(value, schema, &mut at, 0, &mut problems);
            }
        }
    }
    Ok(problems)
}

/// The last dotted part of a schema name (`io.k8s.api.apps.v1.DeploymentSpec` → `DeploymentSpec`).
fn short_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Where the walk is: the pointer segments and the server's path of the field.
#[derive(Debug, Clone)]
struct At {
    segments: Vec<String>,
    path: String,
}

impl At {
    fn root() -> At {
        At { segments: Vec::new(), path: String::new() }
    }

    fn push_key(&mut self, key: &str) -> usize {
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(key);
        self.segments.push(key.to_string());
        len
    }

    fn push_index(&mut self, index: usize) -> usize {
        let len = self.path.len();
        self.path.push_str(&format!("[{index}]"));
        self.segments.push(index.to_string());
        len
    }

    fn pop(&mut self, len: usize) {
        self.path.truncate(len);
        self.segments.pop();
    }

    fn pointer(&self) -> String {
        pointer_from_segments(&self.segments)
    }

    fn problem(&self, message: String, refusal: Refusal) -> Problem {
        Problem { pointer: self.pointer(), occurrence: 0, field: self.path.clone(), message, refusal }
    }
}

/// Builds a [`Value`] from any serde deserializer, keeping the last of repeated keys and noting
/// them with their paths.
struct LenientSeed<'a> {
    path: Vec<String>,
    duplicates: &'a mut Vec<Duplicate>,
}

impl<'de> DeserializeSeed<'de> for LenientSeed<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LenientSeed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML or JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map(Value::Int).unwrap_or(Value::Float(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        match v.is_finite() {
            true => Ok(Value::Float(v)),
            false => Err(E::custom(format!("expected a finite number, found {v}"))),
        }
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
    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.path.len() >= MAX_DEPTH {
            return Err(de::Error::custom(format!("expected at most {MAX_DEPTH} levels of nesting, found more")));
        }
        let mut items = Vec::new();
        loop {
            let mut path = self.path.clone();
            path.push(items.len().to_string());
            let seed = LenientSeed { path, duplicates: &mut *self.duplicates };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.path.len() >= MAX_DEPTH {
            return Err(de::Error::custom(format!("expected at most {MAX_DEPTH} levels of nesting, found more")));
        }
        let mut members = Map::new();
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        while let Some(key) = map.next_key::<KeyText>()? {
            let key = key.0;
            let mut path = self.path.clone();
            path.push(key.clone());
            let value = map.next_value_seed(LenientSeed { path: path.clone(), duplicates: &mut *self.duplicates })?;
            let count = seen.entry(key.clone()).or_insert(0);
            if *count > 0 {
                self.duplicates.push(Duplicate {
                    pointer: pointer_from_segments(&path),
                    field: server_path(&path),
                    occurrence: *count,
                });
            }
            *count += 1;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

/// A mapping key as text: YAML allows numbers and booleans as keys, which become their text (as
/// `sigs.k8s.io/yaml` converts them).
struct KeyText(String);

impl<'de> serde::Deserialize<'de> for KeyText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<KeyText, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = KeyText;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyText, E> {
                Ok(KeyText("null".to_string()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

/// The server's path of pointer segments: keys joined by dots, array indexes in brackets.
fn server_path(segments: &[String]) -> String {
    let mut out = String::new();
    for segment in segments {
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) && !out.is_empty() {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}

struct Walker<'a> {
    schemas: &'a OpenApiSchemas,
}

impl<'a> Walker<'a> {
    /// Follows `$ref` and single-schema `allOf` wrappers.
    fn resolve(&self, node: &'a Json) -> &'a Json {
        self.resolve_named(node).0
    }

    /// Follows wrappers, answering the last named schema passed.
    fn resolve_named(&self, mut node: &'a Json) -> (&'a Json, Option<&'a str>) {
        let mut name = None;
        for _ in 0..MAX_HOPS {
            if let Some(reference) = node.get("$ref").and_then(Json::as_str) {
                let target = reference.strip_prefix(REF_PREFIX).unwrap_or(reference);
                match self.schemas.schema(target) {
                    Some(next) => {
                        name = Some(target);
                        node = next;
                        continue;
                    }
                    None => break,
                }
            }
            match node.get("allOf").and_then(Json::as_array).map(Vec::as_slice) {
                Some([only]) if node.get("properties").is_none() => node = only,
                _ => break,
            }
        }
        (node, name)
    }

    /// A flag of the schema or of what it refers to.
    fn flag(&self, node: &Json, key: &str) -> bool {
        node.get(key).and_then(Json::as_bool).unwrap_or(false)
            || self.resolve(node).get(key).and_then(Json::as_bool).unwrap_or(false)
    }

    /// Unknown fields of a custom resource, as structural pruning finds them: members the schema
    /// has no property for, unless it preserves unknown fields or is a map.
    fn prune(&self, value: &Value, schema: &'a Json, at: &mut At, root: bool, depth: usize, out: &mut Vec<Problem>) {
        if depth > MAX_DEPTH {
            return;
        }
        let resolved = self.resolve(schema);
        let preserve = self.flag(schema, "x-kubernetes-preserve-unknown-fields");
        let embedded = self.flag(schema, "x-kubernetes-embedded-resource");
        match value {
            Value::Object(members) => {
                let properties = resolved.get("properties").and_then(Json::as_object);
                let additional = resolved.get("additionalProperties").filter(|a| a.is_object());
                for (key, child) in members.iter() {
                    let len = at.push_key(key);
                    let known = properties.and_then(|p| p.get(key)).or(additional);
                    match known {
                        Some(child_schema) => self.prune(child, child_schema, at, false, depth + 1, out),
                        None if (root || embedded) && matches!(key, "apiVersion" | "kind") => {}
                        None if preserve || resolved.get("additionalProperties") == Some(&Json::Bool(true)) => {}
                        None => out.push(at.problem(format!("unknown field \"{}\"", at.path), Refusal::Strict)),
                    }
                    at.pop(len);
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = resolved.get("items") {
                    for (index, item) in items.iter().enumerate() {
                        let len = at.push_index(index);
                        self.prune(item, item_schema, at, false, depth + 1, out);
                        at.pop(len);
                    }
                }
            }
            _ => {}
        }
    }

    /// kube-openapi's schema validation of a custom resource's field, with
    /// `apiextensions-apiserver`'s conversion of its errors to field errors.
    fn check(&self, value: &Value, schema: &'a Json, at: &mut At, depth: usize, out: &mut Vec<Problem>) {
        if depth > MAX_DEPTH || matches!(value, Value::Null) {
            // A null of a field that is not nullable is dropped before validation.
            return;
        }
        let node = self.resolve(schema);
        let int_or_string = self.flag(schema, "x-kubernetes-int-or-string");
        let expected = if int_or_string { Some("integer,string") } else { node.get("type").and_then(Json::as_str) };
        if let Some(expected) = expected {
            let actual = openapi_type(value);
            let fits = match expected {
                "integer,string" => matches!(actual, "integer" | "string"),
                "number" => matches!(actual, "integer" | "number"),
                other => other == actual,
            };
            if !fits {
                // kube-openapi errors.InvalidType: "%s in body must be of type %s: %q", the value
                // being the name of the type found; apiextensions makes it field.TypeInvalid.
                let detail = format!("{} in body must be of type {expected}: \"{actual}\"", at.path);
                out.push(invalid(at, &format!("\"{actual}\""), &detail));
                return;
            }
        }
        if let Some(options) = node.get("enum").and_then(Json::as_array) {
            if !options.iter().any(|o| Value::from_serde_json(o).equivalent(value)) {
                // apiextensions: field.NotSupported with each allowed value quoted (strconv.Quote).
                let supported: Vec<String> = options
                    .iter()
                    .map(|o| match o {
                        Json::String(s) => go_quote(s),
                        other => go_quote(&other.to_string()),
                    })
                    .collect();
                out.push(at.problem(
                    format!(
                        "{}: Unsupported value: {}: supported values: {}",
                        at.path,
                        go_value(value),
                        supported.join(", ")
                    ),
                    Refusal::Invalid,
                ));
            }
        }
        self.bounds(value, node, at, out);
        match value {
            Value::Object(members) => {
                for name in node.get("required").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str)
                {
                    if members.get(name).is_none() {
                        let len = at.push_key(name);
                        // kube-openapi RequiredFailCode → field.Required(path, ""): "Required value".
                        out.push(at.problem(format!("{}: Required value", at.path), Refusal::Invalid));
                        at.pop(len);
                    }
                }
                let properties = node.get("properties").and_then(Json::as_object);
                let additional = node.get("additionalProperties").filter(|a| a.is_object());
                for (key, child) in members.iter() {
                    if let Some(child_schema) = properties.and_then(|p| p.get(key)).or(additional) {
                        let len = at.push_key(key);
                        self.check(child, child_schema, at, depth + 1, out);
                        at.pop(len);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = node.get("items") {
                    for (index, item) in items.iter().enumerate() {
                        let len = at.push_index(index);
                        self.check(item, item_schema, at, depth + 1, out);
                        at.pop(len);
                    }
                }
            }
            _ => {}
        }
    }

    /// Bounds, lengths, pattern and item counts, in kube-openapi's words
    /// (k8s.io/kube-openapi/pkg/validation/errors), as `apiextensions-apiserver` reports them.
    fn bounds(&self, value: &Value, node: &Json, at: &At, out: &mut Vec<Problem>) {
        let number = |key: &str| node.get(key).and_then(Json::as_f64);
        let exclusive = |key: &str| node.get(key).and_then(Json::as_bool).unwrap_or(false);
        let path = &at.path;
        if let Some(n) = as_number(value) {
            if let Some(max) = number("maximum") {
                if exclusive("exclusiveMaximum") && n >= max {
                    out.push(invalid(
                        at,
                        &go_value(value),
                        &format!("{path} in body should be less than {}", go_number(max)),
                    ));
                } else if n > max {
                    let detail = format!("{path} in body should be less than or equal to {}", go_number(max));
                    out.push(invalid(at, &go_value(value), &detail));
                }
            }
            if let Some(min) = number("minimum") {
                if exclusive("exclusiveMinimum") && n <= min {
                    let detail = format!("{path} in body should be greater than {}", go_number(min));
                    out.push(invalid(at, &go_value(value), &detail));
                } else if n < min {
                    let detail = format!("{path} in body should be greater than or equal to {}", go_number(min));
                    out.push(invalid(at, &go_value(value), &detail));
                }
            }
            if let Some(factor) = number("multipleOf").filter(|f| *f > 0.0) {
                if (n / factor).fract() != 0.0 {
                    let detail = format!("{path} in body should be a multiple of {}", go_number(factor));
                    out.push(invalid(at, &go_value(value), &detail));
                }
            }
        }
        if let Value::String(text) = value {
            let length = text.chars().count();
            if let Some(max) = number("maxLength").filter(|max| length as f64 > *max) {
                // apiextensions: field.TooLongMaxLength, whose message omits the value.
                out.push(
                    at.problem(
                        format!("{path}: Too long: may not be longer than {}", go_number(max)),
                        Refusal::Invalid,
                    ),
                );
            }
            if let Some(min) = number("minLength").filter(|min| (length as f64) < *min) {
                let detail = format!("{path} in body should be at least {} chars long", go_number(min));
                out.push(invalid(at, &go_value(value), &detail));
            }
            if let Some(pattern) = node.get("pattern").and_then(Json::as_str) {
                // An expression the regex crate cannot compile is not judged (Go's RE2 and it
                // share their syntax, so this is rare).
                if regex::Regex::new(pattern).is_ok_and(|re| !re.is_match(text)) {
                    let detail = format!("{path} in body should match '{pattern}'");
                    out.push(invalid(at, &go_value(value), &detail));
                }
            }
        }
        if let Value::Array(items) = value {
            if let Some(max) = number("maxItems").filter(|max| items.len() as f64 > *max) {
                // apiextensions: field.TooMany(path, actual, max).
                out.push(at.problem(
                    format!("{path}: Too many: {}: must have at most {} items", items.len(), go_number(max)),
                    Refusal::Invalid,
                ));
            }
            if let Some(min) = number("minItems").filter(|min| (items.len() as f64) < *min) {
                let detail = format!("{path} in body should have at least {} items", go_number(min));
                out.push(invalid(at, &items.len().to_string(), &detail));
            }
        }
    }
}

/// `field.Invalid(path, value, detail)` as `field.Error.Error()` writes it.
fn invalid(at: &At, value: &str, detail: &str) -> Problem {
    at.problem(format!("{}: Invalid value: {value}: {detail}", at.path), Refusal::Invalid)
}

/// The decode of a built-in kind into its Go type, as `sigs.k8s.io/json` reports it.
struct TypedWalk<'w, 'a> {
    walker: &'w Walker<'a>,
    decode: Vec<Problem>,
    unknown: Vec<Problem>,
}

impl<'a> TypedWalk<'_, 'a> {
    /// `go` is the decoder's error context for the value at `at`: the Go struct whose field it
    /// is and the struct field names from the root (no indexes, no map keys).
    fn walk(&mut self, value: &Value, schema: &'a Json, at: &mut At, go: &GoContext, depth: usize) {
        if depth > MAX_DEPTH || matches!(value, Value::Null) {
            // A null sets pointers, maps and slices to nil and leaves other fields alone.
            return;
        }
        let (node, name) = self.walker.resolve_named(schema);
        if own_json_decoding(schema, node, name) {
            return;
        }
        let cannot = |found: &str| {
            // Go's encoding/json UnmarshalTypeError, with the field context sigs.k8s.io/json adds.
            format!(
                "json: cannot unmarshal {found} into Go struct field {}.{} of type {}",
                go.struct_name,
                go.fields.join("."),
                self.go_type(schema, 0)
            )
        };
        let expected = node.get("type").and_then(Json::as_str);
        let problem = match (expected, value) {
            (Some("object"), Value::Object(_)) | (Some("array"), Value::Array(_)) => None,
            (Some("string"), Value::String(_) | Value::Bytes(_)) | (Some("boolean"), Value::Bool(_)) => None,
            (Some("integer"), Value::Int(_) | Value::Float(_)) => {
                let format = node.get("format").and_then(Json::as_str);
                (!fits_integer(value, format)).then(|| cannot(&format!("number {}", value.to_json())))
            }
            (Some("number"), Value::Int(_) | Value::Float(_)) => None,
            (Some("object" | "array" | "string" | "boolean" | "integer" | "number"), _) => {
                Some(cannot(go_json_kind(value)))
            }
            _ => None,
        };
        if let Some(message) = problem {
            self.decode.push(at.problem(message, Refusal::Decode));
            return;
        }
        match value {
            Value::Object(members) => {
                let properties = node.get("properties").and_then(Json::as_object);
                let additional = node.get("additionalProperties").filter(|a| a.is_object());
                let struct_name = name.map(short_name).unwrap_or(&go.struct_name).to_string();
                for (key, child) in members.iter() {
                    let len = at.push_key(key);
                    match (properties.and_then(|p| p.get(key)), additional) {
                        (Some(child_schema), _) => {
                            let mut fields = go.fields.clone();
                            fields.push(key.to_string());
                            let context = GoContext { struct_name: struct_name.clone(), fields };
                            self.walk(child, child_schema, at, &context, depth + 1);
                        }
                        // A map's values keep the map field's context (a key is not a field).
                        (None, Some(values)) if properties.is_none() => self.walk(child, values, at, go, depth + 1),
                        (None, _) if properties.is_some() => {
                            self.unknown.push(at.problem(format!("unknown field \"{}\"", at.path), Refusal::Strict))
                        }
                        (None, _) => {}
                    }
                    at.pop(len);
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = node.get("items") {
                    for (index, item) in items.iter().enumerate() {
                        let len = at.push_index(index);
                        self.walk(item, item_schema, at, go, depth + 1);
                        at.pop(len);
                    }
                }
            }
            _ => {}
        }
    }

    /// The Go type a schema decodes into, as `reflect.Type.String()` writes it.
    fn go_type(&self, schema: &'a Json, hops: usize) -> String {
        if hops > MAX_HOPS {
            return "interface {}".into();
        }
        let (node, name) = self.walker.resolve_named(schema);
        match node.get("type").and_then(Json::as_str) {
            Some("array") => match node.get("items") {
                Some(items) => format!("[]{}", self.go_type(items, hops + 1)),
                None => "[]interface {}".into(),
            },
            Some("object") => match (name, node.get("additionalProperties").filter(|a| a.is_object())) {
                (Some(name), _) => go_named(name),
                (None, Some(values)) => format!("map[string]{}", self.go_type(values, hops + 1)),
                (None, None) => "map[string]interface {}".into(),
            },
            Some("string") => match node.get("format").and_then(Json::as_str) {
                Some("byte") => "[]uint8".into(),
                _ => "string".into(),
            },
            Some("integer") => match node.get("format").and_then(Json::as_str) {
                Some("int32") => "int32".into(),
                _ => "int64".into(),
            },
            Some("number") => match node.get("format").and_then(Json::as_str) {
                Some("float") => "float32".into(),
                _ => "float64".into(),
            },
            Some("boolean") => "bool".into(),
            _ => "interface {}".into(),
        }
    }
}

/// The Go decoder's error context: the struct whose field is being decoded, and the field names
/// from the root.
struct GoContext {
    struct_name: String,
    fields: Vec<String>,
}

/// A named Go type as reflect writes it: its package's last element and its name
/// (`io.k8s.api.core.v1.Container` → `v1.Container`).
fn go_named(name: &str) -> String {
    let mut parts = name.rsplit('.');
    let type_name = parts.next().unwrap_or(name);
    match parts.next() {
        Some(package) => format!("{package}.{type_name}"),
        None => type_name.to_string(),
    }
}

/// Whether a schema's Go type decodes JSON itself (Quantity, IntOrString, Time, raw JSON…): its
/// errors are its own and not predicted here.
fn own_json_decoding(schema: &Json, node: &Json, name: Option<&str>) -> bool {
    let own = [
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
    ];
    let extension = |key: &str| {
        schema.get(key).and_then(Json::as_bool).unwrap_or(false)
            || node.get(key).and_then(Json::as_bool).unwrap_or(false)
    };
    name.is_some_and(|n| {
        own.contains(&n) || n.starts_with("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON")
    }) || extension("x-kubernetes-int-or-string")
        || extension("x-kubernetes-preserve-unknown-fields")
        || node
            .get("format")
            .and_then(Json::as_str)
            .is_some_and(|f| matches!(f, "int-or-string" | "date-time" | "quantity"))
        || (node.get("type").is_none() && node.get("properties").is_none())
}

/// What Go's decoder calls a JSON value in an `UnmarshalTypeError`.
fn go_json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Float(_) => "number",
        Value::String(_) | Value::Bytes(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether a number decodes into the Go integer type of `format` (the text sent is the JSON
/// form: a float without a fraction is written as an integer).
fn fits_integer(value: &Value, format: Option<&str>) -> bool {
    let whole = match value {
        Value::Int(i) => Some(*i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 && !value.to_json().contains(['.', 'e', 'E']) => {
            Some(*f as i64)
        }
        _ => None,
    };
    match (whole, format) {
        (Some(i), Some("int32")) => i32::try_from(i).is_ok(),
        (Some(_), _) => true,
        (None, _) => false,
    }
}

/// The name kube-openapi gives a value's type.
fn openapi_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(f) if f.fract() == 0.0 => "integer",
        Value::Float(_) => "number",
        Value::String(_) | Value::Bytes(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// A value as `field.Error` prints it: numbers and booleans plain, strings quoted, others as JSON.
fn go_value(value: &Value) -> String {
    match value {
        Value::String(s) => go_quote(s),
        other => other.to_json(),
    }
}

/// A bound as Go's `%v` prints a float64 (whole numbers without a fraction).
fn go_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    }
}

/// A string as Go's `strconv.Quote` writes it (the JSON escapes, which agree for text).
fn go_quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
