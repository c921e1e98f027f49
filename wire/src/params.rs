//! Query parameters of get, list, watch and writes, checked against the concepts page before a
//! request exists ("Resource versions", "Retrieving large results sets in chunks", "Watch
//! bookmarks", "Streaming lists", "Dry-run", "Field validation", "Server Side Apply").
//!
//! Parse, don't validate: [`ListParams`] and [`WatchParams`] are built from plain option structs
//! by a constructor that refuses the combinations the concepts page calls invalid, quoting the
//! table's reason, so a request that the server would answer with 400 or 422 for its parameters
//! cannot be built. `force` exists only on [`ApplyParams`], the one patch type that takes it.
//!
//! Reused from `kube-core`: `VersionMatch` (as [`ResourceVersionMatch`]), `PropagationPolicy`,
//! `Preconditions` and `DeleteParams` (the `DeleteOptions` body). Ours: the validated list and
//! watch parameters (kube-core checks only a part of the table, at request time), the write
//! parameters, and [`FieldValidation`] (kube-core's `ValidationDirective` cannot be compared).

use std::fmt;

pub use kube_core::params::{DeleteParams, Preconditions, PropagationPolicy, VersionMatch as ResourceVersionMatch};

use crate::view::list::{ContinueToken, ResourceVersion};

/// The query pairs of a parameter set, in the order they are sent.
pub type Query = Vec<(String, String)>;

fn match_str(m: &ResourceVersionMatch) -> &'static str {
    match m {
        ResourceVersionMatch::NotOlderThan => "NotOlderThan",
        ResourceVersionMatch::Exact => "Exact",
    }
}

/// What the caller asks of a **list**, before the table checks it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub resource_version: Option<ResourceVersion>,
    pub resource_version_match: Option<ResourceVersionMatch>,
    pub limit: Option<u32>,
    pub continue_token: Option<ContinueToken>,
}

/// A combination the list or watch tables of the concepts page call invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    #[error(
        "resourceVersionMatch={0} without resourceVersion: setting the resourceVersionMatch parameter without \
         setting resourceVersion is not valid"
    )]
    MatchWithoutResourceVersion(&'static str),
    #[error(
        "resourceVersionMatch=Exact with resourceVersion=\"0\": invalid (Exact needs a resourceVersion other than 0)"
    )]
    ExactAtAny,
    #[error("continue with resourceVersion=\"0\": invalid, treated as Continue Token, Exact")]
    ContinueWithAnyVersion,
    #[error("continue with resourceVersion=\"{0}\": invalid, HTTP 400 Bad Request")]
    ContinueWithResourceVersion(String),
    #[error("continue with resourceVersionMatch: resourceVersionMatch is forbidden when continue is provided")]
    ContinueWithMatch,
    #[error("limit=0: the page size must be at least 1")]
    ZeroLimit,
    #[error(
        "sendInitialEvents without resourceVersionMatch=NotOlderThan: sendInitialEvents requires \
         resourceVersionMatch=NotOlderThan"
    )]
    InitialEventsWithoutNotOlderThan,
    #[error(
        "resourceVersionMatch={0} on a watch without sendInitialEvents: a watch takes \
         resourceVersionMatch=NotOlderThan only with sendInitialEvents"
    )]
    WatchMatchWithoutInitialEvents(&'static str),
}

/// How the server reads the resource version of a get, list or watch (the concepts page's terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantics {
    MostRecent,
    Any,
    NotOlderThan,
    Exact,
    ContinueTokenExact,
    GetStateAndStartAtMostRecent,
    GetStateAndStartAtAny,
    StartAtExact,
    /// `sendInitialEvents=true`: a streaming list (initial ADDED events, then a BOOKMARK).
    StreamingList,
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Semantics::MostRecent => "Most Recent",
            Semantics::Any => "Any",
            Semantics::NotOlderThan => "Not older than",
            Semantics::Exact => "Exact",
            Semantics::ContinueTokenExact => "Continue Token, Exact",
            Semantics::GetStateAndStartAtMostRecent => "Get State and Start at Most Recent",
            Semantics::GetStateAndStartAtAny => "Get State and Start at Any",
            Semantics::StartAtExact => "Start at Exact",
            Semantics::StreamingList => "Streaming list",
        })
    }
}

