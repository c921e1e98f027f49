//! Search across types: find objects whose type the user does not know, by part of their name
//! and/or a label selector, in every resource type discovery lists with the `list` verb, in one
//! namespace (namespaced types) or the whole cluster (every type, namespaced ones across all
//! namespaces).
//!
//! What is decided here, without I/O: the [`SearchQuery`] read from the view (parsed, so a bad
//! label selector is an error quoting what was expected); the [`SearchPlan`] (which types are
//! listed, which are skipped because the access model already knows the user may not list them);
//! and the [`SearchRun`], the state machine the view's driver steps: it hands out each type's
//! first page request, takes each page read back (matching names here, since the API has no
//! name-substring filter), and records a type's 403 (skipped for lack of permission), its other
//! failures, or a stop.
//!
//! Invariants: a type's pages are metadata-only lists (`PartialObjectMetadataList`, `limit` and
//! `continue`) with the label selector sent to the server; only [`ObjectHead`]s are kept, at most
//! [`SHOWN_PER_TYPE`] a type (the others are counted), so a search over a big cluster holds
//! little; a failure of one type never loses what the others (or its own earlier pages) found; a
//! page that arrives for a type that is no longer being listed changes nothing.

use crate::access::{Decision, Question};
use crate::i18n::{Localized, Msg, Text};
use crate::view_state::{Fallback, Reading, Representation, ResourceKey, ViewState};
use kube_wire::body::{decode_body, Decoded};
use kube_wire::build::RequestBuilder;
use kube_wire::discovery::{Discovery, ResourceType};
use kube_wire::error::Format;
use kube_wire::media_type::MediaType;
use kube_wire::params::{ListOptions, ListParams, ParamsError};
use kube_wire::request::{Collection, Request, RequestError};
use kube_wire::selector::{LabelSelector, SelectorError};
use kube_wire::view::list::{ContinueToken, List};
use kube_wire::view::metadata::{heads_from_json, ObjectHead, ObjectHeadList, PartialObjectMetadataList};

/// Types listed at once. The browser opens about six connections per origin; watches may hold
/// three (`model::streams`) and access reviews run three at a time, so a search takes three and
/// does not starve the rest of the page.
pub const PARALLEL_TYPES: usize = 3;

/// Objects a metadata-only page asks for (kubectl's chunk size).
pub const PAGE_SIZE: u32 = 500;

/// Matches kept to show per type; the others are counted ("N more").
pub const SHOWN_PER_TYPE: usize = 100;

/// What the user searches for, read from the view.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    /// Part of a name, trimmed, as typed.
    pub name: String,
    /// `name` in ASCII lower case: names are matched without regard to case.
    needle: String,
    /// The label selector as typed (trimmed), sent to the server.
    pub label_text: String,
    /// The same, parsed: objects are checked against it here too, in case a server ignores it.
    pub labels: LabelSelector,
    /// The uid of the object whose dependents are searched for (any `ownerReferences` entry
    /// naming it), or empty: what `kubectl tree` finds, one metadata-only list per type.
    pub owner: String,
    /// `None`: the whole cluster.
    pub namespace: Option<String>,
    first_page: ListParams,
}

/// Why a search cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// Neither part of a name, a label selector nor an owner: that would list every object of the
    /// cluster.
    Nothing,
    /// The label selector does not parse.
    Labels { text: String, error: SelectorError },
    /// The list parameters were refused (cannot happen with a selector and a page size alone).
    Params(ParamsError),
}

impl Localized for QueryError {
    fn text(&self) -> Text {
        match self {
            QueryError::Nothing => Text::new(Msg::SearchNeedsQuery),
            QueryError::Labels { text, error } => {
                Text::new(Msg::SearchBadLabelSelector).with("selector", text).with_text("error", error)
            }
            QueryError::Params(error) => Text::new(Msg::NotSentError).with_text("error", error),
        }
    }
}

crate::localized_display!(QueryError);

