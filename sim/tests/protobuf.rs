//! Protobuf request bodies, as kubectl's typed clients send built-in objects: the real
//! serializers' vectors and envelopes built with k8s-pb are created, dry-run and reviewed.

mod common;

use common::{json_of, shared_dir, Sim};
use prost::Message;
use serde_json::{json, Value};

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

fn vector(name: &str) -> Vec<u8> {
    let path = shared_dir().join("kube/vectors").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `k8s\0` + runtime.Unknown around an encoded message.
fn envelope(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
    let unknown = k8s_pb::apimachinery::pkg::runtime::Unknown {
        type_meta: Some(k8s_pb::apimachinery::pkg::runtime::TypeMeta {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut body = b"k8s\0".to_vec();
    body.extend(unknown.encode_to_vec());
    body
}

/// A Deployment spec the real server's validation accepts (selector, matching template labels, a
/// named container with an image), selecting `app: APP`.
fn valid_spec(app: &str) -> k8s_pb::api::apps::v1::DeploymentSpec {
    use k8s_pb::api::core::v1 as core;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    let labels = std::collections::BTreeMap::from([("app".to_string(), app.to_string())]);
    k8s_pb::api::apps::v1::DeploymentSpec {
        selector: Some(meta::LabelSelector { match_labels: labels.clone(), ..Default::default() }),
        template: Some(core::PodTemplateSpec {
            metadata: Some(meta::ObjectMeta { labels, ..Default::default() }),
            spec: Some(core::PodSpec {
                containers: vec![core::Container {
                    name: Some("app".into()),
                    image: Some("nginx:1.27".into()),
                    ports: vec![core::ContainerPort { container_port: Some(80), ..Default::default() }],
                    ..Default::default()
                }],
                ..Default::default()
            }),
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn the_real_serializers_configmap_is_created_from_protobuf() {
    let sim = Sim::start(&[]);
    let want: Value = serde_json::from_slice(&vector("configmap.json")).expect("configmap.json parses");
    let (code, created) =
        json_of(sim.send("POST", "/api/v1/namespaces/default/configmaps", PROTOBUF, vector("configmap.pb")).await)
            .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["name"], "app-config");
    let (_, stored) = sim.get_json("/api/v1/namespaces/default/configmaps/app-config").await;
    assert_eq!(stored["data"], want["data"]);
    assert_eq!(stored["binaryData"], want["binaryData"], "[]byte values come back as base64");
}

#[tokio::test]
async fn a_protobuf_deployment_dry_run_is_answered_and_not_stored() {
    use k8s_pb::api::apps::v1 as apps;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    let sim = Sim::start(&[]);
    let labels = std::collections::BTreeMap::from([("app".to_string(), "from-pb".to_string())]);
    let dep = apps::Deployment {
        metadata: Some(meta::ObjectMeta { name: Some("from-pb".into()), labels, ..Default::default() }),
        spec: Some(apps::DeploymentSpec { replicas: Some(2), ..valid_spec("from-pb") }),
        status: None,
    };
    let body = envelope("apps/v1", "Deployment", dep.encode_to_vec());
    let path = "/apis/apps/v1/namespaces/demo/deployments";
    let (code, answer) = json_of(sim.send("POST", &format!("{path}?dryRun=All"), PROTOBUF, body.clone()).await).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["spec"]["replicas"], 2);
    // The message's fields, and the defaults kube-apiserver adds.
    assert_eq!(
        answer["spec"]["template"]["spec"]["containers"][0],
        json!({"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {}, "imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File"})
    );
    let (code, _) = sim.get_json(&format!("{path}/from-pb")).await;
    assert_eq!(code, 404, "a dry run stores nothing");
    let (code, _) = json_of(sim.send("POST", path, PROTOBUF, body).await).await;
    assert_eq!(code, 201);
    let (code, stored) = sim.get_json(&format!("{path}/from-pb")).await;
    assert_eq!((code, stored["kind"].clone()), (200, json!("Deployment")));
}

#[tokio::test]
async fn a_zero_that_differs_from_the_default_is_kept() {
    use k8s_pb::api::apps::v1 as apps;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    let sim = Sim::start(&[]);
    // `kubectl create deployment --replicas=0`: a pointer set to 0 (unset would default to 1),
    // next to minReadySeconds, a plain int32 that Go's protobuf writes as 0 when unset.
    let dep = apps::Deployment {
        metadata: Some(meta::ObjectMeta { name: Some("zero".into()), ..Default::default() }),
        spec: Some(apps::DeploymentSpec { replicas: Some(0), min_ready_seconds: Some(0), ..valid_spec("zero") }),
        status: None,
    };
    let body = envelope("apps/v1", "Deployment", dep.encode_to_vec());
    let (code, answer) =
        json_of(sim.send("POST", "/apis/apps/v1/namespaces/demo/deployments?dryRun=All", PROTOBUF, body).await).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["spec"]["replicas"], 0);
    assert!(answer["spec"].get("minReadySeconds").is_none(), "{}", answer["spec"]);
}

#[tokio::test]
async fn an_access_review_in_protobuf_is_answered() {
    use k8s_pb::api::authorization::v1 as authz;
    let sim = Sim::start(&[]);
    let review = authz::SelfSubjectAccessReview {
        metadata: Some(Default::default()),
        spec: Some(authz::SelfSubjectAccessReviewSpec {
            resource_attributes: Some(authz::ResourceAttributes {
                namespace: Some("demo".into()),
                verb: Some("create".into()),
                resource: Some("pods".into()),
                ..Default::default()
            }),
            non_resource_attributes: None,
        }),
        status: None,
    };
    let body = envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", review.encode_to_vec());
    let (code, answer) =
        json_of(sim.send("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", PROTOBUF, body).await).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(
        answer["spec"]["resourceAttributes"],
        json!({"namespace": "demo", "verb": "create", "resource": "pods"})
    );
    assert_eq!(answer["status"]["allowed"], true);
}

#[tokio::test]
async fn a_protobuf_body_without_the_magic_or_of_the_wrong_kind_is_400() {
    let sim = Sim::start(&[]);
    let path = "/api/v1/namespaces/default/configmaps";
    let (code, status) = json_of(sim.send("POST", path, PROTOBUF, vec![0x0a, 0x00]).await).await;
    assert_eq!((code, status["reason"].clone()), (400, json!("BadRequest")), "{status}");
    let body = envelope("v1", "Frobnicator", Vec::new());
    let (code, status) = json_of(sim.send("POST", path, PROTOBUF, body).await).await;
    assert_eq!(code, 400, "{status}");
    let message = status["message"].as_str().unwrap_or_default();
    assert!(message.contains("no kind \"Frobnicator\" is registered for version \"v1\""), "{message}");
}
