//! The write path as the editor uses it: an edited text parsed with located errors, the request
//! each of the five ways to send it would make (PUT, JSON patch, merge patch, strategic merge
//! patch, server-side apply) together with the object the server should end up with, the exact
//! request shown before sending, and the server's answers read back (`Warning` headers, Strict
//! validation errors).
//!
//! The patch bodies, SSA configurations, updates and rebases are built by `crate::api`; this module
//! only picks and combines them. Invariants: every write request carries a `fieldManager`; the
//! "expected" object is computed by applying the very body that is sent (the same functions the
//! round-trip tests check), except for apply, whose result depends on the server's ownership
//! records and is marked as an approximation.

use crate::api::codec::value::Value;
use crate::api::codec::yaml::decode_yaml;
use crate::api::discovery::{Discovery, Scope};
use crate::api::params::{
    ApplyParams, DeleteParams, DryRun, FieldValidation, Preconditions, PropagationPolicy, WriteParams,
};
use crate::api::request::{ApplyEncoding, Body, Collection, ObjectRef, Request};
use crate::api::schema::{gvk_of, OpenApiSchemas};
use crate::api::write::apply::{minimal_apply_configuration, ApplyBody};
use crate::api::write::documents::{split_yaml_documents, DocumentError};
use crate::api::write::patch::{
    apply_json_patch, apply_merge_patch, json_patch_ops, ops_from_value, PatchBody, PatchOp, TestGuards,
};
use crate::api::write::strategic::StrategicMerge;
use crate::api::write::update::update_request;

/// The field manager the explorer writes as unless the user names another.
pub const DEFAULT_FIELD_MANAGER: &str = "kube-api-explorer";

/// The five ways to send an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMethod {
    Put,
    JsonPatch,
    MergePatch,
    StrategicMerge,
    Apply,
}

impl WriteMethod {
    pub const ALL: [WriteMethod; 5] = [
        WriteMethod::Put,
        WriteMethod::JsonPatch,
        WriteMethod::MergePatch,
        WriteMethod::StrategicMerge,
        WriteMethod::Apply,
    ];

    /// The name shown on the method's tab.
    pub fn label(self) -> &'static str {
        match self {
            WriteMethod::Put => "PUT (update)",
            WriteMethod::JsonPatch => "JSON patch",
            WriteMethod::MergePatch => "Merge patch",
            WriteMethod::StrategicMerge => "Strategic merge",
            WriteMethod::Apply => "Server-side apply",
        }
    }
}

/// How to send: the options every write shares, and those of apply and JSON patch.
#[derive(Debug, Clone, PartialEq)]
pub struct SendOptions {
    pub field_manager: String,
    pub field_validation: FieldValidation,
    pub dry_run: bool,
    /// Apply: take ownership of conflicting fields.
    pub force: bool,
    /// Apply: YAML (JSON text) or CBOR body.
    pub encoding: ApplyEncoding,
    /// Apply: send only the fields that changed (a minimal apply configuration).
    pub minimal_apply: bool,
    /// JSON patch: the `test` operations to add.
    pub guards: TestGuards,
}

impl Default for SendOptions {
    fn default() -> Self {
        SendOptions {
            field_manager: DEFAULT_FIELD_MANAGER.to_string(),
            field_validation: FieldValidation::Strict,
            dry_run: false,
            force: false,
            encoding: ApplyEncoding::Yaml,
            minimal_apply: true,
            guards: TestGuards::default(),
        }
    }
}

impl SendOptions {
    /// The manager to send: the configured one, or the default when it is blank.
    pub fn manager(&self) -> String {
        let name = self.field_manager.trim();
        if name.is_empty() {
            DEFAULT_FIELD_MANAGER.to_string()
        } else {
            name.to_string()
        }
    }

    /// `dryRun`, `fieldValidation` and `fieldManager` of a create, update or non-apply patch.
    pub fn write_params(&self) -> WriteParams {
        WriteParams {
            dry_run: self.dry_run.then_some(DryRun::All),
            field_validation: Some(self.field_validation),
            field_manager: Some(self.manager()),
        }
    }

    /// The parameters of an apply.
    pub fn apply_params(&self) -> ApplyParams {
        ApplyParams {
            field_manager: self.manager(),
            force: self.force,
            dry_run: self.dry_run.then_some(DryRun::All),
            field_validation: Some(self.field_validation),
        }
    }
}

/// The object as the editor shows it: without `metadata.managedFields` (shown in the ownership
/// gutter instead, and rejected by the server in an apply body).
pub fn edit_view(object: &Value) -> Value {
    let mut object = object.clone();
    if let Value::Object(root) = &mut object {
        if let Some(Value::Object(metadata)) = root.get("metadata") {
            let mut metadata = metadata.clone();
            metadata.remove("managedFields");
            root.insert("metadata", Value::Object(metadata));
        }
    }
    object
}

