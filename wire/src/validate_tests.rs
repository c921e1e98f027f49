use std::sync::OnceLock;

use serde_json::json;

use super::*;
use crate::testdata::{real_apiserver_body, shared_file};

/// The real server's OpenAPI v3 document of `example.com/v1` (recording 155), which also gives
/// ObjectMeta to the FooBar schema below.
fn real_widgets() -> &'static OpenApiSchemas {
    static SCHEMAS: OnceLock<OpenApiSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        OpenApiSchemas::from_json(&real_apiserver_body("155-openapi-v3-example.com-v1.txt")).expect("recorded document")
    })
}

/// The documents kube-sim serves for `example.com/v1` and `apps/v1` (what the explorer reads
/// from it).
fn sim_schemas() -> &'static OpenApiSchemas {
    static SCHEMAS: OnceLock<OpenApiSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let mut schemas = OpenApiSchemas::default();
        for name in ["openapi-v3-apis-example.com-v1.json", "openapi-v3-apis-apps-v1.json"] {
            let text = crate::testdata::repository_file(&format!("sim/data/{name}"));
            schemas.add_json(text.as_bytes()).expect("kube-sim's document");
        }
        schemas
    })
}

/// The FooBar custom resource of the k8s-openapi recordings (a real v1.34 cluster), its schema
/// published as the API server publishes a CRD's: with apiVersion, kind and ObjectMeta.
fn foobar_schemas() -> &'static OpenApiSchemas {
    static SCHEMAS: OnceLock<OpenApiSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let exchanges = foobar_exchanges();
        let crd: serde_json::Value =
            serde_json::from_str(exchanges[0]["request_body"].as_str().expect("CRD body")).expect("CRD json");
        let mut schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"].clone();
        schema["properties"]["apiVersion"] = json!({"type": "string"});
        schema["properties"]["kind"] = json!({"type": "string"});
        schema["properties"]["metadata"] =
            json!({"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]});
        schema["x-kubernetes-group-version-kind"] = json!([{
            "group": "k8s-openapi-tests-custom-resource-definition.com", "version": "v1", "kind": "FooBar"
        }]);
        let document = json!({"components": {"schemas": {
            "com.k8s-openapi-tests-custom-resource-definition.v1.FooBar": schema
        }}});
        let mut schemas = real_widgets().clone();
        schemas.add_json(document.to_string().as_bytes()).expect("FooBar document");
        schemas
    })
}

fn foobar_exchanges() -> Vec<serde_json::Value> {
    let bytes = shared_file("kube/recordings/k8s-openapi-v1-34/custom_resource_definition-test.json");
    serde_json::from_slice(&bytes).expect("recorded exchanges")
}

/// The problems of `text`, as `(message, refusal)`.
#[track_caller]
fn problems(text: &str, schemas: &OpenApiSchemas) -> Vec<Problem> {
    let read = read_lenient(text).expect("the text reads");
    validate(&read, schemas).expect("the kind has a schema")
}

/// What the server answers a create of `text` with `fieldValidation=Strict`, composed from the
/// explorer's problems the way the server composes its Status message: a decode error alone
/// (400), else every unknown and duplicate field (400), else every field error (422), else
/// nothing.
fn server_message(text: &str, schemas: &OpenApiSchemas) -> Option<(u16, String)> {
    let read = read_lenient(text).expect("the text reads");
    let found = validate(&read, schemas).expect("the kind has a schema");
    let gvk = gvk_of(&read.value).expect("kind");
    let name = read.value.at(&["metadata", "name"]).and_then(Value::as_str).unwrap_or_default().to_string();
    let of =
        |refusal: Refusal| found.iter().filter(|p| p.refusal == refusal).map(|p| p.message.clone()).collect::<Vec<_>>();
    let handled = format!("{} in version \"{}\" cannot be handled as a {}", gvk.kind, gvk.version, gvk.kind);
    if let Some(first) = of(Refusal::Decode).first() {
        return Some((400, format!("{handled}: {first}")));
    }
    let strict = of(Refusal::Strict);
    if !strict.is_empty() {
        return Some((400, format!("{handled}: strict decoding error: {}", strict.join(", "))));
    }
    let invalid = of(Refusal::Invalid);
    let qualified = if gvk.group.is_empty() { gvk.kind.clone() } else { format!("{}.{}", gvk.kind, gvk.group) };
    match invalid.as_slice() {
        [] => None,
        [one] => Some((422, format!("{qualified} \"{name}\" is invalid: {one}"))),
        many => Some((422, format!("{qualified} \"{name}\" is invalid: [{}]", many.join(", ")))),
    }
}

