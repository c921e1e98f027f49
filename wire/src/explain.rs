//! A kind's OpenAPI v3 schema as the tree `kubectl explain --recursive` walks: every field with
//! its path (`spec.template.spec.containers`), its type in kubectl explain's words (`<string>`,
//! `<[]Container>`, `<map[string]string>`, `<IntOrString>`, `<Quantity>`, `<Object>`), its
//! description, whether it is required, and what else the schema says of it: default, enum,
//! format, nullable, bounds, and the Kubernetes extensions that change how the server treats it
//! (list type and map keys, patch strategy and merge key, unknown fields preserved, embedded
//! resources, CEL validation rules, group-version-kind).
//!
//! Invariants: the tree is built from the documents alone; `$ref` and single-schema `allOf`
//! wrappers are followed (a reference the document does not define is an error naming it and
//! the field that uses it, never a silent gap); a type that contains itself (JSONSchemaProps,
//! a CRD's own schema) is walked once per branch and marked where it recurs, as kubectl stops
//! there; fields come in kubectl's order (sorted by name), parents before their children.

use kube_core::GroupVersionKind;
use serde_json::Value as Json;

use crate::schema::OpenApiSchemas;

/// How deep a tree goes before the walk stops (real kinds are under 20 levels).
const MAX_DEPTH: usize = 40;
/// How many `$ref`/`allOf` hops one schema may take (real documents need 2).
const MAX_HOPS: usize = 16;
/// The prefix of a `$ref` inside an OpenAPI v3 document.
pub const REF_PREFIX: &str = "#/components/schemas/";

/// A kind's schema, flattened: the kind itself and its fields, parents before children.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaTree {
    pub kind: GroupVersionKind,
    /// The kind as a field: its description, type and top-level rules (`path` is empty).
    pub root: Field,
    /// Every field below the kind, depth first, siblings sorted by name.
    pub fields: Vec<Field>,
}

/// One field of a kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Field {
    /// Dotted path from the kind (`spec.template.spec.containers`), as kubectl explain takes it.
    pub path: String,
    /// The last segment of the path.
    pub name: String,
    /// 0 for the kind's own fields (`apiVersion`, `spec`, ...).
    pub depth: usize,
    /// The type in kubectl explain's words, without the angle brackets.
    pub type_label: String,
    /// The field's own description, else its type's.
    pub description: String,
    /// Listed in the parent's `required`.
    pub required: bool,
    /// `default`, as JSON text.
    pub default: Option<String>,
    /// `enum`, each value as JSON text (strings without quotes).
    pub enum_values: Vec<String>,
    /// The `enum` of a list's items (or a map's values), each value as JSON text.
    pub item_enum_values: Vec<String>,
    /// `format` of the field or of the type it refers to (`date-time`, `int32`, `byte`, `int-or-string`).
    pub format: Option<String>,
    pub nullable: bool,
    /// Bounds and patterns (`minimum: 0`, `maxLength: 63`, `pattern: ...`), in document order.
    pub constraints: Vec<(String, String)>,
    /// The `x-kubernetes-*` extensions other than the validations, with their values as text.
    pub extensions: Vec<(String, String)>,
    /// `x-kubernetes-validations`: the CEL rules on the field (and on each item of a list).
    pub validations: Vec<Validation>,
    /// How many fields are directly below this one (through list items and map values).
    pub children: usize,
    /// When the field's type is one of its ancestors' (a recursive type): that ancestor's path,
    /// where its fields are listed; the walk does not repeat them here.
    pub recurs_at: Option<String>,
}

/// One `x-kubernetes-validations` rule.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Validation {
    /// The CEL expression.
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub reason: Option<String>,
    pub field_path: Option<String>,
    /// Whether the rule is on each item of a list (or value of a map) rather than the field.
    pub on_items: bool,
}