/// Parses the editor's text (YAML or JSON) as exactly one object, with the error located in the
/// text.
pub fn parse_edit(text: &str) -> Result<Value, DocumentError> {
    let documents = split_yaml_documents(text);
    match documents.as_slice() {
        [] => Err(DocumentError { line: 1, column: 1, message: "expected an object, found an empty text".into() }),
        [one] => {
            let value = one.parsed.clone()?;
            match value {
                Value::Object(_) => Ok(value),
                other => Err(DocumentError {
                    line: one.start_line,
                    column: 1,
                    message: format!("expected an object (a mapping), found {}", other.kind_name()),
                }),
            }
        }
        [_, second, ..] => Err(DocumentError {
            line: second.start_line,
            column: 1,
            message: format!(
                "expected one object to edit, found {} documents (create several objects from the collection's Create)",
                documents.len()
            ),
        }),
    }
}

/// The editor text of an object: block YAML, or pretty JSON.
pub fn edit_text(object: &Value, json: bool) -> String {
    if json {
        return pretty_json(&object.to_json());
    }
    match crate::api::codec::yaml::encode_yaml(object) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("# cannot show as YAML: {e}"),
    }
}

/// Indents compact JSON text two spaces per level, keeping member order (serde_json's pretty
/// printer would sort the members).
fn pretty_json(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

/// Parses the JSON patch editor's text: a JSON (or YAML) array of operations.
pub fn parse_ops(text: &str) -> Result<Vec<PatchOp>, String> {
    let value = decode_yaml(text.as_bytes()).map_err(|e| format!("the operations: {e}"))?;
    ops_from_value(&value).map_err(|e| e.to_string())
}

/// The JSON patch operations as the editor shows them: a JSON array, one operation per line.
pub fn ops_text(ops: &[PatchOp]) -> String {
    if ops.is_empty() {
        return "[]".to_string();
    }
    let lines: Vec<String> = ops.iter().map(|op| format!("  {}", op.to_value().to_json())).collect();
    format!("[\n{}\n]", lines.join(",\n"))
}

/// The JSON patch from `base` to `edited` (both as the editor shows them) with `guards`.
pub fn default_ops(base: &Value, edited: &Value, guards: TestGuards) -> Vec<PatchOp> {
    json_patch_ops(&edit_view(base), &edit_view(edited), guards)
}

/// A request ready to send, and what it should do.
#[derive(Debug, Clone, PartialEq)]
pub struct WritePlan {
    pub request: Request,
    /// The object the server should hold afterwards (before defaults and server bookkeeping).
    pub expected: Value,
    /// What a person should know about this request before sending it.
    pub notes: Vec<String>,
}

/// What a plan needs besides the edit.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanContext<'a> {
    /// The OpenAPI schemas of the object's group version (strategic merge, minimal apply lists).
    pub schemas: Option<&'a OpenApiSchemas>,
    /// JSON patch operations edited by the user (instead of the ones built from the diff).
    pub ops: Option<&'a [PatchOp]>,
}

