//! Requests as values: what the app will send, built without I/O so that it can be shown,
//! copied as curl, and tested natively. `client` executes them over `fetch`; `kube-sim`'s tests
//! send them over HTTP.
//!
//! Resource URIs follow the concepts page: `/api/v1` for the core group, `/apis/GROUP/VERSION`
//! otherwise, `/namespaces/NS` before the resource for namespaced types, then `/NAME` and
//! `/SUBRESOURCE`. The builders (get, list, watch, create, update, patch, apply, delete,
//! deletecollection) take checked parameters from [`params`](crate::params), so every
//! request they return is one the table allows. `kube-core` builds `http::Request`s; ours are
//! plain values with an inspectable query and body, which is what the request inspector shows.

use std::fmt;

use crate::codec::cbor::{encode_cbor, CborEncoding};
use crate::codec::json::encode_json;
use crate::codec::value::{Map, Value};
use crate::codec::yaml::{encode_yaml, EncodeYamlError};
use crate::discovery::{ResourceType, Scope};
use crate::media_type::{Accept, MediaType, PatchType};
use crate::params::{
    ApplyParams, DeleteParams, GetParams, IncludeObject, ListParams, LogOptions, WatchParams, WriteParams,
};

/// The HTTP methods the Kubernetes API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// Whether the method can change state on the server (read-only mode refuses these).
    pub fn is_write(self) -> bool {
        !matches!(self, Method::Get)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One HTTP request to the API server, relative to the API base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: Method,
    /// The path, starting with `/` (e.g. `/api/v1/namespaces/default/pods`).
    pub path: String,
    /// Query parameters in the order they are sent; values are not yet percent-encoded.
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl Request {
    /// A `GET` of `path` with no query, headers or body.
    pub fn get(path: impl Into<String>) -> Self {
        Request { method: Method::Get, path: path.into(), query: Vec::new(), headers: Vec::new(), body: None }
    }

    /// Adds a header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Adds a query parameter.
    #[must_use]
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    /// The path with its percent-encoded query string, as it goes on the request line.
    pub fn path_and_query(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(&self.query).finish();
        format!("{}?{}", self.path, query)
    }

    /// `pretty=false` (or `true`): whether the server indents JSON. A real API server pretty-prints
    /// for clients it takes for browsers, so the app asks for the compact form it measures.
    #[must_use]
    pub fn pretty(self, pretty: bool) -> Self {
        self.param("pretty", if pretty { "true" } else { "false" })
    }

    /// `includeObject`: what each row of a server-side `Table` carries.
    #[must_use]
    pub fn include_object(self, include: IncludeObject) -> Self {
        self.param("includeObject", include.as_str())
    }

    /// The value of header `name` (case-insensitive), if set.
    pub fn header_value(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A collection of one resource type: all of its objects, in one namespace or (namespaced
/// types listed across namespaces, and cluster-scoped types) in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    pub group: String,
    pub version: String,
    pub plural: String,
    pub namespace: Option<String>,
}

/// A request that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("expected no namespace for cluster-scoped {0}, found namespace {1:?}")]
    NamespaceOnClusterScoped(String, String),
    #[error("expected a name without '/' and not \"\", \".\" or \"..\", found {0:?}")]
    BadName(String),
    #[error(
        "a strategic merge, merge or JSON patch needs PatchType::Json, Merge or StrategicMerge; use apply for \
         server-side apply"
    )]
    ApplyThroughPatch,
    #[error(transparent)]
    Yaml(#[from] EncodeYamlError),
}

impl Collection {
    /// The collection of `resource` in `namespace` (`None`: all namespaces, or cluster scope).
    pub fn new(resource: &ResourceType, namespace: Option<&str>) -> Result<Collection, RequestError> {
        if let (Scope::Cluster, Some(ns)) = (resource.scope, namespace) {
            return Err(RequestError::NamespaceOnClusterScoped(resource.plural.clone(), ns.to_string()));
        }
        if let Some(ns) = namespace {
            check_segment(ns)?;
        }
        Ok(Collection {
            group: resource.group.clone(),
            version: resource.version.clone(),
            plural: resource.plural.clone(),
            namespace: namespace.map(str::to_string),
        })
    }

    /// The collection's path, e.g. `/apis/apps/v1/namespaces/default/deployments`.
    pub fn path(&self) -> String {
        let mut path = crate::discovery::group_version_path(&self.group, &self.version);
        if let Some(ns) = &self.namespace {
            path.push_str("/namespaces/");
            path.push_str(ns);
        }
        path.push('/');
        path.push_str(&self.plural);
        path
    }

    /// The cluster's namespaces (`/api/v1/namespaces`), a collection every server has.
    pub fn namespaces() -> Collection {
        Collection { group: String::new(), version: "v1".into(), plural: "namespaces".into(), namespace: None }
    }

    /// One object of this collection.
    pub fn object(&self, name: &str) -> Result<ObjectRef, RequestError> {
        check_segment(name)?;
        Ok(ObjectRef { collection: self.clone(), name: name.to_string(), subresource: None })
    }
}

fn check_segment(segment: &str) -> Result<(), RequestError> {
    if segment.is_empty() || segment == "." || segment == ".." || segment.contains('/') {
        return Err(RequestError::BadName(segment.to_string()));
    }
    Ok(())
}

/// One object, or one subresource of it (`status`, `scale`, `log`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    pub collection: Collection,
    pub name: String,
    pub subresource: Option<String>,
}