/// The Status message of a recorded exchange.
fn recorded_message(file: &str) -> String {
    let body: serde_json::Value = serde_json::from_slice(&real_apiserver_body(file)).expect("a Status body");
    body["message"].as_str().expect("message").to_string()
}

/// The request body of a recorded exchange.
fn recorded_request(file: &str) -> String {
    let text = String::from_utf8(shared_file(&format!("kube/real-apiserver/{file}"))).expect("text");
    let request =
        text.split("=== REQUEST ===").nth(1).and_then(|r| r.split("=== RESPONSE ===").next()).expect("request");
    request.split_once("\n\n").map(|(_, body)| body.trim().to_string()).expect("a request body")
}

/// A recorded case: where it was recorded, the request body, the real server's status and
/// message (none when it succeeded), and the schemas it was checked against.
type RecordedCase = (String, String, Option<(u16, String)>, &'static OpenApiSchemas);

/// Each case the real API server answered, with the server's message and the explorer's.
#[test]
fn the_explorer_words_each_problem_as_the_real_api_server_did() {
    let mut cases: Vec<RecordedCase> = Vec::new();
    let file = "80-fieldValidation-Strict-unknown-field-400.txt";
    cases.push((file.into(), recorded_request(file), Some((400, recorded_message(file))), real_widgets()));
    // 82 and 84 succeed under Warn with one Warning per unknown field: the same problems.
    for file in ["82-fieldValidation-Warn-unknown-field-201-Warning.txt", "84-fieldValidation-default-201.txt"] {
        let text = String::from_utf8(shared_file(&format!("kube/real-apiserver/{file}"))).expect("text");
        let warnings: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("Warning: 299 - \""))
            .map(|w| w.strip_suffix('"').unwrap_or(w).replace("\\\"", "\""))
            .collect();
        let found: Vec<String> = problems(&recorded_request(file), real_widgets())
            .into_iter()
            .filter(|p| p.refusal == Refusal::Strict)
            .map(|p| p.message)
            .collect();
        assert_eq!(found, warnings, "{file}: the explorer's problems against the server's Warning headers");
    }
    // 106: a merge patch setting spec.replicas to 99 on w-01 (size small, color red): the object
    // the server validated.
    let patched = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w-01","namespace":"default"},
        "spec":{"color":"red","ports":[{"name":"http","port":80}],"replicas":99,"size":"small","tags":["a","b"]}}"#;
    let file = "106-merge-patch-invalid-value-422.txt";
    cases.push((file.into(), patched.into(), Some((422, recorded_message(file))), real_widgets()));
    cases.push((
        "14-create-widget-defaulting-replicas.txt".into(),
        recorded_request("14-create-widget-defaulting-replicas.txt"),
        None,
        real_widgets(),
    ));
    for (index, exchange) in foobar_exchanges().iter().enumerate() {
        if exchange["request_method"] != "POST"
            || !exchange["request_url"].as_str().unwrap_or_default().contains("foobars")
        {
            continue;
        }
        let status = exchange["response_status_code"].as_u64().unwrap_or_default() as u16;
        let answer = (status >= 400).then(|| {
            let body: serde_json::Value =
                serde_json::from_str(exchange["response_body"].as_str().unwrap_or_default()).expect("a Status");
            (status, body["message"].as_str().unwrap_or_default().to_string())
        });
        let body = exchange["request_body"].as_str().unwrap_or_default().to_string();
        cases.push((format!("k8s-openapi-v1-34 custom_resource_definition #{index}"), body, answer, foobar_schemas()));
    }
    assert!(cases.len() >= 8, "expected the recorded cases, found {}", cases.len());
    for (case, body, server, schemas) in cases {
        let explorer = server_message(&body, schemas);
        assert_eq!(explorer, server, "{case}\nbody: {body}\nserver: {server:?}\nexplorer: {explorer:?}");
    }
}

