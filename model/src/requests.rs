//! The requests the client and the views send that no plan of the model makes yet: the server's
//! version and discovery, the self reviews, an object read back after a write, the OpenAPI
//! documents, and the scale, delete and delete-collection forms. They are made here because only
//! the model may make a request (see [`crate::api`]); each is what the client or the view used to
//! build itself, unchanged.

use crate::view_state::{Fallback, Reading, Representation};
use kube_wire::access::ResourceAttributes;
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::Value;
use kube_wire::discovery::AGGREGATED_DISCOVERY_ACCEPT;
use kube_wire::media_type::{Accept, MediaType, PatchType};
use kube_wire::openapi_index::{IndexError, OpenApiIndex};
use kube_wire::params::{DeleteParams, GetParams, ListParams, WriteParams};
use kube_wire::request::{Collection, ObjectRef, Request, RequestError};

/// **get** `/version`, the server's version, as JSON.
pub fn version() -> Request {
    discovery_document("/version")
}

/// **get** a discovery root (`/api`, `/apis`) asking for aggregated discovery first.
pub fn discovery_root(path: &str) -> Request {
    RequestBuilder::get(path).header("Accept", AGGREGATED_DISCOVERY_ACCEPT).build()
}

/// **get** a legacy discovery document (`/api`, `/apis`, `/apis/apps/v1`) as JSON.
pub fn discovery_document(path: &str) -> Request {
    RequestBuilder::get(path).header("Accept", "application/json").build()
}

/// Who the user is: a SelfSubjectReview.
pub fn who_am_i() -> Request {
    RequestBuilder::self_subject_review().build()
}

/// The user's rules in `namespace`: a SelfSubjectRulesReview.
pub fn rules_of(namespace: &str) -> Request {
    RequestBuilder::self_subject_rules_review(namespace).build()
}

/// Whether the user may do one thing: a SelfSubjectAccessReview.
pub fn can_i(attributes: &ResourceAttributes) -> Request {
    RequestBuilder::self_subject_access_review(attributes).build()
}

/// **get** `object` as JSON (a write's object read back).
pub fn read_object(object: &ObjectRef) -> Request {
    RequestBuilder::get_object(object, &GetParams::default(), &Accept::only(MediaType::json())).build()
}

/// **get** the OpenAPI v3 document of a group version.
pub fn openapi_document(group: &str, version: &str) -> Request {
    RequestBuilder::openapi_v3(group, version).build()
}

/// **get** the `/openapi/v3` index.
pub fn openapi_index() -> Request {
    RequestBuilder::openapi_index().build()
}

/// **get** a group version's document at the address `index` gives (hash included).
pub fn openapi_indexed_document(index: &OpenApiIndex, group: &str, version: &str) -> Result<Request, IndexError> {
    RequestBuilder::openapi_document(index, group, version).map(RequestBuilder::build)
}

/// The merge patch of a `scale` subresource that sets `spec.replicas`.
pub fn scale(scale: &ObjectRef, replicas: i64, params: &WriteParams) -> Result<Request, RequestError> {
    let body = Value::from_serde_json(&serde_json::json!({"spec": {"replicas": replicas}}));
    RequestBuilder::patch(scale, PatchType::Merge, &body, params).map(RequestBuilder::build)
}

/// **delete** `object`.
pub fn delete(object: &ObjectRef, params: &DeleteParams) -> Request {
    RequestBuilder::delete(object, params).build()
}

/// The list whose items a delete collection would delete, to count them: metadata only (a
/// server that cannot convert sends the whole list, which counts the same).
pub fn count_collection(collection: &Collection, list: &ListParams) -> Request {
    RequestBuilder::list(collection, list, &Representation::Metadata.accept(Reading::List, Fallback::Json)).build()
}

/// **deletecollection** of what `list` selects in `collection`.
pub fn delete_collection(collection: &Collection, list: &ListParams, params: &DeleteParams) -> Request {
    RequestBuilder::delete_collection(collection, list, params).build()
}

#[cfg(test)]
mod tests {
    use kube_wire::discovery::Scope;
    use kube_wire::request::Method;
    use kube_wire::testdata::resource_type;

    use super::*;

    fn deployment() -> ObjectRef {
        let deployments = resource_type("apps", "v1", "deployments", Scope::Namespaced);
        Collection::new(&deployments, Some("demo")).and_then(|c| c.object("web")).expect("valid")
    }

    #[test]
    fn discovery_asks_for_aggregated_documents_at_the_roots_and_json_elsewhere() {
        assert_eq!(version().path_and_query(), "/version");
        assert_eq!(version().header_value("accept"), Some("application/json"));
        assert_eq!(discovery_root("/apis").header_value("accept"), Some(AGGREGATED_DISCOVERY_ACCEPT));
        assert_eq!(discovery_document("/apis/apps/v1").path(), "/apis/apps/v1");
    }

    #[test]
    fn the_scale_form_sends_a_merge_patch_of_the_replicas() {
        let object = deployment().subresource("scale").expect("valid");
        let request = scale(&object, 3, &WriteParams::default()).expect("request");
        assert_eq!(
            (request.method(), request.path()),
            (Method::Patch, "/apis/apps/v1/namespaces/demo/deployments/web/scale")
        );
        assert_eq!(request.header_value("content-type"), Some("application/merge-patch+json"));
        assert_eq!(request.body(), Some(&br#"{"spec":{"replicas":3}}"#[..]));
    }

    #[test]
    fn the_delete_forms_count_then_delete_what_the_list_selects() {
        let collection =
            Collection::new(&resource_type("", "v1", "pods", Scope::Namespaced), Some("demo")).expect("valid");
        let list = ListParams::default();
        let count = count_collection(&collection, &list);
        assert_eq!(
            (count.method(), count.header_value("accept")),
            (
                Method::Get,
                Some("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9")
            )
        );
        let delete_all =
            delete_collection(&collection, &list, &DeleteParams { dry_run: true, ..DeleteParams::default() });
        assert_eq!((delete_all.method(), delete_all.path()), (Method::Delete, "/api/v1/namespaces/demo/pods"));
        assert!(delete(&deployment(), &DeleteParams::default()).changes_state());
        assert!(!who_am_i().changes_state(), "a review stores nothing");
        assert_eq!(read_object(&deployment()).method(), Method::Get);
    }
}
