use super::*;
use crate::explain_diff::{diff, Change};
use crate::testdata::real_apiserver_body;
use crate::testdata::{gvk, shared_schemas};

fn tree(group: &str, version: &str, kind: &str) -> SchemaTree {
    SchemaTree::build(shared_schemas(), &gvk(group, version, kind)).expect("tree")
}

/// The recorded real server's example.com/v1 document (the widgets CRD).
fn widget_tree() -> SchemaTree {
    let schemas = OpenApiSchemas::from_json(&real_apiserver_body("155-openapi-v3-example.com-v1.txt")).expect("doc");
    SchemaTree::build(&schemas, &gvk("example.com", "v1", "Widget")).expect("widget tree")
}

/// A field's `name <type>` and `-required-`, as a line of `kubectl explain`'s FIELDS.
#[track_caller]
fn check_children(tree: &SchemaTree, path: &str, expect: &[&str]) {
    let lines: Vec<String> = tree
        .children(path)
        .map(|f| format!("{} <{}>{}", f.name, f.type_label, if f.required { " -required-" } else { "" }))
        .collect();
    assert_eq!(lines, expect, "children of {path:?}");
}

#[test]
fn deployment_spec_lists_the_fields_kubectl_explain_lists() {
    // `kubectl explain deployment.spec` against the same document.
    check_children(
        &tree("apps", "v1", "Deployment"),
        "spec",
        &[
            "minReadySeconds <integer>",
            "paused <boolean>",
            "progressDeadlineSeconds <integer>",
            "replicas <integer>",
            "revisionHistoryLimit <integer>",
            "selector <LabelSelector> -required-",
            "strategy <DeploymentStrategy>",
            "template <PodTemplateSpec> -required-",
        ],
    );
}

#[test]
fn types_use_kubectl_explains_words() {
    let pod = tree("", "v1", "Pod");
    check_children(
        &pod,
        "spec.containers.resources",
        &["claims <[]ResourceClaim>", "limits <map[string]Quantity>", "requests <map[string]Quantity>"],
    );
    let field = |t: &SchemaTree, p: &str| t.field(p).cloned().unwrap_or_else(|| panic!("{p}"));
    assert_eq!(field(&pod, "metadata.labels").type_label, "map[string]string");
    assert_eq!(field(&pod, "metadata.finalizers").type_label, "[]string");
    let created = field(&pod, "metadata.creationTimestamp");
    assert_eq!((created.type_label.as_str(), created.format.as_deref()), ("string", Some("date-time")));
    assert!(created.description.starts_with("CreationTimestamp is a timestamp"), "{}", created.description);
    assert_eq!(field(&pod, "spec").type_label, "PodSpec");
    let service = tree("", "v1", "Service");
    let target = field(&service, "spec.ports.targetPort");
    assert_eq!((target.type_label.as_str(), target.format.as_deref()), ("IntOrString", Some("int-or-string")));
    assert!(field(&service, "spec.ports.port").required);
    let deployment = tree("apps", "v1", "Deployment");
    assert_eq!(field(&deployment, "spec.template.spec.containers").type_label, "[]Container");
    assert_eq!(deployment.root.type_label, "Deployment");
    assert!(deployment.root.description.starts_with("Deployment enables declarative updates"));
}

#[test]
fn the_tree_is_depth_first_with_paths_depths_and_child_counts() {
    let deployment = tree("apps", "v1", "Deployment");
    let top: Vec<&str> = deployment.children("").map(|f| f.name.as_str()).collect();
    assert_eq!(top, ["apiVersion", "kind", "metadata", "spec", "status"]);
    assert_eq!(deployment.root.children, 5);
    let containers = deployment.field("spec.template.spec.containers").expect("containers");
    assert_eq!(containers.depth, 3);
    assert_eq!(containers.children, deployment.children("spec.template.spec.containers").count());
    assert!(containers.children > 20);
    let at = deployment.position("spec.template.spec.containers").expect("position");
    assert_eq!(deployment.fields[at + 1].path, "spec.template.spec.containers.args");
    // Every field's parent comes before it.
    for (i, f) in deployment.fields.iter().enumerate() {
        let parent = parent_of(&f.path);
        assert!(parent.is_empty() || deployment.position(parent).is_some_and(|p| p < i), "{}", f.path);
        assert_eq!(f.depth, f.path.matches('.').count(), "{}", f.path);
    }
    assert!(deployment.fields.len() > 1000, "{}", deployment.fields.len());
    assert_eq!(deployment.field(""), Some(&deployment.root));
    assert!(deployment.field("spec.nope").is_none());
}

