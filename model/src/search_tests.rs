use std::collections::BTreeMap;

use super::*;
use kube_wire::discovery::{ApiGroupDiscoveryList, Scope};
use kube_wire::testdata::{discovery_of, resource_type, shared_file};
use kube_wire::view::list::{List, ListMeta};

fn listable(group: &str, version: &str, plural: &str, scope: Scope) -> ResourceType {
    ResourceType { verbs: vec!["get".into(), "list".into()], ..resource_type(group, version, plural, scope) }
}

fn discovery() -> Discovery {
    discovery_of(vec![
        listable("", "v1", "pods", Scope::Namespaced),
        listable("", "v1", "nodes", Scope::Cluster),
        listable("", "v1", "secrets", Scope::Namespaced),
        // Served but not listable (a review), and an older version of a group.
        resource_type("authorization.k8s.io", "v1", "selfsubjectaccessreviews", Scope::Cluster),
        listable("apps", "v1", "deployments", Scope::Namespaced),
        listable("apps", "v1beta1", "deployments", Scope::Namespaced),
        listable("apps", "v1beta1", "oldsets", Scope::Namespaced),
    ])
}

fn head(namespace: Option<&str>, name: &str, labels: &[(&str, &str)]) -> ObjectHead {
    ObjectHead {
        namespace: namespace.map(str::to_owned),
        name: name.to_owned(),
        labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>(),
        owners: Vec::new(),
    }
}

fn page(items: Vec<ObjectHead>, token: Option<&str>) -> ObjectHeadList {
    List {
        metadata: ListMeta { continue_token: token.and_then(ContinueToken::new), ..ListMeta::default() },
        items,
        ..List::default()
    }
}

fn query(name: &str, labels: &str, namespace: Option<&str>) -> SearchQuery {
    SearchQuery::parse(name, labels, namespace).expect("valid search")
}

fn allow_all(_: &Question) -> Decision {
    Decision::Allowed
}

fn param<'r>(request: &'r Request, key: &str) -> Option<&'r str> {
    request.query().iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn a_search_needs_part_of_a_name_or_a_label_selector() {
    assert_eq!(SearchQuery::parse("  ", "", None), Err(QueryError::Nothing));
    let q = query(" Web ", "", Some("demo"));
    assert_eq!((q.name.as_str(), q.namespace.as_deref()), ("Web", Some("demo")));
    assert_eq!(query("", "app=web", Some("")).namespace, None, "an empty namespace is the whole cluster");
    assert_eq!(q.describe().to_string(), "names containing \"Web\", in demo");
    assert_eq!(
        query("web", "app=web", None).describe().to_string(),
        "names containing \"web\", labels app=web, in the whole cluster"
    );
}

#[test]
fn a_bad_label_selector_says_what_was_expected_and_where() {
    let error = SearchQuery::parse("", "=web", None).expect_err("no key");
    let QueryError::Labels { text, .. } = &error else { panic!("{error:?}") };
    assert_eq!(text, "=web");
    let words = error.to_string();
    assert!(words.starts_with("Label selector \"=web\": "), "{words}");
    assert!(words.contains("at character"), "{words}");
    assert!(words.contains("Expected requirements separated by commas"), "{words}");
    let error = SearchQuery::parse("web", "tier in (front", None).expect_err("unclosed");
    assert!(error.to_string().contains("expected"), "{error}");
}

#[test]
fn the_search_is_read_from_the_view_only_on_the_search_screen() {
    assert_eq!(SearchQuery::from_view(&ViewState::from_search("?namespace=demo")), None);
    let state = ViewState::from_search("?search=web&searchLabels=app%3Dweb&namespace=demo");
    let q = SearchQuery::from_view(&state).expect("search screen").expect("valid");
    assert_eq!((q.name.as_str(), q.label_text.as_str(), q.namespace.as_deref()), ("web", "app=web", Some("demo")));
    let bad = ViewState::from_search("?search=&searchLabels=%3Dx");
    assert!(matches!(SearchQuery::from_view(&bad), Some(Err(QueryError::Labels { .. }))));
}

#[test]
fn names_match_by_substring_without_regard_to_case_and_labels_by_the_selector() {
    let q = query("WEB", "app in (web,api),!canary", None);
    assert!(q.matches(&head(Some("demo"), "my-web-1", &[("app", "web")])));
    assert!(!q.matches(&head(Some("demo"), "my-web-1", &[("app", "web"), ("canary", "")])));
    assert!(!q.matches(&head(Some("demo"), "my-we-b", &[("app", "web")])));
    assert!(!q.matches(&head(Some("demo"), "web", &[("app", "db")])));
    assert!(query("", "app", None).matches(&head(None, "anything", &[("app", "x")])));
    assert_eq!(
        q.shown_labels(&head(None, "web", &[("app", "web"), ("tier", "front")])),
        [("app".into(), "web".into())]
    );
}