/// Why a kind's tree could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("the OpenAPI document has no schema for {0} (no x-kubernetes-group-version-kind names it)")]
    NoKind(String),
    #[error("{field}: $ref {reference} names no schema in the document's components.schemas")]
    MissingRef { field: String, reference: String },
    #[error("{field}: $ref {reference} does not start with {prefix}", prefix = REF_PREFIX)]
    ForeignRef { field: String, reference: String },
    #[error("{field}: expected a schema object, found {found}")]
    NotASchema { field: String, found: String },
}

/// `group/version, Kind=Kind` as kubectl prints a kind.
pub fn kind_text(kind: &GroupVersionKind) -> String {
    let gv = if kind.group.is_empty() { kind.version.clone() } else { format!("{}/{}", kind.group, kind.version) };
    format!("{gv}, Kind={}", kind.kind)
}

impl SchemaTree {
    /// The tree of `kind` in `schemas`.
    pub fn build(schemas: &OpenApiSchemas, kind: &GroupVersionKind) -> Result<SchemaTree, ExplainError> {
        let name = schemas.kind_schema_name(kind).ok_or_else(|| ExplainError::NoKind(kind_text(kind)))?;
        let walker = Walker { schemas };
        let raw = schemas.schema(name).ok_or_else(|| ExplainError::NoKind(kind_text(kind)))?;
        let mut root = walker.field(raw, "", "", 0, false)?;
        root.type_label = name.rsplit('.').next().unwrap_or(name).to_string();
        let mut fields = Vec::new();
        let mut ancestors = vec![(name.to_string(), String::new())];
        root.children = walker.walk(raw, "", 0, &mut ancestors, &mut fields)?;
        Ok(SchemaTree { kind: kind.clone(), root, fields })
    }

    /// The field at a dotted path (`spec.replicas`); the empty path is the kind.
    pub fn field(&self, path: &str) -> Option<&Field> {
        if path.is_empty() {
            return Some(&self.root);
        }
        self.fields.iter().find(|f| f.path == path)
    }

    /// The index in [`SchemaTree::fields`] of the field at `path`.
    pub fn position(&self, path: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.path == path)
    }

    /// The fields directly below `path` (the kind's own fields for the empty path).
    pub fn children<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
        self.fields.iter().filter(move |f| parent_of(&f.path) == path)
    }
}

/// How a document's member is reached from the field that explains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The member is the field itself.
    Field,
    /// The member is an item of the field (a list).
    Item,
    /// The member is the value of key `0` of the field (a map: labels, resource limits).
    MapValue(String),
}

/// What a member's value is, as far as completion cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An object with fields (`<Container>`, `<Object>`).
    Object,
    /// A list (`<[]Container>`): its members are items.
    List,
    /// A map (`<map[string]string>`): its keys are free.
    Map,
    /// A string, number, integer or boolean.
    Scalar,
}

/// Where a member of a document (by its JSON pointer's segments) sits in a kind's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The path of the field that explains the member (`spec.template.spec.containers`; empty
    /// for the kind), as [`SchemaTree::field`] and the explorer's `explain=` take it.
    pub field: String,
    /// How the member is reached from that field.
    pub step: Step,
    /// What the member's value is.
    pub shape: Shape,
    /// The path whose children ([`SchemaTree::children`]) are the fields of the member's value
    /// when it is an object (a recursive type's ancestor, where the tree lists them).
    pub members: String,
}

/// Why a member has no place in a kind's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotInSchema {
    /// Below `field`, whose schema keeps unknown fields (`x-kubernetes-preserve-unknown-fields`):
    /// nothing more is known of `rest` (dotted).
    Preserved { field: String, rest: String },
    /// `parent` (a field path, empty for the kind) has no field `name`: the server's Strict field
    /// validation refuses it.
    Unknown { parent: String, name: String },
}

