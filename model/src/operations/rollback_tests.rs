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
    let history = revisions(Workload::Deployment, &json(WEB), &list()).unwrap();
    let rows: Vec<(i64, &str, Option<&str>)> =
        history.iter().map(|r| (r.number, r.holder.as_str(), r.change_cause.as_deref())).collect();
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
    let node = target("", "nodes", None, "n1");
    assert_eq!(
        undo(&node, &json(WEB), &list(), Some(1), false).unwrap_err(),
        OperationError::NotOffered(Operation::Undo, Workload::Node)
    );
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
    for workload in [Workload::Deployment, Workload::StatefulSet, Workload::DaemonSet] {
        assert!(workload.operations().contains(&Operation::Undo), "{workload:?}");
    }
    for workload in [Workload::Node, Workload::CronJob] {
        assert!(!workload.operations().contains(&Operation::Undo), "{workload:?}");
    }
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
        Err(OperationError::Missing("the workload's revisions"))
    );
    // The other operations plan as before.
    let restart = Choices::default();
    assert_eq!(
        plan_with(Operation::Restart, &web, &json(WEB), None, &restart, 1_700_000_000),
        plan(Operation::Restart, &web, &json(WEB), &restart, 1_700_000_000)
    );
}

/// StatefulSet `db` at its second template (postgres:17), selected by `app=db`.
const DB: &str = r#"{"metadata":{"name":"db","namespace":"demo","uid":"s-1"},
  "spec":{"selector":{"matchLabels":{"app":"db"}},"serviceName":"db",
    "template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres:17"}]}}}}"#;

