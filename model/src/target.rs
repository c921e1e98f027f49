//! The view resolved once: the [`ViewState`] and the resource type discovery gave become what the
//! view targets (a collection, or one object, the scope rule applied), then the one request that
//! reads it and what the page will be (a grid or a document). Components get these plans; they
//! never choose an `Accept`, a query parameter or a decoder themselves.
//!
//! The rules written here once:
//! - a cluster-scoped type ignores the namespace of the view; a namespaced type without one is
//!   listed across all namespaces, and its rows then need their namespace;
//! - "No JSON fallback" asks for the representation alone (a server that cannot give it answers
//!   406), for pages, single objects and watches alike;
//! - a Table page asks for columns only (`includeObject=None`) unless the rows' metadata must
//!   come with them (across namespaces, when "load all" joins many pages); a Table watch carries
//!   whole objects, so that the history diffs them;
//! - a single object has no Table worth reading: Table means JSON there.

use std::num::NonZeroU32;

use crate::view_state::{Fallback, Reading, Representation, ViewState};
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::Value;
use kube_wire::discovery::ResourceType;
use kube_wire::params::{GetParams, IncludeObject, ListParams, LogOptions, ParamsError};
use kube_wire::reflector::ReflectorConfig;
use kube_wire::request::{Collection, ObjectRef, Request, RequestError};
use kube_wire::view::list::{ContinueToken, ResourceVersion};

/// A collection the view lists, with the scope rule applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionTarget {
    pub collection: Collection,
    /// A namespaced type listed across all namespaces: its rows need their namespace (a
    /// `Namespace` column first, as `kubectl get -A` shows).
    pub across_namespaces: bool,
}

/// What a Table page's rows carry besides their cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowObjects {
    /// Columns only (`includeObject=None`): the page a person waits for comes first; across all
    /// namespaces the rows' metadata follows from a metadata-only list of the same page
    /// ([`ViewState::rows_metadata_request`]), and the object itself is read when a row is opened.
    ColumnsOnly,
    /// Metadata in the rows where they need it (all namespaces): "load all" joins thousands of
    /// rows, and one request per page beats two there.
    AsNeeded,
}

/// What a page will be once its response is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageShape {
    /// Rows and columns (a Table, or a metadata-only list).
    Grid,
    /// A document, highlighted and foldable.
    Document,
}

impl PageShape {
    pub fn is_grid(self) -> bool {
        self == PageShape::Grid
    }
}

/// The request that reads a page, and what the page will be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagePlan {
    pub request: Request,
    pub shape: PageShape,
}

impl ViewState {
    /// The collection of `resource` this view lists: in the view's namespace for a namespaced
    /// type (across all without one), cluster-wide for a cluster-scoped type.
    pub fn collection_target(&self, resource: &ResourceType) -> Result<CollectionTarget, RequestError> {
        let namespace = self.namespace_for(resource);
        Ok(CollectionTarget {
            collection: Collection::new(resource, namespace)?,
            across_namespaces: resource.is_namespaced() && namespace.is_none(),
        })
    }

    /// The object `name` of `resource`, in the view's namespace when the type is namespaced.
    pub fn object_target(&self, resource: &ResourceType, name: &str) -> Result<ObjectRef, RequestError> {
        Collection::new(resource, self.namespace_for(resource))?.object(name)
    }

    /// The page after `token` (the first without one) of `target`, in the view's representation.
    pub fn page_plan(
        &self,
        target: &CollectionTarget,
        token: Option<ContinueToken>,
        rows: RowObjects,
    ) -> Result<PagePlan, ParamsError> {
        let params = self.list_params(token)?;
        let mut request = RequestBuilder::list(&target.collection, &params, &self.accept(Reading::List)).pretty(false);
        if self.representation == Representation::Table
            && (rows == RowObjects::ColumnsOnly || !target.across_namespaces)
        {
            request = request.include_object(IncludeObject::None);
        }
        let shape = match self.representation {
            Representation::Table | Representation::Metadata => PageShape::Grid,
            _ => PageShape::Document,
        };
        Ok(PagePlan { request: request.build(), shape })
    }

    /// The metadata-only list of the same page as a columns-only Table page, at the same snapshot
    /// (its continue token, or the list's resourceVersion read `Exact`): the rows' namespaces.
    pub fn rows_metadata_request(
        &self,
        target: &CollectionTarget,
        token: Option<ContinueToken>,
        list_version: Option<ResourceVersion>,
    ) -> Result<Request, ParamsError> {
        let params = self.same_page_params(token, list_version)?;
        Ok(RequestBuilder::list(
            &target.collection,
            &params,
            &Representation::Metadata.accept(Reading::List, Fallback::Json),
        )
        .pretty(false)
        .build())
    }

