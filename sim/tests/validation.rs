//! Validation while typing, checked against kube-sim: every body of `tests/validation_cases.json`
//! (the explorer's validator is tested against the same file) is created with
//! `fieldValidation=Strict&dryRun=All`, and kube-sim must answer the status and the message the
//! validator predicts.

mod common;

use common::{json_of, Sim};
use serde_json::Value;

/// The collection a case's object is created in.
fn collection(object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().expect("apiVersion");
    let plural = format!("{}s", object["kind"].as_str().expect("kind").to_lowercase());
    let prefix = if api_version.contains('/') { "apis" } else { "api" };
    format!("/{prefix}/{api_version}/namespaces/default/{plural}")
}

#[tokio::test]
async fn kube_sim_refuses_each_case_with_the_message_the_explorer_predicts() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/validation_cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let cases: Vec<Value> = serde_json::from_str(&text).expect("validation cases");
    assert!(cases.len() >= 8, "expected the cases, found {}", cases.len());
    let sim = Sim::start(&[]);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let body = case["body"].as_str().expect("body").to_string();
        // serde_json keeps the last of repeated keys: the kind and apiVersion are never repeated.
        let object: Value = serde_json::from_str(&body).expect("a JSON body");
        let url = format!("{}?fieldValidation=Strict&dryRun=All", collection(&object));
        let (status, answer) = json_of(sim.send("POST", &url, "application/json", body.clone()).await).await;
        assert_eq!(
            u64::from(status),
            case["status"].as_u64().expect("status"),
            "{name}: status\nbody: {body}\nanswer: {answer}"
        );
        assert_eq!(answer["message"], case["message"], "{name}: message\nbody: {body}");
    }
}

#[tokio::test]
async fn a_deployment_of_the_wrong_go_type_is_refused_at_every_validation_level() {
    let sim = Sim::start(&[]);
    let body = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"v-warn"},"spec":{"replicas":"two","bogus":1}}"#;
    for level in ["Warn", "Ignore"] {
        let url = format!("/apis/apps/v1/namespaces/default/deployments?fieldValidation={level}&dryRun=All");
        let (status, answer) = json_of(sim.send("POST", &url, "application/json", body).await).await;
        assert_eq!(status, 400, "{level}: {answer}");
        assert_eq!(
            answer["message"],
            "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
            "{level}"
        );
    }
}
