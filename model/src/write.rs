//! The write path as the editor uses it: an edited text parsed with located errors, the request
//! each of the five ways to send it would make (PUT, JSON patch, merge patch, strategic merge
//! patch, server-side apply) together with the object the server should end up with, the exact
//! request shown before sending, and the server's answers read back (`Warning` headers, Strict
//! validation errors).
//!
//! The patch bodies, SSA configurations, updates and rebases are built by `kube_wire`; this module
//! only picks and combines them. Invariants: every write request carries a `fieldManager`; the
//! "expected" object is computed by applying the very body that is sent (the same functions the
//! round-trip tests check), except for apply, whose result depends on the server's ownership
//! records and is marked as an approximation.

pub use crate::edit::{parse_edit, EditError};
use crate::i18n::{Localized, Msg, Text};
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::Value;
use kube_wire::codec::yaml::decode_yaml;
use kube_wire::discovery::Discovery;
use kube_wire::error::DecodeError;
use kube_wire::params::{
    ApplyParams, DeleteParams, DryRun, FieldValidation, Preconditions, PropagationPolicy, WriteParams,
};
use kube_wire::request::{ApplyEncoding, Body, Collection, ObjectRef, Request, RequestError};
use kube_wire::schema::{gvk_of, OpenApiSchemas};
use kube_wire::write::apply::{minimal_apply_configuration, ApplyBody};
use kube_wire::write::documents::split_yaml_documents;
use kube_wire::write::patch::{
    apply_json_patch, apply_merge_patch, json_patch_ops, ops_from_value, PatchBody, PatchError, PatchOp, TestGuards,
};
use kube_wire::write::strategic::{StrategicError, StrategicMerge};
use kube_wire::write::update::UpdateError;

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

/// The replicas a scale form's text asks for: a whole number from 0 up.
pub fn parse_replicas(text: &str) -> Result<i64, Text> {
    let text = text.trim();
    text.parse::<u32>()
        .map(i64::from)
        .map_err(|_| Text::new(Msg::WriteReplicasNotANumber).with("found", format!("{text:?}")))
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

/// The editor text of an object: block YAML, or pretty JSON.
pub fn edit_text(object: &Value, json: bool) -> String {
    if json {
        return pretty_json(&object.to_json());
    }
    match kube_wire::codec::yaml::encode_yaml(object) {
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

/// Why a write cannot be planned (nothing is sent).
#[derive(Debug, Clone, PartialEq)]
pub enum PlanError {
    OperationsText(DecodeError),
    Operations(PatchError),
    PatchDoesNotApply(PatchError),
    Update(UpdateError),
    Strategic(StrategicError),
    Request(RequestError),
}

impl Localized for PlanError {
    fn text(&self) -> Text {
        match self {
            PlanError::OperationsText(e) => Text::new(Msg::PlanOperationsText).with_text("error", e),
            PlanError::Operations(e) => e.text(),
            PlanError::PatchDoesNotApply(e) => Text::new(Msg::PlanPatchDoesNotApply).with_text("error", e),
            PlanError::Update(e) => e.text(),
            PlanError::Strategic(e) => e.text(),
            PlanError::Request(e) => e.text(),
        }
    }
}

crate::localized_display!(PlanError);

impl std::error::Error for PlanError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlanError::OperationsText(e) => Some(e),
            PlanError::PatchDoesNotApply(e) => Some(e),
            PlanError::Operations(_) | PlanError::Update(_) | PlanError::Strategic(_) | PlanError::Request(_) => None,
        }
    }
}

impl From<UpdateError> for PlanError {
    fn from(e: UpdateError) -> Self {
        PlanError::Update(e)
    }
}

impl From<StrategicError> for PlanError {
    fn from(e: StrategicError) -> Self {
        PlanError::Strategic(e)
    }
}

impl From<RequestError> for PlanError {
    fn from(e: RequestError) -> Self {
        PlanError::Request(e)
    }
}