/// List parameters that satisfy the resourceVersion / resourceVersionMatch / paging table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListParams {
    options: ListOptions,
}

impl ListParams {
    /// Checks `options` against the table for **list**.
    pub fn new(options: ListOptions) -> Result<ListParams, ParamsError> {
        let rv = options.resource_version.as_ref();
        if options.limit == Some(0) {
            return Err(ParamsError::ZeroLimit);
        }
        if options.continue_token.is_some() {
            if options.resource_version_match.is_some() {
                return Err(ParamsError::ContinueWithMatch);
            }
            match rv {
                Some(rv) if rv.is_any() => return Err(ParamsError::ContinueWithAnyVersion),
                Some(rv) => return Err(ParamsError::ContinueWithResourceVersion(rv.to_string())),
                None => {}
            }
        }
        match (&options.resource_version_match, rv) {
            (Some(m), None) => return Err(ParamsError::MatchWithoutResourceVersion(match_str(m))),
            (Some(ResourceVersionMatch::Exact), Some(rv)) if rv.is_any() => return Err(ParamsError::ExactAtAny),
            _ => {}
        }
        Ok(ListParams { options })
    }

    /// The first page of `limit` items, with no selector or resource version: valid by
    /// construction (a limit is never zero).
    pub fn first_page(limit: std::num::NonZeroU32) -> ListParams {
        ListParams { options: ListOptions { limit: Some(limit.get()), ..ListOptions::default() } }
    }

    pub fn options(&self) -> &ListOptions {
        &self.options
    }

    /// The next page: the same list with `continue` set (and the resource version dropped, as
    /// the token carries it).
    pub fn next_page(&self, token: ContinueToken) -> ListParams {
        let options = ListOptions {
            continue_token: Some(token),
            resource_version: None,
            resource_version_match: None,
            ..self.options.clone()
        };
        ListParams { options }
    }

    /// How the server will read the resource version (the table's cell for these options).
    pub fn semantics(&self) -> Semantics {
        let o = &self.options;
        if o.continue_token.is_some() {
            return Semantics::ContinueTokenExact;
        }
        match (&o.resource_version_match, &o.resource_version) {
            (_, None) => Semantics::MostRecent,
            (_, Some(rv)) if rv.is_any() => Semantics::Any,
            (Some(ResourceVersionMatch::Exact), Some(_)) => Semantics::Exact,
            (Some(ResourceVersionMatch::NotOlderThan), Some(_)) => Semantics::NotOlderThan,
            (None, Some(_)) if o.limit.is_some() => Semantics::Exact,
            (None, Some(_)) => Semantics::NotOlderThan,
        }
    }

    /// The query pairs.
    pub fn query(&self) -> Query {
        let o = &self.options;
        let mut query = selectors(&o.label_selector, &o.field_selector);
        if let Some(rv) = &o.resource_version {
            query.push(("resourceVersion".into(), rv.to_string()));
        }
        if let Some(m) = &o.resource_version_match {
            query.push(("resourceVersionMatch".into(), match_str(m).into()));
        }
        if let Some(limit) = o.limit {
            query.push(("limit".into(), limit.to_string()));
        }
        if let Some(token) = &o.continue_token {
            query.push(("continue".into(), token.to_string()));
        }
        query
    }
}

fn selectors(labels: &Option<String>, fields: &Option<String>) -> Query {
    let mut query = Query::new();
    if let Some(labels) = labels {
        query.push(("labelSelector".into(), labels.clone()));
    }
    if let Some(fields) = fields {
        query.push(("fieldSelector".into(), fields.clone()));
    }
    query
}

/// What the caller asks of a **watch**, before it is checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WatchOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub resource_version: Option<ResourceVersion>,
    pub resource_version_match: Option<ResourceVersionMatch>,
    /// `allowWatchBookmarks=true`: the server may send BOOKMARK events.
    pub allow_watch_bookmarks: bool,
    /// `sendInitialEvents=true`: start with the current state (a streaming list).
    pub send_initial_events: bool,
    /// `timeoutSeconds`: the server ends the watch after this long.
    pub timeout_seconds: Option<u32>,
}

/// Watch parameters that satisfy the watch rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WatchParams {
    options: WatchOptions,
}

