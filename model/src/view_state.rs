//! What the explorer is looking at, as it lives in the URL query, so that reloading or sharing a
//! link reproduces the view and back/forward move between views.
//!
//! Parsing is total: an unknown or malformed parameter falls back to its default and is reported
//! in [`ViewState::ignored`], never silently kept as a string the rest of the app must re-check.

use std::fmt;

use kube_wire::media_type::{Accept, Conversion, MediaType};
use kube_wire::params::{ListOptions, ListParams, ParamsError, ResourceVersionMatch};
use kube_wire::view::list::{ContinueToken, ResourceVersion};

/// The page sizes offered; 500 is kubectl's default chunk size.
pub const PAGE_SIZES: [u32; 5] = [50, 100, 500, 1000, 5000];
/// The default page size, as `kubectl get`.
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// The representation the user asked the server for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Representation {
    /// Server-side `Table` (then JSON when the server cannot convert).
    #[default]
    Table,
    Json,
    Yaml,
    Cbor,
    /// `PartialObjectMetadata[List]`, with the full object at `q=0.9` as the fallback.
    Metadata,
    /// The Kubernetes protobuf envelope, with JSON as the fallback.
    Protobuf,
}

impl Representation {
    pub const ALL: [Representation; 6] = [
        Representation::Table,
        Representation::Json,
        Representation::Yaml,
        Representation::Cbor,
        Representation::Metadata,
        Representation::Protobuf,
    ];

    /// The word used in the URL and on the switcher.
    pub fn as_str(self) -> &'static str {
        match self {
            Representation::Table => "table",
            Representation::Json => "json",
            Representation::Yaml => "yaml",
            Representation::Cbor => "cbor",
            Representation::Metadata => "metadata",
            Representation::Protobuf => "protobuf",
        }
    }

    /// The label on the switcher.
    pub fn label(self) -> &'static str {
        match self {
            Representation::Table => "Table",
            Representation::Json => "JSON",
            Representation::Yaml => "YAML",
            Representation::Cbor => "CBOR",
            Representation::Metadata => "Metadata only",
            Representation::Protobuf => "Protobuf",
        }
    }

    /// Parses the URL word.
    pub fn parse(word: &str) -> Option<Representation> {
        Representation::ALL.into_iter().find(|r| r.as_str() == word)
    }

    /// The `Accept` header that asks for this representation, for a collection, one object or a
    /// watch: the one rule from a representation to what a request accepts. With
    /// [`Fallback::Json`], Table, metadata-only and protobuf fall back to JSON as kubectl does;
    /// YAML and CBOR are always asked for alone, so that a server that cannot give them answers 406
    /// rather than something else. With [`Fallback::Refused`] nothing but the representation is
    /// asked for. A watch reads protobuf as `;stream=watch` (the length-prefixed frames), and
    /// metadata-only as single `PartialObjectMetadata` events, as client-go's metadata client does.
    pub fn accept(self, reading: Reading, fallback: Fallback) -> Accept {
        let alone = fallback == Fallback::Refused;
        let metadata = match reading {
            Reading::List => Conversion::partial_object_metadata_list(),
            Reading::Object | Reading::Watch => Conversion::partial_object_metadata(),
        };
        let protobuf = match reading {
            Reading::Watch => MediaType::protobuf_watch(),
            Reading::List | Reading::Object => MediaType::protobuf(),
        };
        match self {
            Representation::Table if alone => Accept::only(MediaType::json().with_conversion(Conversion::table())),
            Representation::Table => Accept::table(),
            Representation::Json => Accept::only(MediaType::json()),
            Representation::Yaml => Accept::only(MediaType::yaml()),
            Representation::Cbor => Accept::only(MediaType::cbor()),
            Representation::Metadata if alone => Accept::only(MediaType::json().with_conversion(metadata)),
            Representation::Metadata if reading == Reading::List => Accept::metadata_only_list(),
            Representation::Metadata => Accept::metadata_only(),
            Representation::Protobuf if alone => Accept::only(protobuf),
            Representation::Protobuf => Accept::only(protobuf).or(MediaType::json()),
        }
    }
}

/// What a request reads: a collection (a list), one object, or a collection's changes (a watch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    List,
    Object,
    Watch,
}