#[test]
fn patch_and_list_extensions_are_listed_with_the_field() {
    let pod = tree("", "v1", "Pod");
    let containers = pod.field("spec.containers").expect("containers");
    assert!(containers.extensions.contains(&("x-kubernetes-patch-merge-key".into(), "name".into())));
    assert!(containers.extensions.contains(&("x-kubernetes-patch-strategy".into(), "merge".into())));
    let ports = tree("", "v1", "Service");
    let ports = ports.field("spec.ports").expect("ports");
    assert!(ports.extensions.contains(&("x-kubernetes-list-map-keys".into(), "port, protocol".into())));
    let gvk = pod.root.extensions.iter().find(|(k, _)| k == "x-kubernetes-group-version-kind").expect("gvk");
    assert_eq!(gvk.1, "v1, Kind=Pod");
}

#[test]
fn a_crds_schema_shows_enum_default_bounds_and_list_types() {
    let widget = widget_tree();
    check_children(
        &widget,
        "spec",
        &["color <string>", "ports <[]Object>", "replicas <integer>", "size <string> -required-", "tags <[]string>"],
    );
    check_children(&widget, "spec.ports", &["name <string> -required-", "port <integer> -required-"]);
    let replicas = widget.field("spec.replicas").expect("replicas");
    assert_eq!(replicas.default.as_deref(), Some("1"));
    assert_eq!(replicas.constraints, [("minimum".to_string(), "0".to_string()), ("maximum".into(), "10".into())]);
    assert_eq!(widget.field("spec.size").expect("size").enum_values, ["small", "medium", "large"]);
    let tags = widget.field("spec.tags").expect("tags");
    assert_eq!(tags.extensions, [("x-kubernetes-list-type".to_string(), "set".to_string())]);
    assert_eq!(widget.field("spec").expect("spec").type_label, "Object");
    assert!(widget.root.extensions.contains(&("x-kubernetes-selectable-fields".into(), "spec.color".into())));
}

/// A document of one kind whose schema is `kind` (under `com.example.v1.Gadget`) plus `extra`
/// named schemas.
fn synthetic(kind: Json, extra: Json) -> OpenApiSchemas {
    let mut schemas = serde_json::Map::new();
    let mut kind = kind;
    kind["x-kubernetes-group-version-kind"] =
        serde_json::json!([{"group": "example.com", "version": "v1", "kind": "Gadget"}]);
    schemas.insert("com.example.v1.Gadget".into(), kind);
    if let Json::Object(extra) = extra {
        schemas.extend(extra);
    }
    let document = serde_json::json!({"openapi": "3.0.0", "components": {"schemas": schemas}});
    OpenApiSchemas::from_json(document.to_string().as_bytes()).expect("synthetic document")
}

fn gadget(schemas: &OpenApiSchemas) -> Result<SchemaTree, ExplainError> {
    SchemaTree::build(schemas, &gvk("example.com", "v1", "Gadget"))
}

#[test]
fn cel_rules_are_read_with_their_messages_on_fields_and_items() {
    let schemas = synthetic(
        serde_json::json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "self.min <= self.max", "message": "min must not exceed max", "reason": "FieldValueInvalid"},
            {"rule": "self.max < 100", "messageExpression": "'max is ' + string(self.max)", "fieldPath": ".max"}
        ],
        "properties": {
            "min": {"type": "integer"}, "max": {"type": "integer", "nullable": true},
            "items": {"type": "array", "items": {"type": "object",
                "x-kubernetes-validations": [{"rule": "has(self.name)"}],
                "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"name": {"type": "string"}}}}
        }}}}),
        Json::Null,
    );
    let tree = gadget(&schemas).expect("tree");
    let spec = tree.field("spec").expect("spec");
    assert_eq!(spec.validations.len(), 2);
    assert_eq!(spec.validations[0].rule, "self.min <= self.max");
    assert_eq!(spec.validations[0].message.as_deref(), Some("min must not exceed max"));
    assert_eq!(spec.validations[0].reason.as_deref(), Some("FieldValueInvalid"));
    assert_eq!(spec.validations[1].message_expression.as_deref(), Some("'max is ' + string(self.max)"));
    assert_eq!(spec.validations[1].field_path.as_deref(), Some(".max"));
    assert!(tree.field("spec.max").expect("max").nullable);
    let items = tree.field("spec.items").expect("items");
    assert_eq!(items.validations.len(), 1);
    assert!(items.validations[0].on_items && !spec.validations[0].on_items);
    check_children(&tree, "spec.items", &["name <string>"]);
    // The item's extensions are the item's: the list field itself carries none of them.
    assert!(items.extensions.is_empty());
}