impl SchemaTree {
    /// Where the member at `segments` (a JSON pointer's segments: `["spec", "containers", "0",
    /// "image"]`) sits: list indices step into items, map keys into values, names into fields.
    pub fn locate<S: AsRef<str>>(&self, segments: &[S]) -> Result<Located, NotInSchema> {
        let mut field = String::new();
        let mut members = String::new();
        let mut label = self.root.type_label.clone();
        let mut children = self.root.children;
        let mut step = Step::Field;
        for (index, segment) in segments.iter().enumerate() {
            let segment = segment.as_ref();
            if let Some(inner) = label.strip_prefix("[]") {
                if segment.parse::<usize>().is_err() {
                    return Err(NotInSchema::Unknown { parent: field, name: segment.to_string() });
                }
                label = inner.to_string();
                step = Step::Item;
                continue;
            }
            if let Some(inner) = label.strip_prefix("map[string]") {
                label = inner.to_string();
                step = Step::MapValue(segment.to_string());
                continue;
            }
            let child = if members.is_empty() { segment.to_string() } else { format!("{members}.{segment}") };
            let Some(found) = self.field(&child) else {
                let preserves = self.field(&field).is_some_and(|f| {
                    f.extensions.iter().any(|(k, v)| k == "x-kubernetes-preserve-unknown-fields" && v == "true")
                });
                return Err(if preserves {
                    let rest: Vec<&str> = segments[index..].iter().map(AsRef::as_ref).collect();
                    NotInSchema::Preserved { field, rest: rest.join(".") }
                } else {
                    NotInSchema::Unknown { parent: field, name: segment.to_string() }
                });
            };
            members = found.recurs_at.clone().unwrap_or_else(|| child.clone());
            children = match &found.recurs_at {
                Some(at) => self.field(at).map_or(0, |f| f.children),
                None => found.children,
            };
            field = child;
            label = found.type_label.clone();
            step = Step::Field;
        }
        Ok(Located { field, step, shape: shape_of(&label, children), members })
    }
}

impl Field {
    /// What the field's value is: a list, a map, an object with fields (or of a recursive type),
    /// or a scalar.
    pub fn shape(&self) -> Shape {
        let children = if self.recurs_at.is_some() { self.children.max(1) } else { self.children };
        shape_of(&self.type_label, children)
    }
}

/// The shape a type label (or what is left of it inside a list or map) names, for a field with
/// `children` fields below it: a named type without fields (`Quantity`, `IntOrString`) is a
/// scalar, a schema that says only `object` (`<Object>`) an object.
fn shape_of(label: &str, children: usize) -> Shape {
    if label.starts_with("[]") {
        Shape::List
    } else if label.starts_with("map[") {
        Shape::Map
    } else if children > 0 || label == "Object" {
        Shape::Object
    } else {
        Shape::Scalar
    }
}

/// The path of a field's parent (empty for a top-level field).
pub fn parent_of(path: &str) -> &str {
    path.rsplit_once('.').map_or("", |(parent, _)| parent)
}

struct Walker<'a> {
    schemas: &'a OpenApiSchemas,
}

/// A schema after `$ref`/`allOf` wrappers, with the name of the last named schema passed.
struct Resolved<'a> {
    node: &'a Json,
    name: Option<&'a str>,
}

