use super::*;
use crate::codec::value::Value;
use crate::discovery::Scope;
use crate::media_type::{Accept, MediaType, PatchType};
use crate::params::{
    ApplyParams, DeleteParams, GetParams, IncludeObject, ListParams, LogOptions, WatchParams, WriteParams,
};
use crate::request::{ApplyEncoding, Body, Collection, Method, ObjectRef, Request};

#[test]
fn path_and_query_percent_encodes_selectors() {
    let request =
        RequestBuilder::get("/api/v1/pods").param("labelSelector", "app in (web,db)").param("limit", "500").build();
    assert_eq!(request.path_and_query(), "/api/v1/pods?labelSelector=app+in+%28web%2Cdb%29&limit=500");
}

#[test]
fn a_request_without_query_is_its_path() {
    assert_eq!(RequestBuilder::get("/version").build().path_and_query(), "/version");
}

#[test]
fn header_lookup_ignores_case_and_only_get_is_not_a_write() {
    let request = RequestBuilder::get("/api").header("Accept", "application/json").build();
    assert_eq!(request.header_value("accept"), Some("application/json"));
    assert!(!Method::Get.is_write());
    assert!(Method::Patch.is_write());
    assert_eq!(Method::Delete.to_string(), "DELETE");
}

fn flips(namespace: Option<&str>) -> Collection {
    Collection::new(&crate::testdata::resource_type("flops", "v1alpha1", "flips", Scope::Namespaced), namespace)
        .expect("valid")
}

/// The request line and body of a client-go golden request file.
fn golden(name: &str) -> (String, String, String) {
    let text = String::from_utf8(crate::testdata::shared_file(&format!(
        "kube/recordings/client-go/dynamic-testdata/TestGoldenRequest/{name}"
    )))
    .expect("utf-8");
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let line = head.lines().next().unwrap_or_default().trim_end_matches(" HTTP/1.1").to_string();
    let content_type = head.lines().find_map(|l| l.strip_prefix("Content-Type: ")).unwrap_or_default().to_string();
    (line, content_type, body.trim_end().to_string())
}

#[track_caller]
fn check(request: &Request, golden_name: &str) {
    let (line, content_type, body) = golden(golden_name);
    assert_eq!(format!("{} {}", request.method, request.path_and_query()), line, "{golden_name}");
    assert_eq!(request.header_value("Content-Type").unwrap_or_default(), content_type, "{golden_name}");
    let sent = request.body.as_deref().map(|b| String::from_utf8_lossy(b).to_string()).unwrap_or_default();
    assert_eq!(sent, body, "{golden_name}");
}

fn mips() -> ObjectRef {
    flips(Some("mops")).object("mips").expect("valid")
}

fn json(text: &str) -> Value {
    crate::codec::json::decode_json(text.as_bytes()).expect("json")
}