/// One case of `tests/validation_cases.json`: a body kube-sim answers (its integration test
/// `sim/tests/validation.rs` sends each with `fieldValidation=Strict&dryRun=All`).
#[derive(Debug, serde::Deserialize)]
struct SimCase {
    name: String,
    body: String,
    status: u16,
    message: String,
    /// The explorer's problems, in its order.
    problems: Vec<String>,
}

fn sim_cases() -> Vec<SimCase> {
    serde_json::from_str(&crate::testdata::repository_file("tests/validation_cases.json")).expect("validation cases")
}

/// Each case only kube-sim answered (no real recording has it), with kube-sim's message and the
/// explorer's.
#[test]
fn the_explorer_words_each_problem_as_kube_sim_does() {
    let cases = sim_cases();
    assert!(cases.len() >= 8, "expected the kube-sim cases, found {}", cases.len());
    for case in cases {
        let explorer = server_message(&case.body, sim_schemas());
        assert_eq!(explorer, Some((case.status, case.message.clone())), "{}\nbody: {}", case.name, case.body);
        let found: Vec<String> = problems(&case.body, sim_schemas()).into_iter().map(|p| p.message).collect();
        assert_eq!(found, case.problems, "{}: the explorer's problems", case.name);
    }
}

#[track_caller]
fn check(text: &str, expect: &[(&str, &str, Refusal)]) {
    let got: Vec<(String, String, Refusal)> =
        problems(text, sim_schemas()).into_iter().map(|p| (p.pointer, p.message, p.refusal)).collect();
    let expect: Vec<(String, String, Refusal)> =
        expect.iter().map(|(p, m, r)| (p.to_string(), m.to_string(), *r)).collect();
    assert_eq!(got, expect, "{text}");
}

const WIDGET: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";

#[test]
fn a_valid_widget_and_deployment_have_no_problems() {
    check(&format!("{WIDGET}spec:\n  size: small\n  replicas: 3\n  tags: [a]\nstatus:\n  phase: Ready\n"), &[]);
    let deployment = "spec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        resources: {limits: {cpu: 500m}}\n        ports: [{containerPort: 80}]\n  strategy:\n    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}\n";
    check(&format!("{DEPLOYMENT}{deployment}"), &[]);
}

#[test]
fn custom_resource_fields_break_their_schema_in_kube_openapi_words() {
    check(
        &format!("{WIDGET}spec:\n  size: huge\n  replicas: -1\n  ports:\n  - name: http\n    port: x\n"),
        &[
            ("/spec/size", "spec.size: Unsupported value: \"huge\": supported values: \"small\", \"medium\", \"large\"", Refusal::Invalid),
            ("/spec/replicas", "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0", Refusal::Invalid),
            ("/spec/ports/0/port", "spec.ports[0].port: Invalid value: \"string\": spec.ports[0].port in body must be of type integer: \"string\"", Refusal::Invalid),
        ],
    );
    check(&format!("{WIDGET}spec:\n  replicas: 2\n"), &[("/spec/size", "spec.size: Required value", Refusal::Invalid)]);
}

