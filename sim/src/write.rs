//! Writes: POST create (generateName, AlreadyExists), PUT update (Conflict on a stale
//! resourceVersion), PATCH (JSON, merge, strategic merge, apply), DELETE with finalizers,
//! preconditions, propagationPolicy and gracePeriodSeconds, deletecollection, and the `status`
//! and `scale` subresources. Every write shares the same preparation: decoding with field
//! validation, CRD defaulting and value checks, server-managed metadata and managedFields,
//! and `dryRun=All`, which runs everything but does not persist or notify watchers.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use rand::Rng;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Value};

use crate::api::{render_object, Ctx, ResourcePath};
use crate::fields::{record_update, Entry, Writer};
use crate::list::ListOptions;
use crate::negotiate::{essence, Target};
use crate::object::{self, meta_mut};
use crate::patch::{self, PatchError, PatchType};
use crate::registry::ResourceType;
use crate::status::{
    self, bad_request, conflict, invalid, not_found, ApiError, ApiResult, Cause, Details, FieldError, Status,
};
use crate::store::{Obj, Txn};
use crate::table::IncludeObject;
use crate::{apply, App};

/// How strictly unknown and duplicate fields are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    Warn,
    Strict,
}

/// Options every write takes from the query.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub manager: String,
    pub manager_given: bool,
    pub validation: FieldValidation,
    pub force: Option<bool>,
}

impl WriteOptions {
    pub fn parse(ctx: &Ctx) -> ApiResult<WriteOptions> {
        let kind = match ctx.method.as_str() {
            "POST" => "CreateOptions",
            "PUT" => "UpdateOptions",
            "DELETE" => "DeleteOptions",
            _ => "PatchOptions",
        };
        let dry_run = match ctx.query.get("dryRun").map(String::as_str) {
            None | Some("") => false,
            Some("All") => true,
            Some(other) => {
                let e = FieldError {
                    reason: "FieldValueNotSupported",
                    field: "dryRun".into(),
                    detail: format!("Unsupported value: [\"{other}\"]: supported values: \"All\""),
                };
                return Err(options_invalid(kind, vec![e]));
            }
        };
        let validation = match ctx.query.get("fieldValidation").map(String::as_str) {
            None | Some("") | Some("Warn") => FieldValidation::Warn,
            Some("Ignore") => FieldValidation::Ignore,
            Some("Strict") => FieldValidation::Strict,
            Some(other) => {
                let e = FieldError::not_supported("fieldValidation", other, &["", "Ignore", "Strict", "Warn"]);
                return Err(options_invalid(kind, vec![e]));
            }
        };
        let given = ctx.query.get("fieldManager").filter(|m| !m.is_empty()).cloned();
        let manager = given.clone().unwrap_or_else(|| {
            let ua = ctx.header("user-agent").unwrap_or("unknown");
            ua.split('/').next().unwrap_or(ua).chars().take(128).collect()
        });
        if manager.chars().count() > 128 {
            return Err(options_invalid(
                "PatchOptions",
                vec![FieldError::invalid("fieldManager", &json!(manager), "must be less than 128 characters")],
            ));
        }
        let force = match ctx.query.get("force").map(String::as_str) {
            None => None,
            Some("true" | "1") => Some(true),
            Some(_) => Some(false),
        };
        Ok(WriteOptions { dry_run, manager, manager_given: given.is_some(), validation, force })
    }
}

/// `XOptions.meta.k8s.io "" is invalid: ...` as the option validators answer.
pub fn options_invalid(kind: &str, errors: Vec<FieldError>) -> ApiError {
    let list: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect();
    let joined = if list.len() == 1 { list[0].clone() } else { format!("[{}]", list.join(", ")) };
    Status::failure(422, "Invalid", format!("{kind}.meta.k8s.io \"\" is invalid: {joined}"))
        .with_details(Details {
            group: "meta.k8s.io".into(),
            kind: kind.into(),
            causes: errors
                .iter()
                .map(|e| Cause { reason: e.reason.into(), message: e.detail.clone(), field: e.field.clone() })
                .collect(),
            ..Details::default()
        })
        .into()
}