/// A ControllerRevision as the StatefulSet and DaemonSet controllers write it: `data` is
/// `getPatch`'s `{"spec":{"template":{"$patch":"replace",…}}}` with keys sorted (Go's
/// `json.Marshal` of a map), `revision` a number.
fn controller_revision(name: &str, owner: &str, revision: i64, image: &str, cause: Option<&str>) -> String {
    let annotations =
        cause.map(|c| format!(r#","annotations":{{"kubernetes.io/change-cause":"{c}"}}"#)).unwrap_or_default();
    format!(
        r#"{{"metadata":{{"name":"{name}","namespace":"demo","labels":{{"app":"db","controller.kubernetes.io/hash":"{name}"}}{annotations},
          "ownerReferences":[{{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","uid":"{owner}","controller":true,"blockOwnerDeletion":true}}]}},
          "data":{{"spec":{{"template":{{"$patch":"replace","metadata":{{"creationTimestamp":null,"labels":{{"app":"db"}}}},"spec":{{"containers":[{{"image":"{image}","name":"db"}}]}}}}}}}},
          "revision":{revision}}}"#
    )
}

fn db_history() -> Value {
    let items = [
        controller_revision("db-7b9c", "s-1", 2, "postgres:17", None),
        controller_revision("db-5d4f", "s-1", 1, "postgres:16", Some("first")),
        controller_revision("cache-1", "s-9", 1, "redis:7", None),
    ];
    json(&format!(r#"{{"kind":"ControllerRevisionList","items":[{}]}}"#, items.join(",")))
}

#[test]
fn a_stateful_sets_history_is_the_controller_revisions_it_controls() {
    let db = target("apps", "statefulsets", Some("demo"), "db");
    let list_request = revisions_request(&db, &json(DB)).unwrap();
    assert_eq!(
        list_request.path_and_query(),
        "/apis/apps/v1/namespaces/demo/controllerrevisions?labelSelector=app%3Ddb"
    );
    assert_eq!(related_request(Operation::Undo, &db, &json(DB)), Some(Ok(list_request)));
    let history = revisions(Workload::StatefulSet, &json(DB), &db_history()).unwrap();
    let rows: Vec<(i64, &str, Option<&str>)> =
        history.iter().map(|r| (r.number, r.holder.as_str(), r.change_cause.as_deref())).collect();
    assert_eq!(rows, [(1, "db-5d4f", Some("first")), (2, "db-7b9c", None)]);
    assert_eq!(revision_holder(Workload::StatefulSet), Some("ControllerRevision"));
    assert_eq!(revision_holder(Workload::Deployment), Some("ReplicaSet"));
    // The templates compared are the data's, without the `$patch` directive.
    let diff = template_diff(&history[0], &history[1]).unified();
    assert!(diff.contains("-  - image: postgres:16\n+  - image: postgres:17\n"), "{diff}");
    assert!(!diff.contains("$patch"), "{diff}");
}

#[test]
fn undo_of_a_stateful_set_sends_the_revisions_data_as_a_strategic_merge_patch() {
    let db = target("apps", "statefulsets", Some("demo"), "db");
    let plan = undo(&db, &json(DB), &db_history(), Some(1), false).unwrap();
    assert_eq!(
        render(&plan),
        r#"KubectlRead GET /apis/apps/v1/namespaces/demo/statefulsets/db
KubectlRead GET /apis/apps/v1/namespaces/demo/controllerrevisions?labelSelector=app%3Ddb
Write PATCH /apis/apps/v1/namespaces/demo/statefulsets/db
  application/strategic-merge-patch+json
  {"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"db"}},"spec":{"containers":[{"image":"postgres:16","name":"db"}]}}}}
$ kubectl rollout undo statefulset/db --to-revision=1 -n demo"#
    );
    // kubectl's default: the revision before the newest; a server dry run adds dryRun=All.
    let previous = undo(&db, &json(DB), &db_history(), None, true).unwrap();
    assert_eq!(previous.write().body(), plan.write().body());
    assert_eq!(previous.write().path_and_query(), "/apis/apps/v1/namespaces/demo/statefulsets/db?dryRun=All");
    assert_eq!(previous.kubectl, "kubectl rollout undo statefulset/db -n demo --dry-run=server");
    // A DaemonSet's the same way, under its own name.
    let agent = target("apps", "daemonsets", Some("demo"), "agent");
    let plan = undo(&agent, &json(DB), &db_history(), Some(1), false).unwrap();
    assert_eq!(plan.write().path_and_query(), "/apis/apps/v1/namespaces/demo/daemonsets/agent");
    assert_eq!(plan.kubectl, "kubectl rollout undo daemonset/agent --to-revision=1 -n demo");
    assert_eq!(
        plan_with(
            Operation::Undo,
            &agent,
            &json(DB),
            Some(&db_history()),
            &Choices { to_revision: Some(1), ..Choices::default() },
            0
        ),
        Ok(plan)
    );
}

#[test]
fn undo_of_a_stateful_set_is_refused_where_kubectl_refuses_or_skips_it() {
    let db = target("apps", "statefulsets", Some("demo"), "db");
    let refused = |list: &Value, to: Option<i64>| undo(&db, &json(DB), list, to, false).unwrap_err();
    // The current template is revision 2's: skipped, as statefulSetMatch finds the same bytes.
    assert_eq!(refused(&db_history(), Some(2)), OperationError::AlreadyAtRevision(2));
    assert_eq!(refused(&db_history(), Some(7)), OperationError::RevisionNotFound(7));
    let only_one = json(&format!(r#"{{"items":[{}]}}"#, controller_revision("db-7b9c", "s-1", 2, "postgres:17", None)));
    assert_eq!(refused(&only_one, None), OperationError::NoLastRevision);
    assert_eq!(refused(&only_one, None).to_string(), "no last revision to roll back to");
    // A revision without a numeric `revision` is no revision.
    let unnumbered = json(&format!(
        r#"{{"items":[{},{}]}}"#,
        controller_revision("db-7b9c", "s-1", 2, "postgres:17", None),
        controller_revision("db-5d4f", "s-1", 1, "postgres:16", None).replace(r#""revision":1"#, r#""revision":"1""#)
    ));
    assert_eq!(refused(&unnumbered, None), OperationError::NoLastRevision);
}

/// The real kubectl 1.32.4's `rollout undo sts/kc-db --to-revision=1 -v=9` against kube-sim
/// (StatefulSet `kc-db` made with postgres:16, then `kubectl set image sts/kc-db db=postgres:17`),
/// 2026-11-29: the body it logged, byte for byte. kubectl read the ControllerRevisions as
/// protobuf; the explorer reads them as JSON and sends the same bytes.
#[test]
fn undo_of_a_stateful_set_sends_the_bytes_the_real_kubectl_sent() {
    let kc_db = target("apps", "statefulsets", Some("demo"), "kc-db");
    let template = |image: &str| {
        format!(
            r#"{{"$patch":"replace","metadata":{{"labels":{{"app":"kc-db"}}}},"spec":{{"containers":[{{"env":[{{"name":"B","value":"2"}},{{"name":"A","value":"1"}}],"image":"{image}","imagePullPolicy":"IfNotPresent","name":"db","ports":[{{"containerPort":5432,"protocol":"TCP"}}],"resources":{{}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{{}},"terminationGracePeriodSeconds":30}}}}"#
        )
    };
    let item = |name: &str, revision: i64, image: &str| {
        format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"demo","ownerReferences":[{{"apiVersion":"apps/v1","kind":"StatefulSet","name":"kc-db","uid":"u-kc","controller":true,"blockOwnerDeletion":true}}]}},"data":{{"spec":{{"template":{}}}}},"revision":{revision}}}"#,
            template(image)
        )
    };
    let list = json(&format!(
        r#"{{"items":[{},{}]}}"#,
        item("kc-db-6d5b8b4c9f", 1, "postgres:16"),
        item("kc-db-7c9d6f5b8d", 2, "postgres:17")
    ));
    let current = template("postgres:17").replace(r#""$patch":"replace","#, "");
    let statefulset = json(&format!(
        r#"{{"metadata":{{"name":"kc-db","namespace":"demo","uid":"u-kc"}},"spec":{{"selector":{{"matchLabels":{{"app":"kc-db"}}}},"template":{current}}}}}"#
    ));
    let plan = undo(&kc_db, &statefulset, &list, Some(1), false).unwrap();
    let kubectl = r#"{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"kc-db"}},"spec":{"containers":[{"env":[{"name":"B","value":"2"},{"name":"A","value":"1"}],"image":"postgres:16","imagePullPolicy":"IfNotPresent","name":"db","ports":[{"containerPort":5432,"protocol":"TCP"}],"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}"#;
    assert_eq!(String::from_utf8_lossy(plan.write().body().unwrap()), kubectl);
    assert_eq!(plan.write().header_value("Content-Type"), Some("application/strategic-merge-patch+json"));
}