#[test]
fn requests_match_what_client_go_writes() {
    use crate::params::{DryRun, ListOptions, WatchOptions};
    use crate::view::list::ResourceVersion;
    let accept = Accept::only(MediaType::json());
    let at_42 = Some(ResourceVersion::new("42"));
    let fin = mips().subresource("fin").expect("valid");
    check(&RequestBuilder::get_object(&fin, &GetParams { resource_version: at_42.clone() }, &accept).build(), "get");
    let list =
        ListParams::new(ListOptions { resource_version: at_42.clone(), ..ListOptions::default() }).expect("valid");
    check(&RequestBuilder::list(&flips(Some("mops")), &list, &accept).build(), "list");
    let watch = WatchParams::new(WatchOptions { resource_version: at_42, ..WatchOptions::default() }).expect("valid");
    let mut request = RequestBuilder::watch(&flips(Some("mops")), &watch, &accept).build();
    request.query.reverse();
    check(&request, "watch");
    let delete = DeleteParams { dry_run: true, ..DeleteParams::default() };
    let (line, _, _) = golden("delete");
    let request = RequestBuilder::delete(&mips().subresource("fin").expect("valid"), &delete).build();
    assert_eq!(format!("{} {}", request.method, request.path_and_query()), line);
    assert_eq!(request.body.as_deref(), Some(&br#"{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}"#[..]));
    let apply = RequestBuilder::apply(
        &mips().subresource("fin").expect("valid"),
        &json(r#"{"metadata":{"name":"mips"}}"#),
        ApplyEncoding::Yaml,
        &ApplyParams::new("m").force(),
    )
    .build();
    assert_eq!(apply.header_value("Content-Type"), Some("application/apply-patch+yaml"));
    assert_eq!(apply.body.as_deref(), Some(&br#"{"metadata":{"name":"mips"}}"#[..]));
    assert!(apply.path_and_query().ends_with("/mips/fin?fieldManager=m&force=true"));
    let write = WriteParams { dry_run: Some(DryRun::All), ..WriteParams::default() };
    let create = RequestBuilder::create(&flips(Some("mops")), Body::json(&json(r#"{"kind":"Flip"}"#)), &write).build();
    assert_eq!(create.path_and_query(), "/apis/flops/v1alpha1/namespaces/mops/flips?dryRun=All");
    assert_eq!(create.method, Method::Post);
}

#[test]
fn each_patch_type_sends_its_content_type() {
    let body = json(r#"{"spec":{"replicas":2}}"#);
    for patch in [PatchType::Json, PatchType::Merge, PatchType::StrategicMerge] {
        let request = RequestBuilder::patch(&mips(), patch, &body, &WriteParams::default()).expect("patch").build();
        assert_eq!(request.header_value("Content-Type"), Some(patch.media_type().to_string().as_str()));
        assert_eq!(request.method, Method::Patch);
    }
    assert_eq!(
        RequestBuilder::patch(&mips(), PatchType::Apply, &body, &WriteParams::default()),
        Err(RequestError::ApplyThroughPatch)
    );
    let cbor = RequestBuilder::apply(&mips(), &body, ApplyEncoding::Cbor, &ApplyParams::new("explorer")).build();
    assert_eq!(cbor.header_value("Content-Type"), Some("application/apply-patch+cbor"));
    let decoded = crate::codec::cbor::decode_cbor(cbor.body.as_deref().unwrap_or_default()).expect("cbor");
    assert_eq!(decoded, body);
}

#[test]
fn updates_deletecollection_and_bodies_in_every_format() {
    let object = json(r#"{"kind":"Flip","data":1}"#);
    let update = RequestBuilder::update(
        &mips().subresource("status").expect("valid"),
        Body::yaml(&object).expect("yaml"),
        &WriteParams::default(),
    )
    .build();
    assert_eq!((update.method, update.header_value("Content-Type")), (Method::Put, Some("application/yaml")));
    assert_eq!(update.path, "/apis/flops/v1alpha1/namespaces/mops/flips/mips/status");
    let cbor = Body::cbor(&object);
    assert_eq!(crate::codec::cbor::decode_cbor(&cbor.bytes), Ok(object));
    let list =
        ListParams::new(crate::params::ListOptions { label_selector: Some("app=x".into()), ..Default::default() })
            .expect("valid");
    let request = RequestBuilder::delete_collection(&flips(Some("mops")), &list, &DeleteParams::background()).build();
    assert_eq!(request.path_and_query(), "/apis/flops/v1alpha1/namespaces/mops/flips?labelSelector=app%3Dx");
    assert_eq!(
        request.body.as_deref(),
        Some(&br#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}"#[..])
    );
    assert_eq!(RequestBuilder::delete(&mips(), &DeleteParams::default()).build().body, None);
    let options = DeleteParams {
        grace_period_seconds: Some(0),
        propagation_policy: Some(crate::params::PropagationPolicy::Foreground),
        preconditions: Some(crate::params::Preconditions { resource_version: Some("5".into()), uid: None }),
        ..DeleteParams::default()
    };
    let body = RequestBuilder::delete(&mips(), &options).build().body.unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&body),
        r#"{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"resourceVersion":"5"},"propagationPolicy":"Foreground"}"#
    );
    let eviction = mips().subresource("eviction").expect("valid");
    let request = RequestBuilder::create_subresource(
        &eviction,
        Body::json(&json(r#"{"kind":"Eviction"}"#)),
        &WriteParams::default(),
    )
    .build();
    assert_eq!(
        (request.method, request.path.as_str()),
        (Method::Post, "/apis/flops/v1alpha1/namespaces/mops/flips/mips/eviction")
    );
}

#[test]
fn typed_view_parameters_are_written_as_the_server_reads_them() {
    let request =
        RequestBuilder::list(&Collection::namespaces(), &ListParams::default(), &Accept::only(MediaType::json()))
            .pretty(false)
            .include_object(IncludeObject::None)
            .build();
    assert_eq!(request.path_and_query(), "/api/v1/namespaces?pretty=false&includeObject=None");
}

#[test]
fn a_log_request_reads_the_pods_log_subresource_as_text() {
    let pods = crate::testdata::resource_type("", "v1", "pods", Scope::Namespaced);
    let pod = Collection::new(&pods, Some("default")).and_then(|c| c.object("web-1")).expect("pod");
    let options = LogOptions { container: Some("app".into()), tail_lines: Some(5), ..LogOptions::default() };
    let request = RequestBuilder::log(&pod, &options).expect("request").build();
    assert_eq!(request.path_and_query(), "/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=5");
    assert_eq!(request.header_value("accept"), Some("text/plain, */*"));
}

#[test]
fn the_openapi_path_of_the_core_group_has_no_group_segment() {
    assert_eq!(RequestBuilder::openapi_v3("", "v1").build().path, "/openapi/v3/api/v1");
    assert_eq!(RequestBuilder::openapi_v3("apps", "v1").build().path, "/openapi/v3/apis/apps/v1");
    assert_eq!(RequestBuilder::openapi_v3("apps", "v1").build().header_value("accept"), Some("application/json"));
}