/// Records duplicate keys while building a `Value`, since serde_json keeps the last silently.
struct DupSeed<'a> {
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
    let doc = kube_api_explorer::api::codec::cbor::decode_cbor(body).map_err(|e| e.to_string())?;
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
            let value = crate::protobuf::decode_object(body)
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
fn check_type(rt: &ResourceType, obj: &mut Value) -> ApiResult<()> {
    let av = rt.api_version();
    if let Some(given) = obj["apiVersion"].as_str() {
        if given != av {
            return Err(bad_request(format!(
                "the API version in the data ({given}) does not match the expected API version ({av})"
            )));
        }
    }
    if let Some(given) = obj["kind"].as_str() {
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

/// Unknown and duplicate fields: warnings for Warn, an error for Strict.
fn field_problems(
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

fn strict_error(rt: &ResourceType, problems: &[String]) -> ApiError {
    bad_request(format!(
        "{} in version \"{}\" cannot be handled as a {}: strict decoding error: {}",
        rt.kind,
        rt.version,
        rt.kind,
        problems.join(", ")
    ))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

fn name_errors(name: &str) -> Vec<FieldError> {
    if valid_name(name) {
        return Vec::new();
    }
    vec![FieldError::invalid(
        "metadata.name",
        &json!(name),
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    )]
}

fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..5).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

/// The finalizer with which the apiextensions controller deletes a CRD's objects first.
const CRD_CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

fn is_crd(rt: &ResourceType) -> bool {
    rt.group == "apiextensions.k8s.io" && rt.plural == "customresourcedefinitions"
}

/// Checks a CustomResourceDefinition and fills the status the apiextensions controller sets.
pub fn prepare_crd(obj: &mut Value) -> ApiResult<()> {
    let name = object::name(obj).to_string();
    let spec = &obj["spec"];
    let group = spec["group"].as_str().unwrap_or_default().to_string();
    let plural = spec["names"]["plural"].as_str().unwrap_or_default().to_string();
    let mut errors = Vec::new();
    if name != format!("{plural}.{group}") {
        errors.push(FieldError::invalid("metadata.name", &json!(name), "must be spec.names.plural+\".\"+spec.group"));
    }
    if let Err(e) = crate::registry::check_crd(obj) {
        errors.push(FieldError::required("spec", e));
    }
    if !errors.is_empty() {
        return Err(invalid("apiextensions.k8s.io", "CustomResourceDefinition", &name, &errors));
    }
    let finalizers = meta_mut(obj).entry("finalizers").or_insert_with(|| json!([]));
    if let Some(list) = finalizers.as_array_mut() {
        if !list.iter().any(|f| f == CRD_CLEANUP) {
            list.push(json!(CRD_CLEANUP));
        }
    }
    let now = object::now_string();
    let stored: Vec<Value> = obj["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["storage"] == true)
        .map(|v| v["name"].clone())
        .collect();
    obj["status"] = json!({
        "acceptedNames": obj["spec"]["names"].clone(),
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": now},
            {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": now}
        ],
        "storedVersions": stored,
    });
    Ok(())
}

/// Keeps controllers in step with a write: the served custom resource types with stored
/// CustomResourceDefinitions, and a Deployment's ReplicaSets and pods with its spec (a pod of
/// theirs that is deleted is replaced at once, as the ReplicaSet controller does).
pub fn after_write(app: &Arc<App>, rt: &ResourceType, obj: &Value, gone: bool) {
    if rt.group == "apps" && rt.plural == "deployments" && !gone {
        crate::controller::reconcile(app, object::namespace(obj), object::name(obj));
        return;
    }
    if rt.group.is_empty() && rt.plural == "pods" && (gone || object::is_deleting(obj)) {
        let owner = app.store.write(|txn| crate::controller::owning_deployment(txn, obj));
        if let Some(dep) = owner {
            crate::controller::reconcile(app, object::namespace(obj), &dep);
        }
        return;
    }
    if !is_crd(rt) {
        return;
    }
    let group = obj["spec"]["group"].as_str().unwrap_or_default().to_string();
    let plural = obj["spec"]["names"]["plural"].as_str().unwrap_or_default().to_string();
    if gone || object::is_deleting(obj) {
        let key = format!("{group}/{plural}");
        let crd_name = object::name(obj).to_string();
        app.store.write(|txn| {
            for o in txn.state().list(&key, None) {
                txn.remove(&key, object::namespace(&o), object::name(&o));
            }
            let crd_key = rt.storage_key();
            if let Some(crd) = txn.get(&crd_key, "", &crd_name) {
                let rest: Vec<String> = object::finalizers(&crd).into_iter().filter(|f| f != CRD_CLEANUP).collect();
                if rest.is_empty() {
                    txn.remove(&crd_key, "", &crd_name);
                } else {
                    let mut c = crd.as_ref().clone();
                    meta_mut(&mut c).insert("finalizers".into(), json!(rest));
                    txn.put(&crd_key, c);
                }
            }
        });
        app.registry.remove_custom(&group, &plural);
    } else if app.registry.add_custom(obj).is_err() {
        app.registry.remove_custom(&group, &plural);
    }
}

/// Fills the metadata a create sets: uid, creationTimestamp, generation and the creator's
/// managedFields entry.
pub fn stamp_new(rt: &ResourceType, obj: &mut Value, manager: &str) {
    let now = object::now_string();
    let api_version = rt.api_version();
    if let Some(m) = obj.as_object_mut() {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(rt.kind));
    }
    // Only types whose strategy tracks spec changes carry a generation (not namespaces, nodes
    // or services, for instance).
    let has_spec = rt.is_custom()
        || (obj.get("spec").is_some()
            && (matches!(rt.group.as_str(), "apps" | "batch" | "policy" | "autoscaling" | "networking.k8s.io")
                || rt.plural == "pods"));
    let meta = meta_mut(obj);
    meta.insert("uid".into(), json!(object::new_uid()));
    meta.insert("creationTimestamp".into(), json!(now));
    meta.remove("resourceVersion");
    meta.remove("managedFields");
    meta.remove("deletionTimestamp");
    meta.remove("deletionGracePeriodSeconds");
    if has_spec {
        meta.insert("generation".into(), json!(1));
    }
    record_update(
        None,
        obj,
        &Writer { manager, operation: "Update", api_version: &api_version, subresource: None, time: &now },
    );
}

/// Whether the main resource ignores `status` (it has a status subresource).
fn has_status(rt: &ResourceType) -> bool {
    rt.subresource("status").is_some()
}

fn success(ctx: &Ctx, rt: &ResourceType, obj: &Value, code: StatusCode, warnings: &[String]) -> ApiResult<Response> {
    let output = ctx.output(Target::Object)?;
    let mut resp = render_object(ctx, rt, obj, output, IncludeObject::Metadata, code);
    for w in warnings {
        let text = format!("299 - \"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""));
        if let Ok(v) = HeaderValue::from_str(&text) {
            resp.headers_mut().append("warning", v);
        }
    }
    Ok(resp)
}

/// Ensures the namespace of a namespaced create exists and is not terminating.
fn check_namespace(txn: &Txn<'_>, rt: &ResourceType, ns: &str) -> ApiResult<()> {
    if !rt.namespaced {
        return Ok(());
    }
    match txn.get("/namespaces", "", ns) {
        None => Err(Status::failure(404, "NotFound", format!("namespaces \"{ns}\" not found"))
            .with_details(Details { name: ns.into(), kind: "namespaces".into(), ..Details::default() })
            .into()),
        Some(n) if object::is_deleting(&n) => Err(Status::failure(
            403,
            "Forbidden",
            format!(
                "{} \"{}\" is forbidden: unable to create new content in namespace {ns} because it is being terminated",
                rt.qualified_name(),
                ""
            ),
        )
        .into()),
        Some(_) => Ok(()),
    }
}

pub fn create(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = WriteOptions::parse(ctx)?;
    let Decoded { value: mut obj, duplicates } = decode_object(ctx, body)?;
    check_type(&rt, &mut obj)?;
    let ns = path.namespace.clone().unwrap_or_default();
    {
        let meta = meta_mut(&mut obj);
        match meta.get("namespace").and_then(Value::as_str) {
            Some(given) if rt.namespaced && !given.is_empty() && given != ns => {
                return Err(bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ))
            }
            _ => {}
        }
        if rt.namespaced {
            meta.insert("namespace".into(), json!(ns));
        } else {
            meta.remove("namespace");
        }
        let name = meta.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        if name.is_empty() {
            match meta.get("generateName").and_then(Value::as_str) {
                Some(prefix) if !prefix.is_empty() => {
                    let generated = format!("{prefix}{}", random_suffix());
                    meta.insert("name".into(), json!(generated));
                }
                _ => {
                    return Err(invalid(
                        &rt.group,
                        &rt.kind,
                        "",
                        &[FieldError::required("metadata.name", "name or generateName is required")],
                    ))
                }
            }
        }
    }
    let name = object::name(&obj).to_string();
    let mut errors = name_errors(&name);
    let problems = field_problems(app, &rt, &obj, &duplicates, &opts);
    if opts.validation == FieldValidation::Strict && !problems.is_empty() {
        return Err(strict_error(&rt, &problems));
    }
    app.schemas.apply_defaults(&rt, &mut obj);
    errors.extend(app.schemas.validate_values(&rt, &obj));
    if !errors.is_empty() {
        return Err(invalid(&rt.group, &rt.kind, &name, &errors));
    }
    if rt.is_custom() && has_status(&rt) {
        if let Some(m) = obj.as_object_mut() {
            m.remove("status");
        }
    }
    if rt.group.is_empty() && rt.plural == "namespaces" {
        prepare_namespace(&mut obj, &name);
    }
    if is_crd(&rt) {
        prepare_crd(&mut obj)?;
    }
    let is_pod = rt.group.is_empty() && rt.plural == "pods";
    if is_pod {
        prepare_pod(&mut obj);
    }
    stamp_new(&rt, &mut obj, &opts.manager);
    let key = rt.storage_key();
    let stored = app.store.write(|txn| -> ApiResult<Value> {
        check_namespace(txn, &rt, &ns)?;
        if txn.get(&key, &ns, &name).is_some() {
            return Err(status::already_exists(&rt, &name));
        }
        if opts.dry_run {
            return Ok(obj);
        }
        Ok((*txn.put(&key, obj)).clone())
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
        if is_pod {
            crate::activity::run_pod(app.clone(), ns.clone(), name.clone());
        }
    }
    success(ctx, &rt, &stored, StatusCode::CREATED, &problems)
}

/// A new pod is scheduled at once (to a node chosen from its name) and starts Pending; the
/// simulated kubelet takes it from there.
fn prepare_pod(obj: &mut Value) {
    if obj["spec"]["nodeName"].as_str().is_none_or(str::is_empty) {
        let n = object::name(obj).bytes().map(u32::from).sum::<u32>() % 3 + 1;
        object::set_at(obj, &["spec", "nodeName"], json!(format!("node-{n}")));
    }
    obj["status"] = crate::dataset::pending_status();
}

fn prepare_namespace(obj: &mut Value, name: &str) {
    let meta = meta_mut(obj);
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(l) = labels.as_object_mut() {
        l.insert("kubernetes.io/metadata.name".into(), json!(name));
    }
    obj["spec"] = json!({"finalizers": ["kubernetes"]});
    obj["status"] = json!({"phase": "Active"});
}

/// Carries what the server owns from the live object into a new version of it.
fn carry_over(rt: &ResourceType, old: &Value, new: &mut Value, subresource: Option<&str>) {
    let old_meta = object::meta(old).clone();
    let meta = meta_mut(new);
    for k in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "namespace",
        "name",
    ] {
        match old_meta.get(k) {
            Some(v) => meta.insert(k.into(), v.clone()),
            None => meta.remove(k),
        };
    }
    meta.remove("managedFields");
    if let Some(mf) = old_meta.get("managedFields") {
        meta.insert("managedFields".into(), mf.clone());
    }
    if subresource.is_none() && has_status(rt) {
        match old.get("status") {
            Some(s) => new["status"] = s.clone(),
            None => {
                if let Some(m) = new.as_object_mut() {
                    m.remove("status");
                }
            }
        }
    }
    if subresource == Some("status") {
        let status = new.get("status").cloned();
        let mut kept = old.clone();
        match status {
            Some(s) => kept["status"] = s,
            None => {
                if let Some(m) = kept.as_object_mut() {
                    m.remove("status");
                }
            }
        }
        *new = kept;
    }
    let spec_changed = strip_for_generation(old) != strip_for_generation(new);
    if spec_changed {
        let next = old_meta.get("generation").and_then(Value::as_i64).unwrap_or(0) + 1;
        if old_meta.get("generation").is_some() {
            meta_mut(new).insert("generation".into(), json!(next));
        }
    }
}

fn strip_for_generation(o: &Value) -> Value {
    let mut c = o.clone();
    if let Some(m) = c.as_object_mut() {
        m.remove("metadata");
        m.remove("status");
    }
    c
}

/// Who writes and through which subresource; `managed` carries apply's computed entries.
pub struct How<'a> {
    pub opts: &'a WriteOptions,
    pub subresource: Option<&'a str>,
    pub managed: Option<Vec<Entry>>,
}

/// The second half of every update: checks, managedFields, the stored write (or not, for
/// dry-run), and removal when the last finalizer of a deleting object goes.
pub fn finish_update(
    app: &Arc<App>,
    txn: &mut Txn<'_>,
    rt: &ResourceType,
    old: &Value,
    mut new: Value,
    how: How<'_>,
) -> ApiResult<Value> {
    let How { opts, subresource, managed } = how;
    let name = object::name(old).to_string();
    let ns = object::namespace(old).to_string();
    if let Some(given) = object::meta(&new)["resourceVersion"].as_str() {
        if !given.is_empty() && given != object::resource_version(old) {
            return Err(conflict(
                rt,
                &name,
                "the object has been modified; please apply your changes to the latest version and try again",
            ));
        }
    }
    if object::name(&new) != name && !object::name(&new).is_empty() {
        return Err(bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({name})",
            object::name(&new)
        )));
    }
    carry_over(rt, old, &mut new, subresource);
    app.schemas.apply_defaults(rt, &mut new);
    let errors = app.schemas.validate_values(rt, &new);
    if !errors.is_empty() {
        return Err(invalid(&rt.group, &rt.kind, &name, &errors));
    }
    match managed {
        Some(entries) => {
            let entries: Vec<Entry> = entries
                .into_iter()
                .map(|mut e| {
                    e.set.retain(|p| crate::fields::value_at(&new, p).is_some());
                    e
                })
                .collect();
            crate::fields::set_entries(&mut new, &entries);
        }
        None => {
            let now = object::now_string();
            let av = rt.api_version();
            record_update(
                Some(old),
                &mut new,
                &Writer { manager: &opts.manager, operation: "Update", api_version: &av, subresource, time: &now },
            );
        }
    }
    if opts.dry_run {
        return Ok(new);
    }
    if new == *old {
        return Ok(new);
    }
    let key = rt.storage_key();
    if object::is_deleting(&new) && object::finalizers(&new).is_empty() {
        let gone = txn.put(&key, new);
        remove_now(app, txn, rt, &ns, &name);
        return Ok((*gone).clone());
    }
    Ok((*txn.put(&key, new)).clone())
}