impl ObjectRef {
    /// The same object's `subresource`.
    pub fn subresource(self, subresource: &str) -> Result<ObjectRef, RequestError> {
        check_segment(subresource)?;
        Ok(ObjectRef { subresource: Some(subresource.to_string()), ..self })
    }

    pub fn path(&self) -> String {
        let mut path = format!("{}/{}", self.collection.path(), self.name);
        if let Some(sub) = &self.subresource {
            path.push('/');
            path.push_str(sub);
        }
        path
    }
}

/// A request body and its media type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    pub content_type: MediaType,
    pub bytes: Vec<u8>,
}

impl Body {
    /// JSON (`application/json`, or a JSON patch type).
    pub fn json(value: &Value) -> Body {
        Body { content_type: MediaType::json(), bytes: encode_json(value) }
    }

    pub fn yaml(value: &Value) -> Result<Body, RequestError> {
        Ok(Body { content_type: MediaType::yaml(), bytes: encode_yaml(value)? })
    }

    /// CBOR as client-go writes it (`[]byte` fields as tag 22, so the server reads them back).
    pub fn cbor(value: &Value) -> Body {
        Body { content_type: MediaType::cbor(), bytes: encode_cbor(value, CborEncoding::CLIENT) }
    }
}

/// How a server-side apply body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyEncoding {
    /// `application/apply-patch+yaml` (JSON is YAML, so a JSON text works too).
    Yaml,
    /// `application/apply-patch+cbor`.
    Cbor,
}

impl Request {
    fn new(method: Method, path: String, query: Vec<(String, String)>) -> Request {
        Request { method, path, query, headers: Vec::new(), body: None }
    }

    #[must_use]
    fn accept(self, accept: &Accept) -> Request {
        self.header("Accept", accept.to_string())
    }

    #[must_use]
    fn with_body(mut self, content_type: &MediaType, bytes: Vec<u8>) -> Request {
        self.headers.push(("Content-Type".to_string(), content_type.to_string()));
        self.body = Some(bytes);
        self
    }

    /// **get** one object (or subresource).
    pub fn get_object(object: &ObjectRef, params: &GetParams, accept: &Accept) -> Request {
        Request::new(Method::Get, object.path(), params.query()).accept(accept)
    }

    /// A pod's log (the `log` subresource of `pod`), as text.
    pub fn log(pod: &ObjectRef, options: &LogOptions) -> Result<Request, RequestError> {
        let log = pod.clone().subresource("log")?;
        Ok(Request::new(Method::Get, log.path(), options.query()).header("Accept", "text/plain, */*"))
    }