#[test]
fn the_plan_lists_each_listable_type_once_preferred_version_first_and_in_a_namespace_only_namespaced_ones() {
    let names = |plan: &SearchPlan| {
        plan.targets.iter().map(|t| format!("{}/{}", t.api_version(), t.plural)).collect::<Vec<_>>()
    };
    let cluster = plan(&discovery(), None, allow_all);
    assert_eq!(names(&cluster), ["v1/pods", "v1/nodes", "v1/secrets", "apps/v1/deployments", "apps/v1beta1/oldsets"]);
    let demo = plan(&discovery(), Some("demo"), allow_all);
    assert_eq!(names(&demo), ["v1/pods", "v1/secrets", "apps/v1/deployments", "apps/v1beta1/oldsets"]);
    assert!(demo.skipped.is_empty());
}

#[test]
fn types_the_rules_refuse_are_skipped_before_anything_is_sent_and_the_unknown_ones_are_listed() {
    let decide = |q: &Question| match q.resource.as_str() {
        "secrets" => Decision::Denied,
        "pods" => Decision::Pending,
        _ => Decision::Unknown,
    };
    let demo = plan(&discovery(), Some("demo"), decide);
    assert_eq!(demo.targets.iter().map(|t| t.plural.as_str()).collect::<Vec<_>>(), ["pods", "deployments", "oldsets"]);
    let [skipped] = demo.skipped.as_slice() else { panic!("{:?}", demo.skipped) };
    assert_eq!(skipped.when, SkipWhen::Known);
    assert_eq!(skipped.reason.to_string(), "you may not list secrets in demo");
    assert_eq!(skipped.command, "kubectl auth can-i list secrets -n demo");
    let cluster = plan(
        &discovery(),
        None,
        |q: &Question| {
            if q.resource == "nodes" {
                Decision::Denied
            } else {
                Decision::Allowed
            }
        },
    );
    assert_eq!(cluster.skipped[0].reason.to_string(), "you may not list nodes (cluster-scoped)");
    assert_eq!(cluster.skipped[0].command, "kubectl auth can-i list nodes");
}

#[test]
fn the_plan_of_a_real_servers_discovery_skips_subresources_and_unlistable_types() {
    let documents: ApiGroupDiscoveryList =
        serde_json::from_slice(&shared_file("kube/discovery/aggregated_v2.json")).expect("aggregated discovery");
    let discovery = Discovery::from_aggregated(&[documents]);
    let cluster = plan(&discovery, None, allow_all);
    assert!(!cluster.targets.is_empty());
    assert!(cluster.targets.iter().all(|t| t.supports("list") && !t.plural.contains('/')));
    assert!(!cluster.targets.iter().any(|t| t.plural.starts_with("self")), "reviews are not listable");
    let demo = plan(&discovery, Some("demo"), allow_all);
    assert!(demo.targets.iter().all(|t| t.scope == Scope::Namespaced));
    assert!(demo.targets.len() < cluster.targets.len());
}

#[test]
fn each_type_is_listed_as_metadata_only_pages_with_the_label_selector_sent_and_the_continue_token_followed() {
    let mut run = SearchRun::new(query("web", "app=web", Some("demo")), plan(&discovery(), Some("demo"), allow_all));
    let job = run.next_job().expect("pods first");
    assert_eq!(job.index, 0);
    assert_eq!(job.request.path(), "/api/v1/namespaces/demo/pods");
    assert_eq!(param(&job.request, "labelSelector"), Some("app=web"));
    assert_eq!(param(&job.request, "limit"), Some("500"));
    assert_eq!(param(&job.request, "continue"), None);
    let accept = job.request.header_value("accept").expect("accept");
    assert!(accept.starts_with("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"), "{accept}");

    let next = run
        .apply_page(0, page(vec![head(Some("demo"), "web-1", &[("app", "web")])], Some("tok")))
        .expect("a next page");
    assert_eq!(param(&next, "continue"), Some("tok"));
    assert_eq!(param(&next, "labelSelector"), Some("app=web"), "the same list, page after page");
    assert_eq!(run.apply_page(0, page(vec![head(Some("demo"), "web-2", &[("app", "web")])], None)), None);
    assert_eq!(run.types[0].state, TypeState::Done);
    assert_eq!((run.types[0].matched, run.types[0].listed, run.types[0].pages), (2, 2, 2));
    assert_eq!(run.next_job().map(|j| j.request.path().to_owned()), Some("/api/v1/namespaces/demo/secrets".to_owned()));
    assert_eq!(
        run.next_job().map(|j| j.request.path().to_owned()),
        Some("/apis/apps/v1/namespaces/demo/deployments".to_owned())
    );
    assert_eq!(
        run.next_job().map(|j| j.request.path().to_owned()),
        Some("/apis/apps/v1beta1/namespaces/demo/oldsets".to_owned())
    );
    assert_eq!(run.next_job(), None);
    assert!(run.is_running());
}