/// Whether a server that cannot give the representation asked for may answer in JSON instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Table, metadata-only and protobuf fall back to JSON.
    Json,
    /// The representation alone: a server that cannot give it answers 406 Not Acceptable.
    Refused,
}

impl fmt::Display for Representation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// `resourceVersionMatch` as the URL carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VersionMatch {
    NotOlderThan,
    Exact,
}

impl VersionMatch {
    /// The parameter's value.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionMatch::NotOlderThan => "NotOlderThan",
            VersionMatch::Exact => "Exact",
        }
    }

    /// Parses the parameter's value.
    pub fn parse(word: &str) -> Option<VersionMatch> {
        [VersionMatch::NotOlderThan, VersionMatch::Exact].into_iter().find(|m| m.as_str() == word)
    }

    fn to_api(self) -> ResourceVersionMatch {
        match self {
            VersionMatch::NotOlderThan => ResourceVersionMatch::NotOlderThan,
            VersionMatch::Exact => ResourceVersionMatch::Exact,
        }
    }
}

/// Which resource type: group (empty for core), version and plural name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceKey {
    pub group: String,
    pub version: String,
    pub plural: String,
}

/// The fields of a view whose change restarts its watch (a live collection): the collection,
/// its representation and selectors. Any other field (columns, a page size) leaves it running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveKey {
    resource: Option<ResourceKey>,
    namespace: Option<String>,
    representation: Representation,
    label_selector: String,
    field_selector: String,
    fallback: Fallback,
}

/// The fields of a view whose change reads a paged collection again from its first page: those
/// of [`LiveKey`], the page size and the snapshot the first page is read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageKey {
    live: LiveKey,
    limit: u32,
    resource_version: String,
    resource_version_match: Option<VersionMatch>,
}

/// The whole view, as the URL query carries it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ViewState {
    pub resource: Option<ResourceKey>,
    /// `None` means all namespaces.
    pub namespace: Option<String>,
    /// An object of the collection, when one is open.
    pub name: Option<String>,
    pub representation: Representation,
    pub label_selector: String,
    pub field_selector: String,
    pub limit: u32,
    /// Priority-1 columns shown (`kubectl get -o wide`).
    pub wide: bool,
    /// Whether the collection is kept live by a watch (`Some(true)`) or read a page at a time
    /// (`Some(false)`); `None` leaves it to [`ViewState::is_live`]'s default.
    pub watch: Option<bool>,
    /// `resourceVersion` of the first page (empty: unset, the most recent state).
    pub resource_version: String,
    /// `resourceVersionMatch` of the first page.
    pub resource_version_match: Option<VersionMatch>,
    /// Ask for the representation alone, without the JSON fallback (a server that cannot give
    /// it answers 406).
    pub no_fallback: bool,
    /// The Access view (what the user may do here) instead of the overview; only without a
    /// resource.
    pub access: bool,
    /// The Search screen (objects of every type, by part of their name and/or a label selector),
    /// with the part of a name searched for (possibly empty); only without a resource.
    pub search: Option<String>,
    /// The Search screen's label selector (`searchLabels`: the collection views' own
    /// `labelSelector` stays theirs).
    pub search_labels: String,
    /// The Search screen's owner (`searchOwner`): the uid whose dependents are searched for.
    pub search_owner: String,
    /// The schema explorer (`explain=`): the dotted path of the field shown (empty for the kind
    /// itself), of the resource's kind; without a resource, the list of kinds to explain.
    pub explain: Option<String>,
    /// The other version of the kind the schema explorer compares with (`compare=v1beta1`).
    pub compare: Option<String>,
    /// Parameters that were present but not understood, with why.
    pub ignored: Vec<String>,
}

impl ViewState {
    /// A view of nothing yet, with the default page size.
    pub fn new() -> Self {
        ViewState { limit: DEFAULT_PAGE_SIZE, ..ViewState::default() }
    }