impl<'a> Walker<'a> {
    /// Follows `$ref` and single-schema `allOf` wrappers (without own properties).
    fn resolve(&self, mut node: &'a Json, field: &str) -> Result<Resolved<'a>, ExplainError> {
        let mut name = None;
        for _ in 0..MAX_HOPS {
            if !node.is_object() {
                return Err(ExplainError::NotASchema { field: display(field), found: kind_of_json(node) });
            }
            if let Some(reference) = node.get("$ref").and_then(Json::as_str) {
                let target = self.target(reference, field)?;
                name = Some(target.0);
                node = target.1;
                continue;
            }
            match node.get("allOf").and_then(Json::as_array).map(Vec::as_slice) {
                Some([only]) if node.get("properties").is_none() => node = only,
                _ => break,
            }
        }
        Ok(Resolved { node, name })
    }

    fn target(&self, reference: &'a str, field: &str) -> Result<(&'a str, &'a Json), ExplainError> {
        let Some(name) = reference.strip_prefix(REF_PREFIX) else {
            return Err(ExplainError::ForeignRef { field: display(field), reference: reference.to_string() });
        };
        let schema = self
            .schemas
            .schema(name)
            .ok_or_else(|| ExplainError::MissingRef { field: display(field), reference: reference.to_string() })?;
        Ok((name, schema))
    }

    /// The schema whose properties are a field's children: through list items and map values.
    fn container(&self, node: &'a Json, field: &str) -> Result<Resolved<'a>, ExplainError> {
        let mut resolved = self.resolve(node, field)?;
        for _ in 0..MAX_HOPS {
            let next = match (resolved.node.get("items"), resolved.node.get("additionalProperties")) {
                (Some(items), _) => items,
                (None, Some(values)) if values.is_object() => values,
                _ => break,
            };
            resolved = self.resolve(next, field)?;
        }
        Ok(resolved)
    }

    /// Adds the fields below `node` (at `path`) to `out`; answers how many are direct children.
    fn walk(
        &self,
        node: &'a Json,
        path: &str,
        depth: usize,
        ancestors: &mut Vec<(String, String)>,
        out: &mut Vec<Field>,
    ) -> Result<usize, ExplainError> {
        let container = self.container(node, path)?;
        let Some(properties) = container.node.get("properties").and_then(Json::as_object) else {
            return Ok(0);
        };
        let required: Vec<&str> = container
            .node
            .get("required")
            .and_then(Json::as_array)
            .map(|r| r.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        for (name, property) in properties {
            let child_path = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
            let mut field = self.field(property, &child_path, name, depth, required.contains(&name.as_str()))?;
            let inner = self.container(property, &child_path)?;
            let at = out.len();
            let recurs = inner.name.and_then(|n| ancestors.iter().find(|(a, _)| a == n)).map(|(_, p)| p.clone());
            if let Some(ancestor_path) = recurs {
                field.recurs_at = Some(ancestor_path);
                out.push(field);
                continue;
            }
            out.push(field);
            if depth + 1 < MAX_DEPTH {
                if let Some(n) = inner.name {
                    ancestors.push((n.to_string(), child_path.clone()));
                }
                let children = self.walk(property, &child_path, depth + 1, ancestors, out)?;
                if inner.name.is_some() {
                    ancestors.pop();
                }
                out[at].children = children;
            }
        }
        Ok(properties.len())
    }

    /// What the schema says of one field (not its children).
    fn field(
        &self,
        raw: &'a Json,
        path: &str,
        name: &str,
        depth: usize,
        required: bool,
    ) -> Result<Field, ExplainError> {
        let resolved = self.resolve(raw, path)?;
        // A property's own words first (its description, default, extensions), then its type's.
        let layers = [raw, resolved.node];
        let first = |key: &str| layers.iter().find_map(|l| l.get(key));
        let text = |key: &str| first(key).and_then(Json::as_str).map(str::to_string);
        let mut field = Field {
            path: path.to_string(),
            name: name.to_string(),
            depth,
            type_label: self.type_label(raw, path, 0)?,
            description: text("description").unwrap_or_default(),
            required,
            default: first("default").map(json_text),
            enum_values: first("enum")
                .and_then(Json::as_array)
                .map(|v| v.iter().map(json_text).collect())
                .unwrap_or_default(),
            format: text("format"),
            nullable: first("nullable").and_then(Json::as_bool).unwrap_or(false),
            ..Field::default()
        };
        for key in CONSTRAINTS {
            if let Some(value) = first(key) {
                field.constraints.push((key.to_string(), json_text(value)));
            }
        }
        for key in EXTENSIONS {
            if let Some(value) = first(key) {
                field.extensions.push((key.to_string(), extension_text(key, value)));
            }
        }
        field.validations = validations(first("x-kubernetes-validations"), false);
        let items = self.container(raw, path)?;
        if !std::ptr::eq(items.node, resolved.node) {
            field.validations.extend(validations(items.node.get("x-kubernetes-validations"), true));
            field.item_enum_values = items
                .node
                .get("enum")
                .and_then(Json::as_array)
                .map(|v| v.iter().map(json_text).collect())
                .unwrap_or_default();
        }
        Ok(field)
    }

    /// kubectl explain's name for a schema's type (its `typeGuess` template): `[]` for arrays,
    /// `map[string]` for maps, a referred object type's short name, else the `type` (`Object`
    /// for objects and for schemas without a type).
    fn type_label(&self, node: &'a Json, field: &str, hops: usize) -> Result<String, ExplainError> {
        if hops > MAX_HOPS {
            return Ok("Object".into());
        }
        if let Some(items) = node.get("items") {
            return Ok(format!("[]{}", self.type_label(items, field, hops + 1)?));
        }
        match node.get("additionalProperties") {
            Some(values @ Json::Object(_)) => {
                return Ok(format!("map[string]{}", self.type_label(values, field, hops + 1)?));
            }
            Some(Json::Bool(true)) => return Ok("map[string]Object".into()),
            _ => {}
        }
        if let (Some([only]), None) =
            (node.get("allOf").and_then(Json::as_array).map(Vec::as_slice), node.get("properties"))
        {
            return self.type_label(only, field, hops + 1);
        }
        if let Some(reference) = node.get("$ref").and_then(Json::as_str) {
            let (name, target) = self.target(reference, field)?;
            return Ok(match target.get("type").and_then(Json::as_str) {
                None | Some("object") => name.rsplit('.').next().unwrap_or(name).to_string(),
                Some(primitive) => primitive.to_string(),
            });
        }
        Ok(match node.get("type").and_then(Json::as_str) {
            None | Some("object") => "Object".into(),
            Some(primitive) => primitive.to_string(),
        })
    }
}

/// The bounds and patterns shown with a field.
const CONSTRAINTS: [&str; 12] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "maxProperties",
];

/// The extensions that change how the server treats a field, shown with it.
pub const EXTENSIONS: [&str; 10] = [
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-selectable-fields",
];

fn validations(rules: Option<&Json>, on_items: bool) -> Vec<Validation> {
    let Some(Json::Array(rules)) = rules else { return Vec::new() };
    rules
        .iter()
        .map(|rule| {
            let text = |key: &str| rule.get(key).and_then(Json::as_str).map(str::to_string);
            Validation {
                rule: text("rule").unwrap_or_default(),
                message: text("message"),
                message_expression: text("messageExpression"),
                reason: text("reason"),
                field_path: text("fieldPath"),
                on_items,
            }
        })
        .collect()
}

/// A value as JSON text, strings without their quotes.
fn json_text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An extension's value as a person reads it: lists joined, kinds as `group/version, Kind=K`.
fn extension_text(key: &str, value: &Json) -> String {
    match (key, value) {
        ("x-kubernetes-group-version-kind", Json::Array(kinds)) => kinds
            .iter()
            .map(|k| {
                let part = |name: &str| k.get(name).and_then(Json::as_str).unwrap_or_default().to_string();
                kind_text(&GroupVersionKind { group: part("group"), version: part("version"), kind: part("kind") })
            })
            .collect::<Vec<_>>()
            .join("; "),
        ("x-kubernetes-selectable-fields", Json::Array(fields)) => {
            fields.iter().filter_map(|f| f.get("fieldPath").and_then(Json::as_str)).collect::<Vec<_>>().join(", ")
        }
        (_, Json::Array(items)) => items.iter().map(json_text).collect::<Vec<_>>().join(", "),
        (_, other) => json_text(other),
    }
}

fn display(field: &str) -> String {
    if field.is_empty() {
        "the kind".into()
    } else {
        field.to_string()
    }
}

fn kind_of_json(value: &Json) -> String {
    match value {
        Json::Null => "null".into(),
        Json::Bool(b) => format!("the boolean {b}"),
        Json::Number(n) => format!("the number {n}"),
        Json::String(s) => format!("the string {s:?}"),
        Json::Array(_) => "an array".into(),
        Json::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
#[path = "explain_tests.rs"]
mod tests;