pub fn respond(
    ctx: &Ctx,
    rt: &ResourceType,
    obj: &Value,
    code: StatusCode,
    warnings: &[String],
) -> ApiResult<Response> {
    success(ctx, rt, obj, code, warnings)
}

pub fn update(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = WriteOptions::parse(ctx)?;
    let Decoded { value: mut obj, duplicates } = decode_object(ctx, body)?;
    let sub = path.subresource.as_deref();
    if sub == Some("scale") {
        return scale_write(app, ctx, path, name, Some(obj), None);
    }
    check_type(&rt, &mut obj)?;
    let problems = field_problems(app, &rt, &obj, &duplicates, &opts);
    if opts.validation == FieldValidation::Strict && !problems.is_empty() {
        return Err(strict_error(&rt, &problems));
    }
    let ns = path.namespace.clone().unwrap_or_default();
    let key = rt.storage_key();
    let stored = app.store.write(|txn| {
        let old = txn.get(&key, &ns, name).ok_or_else(|| not_found(&rt, name))?;
        finish_update(app, txn, &rt, &old, obj, How { opts: &opts, subresource: sub, managed: None })
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
    }
    success(ctx, &rt, &stored, StatusCode::OK, &problems)
}

fn patch_rejected() -> ApiError {
    Status::failure(422, "Invalid", "the server rejected our request due to an error in our request")
        .with_details(Details::default())
        .into()
}

pub fn patch(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let ct = ctx.header("content-type").map(essence).unwrap_or_default();
    let accepted: &[&str] = if rt.is_custom() {
        &[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml",
            "application/apply-patch+cbor",
        ]
    } else {
        &[
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml",
            "application/apply-patch+cbor",
        ]
    };
    let kind = match PatchType::from_content_type(&ct) {
        Some(PatchType::StrategicMerge) if rt.is_custom() => None,
        other => other,
    };
    let Some(kind) = kind else { return Err(status::unsupported_media_type(accepted)) };
    let opts = WriteOptions::parse(ctx)?;
    if !matches!(kind, PatchType::ApplyYaml | PatchType::ApplyCbor) && opts.force.is_some() {
        return Err(options_invalid(
            "PatchOptions",
            vec![FieldError::forbidden("force", "may not be specified for non-apply patch")],
        ));
    }
    if matches!(kind, PatchType::ApplyYaml | PatchType::ApplyCbor) {
        return apply::apply(app, ctx, path, name, body, &opts, kind == PatchType::ApplyCbor);
    }
    if path.subresource.as_deref() == Some("scale") {
        return scale_write(app, ctx, path, name, None, Some((kind, body)));
    }
    let ns = path.namespace.clone().unwrap_or_default();
    let key = rt.storage_key();
    let sub = path.subresource.clone();
    let schema = app.schemas.root(&rt).cloned();
    let mut warnings = Vec::new();
    let stored = app.store.write(|txn| {
        let old = txn.get(&key, &ns, name).ok_or_else(|| not_found(&rt, name))?;
        let current = crate::api::with_version(&rt, &old);
        let patched = match kind {
            PatchType::Json => patch::json_patch(&current, body),
            PatchType::Merge => patch::merge_patch(&current, body),
            _ => match decode_json(body) {
                Ok(d) => patch::strategic_merge(&app.schemas, schema.as_ref(), &current, &d.value),
                Err(e) => Err(PatchError::Malformed(e)),
            },
        };
        let mut patched = match patched {
            Ok(p) if p.is_object() => p,
            Ok(_) | Err(PatchError::Rejected) => return Err(patch_rejected()),
            Err(PatchError::Malformed(e)) => return Err(bad_request(format!("error decoding patch: {e}"))),
        };
        check_type(&rt, &mut patched)?;
        let dups = if kind == PatchType::Json {
            Vec::new()
        } else {
            decode_json(body).map(|d| d.duplicates).unwrap_or_default()
        };
        let problems = field_problems(app, &rt, &patched, &dups, &opts);
        if opts.validation == FieldValidation::Strict && !problems.is_empty() {
            let text = serde_json::to_string(&patched).unwrap_or_default();
            let detail = format!("Invalid value: {}: strict decoding error: {}", json!(text), problems.join(", "));
            return Err(Status::failure(422, "Invalid", format!(" \"\" is invalid: patch: {detail}"))
                .with_details(Details {
                    causes: vec![Cause { reason: "FieldValueInvalid".into(), message: detail, field: "patch".into() }],
                    ..Details::default()
                })
                .into());
        }
        warnings = problems;
        finish_update(app, txn, &rt, &old, patched, How { opts: &opts, subresource: sub.as_deref(), managed: None })
    })?;
    if !opts.dry_run {
        after_write(app, &rt, &stored, false);
    }
    success(ctx, &rt, &stored, StatusCode::OK, &warnings)
}

/// The Scale view of an object (deployments, replicasets, statefulsets, the CRD).
fn scale_of(rt: &ResourceType, obj: &Value) -> Value {
    let meta = object::meta(obj);
    let mut status = json!({"replicas": obj["status"]["replicas"].as_i64().unwrap_or(0)});
    if !rt.is_custom() {
        if let Some(sel) = obj["spec"]["selector"]["matchLabels"].as_object() {
            let s: Vec<String> = sel.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect();
            status["selector"] = json!(s.join(","));
        }
    }
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"],
            "resourceVersion": meta["resourceVersion"], "creationTimestamp": meta["creationTimestamp"]},
        "spec": {"replicas": obj["spec"]["replicas"].as_i64().unwrap_or(1)}, "status": status})
}