/// The request `method` makes to turn `base` (the object read from the server) into `edited`.
pub fn plan_write(
    method: WriteMethod,
    object: &ObjectRef,
    base: &Value,
    edited: &Value,
    options: &SendOptions,
    context: PlanContext<'_>,
) -> Result<WritePlan, String> {
    let old = edit_view(base);
    let new = edit_view(edited);
    let params = options.write_params();
    match method {
        WriteMethod::Put => {
            let request = update_request(object, base, &new, &params).map_err(|e| e.to_string())?;
            let version = base.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).unwrap_or_default();
            Ok(WritePlan {
                request,
                expected: new,
                notes: vec![format!(
                    "The whole object replaces the stored one, on condition that it is still at resourceVersion {version}: otherwise the server answers 409 Conflict."
                )],
            })
        }
        WriteMethod::JsonPatch => {
            let ops = match context.ops {
                Some(ops) => ops.to_vec(),
                None => json_patch_ops(&old, &new, options.guards),
            };
            let expected = apply_json_patch(&old, &ops)
                .map_err(|e| format!("the patch does not apply to the object read: {e}"))?;
            let request = PatchBody::json_patch(&ops).request(object, &params).map_err(|e| e.to_string())?;
            let tests = ops.iter().filter(|op| op.op_name() == "test").count();
            let note = if tests == 0 {
                "No test operation: the patch applies to whatever the object holds when it arrives.".to_string()
            } else {
                format!("{tests} test operation(s): the server refuses the whole patch (422) if a tested value changed meanwhile.")
            };
            Ok(WritePlan { request, expected, notes: vec![note] })
        }
        WriteMethod::MergePatch => {
            let body = PatchBody::merge(crate::api::write::patch::merge_patch(&old, &new));
            let expected = apply_merge_patch(&old, &body.body);
            let request = body.request(object, &params).map_err(|e| e.to_string())?;
            let mut notes =
                vec!["A merge patch replaces lists whole and deletes a field by setting it to null.".to_string()];
            let nulls = null_members(&body.body, "");
            if !nulls.is_empty() {
                notes.push(format!("null deletes: {}", nulls.join(", ")));
            }
            Ok(WritePlan { request, expected, notes })
        }
        WriteMethod::StrategicMerge => {
            // Without a schema a custom resource is still refused with its reason first.
            let empty = OpenApiSchemas::default();
            let schemas = context.schemas.unwrap_or(&empty);
            let patcher = StrategicMerge::for_object(schemas, &old).map_err(|e| e.to_string())?;
            let body = patcher.patch_body(&old, &new).map_err(|e| e.to_string())?;
            let expected = patcher.apply(&old, &body.body).map_err(|e| e.to_string())?;
            let request = body.request(object, &params).map_err(|e| e.to_string())?;
            Ok(WritePlan {
                request,
                expected,
                notes: vec![
                    "Lists with a patch merge key (from the server's OpenAPI document) are merged item by item.".into(),
                ],
            })
        }
        WriteMethod::Apply => {
            let (configuration, mut notes) = if options.minimal_apply {
                let schema = context.schemas.and_then(|s| gvk_of(&old).and_then(|gvk| s.kind(&gvk)));
                let minimal = minimal_apply_configuration(&old, &new, schema);
                let mut notes = vec!["Only the fields you changed are applied (a minimal apply configuration): this manager takes ownership of them.".to_string()];
                if !minimal.not_applied.is_empty() {
                    notes.push(format!(
                        "Not expressible in an apply configuration (removed only if this manager owned them): {}",
                        minimal
                            .not_applied
                            .iter()
                            .map(|p| crate::api::write::diff::display_pointer(p))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                (minimal.configuration, notes)
            } else {
                (
                    apply_configuration(&new),
                    vec!["The whole object is applied: this manager claims every field in it, so fields other managers own with other values conflict.".to_string()],
                )
            };
            if options.force {
                notes.push("force=true: conflicting fields are taken over from their managers.".into());
            }
            notes.push(
                "The result depends on the server's field ownership: the diff below is what the edit asks for.".into(),
            );
            let request = ApplyBody::new(configuration, options.encoding).request(object, &options.apply_params());
            Ok(WritePlan { request, expected: new, notes })
        }
    }
}

/// `object` without what an apply configuration must not carry: status, managed fields, and the
/// fields the server sets (uid, resourceVersion, generation, creationTimestamp, selfLink).
pub fn apply_configuration(object: &Value) -> Value {
    let mut object = edit_view(object);
    if let Value::Object(root) = &mut object {
        root.remove("status");
        if let Some(Value::Object(metadata)) = root.get("metadata") {
            let mut metadata = metadata.clone();
            for field in ["uid", "resourceVersion", "generation", "creationTimestamp", "selfLink", "deletionTimestamp"]
            {
                metadata.remove(field);
            }
            root.insert("metadata", Value::Object(metadata));
        }
    }
    object
}

/// The display paths of the `null` members of a merge patch (each deletes a field).
fn null_members(patch: &Value, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Value::Object(map) = patch {
        for (key, value) in map.iter() {
            let path = if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") };
            match value {
                Value::Null => out.push(path),
                Value::Object(_) => out.extend(null_members(value, &path)),
                _ => {}
            }
        }
    }
    out
}

/// The request as the preview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestPreview {
    pub method: String,
    /// Path and percent-encoded query.
    pub url: String,
    pub content_type: String,
    /// The body as text (UTF-8), or `None` when it is binary (CBOR).
    pub body_text: Option<String>,
    pub body_len: usize,
}

/// What `request` will put on the wire.
pub fn preview(request: &Request) -> RequestPreview {
    let body = request.body.as_deref().unwrap_or_default();
    RequestPreview {
        method: request.method.to_string(),
        url: request.path_and_query(),
        content_type: request.header_value("Content-Type").unwrap_or("(none)").to_string(),
        body_text: std::str::from_utf8(body).ok().map(str::to_string),
        body_len: body.len(),
    }
}

/// The texts of a `Warning` header (`299 - "text"`, several joined by commas as `fetch` joins
/// repeated headers); a value that does not follow the format is returned whole.
pub fn parse_warnings(header: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = header.chars().collect();
    let mut i = 0;
    let skip = |i: &mut usize, f: &dyn Fn(char) -> bool| {
        while *i < chars.len() && f(chars[*i]) {
            *i += 1;
        }
    };
    while i < chars.len() {
        skip(&mut i, &|c| c == ',' || c.is_whitespace());
        if i >= chars.len() {
            break;
        }
        let start = i;
        skip(&mut i, &|c| c.is_ascii_digit());
        let has_code = i > start;
        skip(&mut i, &|c| c == ' ');
        skip(&mut i, &|c| !c.is_whitespace() && c != '"');
        skip(&mut i, &|c| c == ' ');
        if !has_code || chars.get(i) != Some(&'"') {
            return vec![header.trim().to_string()];
        }
        i += 1;
        let mut text = String::new();
        while i < chars.len() && chars[i] != '"' {
            if chars[i] == '\\' && i + 1 < chars.len() {
                i += 1;
            }
            text.push(chars[i]);
            i += 1;
        }
        i += 1;
        out.push(text);
        // An optional quoted date follows.
        skip(&mut i, &|c| c == ' ');
        if chars.get(i) == Some(&'"') {
            i += 1;
            skip(&mut i, &|c| c != '"');
            i += 1;
        }
    }
    out
}

/// The field a warning or a strict-validation problem names (`unknown field "spec.replics"` →
/// `spec.replics`).
pub fn named_field(text: &str) -> Option<String> {
    let start = text.find("field \"")? + "field \"".len();
    let rest = &text[start..];
    rest.find('"').map(|end| rest[..end].to_string())
}

/// Every problem of a Strict validation failure's message (`... strict decoding error: unknown
/// field "a", duplicate field "b"`).
pub fn strict_problems(message: &str) -> Vec<String> {
    let Some((_, list)) = message.split_once("strict decoding error: ") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in list.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ',' if !quoted => {
                out.push(current.trim().to_string());
                current.clear();
            }
            _ => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// Which line of the editor text shows the field named by a server message (its display path,
/// e.g. `spec.replics` or `spec.template.spec.containers[0].image`), 0-based.
pub fn line_of_field(pointers: &[Option<String>], field: &str) -> Option<usize> {
    let field = field.trim_start_matches('.');
    pointers.iter().position(|p| p.as_deref().is_some_and(|p| crate::api::write::diff::display_pointer(p) == field))
}

/// One object of a create-from-YAML text, and the request that creates it.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateItem {
    /// 1-based line where the document starts.
    pub line: usize,
    /// `Kind namespace/name` (or `generateName…`), for the per-document result.
    pub label: String,
    /// The POST, or why this document cannot be sent.
    pub request: Result<Request, String>,
}

/// The create requests of a (multi-document) YAML or JSON `text`: one per object, in order, each
/// in the collection discovery lists for its `apiVersion` and `kind` (namespaced objects without a
/// namespace go to `default_namespace`, else `default`).
pub fn plan_creates(
    text: &str,
    discovery: &Discovery,
    default_namespace: Option<&str>,
    params: &WriteParams,
) -> Vec<CreateItem> {
    let mut items = Vec::new();
    for document in split_yaml_documents(text) {
        let objects = match document.objects() {
            Ok(objects) => objects,
            Err(e) => {
                items.push(CreateItem {
                    line: e.line,
                    label: format!("document {}", document.index + 1),
                    request: Err(e.to_string()),
                });
                continue;
            }
        };
        for object in objects {
            let text = |path: &[&str]| object.at(path).and_then(Value::as_str).map(str::to_string);
            let kind = text(&["kind"]).unwrap_or_default();
            let name = text(&["metadata", "name"])
                .or_else(|| text(&["metadata", "generateName"]).map(|g| format!("{g}…")))
                .unwrap_or_default();
            let request = create_request(&object, discovery, default_namespace, params);
            let namespace = request.as_ref().ok().and_then(|(ns, _)| ns.clone());
            let label = match &namespace {
                Some(ns) => format!("{kind} {ns}/{name}"),
                None => format!("{kind} {name}"),
            };
            items.push(CreateItem {
                line: document.start_line,
                label,
                request: request.map(|(_, r)| r).map_err(|e| format!("line {}: {e}", document.start_line)),
            });
        }
    }
    items
}

fn create_request(
    object: &Value,
    discovery: &Discovery,
    default_namespace: Option<&str>,
    params: &WriteParams,
) -> Result<(Option<String>, Request), String> {
    let (Some(api_version), Some(kind)) =
        (object.get("apiVersion").and_then(Value::as_str), object.get("kind").and_then(Value::as_str))
    else {
        return Err(format!("expected an object with apiVersion and kind, found {}", object.kind_name()));
    };
    if object.at(&["metadata", "name"]).is_none() && object.at(&["metadata", "generateName"]).is_none() {
        return Err("expected metadata.name or metadata.generateName, found neither".into());
    }
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let resource = discovery
        .groups
        .iter()
        .filter(|g| g.name == group)
        .flat_map(|g| g.versions.iter())
        .filter(|v| v.version == version)
        .flat_map(|v| v.resources.iter())
        .find(|r| r.kind == kind)
        .ok_or_else(|| format!("the server serves no {kind} in {api_version} (discovery lists none)"))?;
    let namespace = match resource.scope {
        Scope::Namespaced => Some(
            object
                .at(&["metadata", "namespace"])
                .and_then(Value::as_str)
                .or(default_namespace)
                .unwrap_or("default")
                .to_string(),
        ),
        Scope::Cluster => None,
    };
    let collection = Collection::new(resource, namespace.as_deref()).map_err(|e| e.to_string())?;
    Ok((namespace, Request::create(&collection, Body::json(object), params)))
}

/// What the delete form asks for, before it becomes `DeleteOptions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeleteChoice {
    /// `Foreground`, `Background`, `Orphan`, or empty for the server's default.
    pub propagation: String,
    /// Seconds, or empty for the object's default.
    pub grace_period: String,
    /// Refuse unless the object still has this uid.
    pub uid: Option<String>,
    /// Refuse unless the object is still at this resourceVersion.
    pub resource_version: Option<String>,
    pub dry_run: bool,
}