impl SearchQuery {
    /// Reads a search: `name` (part of a name), `labels` (a label selector) and where.
    pub fn parse(name: &str, labels: &str, namespace: Option<&str>) -> Result<SearchQuery, QueryError> {
        SearchQuery::parse_owned(name, labels, "", namespace)
    }

    /// Reads a search that may also ask for what the object of uid `owner` owns.
    pub fn parse_owned(
        name: &str,
        labels: &str,
        owner: &str,
        namespace: Option<&str>,
    ) -> Result<SearchQuery, QueryError> {
        let name = name.trim().to_owned();
        let label_text = labels.trim().to_owned();
        let owner = owner.trim().to_owned();
        if name.is_empty() && label_text.is_empty() && owner.is_empty() {
            return Err(QueryError::Nothing);
        }
        let parsed = LabelSelector::parse(&label_text)
            .map_err(|error| QueryError::Labels { text: label_text.clone(), error })?;
        let first_page = ListParams::new(ListOptions {
            label_selector: (!label_text.is_empty()).then(|| label_text.clone()),
            limit: Some(PAGE_SIZE),
            ..ListOptions::default()
        })
        .map_err(QueryError::Params)?;
        Ok(SearchQuery {
            needle: name.to_ascii_lowercase(),
            name,
            label_text,
            labels: parsed,
            owner,
            namespace: namespace.map(str::to_owned).filter(|n| !n.is_empty()),
            first_page,
        })
    }

    /// The search the view holds: `None` when it is not the Search screen.
    pub fn from_view(state: &ViewState) -> Option<Result<SearchQuery, QueryError>> {
        let name = state.search.as_ref()?;
        Some(SearchQuery::parse_owned(name, &state.search_labels, &state.search_owner, state.namespace.as_deref()))
    }

    /// Whether `head` is a match: its name contains the searched part (any ASCII case), its
    /// labels satisfy the selector, and it is owned by the owner searched for, if any.
    pub fn matches(&self, head: &ObjectHead) -> bool {
        self.name_matches(head) && self.labels_match(head) && self.owner_matches(head)
    }

    fn owner_matches(&self, head: &ObjectHead) -> bool {
        self.owner.is_empty() || head.owners.contains(&self.owner)
    }

    fn name_matches(&self, head: &ObjectHead) -> bool {
        self.needle.is_empty() || head.name.to_ascii_lowercase().contains(&self.needle)
    }

    fn labels_match(&self, head: &ObjectHead) -> bool {
        self.labels.matches(|key| head.labels.get(key).map(String::as_str))
    }

    /// The search in words: `names containing "web", labels app=web, in demo`.
    pub fn describe(&self) -> Text {
        let names = Text::new(Msg::SearchNamesContaining).with("name", &self.name);
        let labels = Text::new(Msg::SearchLabels).with("selector", &self.label_text);
        let what = match (self.name.is_empty(), self.label_text.is_empty()) {
            (true, true) => None,
            (false, true) => Some(names),
            (true, false) => Some(labels),
            (false, false) => {
                Some(Text::new(Msg::SearchNamesAndLabels).with_text("names", names).with_text("labels", labels))
            }
        };
        let what = match (what, self.owner.is_empty()) {
            (Some(what), true) => what,
            (Some(what), false) => Text::new(Msg::SearchAndOwnedBy).with_text("what", what).with("owner", &self.owner),
            (None, _) => Text::new(Msg::SearchOwnedBy).with("owner", &self.owner),
        };
        match &self.namespace {
            Some(namespace) => Text::new(Msg::SearchInNamespace).with_text("what", what).with("namespace", namespace),
            None => Text::new(Msg::SearchInWholeCluster).with_text("what", what),
        }
    }