pub fn scale_get(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str) -> ApiResult<Response> {
    let rt = &path.rt;
    let obj = app
        .store
        .read()
        .get(&rt.storage_key(), path.namespace.as_deref().unwrap_or_default(), name)
        .ok_or_else(|| not_found(rt, name))?;
    Ok(crate::api::json_response(ctx, StatusCode::OK, &scale_of(rt, &obj)))
}

fn scale_write(
    app: &Arc<App>,
    ctx: &Ctx,
    path: &ResourcePath,
    name: &str,
    put: Option<Value>,
    patch_body: Option<(PatchType, &[u8])>,
) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = WriteOptions::parse(ctx)?;
    let ns = path.namespace.clone().unwrap_or_default();
    let key = rt.storage_key();
    let scale = app.store.write(|txn| {
        let old = txn.get(&key, &ns, name).ok_or_else(|| not_found(&rt, name))?;
        let current = scale_of(&rt, &old);
        let wanted = match (&put, patch_body) {
            (Some(v), _) => v.clone(),
            (None, Some((PatchType::Json, b))) => patch::json_patch(&current, b).map_err(|_| patch_rejected())?,
            (None, Some((_, b))) => patch::merge_patch(&current, b).map_err(|_| patch_rejected())?,
            (None, None) => current.clone(),
        };
        if let Some(given) = wanted["metadata"]["resourceVersion"].as_str() {
            if !given.is_empty() && given != object::resource_version(&old) {
                return Err(conflict(
                    &rt,
                    name,
                    "the object has been modified; please apply your changes to the latest version and try again",
                ));
            }
        }
        let replicas = wanted["spec"]["replicas"]
            .as_i64()
            .ok_or_else(|| invalid("autoscaling", "Scale", name, &[FieldError::required("spec.replicas", "")]))?;
        if replicas < 0 {
            return Err(invalid(
                "autoscaling",
                "Scale",
                name,
                &[FieldError::invalid("spec.replicas", &json!(replicas), "must be greater than or equal to 0")],
            ));
        }
        let mut new = old.as_ref().clone();
        object::set_at(&mut new, &["spec", "replicas"], json!(replicas));
        if let Some(m) = meta_mut(&mut new).get_mut("resourceVersion") {
            *m = json!(object::resource_version(&old));
        }
        let now = object::now_string();
        let av = rt.api_version();
        let mut tracked = new.clone();
        carry_over(&rt, &old, &mut tracked, Some("scale"));
        record_update(
            Some(&old),
            &mut tracked,
            &Writer {
                manager: &opts.manager,
                operation: "Update",
                api_version: &av,
                subresource: Some("scale"),
                time: &now,
            },
        );
        let stored = if opts.dry_run || tracked == *old { tracked } else { (*txn.put(&key, tracked)).clone() };
        Ok(scale_of(&rt, &stored))
    })?;
    if !opts.dry_run {
        // Bound first: the read guard must be gone before the controller writes.
        let stored = app.store.read().get(&key, &ns, name);
        if let Some(obj) = stored {
            after_write(app, &rt, &obj, false);
        }
    }
    Ok(crate::api::json_response(ctx, StatusCode::OK, &scale))
}