    /// The OpenAPI v3 document of one group version (`/openapi/v3/api/v1`,
    /// `/openapi/v3/apis/apps/v1`), as JSON.
    pub fn openapi_v3(group: &str, version: &str) -> Request {
        let path = if group.is_empty() {
            format!("/openapi/v3/api/{version}")
        } else {
            format!("/openapi/v3/apis/{group}/{version}")
        };
        Request::get(path).accept(&Accept::only(MediaType::json()))
    }

    /// **list** a collection.
    pub fn list(collection: &Collection, params: &ListParams, accept: &Accept) -> Request {
        Request::new(Method::Get, collection.path(), params.query()).accept(accept)
    }

    /// **watch** a collection.
    pub fn watch(collection: &Collection, params: &WatchParams, accept: &Accept) -> Request {
        Request::new(Method::Get, collection.path(), params.query()).accept(accept)
    }

    /// **create** an object in a collection (`POST`).
    pub fn create(collection: &Collection, body: Body, params: &WriteParams) -> Request {
        Request::new(Method::Post, collection.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&body.content_type, body.bytes)
    }

    /// `POST` to a subresource of an object, e.g. a pod's `eviction` or `binding`.
    pub fn create_subresource(object: &ObjectRef, body: Body, params: &WriteParams) -> Request {
        Request::new(Method::Post, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&body.content_type, body.bytes)
    }

    /// **update** (replace) an object or subresource (`PUT`).
    pub fn update(object: &ObjectRef, body: Body, params: &WriteParams) -> Request {
        Request::new(Method::Put, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&body.content_type, body.bytes)
    }

    /// **patch** with a JSON patch, merge patch or strategic merge patch (JSON body).
    pub fn patch(
        object: &ObjectRef,
        patch: PatchType,
        body: &Value,
        params: &WriteParams,
    ) -> Result<Request, RequestError> {
        if patch == PatchType::Apply {
            return Err(RequestError::ApplyThroughPatch);
        }
        let mut bytes = encode_json(body);
        bytes.pop();
        Ok(Request::new(Method::Patch, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&patch.media_type(), bytes))
    }

    /// Server-side **apply** (`PATCH` with `application/apply-patch+yaml` or `+cbor`).
    pub fn apply(object: &ObjectRef, body: &Value, encoding: ApplyEncoding, params: &ApplyParams) -> Request {
        let (content_type, bytes) = match encoding {
            ApplyEncoding::Yaml => {
                let mut bytes = encode_json(body);
                bytes.pop();
                (PatchType::Apply.media_type(), bytes)
            }
            ApplyEncoding::Cbor => (PatchType::apply_cbor_media_type(), encode_cbor(body, CborEncoding::CLIENT)),
        };
        Request::new(Method::Patch, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&content_type, bytes)
    }

    /// **delete** one object, with a `DeleteOptions` body when options are set.
    pub fn delete(object: &ObjectRef, params: &DeleteParams) -> Request {
        let request = Request::new(Method::Delete, object.path(), Vec::new()).accept(&Accept::only(MediaType::json()));
        with_delete_options(request, params)
    }

    /// **deletecollection**: delete the objects a list would return.
    pub fn delete_collection(collection: &Collection, list: &ListParams, params: &DeleteParams) -> Request {
        let request =
            Request::new(Method::Delete, collection.path(), list.query()).accept(&Accept::only(MediaType::json()));
        with_delete_options(request, params)
    }
}