#[test]
fn a_recursive_type_is_walked_once_and_marked_where_it_recurs() {
    let schemas = synthetic(
        serde_json::json!({"type": "object", "properties": {"schema": {"$ref": "#/components/schemas/example.Props"}}}),
        serde_json::json!({"example.Props": {"type": "object", "properties": {
            "type": {"type": "string"},
            "items": {"$ref": "#/components/schemas/example.Props"},
            "properties": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/example.Props"}}
        }}}),
    );
    let tree = gadget(&schemas).expect("tree");
    let paths: Vec<&str> = tree.fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["schema", "schema.items", "schema.properties", "schema.type"]);
    assert_eq!(tree.field("schema.items").and_then(|f| f.recurs_at.as_deref()), Some("schema"));
    assert_eq!(tree.field("schema.properties").expect("map").type_label, "map[string]Props");
}

#[test]
fn broken_documents_are_errors_that_name_the_field_and_the_reference() {
    let dangling = synthetic(
        serde_json::json!({"type": "object", "properties": {"spec": {"$ref": "#/components/schemas/example.Missing"}}}),
        Json::Null,
    );
    assert_eq!(
        gadget(&dangling),
        Err(ExplainError::MissingRef {
            field: "spec".into(),
            reference: "#/components/schemas/example.Missing".into()
        })
    );
    assert_eq!(
        gadget(&dangling).map_err(|e| e.to_string()),
        Err("spec: $ref #/components/schemas/example.Missing names no schema in the document's components.schemas"
            .into())
    );
    let foreign = synthetic(
        serde_json::json!({"type": "object", "properties": {"spec": {"$ref": "#/definitions/x"}}}),
        Json::Null,
    );
    assert!(matches!(gadget(&foreign), Err(ExplainError::ForeignRef { .. })));
    let not_schema = synthetic(serde_json::json!({"type": "object", "properties": {"spec": 7}}), Json::Null);
    assert_eq!(
        gadget(&not_schema),
        Err(ExplainError::NotASchema { field: "spec".into(), found: "the number 7".into() })
    );
    assert_eq!(
        SchemaTree::build(shared_schemas(), &gvk("example.com", "v1", "Widget")).map_err(|e| e.to_string()),
        Err("the OpenAPI document has no schema for example.com/v1, Kind=Widget (no x-kubernetes-group-version-kind names it)".into())
    );
    assert_eq!(kind_text(&gvk("", "v1", "Pod")), "v1, Kind=Pod");
}

#[test]
fn two_versions_differ_by_added_removed_and_changed_fields() {
    let old = synthetic(
        serde_json::json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "string"},
            "colour": {"type": "string"},
            "replicas": {"type": "integer"}
        }}}}),
        Json::Null,
    );
    let new = synthetic(
        serde_json::json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "string", "enum": ["small", "large"]},
            "replicas": {"type": "integer", "default": 1, "maximum": 10},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}
        }, "x-kubernetes-validations": [{"rule": "self.replicas <= 10"}]}}}),
        Json::Null,
    );
    let changes = diff(&gadget(&old).expect("old"), &gadget(&new).expect("new"));
    let summary: Vec<(String, Change)> = changes.into_iter().map(|c| (c.path, c.change)).collect();
    assert_eq!(
        summary,
        [
            ("spec".to_string(), Change::Changed(vec!["validations: (none) → self.replicas <= 10".into()])),
            ("spec.colour".to_string(), Change::Removed),
            (
                "spec.replicas".to_string(),
                Change::Changed(vec!["default: (none) → 1".into(), "maximum: (none) → 10".into()])
            ),
            ("spec.size".to_string(), Change::Changed(vec!["enum: (none) → small, large".into()])),
            ("spec.tags".to_string(), Change::Added),
        ]
    );
    let same = diff(&widget_tree(), &widget_tree());
    assert!(same.is_empty(), "{same:?}");
}

#[test]
fn each_versions_own_group_version_kind_is_no_change() {
    let document = real_apiserver_body("155-openapi-v3-example.com-v1.txt");
    let v1 = OpenApiSchemas::from_json(&document).expect("v1");
    // The same schema published as v1beta1: only the versions in the names differ.
    let text = String::from_utf8(document).expect("utf-8").replace("\"version\":\"v1\"", "\"version\":\"v1beta1\"");
    let v1beta1 = OpenApiSchemas::from_json(text.as_bytes()).expect("v1beta1");
    let old = SchemaTree::build(&v1beta1, &gvk("example.com", "v1beta1", "Widget")).expect("old");
    let new = SchemaTree::build(&v1, &gvk("example.com", "v1", "Widget")).expect("new");
    assert_ne!(old.root.extensions, new.root.extensions);
    assert_eq!(diff(&old, &new), []);
}

