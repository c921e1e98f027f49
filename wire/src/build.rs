//! The only way to make a [`Request`]: [`RequestBuilder`], one associated function per kind of
//! request (get, list, watch, create, update, patch, apply, delete, deletecollection, a pod's log,
//! the OpenAPI documents; the self reviews in [`crate::access`], the index's documents in
//! [`crate::openapi_index`], the write bodies in [`crate::write`]), each a builder that adds
//! headers and query parameters and ends in [`RequestBuilder::build`].
//!
//! The layer that decides what to send (the app's `model`) uses this module and does not
//! re-export it; the layers above it (the app's `client` and views) can hold, show and send a
//! [`Request`] but cannot name the builder, so they cannot make or change one: a view that tries
//! does not compile. The builders take checked parameters from [`params`](crate::params), so
//! every request they make is one the concepts page's tables allow.

use crate::codec::cbor::{encode_cbor, CborEncoding};
use crate::codec::json::encode_json;
use crate::codec::value::{Map, Value};
use crate::media_type::{Accept, MediaType, PatchType};
use crate::params::{
    ApplyParams, DeleteParams, GetParams, IncludeObject, ListParams, LogOptions, WatchParams, WriteParams,
};
use crate::request::{ApplyEncoding, Body, Collection, Method, ObjectRef, Request, RequestError};

/// A request being made: start it with one of the associated functions, add what it needs, then
/// [`build`](RequestBuilder::build) it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a request builder makes nothing until it is built"]
pub struct RequestBuilder {
    request: Request,
}

impl RequestBuilder {
    /// A `GET` of `path` (on the API server, starting with `/`) with no query, headers or body.
    pub fn get(path: impl Into<String>) -> RequestBuilder {
        RequestBuilder::new(Method::Get, path.into(), Vec::new())
    }