#[test]
fn unknown_and_repeated_fields_are_strict_problems_with_their_paths() {
    check(
        &format!("{WIDGET}  bogus: 1\nspec:\n  size: small\n  size: large\n  extra: {{x: 1}}\n"),
        &[
            ("/spec/size", "duplicate field \"spec.size\"", Refusal::Strict),
            ("/metadata/bogus", "unknown field \"metadata.bogus\"", Refusal::Strict),
            ("/spec/extra", "unknown field \"spec.extra\"", Refusal::Strict),
        ],
    );
    let read = read_lenient("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}, \"a\": 3}").expect("json reads");
    assert_eq!(read.value.to_json(), r#"{"a":3,"b":{"c":2}}"#);
    let seen: Vec<(&str, &str, usize)> =
        read.duplicates.iter().map(|d| (d.pointer.as_str(), d.field.as_str(), d.occurrence)).collect();
    assert_eq!(seen, [("/b/c", "b.c", 1), ("/a", "a", 1)]);
}

#[test]
fn built_in_fields_of_the_wrong_go_type_fail_the_decode_in_go_words() {
    check(
        &format!("{DEPLOYMENT}  labels:\n    app: 1\nspec:\n  replicas: three\n  paused: 3000000000\n  template:\n    spec:\n      containers:\n      - name: web\n        ports:\n        - containerPort: 3000000000\n  bogus: 1\n"),
        &[
            ("/metadata/labels/app", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string", Refusal::Decode),
            ("/spec/replicas", "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32", Refusal::Decode),
            ("/spec/paused", "json: cannot unmarshal number into Go struct field DeploymentSpec.spec.paused of type bool", Refusal::Decode),
            ("/spec/template/spec/containers/0/ports/0/containerPort", "json: cannot unmarshal number 3000000000 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32", Refusal::Decode),
            ("/spec/bogus", "unknown field \"spec.bogus\"", Refusal::Strict),
        ],
    );
    check(
        &format!("{DEPLOYMENT}spec:\n  template: []\n  selector: {{matchLabels: [a]}}\n"),
        &[
            ("/spec/template", "json: cannot unmarshal array into Go struct field DeploymentSpec.spec.template of type v1.PodTemplateSpec", Refusal::Decode),
            ("/spec/selector/matchLabels", "json: cannot unmarshal array into Go struct field LabelSelector.spec.selector.matchLabels of type map[string]string", Refusal::Decode),
        ],
    );
}

#[test]
fn open_fields_and_types_with_their_own_decoding_are_not_judged() {
    // v1beta1 preserves unknown fields; Quantity and IntOrString decode themselves; null is dropped.
    let deployment = "spec:\n  replicas: null\n  strategy: {rollingUpdate: {maxSurge: [1]}}\n  template:\n    spec:\n      containers:\n      - name: web\n        resources: {limits: {cpu: {a: 1}}}\n";
    check(&format!("{DEPLOYMENT}{deployment}"), &[]);
}

#[test]
fn objects_without_a_kind_or_schema_and_bad_text_are_errors_not_panics() {
    let read = read_lenient("a: 1\n").expect("reads");
    assert_eq!(validate(&read, sim_schemas()), Err(ValidateError::NoKind));
    let read = read_lenient("apiVersion: example.com/v9\nkind: Widget\n").expect("reads");
    assert_eq!(
        validate(&read, sim_schemas()).map_err(|e| e.to_string()),
        Err("the OpenAPI document has no schema for example.com/v9, Kind=Widget (no x-kubernetes-group-version-kind names it)".into())
    );
    assert!(read_lenient("a: [1, 2\n").is_err());
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    assert!(read_lenient(&deep).is_err());
    for text in ["", "~", "[1, 2]", "- a\n- b", "{a: {b: {c: [1, {d: 2}]}}}", "apiVersion: 1\nkind: [x]\n"] {
        if let Ok(read) = read_lenient(text) {
            let _ = validate(&read, sim_schemas());
        }
    }
}