    /// The request that reads one object in the view's representation (Table means JSON here).
    pub fn object_plan(&self, object: &ObjectRef) -> PagePlan {
        let representation = match self.representation {
            Representation::Table => Representation::Json,
            other => other,
        };
        let accept = representation.accept(Reading::Object, self.fallback());
        PagePlan {
            request: RequestBuilder::get_object(object, &GetParams::default(), &accept).pretty(false).build(),
            shape: PageShape::Document,
        }
    }

    /// How the live view watches `target`: server-side Tables with whole objects in the rows when
    /// the view is a Table (as `kubectl get -w`), CBOR sequences when it is CBOR, protobuf
    /// (`;stream=watch` for watches) when it is protobuf, JSON otherwise; the view's selectors;
    /// "No JSON fallback" kept for Tables and protobuf (a type without protobuf then gets 406, and
    /// the reflector goes on in JSON, saying why).
    pub fn watch_config(&self, target: &CollectionTarget) -> ReflectorConfig {
        let collection = target.collection.clone();
        // A live view reads Tables, CBOR and protobuf as such, and anything else as JSON.
        let live = match self.representation {
            live @ (Representation::Table | Representation::Cbor | Representation::Protobuf) => live,
            _ => Representation::Json,
        };
        let (accept, watch_accept) =
            (live.accept(Reading::List, self.fallback()), live.accept(Reading::Watch, self.fallback()));
        let mut config = ReflectorConfig {
            watch_accept: (watch_accept != accept).then_some(watch_accept),
            accept,
            ..ReflectorConfig::new(collection)
        };
        if live == Representation::Table {
            config.include_object = Some(IncludeObject::Object);
        }
        let non_empty = |text: &str| (!text.trim().is_empty()).then(|| text.trim().to_owned());
        config.label_selector = non_empty(&self.label_selector);
        config.field_selector = non_empty(&self.field_selector);
        config
    }

    /// The namespace a request for `resource` is scoped to: none for a cluster-scoped type.
    fn namespace_for(&self, resource: &ResourceType) -> Option<&str> {
        resource.scoped(self.namespace.as_deref())
    }
}

/// The request that reads subresource `subresource` of object `name` of `resource` (in
/// `namespace` when the type is namespaced): a pod's `log` as text with `log`'s options, any
/// other as compact JSON.
pub fn subresource_request(
    resource: &ResourceType,
    namespace: Option<&str>,
    name: &str,
    subresource: &str,
    log: &LogOptions,
) -> Result<Request, RequestError> {
    let object = Collection::new(resource, resource.scoped(namespace))?.object(name)?;
    if subresource == "log" {
        return RequestBuilder::log(&object, log).map(RequestBuilder::build);
    }
    let object = object.subresource(subresource)?;
    Ok(RequestBuilder::get_object(
        &object,
        &GetParams::default(),
        &Representation::Json.accept(Reading::Object, Fallback::Json),
    )
    .pretty(false)
    .build())
}

/// How many namespaces the namespace selector offers at most.
const NAMESPACES_SHOWN: NonZeroU32 = NonZeroU32::MIN.saturating_add(499);

/// The namespaces the namespace selector offers: one page, as JSON.
pub fn namespaces_request() -> Request {
    let params = ListParams::first_page(NAMESPACES_SHOWN);
    RequestBuilder::list(
        &Collection::namespaces(),
        &params,
        &Representation::Json.accept(Reading::List, Fallback::Json),
    )
    .pretty(false)
    .build()
}

/// How many objects the go-to box reads the names of, per type and namespace.
const NAMES_READ: NonZeroU32 = NonZeroU32::MIN.saturating_add(499);

/// The names of `resource`'s objects (in `namespace`, or all) the go-to box offers: the first
/// page of a metadata-only list.
pub fn names_request(resource: &ResourceType, namespace: Option<&str>) -> Result<Request, RequestError> {
    let params = ListParams::first_page(NAMES_READ);
    Ok(RequestBuilder::list(
        &Collection::new(resource, resource.scoped(namespace))?,
        &params,
        &Representation::Metadata.accept(Reading::List, Fallback::Json),
    )
    .pretty(false)
    .build())
}