const MAX_GRACE_SECONDS: i64 = 365 * 24 * 3600;

/// Delete options from the query and an optional DeleteOptions body.
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub grace: Option<i64>,
    pub propagation: Option<String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub dry_run: bool,
}

impl DeleteOptions {
    pub fn parse(ctx: &Ctx, body: &[u8]) -> ApiResult<DeleteOptions> {
        let mut o = DeleteOptions::default();
        if !body.iter().all(u8::is_ascii_whitespace) {
            let v = decode_json(body)
                .map_err(|e| bad_request(format!("couldn't get version/kind; json parse error: {e}")))?
                .value;
            o.grace = v["gracePeriodSeconds"].as_i64();
            o.propagation = v["propagationPolicy"].as_str().map(str::to_string);
            o.uid = v["preconditions"]["uid"].as_str().map(str::to_string);
            o.resource_version = v["preconditions"]["resourceVersion"].as_str().map(str::to_string);
            o.dry_run = v["dryRun"].as_array().is_some_and(|a| a.iter().any(|d| d == "All"));
        }
        if let Some(g) = ctx.query.get("gracePeriodSeconds") {
            o.grace =
                Some(g.parse().map_err(|_| bad_request(format!("strconv.ParseInt: parsing \"{g}\": invalid syntax")))?);
        }
        if let Some(p) = ctx.query.get("propagationPolicy") {
            o.propagation = Some(p.clone());
        }
        if let Some(p) = ctx.query.get("preconditions.uid") {
            o.uid = Some(p.clone());
        }
        if let Some(p) = ctx.query.get("preconditions.resourceVersion") {
            o.resource_version = Some(p.clone());
        }
        o.dry_run = o.dry_run || WriteOptions::parse(ctx)?.dry_run;
        if let Some(p) = &o.propagation {
            if !matches!(p.as_str(), "Orphan" | "Background" | "Foreground") {
                return Err(options_invalid(
                    "DeleteOptions",
                    vec![FieldError::not_supported(
                        "propagationPolicy",
                        p,
                        &["Foreground", "Background", "Orphan", "nil"],
                    )],
                ));
            }
        }
        // Negative means now; anything beyond a year is clamped so timestamps stay representable.
        o.grace = o.grace.map(|g| g.clamp(0, MAX_GRACE_SECONDS));
        Ok(o)
    }
}

