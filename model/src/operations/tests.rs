//! Each plan as a transcript (method, URL, Content-Type, body of every request) compared with
//! the bytes kubectl sends for the same command, from its source (named on each test).

use super::*;
use crate::write::preview;
use kube_wire::codec::json::decode_json;
use kube_wire::codec::value::Value;
use kube_wire::discovery::Scope;
use kube_wire::request::Collection;
use kube_wire::testdata::resource_type;

pub(super) fn target(group: &str, plural: &str, namespace: Option<&str>, name: &str) -> Target {
    let scope = if namespace.is_some() { Scope::Namespaced } else { Scope::Cluster };
    let resource = resource_type(group, "v1", plural, scope);
    let workload = Workload::of(&resource).expect("a kind with operations");
    Target { workload, object: Collection::new(&resource, namespace).unwrap().object(name).unwrap() }
}

pub(super) fn json(text: &str) -> Value {
    decode_json(text.as_bytes()).unwrap()
}

/// 2026-11-28T04:30:05Z.
const NOW: i64 = 1_795_840_205;

fn transcript(operation: Operation, target: &Target, object: &str, choices: &Choices) -> String {
    match plan(operation, target, &json(object), choices, NOW) {
        Ok(plan) => render(&plan),
        Err(error) => format!("refused: {error}"),
    }
}

/// A plan as its transcript: each step's role, method and URL, then Content-Type and body (a
/// trailing newline, which client-go's JSON encoder writes, shows as ⏎), then the kubectl command.
pub(super) fn render(plan: &Plan) -> String {
    let mut lines: Vec<String> = plan
        .steps
        .iter()
        .map(|step| {
            let p = preview(&step.request);
            let mut line = format!("{:?} {} {}", step.role, p.method, p.url);
            if let Some(body) = p.body_text.filter(|b| !b.is_empty()) {
                line.push_str(&format!("\n  {}\n  {}", p.content_type, body.replace('\n', "⏎")));
            }
            line
        })
        .collect();
    lines.push(format!("$ {}", plan.kubectl));
    lines.join("\n")
}

fn check(operation: Operation, target: &Target, object: &str, choices: &Choices, expect: &str) {
    assert_eq!(transcript(operation, target, object, choices), expect.trim());
}

#[test]
fn restart_patches_the_template_annotation_as_kubectl_rollout_restart() {
    // pkg/polymorphichelpers/objectrestarter.go + pkg/cmd/rollout/rollout_restart.go
    let web = target("apps", "deployments", Some("demo"), "web");
    check(
        Operation::Restart,
        &web,
        r#"{"spec":{"template":{"metadata":{"labels":{"app":"web"}}}}}"#,
        &Choices::default(),
        r#"
KubectlRead GET /apis/apps/v1/namespaces/demo/deployments/web
Write PATCH /apis/apps/v1/namespaces/demo/deployments/web?fieldManager=kubectl-rollout
  application/strategic-merge-patch+json
  {"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-28T04:30:05Z"}}}}}