/// Parses the JSON patch editor's text: a JSON (or YAML) array of operations.
pub fn parse_ops(text: &str) -> Result<Vec<PatchOp>, PlanError> {
    let value = decode_yaml(text.as_bytes()).map_err(PlanError::OperationsText)?;
    ops_from_value(&value).map_err(PlanError::Operations)
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
    pub notes: Vec<Text>,
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
) -> Result<WritePlan, PlanError> {
    let old = edit_view(base);
    let new = edit_view(edited);
    let params = options.write_params();
    match method {
        WriteMethod::Put => {
            let request = RequestBuilder::update_edit(object, base, &new, &params)?.build();
            let version = base.at(&["metadata", "resourceVersion"]).and_then(Value::as_str).unwrap_or_default();
            Ok(WritePlan { request, expected: new, notes: vec![Text::new(Msg::NotePut).with("version", version)] })
        }
        WriteMethod::JsonPatch => {
            let ops = match context.ops {
                Some(ops) => ops.to_vec(),
                None => json_patch_ops(&old, &new, options.guards),
            };
            let expected = apply_json_patch(&old, &ops).map_err(PlanError::PatchDoesNotApply)?;
            let request = RequestBuilder::patch_body(object, &PatchBody::json_patch(&ops), &params)?.build();
            let tests = ops.iter().filter(|op| op.op_name() == "test").count();
            let note =
                if tests == 0 { Text::new(Msg::NoteNoTests) } else { Text::new(Msg::NoteTests).with("count", tests) };
            Ok(WritePlan { request, expected, notes: vec![note] })
        }
        WriteMethod::MergePatch => {
            let body = PatchBody::merge(kube_wire::write::patch::merge_patch(&old, &new));
            let expected = apply_merge_patch(&old, &body.body);
            let request = RequestBuilder::patch_body(object, &body, &params)?.build();
            let mut notes = vec![Text::new(Msg::NoteMergePatch)];
            let nulls = null_members(&body.body, "");
            if !nulls.is_empty() {
                notes.push(Text::new(Msg::NoteNullDeletes).with("fields", nulls.join(", ")));
            }
            Ok(WritePlan { request, expected, notes })
        }
        WriteMethod::StrategicMerge => {
            // Without a schema a custom resource is still refused with its reason first.
            let empty = OpenApiSchemas::default();
            let schemas = context.schemas.unwrap_or(&empty);
            let patcher = StrategicMerge::for_object(schemas, &old)?;
            let body = patcher.patch_body(&old, &new)?;
            let expected = patcher.apply(&old, &body.body)?;
            let request = RequestBuilder::patch_body(object, &body, &params)?.build();
            Ok(WritePlan { request, expected, notes: vec![Text::new(Msg::NoteStrategic)] })
        }
        WriteMethod::Apply => {
            let (configuration, mut notes) = if options.minimal_apply {
                let schema = context.schemas.and_then(|s| gvk_of(&old).and_then(|gvk| s.kind(&gvk)));
                let minimal = minimal_apply_configuration(&old, &new, schema);
                let mut notes = vec![Text::new(Msg::NoteMinimalApply)];
                if !minimal.not_applied.is_empty() {
                    let fields: Vec<String> =
                        minimal.not_applied.iter().map(|p| kube_wire::write::diff::display_pointer(p)).collect();
                    notes.push(Text::new(Msg::NoteNotApplied).with("fields", fields.join(", ")));
                }
                (minimal.configuration, notes)
            } else {
                (apply_configuration(&new), vec![Text::new(Msg::NoteWholeApply)])
            };
            if options.force {
                notes.push(Text::new(Msg::NoteForce));
            }
            notes.push(Text::new(Msg::NoteApplyResult));
            let body = ApplyBody::new(configuration, options.encoding);
            let request = RequestBuilder::apply_body(object, &body, &options.apply_params()).build();
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
    let body = request.body().unwrap_or_default();
    RequestPreview {
        method: request.method().to_string(),
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
    pointers.iter().position(|p| p.as_deref().is_some_and(|p| kube_wire::write::diff::display_pointer(p) == field))
}

/// One object of a create-from-YAML text, and the request that creates it.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateItem {
    /// 1-based line where the document starts.
    pub line: usize,
    /// `Kind namespace/name` (or `generateName…`), for the per-document result.
    pub label: Text,
    /// The POST, or why this document cannot be sent.
    pub request: Result<Request, Text>,
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
                    label: Text::new(Msg::CreateDocumentNumber).with("number", document.index + 1),
                    request: Err(e.text()),
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
            let label = Text::verbatim(match &namespace {
                Some(ns) => format!("{kind} {ns}/{name}"),
                None => format!("{kind} {name}"),
            });
            items.push(CreateItem {
                line: document.start_line,
                label,
                request: request
                    .map(|(_, r)| r)
                    .map_err(|e| Text::new(Msg::CreateAtLine).with("line", document.start_line).with_text("error", e)),
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
) -> Result<(Option<String>, Request), Text> {
    let (Some(api_version), Some(kind)) =
        (object.get("apiVersion").and_then(Value::as_str), object.get("kind").and_then(Value::as_str))
    else {
        return Err(Text::new(Msg::StrategicNoKind).with_text("found", object.kind()));
    };
    if object.at(&["metadata", "name"]).is_none() && object.at(&["metadata", "generateName"]).is_none() {
        return Err(Text::new(Msg::CreateNoName));
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
        .ok_or_else(|| Text::new(Msg::CreateNotServed).with("kind", kind).with("api_version", api_version))?;
    // The object's own namespace, else the view's, else `default` (as kubectl create -f).
    let namespace = resource.is_namespaced().then(|| {
        object
            .at(&["metadata", "namespace"])
            .and_then(Value::as_str)
            .or(default_namespace)
            .unwrap_or("default")
            .to_string()
    });
    let collection = Collection::new(resource, namespace.as_deref()).map_err(|e| e.text())?;
    Ok((namespace, RequestBuilder::create(&collection, Body::json(object), params).build()))
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
pub fn delete_params(choice: &DeleteChoice) -> Result<DeleteParams, Text> {
    let propagation_policy = match choice.propagation.as_str() {
        "" => None,
        "Foreground" => Some(PropagationPolicy::Foreground),
        "Background" => Some(PropagationPolicy::Background),
        "Orphan" => Some(PropagationPolicy::Orphan),
        other => {
            return Err(Text::new(Msg::DeleteBadPropagation)
                .with("policies", "Foreground, Background")
                .with("last", "Orphan")
                .with("found", format!("{other:?}")))
        }
    };
    let grace = choice.grace_period.trim();
    let grace_period_seconds = if grace.is_empty() {
        None
    } else {
        Some(grace.parse::<u32>().map_err(|_| Text::new(Msg::DeleteBadGrace).with("found", format!("{grace:?}")))?)
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
#[path = "write_tests.rs"]
mod tests;