/// What a delete did.
pub enum Deleted {
    /// Removed from storage; the last state.
    Gone(Obj),
    /// Marked for deletion (finalizers or a grace period remain).
    Pending(Obj),
}

/// Deletes one object inside a write.
pub fn delete_in(
    app: &Arc<App>,
    txn: &mut Txn<'_>,
    rt: &ResourceType,
    ns: &str,
    name: &str,
    o: &DeleteOptions,
) -> ApiResult<Deleted> {
    let key = rt.storage_key();
    let old = txn.get(&key, ns, name).ok_or_else(|| not_found(rt, name))?;
    if let Some(uid) = &o.uid {
        if uid != object::uid(&old) {
            return Err(conflict(
                rt,
                name,
                &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {}", object::uid(&old)),
            ));
        }
    }
    if let Some(rv) = &o.resource_version {
        if rv != object::resource_version(&old) {
            return Err(conflict(
                rt,
                name,
                &format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    object::resource_version(&old)
                ),
            ));
        }
    }
    let is_pod = rt.group.is_empty() && rt.plural == "pods";
    let is_namespace = rt.group.is_empty() && rt.plural == "namespaces";
    let grace = if is_pod {
        o.grace.unwrap_or_else(|| {
            old["spec"]["terminationGracePeriodSeconds"].as_i64().unwrap_or(30).clamp(0, MAX_GRACE_SECONDS)
        })
    } else {
        0
    };
    let mut finalizers = object::finalizers(&old);
    if o.propagation.as_deref() == Some("Foreground") && !finalizers.iter().any(|f| f == "foregroundDeletion") {
        finalizers.push("foregroundDeletion".into());
    }
    let orphan = o.propagation.as_deref() == Some("Orphan");
    if o.dry_run {
        return Ok(if finalizers.is_empty() && grace == 0 && !is_namespace {
            Deleted::Gone(old)
        } else {
            Deleted::Pending(old)
        });
    }
    if finalizers.is_empty() && grace == 0 && !is_namespace {
        let gone = remove_now(app, txn, rt, ns, name).ok_or_else(|| not_found(rt, name))?;
        collect_garbage(app, txn, object::uid(&gone), orphan);
        return Ok(Deleted::Gone(gone));
    }
    if object::is_deleting(&old) {
        return Ok(Deleted::Pending(old));
    }
    let mut marked = old.as_ref().clone();
    let when = object::timestamp(object::now() + chrono::Duration::seconds(grace));
    {
        let meta = meta_mut(&mut marked);
        meta.insert("deletionTimestamp".into(), json!(when));
        meta.insert("deletionGracePeriodSeconds".into(), json!(grace));
        if !finalizers.is_empty() {
            meta.insert("finalizers".into(), json!(finalizers));
        }
    }
    if is_namespace {
        object::set_at(&mut marked, &["status", "phase"], json!("Terminating"));
    }
    let marked = txn.put(&key, marked);
    if finalizers.iter().any(|f| f == "foregroundDeletion") {
        collect_garbage(app, txn, object::uid(&marked), false);
        let rest: Vec<String> = finalizers.iter().filter(|f| *f != "foregroundDeletion").cloned().collect();
        let mut done = marked.as_ref().clone();
        meta_mut(&mut done).insert("finalizers".into(), json!(rest));
        if rest.is_empty() {
            meta_mut(&mut done).remove("finalizers");
            let last = txn.put(&key, done);
            remove_now(app, txn, rt, ns, name);
            return Ok(Deleted::Gone(last));
        }
        return Ok(Deleted::Pending(txn.put(&key, done)));
    }
    if is_namespace {
        empty_namespace(app, txn, name);
        return Ok(Deleted::Pending(txn.get(&key, "", name).unwrap_or(marked)));
    }
    if is_pod && grace > 0 && finalizers.is_empty() {
        schedule_kubelet_removal(
            app.clone(),
            ns.to_string(),
            name.to_string(),
            object::uid(&marked).to_string(),
            grace,
        );
    }
    if orphan {
        collect_garbage(app, txn, object::uid(&marked), true);
    }
    Ok(Deleted::Pending(marked))
}

