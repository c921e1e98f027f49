//! Server-side apply bodies (concepts page: "HTTP PATCH using Server-Side Apply",
//! `#update-mechanism-server-side-apply`): an apply configuration encoded as
//! `application/apply-patch+yaml` or `application/apply-patch+cbor`, and the "apply only what I
//! changed" configuration built from an old and a new object.
//!
//! A minimal configuration holds `apiVersion`, `kind`, `metadata.name` and `metadata.namespace`,
//! plus every changed field. Lists are where apply differs from a plain merge: an atomic list (no
//! `x-kubernetes-list-type`, or `atomic`, or any list when no schema is known) is sent whole; an
//! item of a keyed list (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`, or a
//! `x-kubernetes-patch-merge-key`) is sent complete; a set is sent whole.
//!
//! Invariants: the field manager is always set ([`ApplyParams`] requires it; the server answers
//! 422 without); the YAML body is JSON text, which is YAML and leaves no YAML 1.1 scalar to
//! misread (the server reads an unquoted `y` as a boolean); a removal, which an apply
//! configuration cannot express for fields the manager does not own, is reported in
//! [`ApplyConfiguration::not_applied`], never dropped silently.

use crate::build::RequestBuilder;
use crate::codec::cbor::{encode_cbor, CborEncoding};
use crate::codec::value::{Map, Value};
use crate::codec::yaml::{encode_yaml, EncodeYamlError};
use crate::media_type::{MediaType, PatchType};
use crate::params::ApplyParams;
use crate::request::{ApplyEncoding, ObjectRef};
use crate::schema::{ListType, SchemaNode};
use crate::write::diff::{diff_objects, pointer_segments, ChangeKind, DiffOptions};

/// An apply body: the configuration and the exact bytes and `Content-Type` sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplyBody {
    pub encoding: ApplyEncoding,
    pub configuration: Value,
}

impl ApplyBody {
    /// The apply body of `configuration` in `encoding`.
    pub fn new(configuration: Value, encoding: ApplyEncoding) -> ApplyBody {
        ApplyBody { encoding, configuration }
    }

    /// `application/apply-patch+yaml` or `application/apply-patch+cbor`.
    pub fn content_type(&self) -> MediaType {
        match self.encoding {
            ApplyEncoding::Yaml => PatchType::Apply.media_type(),
            ApplyEncoding::Cbor => PatchType::apply_cbor_media_type(),
        }
    }

    /// The bytes sent: JSON text for YAML, client-form CBOR (byte-string keys, no 55799 tag).
    pub fn bytes(&self) -> Vec<u8> {
        match self.encoding {
            ApplyEncoding::Yaml => self.configuration.to_json().into_bytes(),
            ApplyEncoding::Cbor => encode_cbor(&self.configuration, CborEncoding::CLIENT),
        }
    }