/// The `DeleteOptions` of a choice, or what is wrong with it.
pub fn delete_params(choice: &DeleteChoice) -> Result<DeleteParams, String> {
    let propagation_policy = match choice.propagation.as_str() {
        "" => None,
        "Foreground" => Some(PropagationPolicy::Foreground),
        "Background" => Some(PropagationPolicy::Background),
        "Orphan" => Some(PropagationPolicy::Orphan),
        other => return Err(format!("expected propagation Foreground, Background or Orphan, found {other:?}")),
    };
    let grace = choice.grace_period.trim();
    let grace_period_seconds = if grace.is_empty() {
        None
    } else {
        Some(
            grace
                .parse::<u32>()
                .map_err(|_| format!("expected the grace period as whole seconds (0 or more), found {grace:?}"))?,
        )
    };
    let preconditions = (choice.uid.is_some() || choice.resource_version.is_some())
        .then(|| Preconditions { uid: choice.uid.clone(), resource_version: choice.resource_version.clone() });
    Ok(DeleteParams { dry_run: choice.dry_run, grace_period_seconds, propagation_policy, preconditions })
}

/// When an object is being deleted: its `deletionTimestamp` and the finalizers still to run.
pub fn finalizing(object: &Value) -> Option<(String, Vec<String>)> {
    let since = object.at(&["metadata", "deletionTimestamp"]).and_then(Value::as_str)?.to_string();
    let finalizers = object
        .at(&["metadata", "finalizers"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.as_str().map(str::to_string))
        .collect();
    Some((since, finalizers))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::codec::json::decode_json;
    use crate::api::discovery::Scope;
    use crate::api::request::{Collection, Method};
    use crate::api::testdata::{resource_type, shared_file};

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("test JSON")
    }

    fn deployment(replicas: i64) -> Value {
        json(&format!(
            r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"web","namespace":"demo","resourceVersion":"42","uid":"u1","managedFields":[{{"manager":"m","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{{"f:spec":{{"f:replicas":{{}}}}}}}}]}},"spec":{{"replicas":{replicas},"template":{{"spec":{{"containers":[{{"name":"web","image":"nginx"}}]}}}}}},"status":{{"replicas":3}}}}"#
        ))
    }

    fn object_ref() -> ObjectRef {
        let rt = resource_type("apps", "v1", "deployments", Scope::Namespaced);
        Collection::new(&rt, Some("demo")).and_then(|c| c.object("web")).expect("ref")
    }

    fn body(request: &Request) -> Value {
        decode_json(request.body.as_deref().unwrap_or_default()).expect("JSON body")
    }

    fn query(request: &Request, name: &str) -> Option<String> {
        request.query.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    fn schemas() -> OpenApiSchemas {
        OpenApiSchemas::from_json(&shared_file("kube/openapi/apis__apps__v1_openapi.json")).expect("schemas")
    }

    #[test]
    fn every_method_sends_the_field_manager_and_expects_the_edit() {
        let (base, edited) = (deployment(3), edit_view(&deployment(5)));
        let schemas = schemas();
        let options = SendOptions::default();
        for method in WriteMethod::ALL {
            let context = PlanContext { schemas: Some(&schemas), ops: None };
            let plan = plan_write(method, &object_ref(), &base, &edited, &options, context).expect("plan");
            assert_eq!(query(&plan.request, "fieldManager").as_deref(), Some(DEFAULT_FIELD_MANAGER), "{method:?}");
            assert_eq!(query(&plan.request, "fieldValidation").as_deref(), Some("Strict"), "{method:?}");
            assert_eq!(plan.expected.at(&["spec", "replicas"]).and_then(Value::as_i64), Some(5), "{method:?}");
            assert_eq!(plan.request.path, "/apis/apps/v1/namespaces/demo/deployments/web");
            let content_type = plan.request.header_value("Content-Type").unwrap_or_default().to_string();
            let expect = match method {
                WriteMethod::Put => "application/json",
                WriteMethod::JsonPatch => "application/json-patch+json",
                WriteMethod::MergePatch => "application/merge-patch+json",
                WriteMethod::StrategicMerge => "application/strategic-merge-patch+json",
                WriteMethod::Apply => "application/apply-patch+yaml",
            };
            assert_eq!(content_type, expect);
        }
    }

    #[test]
    fn put_carries_the_base_resource_version_and_no_managed_fields() {
        let mut edited = edit_view(&deployment(5));
        if let Value::Object(root) = &mut edited {
            let mut meta = root.get("metadata").and_then(Value::as_object).cloned().expect("metadata");
            meta.insert("resourceVersion", Value::String("999".into()));
            root.insert("metadata", Value::Object(meta));
        }
        let plan = plan_write(
            WriteMethod::Put,
            &object_ref(),
            &deployment(3),
            &edited,
            &SendOptions::default(),
            PlanContext::default(),
        )
        .expect("plan");
        assert_eq!(plan.request.method, Method::Put);
        let sent = body(&plan.request);
        assert_eq!(sent.at(&["metadata", "resourceVersion"]).and_then(Value::as_str), Some("42"));
        assert!(sent.at(&["metadata", "managedFields"]).is_none());
    }

    #[test]
    fn json_patch_with_guards_and_edited_ops() {
        let options =
            SendOptions { guards: TestGuards { resource_version: true, old_values: true }, ..SendOptions::default() };
        let plan = plan_write(
            WriteMethod::JsonPatch,
            &object_ref(),
            &deployment(3),
            &deployment(5),
            &options,
            PlanContext::default(),
        )
        .expect("plan");
        assert_eq!(
            body(&plan.request).to_json(),
            r#"[{"op":"test","path":"/metadata/resourceVersion","value":"42"},{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/replicas","value":5}]"#
        );
        let ops = parse_ops(r#"[{"op":"replace","path":"/spec/replicas","value":7}]"#).expect("ops");
        let plan = plan_write(
            WriteMethod::JsonPatch,
            &object_ref(),
            &deployment(3),
            &deployment(3),
            &options,
            PlanContext { schemas: None, ops: Some(&ops) },
        )
        .expect("plan");
        assert_eq!(plan.expected.at(&["spec", "replicas"]).and_then(Value::as_i64), Some(7));
        // A test that does not hold against the object read is refused before sending.
        let stale = parse_ops(r#"[{"op":"test","path":"/spec/replicas","value":9}]"#).expect("ops");
        let refused = plan_write(
            WriteMethod::JsonPatch,
            &object_ref(),
            &deployment(3),
            &deployment(3),
            &options,
            PlanContext { schemas: None, ops: Some(&stale) },
        );
        assert!(refused.unwrap_err().contains("operation 0 (test /spec/replicas) failed"));
        assert_eq!(parse_ops("{}").unwrap_err(), "expected a JSON patch (an array of operations), found an object");
        assert_eq!(parse_ops(&ops_text(&ops)).expect("round trip"), ops);
    }

    #[test]
    fn merge_patch_names_its_null_deletes() {
        let mut edited = deployment(3);
        if let Value::Object(root) = &mut edited {
            root.remove("spec");
        }
        let plan = plan_write(
            WriteMethod::MergePatch,
            &object_ref(),
            &deployment(3),
            &edited,
            &SendOptions::default(),
            PlanContext::default(),
        )
        .expect("plan");
        assert!(plan.notes.iter().any(|n| n == "null deletes: spec"), "{:?}", plan.notes);
        assert!(plan.expected.get("spec").is_none());
    }

    #[test]
    fn strategic_merge_needs_a_schema_and_refuses_custom_resources() {
        let err = plan_write(
            WriteMethod::StrategicMerge,
            &object_ref(),
            &deployment(3),
            &deployment(5),
            &SendOptions::default(),
            PlanContext::default(),
        )
        .unwrap_err();
        assert!(err.contains("no OpenAPI schema for Deployment.apps/v1"), "{err}");
        let widget = json(
            r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"1"},"spec":{"size":1}}"#,
        );
        let bigger = json(
            r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"1"},"spec":{"size":2}}"#,
        );
        let schemas = schemas();
        for context in [PlanContext { schemas: Some(&schemas), ops: None }, PlanContext::default()] {
            let err = plan_write(
                WriteMethod::StrategicMerge,
                &object_ref(),
                &widget,
                &bigger,
                &SendOptions::default(),
                context,
            )
            .unwrap_err();
            assert!(err.contains("not supported for custom resources") && err.contains("415"), "{err}");
        }
    }

    #[test]
    fn apply_is_minimal_by_default_or_the_whole_object_without_server_fields() {
        let schemas = schemas();
        let context = PlanContext { schemas: Some(&schemas), ops: None };
        let options = SendOptions { force: true, ..SendOptions::default() };
        let plan = plan_write(WriteMethod::Apply, &object_ref(), &deployment(3), &deployment(5), &options, context)
            .expect("plan");
        assert_eq!(
            body(&plan.request).to_json(),
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":5}}"#
        );
        assert_eq!(query(&plan.request, "force").as_deref(), Some("true"));
        let whole = SendOptions {
            minimal_apply: false,
            encoding: ApplyEncoding::Cbor,
            dry_run: true,
            ..SendOptions::default()
        };
        let plan = plan_write(WriteMethod::Apply, &object_ref(), &deployment(3), &deployment(5), &whole, context)
            .expect("plan");
        assert_eq!(plan.request.header_value("Content-Type"), Some("application/apply-patch+cbor"));
        assert_eq!(query(&plan.request, "dryRun").as_deref(), Some("All"));
        let sent =
            crate::api::codec::cbor::decode_cbor(plan.request.body.as_deref().unwrap_or_default()).expect("CBOR");
        assert!(sent.get("status").is_none());
        assert!(sent.at(&["metadata", "uid"]).is_none() && sent.at(&["metadata", "managedFields"]).is_none());
        assert_eq!(sent.at(&["spec", "replicas"]).and_then(Value::as_i64), Some(5));
    }

    #[test]
    fn blank_manager_falls_back_to_the_default() {
        let options = SendOptions { field_manager: "  ".into(), ..SendOptions::default() };
        assert_eq!(options.manager(), DEFAULT_FIELD_MANAGER);
        let options = SendOptions { field_manager: " me ".into(), ..SendOptions::default() };
        assert_eq!(options.apply_params().field_manager, "me");
    }

    #[test]
    fn edits_parse_with_located_errors() {
        assert_eq!(parse_edit("a: 1\n").expect("object").to_json(), r#"{"a":1}"#);
        assert_eq!(parse_edit("{\"a\": 1}").expect("object").to_json(), r#"{"a":1}"#);
        let err = parse_edit("a: 1\nb: [\n").unwrap_err();
        assert_eq!(err.line, 3, "{err}");
        let err = parse_edit("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(err.message.contains("found 2 documents") && err.line == 2, "{err}");
        assert!(parse_edit("- 1\n").unwrap_err().message.contains("expected an object"));
        assert!(parse_edit("").unwrap_err().message.contains("empty"));
        let text = edit_text(&edit_view(&deployment(3)), false);
        assert!(!text.contains("managedFields"));
        assert_eq!(parse_edit(&text).expect("round trip"), edit_view(&deployment(3)));
        assert_eq!(parse_edit(&edit_text(&deployment(3), true)).expect("json round trip"), deployment(3));
        assert_eq!(
            pretty_json(r#"{"a":[],"b":{"c":"x,\\\"{"},"d":[1,{}]}"#),
            "{\n  \"a\": [],\n  \"b\": {\n    \"c\": \"x,\\\\\\\"{\"\n  },\n  \"d\": [\n    1,\n    {}\n  ]\n}"
        );
    }

    #[test]
    fn preview_shows_text_bodies_and_flags_binary_ones() {
        let plan = plan_write(
            WriteMethod::MergePatch,
            &object_ref(),
            &deployment(3),
            &deployment(5),
            &SendOptions::default(),
            PlanContext::default(),
        )
        .expect("plan");
        let shown = preview(&plan.request);
        assert_eq!(shown.method, "PATCH");
        assert_eq!(
            shown.url,
            "/apis/apps/v1/namespaces/demo/deployments/web?fieldValidation=Strict&fieldManager=kube-api-explorer"
        );
        assert_eq!(shown.content_type, "application/merge-patch+json");
        assert_eq!(shown.body_text.as_deref(), Some(r#"{"spec":{"replicas":5}}"#));
        let cbor = Request::get("/x").header("Content-Type", "application/cbor");
        let cbor = Request { body: Some(vec![0xa1, 0xff, 0xfe]), ..cbor };
        assert_eq!(preview(&cbor).body_text, None);
    }

    #[test]
    fn warnings_and_strict_problems_are_read_with_their_fields() {
        assert_eq!(
            parse_warnings(r#"299 - "unknown field \"spec.replics\"", 299 - "duplicate field \"a\"""#),
            vec![r#"unknown field "spec.replics""#.to_string(), r#"duplicate field "a""#.to_string()]
        );
        assert_eq!(parse_warnings(r#"299 - "x" "Sat, 01 Jan 2000 00:00:00 GMT""#), vec!["x".to_string()]);
        assert_eq!(parse_warnings("free text"), vec!["free text".to_string()]);
        assert_eq!(named_field(r#"unknown field "spec.replics""#).as_deref(), Some("spec.replics"));
        assert_eq!(named_field("no field here"), None);
        let message = r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replics", duplicate field "metadata.name""#;
        assert_eq!(
            strict_problems(message),
            vec![r#"unknown field "spec.replics""#.to_string(), r#"duplicate field "metadata.name""#.to_string()]
        );
        assert!(strict_problems("something else").is_empty());
        let pointers = crate::model::highlight::yaml_line_pointers("spec:\n  replics: 3\n");
        assert_eq!(line_of_field(&pointers, "spec.replics"), Some(1));
        assert_eq!(line_of_field(&pointers, ".spec.replics"), Some(1));
        assert_eq!(line_of_field(&pointers, "spec.other"), None);
    }

    fn discovery() -> Discovery {
        let kinded = |group: &str, plural: &str, scope, kind: &str| {
            let mut r = crate::api::testdata::resource_type(group, "v1", plural, scope);
            r.kind = kind.into();
            r
        };
        crate::api::testdata::discovery_of(vec![
            kinded("", "namespaces", Scope::Cluster, "Namespace"),
            kinded("", "configmaps", Scope::Namespaced, "ConfigMap"),
            kinded("apps", "deployments", Scope::Namespaced, "Deployment"),
        ])
    }

    #[test]
    fn multi_document_creates_are_one_request_each_in_their_collections() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: cm-\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: n1\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: other\n---\nkind: [\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: ConfigMap\n";
        let params = SendOptions::default().write_params();
        let items = plan_creates(text, &discovery(), Some("demo"), &params);
        let summary: Vec<(usize, String, Result<String, String>)> = items
            .iter()
            .map(|i| {
                (
                    i.line,
                    i.label.clone(),
                    i.request.as_ref().map(|r| format!("{} {}", r.method, r.path)).map_err(Clone::clone),
                )
            })
            .collect();
        assert_eq!(summary[0], (1, "ConfigMap demo/cm-…".into(), Ok("POST /api/v1/namespaces/demo/configmaps".into())));
        assert_eq!(summary[1], (5, "Namespace n1".into(), Ok("POST /api/v1/namespaces".into())));
        assert_eq!(
            summary[2],
            (10, "Deployment other/d".into(), Ok("POST /apis/apps/v1/namespaces/other/deployments".into()))
        );
        assert!(summary[3].2.as_ref().is_err_and(|e| e.starts_with("line 1")), "{:?}", summary[3]);
        assert_eq!(
            summary[4].2,
            Err("line 18: the server serves no Widget in example.com/v1 (discovery lists none)".into())
        );
        assert_eq!(summary[5].2, Ok("POST /api/v1/namespaces/demo/configmaps".into()));
        assert_eq!(summary[6].2, Err("line 23: expected metadata.name or metadata.generateName, found neither".into()));
        assert_eq!(items.len(), 7);
        let sent = items[0].request.as_ref().expect("request");
        assert!(sent.query.contains(&("fieldManager".into(), DEFAULT_FIELD_MANAGER.into())));
    }

    #[test]
    fn delete_choices_become_delete_options_or_clear_errors() {
        let choice = DeleteChoice {
            propagation: "Foreground".into(),
            grace_period: " 0 ".into(),
            uid: Some("u1".into()),
            resource_version: None,
            dry_run: true,
        };
        let params = delete_params(&choice).expect("params");
        let request = Request::delete(&object_ref(), &params);
        assert_eq!(
            String::from_utf8_lossy(request.body.as_deref().unwrap_or_default()),
            r#"{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"gracePeriodSeconds":0,"preconditions":{"uid":"u1"},"propagationPolicy":"Foreground"}"#
        );
        assert_eq!(delete_params(&DeleteChoice::default()).expect("defaults"), DeleteParams::default());
        let bad = DeleteChoice { grace_period: "soon".into(), ..DeleteChoice::default() };
        assert_eq!(
            delete_params(&bad).unwrap_err(),
            r#"expected the grace period as whole seconds (0 or more), found "soon""#
        );
        let bad = DeleteChoice { propagation: "Later".into(), ..DeleteChoice::default() };
        assert!(delete_params(&bad).unwrap_err().contains("Foreground, Background or Orphan"));
    }

    #[test]
    fn finalizing_objects_show_their_remaining_finalizers() {
        let object = json(r#"{"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["a/b","c"]}}"#);
        assert_eq!(finalizing(&object), Some(("2026-01-01T00:00:00Z".into(), vec!["a/b".into(), "c".into()])));
        assert_eq!(finalizing(&deployment(1)), None);
    }
}