/// The names of the items of a list document, in its order.
pub fn namespace_names(list: &Value) -> Vec<String> {
    list.get("items")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| item.at(&["metadata", "name"]).and_then(Value::as_str).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::discovery::Scope;
    use kube_wire::media_type::{Accept, MediaType};
    use kube_wire::testdata::resource_type;

    fn state(query: &str) -> ViewState {
        ViewState::from_search(query)
    }

    fn pods() -> ResourceType {
        resource_type("", "v1", "pods", Scope::Namespaced)
    }

    fn nodes() -> ResourceType {
        resource_type("", "v1", "nodes", Scope::Cluster)
    }

    #[test]
    fn a_cluster_scoped_type_ignores_the_views_namespace() {
        let target = state("?namespace=demo").collection_target(&nodes()).expect("target");
        assert_eq!(target.collection.path(), "/api/v1/nodes");
        assert!(!target.across_namespaces);
        let object = state("?namespace=demo").object_target(&nodes(), "n1").expect("object");
        assert_eq!(object.path(), "/api/v1/nodes/n1");
    }

    #[test]
    fn a_namespaced_type_without_a_namespace_is_listed_across_all() {
        let across = state("").collection_target(&pods()).expect("target");
        assert_eq!(across.collection.path(), "/api/v1/pods");
        assert!(across.across_namespaces);
        let one = state("?namespace=demo").collection_target(&pods()).expect("target");
        assert_eq!(one.collection.path(), "/api/v1/namespaces/demo/pods");
        assert!(!one.across_namespaces);
    }

    #[test]
    fn a_table_page_asks_for_columns_only_unless_rows_need_their_metadata() {
        let demo = state("?namespace=demo");
        let target = demo.collection_target(&pods()).expect("target");
        let plan = demo.page_plan(&target, None, RowObjects::AsNeeded).expect("plan");
        assert_eq!(
            plan.request.path_and_query(),
            "/api/v1/namespaces/demo/pods?limit=500&pretty=false&includeObject=None"
        );
        assert_eq!(plan.shape, PageShape::Grid);
        assert_eq!(plan.request.header_value("accept"), Some(Accept::table().to_string().as_str()));

        let all = state("");
        let target = all.collection_target(&pods()).expect("target");
        let first = all.page_plan(&target, None, RowObjects::ColumnsOnly).expect("plan");
        assert!(first.request.path_and_query().ends_with("includeObject=None"));
        let joined = all.page_plan(&target, None, RowObjects::AsNeeded).expect("plan");
        assert!(!joined.request.path_and_query().contains("includeObject"), "{}", joined.request.path_and_query());
    }

    #[test]
    fn table_and_metadata_pages_are_grids_and_other_pages_are_not() {
        let target = state("").collection_target(&pods()).expect("target");
        for (query, grid) in [("", true), ("?as=metadata", true), ("?as=json", false), ("?as=yaml", false)] {
            let plan = state(query).page_plan(&target, None, RowObjects::ColumnsOnly).expect("plan");
            assert_eq!(plan.shape.is_grid(), grid, "{query}");
        }
    }

    #[test]
    fn the_representation_decides_accept_and_shape_with_or_without_fallback() {
        let target = state("").collection_target(&pods()).expect("target");
        for (query, accept, shape) in [
            ("?as=json", Accept::only(MediaType::json()), PageShape::Document),
            ("?as=metadata", Accept::metadata_only_list(), PageShape::Grid),
            ("?as=protobuf", Accept::protobuf_or_json(), PageShape::Document),
            ("?as=protobuf&fallback=0", Accept::only(MediaType::protobuf()), PageShape::Document),
        ] {
            let view = state(query);
            let plan = view.page_plan(&target, None, RowObjects::ColumnsOnly).expect("plan");
            assert_eq!(plan.request.header_value("accept"), Some(accept.to_string().as_str()), "{query}");
            assert_eq!(plan.shape, shape, "{query}");
            assert!(!plan.request.path_and_query().contains("includeObject"), "{query}");
        }
    }

    #[test]
    fn a_single_object_is_read_as_json_when_the_view_is_a_table() {
        let view = state("?namespace=demo");
        let object = view.object_target(&pods(), "web-1").expect("object");
        let plan = view.object_plan(&object);
        assert_eq!(plan.request.path_and_query(), "/api/v1/namespaces/demo/pods/web-1?pretty=false");
        assert_eq!(plan.request.header_value("accept"), Some("application/json"));
        assert_eq!(plan.shape, PageShape::Document);
        let yaml = state("?namespace=demo&as=yaml").object_plan(&object);
        assert_eq!(yaml.request.header_value("accept"), Some("application/yaml"));
    }

    #[test]
    fn the_rows_metadata_of_a_first_page_are_read_at_its_resource_version_exactly() {
        let view = state("");
        let target = view.collection_target(&pods()).expect("target");
        let request = view.rows_metadata_request(&target, None, Some(ResourceVersion::new("42"))).expect("request");
        let query = request.path_and_query();
        assert!(query.contains("resourceVersion=42") && query.contains("resourceVersionMatch=Exact"), "{query}");
        assert_eq!(request.header_value("accept"), Some(Accept::metadata_only_list().to_string().as_str()));
    }

    #[test]
    fn a_watch_follows_the_views_representation_selectors_and_fallback() {
        let target = state("").collection_target(&pods()).expect("target");
        let table = state("?labelSelector=app%3Dweb").watch_config(&target);
        assert_eq!(table.accept, Accept::table());
        assert_eq!(table.include_object, Some(IncludeObject::Object));
        assert_eq!(table.label_selector.as_deref(), Some("app=web"));
        let only = state("?fallback=0").watch_config(&target);
        assert_eq!(only.accept, Representation::Table.accept(Reading::List, Fallback::Refused));
        let cbor = state("?as=cbor").watch_config(&target);
        assert_eq!(cbor.accept, Accept::only(MediaType::cbor()));
        assert_eq!(cbor.include_object, None);
        let yaml = state("?as=yaml&fieldSelector=%20").watch_config(&target);
        assert_eq!(yaml.accept, Accept::only(MediaType::json()));
        assert_eq!(yaml.field_selector, None);
        let protobuf = state("?as=protobuf").watch_config(&target);
        assert_eq!(protobuf.accept, Accept::protobuf_or_json());
        assert_eq!(
            protobuf.watch_accept().to_string(),
            "application/vnd.kubernetes.protobuf;stream=watch,application/json"
        );
        let protobuf_only = state("?as=protobuf&fallback=0").watch_config(&target);
        assert_eq!(protobuf_only.accept.to_string(), "application/vnd.kubernetes.protobuf");
        assert_eq!(protobuf_only.watch_accept().to_string(), "application/vnd.kubernetes.protobuf;stream=watch");
    }

    #[test]
    fn the_namespace_selector_reads_one_compact_page_of_500_names() {
        let request = namespaces_request();
        assert_eq!(request.path_and_query(), "/api/v1/namespaces?limit=500&pretty=false");
        assert_eq!(request.header_value("accept"), Some("application/json"));
        let list = kube_wire::codec::json::decode_json(
            br#"{"kind":"NamespaceList","items":[{"metadata":{"name":"demo"}},{"metadata":{}},{"metadata":{"name":"shop"}}]}"#,
        )
        .expect("list");
        assert_eq!(namespace_names(&list), ["demo", "shop"]);
    }

    #[test]
    fn a_pods_log_is_read_as_text_and_other_subresources_as_compact_json() {
        let options = LogOptions { container: Some("app".into()), timestamps: true, ..LogOptions::default() };
        let log = subresource_request(&pods(), Some("demo"), "web-1", "log", &options).expect("log");
        assert_eq!(log.path_and_query(), "/api/v1/namespaces/demo/pods/web-1/log?container=app&timestamps=true");
        assert_eq!(log.header_value("accept"), Some("text/plain, */*"));
        let status = subresource_request(&nodes(), Some("demo"), "n1", "status", &options).expect("status");
        assert_eq!(status.path_and_query(), "/api/v1/nodes/n1/status?pretty=false");
        assert_eq!(status.header_value("accept"), Some("application/json"));
        assert!(subresource_request(&pods(), Some("demo"), "web-1", "a/b", &options).is_err());
        let names = names_request(&pods(), Some("demo")).expect("names");
        assert_eq!(names.path_and_query(), "/api/v1/namespaces/demo/pods?limit=500&pretty=false");
        assert!(names
            .header_value("accept")
            .is_some_and(|a| a.starts_with("application/json;as=PartialObjectMetadataList")));
        assert_eq!(
            names_request(&nodes(), Some("demo")).expect("names").path_and_query(),
            "/api/v1/nodes?limit=500&pretty=false"
        );
    }
}