    /// The configuration as block YAML, for a person to read.
    pub fn yaml_text(&self) -> Result<String, EncodeYamlError> {
        encode_yaml(&self.configuration).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl RequestBuilder {
    /// The apply `PATCH` of `object` with `body`: `fieldManager` always, `force`, `dryRun` and
    /// `fieldValidation` as `params` say.
    pub fn apply_body(object: &ObjectRef, body: &ApplyBody, params: &ApplyParams) -> RequestBuilder {
        RequestBuilder::apply(object, &body.configuration, body.encoding, params)
    }
}

/// A minimal apply configuration and what it could not express.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplyConfiguration {
    pub configuration: Value,
    /// JSON pointers (into the old object) of removed fields and list items: applying without
    /// them removes them only if this field manager owned them.
    pub not_applied: Vec<String>,
}

/// The configuration that applies only what changed from `old` to `new` (status, managed fields
/// and server bookkeeping are left out), with list semantics from `schema` (the kind's schema;
/// `None` treats every list as atomic).
pub fn minimal_apply_configuration(old: &Value, new: &Value, schema: Option<SchemaNode<'_>>) -> ApplyConfiguration {
    let mut configuration = Map::new();
    for key in ["apiVersion", "kind"] {
        if let Some(value) = new.get(key) {
            configuration.insert(key, value.clone());
        }
    }
    let mut configuration = Value::Object(configuration);
    for key in ["name", "namespace"] {
        if let Some(value) = new.at(&["metadata", key]) {
            insert_at(&mut configuration, &["metadata".to_string(), key.to_string()], value.clone());
        }
    }
    let mut not_applied = Vec::new();
    for change in diff_objects(old, new, DiffOptions::USER_EDITS).changes {
        let segments = pointer_segments(&change.path);
        match locate(new, &segments, schema) {
            Some(Target::Field(path, value)) => insert_at(&mut configuration, &path, value),
            Some(Target::Item(path, item, keys)) => insert_item(&mut configuration, &path, item, &keys),
            None => {}
        }
        if change.kind == ChangeKind::Removed && !in_atomic_list(old, &segments, schema) {
            not_applied.push(change.path);
        }
    }
    ApplyConfiguration { configuration, not_applied }
}

/// Where a change goes in the configuration.
enum Target {
    /// A field (or a whole list) at an object path.
    Field(Vec<String>, Value),
    /// A complete item of the keyed list at the path, identified by `keys`.
    Item(Vec<String>, Value, Vec<String>),
}

/// Walks `segments` down `new` until the change or the first list.
fn locate(new: &Value, segments: &[String], schema: Option<SchemaNode<'_>>) -> Option<Target> {
    let mut node = new;
    let mut field = schema;
    for (i, segment) in segments.iter().enumerate() {
        if let Value::Array(items) = node {
            let path = segments[..i].to_vec();
            let keys: Vec<String> = match field {
                Some(f) if f.list_type() == ListType::Map && !f.list_map_keys().is_empty() => {
                    f.list_map_keys().into_iter().map(str::to_string).collect()
                }
                Some(f) if f.list_type() != ListType::Set => {
                    f.patch_merge_key().into_iter().map(str::to_string).collect()
                }
                _ => Vec::new(),
            };
            if keys.is_empty() {
                return Some(Target::Field(path, node.clone()));
            }
            let item = segment.parse::<usize>().ok().and_then(|index| items.get(index))?;
            return Some(Target::Item(path, item.clone(), keys));
        }
        node = node.get(segment)?;
        field = field.and_then(|f| f.property(segment));
    }
    Some(Target::Field(segments.to_vec(), node.clone()))
}

/// Whether the removed `segments` was an item of an atomic list (which the configuration sends
/// whole, so the removal is expressed).
fn in_atomic_list(old: &Value, segments: &[String], schema: Option<SchemaNode<'_>>) -> bool {
    let Some((_, parent)) = segments.split_last() else {
        return false;
    };
    let mut node = old;
    let mut field = schema;
    for segment in parent {
        node = match node {
            Value::Array(items) => match segment.parse::<usize>().ok().and_then(|i| items.get(i)) {
                Some(item) => item,
                None => return false,
            },
            _ => match node.get(segment) {
                Some(child) => {
                    field = field.and_then(|f| f.property(segment));
                    child
                }
                None => return false,
            },
        };
    }
    let keyed = field.is_some_and(|f| f.list_type() != ListType::Atomic || f.patch_merge_key().is_some());
    matches!(node, Value::Array(_)) && !keyed
}

/// Sets `path` in `configuration`, creating objects on the way.
fn insert_at(configuration: &mut Value, path: &[String], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        *configuration = value;
        return;
    };
    if !matches!(configuration, Value::Object(_)) {
        *configuration = Value::Object(Map::new());
    }
    if let Value::Object(map) = configuration {
        let mut child = map.remove(first).unwrap_or(Value::Null);
        insert_at(&mut child, rest, value);
        map.insert(first.clone(), child);
    }
}

/// Puts `item` into the list at `path`, replacing the item with the same `keys`.
fn insert_item(configuration: &mut Value, path: &[String], item: Value, keys: &[String]) {
    let existing = pointer_lookup(configuration, path).and_then(Value::as_array).map(<[Value]>::to_vec);
    let mut items = existing.unwrap_or_default();
    let same =
        |other: &Value| keys.iter().all(|k| other.get(k).is_some_and(|v| item.get(k).is_some_and(|w| v.equivalent(w))));
    match items.iter().position(same) {
        Some(at) => items[at] = item,
        None => items.push(item),
    }
    insert_at(configuration, path, Value::Array(items));
}