    /// The request made.
    #[must_use]
    pub fn build(self) -> Request {
        self.request
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> RequestBuilder {
        self.request.headers.push((name.into(), value.into()));
        self
    }

    /// Adds a query parameter.
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> RequestBuilder {
        self.request.query.push((name.into(), value.into()));
        self
    }

    /// `pretty=false` (or `true`): whether the server indents JSON. A real API server pretty-prints
    /// for clients it takes for browsers, so the app asks for the compact form it measures.
    pub fn pretty(self, pretty: bool) -> RequestBuilder {
        self.param("pretty", if pretty { "true" } else { "false" })
    }

    /// `includeObject`: what each row of a server-side `Table` carries.
    pub fn include_object(self, include: IncludeObject) -> RequestBuilder {
        self.param("includeObject", include.as_str())
    }

    pub(crate) fn new(method: Method, path: String, query: Vec<(String, String)>) -> RequestBuilder {
        RequestBuilder { request: Request { method, path, query, headers: Vec::new(), body: None } }
    }

    pub(crate) fn accept(self, accept: &Accept) -> RequestBuilder {
        self.header("Accept", accept.to_string())
    }

    pub(crate) fn with_body(mut self, content_type: &MediaType, bytes: Vec<u8>) -> RequestBuilder {
        self.request.headers.push(("Content-Type".to_string(), content_type.to_string()));
        self.request.body = Some(bytes);
        self
    }

    /// **get** one object (or subresource).
    pub fn get_object(object: &ObjectRef, params: &GetParams, accept: &Accept) -> RequestBuilder {
        RequestBuilder::new(Method::Get, object.path(), params.query()).accept(accept)
    }

    /// A pod's log (the `log` subresource of `pod`), as text.
    pub fn log(pod: &ObjectRef, options: &LogOptions) -> Result<RequestBuilder, RequestError> {
        let log = pod.clone().subresource("log")?;
        Ok(RequestBuilder::new(Method::Get, log.path(), options.query()).header("Accept", "text/plain, */*"))
    }

    /// The OpenAPI v3 document of one group version (`/openapi/v3/api/v1`,
    /// `/openapi/v3/apis/apps/v1`), as JSON.
    pub fn openapi_v3(group: &str, version: &str) -> RequestBuilder {
        let path = if group.is_empty() {
            format!("/openapi/v3/api/{version}")
        } else {
            format!("/openapi/v3/apis/{group}/{version}")
        };
        RequestBuilder::get(path).accept(&Accept::only(MediaType::json()))
    }

    /// **list** a collection.
    pub fn list(collection: &Collection, params: &ListParams, accept: &Accept) -> RequestBuilder {
        RequestBuilder::new(Method::Get, collection.path(), params.query()).accept(accept)
    }

    /// **watch** a collection.
    pub fn watch(collection: &Collection, params: &WatchParams, accept: &Accept) -> RequestBuilder {
        RequestBuilder::new(Method::Get, collection.path(), params.query()).accept(accept)
    }

    /// **create** an object in a collection (`POST`).
    pub fn create(collection: &Collection, body: Body, params: &WriteParams) -> RequestBuilder {
        RequestBuilder::new(Method::Post, collection.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&body.content_type, body.bytes)
    }

    /// `POST` to a subresource of an object, e.g. a pod's `eviction` or `binding`.
    pub fn create_subresource(object: &ObjectRef, body: Body, params: &WriteParams) -> RequestBuilder {
        RequestBuilder::new(Method::Post, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&body.content_type, body.bytes)
    }

    /// **update** (replace) an object or subresource (`PUT`).
    pub fn update(object: &ObjectRef, body: Body, params: &WriteParams) -> RequestBuilder {
        RequestBuilder::new(Method::Put, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&body.content_type, body.bytes)
    }

    /// **patch** with a JSON patch, merge patch or strategic merge patch (JSON body).
    pub fn patch(
        object: &ObjectRef,
        patch: PatchType,
        body: &Value,
        params: &WriteParams,
    ) -> Result<RequestBuilder, RequestError> {
        if patch == PatchType::Apply {
            return Err(RequestError::ApplyThroughPatch);
        }
        let mut bytes = encode_json(body);
        bytes.pop();
        Ok(RequestBuilder::new(Method::Patch, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&patch.media_type(), bytes))
    }

    /// Server-side **apply** (`PATCH` with `application/apply-patch+yaml` or `+cbor`).
    pub fn apply(object: &ObjectRef, body: &Value, encoding: ApplyEncoding, params: &ApplyParams) -> RequestBuilder {
        let (content_type, bytes) = match encoding {
            ApplyEncoding::Yaml => {
                let mut bytes = encode_json(body);
                bytes.pop();
                (PatchType::Apply.media_type(), bytes)
            }
            ApplyEncoding::Cbor => (PatchType::apply_cbor_media_type(), encode_cbor(body, CborEncoding::CLIENT)),
        };
        RequestBuilder::new(Method::Patch, object.path(), params.query())
            .accept(&Accept::only(MediaType::json()))
            .with_body(&content_type, bytes)
    }

    /// **delete** one object, with a `DeleteOptions` body when options are set.
    pub fn delete(object: &ObjectRef, params: &DeleteParams) -> RequestBuilder {
        RequestBuilder::new(Method::Delete, object.path(), Vec::new())
            .accept(&Accept::only(MediaType::json()))
            .with_delete_options(params)
    }

    /// **deletecollection**: delete the objects a list would return.
    pub fn delete_collection(collection: &Collection, list: &ListParams, params: &DeleteParams) -> RequestBuilder {
        RequestBuilder::new(Method::Delete, collection.path(), list.query())
            .accept(&Accept::only(MediaType::json()))
            .with_delete_options(params)
    }

    /// Adds `{"kind":"DeleteOptions","apiVersion":"v1",…}` as client-go writes it.
    fn with_delete_options(self, params: &DeleteParams) -> RequestBuilder {
        let fields = match serde_json::to_value(params).ok().as_ref().map(Value::from_serde_json) {
            Some(Value::Object(fields)) if !fields.is_empty() => fields,
            _ => return self,
        };
        let mut map = Map::new();
        map.insert("kind", Value::String("DeleteOptions".into()));
        map.insert("apiVersion", Value::String("v1".into()));
        for (k, v) in fields.iter() {
            map.insert(k, v.clone());
        }
        let mut bytes = encode_json(&Value::Object(map));
        bytes.pop();
        self.with_body(&MediaType::json(), bytes)
    }
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