impl WatchParams {
    /// Checks `options`: `sendInitialEvents` requires `resourceVersionMatch=NotOlderThan`, and a
    /// watch takes `resourceVersionMatch` only together with `sendInitialEvents`.
    pub fn new(options: WatchOptions) -> Result<WatchParams, ParamsError> {
        match (&options.resource_version_match, options.send_initial_events) {
            (Some(ResourceVersionMatch::NotOlderThan), true) | (None, false) => Ok(WatchParams { options }),
            (_, true) => Err(ParamsError::InitialEventsWithoutNotOlderThan),
            (Some(m), false) => Err(ParamsError::WatchMatchWithoutInitialEvents(match_str(m))),
        }
    }

    /// A streaming list: initial state as ADDED events, then the BOOKMARK marked
    /// `k8s.io/initial-events-end`, then changes.
    pub fn streaming_list() -> WatchParams {
        WatchParams {
            options: WatchOptions {
                resource_version_match: Some(ResourceVersionMatch::NotOlderThan),
                allow_watch_bookmarks: true,
                send_initial_events: true,
                ..WatchOptions::default()
            },
        }
    }

    /// Changes after `resource_version` (typically a list's), with bookmarks.
    pub fn from_version(resource_version: ResourceVersion) -> WatchParams {
        WatchParams {
            options: WatchOptions {
                resource_version: Some(resource_version),
                allow_watch_bookmarks: true,
                ..WatchOptions::default()
            },
        }
    }

    pub fn options(&self) -> &WatchOptions {
        &self.options
    }

    /// How the server starts the watch.
    pub fn semantics(&self) -> Semantics {
        match &self.options.resource_version {
            _ if self.options.send_initial_events => Semantics::StreamingList,
            None => Semantics::GetStateAndStartAtMostRecent,
            Some(rv) if rv.is_any() => Semantics::GetStateAndStartAtAny,
            Some(_) => Semantics::StartAtExact,
        }
    }

    /// The query pairs, starting with `watch=true`.
    pub fn query(&self) -> Query {
        let o = &self.options;
        let mut query = vec![("watch".to_string(), "true".to_string())];
        query.extend(selectors(&o.label_selector, &o.field_selector));
        if let Some(rv) = &o.resource_version {
            query.push(("resourceVersion".into(), rv.to_string()));
        }
        if let Some(m) = &o.resource_version_match {
            query.push(("resourceVersionMatch".into(), match_str(m).into()));
        }
        if o.allow_watch_bookmarks {
            query.push(("allowWatchBookmarks".into(), "true".into()));
        }
        if o.send_initial_events {
            query.push(("sendInitialEvents".into(), "true".into()));
        }
        if let Some(timeout) = o.timeout_seconds {
            query.push(("timeoutSeconds".into(), timeout.to_string()));
        }
        query
    }
}

/// Parameters of a **get**: only the resource version (unset: most recent; `"0"`: any; other:
/// not older than).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GetParams {
    pub resource_version: Option<ResourceVersion>,
}

impl GetParams {
    pub fn semantics(&self) -> Semantics {
        match &self.resource_version {
            None => Semantics::MostRecent,
            Some(rv) if rv.is_any() => Semantics::Any,
            Some(_) => Semantics::NotOlderThan,
        }
    }

    pub fn query(&self) -> Query {
        self.resource_version.iter().map(|rv| ("resourceVersion".to_string(), rv.to_string())).collect()
    }
}

/// `fieldValidation`: what the server does with unknown or duplicate fields in a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Succeed with a `Warning` header per field (the server's default).
    Warn,
    /// Fail with 400 (422 for a merge patch) listing them.
    Strict,
}

impl FieldValidation {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldValidation::Ignore => "Ignore",
            FieldValidation::Warn => "Warn",
            FieldValidation::Strict => "Strict",
        }
    }
}

/// `dryRun`: the server validates and answers as if it wrote, but persists nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    All,
}

/// Parameters of create, update and the non-apply patches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteParams {
    pub dry_run: Option<DryRun>,
    pub field_validation: Option<FieldValidation>,
    /// The manager recorded in `managedFields`; always send one (otherwise a browser's
    /// User-Agent becomes the manager).
    pub field_manager: Option<String>,
}

