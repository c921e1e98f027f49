//! `kubectl rollout history` and `undo` of a Deployment as transcripts, against the requests
//! kubectl builds in `pkg/polymorphichelpers/rollback.go` and `pkg/util/deployment/deployment.go`.

use super::tests::{json, render, target};
use super::*;
use kube_wire::codec::value::Value;

/// Deployment `web` at revision 2 (nginx:1.27), selected by `app=web`.
const WEB: &str = r#"{"metadata":{"name":"web","namespace":"demo","uid":"d-1",
  "annotations":{"deployment.kubernetes.io/revision":"2","kubernetes.io/change-cause":"second",
    "kubectl.kubernetes.io/last-applied-configuration":"{}"}},
  "spec":{"selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}"#;

fn replica_set(name: &str, owner: &str, revision: &str, image: &str, cause: &str) -> String {
    format!(
        r#"{{"metadata":{{"name":"{name}","annotations":{{"deployment.kubernetes.io/desired-replicas":"2",
          "deployment.kubernetes.io/revision":"{revision}","kubernetes.io/change-cause":"{cause}"}},
          "ownerReferences":[{{"kind":"Deployment","name":"web","uid":"{owner}","controller":true}}]}},
          "spec":{{"template":{{"metadata":{{"creationTimestamp":null,"labels":{{"app":"web","pod-template-hash":"{name}"}}}},
            "spec":{{"containers":[{{"name":"web","image":"{image}"}}]}}}}}}}}"#
    )
}

/// Revisions 1 and 2 of `web`, one ReplicaSet another Deployment controls, one whose revision
/// annotation is not a number.
fn list() -> Value {
    let items = [
        replica_set("web-2", "d-1", "2", "nginx:1.27", "second"),
        replica_set("web-1", "d-1", "1", "nginx:1.26", "first"),
        replica_set("other-1", "d-9", "1", "nginx:1.20", "not web's"),
        replica_set("web-x", "d-1", "x", "nginx:1.0", "no number"),
    ];
    json(&format!(r#"{{"kind":"ReplicaSetList","items":[{}]}}"#, items.join(",")))
}

#[test]
fn the_history_is_the_replica_sets_the_deployment_controls_by_revision() {
    let web = target("apps", "deployments", Some("demo"), "web");
    let list_request = revisions_request(&web, &json(WEB)).unwrap();
    assert_eq!(list_request.path_and_query(), "/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb");
    let history = revisions(&json(WEB), &list()).unwrap();
    let rows: Vec<(i64, &str, Option<&str>)> =
        history.iter().map(|r| (r.number, r.replica_set.as_str(), r.change_cause.as_deref())).collect();
    assert_eq!(rows, [(1, "web-1", Some("first")), (2, "web-2", Some("second"))]);
    let diff = template_diff(&history[0], &history[1]).unified();
    assert!(diff.contains("-    image: nginx:1.26\n+    image: nginx:1.27\n"), "{diff}");
    assert!(!diff.contains("pod-template-hash"), "{diff}");
}

#[test]
fn a_selector_with_expressions_is_written_as_labels_selector_string() {
    let web = target("apps", "deployments", Some("demo"), "web");
    let deployment = json(
        r#"{"spec":{"selector":{"matchLabels":{"tier":"front","app":"web"},"matchExpressions":[
          {"key":"env","operator":"In","values":["prod","dev"]},{"key":"canary","operator":"DoesNotExist"}]}}}"#,
    );
    let request = revisions_request(&web, &deployment).unwrap();
    assert_eq!(
        request.query(),
        [("labelSelector".to_owned(), "app=web,!canary,env in (dev,prod),tier=front".to_owned())]
    );
}