fn pointer_lookup<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(value, |node, key| node.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::cbor::decode_cbor;
    use crate::codec::json::decode_json;
    use crate::discovery::Scope;
    use crate::request::Collection;
    use crate::schema::gvk_of;
    use crate::testdata::shared_file;
    use crate::testdata::shared_schemas;
    use crate::write::strategic::StrategicMerge;

    fn json(text: &str) -> Value {
        decode_json(text.as_bytes()).expect("test JSON")
    }

    #[track_caller]
    fn check(old: &Value, new: &Value, expect: &str, not_applied: &[&str]) {
        let schema = gvk_of(new).and_then(|gvk| shared_schemas().kind(&gvk));
        let got = minimal_apply_configuration(old, new, schema);
        assert!(got.configuration.equivalent(&json(expect)), "{}", got.configuration);
        assert_eq!(got.not_applied, not_applied);
    }

    fn deployment(containers: &str, replicas: i64) -> Value {
        json(&format!(
            r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"web","namespace":"default","resourceVersion":"5","labels":{{"a":"1"}}}},"spec":{{"replicas":{replicas},"template":{{"spec":{{"containers":{containers}}}}}}},"status":{{"replicas":1}}}}"#
        ))
    }

    #[test]
    fn a_minimal_configuration_holds_identity_and_the_changed_fields_only() {
        let old = deployment(r#"[{"name":"web","image":"a","args":["x","y"]},{"name":"side","image":"s"}]"#, 1);
        let new = deployment(r#"[{"name":"web","image":"b","args":["x","z"]},{"name":"side","image":"s"}]"#, 3);
        check(
            &old,
            &new,
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"b","args":["x","z"]}]}}}}"#,
            &[],
        );
    }

    #[test]
    fn removals_are_reported_and_atomic_lists_sent_whole() {
        let old = json(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"gone":"1"}},"spec":{"containers":[{"name":"a","args":["1","2"]},{"name":"b"}]}}"#,
        );
        let new = json(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","args":["1"]}]}}"#,
        );
        check(
            &old,
            &new,
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","args":["1"]}]}}"#,
            &["/metadata/labels", "/spec/containers/1"],
        );
    }

    #[test]
    fn a_removal_inside_a_keyed_item_is_reported_but_one_inside_an_atomic_list_is_expressed() {
        let old = json(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","args":["1","2"],"env":[{"name":"X"},{"name":"Y"}]}]}}"#,
        );
        let new = json(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","args":["1"],"env":[{"name":"X"}]}]}}"#,
        );
        check(
            &old,
            &new,
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","args":["1"],"env":[{"name":"X"}]}]}}"#,
            &["/spec/containers/0/env/1"],
        );
    }

    #[test]
    fn without_a_schema_every_list_is_atomic() {
        let old = json(
            r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ports":[{"name":"a","port":1},{"name":"b","port":2}]}}"#,
        );
        let new = json(
            r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ports":[{"name":"a","port":1},{"name":"b","port":3}]}}"#,
        );
        let got = minimal_apply_configuration(&old, &new, None);
        assert_eq!(got.configuration.at(&["spec", "ports"]), new.at(&["spec", "ports"]));
    }

    #[test]
    fn the_configuration_merged_into_the_old_object_gives_the_new_one() {
        let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
        let mut edited = pod.to_serde_json();
        edited["metadata"]["labels"]["tier"] = serde_json::json!("back");
        edited["spec"]["containers"][0]["image"] = serde_json::json!("nginx:9");
        if let Some(env) = edited["spec"]["containers"][0]["env"].as_array_mut() {
            env.push(serde_json::json!({"name": "A", "value": "b"}));
        }
        let edited = Value::from_serde_json(&edited);
        let schema = gvk_of(&pod).and_then(|gvk| shared_schemas().kind(&gvk));
        let apply = minimal_apply_configuration(&pod, &edited, schema);
        assert!(apply.not_applied.is_empty());
        let patcher = StrategicMerge::for_object(shared_schemas(), &pod).expect("pod");
        let merged = patcher.apply(&pod, &apply.configuration).expect("merge");
        assert!(merged.equivalent(&edited), "{}", apply.configuration);
    }

    #[test]
    fn an_apply_body_is_json_text_as_yaml_or_client_cbor_in_a_patch_request() {
        let configuration =
            json(r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"answer":"y"}}"#);
        let yaml = ApplyBody::new(configuration.clone(), ApplyEncoding::Yaml);
        assert_eq!(yaml.content_type().to_string(), "application/apply-patch+yaml");
        assert_eq!(yaml.bytes(), configuration.to_json().into_bytes());
        // Quoted, so the server's YAML 1.1 reader cannot take `y` for a boolean.
        assert!(String::from_utf8_lossy(&yaml.bytes()).contains(r#""answer":"y""#));
        let client_go = shared_file("kube/vectors/apply-pod.cbor");
        let applied = ApplyBody::new(decode_cbor(&client_go).expect("cbor"), ApplyEncoding::Cbor);
        assert_eq!(applied.bytes(), client_go, "the bytes client-go writes");
        assert!(yaml.yaml_text().expect("yaml").contains("name: c"));
        let cbor = ApplyBody::new(configuration.clone(), ApplyEncoding::Cbor);
        assert_eq!(cbor.content_type().to_string(), "application/apply-patch+cbor");
        assert_eq!(decode_cbor(&cbor.bytes()).expect("cbor"), configuration);
        let resource = crate::testdata::resource_type("", "v1", "configmaps", Scope::Namespaced);
        let object = Collection::new(&resource, Some("default")).and_then(|c| c.object("c")).expect("object");
        let request = RequestBuilder::apply_body(&object, &cbor, &ApplyParams::new("explorer").force()).build();
        assert_eq!(
            request.path_and_query(),
            "/api/v1/namespaces/default/configmaps/c?fieldManager=explorer&force=true"
        );
        assert_eq!(request.header_value("Content-Type"), Some("application/apply-patch+cbor"));
        assert_eq!(request.body, Some(cbor.bytes()));
    }
}