    /// The labels of `head` that the selector names, to show beside a match (none without a
    /// selector: every object has many).
    pub fn shown_labels(&self, head: &ObjectHead) -> Vec<(String, String)> {
        head.labels
            .iter()
            .filter(|(key, _)| self.labels.0.iter().any(|r| &r.key == *key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The request for the page after `token` (the first without one) of `collection`: a
    /// metadata-only list (the full list as the fallback a server that cannot convert answers).
    fn page_request(&self, collection: &Collection, token: Option<ContinueToken>) -> Request {
        let params = match token {
            Some(token) => self.first_page.next_page(token),
            None => self.first_page.clone(),
        };
        RequestBuilder::list(collection, &params, &Representation::Metadata.accept(Reading::List, Fallback::Json))
            .pretty(false)
            .build()
    }
}

/// A type the search does not list, or could not: the user may not list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub resource: ResourceType,
    pub when: SkipWhen,
    /// Why, in words (the server's own message for a 403).
    pub reason: Text,
    /// The `kubectl auth can-i` command that checks it.
    pub command: String,
}

/// When a type was found to be refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipWhen {
    /// Before the search: the access rules already said no, so nothing was sent.
    Known,
    /// During the search: the list answered 403 Forbidden.
    Answered,
}

/// Which types a search lists and which it skips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPlan {
    pub targets: Vec<ResourceType>,
    pub skipped: Vec<Skipped>,
}

/// The types to search: each type once, from its group's preferred version where that serves it
/// (other versions serve the same objects), as `kubectl api-resources` lists them, that allow
/// `list`, namespaced ones only in a namespace; a type `decide` says the
/// user may not list is skipped, anything else (allowed, unknown, not answered yet) is listed and
/// a 403 then skips it.
pub fn plan(
    discovery: &Discovery,
    namespace: Option<&str>,
    mut decide: impl FnMut(&Question) -> Decision,
) -> SearchPlan {
    let mut targets = Vec::new();
    let mut skipped = Vec::new();
    for resource in discovery.every_type() {
        if !resource.supports("list") || (namespace.is_some() && !resource.is_namespaced()) {
            continue;
        }
        let question = Question::on("list", resource, namespace);
        if decide(&question) == Decision::Denied {
            let namespaced = resource.is_namespaced();
            skipped.push(Skipped {
                resource: resource.clone(),
                when: SkipWhen::Known,
                reason: Text::new(Msg::YouMayNotAction).with_text("action", question.words(namespaced)),
                command: question.kubectl(namespaced),
            });
        } else {
            targets.push(resource.clone());
        }
    }
    SearchPlan { targets, skipped }
}

/// Where one type's listing is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeState {
    /// Not started: the driver lists [`PARALLEL_TYPES`] at a time.
    Waiting,
    Listing,
    /// Every page read.
    Done,
    /// 403 Forbidden: skipped (see [`SearchRun::skipped`]).
    Forbidden,
    /// Another failure; what its earlier pages found is kept.
    Failed(Text),
    /// Stopped by the user before its last page.
    Stopped,
}

impl TypeState {
    /// Whether the type will not change any more.
    pub fn is_final(&self) -> bool {
        !matches!(self, TypeState::Waiting | TypeState::Listing)
    }
}

/// One type's part of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSearch {
    pub resource: ResourceType,
    pub state: TypeState,
    /// The first [`SHOWN_PER_TYPE`] matches, in the server's order.
    pub hits: Vec<ObjectHead>,
    /// Every match so far (`hits` and those not kept).
    pub matched: usize,
    /// Objects read so far.
    pub listed: usize,
    pub pages: usize,
    /// Objects the server sent that the label selector does not select (a server that ignores
    /// `labelSelector` for this type): matched here instead.
    pub unselected: usize,
    /// Bumped by every change, so that a view redraws only the types that changed.
    pub revision: u64,
    collection: Result<Collection, RequestError>,
}

impl TypeSearch {
    /// Matches found but not kept.
    pub fn more(&self) -> usize {
        self.matched.saturating_sub(self.hits.len())
    }