impl WriteParams {
    pub fn query(&self) -> Query {
        let mut query = Query::new();
        if let Some(DryRun::All) = self.dry_run {
            query.push(("dryRun".into(), "All".into()));
        }
        if let Some(validation) = self.field_validation {
            query.push(("fieldValidation".into(), validation.as_str().into()));
        }
        if let Some(manager) = &self.field_manager {
            query.push(("fieldManager".into(), manager.clone()));
        }
        query
    }
}

/// Parameters of a server-side apply: the field manager is required (422 without), and `force`
/// takes ownership of conflicting fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplyParams {
    pub field_manager: String,
    pub force: bool,
    pub dry_run: Option<DryRun>,
    pub field_validation: Option<FieldValidation>,
}

impl ApplyParams {
    pub fn new(field_manager: impl Into<String>) -> Self {
        ApplyParams { field_manager: field_manager.into(), force: false, dry_run: None, field_validation: None }
    }

    #[must_use]
    pub fn force(self) -> Self {
        ApplyParams { force: true, ..self }
    }

    pub fn query(&self) -> Query {
        let mut query = WriteParams {
            dry_run: self.dry_run,
            field_validation: self.field_validation,
            field_manager: Some(self.field_manager.clone()),
        }
        .query();
        if self.force {
            query.push(("force".into(), "true".into()));
        }
        query
    }
}

/// What each row of a server-side `Table` carries (`includeObject`, concepts page "Receiving
/// resources as Tables"): nothing but its cells (`None`), a `PartialObjectMetadata` (`Metadata`,
/// the server's default) or the full object (`Object`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    Metadata,
    Object,
}

impl IncludeObject {
    /// The query value.
    pub fn as_str(self) -> &'static str {
        match self {
            IncludeObject::None => "None",
            IncludeObject::Metadata => "Metadata",
            IncludeObject::Object => "Object",
        }
    }
}

/// The query of a pod's `log` subresource (`GET …/pods/NAME/log`), as `kubectl logs` sends it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    /// The container; the server picks the only one (or answers 400 naming the choices).
    pub container: Option<String>,
    /// The last N lines only.
    pub tail_lines: Option<u32>,
    /// Each line prefixed with its RFC 3339 timestamp.
    pub timestamps: bool,
    /// The previous, terminated instance of the container.
    pub previous: bool,
    /// Only lines newer than this many seconds.
    pub since_seconds: Option<u32>,
    /// Only lines from this time on (RFC 3339, whole seconds: the API reads a `metav1.Time`); a
    /// follow that dropped resumes from its last line's time this way.
    pub since_time: Option<String>,
    /// Keep the response open and stream new lines.
    pub follow: bool,
}