    /// Reads the view from URL query pairs (already percent-decoded).
    pub fn from_query<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut state = ViewState::new();
        let (mut group, mut version, mut plural) = (None, None, None);
        for (key, value) in pairs {
            match key {
                "group" => group = Some(value.to_owned()),
                "version" if !value.is_empty() => version = Some(value.to_owned()),
                "resource" if !value.is_empty() => plural = Some(value.to_owned()),
                "namespace" if !value.is_empty() => state.namespace = Some(value.to_owned()),
                "name" if !value.is_empty() => state.name = Some(value.to_owned()),
                "as" => match Representation::parse(value) {
                    Some(r) => state.representation = r,
                    None => state
                        .ignored
                        .push(format!("as={value}: expected one of table, json, yaml, cbor, metadata, protobuf")),
                },
                "labelSelector" => state.label_selector = value.to_owned(),
                "fieldSelector" => state.field_selector = value.to_owned(),
                "limit" => match value.parse::<u32>() {
                    Ok(n) if n > 0 => state.limit = n,
                    _ => state.ignored.push(format!("limit={value}: expected a positive whole number")),
                },
                "wide" => state.wide = value == "1" || value == "true",
                "watch" => match value {
                    "1" | "true" => state.watch = Some(true),
                    "0" | "false" => state.watch = Some(false),
                    _ => state.ignored.push(format!("watch={value}: expected 1 (live) or 0 (a page at a time)")),
                },
                "access" => state.access = value == "1" || value == "true",
                "search" => state.search = Some(value.to_owned()),
                "searchLabels" => state.search_labels = value.to_owned(),
                "searchOwner" => state.search_owner = value.to_owned(),
                "explain" => state.explain = Some(value.trim_matches('.').to_owned()),
                "compare" if !value.is_empty() => state.compare = Some(value.to_owned()),
                "resourceVersion" => state.resource_version = value.to_owned(),
                "resourceVersionMatch" => match VersionMatch::parse(value) {
                    Some(m) => state.resource_version_match = Some(m),
                    None => state.ignored.push(format!("resourceVersionMatch={value}: expected NotOlderThan or Exact")),
                },
                "fallback" => state.no_fallback = value == "0" || value == "false",
                // The host's settings (embed, api-base, ...) are read by `model::host`.
                other if crate::host::HOST_PARAMS.contains(&other) => {}
                other => state.ignored.push(format!("{other}: not a parameter of the explorer")),
            }
        }
        if state.search.is_none() && !(state.search_labels.is_empty() && state.search_owner.is_empty()) {
            state.search = Some(String::new());
        }
        state.resource = match (group, version, plural) {
            (group, Some(version), Some(plural)) => {
                Some(ResourceKey { group: group.unwrap_or_default(), version, plural })
            }
            (None, None, None) => None,
            _ => {
                state.ignored.push("resource: needs group, version and resource together".to_owned());
                None
            }
        };
        state
    }

    /// The URL query pairs of this view; defaults are left out so links stay short.
    pub fn to_query(&self) -> Vec<(&'static str, String)> {
        let mut query = Vec::new();
        if let Some(resource) = &self.resource {
            query.push(("group", resource.group.clone()));
            query.push(("version", resource.version.clone()));
            query.push(("resource", resource.plural.clone()));
        }
        if let Some(namespace) = &self.namespace {
            query.push(("namespace", namespace.clone()));
        }
        if let Some(name) = &self.name {
            query.push(("name", name.clone()));
        }
        if self.representation != Representation::default() {
            query.push(("as", self.representation.as_str().to_owned()));
        }
        if !self.label_selector.is_empty() {
            query.push(("labelSelector", self.label_selector.clone()));
        }
        if !self.field_selector.is_empty() {
            query.push(("fieldSelector", self.field_selector.clone()));
        }
        if self.limit != DEFAULT_PAGE_SIZE {
            query.push(("limit", self.limit.to_string()));
        }
        if self.wide {
            query.push(("wide", "1".to_owned()));
        }
        if let Some(live) = self.watch {
            query.push(("watch", if live { "1" } else { "0" }.to_owned()));
        }
        if self.access {
            query.push(("access", "1".to_owned()));
        }
        // The search belongs to the Search screen, which shows no resource: a link to an object
        // found does not carry it.
        if let (Some(search), None) = (&self.search, &self.resource) {
            query.push(("search", search.clone()));
            if !self.search_labels.is_empty() {
                query.push(("searchLabels", self.search_labels.clone()));
            }
            if !self.search_owner.is_empty() {
                query.push(("searchOwner", self.search_owner.clone()));
            }
        }
        if let Some(path) = &self.explain {
            query.push(("explain", path.clone()));
            if let (Some(compare), Some(_)) = (&self.compare, &self.resource) {
                query.push(("compare", compare.clone()));
            }
        }
        if !self.resource_version.is_empty() {
            query.push(("resourceVersion", self.resource_version.clone()));
        }
        if let Some(m) = self.resource_version_match {
            query.push(("resourceVersionMatch", m.as_str().to_owned()));
        }
        if self.no_fallback {
            query.push(("fallback", "0".to_owned()));
        }
        query
    }

    /// Opens the collection of `resource` as the sidebar and the group cards do: no object, the
    /// selectors cleared and live or paged left to the default; the namespace, representation and
    /// page size are kept.
    pub fn open_collection(&mut self, resource: ResourceKey) {
        self.resource = Some(resource);
        self.name = None;
        self.access = false;
        self.explain = None;
        self.compare = None;
        self.watch = None;
        self.label_selector.clear();
        self.field_selector.clear();
    }

    /// Whether the collection is shown live (list, then watch) rather than a page at a time. The
    /// user's choice in the URL wins; without one a collection opens live when
    /// `live_by_default` (the user's setting) and the view is the grid of the default Table
    /// representation read at the most recent state. A document representation (JSON, YAML,
    /// CBOR, metadata, protobuf) shows the page's text, which a watch cannot keep, and a read at a
    /// given resourceVersion asks for a snapshot: both open paged.
    pub fn is_live(&self, live_by_default: bool) -> bool {
        self.watch.unwrap_or(
            live_by_default
                && self.representation == Representation::Table
                && self.resource_version.trim().is_empty()
                && self.resource_version_match.is_none(),
        )
    }

    /// The list parameters of the page after `token` (the first page without one). The first page
    /// carries the view's selectors, page size and resourceVersion/resourceVersionMatch; later
    /// pages carry the continue token instead of a resource version, as the token holds the
    /// snapshot. A combination the concepts page calls invalid is refused with its rule.
    pub fn list_params(&self, token: Option<ContinueToken>) -> Result<ListParams, ParamsError> {
        let non_empty = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
        let first = ListParams::new(ListOptions {
            label_selector: non_empty(&self.label_selector),
            field_selector: non_empty(&self.field_selector),
            limit: Some(self.limit),
            resource_version: non_empty(&self.resource_version).map(ResourceVersion::new),
            resource_version_match: self.resource_version_match.map(VersionMatch::to_api),
            continue_token: None,
        })?;
        Ok(match token {
            Some(token) => first.next_page(token),
            None => first,
        })
    }

    /// The list parameters that read a page again at the snapshot it was served from: with the
    /// page's own continue token when it had one (the token holds the snapshot), else at the
    /// list's resourceVersion, read `Exact`. Used to fetch, as a metadata-only list, the rows'
    /// metadata of a Table page asked with `includeObject=None`.
    pub fn same_page_params(
        &self,
        token: Option<ContinueToken>,
        list_version: Option<ResourceVersion>,
    ) -> Result<ListParams, ParamsError> {
        match (token, list_version) {
            (Some(token), _) => self.list_params(Some(token)),
            (None, Some(version)) => {
                let first = self.list_params(None)?;
                ListParams::new(ListOptions {
                    resource_version: Some(version),
                    resource_version_match: Some(ResourceVersionMatch::Exact),
                    ..first.options().clone()
                })
            }
            (None, None) => self.list_params(None),
        }
    }

    /// What restarts this view's watch ([`LiveKey`]).
    pub fn live_key(&self) -> LiveKey {
        LiveKey {
            resource: self.resource.clone(),
            namespace: self.namespace.clone(),
            representation: self.representation,
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector.clone(),
            fallback: self.fallback(),
        }
    }

    /// What reads this view's collection again from its first page ([`PageKey`]).
    pub fn page_key(&self) -> PageKey {
        PageKey {
            live: self.live_key(),
            limit: self.limit,
            resource_version: self.resource_version.clone(),
            resource_version_match: self.resource_version_match,
        }
    }

    /// Whether this view lets the server fall back to JSON (the URL's `fallback=0` refuses it).
    pub fn fallback(&self) -> Fallback {
        if self.no_fallback {
            Fallback::Refused
        } else {
            Fallback::Json
        }
    }

    /// The `Accept` header for this view's representation when it reads `reading`.
    pub fn accept(&self, reading: Reading) -> Accept {
        self.representation.accept(reading, self.fallback())
    }

    /// The query string (`?a=b&c=d`, or empty), percent-encoded.
    pub fn to_search(&self) -> String {
        let query = self.to_query();
        if query.is_empty() {
            return String::new();
        }
        let encoded = form_urlencoded::Serializer::new(String::new()).extend_pairs(query).finish();
        format!("?{encoded}")
    }

    /// Reads the view from a `location.search` string (with or without the leading `?`).
    pub fn from_search(search: &str) -> Self {
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(search.trim_start_matches('?').as_bytes()).into_owned().collect();
        ViewState::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_round_trip(search: &str) {
        let state = ViewState::from_search(search);
        assert!(state.ignored.is_empty(), "{:?}", state.ignored);
        assert_eq!(state.to_search(), search);
    }

    #[test]
    fn a_full_view_round_trips_through_the_query_string() {
        check_round_trip("?group=apps&version=v1&resource=deployments&namespace=demo&name=web&as=yaml&labelSelector=app+in+%28web%29&fieldSelector=metadata.name%3Dweb&limit=50&wide=1&watch=1");
        check_round_trip("?group=&version=v1&resource=pods");
        check_round_trip("?group=&version=v1&resource=pods&resourceVersion=42&resourceVersionMatch=Exact&fallback=0");
        check_round_trip("?namespace=demo&access=1");
        check_round_trip("?group=&version=v1&resource=pods&watch=0");
        check_round_trip("?namespace=demo&search=web&searchLabels=app+in+%28web%2Capi%29");
        check_round_trip("?search=");
        check_round_trip("");
    }

    #[test]
    fn a_collection_opens_live_unless_read_by_pages_or_asked_for_a_snapshot_or_a_document() {
        let opened = ViewState::from_search("?group=&version=v1&resource=pods");
        assert!(opened.is_live(true));
        assert!(!opened.is_live(false), "the setting turns the default off");
        let pages = ViewState::from_search("?group=&version=v1&resource=pods&watch=0");
        assert_eq!(pages.watch, Some(false));
        assert!(!pages.is_live(true));
        assert_eq!(pages.to_search(), "?group=&version=v1&resource=pods&watch=0");
        let live = ViewState::from_search("?group=&version=v1&resource=pods&as=cbor&watch=1");
        assert!(live.is_live(false), "an explicit choice wins over the setting");
        for document in ["json", "yaml", "cbor", "metadata", "protobuf"] {
            let state = ViewState::from_search(&format!("?group=&version=v1&resource=pods&as={document}"));
            assert!(!state.is_live(true), "as={document} shows the page's text");
        }
        let snapshot = ViewState::from_search("?group=&version=v1&resource=pods&resourceVersion=42");
        assert!(!snapshot.is_live(true), "a read at a resourceVersion is a snapshot");
        let mut other = pages.clone();
        other.label_selector = "app=web".into();
        other.open_collection(ResourceKey { group: "apps".into(), version: "v1".into(), plural: "deployments".into() });
        assert_eq!(other.to_search(), "?group=apps&version=v1&resource=deployments", "opened at the default again");
        let bad = ViewState::from_search("?watch=yes");
        assert_eq!(bad.watch, None);
        assert!(bad.ignored[0].contains("expected 1 (live) or 0 (a page at a time)"), "{:?}", bad.ignored);
    }

    #[test]
    fn the_search_screen_is_open_with_either_of_its_parameters_and_only_without_a_resource() {
        let state = ViewState::from_search("?searchLabels=app%3Dweb");
        assert_eq!(state.search.as_deref(), Some(""));
        assert_eq!(state.search_labels, "app=web");
        assert_eq!(state.to_search(), "?search=&searchLabels=app%3Dweb");
        assert_eq!(ViewState::from_search("").search, None);

        let mut found = ViewState::from_search("?search=web&searchLabels=app%3Dweb&namespace=demo");
        found.resource = Some(ResourceKey { group: "apps".into(), version: "v1".into(), plural: "deployments".into() });
        found.name = Some("web".into());
        assert_eq!(found.to_search(), "?group=apps&version=v1&resource=deployments&namespace=demo&name=web");
    }

    #[test]
    fn the_schema_explorer_carries_the_field_and_the_version_compared() {
        check_round_trip("?group=apps&version=v1&resource=deployments&explain=spec.template.spec.containers");
        check_round_trip("?group=example.com&version=v1&resource=widgets&explain=&compare=v1beta1");
        check_round_trip("?explain=");
        let state = ViewState::from_search("?group=apps&version=v1&resource=deployments&explain=.spec.replicas");
        assert_eq!(state.explain.as_deref(), Some("spec.replicas"), "a leading dot as in jsonPath is dropped");
        // Without a resource there is no version to compare.
        assert_eq!(ViewState::from_search("?explain=&compare=v1").to_search(), "?explain=");
        let mut opened =
            ViewState::from_search("?group=example.com&version=v1&resource=widgets&explain=spec&compare=v1beta1");
        opened.open_collection(ResourceKey { group: "".into(), version: "v1".into(), plural: "pods".into() });
        assert_eq!((opened.explain, opened.compare), (None, None));
    }

    #[test]
    fn defaults_are_the_table_and_kubectls_page_size() {
        let state = ViewState::from_search("");
        assert_eq!(state.representation, Representation::Table);
        assert_eq!(state.limit, 500);
        assert_eq!(state.namespace, None);
    }

    #[test]
    fn bad_parameters_fall_back_and_say_why() {
        let state = ViewState::from_search("?as=xml&limit=-3&resource=pods&colour=red");
        assert_eq!(state.representation, Representation::Table);
        assert_eq!(state.limit, 500);
        assert_eq!(state.resource, None);
        assert_eq!(state.ignored.len(), 4, "{:?}", state.ignored);
        assert!(state.ignored[0].contains("expected one of table"));
        assert!(state.ignored[1].contains("expected a positive whole number"));
    }

    #[test]
    fn the_same_page_is_read_again_at_its_snapshot() {
        let state = ViewState::from_search("?limit=50&labelSelector=app%3Dweb&resourceVersion=0");
        let first = state.same_page_params(None, Some(ResourceVersion::new("812"))).expect("valid");
        let query = first.query();
        for pair in [
            ("resourceVersion", "812"),
            ("resourceVersionMatch", "Exact"),
            ("limit", "50"),
            ("labelSelector", "app=web"),
        ] {
            assert!(query.contains(&(pair.0.into(), pair.1.into())), "{pair:?} in {query:?}");
        }
        let later =
            state.same_page_params(ContinueToken::new("tok"), Some(ResourceVersion::new("812"))).expect("valid");
        assert_eq!(later, state.list_params(ContinueToken::new("tok")).expect("valid"));
        assert_eq!(state.same_page_params(None, None), state.list_params(None));
    }

    #[test]
    fn list_params_follow_the_concepts_table() {
        let state =
            ViewState::from_search("?resourceVersion=42&resourceVersionMatch=Exact&limit=50&labelSelector=app%3Dweb");
        let first = state.list_params(None).expect("valid");
        assert_eq!(first.semantics().to_string(), "Exact");
        let query = first.query();
        assert!(query.contains(&("resourceVersion".into(), "42".into())), "{query:?}");
        assert!(query.contains(&("labelSelector".into(), "app=web".into())), "{query:?}");
        let next = state.list_params(ContinueToken::new("tok")).expect("valid");
        assert!(!next.query().iter().any(|(k, _)| k == "resourceVersion" || k == "resourceVersionMatch"));
        assert!(next.query().contains(&("continue".into(), "tok".into())));

        let bad = ViewState::from_search("?resourceVersionMatch=NotOlderThan");
        let error = bad.list_params(None).expect_err("match without version");
        assert!(error.to_string().contains("without setting resourceVersion is not valid"), "{error}");
        let bad = ViewState::from_search("?resourceVersion=0&resourceVersionMatch=Exact");
        assert_eq!(bad.list_params(None), Err(ParamsError::ExactAtAny));
        let ignored = ViewState::from_search("?resourceVersionMatch=Newest");
        assert!(ignored.ignored[0].contains("expected NotOlderThan or Exact"));
    }

    #[test]
    fn without_the_fallback_only_the_representation_is_asked_for() {
        let state = ViewState::from_search("?as=protobuf&fallback=0");
        assert_eq!(state.accept(Reading::List).to_string(), "application/vnd.kubernetes.protobuf");
        assert_eq!(state.accept(Reading::Watch).to_string(), "application/vnd.kubernetes.protobuf;stream=watch");
        assert_eq!(
            ViewState::from_search("?as=table&fallback=0").accept(Reading::List).to_string(),
            "application/json;as=Table;g=meta.k8s.io;v=v1"
        );
        assert_eq!(
            ViewState::from_search("?as=yaml&fallback=0").accept(Reading::Object).to_string(),
            "application/yaml"
        );
        assert_eq!(
            ViewState::from_search("?as=metadata&fallback=0").accept(Reading::Object).to_string(),
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
        );
    }

    #[test]
    fn only_the_fields_that_change_what_is_read_restart_a_watch_or_a_paged_list() {
        let base = ViewState::from_search("?group=&version=v1&resource=pods&namespace=demo&limit=50");
        let (live, page) = (base.live_key(), base.page_key());
        let changed = |change: fn(&mut ViewState)| {
            let mut other = base.clone();
            change(&mut other);
            (other.live_key(), other.page_key())
        };
        // Shown differently, read the same: neither key moves.
        let shown: [fn(&mut ViewState); 3] =
            [|s| s.wide = true, |s| s.watch = Some(true), |s| s.name = Some("web-1".into())];
        for (i, change) in shown.into_iter().enumerate() {
            assert_eq!(changed(change), (live.clone(), page.clone()), "shown #{i}");
        }
        // Another page size or snapshot reads the list again, and leaves a watch running.
        let paged: [fn(&mut ViewState); 3] = [
            |s| s.limit = 10,
            |s| s.resource_version = "5".into(),
            |s| s.resource_version_match = Some(VersionMatch::Exact),
        ];
        for (i, change) in paged.into_iter().enumerate() {
            let (other_live, other_page) = changed(change);
            assert_eq!(other_live, live, "paged #{i}");
            assert_ne!(other_page, page, "paged #{i}");
        }
        // Another collection, representation, selector or fallback restarts both.
        let read: [fn(&mut ViewState); 6] = [
            |s| s.namespace = None,
            |s| s.resource.as_mut().expect("resource").plural = "configmaps".into(),
            |s| s.representation = Representation::Yaml,
            |s| s.label_selector = "app=web".into(),
            |s| s.field_selector = "a=b".into(),
            |s| s.no_fallback = true,
        ];
        for (i, change) in read.into_iter().enumerate() {
            let (other_live, other_page) = changed(change);
            assert_ne!(other_live, live, "read #{i}");
            assert_ne!(other_page, page, "read #{i}");
        }
    }

    #[test]
    fn host_parameters_are_not_the_views_business() {
        let state = ViewState::from_search("?embed=1&api-base=%2Fk8s&resource=pods&version=v1");
        assert!(state.ignored.is_empty(), "{:?}", state.ignored);
        assert_eq!(state.to_search(), "?group=&version=v1&resource=pods");
    }

    #[test]
    fn each_representation_asks_for_its_media_type() {
        assert_eq!(
            Representation::Table.accept(Reading::List, Fallback::Json).to_string(),
            "application/json;as=Table;g=meta.k8s.io;v=v1,application/json;as=Table;g=meta.k8s.io;v=v1beta1,application/json"
        );
        let (list, object, watch) = (Reading::List, Reading::Object, Reading::Watch);
        for reading in [list, object, watch] {
            assert_eq!(Representation::Cbor.accept(reading, Fallback::Json).to_string(), "application/cbor");
            assert_eq!(Representation::Json.accept(reading, Fallback::Refused).to_string(), "application/json");
        }
        let metadata = |reading| Representation::Metadata.accept(reading, Fallback::Json).to_string();
        assert!(metadata(list).contains("as=PartialObjectMetadataList"));
        assert!(metadata(object).contains("as=PartialObjectMetadata;"));
        // client-go's metadata client watches single PartialObjectMetadata events.
        assert!(metadata(watch).contains("as=PartialObjectMetadata;"));
        assert_eq!(
            Representation::Protobuf.accept(list, Fallback::Json).to_string(),
            "application/vnd.kubernetes.protobuf,application/json"
        );
        assert_eq!(
            Representation::Protobuf.accept(watch, Fallback::Json).to_string(),
            "application/vnd.kubernetes.protobuf;stream=watch,application/json"
        );
        for r in Representation::ALL {
            assert_eq!(Representation::parse(r.as_str()), Some(r));
        }
    }
}
