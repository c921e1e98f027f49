//! Requests as values: what the app will send, built without I/O so that it can be shown,
//! copied as curl, and tested natively. `client` executes them over `fetch`; `kube-sim`'s tests
//! send them over HTTP.
//!
//! Resource URIs follow the concepts page: `/api/v1` for the core group, `/apis/GROUP/VERSION`
//! otherwise, `/namespaces/NS` before the resource for namespaced types, then `/NAME` and
//! `/SUBRESOURCE`. Requests are made by [`crate::build::RequestBuilder`] only (see there why);
//! here are what they address ([`Collection`], [`ObjectRef`]), their bodies and the request
//! itself, read-only. `kube-core` builds `http::Request`s; ours are plain values with an
//! inspectable query and body, which is what the request inspector shows.

use std::fmt;

use crate::codec::cbor::{encode_cbor, CborEncoding};
use crate::codec::json::encode_json;
use crate::codec::value::Value;
use crate::codec::yaml::{encode_yaml, EncodeYamlError};
use crate::discovery::{ResourceType, Scope};
use crate::media_type::MediaType;

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

/// One HTTP request to the API server, relative to the API base URL. Made only by
/// [`RequestBuilder`](crate::build::RequestBuilder), and read-only once made: whoever holds one
/// can show it, copy it as curl and send it, not change it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Option<Vec<u8>>,
}

impl Request {
    pub fn method(&self) -> Method {
        self.method
    }

    /// The path, starting with `/` (e.g. `/api/v1/namespaces/default/pods`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Query parameters in the order they are sent; values are not yet percent-encoded.
    pub fn query(&self) -> &[(String, String)] {
        &self.query
    }

    /// The headers in the order they are sent.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    pub fn body(&self) -> Option<&[u8]> {
        self.body.as_deref()
    }

    /// The path with its percent-encoded query string, as it goes on the request line.
    pub fn path_and_query(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(&self.query).finish();
        format!("{}?{}", self.path, query)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