/// The simulated kubelet finishes a graceful pod deletion after (at most one second of) its grace period.
fn schedule_kubelet_removal(app: Arc<App>, ns: String, name: String, uid: String, grace: i64) {
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis((grace.clamp(0, 1) * 1000) as u64)).await;
        let Some(rt) = app.registry.by_storage_key("/pods") else { return };
        app.store.write(|txn| {
            if let Some(p) = txn.get("/pods", &ns, &name) {
                if object::uid(&p) == uid && object::finalizers(&p).is_empty() {
                    remove_now(&app, txn, &rt, &ns, &name);
                }
            }
        });
    });
}

/// Removes an object now, then finishes a terminating namespace that became empty.
fn remove_now(app: &Arc<App>, txn: &mut Txn<'_>, rt: &ResourceType, ns: &str, name: &str) -> Option<Obj> {
    let gone = txn.remove(&rt.storage_key(), ns, name)?;
    if !ns.is_empty() {
        if let Some(n) = txn.get("/namespaces", "", ns) {
            if object::is_deleting(&n) && namespace_is_empty(app, txn, ns) {
                txn.remove("/namespaces", "", ns);
            }
        }
    }
    Some(gone)
}

fn namespace_is_empty(app: &Arc<App>, txn: &Txn<'_>, ns: &str) -> bool {
    app.registry.namespaced_storage_keys().iter().all(|k| txn.state().list(k, Some(ns)).is_empty())
}