#[test]
fn undo_patches_the_template_and_annotations_as_kubectl_rollout_undo() {
    let web = target("apps", "deployments", Some("demo"), "web");
    let plan = undo(&web, &json(WEB), &list(), Some(1), false).unwrap();
    assert_eq!(
        render(&plan),
        r#"KubectlRead GET /apis/apps/v1/namespaces/demo/deployments/web
KubectlRead GET /apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb
Write PATCH /apis/apps/v1/namespaces/demo/deployments/web
  application/json-patch+json
  [{"op":"replace","path":"/spec/template","value":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.26"}]}}},{"op":"replace","path":"/metadata/annotations","value":{"deployment.kubernetes.io/revision":"2","kubectl.kubernetes.io/last-applied-configuration":"{}","kubernetes.io/change-cause":"first"}}]
$ kubectl rollout undo deployment/web --to-revision=1 -n demo"#
    );
    // No revision named: the one before the newest; a server dry run adds dryRun=All.
    let previous = undo(&web, &json(WEB), &list(), None, true).unwrap();
    assert_eq!(previous.write().path_and_query(), "/apis/apps/v1/namespaces/demo/deployments/web?dryRun=All");
    assert_eq!(previous.write().body(), plan.write().body());
    assert_eq!(previous.kubectl, "kubectl rollout undo deployment/web -n demo --dry-run=server");
}

#[test]
fn undo_is_refused_where_kubectl_refuses_or_skips_it() {
    let web = target("apps", "deployments", Some("demo"), "web");
    let refused =
        |deployment: &str, list: &Value, to: Option<i64>| undo(&web, &json(deployment), list, to, false).unwrap_err();
    assert_eq!(refused(WEB, &list(), Some(3)), OperationError::RevisionNotFound(3));
    // The current template already is revision 2's (the hash label and a null aside).
    assert_eq!(refused(WEB, &list(), Some(2)), OperationError::AlreadyAtRevision(2));
    let paused = WEB.replace(r#""spec":{"selector""#, r#""spec":{"paused":true,"selector""#);
    assert_eq!(refused(&paused, &list(), Some(1)), OperationError::PausedRollback);
    let only_one = json(&format!(r#"{{"items":[{}]}}"#, replica_set("web-2", "d-1", "2", "nginx:1.27", "second")));
    assert_eq!(refused(WEB, &only_one, None), OperationError::NoRolloutHistory);
    assert_eq!(refused(WEB, &list(), Some(3)).to_string(), "unable to find specified revision 3 in history");
    let db = target("apps", "statefulsets", Some("demo"), "db");
    assert!(undo(&db, &json(WEB), &list(), Some(1), false).is_err());
}

/// The real kubectl 1.32.4's `rollout undo deployment/api -n demo --to-revision=1 -v=8` against
/// kube-sim's demo (after `kubectl set image deployment/api api=nginx:1.27`), 2026-11-28: the
/// body it logged, byte for byte. The ReplicaSet's template here is in Go's field order, as a
/// real API server writes it (the explorer copies the template as the server wrote it).
#[test]
fn undo_sends_the_bytes_the_real_kubectl_sent() {
    let api = target("apps", "deployments", Some("demo"), "api");
    let deployment = json(
        r#"{"metadata":{"name":"api","namespace":"demo","uid":"u-api","annotations":{"deployment.kubernetes.io/revision":"2"}},
        "spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},
          "spec":{"containers":[{"name":"api","image":"nginx:1.27"}]}}}}"#,
    );
    let list = json(
        r#"{"items":[{"metadata":{"name":"api-5g9cblvg68","namespace":"demo",
          "annotations":{"deployment.kubernetes.io/desired-replicas":"2","deployment.kubernetes.io/max-replicas":"3","deployment.kubernetes.io/revision":"1"},
          "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"api","uid":"u-api","controller":true,"blockOwnerDeletion":true}]},
          "spec":{"replicas":0,"template":{"metadata":{"labels":{"app":"api","pod-template-hash":"5g9cblvg68"}},
            "spec":{"containers":[{"name":"api","image":"ghcr.io/example/api:2.4.1","ports":[{"containerPort":8080,"protocol":"TCP"}],
              "resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log",
              "terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always",
              "terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}}}]}"#,
    );
    let plan = undo(&api, &deployment, &list, Some(1), false).unwrap();
    let kubectl = r#"[{"op":"replace","path":"/spec/template","value":{"metadata":{"creationTimestamp":null,"labels":{"app":"api"}},"spec":{"containers":[{"name":"api","image":"ghcr.io/example/api:2.4.1","ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}},{"op":"replace","path":"/metadata/annotations","value":{"deployment.kubernetes.io/revision":"2"}}]"#;
    assert_eq!(String::from_utf8_lossy(plan.write().body().unwrap()), kubectl);
    assert_eq!(plan.write().path_and_query(), "/apis/apps/v1/namespaces/demo/deployments/api");
    assert_eq!(plan.write().header_value("Content-Type"), Some("application/json-patch+json"));
    assert_eq!(
        plan.steps[1].request.path_and_query(),
        "/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dapi"
    );
}

#[test]
fn undo_is_offered_on_a_deployment_and_planned_from_its_replica_sets() {
    let web = target("apps", "deployments", Some("demo"), "web");
    assert!(Workload::Deployment.operations().contains(&Operation::Undo));
    assert!(!Workload::StatefulSet.operations().contains(&Operation::Undo));
    // Undo reads the ReplicaSets beside the Deployment; the other operations read nothing more.
    let related = related_request(Operation::Undo, &web, &json(WEB)).expect("undo reads more").unwrap();
    assert_eq!(related, revisions_request(&web, &json(WEB)).unwrap());
    assert!(related_request(Operation::Restart, &web, &json(WEB)).is_none());
    // Planned from both, to the revision chosen, as rollback::undo plans it.
    let choices = Choices { to_revision: Some(1), dry_run: true, ..Choices::default() };
    let planned = plan_with(Operation::Undo, &web, &json(WEB), Some(&list()), &choices, 0).unwrap();
    assert_eq!(planned, undo(&web, &json(WEB), &list(), Some(1), true).unwrap());
    // Without the list it plans nothing, and says what is missing.
    assert_eq!(
        plan_with(Operation::Undo, &web, &json(WEB), None, &choices, 0),
        Err(OperationError::Missing("the Deployment's ReplicaSets"))
    );
    // The other operations plan as before.
    let restart = Choices::default();
    assert_eq!(
        plan_with(Operation::Restart, &web, &json(WEB), None, &restart, 1_700_000_000),
        plan(Operation::Restart, &web, &json(WEB), &restart, 1_700_000_000)
    );
}