/// Adds `{"kind":"DeleteOptions","apiVersion":"v1",…}` as client-go writes it.
fn with_delete_options(request: Request, params: &DeleteParams) -> Request {
    let fields = match serde_json::to_value(params).ok().as_ref().map(Value::from_serde_json) {
        Some(Value::Object(fields)) if !fields.is_empty() => fields,
        _ => return request,
    };
    let mut map = Map::new();
    map.insert("kind", Value::String("DeleteOptions".into()));
    map.insert("apiVersion", Value::String("v1".into()));
    for (k, v) in fields.iter() {
        map.insert(k, v.clone());
    }
    let mut bytes = encode_json(&Value::Object(map));
    bytes.pop();
    request.with_body(&MediaType::json(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_and_query_percent_encodes_selectors() {
        let request = Request::get("/api/v1/pods").param("labelSelector", "app in (web,db)").param("limit", "500");
        assert_eq!(request.path_and_query(), "/api/v1/pods?labelSelector=app+in+%28web%2Cdb%29&limit=500");
    }

    #[test]
    fn a_request_without_query_is_its_path() {
        assert_eq!(Request::get("/version").path_and_query(), "/version");
    }

    #[test]
    fn header_lookup_ignores_case_and_only_get_is_not_a_write() {
        let request = Request::get("/api").header("Accept", "application/json");
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
        check(&Request::get_object(&fin, &GetParams { resource_version: at_42.clone() }, &accept), "get");
        let list =
            ListParams::new(ListOptions { resource_version: at_42.clone(), ..ListOptions::default() }).expect("valid");
        check(&Request::list(&flips(Some("mops")), &list, &accept), "list");
        let watch =
            WatchParams::new(WatchOptions { resource_version: at_42, ..WatchOptions::default() }).expect("valid");
        let mut request = Request::watch(&flips(Some("mops")), &watch, &accept);
        request.query.reverse();
        check(&request, "watch");
        let delete = DeleteParams { dry_run: true, ..DeleteParams::default() };
        let (line, _, _) = golden("delete");
        let request = Request::delete(&mips().subresource("fin").expect("valid"), &delete);
        assert_eq!(format!("{} {}", request.method, request.path_and_query()), line);
        assert_eq!(
            request.body.as_deref(),
            Some(&br#"{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}"#[..])
        );
        let apply = Request::apply(
            &mips().subresource("fin").expect("valid"),
            &json(r#"{"metadata":{"name":"mips"}}"#),
            ApplyEncoding::Yaml,
            &ApplyParams::new("m").force(),
        );
        assert_eq!(apply.header_value("Content-Type"), Some("application/apply-patch+yaml"));
        assert_eq!(apply.body.as_deref(), Some(&br#"{"metadata":{"name":"mips"}}"#[..]));
        assert!(apply.path_and_query().ends_with("/mips/fin?fieldManager=m&force=true"));
        let write = WriteParams { dry_run: Some(DryRun::All), ..WriteParams::default() };
        let create = Request::create(&flips(Some("mops")), Body::json(&json(r#"{"kind":"Flip"}"#)), &write);
        assert_eq!(create.path_and_query(), "/apis/flops/v1alpha1/namespaces/mops/flips?dryRun=All");
        assert_eq!(create.method, Method::Post);
    }

    #[test]
    fn core_and_cluster_scoped_paths_follow_the_resource_uri_rules() {
        let pods = crate::testdata::resource_type("", "v1", "pods", Scope::Namespaced);
        assert_eq!(Collection::new(&pods, Some("default")).expect("valid").path(), "/api/v1/namespaces/default/pods");
        assert_eq!(Collection::new(&pods, None).expect("valid").path(), "/api/v1/pods");
        let nodes = ResourceType { scope: Scope::Cluster, plural: "nodes".into(), ..pods.clone() };
        assert_eq!(
            Collection::new(&nodes, None).expect("valid").object("n1").expect("valid").path(),
            "/api/v1/nodes/n1"
        );
        assert_eq!(
            Collection::new(&nodes, Some("default")),
            Err(RequestError::NamespaceOnClusterScoped("nodes".into(), "default".into()))
        );
        let scale = Collection::new(&pods, Some("ns"))
            .expect("valid")
            .object("web")
            .and_then(|o| o.subresource("log"))
            .expect("valid");
        assert_eq!(scale.path(), "/api/v1/namespaces/ns/pods/web/log");
        assert_eq!(
            Collection::new(&pods, Some("ns")).expect("valid").object("a/b"),
            Err(RequestError::BadName("a/b".into()))
        );
        assert!(Collection::new(&pods, Some("..")).is_err());
    }

    #[test]
    fn each_patch_type_sends_its_content_type() {
        let body = json(r#"{"spec":{"replicas":2}}"#);
        for patch in [PatchType::Json, PatchType::Merge, PatchType::StrategicMerge] {
            let request = Request::patch(&mips(), patch, &body, &WriteParams::default()).expect("patch");
            assert_eq!(request.header_value("Content-Type"), Some(patch.media_type().to_string().as_str()));
            assert_eq!(request.method, Method::Patch);
        }
        assert_eq!(
            Request::patch(&mips(), PatchType::Apply, &body, &WriteParams::default()),
            Err(RequestError::ApplyThroughPatch)
        );
        let cbor = Request::apply(&mips(), &body, ApplyEncoding::Cbor, &ApplyParams::new("explorer"));
        assert_eq!(cbor.header_value("Content-Type"), Some("application/apply-patch+cbor"));
        let decoded = crate::codec::cbor::decode_cbor(cbor.body.as_deref().unwrap_or_default()).expect("cbor");
        assert_eq!(decoded, body);
    }

    #[test]
    fn updates_deletecollection_and_bodies_in_every_format() {
        let object = json(r#"{"kind":"Flip","data":1}"#);
        let update = Request::update(
            &mips().subresource("status").expect("valid"),
            Body::yaml(&object).expect("yaml"),
            &WriteParams::default(),
        );
        assert_eq!((update.method, update.header_value("Content-Type")), (Method::Put, Some("application/yaml")));
        assert_eq!(update.path, "/apis/flops/v1alpha1/namespaces/mops/flips/mips/status");
        let cbor = Body::cbor(&object);
        assert_eq!(crate::codec::cbor::decode_cbor(&cbor.bytes), Ok(object));
        let list =
            ListParams::new(crate::params::ListOptions { label_selector: Some("app=x".into()), ..Default::default() })
                .expect("valid");
        let request = Request::delete_collection(&flips(Some("mops")), &list, &DeleteParams::background());
        assert_eq!(request.path_and_query(), "/apis/flops/v1alpha1/namespaces/mops/flips?labelSelector=app%3Dx");
        assert_eq!(
            request.body.as_deref(),
            Some(&br#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}"#[..])
        );
        assert_eq!(Request::delete(&mips(), &DeleteParams::default()).body, None);
        let options = DeleteParams {
            grace_period_seconds: Some(0),
            propagation_policy: Some(crate::params::PropagationPolicy::Foreground),
            preconditions: Some(crate::params::Preconditions { resource_version: Some("5".into()), uid: None }),
            ..DeleteParams::default()
        };
        let body = Request::delete(&mips(), &options).body.unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&body),
            r#"{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"resourceVersion":"5"},"propagationPolicy":"Foreground"}"#
        );
        let eviction = mips().subresource("eviction").expect("valid");
        let request = Request::create_subresource(
            &eviction,
            Body::json(&json(r#"{"kind":"Eviction"}"#)),
            &WriteParams::default(),
        );
        assert_eq!(
            (request.method, request.path.as_str()),
            (Method::Post, "/apis/flops/v1alpha1/namespaces/mops/flips/mips/eviction")
        );
    }

    #[test]
    fn typed_view_parameters_are_written_as_the_server_reads_them() {
        let request =
            Request::list(&Collection::namespaces(), &ListParams::default(), &Accept::only(MediaType::json()))
                .pretty(false)
                .include_object(IncludeObject::None);
        assert_eq!(request.path_and_query(), "/api/v1/namespaces?pretty=false&includeObject=None");
    }

    #[test]
    fn a_log_request_reads_the_pods_log_subresource_as_text() {
        let pods = crate::testdata::resource_type("", "v1", "pods", Scope::Namespaced);
        let pod = Collection::new(&pods, Some("default")).and_then(|c| c.object("web-1")).expect("pod");
        let options = LogOptions { container: Some("app".into()), tail_lines: Some(5), ..LogOptions::default() };
        let request = Request::log(&pod, &options).expect("request");
        assert_eq!(request.path_and_query(), "/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=5");
        assert_eq!(request.header_value("accept"), Some("text/plain, */*"));
    }

    #[test]
    fn the_openapi_path_of_the_core_group_has_no_group_segment() {
        assert_eq!(Request::openapi_v3("", "v1").path, "/openapi/v3/api/v1");
        assert_eq!(Request::openapi_v3("apps", "v1").path, "/openapi/v3/apis/apps/v1");
        assert_eq!(Request::openapi_v3("apps", "v1").header_value("accept"), Some("application/json"));
    }
}