$ kubectl rollout restart deployment/web -n demo
"#,
    );
    let db = target("apps", "statefulsets", Some("demo"), "db");
    let plan = plan(Operation::Restart, &db, &json(r#"{"spec":{"paused":true}}"#), &Choices::default(), NOW).unwrap();
    assert_eq!(plan.kubectl, "kubectl rollout restart statefulset/db -n demo");
    assert_eq!(plan.write().path(), "/apis/apps/v1/namespaces/demo/statefulsets/db");
    let ds = target("apps", "daemonsets", Some("kube-system"), "agent");
    assert!(plan_ok(Operation::Restart, &ds, "{}"));
}

fn plan_ok(operation: Operation, target: &Target, object: &str) -> bool {
    plan(operation, target, &json(object), &Choices::default(), NOW).is_ok()
}

#[test]
fn a_paused_deployment_is_not_restarted_and_the_same_second_is_refused() {
    let web = target("apps", "deployments", Some("demo"), "web");
    check(
        Operation::Restart,
        &web,
        r#"{"spec":{"paused":true}}"#,
        &Choices { dry_run: true, ..Choices::default() },
        "refused: can't restart paused deployment (run rollout resume first)",
    );
    let same = r#"{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-28T04:30:05Z"}}}}}"#;
    assert_eq!(
        plan(Operation::Restart, &web, &json(same), &Choices::default(), NOW),
        Err(OperationError::RestartedThisSecond)
    );
    assert!(plan_ok(Operation::Restart, &web, same.replace("05Z", "04Z").as_str()));
}

#[test]
fn pause_sets_and_resume_removes_spec_paused() {
    // pkg/polymorphichelpers/objectpauser.go, objectresumer.go: `paused` is omitempty.
    let web = target("apps", "deployments", Some("demo"), "web");
    check(
        Operation::Pause,
        &web,
        r#"{"spec":{"replicas":2}}"#,
        &Choices { dry_run: true, ..Choices::default() },
        r#"
KubectlRead GET /apis/apps/v1/namespaces/demo/deployments/web
Write PATCH /apis/apps/v1/namespaces/demo/deployments/web?fieldManager=kubectl-rollout
  application/strategic-merge-patch+json
  {"spec":{"paused":true}}
$ kubectl rollout pause deployment/web -n demo
"#,
    );
    check(
        Operation::Resume,
        &web,
        r#"{"spec":{"paused":true}}"#,
        &Choices::default(),
        r#"
KubectlRead GET /apis/apps/v1/namespaces/demo/deployments/web
Write PATCH /apis/apps/v1/namespaces/demo/deployments/web?fieldManager=kubectl-rollout
  application/strategic-merge-patch+json
  {"spec":{"paused":null}}
$ kubectl rollout resume deployment/web -n demo
"#,
    );
    check(Operation::Pause, &web, r#"{"spec":{"paused":true}}"#, &Choices::default(), "refused: already paused");
    check(Operation::Resume, &web, r#"{"spec":{}}"#, &Choices::default(), "refused: already resumed (not paused)");
    let db = target("apps", "statefulsets", Some("demo"), "db");
    assert_eq!(
        plan(Operation::Pause, &db, &json("{}"), &Choices::default(), NOW),
        Err(OperationError::NotOffered(Operation::Pause, Workload::StatefulSet))
    );
}

#[test]
fn cordon_and_uncordon_patch_spec_unschedulable_with_server_dry_run() {
    // pkg/drain/cordon.go: the typed client's patch, no field manager.
    let node = target("", "nodes", None, "node-1");
    check(
        Operation::Cordon,
        &node,
        r#"{"spec":{"podCIDR":"10.0.1.0/24"}}"#,
        &Choices::default(),
        r#"
KubectlRead GET /api/v1/nodes/node-1
Write PATCH /api/v1/nodes/node-1
  application/strategic-merge-patch+json
  {"spec":{"unschedulable":true}}
$ kubectl cordon node-1
"#,
    );
    check(
        Operation::Uncordon,
        &node,
        r#"{"spec":{"unschedulable":true}}"#,
        &Choices { dry_run: true, ..Choices::default() },
        r#"
KubectlRead GET /api/v1/nodes/node-1
Write PATCH /api/v1/nodes/node-1?dryRun=All
  application/strategic-merge-patch+json
  {"spec":{"unschedulable":null}}
$ kubectl uncordon node-1 --dry-run=server
"#,
    );
    check(
        Operation::Cordon,
        &node,
        r#"{"spec":{"unschedulable":true}}"#,
        &Choices::default(),
        "refused: already cordoned",
    );
    check(Operation::Uncordon, &node, "{}", &Choices::default(), "refused: already uncordoned");
}

const NIGHTLY: &str = r#"{"metadata":{"name":"nightly","namespace":"demo","uid":"5f0c-11"},
  "spec":{"schedule":"0 3 * * *","jobTemplate":{"metadata":{"labels":{"team":"b","app":"report"},
  "annotations":{"owner":"ops"}},"spec":{"backoffLimit":2,"template":{"spec":{"restartPolicy":"Never",
  "containers":[{"name":"report","image":"busybox"}]}}}}}}"#;

#[test]
fn run_now_posts_the_job_kubectl_create_job_from_makes() {
    // pkg/cmd/create/create_job.go, createJobFromCronJob: labels and annotations sorted as Go
    // writes a map, the controller owner reference without blockOwnerDeletion, "status":{}.
    let nightly = target("batch", "cronjobs", Some("demo"), "nightly");
    let choices = Choices { dry_run: true, job_name: "nightly-manual-1".into(), ..Choices::default() };
    check(
        Operation::RunNow,
        &nightly,
        NIGHTLY,
        &choices,
        r#"
KubectlRead GET /apis/batch/v1/namespaces/demo/cronjobs/nightly
Write POST /apis/batch/v1/namespaces/demo/jobs?dryRun=All&fieldManager=kubectl-create&fieldValidation=Strict
  application/json
  {"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"nightly-manual-1","namespace":"demo","labels":{"app":"report","team":"b"},"annotations":{"cronjob.kubernetes.io/instantiate":"manual","owner":"ops"},"ownerReferences":[{"apiVersion":"batch/v1","kind":"CronJob","name":"nightly","uid":"5f0c-11","controller":true}]},"spec":{"backoffLimit":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"report","image":"busybox"}]}}},"status":{}}⏎
$ kubectl create job nightly-manual-1 --from=cronjob/nightly -n demo --dry-run=server
"#,
    );
    let bad = Choices { job_name: "Nightly_1".into(), ..Choices::default() };
    check(
        Operation::RunNow,
        &nightly,
        NIGHTLY,
        &bad,
        r#"refused: the Job's name "Nightly_1" must be lower-case letters, digits and '-', starting and ending with a letter or digit (at most 63)"#,
    );
    let no_template = r#"{"metadata":{"uid":"u"},"spec":{}}"#;
    let ok = Choices { job_name: "x".into(), ..Choices::default() };
    check(Operation::RunNow, &nightly, no_template, &ok, "refused: the object read has no spec.jobTemplate");
    assert_eq!(
        Operation::RunNow.question(&nightly.object).kubectl(true),
        "kubectl auth can-i create jobs.batch -n demo"
    );
}

#[test]
fn suspend_and_resume_patch_spec_suspend_as_kubectl_patch() {
    // pkg/cmd/patch/patch.go: strategic merge by default, fieldManager=kubectl-patch; kubectl
    // patch does not read first, so the explorer's read is its own.
    let nightly = target("batch", "cronjobs", Some("demo"), "nightly");
    check(
        Operation::Suspend,
        &nightly,
        NIGHTLY,
        &Choices { dry_run: true, ..Choices::default() },
        r#"
ExplorerRead GET /apis/batch/v1/namespaces/demo/cronjobs/nightly
Write PATCH /apis/batch/v1/namespaces/demo/cronjobs/nightly?dryRun=All&fieldManager=kubectl-patch
  application/strategic-merge-patch+json
  {"spec":{"suspend":true}}
$ kubectl patch cronjob/nightly -p '{"spec":{"suspend":true}}' -n demo --dry-run=server
"#,
    );
    let suspended = r#"{"spec":{"suspend":true}}"#;
    let plan = plan(Operation::Unsuspend, &nightly, &json(suspended), &Choices::default(), NOW).unwrap();
    assert_eq!(preview(plan.write()).body_text.as_deref(), Some(r#"{"spec":{"suspend":false}}"#));
    check(Operation::Suspend, &nightly, suspended, &Choices::default(), "refused: spec.suspend is true already");
    check(Operation::Unsuspend, &nightly, "{}", &Choices::default(), "refused: the CronJob is not suspended");
}

#[test]
fn each_kind_offers_its_operations_and_only_the_rollout_commands_lack_dry_run() {
    assert_eq!(
        Workload::Deployment.operations(),
        &[Operation::Restart, Operation::Pause, Operation::Resume, Operation::Undo]
    );
    assert!(Operation::Undo.offers_dry_run());
    assert_eq!(Workload::DaemonSet.operations(), &[Operation::Restart, Operation::Undo]);
    assert!(!Operation::Restart.offers_dry_run() && Operation::Cordon.offers_dry_run());
    let other = resource_type("apps", "v1", "replicasets", Scope::Namespaced);
    assert_eq!(Workload::of(&other), None);
}

#[test]
fn the_default_job_name_is_a_label_a_minute_apart() {
    assert_eq!(default_job_name("nightly", NOW), "nightly-manual-29930670");
    let long = "a".repeat(60);
    let name = default_job_name(&long, NOW);
    assert_eq!(name.len(), 52);
    assert!(check_label_ok(&name));
}

fn check_label_ok(name: &str) -> bool {
    let nightly = target("batch", "cronjobs", Some("demo"), "nightly");
    let choices = Choices { job_name: name.into(), ..Choices::default() };
    plan(Operation::RunNow, &nightly, &json(NIGHTLY), &choices, NOW).is_ok()
}