impl LogOptions {
    /// The query parameters, in the order `kubectl logs` writes them; defaults are left out.
    pub fn query(&self) -> Vec<(String, String)> {
        let mut query = Vec::new();
        if let Some(container) = self.container.as_deref().filter(|c| !c.is_empty()) {
            query.push(("container".to_string(), container.to_string()));
        }
        if self.follow {
            query.push(("follow".to_string(), "true".to_string()));
        }
        if self.previous {
            query.push(("previous".to_string(), "true".to_string()));
        }
        if let Some(seconds) = self.since_seconds {
            query.push(("sinceSeconds".to_string(), seconds.to_string()));
        }
        if let Some(time) = self.since_time.as_deref().filter(|t| !t.is_empty()) {
            query.push(("sinceTime".to_string(), time.to_string()));
        }
        if let Some(lines) = self.tail_lines {
            query.push(("tailLines".to_string(), lines.to_string()));
        }
        if self.timestamps {
            query.push(("timestamps".to_string(), "true".to_string()));
        }
        query
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rv(version: &str) -> Option<ResourceVersion> {
        Some(ResourceVersion::new(version))
    }

    fn token() -> Option<ContinueToken> {
        ContinueToken::new("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ")
    }

    #[track_caller]
    fn check_list(options: ListOptions, expect: Result<&str, ParamsError>) {
        let got = ListParams::new(options).map(|p| p.semantics().to_string());
        assert_eq!(got.as_deref().map_err(Clone::clone), expect.as_deref().map_err(Clone::clone));
    }

    use ResourceVersionMatch::{Exact, NotOlderThan};

    #[test]
    fn every_cell_of_the_list_table_is_accepted_or_refused_with_its_reason() {
        let limit = Some(500);
        let o = |resource_version, resource_version_match, limit, continue_token| ListOptions {
            resource_version,
            resource_version_match,
            limit,
            continue_token,
            ..ListOptions::default()
        };
        // resourceVersionMatch unset, limit unset
        check_list(o(None, None, None, None), Ok("Most Recent"));
        check_list(o(rv("0"), None, None, None), Ok("Any"));
        check_list(o(rv("42"), None, None, None), Ok("Not older than"));
        // unset, limit=n, continue unset
        check_list(o(None, None, limit, None), Ok("Most Recent"));
        check_list(o(rv("0"), None, limit, None), Ok("Any"));
        check_list(o(rv("42"), None, limit, None), Ok("Exact"));
        // unset, limit=n, continue=token
        check_list(o(None, None, limit, token()), Ok("Continue Token, Exact"));
        check_list(o(rv("0"), None, limit, token()), Err(ParamsError::ContinueWithAnyVersion));
        check_list(o(rv("42"), None, limit, token()), Err(ParamsError::ContinueWithResourceVersion("42".into())));
        // Exact, with and without limit
        for limit in [None, limit] {
            check_list(o(None, Some(Exact), limit, None), Err(ParamsError::MatchWithoutResourceVersion("Exact")));
            check_list(o(rv("0"), Some(Exact), limit, None), Err(ParamsError::ExactAtAny));
            check_list(o(rv("42"), Some(Exact), limit, None), Ok("Exact"));
            check_list(
                o(None, Some(NotOlderThan), limit, None),
                Err(ParamsError::MatchWithoutResourceVersion("NotOlderThan")),
            );
            check_list(o(rv("0"), Some(NotOlderThan), limit, None), Ok("Any"));
            check_list(o(rv("42"), Some(NotOlderThan), limit, None), Ok("Not older than"));
        }
        check_list(o(None, Some(NotOlderThan), limit, token()), Err(ParamsError::ContinueWithMatch));
        check_list(o(None, None, Some(0), None), Err(ParamsError::ZeroLimit));
    }

    #[test]
    fn the_refusals_quote_the_table() {
        assert_eq!(
            ParamsError::ContinueWithResourceVersion("42".into()).to_string(),
            "continue with resourceVersion=\"42\": invalid, HTTP 400 Bad Request"
        );
        assert_eq!(
            ParamsError::MatchWithoutResourceVersion("Exact").to_string(),
            "resourceVersionMatch=Exact without resourceVersion: setting the resourceVersionMatch parameter without setting resourceVersion is not valid"
        );
    }

    #[test]
    fn list_queries_carry_selectors_versions_and_paging() {
        let params = ListParams::new(ListOptions {
            label_selector: Some("app=web".into()),
            field_selector: Some("metadata.name=x".into()),
            resource_version: rv("42"),
            resource_version_match: Some(NotOlderThan),
            limit: Some(2),
            continue_token: None,
        })
        .expect("valid");
        let query: Vec<String> = params.query().iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            query,
            [
                "labelSelector=app=web",
                "fieldSelector=metadata.name=x",
                "resourceVersion=42",
                "resourceVersionMatch=NotOlderThan",
                "limit=2"
            ]
        );
        let next = params.next_page(ContinueToken::new("abc").expect("token"));
        assert_eq!(next.semantics(), Semantics::ContinueTokenExact);
        assert!(ListParams::new(next.options().clone()).is_ok(), "the next page is valid too");
        assert_eq!(next.query().last(), Some(&("continue".to_string(), "abc".to_string())));
    }

    #[track_caller]
    fn check_watch(options: WatchOptions, expect: Result<&str, ParamsError>) {
        let got = WatchParams::new(options).map(|p| p.semantics().to_string());
        assert_eq!(got.as_deref().map_err(Clone::clone), expect.as_deref().map_err(Clone::clone));
    }