/// Deletes everything in a terminating namespace; removes it when nothing is left.
fn empty_namespace(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str) {
    for key in app.registry.namespaced_storage_keys() {
        let Some(rt) = app.registry.by_storage_key(&key) else { continue };
        for o in txn.state().list(&key, Some(ns)) {
            let opts = DeleteOptions { grace: Some(0), ..DeleteOptions::default() };
            // An object that is already gone is not an error here.
            let _ = delete_in(app, txn, &rt, ns, object::name(&o), &opts);
        }
    }
    if namespace_is_empty(app, txn, ns) {
        txn.remove("/namespaces", "", ns);
    }
}

/// Deletes (or orphans) the dependents of a removed owner, as the garbage collector does.
fn collect_garbage(app: &Arc<App>, txn: &mut Txn<'_>, owner_uid: &str, orphan: bool) {
    if owner_uid.is_empty() {
        return;
    }
    for (key, ns, name) in txn.state().dependents(owner_uid) {
        let Some(rt) = app.registry.by_storage_key(&key) else { continue };
        let Some(o) = txn.get(&key, &ns, &name) else { continue };
        if orphan {
            let mut c = o.as_ref().clone();
            if let Some(refs) = meta_mut(&mut c).get_mut("ownerReferences").and_then(Value::as_array_mut) {
                refs.retain(|r| r["uid"] != owner_uid);
            }
            txn.put(&key, c);
        } else {
            let opts = DeleteOptions { grace: Some(0), ..DeleteOptions::default() };
            // Dependents may be gone already.
            let _ = delete_in(app, txn, &rt, &ns, &name, &opts);
        }
    }
}

pub fn delete(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let o = DeleteOptions::parse(ctx, body)?;
    let ns = path.namespace.clone().unwrap_or_default();
    let outcome = app.store.write(|txn| delete_in(app, txn, &rt, &ns, name, &o))?;
    match (&outcome, o.dry_run) {
        (Deleted::Gone(obj), false) => after_write(app, &rt, obj, true),
        (Deleted::Pending(obj), false) => after_write(app, &rt, obj, false),
        _ => {}
    }
    match outcome {
        Deleted::Pending(obj) => success(ctx, &rt, &obj, StatusCode::OK, &[]),
        Deleted::Gone(obj) if rt.group.is_empty() && rt.plural == "pods" => {
            success(ctx, &rt, &obj, StatusCode::OK, &[])
        }
        Deleted::Gone(obj) => {
            let s =
                Status::success(Details { uid: object::uid(&obj).to_string(), ..status::resource_details(&rt, name) });
            Ok(crate::api::status_response(ctx, &s))
        }
    }
}

pub fn delete_collection(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, body: &[u8]) -> ApiResult<Response> {
    let rt = path.rt.clone();
    let opts = ListOptions::parse(&ctx.query, &rt, false)?;
    let o = DeleteOptions::parse(ctx, body)?;
    let ns = path.namespace.clone();
    let (items, rv) = app.store.write(|txn| {
        let targets: Vec<Obj> =
            txn.state().list(&rt.storage_key(), ns.as_deref()).into_iter().filter(|x| opts.matches(x)).collect();
        let mut out = Vec::new();
        for t in targets {
            match delete_in(app, txn, &rt, object::namespace(&t), object::name(&t), &o) {
                Ok(Deleted::Gone(x)) => out.push((x, true)),
                Ok(Deleted::Pending(x)) => out.push((x, false)),
                Err(_) => {}
            }
        }
        (out, txn.state().rv)
    });
    if !o.dry_run {
        for (item, gone) in &items {
            after_write(app, &rt, item, *gone);
        }
    }
    let items: Vec<Obj> = items.into_iter().map(|(item, _)| item).collect();
    let items: Vec<Value> = items.iter().map(|i| crate::api::with_version(&rt, i)).collect();
    let list = json!({"apiVersion": rt.api_version(), "items": items, "kind": format!("{}List", rt.kind),
        "metadata": {"continue": "", "resourceVersion": rv.to_string()}});
    Ok(crate::api::json_response(ctx, StatusCode::OK, &list))
}
