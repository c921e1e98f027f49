//! `kubectl drain` as transcripts: kubectl's filters on each kind of pod, the pods list in pages,
//! the Eviction, and one pod's eviction through each path (evicted and followed until gone, a
//! 404, a PodDisruptionBudget's 429 retried every 5 s, a timeout, another failure).

use super::drain::*;
use super::tests::json;
use crate::write::preview;
use kube_wire::codec::value::Value;

fn pod(extra: &str) -> Value {
    json(&format!(
        r#"{{"metadata":{{"name":"p","namespace":"ns","uid":"u-1"{extra}}},"spec":{{}},"status":{{"phase":"Running"}}}}"#
    ))
}

const BY_RS: &str =
    r#","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"r","controller":true}]"#;
const BY_DS: &str =
    r#","ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent","uid":"d","controller":true}]"#;

#[test]
fn kubectls_filters_decide_each_pod_in_their_order() {
    let none = DrainOptions::default();
    let all = DrainOptions { ignore_daemonsets: true, delete_emptydir_data: true, force: true, ..none };
    assert_eq!(decide(&pod(BY_RS), &none), Decision::Evict(None));
    assert_eq!(decide(&pod(BY_DS), &none), Decision::Refuse(Refusal::DaemonSet));
    assert_eq!(decide(&pod(BY_DS), &all), Decision::Skip(Skip::DaemonSet));
    let mirror = format!(r#"{BY_RS},"annotations":{{"kubernetes.io/config.mirror":"x"}}"#);
    assert_eq!(decide(&pod(&mirror), &none), Decision::Skip(Skip::Mirror));
    assert_eq!(decide(&pod(""), &none), Decision::Refuse(Refusal::Unmanaged));
    assert_eq!(decide(&pod(""), &all), Decision::Evict(Some(Refusal::Unmanaged)));
    let with_empty_dir = |owner: &str, phase: &str| {
        json(&format!(
            r#"{{"metadata":{{"name":"p","namespace":"ns","uid":"u"{owner}}},"spec":{{"volumes":[{{"name":"tmp","emptyDir":{{}}}}]}},"status":{{"phase":"{phase}"}}}}"#
        ))
    };
    assert_eq!(decide(&with_empty_dir(BY_RS, "Running"), &none), Decision::Refuse(Refusal::LocalStorage));
    assert_eq!(decide(&with_empty_dir(BY_RS, "Running"), &all), Decision::Evict(Some(Refusal::LocalStorage)));
    // A finished pod goes whatever it has (a DaemonSet's, local storage, no controller).
    assert_eq!(decide(&with_empty_dir("", "Succeeded"), &none), Decision::Evict(None));
    assert_eq!(Refusal::LocalStorage.to_string(), "Pods with local storage (use --delete-emptydir-data to override)");
}

#[test]
fn the_pods_are_listed_by_node_in_pages_and_refusals_gathered() {
    let first = preview(&pods_page("node-1", None));
    assert_eq!(first.url, "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500");
    let next = preview(&pods_page("node-1", Some("abc")));
    assert_eq!(next.url, "/api/v1/pods?continue=abc&fieldSelector=spec.nodeName%3Dnode-1&limit=500");
    let page = json(&format!(
        r#"{{"metadata":{{"continue":"abc"}},"items":[{},{}]}}"#,
        pod(BY_RS).to_json(),
        pod("").to_json().replace("u-1", "u-2").replace(r#""name":"p""#, r#""name":"bare""#)
    ));
    let (pods, token) = read_page(&page, &DrainOptions::default()).unwrap();
    assert_eq!(token.as_deref(), Some("abc"));
    assert_eq!(pods.len(), 2);
    let refused = refusals(&pods);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].0, Refusal::Unmanaged);
    assert_eq!(refused[0].1[0].name, "bare");
    let last = json(r#"{"metadata":{"continue":""},"items":[]}"#);
    assert_eq!(read_page(&last, &DrainOptions::default()).unwrap(), (vec![], None));
    assert!(read_page(&json("{}"), &DrainOptions::default()).is_err());
}

fn node_pod() -> NodePod {
    NodePod { namespace: "ns".into(), name: "p".into(), uid: "u-1".into(), decision: Decision::Evict(None) }
}

fn shown(next: &Next) -> String {
    match next {
        Next::Send(request) => {
            let p = preview(request);
            format!("{} {} {}", p.method, p.url, p.body_text.unwrap_or_default().trim_end())
        }
        Next::SendAt(request, at) => format!("at {at}: {} {}", preview(request).method, preview(request).url),
        Next::Finished => "finished".into(),
    }
}

#[test]
fn an_evicted_pod_is_followed_until_it_is_gone() {
    let (mut eviction, first) = PodEviction::start(node_pod(), DrainOptions::default(), 0).unwrap();
    assert_eq!(
        shown(&first),
        r#"POST /api/v1/namespaces/ns/pods/p/eviction {"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"p","namespace":"ns","creationTimestamp":null},"deleteOptions":{}}"#
    );
    assert_eq!(shown(&eviction.evicted(201, None, 10).unwrap()), "GET /api/v1/namespaces/ns/pods/p ");
    let still = pod(BY_RS);
    assert_eq!(shown(&eviction.read(200, Some(&still), 20).unwrap()), "at 1020: GET /api/v1/namespaces/ns/pods/p");
    assert_eq!(eviction.phase, Phase::Following);
    // The same name, another uid: the ReplicaSet's new pod; this one is gone.
    let other = pod(BY_RS).to_json().replace("u-1", "u-9");
    assert_eq!(eviction.read(200, Some(&json(&other)), 1030).unwrap(), Next::Finished);
    assert_eq!(eviction.phase, Phase::Done);
    let (mut gone, _) = PodEviction::start(node_pod(), DrainOptions::default(), 0).unwrap();
    gone.evicted(201, None, 10).unwrap();
    assert_eq!(gone.read(404, None, 20).unwrap(), Next::Finished);
    assert_eq!(gone.phase, Phase::Done);
}

#[test]
fn a_404_is_done_and_a_dry_run_is_not_followed() {
    let (mut eviction, _) = PodEviction::start(node_pod(), DrainOptions::default(), 0).unwrap();
    assert_eq!(eviction.evicted(404, None, 5).unwrap(), Next::Finished);
    assert_eq!(eviction.phase, Phase::Done);
    let dry = DrainOptions { dry_run: true, ..DrainOptions::default() };
    let (mut eviction, first) = PodEviction::start(node_pod(), dry, 0).unwrap();
    assert!(shown(&first).ends_with(r#""deleteOptions":{"dryRun":["All"]}}"#), "{}", shown(&first));
    assert_eq!(eviction.evicted(201, None, 5).unwrap(), Next::Finished);
    assert_eq!(eviction.phase, Phase::Done);
}

const BLOCKED: &str = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":429,"reason":"TooManyRequests",
  "message":"Cannot evict pod as it would violate the pod's disruption budget.",
  "details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]}}"#;

#[test]
fn a_disruption_budgets_429_is_retried_every_5_s_with_the_budget_named() {
    let (mut eviction, _) = PodEviction::start(node_pod(), DrainOptions::default(), 0).unwrap();
    let next = eviction.evicted(429, Some(&json(BLOCKED)), 100).unwrap();
    assert_eq!(shown(&next), "at 5100: POST /api/v1/namespaces/ns/pods/p/eviction");
    assert_eq!(eviction.phase, Phase::Blocked { attempt: 1, budget: Some("web-pdb".into()), retry_at_ms: 5100 });
    eviction.retrying();
    assert_eq!(eviction.phase, Phase::Evicting { attempt: 2 });
    assert_eq!(shown(&eviction.evicted(201, None, 5110).unwrap()), "GET /api/v1/namespaces/ns/pods/p ");
}

#[test]
fn the_timeout_ends_the_retries_and_another_failure_ends_the_pod() {
    let options = DrainOptions { timeout_ms: Some(8_000), ..DrainOptions::default() };
    let (mut eviction, _) = PodEviction::start(node_pod(), options, 0).unwrap();
    assert!(matches!(eviction.evicted(429, Some(&json(BLOCKED)), 100).unwrap(), Next::SendAt(_, 5100)));
    eviction.retrying();
    assert_eq!(eviction.evicted(429, Some(&json(BLOCKED)), 5200).unwrap(), Next::Finished);
    assert_eq!(eviction.phase, Phase::TimedOut);
    let (mut eviction, _) = PodEviction::start(node_pod(), DrainOptions::default(), 0).unwrap();
    let forbidden = json(r#"{"kind":"Status","code":403,"message":"pods \"p\" is forbidden"}"#);
    assert_eq!(eviction.evicted(403, Some(&forbidden), 5).unwrap(), Next::Finished);
    assert_eq!(eviction.phase, Phase::Failed { status: 403, message: "pods \"p\" is forbidden".into() });
}

/// The body the real kubectl 1.32.4 logged for `kubectl drain node-2 --ignore-daemonsets
/// --delete-emptydir-data --force --dry-run=server -v=8` against kube-sim (13:14), byte for byte.
#[test]
fn the_eviction_is_the_bytes_the_real_kubectl_sent() {
    let pod = NodePod {
        namespace: "shop".into(),
        name: "cart-tpjlj9762d-tdl45".into(),
        uid: "u".into(),
        decision: Decision::Evict(None),
    };
    let request = eviction(&pod, true).unwrap();
    assert_eq!(request.path_and_query(), "/api/v1/namespaces/shop/pods/cart-tpjlj9762d-tdl45/eviction");
    assert_eq!(request.header_value("Content-Type"), Some("application/json"));
    assert_eq!(
        String::from_utf8_lossy(request.body().unwrap()),
        "{\"kind\":\"Eviction\",\"apiVersion\":\"policy/v1\",\"metadata\":{\"name\":\"cart-tpjlj9762d-tdl45\",\"namespace\":\"shop\",\"creationTimestamp\":null},\"deleteOptions\":{\"dryRun\":[\"All\"]}}\n"
    );
}

#[test]
fn the_command_names_the_flags_chosen_and_the_tally_says_when_it_is_over() {
    let mut options = DrainOptions::default();
    assert_eq!(command("node-2", &options), "kubectl drain node-2");
    options.ignore_daemonsets = true;
    options.force = true;
    options.dry_run = true;
    options.timeout_ms = Some(12_500);
    assert_eq!(
        command("node-2", &options),
        "kubectl drain node-2 --ignore-daemonsets --force --dry-run=server --timeout=13s"
    );
    options.delete_emptydir_data = true;
    options.dry_run = false;
    options.timeout_ms = None;
    assert_eq!(command("n", &options), "kubectl drain n --ignore-daemonsets --delete-emptydir-data --force");

    let pod = |name: &str, decision| NodePod {
        namespace: "demo".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        decision,
    };
    let pods = [
        pod("a", Decision::Evict(None)),
        pod("b", Decision::Skip(Skip::DaemonSet)),
        pod("c", Decision::Evict(Some(Refusal::Unmanaged))),
    ];
    let names: Vec<&str> = evicted(&pods).iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
    let (mut a, _) = PodEviction::start(pods[0].clone(), DrainOptions::default(), 0).unwrap();
    let (mut c, _) = PodEviction::start(pods[2].clone(), DrainOptions::default(), 0).unwrap();
    let tally = Tally::of(&[a.clone(), c.clone()]);
    assert_eq!((tally.evicting, tally.finished(), tally.succeeded()), (2, false, false));
    a.evicted(404, None, 10).unwrap();
    c.evicted(429, None, 10).unwrap();
    let tally = Tally::of(&[a.clone(), c.clone()]);
    assert_eq!((tally.done, tally.blocked, tally.finished()), (1, 1, false));
    c.evicted(500, None, 20).unwrap();
    assert_eq!(
        c.phase,
        Phase::Blocked { attempt: 1, budget: None, retry_at_ms: 5_010 },
        "an answer to another phase is ignored"
    );
    c.retrying();
    c.evicted(500, None, 5_020).unwrap();
    let tally = Tally::of(&[a, c]);
    assert_eq!((tally.done, tally.failed, tally.finished(), tally.succeeded()), (1, 1, true, false));
}