    #[test]
    fn watch_rules_follow_the_watch_table_and_streaming_lists() {
        let o = |resource_version, resource_version_match, send_initial_events| WatchOptions {
            resource_version,
            resource_version_match,
            send_initial_events,
            ..WatchOptions::default()
        };
        check_watch(o(None, None, false), Ok("Get State and Start at Most Recent"));
        check_watch(o(rv("0"), None, false), Ok("Get State and Start at Any"));
        check_watch(o(rv("42"), None, false), Ok("Start at Exact"));
        check_watch(o(None, Some(NotOlderThan), true), Ok("Streaming list"));
        check_watch(o(None, None, true), Err(ParamsError::InitialEventsWithoutNotOlderThan));
        check_watch(o(rv("5"), Some(Exact), true), Err(ParamsError::InitialEventsWithoutNotOlderThan));
        check_watch(
            o(rv("5"), Some(NotOlderThan), false),
            Err(ParamsError::WatchMatchWithoutInitialEvents("NotOlderThan")),
        );
    }

    #[test]
    fn watch_queries_match_what_the_real_server_was_sent() {
        let streaming = WatchParams::new(WatchOptions {
            timeout_seconds: Some(8),
            ..WatchParams::streaming_list().options().clone()
        })
        .expect("valid");
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(streaming.query()).finish();
        assert_eq!(query, "watch=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true&timeoutSeconds=8");
        let resume = WatchParams::from_version(ResourceVersion::new("42"));
        assert_eq!(resume.semantics(), Semantics::StartAtExact);
        assert!(resume.options().allow_watch_bookmarks);
    }

    #[test]
    fn get_reads_its_resource_version_like_the_get_table() {
        assert_eq!(GetParams::default().semantics(), Semantics::MostRecent);
        assert_eq!(GetParams { resource_version: rv("0") }.semantics(), Semantics::Any);
        let at = GetParams { resource_version: rv("9") };
        assert_eq!(at.semantics(), Semantics::NotOlderThan);
        assert_eq!(at.query(), [("resourceVersion".to_string(), "9".to_string())]);
    }

    #[test]
    fn write_and_apply_params_become_query_pairs() {
        let write = WriteParams {
            dry_run: Some(DryRun::All),
            field_validation: Some(FieldValidation::Strict),
            field_manager: Some("explorer".into()),
        };
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(write.query()).finish();
        assert_eq!(query, "dryRun=All&fieldValidation=Strict&fieldManager=explorer");
        let apply = ApplyParams::new("explorer").force();
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(apply.query()).finish();
        assert_eq!(query, "fieldManager=explorer&force=true");
        assert!(WriteParams::default().query().is_empty());
        let names: Vec<&str> = [FieldValidation::Ignore, FieldValidation::Warn, FieldValidation::Strict]
            .map(FieldValidation::as_str)
            .to_vec();
        assert_eq!(names, ["Ignore", "Warn", "Strict"]);
    }

    #[test]
    fn include_object_values_are_the_servers_words() {
        let words: Vec<&str> =
            [IncludeObject::None, IncludeObject::Metadata, IncludeObject::Object].map(IncludeObject::as_str).to_vec();
        assert_eq!(words, ["None", "Metadata", "Object"]);
    }

    #[test]
    fn log_options_write_only_what_differs_from_the_defaults() {
        assert!(LogOptions::default().query().is_empty());
        assert!(LogOptions { container: Some(String::new()), ..LogOptions::default() }.query().is_empty());
        let all = LogOptions {
            container: Some("web".into()),
            tail_lines: Some(20),
            timestamps: true,
            previous: true,
            since_seconds: Some(60),
            since_time: Some("2026-11-24T10:00:02Z".into()),
            follow: true,
        };
        let query: Vec<String> = all.query().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            query,
            [
                "container=web",
                "follow=true",
                "previous=true",
                "sinceSeconds=60",
                "sinceTime=2026-11-24T10:00:02Z",
                "tailLines=20",
                "timestamps=true"
            ]
        );
    }

    #[test]
    fn a_first_page_carries_only_its_limit() {
        let page = ListParams::first_page(std::num::NonZeroU32::MIN.saturating_add(499));
        assert_eq!(page.query(), [("limit".to_string(), "500".to_string())]);
        assert_eq!(page.semantics(), Semantics::MostRecent);
        assert_eq!(page.options().limit, Some(500));
    }
}
