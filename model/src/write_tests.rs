//! Tests of [`crate::write`].

use super::*;
use kube_wire::codec::json::decode_json;
use kube_wire::discovery::Scope;
use kube_wire::media_type::MediaType;
use kube_wire::request::{Collection, Method};
use kube_wire::testdata::{resource_type, shared_file};

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
    decode_json(request.body().unwrap_or_default()).expect("JSON body")
}

fn query(request: &Request, name: &str) -> Option<String> {
    request.query().iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
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
        assert_eq!(plan.request.path(), "/apis/apps/v1/namespaces/demo/deployments/web");
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
    assert_eq!(plan.request.method(), Method::Put);
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
    assert!(matches!(&refused, Err(PlanError::PatchDoesNotApply(_))));
    assert!(refused.unwrap_err().to_string().contains("operation 0 (test /spec/replicas) failed"));
    assert_eq!(
        parse_ops("{}").unwrap_err().to_string(),
        "expected a JSON patch (an array of operations), found an object"
    );
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
    assert!(plan.notes.iter().any(|n| n.to_string() == "null deletes: spec"), "{:?}", plan.notes);
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
    .unwrap_err()
    .to_string();
    assert!(err.contains("no OpenAPI schema for Deployment.apps/v1"), "{err}");
    let widget = json(
        r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"1"},"spec":{"size":1}}"#,
    );
    let bigger = json(
        r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"1"},"spec":{"size":2}}"#,
    );
    let schemas = schemas();
    for context in [PlanContext { schemas: Some(&schemas), ops: None }, PlanContext::default()] {
        let err =
            plan_write(WriteMethod::StrategicMerge, &object_ref(), &widget, &bigger, &SendOptions::default(), context)
                .unwrap_err()
                .to_string();
        assert!(err.contains("not supported for custom resources") && err.contains("415"), "{err}");
    }
}

#[test]
fn apply_is_minimal_by_default_or_the_whole_object_without_server_fields() {
    let schemas = schemas();
    let context = PlanContext { schemas: Some(&schemas), ops: None };
    let options = SendOptions { force: true, ..SendOptions::default() };
    let plan =
        plan_write(WriteMethod::Apply, &object_ref(), &deployment(3), &deployment(5), &options, context).expect("plan");
    assert_eq!(
        body(&plan.request).to_json(),
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":5}}"#
    );
    assert_eq!(query(&plan.request, "force").as_deref(), Some("true"));
    let whole =
        SendOptions { minimal_apply: false, encoding: ApplyEncoding::Cbor, dry_run: true, ..SendOptions::default() };
    let plan =
        plan_write(WriteMethod::Apply, &object_ref(), &deployment(3), &deployment(5), &whole, context).expect("plan");
    assert_eq!(plan.request.header_value("Content-Type"), Some("application/apply-patch+cbor"));
    assert_eq!(query(&plan.request, "dryRun").as_deref(), Some("All"));
    let sent = kube_wire::codec::cbor::decode_cbor(plan.request.body().unwrap_or_default()).expect("CBOR");
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
    assert!(err.message.to_string().contains("found 2 documents") && err.line == 2, "{err}");
    assert!(parse_edit("- 1\n").unwrap_err().message.to_string().contains("expected an object"));
    assert!(parse_edit("").unwrap_err().message.to_string().contains("empty"));
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
    let body = Body { content_type: MediaType::cbor(), bytes: vec![0xa1, 0xff, 0xfe] };
    let cbor = RequestBuilder::update(&object_ref(), body, &WriteParams::default()).build();
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
    let pointers = crate::highlight::yaml_line_pointers("spec:\n  replics: 3\n");
    assert_eq!(line_of_field(&pointers, "spec.replics"), Some(1));
    assert_eq!(line_of_field(&pointers, ".spec.replics"), Some(1));
    assert_eq!(line_of_field(&pointers, "spec.other"), None);
}

fn discovery() -> Discovery {
    let kinded = |group: &str, plural: &str, scope, kind: &str| {
        let mut r = kube_wire::testdata::resource_type(group, "v1", plural, scope);
        r.kind = kind.into();
        r
    };
    kube_wire::testdata::discovery_of(vec![
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
                i.label.to_string(),
                i.request.as_ref().map(|r| format!("{} {}", r.method(), r.path())).map_err(ToString::to_string),
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
    assert!(sent.query().contains(&("fieldManager".into(), DEFAULT_FIELD_MANAGER.into())));
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
    let request = crate::requests::delete(&object_ref(), &params);
    assert_eq!(
        String::from_utf8_lossy(request.body().unwrap_or_default()),
        r#"{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"gracePeriodSeconds":0,"preconditions":{"uid":"u1"},"propagationPolicy":"Foreground"}"#
    );
    assert_eq!(delete_params(&DeleteChoice::default()).expect("defaults"), DeleteParams::default());
    let bad = DeleteChoice { grace_period: "soon".into(), ..DeleteChoice::default() };
    assert_eq!(
        delete_params(&bad).unwrap_err().to_string(),
        r#"expected the grace period as whole seconds (0 or more), found "soon""#
    );
    let bad = DeleteChoice { propagation: "Later".into(), ..DeleteChoice::default() };
    assert!(delete_params(&bad).unwrap_err().to_string().contains("Foreground, Background or Orphan"));
}

#[test]
fn finalizing_objects_show_their_remaining_finalizers() {
    let object = json(r#"{"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["a/b","c"]}}"#);
    assert_eq!(finalizing(&object), Some(("2026-01-01T00:00:00Z".into(), vec!["a/b".into(), "c".into()])));
    assert_eq!(finalizing(&deployment(1)), None);
}

#[test]
fn replicas_are_whole_numbers_from_zero() {
    assert_eq!(parse_replicas(" 3 "), Ok(3));
    assert_eq!(parse_replicas("0"), Ok(0));
    assert!(parse_replicas("-1").unwrap_err().to_string().contains("whole number from 0 up"));
    assert!(parse_replicas("two").unwrap_err().to_string().contains("\"two\""));
}