#[track_caller]
fn check_locate(tree: &SchemaTree, pointer: &str, expect: Result<(&str, Step, Shape, &str), NotInSchema>) {
    let segments: Vec<&str> = pointer.split('/').filter(|s| !s.is_empty()).collect();
    let got = tree.locate(&segments).map(|l| (l.field, l.step, l.shape, l.members));
    let expect = expect.map(|(field, step, shape, members)| (field.to_string(), step, shape, members.to_string()));
    assert_eq!(got, expect, "{pointer}");
}

#[test]
fn a_documents_members_are_located_through_list_items_and_map_values() {
    let deployment = tree("apps", "v1", "Deployment");
    check_locate(&deployment, "", Ok(("", Step::Field, Shape::Object, "")));
    check_locate(&deployment, "/spec/replicas", Ok(("spec.replicas", Step::Field, Shape::Scalar, "spec.replicas")));
    let containers = "spec.template.spec.containers";
    check_locate(&deployment, "/spec/template/spec/containers", Ok((containers, Step::Field, Shape::List, containers)));
    check_locate(
        &deployment,
        "/spec/template/spec/containers/1",
        Ok((containers, Step::Item, Shape::Object, containers)),
    );
    check_locate(
        &deployment,
        "/spec/template/spec/containers/0/imagePullPolicy",
        Ok((
            "spec.template.spec.containers.imagePullPolicy",
            Step::Field,
            Shape::Scalar,
            "spec.template.spec.containers.imagePullPolicy",
        )),
    );
    check_locate(
        &deployment,
        "/spec/template/spec/containers/0/ports/2/containerPort",
        Ok((
            "spec.template.spec.containers.ports.containerPort",
            Step::Field,
            Shape::Scalar,
            "spec.template.spec.containers.ports.containerPort",
        )),
    );
    check_locate(
        &deployment,
        "/metadata/labels/app.kubernetes.io~1name",
        Ok(("metadata.labels", Step::MapValue("app.kubernetes.io~1name".into()), Shape::Scalar, "metadata.labels")),
    );
    let limits = "spec.template.spec.containers.resources.limits";
    check_locate(
        &deployment,
        "/spec/template/spec/containers/0/resources/limits/cpu",
        Ok((limits, Step::MapValue("cpu".into()), Shape::Scalar, limits)),
    );
    check_locate(&deployment, "/spec/bogus", Err(NotInSchema::Unknown { parent: "spec".into(), name: "bogus".into() }));
    // A name where a list wants an index is not in the schema either.
    check_locate(
        &deployment,
        "/spec/template/spec/containers/name",
        Err(NotInSchema::Unknown { parent: containers.into(), name: "name".into() }),
    );
}

#[test]
fn a_recursive_type_is_located_through_its_ancestor_and_preserved_fields_say_so() {
    let schemas = synthetic(
        serde_json::json!({"type": "object", "properties": {
            "schema": {"$ref": "#/components/schemas/example.Props"},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }}),
        serde_json::json!({"example.Props": {"type": "object", "properties": {
            "type": {"type": "string"},
            "properties": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/example.Props"}}
        }}}),
    );
    let tree = gadget(&schemas).expect("tree");
    check_locate(&tree, "/schema/properties", Ok(("schema.properties", Step::Field, Shape::Map, "schema")));
    check_locate(
        &tree,
        "/schema/properties/size",
        Ok(("schema.properties", Step::MapValue("size".into()), Shape::Object, "schema")),
    );
    check_locate(&tree, "/schema/properties/size/type", Ok(("schema.type", Step::Field, Shape::Scalar, "schema.type")));
    check_locate(
        &tree,
        "/config/anything/at/all",
        Err(NotInSchema::Preserved { field: "config".into(), rest: "anything.at.all".into() }),
    );
}

#[test]
fn a_fields_shape_comes_from_its_type_and_fields() {
    let deployment = tree("apps", "v1", "Deployment");
    let shape = |path: &str| deployment.field(path).expect(path).shape();
    assert_eq!(shape("spec"), Shape::Object);
    assert_eq!(shape("spec.replicas"), Shape::Scalar);
    assert_eq!(shape("spec.strategy.rollingUpdate.maxSurge"), Shape::Scalar);
    assert_eq!(shape("spec.template.spec.containers"), Shape::List);
    assert_eq!(shape("spec.template.spec.containers.args"), Shape::List);
    assert_eq!(shape("metadata.labels"), Shape::Map);
    let schemas = synthetic(
        serde_json::json!({"type": "object", "properties": {"schema": {"$ref": "#/components/schemas/example.Props"}}}),
        serde_json::json!({"example.Props": {"type": "object", "properties": {
            "type": {"type": "string"}, "not": {"$ref": "#/components/schemas/example.Props"}
        }}}),
    );
    // A field of a recursive type has its fields at the ancestor: an object all the same.
    assert_eq!(gadget(&schemas).expect("tree").field("schema.not").expect("not").shape(), Shape::Object);
}