#[test]
fn names_are_matched_here_and_objects_the_server_should_not_have_sent_are_counted_apart() {
    let mut run = SearchRun::new(query("web", "app=web", None), plan(&discovery(), None, allow_all));
    run.next_job();
    run.apply_page(
        0,
        page(
            vec![
                head(Some("demo"), "web-1", &[("app", "web")]),
                head(Some("demo"), "api-1", &[("app", "web")]),
                // A server that ignored labelSelector for this type.
                head(Some("demo"), "web-2", &[("app", "db")]),
            ],
            None,
        ),
    );
    let pods = &run.types[0];
    assert_eq!((pods.matched, pods.listed, pods.unselected), (1, 3, 1));
    assert_eq!(pods.hits, [head(Some("demo"), "web-1", &[("app", "web")])]);
}

#[test]
fn a_huge_type_keeps_only_the_matches_it_shows_and_counts_the_rest() {
    let mut run = SearchRun::new(query("load", "", None), plan(&discovery(), None, allow_all));
    run.next_job();
    for p in 0..3 {
        let items = (0..PAGE_SIZE as usize).map(|i| head(Some("load-1"), &format!("load-{p}-{i}"), &[])).collect();
        let token = (p < 2).then_some("more");
        run.apply_page(0, page(items, token));
    }
    let pods = &run.types[0];
    assert_eq!(pods.matched, 3 * PAGE_SIZE as usize);
    assert_eq!(pods.hits.len(), SHOWN_PER_TYPE);
    assert_eq!(pods.more(), 3 * PAGE_SIZE as usize - SHOWN_PER_TYPE);
    assert_eq!(pods.hits[0].name, "load-0-0");
}

#[test]
fn a_403_skips_the_type_with_the_servers_reason_and_other_failures_keep_what_was_found() {
    let mut run = SearchRun::new(query("web", "", None), plan(&discovery(), None, allow_all));
    for _ in 0..3 {
        run.next_job();
    }
    run.apply_page(0, page(vec![head(Some("demo"), "web-1", &[])], Some("tok")));
    run.fail(0, TypeFailure::Failed("410 Gone: the continue token has expired".into()));
    run.fail(1, TypeFailure::Forbidden("nodes is forbidden: User \"dev\" cannot list resource \"nodes\"".into()));
    run.apply_page(2, page(vec![], None));
    assert_eq!(run.types[0].state, TypeState::Failed("410 Gone: the continue token has expired".into()));
    assert_eq!(run.types[0].hits.len(), 1, "the first page's match is kept");
    assert_eq!(run.types[1].state, TypeState::Forbidden);
    let [skipped] = run.skipped.as_slice() else { panic!("{:?}", run.skipped) };
    assert_eq!(skipped.when, SkipWhen::Answered);
    assert!(skipped.reason.to_string().starts_with("nodes is forbidden"));
    assert_eq!(skipped.command, "kubectl auth can-i list nodes");
    let progress = run.progress();
    assert_eq!((progress.total, progress.finished, progress.listing, progress.failed), (5, 3, 0, 1));
    assert_eq!((progress.skipped, progress.matched, progress.types_with_matches), (1, 1, 1));
    // Groups: the type with a match (which failed later); the secrets without one are listed apart.
    assert_eq!(run.groups().map(|(i, _)| i).collect::<Vec<_>>(), [0]);
    assert_eq!(run.without_matches().map(|t| t.resource.plural.as_str()).collect::<Vec<_>>(), ["secrets"]);
}

#[test]
fn stopping_keeps_what_was_found_starts_nothing_more_and_ignores_late_pages() {
    let mut run = SearchRun::new(query("web", "", None), plan(&discovery(), None, allow_all));
    run.next_job();
    run.next_job();
    run.apply_page(0, page(vec![head(Some("demo"), "web-1", &[])], Some("tok")));
    run.stop();
    assert!(!run.is_running());
    assert_eq!(run.next_job(), None);
    assert_eq!(run.apply_page(1, page(vec![head(None, "web-node", &[])], None)), None);
    run.fail(0, TypeFailure::Failed("aborted".into()));
    assert_eq!(run.types[0].state, TypeState::Stopped);
    assert_eq!(run.types[1].matched, 0, "a page after the stop changes nothing");
    let progress = run.progress();
    assert_eq!((progress.finished, progress.stopped, progress.matched), (0, 5, 1));
    assert_eq!(run.groups().map(|(i, _)| i).collect::<Vec<_>>(), [0], "a stopped type with matches shows");
}