    /// Where the type's objects are listed: the view of its collection, narrowed by the search's
    /// label selector.
    pub fn key(&self) -> ResourceKey {
        ResourceKey {
            group: self.resource.group.clone(),
            version: self.resource.version.clone(),
            plural: self.resource.plural.clone(),
        }
    }
}

/// A page read or why it could not be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeFailure {
    /// 403: the server's message (as it words it), or the client's text when the answer has none.
    Forbidden(Text),
    /// Anything else (404, 410 with an expired continue token, 500, an unreadable body): why.
    Failed(Text),
}

/// The next request the driver sends for a type.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub index: usize,
    pub request: Request,
}

/// How far a search is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Types to list.
    pub total: usize,
    /// Types finished: every page read, refused (403) or failed.
    pub finished: usize,
    pub listing: usize,
    pub stopped: usize,
    pub failed: usize,
    /// Types skipped for lack of permission, known before or answered 403.
    pub skipped: usize,
    /// Matches in all, and the types that have any.
    pub matched: usize,
    pub types_with_matches: usize,
    /// Objects read in all.
    pub listed: usize,
}

/// A search in progress (or over): each type's state and matches, and the skipped types.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRun {
    pub query: SearchQuery,
    pub types: Vec<TypeSearch>,
    pub skipped: Vec<Skipped>,
    next: usize,
}

impl SearchRun {
    /// A search of `query` over the types of `plan`, none started yet.
    pub fn new(query: SearchQuery, plan: SearchPlan) -> SearchRun {
        let types = plan
            .targets
            .into_iter()
            .map(|resource| TypeSearch {
                collection: Collection::new(&resource, query.namespace.as_deref()),
                resource,
                state: TypeState::Waiting,
                hits: Vec::new(),
                matched: 0,
                listed: 0,
                pages: 0,
                unselected: 0,
                revision: 0,
            })
            .collect();
        SearchRun { query, types, skipped: plan.skipped, next: 0 }
    }

    /// The first page of the next waiting type, which is listing from now on; `None` when every
    /// type has started (or the search was stopped). A type whose collection cannot be named (a
    /// namespace no request may carry) fails here, unsent.
    pub fn next_job(&mut self) -> Option<Job> {
        while let Some(index) = (self.next..self.types.len()).find(|&i| self.types[i].state == TypeState::Waiting) {
            self.next = index + 1;
            let query = &self.query;
            let entry = &mut self.types[index];
            entry.revision += 1;
            match &entry.collection {
                Ok(collection) => {
                    entry.state = TypeState::Listing;
                    return Some(Job { index, request: query.page_request(collection, None) });
                }
                Err(error) => entry.state = TypeState::Failed(Text::new(Msg::NotSentError).with_text("error", error)),
            }
        }
        self.next = self.types.len();
        None
    }

    /// Takes the page `index` answered: counts its objects, keeps the matches there is room for,
    /// and answers the request for the next page, or `None` when the type is done (or was no
    /// longer listing: a late page changes nothing).
    pub fn apply_page(&mut self, index: usize, page: ObjectHeadList) -> Option<Request> {
        let query = &self.query;
        let entry = self.types.get_mut(index).filter(|t| t.state == TypeState::Listing)?;
        entry.revision += 1;
        entry.pages += 1;
        entry.listed += page.items.len();
        for head in page.items {
            if !query.labels_match(&head) {
                entry.unselected += 1;
                continue;
            }
            if query.name_matches(&head) && query.owner_matches(&head) {
                entry.matched += 1;
                if entry.hits.len() < SHOWN_PER_TYPE {
                    entry.hits.push(head);
                }
            }
        }
        match (page.metadata.continue_token, &entry.collection) {
            (Some(token), Ok(collection)) => Some(query.page_request(collection, Some(token))),
            _ => {
                entry.state = TypeState::Done;
                None
            }
        }
    }