#[test]
fn every_change_to_a_type_bumps_its_revision_so_that_only_it_is_redrawn() {
    let mut run = SearchRun::new(query("web", "", None), plan(&discovery(), None, allow_all));
    let before: Vec<u64> = run.types.iter().map(|t| t.revision).collect();
    run.next_job();
    run.apply_page(0, page(vec![], Some("t")));
    let after: Vec<u64> = run.types.iter().map(|t| t.revision).collect();
    assert!(after[0] > before[0]);
    assert_eq!(after[1..], before[1..]);
}

#[test]
fn a_namespace_no_request_path_may_carry_fails_each_type_unsent() {
    let mut run = SearchRun::new(query("web", "", Some("a/b")), plan(&discovery(), Some("a/b"), allow_all));
    assert_eq!(run.next_job(), None);
    assert!(run.types.iter().all(
        |t| matches!(&t.state, TypeState::Failed(why) if why.to_string().starts_with("Not sent: expected a name without '/'"))
    ));
    assert_eq!(run.progress().failed, 4);
}

#[test]
fn a_page_is_read_by_its_content_type_and_bad_bodies_say_what_was_expected() {
    let json: MediaType =
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1".parse().expect("media type");
    let list = read_page(
        Some(&json),
        br#"{"metadata":{"continue":"c"},"items":[{"metadata":{"name":"web","namespace":"demo"}}]}"#,
    )
    .expect("json");
    assert_eq!(list.items, [head(Some("demo"), "web", &[])]);
    assert_eq!(list.metadata.continue_token.as_ref().map(ContinueToken::as_str), Some("c"));
    let yaml: MediaType = "application/yaml".parse().expect("media type");
    let list = read_page(Some(&yaml), b"kind: PodList\nitems:\n- metadata:\n    name: web\n    labels: {app: web}\n")
        .expect("yaml");
    assert_eq!(list.items, [head(None, "web", &[("app", "web")])]);
    let error = read_page(Some(&json), b"{\"items\":[{\"metadata\":{\"name\":7}}]}").expect_err("a number for a name");
    assert!(error.to_string().starts_with("expected a list of objects: "), "{error}");
    assert!(read_page(None, b"{}").expect_err("no type").to_string().contains("without a Content-Type"));
    let text: MediaType = "text/html".parse().expect("media type");
    assert!(read_page(Some(&text), b"<html>").is_err());
}

#[test]
fn a_search_for_what_an_object_owns_needs_no_name_and_matches_by_owner_uid() {
    let owned = SearchQuery::parse_owned("", "", "u-web", Some("demo")).expect("an owner is enough");
    let mut child = head(Some("demo"), "web-token", &[]);
    child.owners = vec!["u-other".into(), "u-web".into()];
    assert!(owned.matches(&child));
    assert!(!owned.matches(&head(Some("demo"), "web-token", &[])), "not owned");
    let named = SearchQuery::parse_owned("token", "", "u-web", Some("demo")).expect("both");
    assert!(named.matches(&child));
    assert!(!named.matches(&head(Some("demo"), "token", &[])));
    assert_eq!(SearchQuery::parse_owned(" ", "", " ", None), Err(QueryError::Nothing));
    let state = ViewState::from_query([("search", ""), ("searchOwner", "u-web"), ("namespace", "demo")]);
    assert_eq!(state.search_owner, "u-web");
    assert!(state.to_query().contains(&("searchOwner", "u-web".to_owned())), "{:?}", state.to_query());
    assert_eq!(SearchQuery::from_view(&state).expect("a search").expect("valid").owner, "u-web");
}

#[test]
fn a_page_counts_only_what_the_owner_owns() {
    let mut run = SearchRun::new(
        SearchQuery::parse_owned("", "", "u-web", Some("demo")).expect("an owner"),
        plan(&discovery(), Some("demo"), allow_all),
    );
    let job = run.next_job().expect("a type to list");
    let mut owned = head(Some("demo"), "web-token", &[]);
    owned.owners = vec!["u-web".into()];
    assert_eq!(run.apply_page(job.index, page(vec![owned, head(Some("demo"), "web-tls", &[])], None)), None);
    let (_, found) = run.groups().next().expect("a group with a match");
    assert_eq!(found.hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["web-token"]);
}