    /// Records why type `index` stops: a 403 skips it (with the server's reason and the command
    /// that checks it), anything else fails it with what its earlier pages found kept.
    pub fn fail(&mut self, index: usize, failure: TypeFailure) {
        let namespace = self.query.namespace.clone();
        let Some(entry) = self.types.get_mut(index).filter(|t| t.state == TypeState::Listing) else { return };
        entry.revision += 1;
        match failure {
            TypeFailure::Forbidden(message) => {
                entry.state = TypeState::Forbidden;
                let question = Question::on("list", &entry.resource, namespace.as_deref());
                let namespaced = entry.resource.is_namespaced();
                self.skipped.push(Skipped {
                    resource: entry.resource.clone(),
                    when: SkipWhen::Answered,
                    reason: message,
                    command: question.kubectl(namespaced),
                });
            }
            TypeFailure::Failed(reason) => entry.state = TypeState::Failed(reason),
        }
    }

    /// Stops the search: types not finished are marked stopped (what they found is kept) and no
    /// more are started.
    pub fn stop(&mut self) {
        for entry in &mut self.types {
            if !entry.state.is_final() {
                entry.state = TypeState::Stopped;
                entry.revision += 1;
            }
        }
        self.next = self.types.len();
    }

    /// Whether some type is still waiting or listing.
    pub fn is_running(&self) -> bool {
        self.types.iter().any(|t| !t.state.is_final())
    }

    /// The counts the progress bar and summary show.
    pub fn progress(&self) -> Progress {
        let mut progress = Progress { total: self.types.len(), skipped: self.skipped.len(), ..Progress::default() };
        for entry in &self.types {
            match entry.state {
                TypeState::Listing => progress.listing += 1,
                TypeState::Stopped => progress.stopped += 1,
                TypeState::Failed(_) => {
                    progress.failed += 1;
                    progress.finished += 1;
                }
                TypeState::Done | TypeState::Forbidden => progress.finished += 1,
                TypeState::Waiting => {}
            }
            progress.matched += entry.matched;
            progress.listed += entry.listed;
            if entry.matched > 0 {
                progress.types_with_matches += 1;
            }
        }
        progress
    }

    /// The types a view shows as groups, in the plan's order: those with matches, and those that
    /// failed or stopped (which may have missed some).
    pub fn groups(&self) -> impl Iterator<Item = (usize, &TypeSearch)> {
        self.types.iter().enumerate().filter(|(_, t)| {
            t.matched > 0 || matches!(t.state, TypeState::Failed(_)) || (t.state == TypeState::Stopped && t.pages > 0)
        })
    }

    /// The types searched to the end without a match.
    pub fn without_matches(&self) -> impl Iterator<Item = &TypeSearch> {
        self.types.iter().filter(|t| t.matched == 0 && t.state == TypeState::Done)
    }
}

/// Reads a page a type answered (2xx) by its `Content-Type`: JSON (a `PartialObjectMetadataList`,
/// or the full list of a server that could not convert) keeping only each item's head; YAML or
/// CBOR through the document. Anything else is an error naming what came.
pub fn read_page(content_type: Option<&MediaType>, body: &[u8]) -> Result<ObjectHeadList, Text> {
    let Some(media_type) = content_type else {
        return Err(Text::new(Msg::SearchPageWithoutContentType));
    };
    let not_a_list = |error: Text| Text::new(Msg::SearchPageNotAList).with_text("error", error);
    if media_type.essence.format() == Some(Format::Json) {
        return heads_from_json(body).map_err(|e| not_a_list(e.text()));
    }
    match decode_body(media_type, body).map_err(|e| e.text())? {
        Decoded::Document(document) => {
            let list = PartialObjectMetadataList::from_document(&document).map_err(|e| e.text())?;
            Ok(List {
                api_version: list.api_version,
                kind: list.kind,
                metadata: list.metadata,
                items: list.items.into_iter().map(ObjectHead::from).collect(),
            })
        }
        Decoded::Envelope(_) => Err(Text::new(Msg::SearchPageEnvelope).with("media_type", media_type)),
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
