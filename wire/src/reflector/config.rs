//! What to reflect and how: the [`ReflectorConfig`], the way the initial state is read
//! ([`Mode`]), what Table rows carry ([`IncludeObject`]), and the retry backoff.

use std::num::NonZeroU32;

use crate::build::RequestBuilder;
use crate::error::Format;
use crate::media_type::{Accept, MediaType};
use crate::params::IncludeObject;
use crate::request::Collection;

/// How the reflector gets the initial state of the collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A watch with `sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`
    /// ("Streaming lists"); falls back to [`Mode::ListThenWatch`] on a server without it.
    StreamingList,
    /// A paged **list**, then a **watch** from the list's resourceVersion.
    ListThenWatch,
}

/// Exponential backoff between retries: `initial_ms` doubling per failed attempt up to `max_ms`,
/// shortened by up to `jitter_share` of itself according to the caller's [`Jitter`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackoffConfig {
    pub initial_ms: u64,
    pub max_ms: u64,
    /// How much of a delay the jitter may take away, from 0.0 (none) to 1.0 (all of it).
    pub jitter_share: f64,
}

impl Default for BackoffConfig {
    /// 0.5 s doubling to 30 s, jittered down by up to half.
    fn default() -> Self {
        BackoffConfig { initial_ms: 500, max_ms: 30_000, jitter_share: 0.5 }
    }
}

impl BackoffConfig {
    /// The wait before retry number `attempt + 1` (attempt 0 is the first retry): the capped
    /// exponential delay minus its jitter, or the server's Retry-After when that is longer.
    pub fn delay_ms(&self, attempt: u32, jitter: Jitter, retry_after_seconds: Option<u32>) -> u64 {
        let factor = 1u64.checked_shl(attempt).unwrap_or(u64::MAX);
        let exponential = self.initial_ms.saturating_mul(factor).min(self.max_ms);
        let share = if self.jitter_share.is_finite() { self.jitter_share.clamp(0.0, 1.0) } else { 0.0 };
        let cut = ((exponential as f64) * share * jitter.fraction()) as u64;
        let backoff = exponential - cut.min(exponential);
        let server = u64::from(retry_after_seconds.unwrap_or(0)).saturating_mul(1000);
        backoff.max(server)
    }
}

/// A random fraction in `[0, 1]` from the edge (e.g. `Math.random()`), used only by a step that
/// starts a wait; keeping the source outside makes the machine deterministic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jitter(f64);

impl Jitter {
    /// No jitter: waits are exactly the exponential delay.
    pub const NONE: Jitter = Jitter(0.0);

    /// `fraction` clamped to `[0, 1]`; a NaN or infinite value counts as no jitter.
    pub fn new(fraction: f64) -> Jitter {
        if fraction.is_finite() {
            Jitter(fraction.clamp(0.0, 1.0))
        } else {
            Jitter::NONE
        }
    }

    pub fn fraction(self) -> f64 {
        self.0
    }
}

/// What to reflect and how.
#[derive(Debug, Clone, PartialEq)]
pub struct ReflectorConfig {
    pub collection: Collection,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// `limit` of each list page ("Retrieving large results sets in chunks"); `None` lists in one
    /// response.
    pub page_size: Option<NonZeroU32>,
    pub mode: Mode,
    /// `timeoutSeconds` of each watch: the server ends it after this long and the reflector
    /// resumes from the last resourceVersion.
    pub watch_timeout_seconds: Option<u32>,
    pub backoff: BackoffConfig,
    /// The `Accept` of list and watch requests (JSON or CBOR; a CBOR watch answers `cbor-seq`;
    /// [`Accept::table`] for server-side Tables, see [`ReflectorConfig::tables`]).
    pub accept: Accept,
    /// The `Accept` of watches and streaming lists when it is not `accept`: a protobuf watch asks
    /// for `application/vnd.kubernetes.protobuf;stream=watch` (see [`ReflectorConfig::protobuf`]).
    pub watch_accept: Option<Accept>,
    /// `includeObject` of every list and watch request, for Tables: what each row carries. The
    /// cache keys rows by their object's uid or name, so `None` gives rows it cannot keep (each is
    /// reported as [`ReflectorError::ObjectWithoutKey`](crate::reflector::outcome::ReflectorError)).
    pub include_object: Option<IncludeObject>,
}

impl ReflectorConfig {
    /// `collection` in JSON by streaming list, pages of 500 (as `kubectl`), watches of 290 s (as
    /// kube-runtime), default backoff, no selectors.
    pub fn new(collection: Collection) -> ReflectorConfig {
        ReflectorConfig {
            collection,
            label_selector: None,
            field_selector: None,
            page_size: NonZeroU32::new(500),
            mode: Mode::StreamingList,
            watch_timeout_seconds: Some(290),
            backoff: BackoffConfig::default(),
            accept: Accept::only(MediaType::json()),
            watch_accept: None,
            include_object: None,
        }
    }

    /// `collection` in Kubernetes protobuf ("Alternate representations of resources"): list pages
    /// ask for `application/vnd.kubernetes.protobuf`, watches and streaming lists for
    /// `application/vnd.kubernetes.protobuf;stream=watch`, each with the JSON fallback that custom
    /// resources and aggregated APIs need (they have no protobuf form: the server answers JSON).
    pub fn protobuf(collection: Collection) -> ReflectorConfig {
        ReflectorConfig {
            accept: Accept::protobuf_or_json(),
            watch_accept: Some(Accept::only(MediaType::protobuf_watch()).or(MediaType::json())),
            ..ReflectorConfig::new(collection)
        }
    }

    /// The `Accept` of watches and streaming lists.
    pub fn watch_accept(&self) -> &Accept {
        self.watch_accept.as_ref().unwrap_or(&self.accept)
    }

    /// Whether protobuf is asked for first: the responses may need the on-demand protobuf
    /// decoder, and a 406 means the type has no protobuf form.
    pub fn asks_for_protobuf(&self) -> bool {
        let first = |accept: &Accept| accept.entries().first().and_then(|(m, _)| m.essence.format());
        first(&self.accept) == Some(Format::Protobuf) || first(self.watch_accept()) == Some(Format::Protobuf)
    }

    /// Asks for JSON instead, for a type the server has no protobuf form of (it answered a
    /// protobuf request that allowed no fallback with 406 Not Acceptable); `false` (and nothing
    /// changed) when protobuf was not asked for.
    pub fn drop_protobuf(&mut self) -> bool {
        if !self.asks_for_protobuf() {
            return false;
        }
        self.accept = Accept::only(MediaType::json());
        self.watch_accept = None;
        true
    }

    /// `collection` as server-side Tables, as `kubectl get -w` watches it: lists and watches ask
    /// for `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (then v1beta1, then plain
    /// JSON from a server that cannot convert) with `includeObject=include`. Each cached entry is
    /// then a one-row Table keyed by its row's object, and [`Reflector::table_columns`] holds the
    /// column definitions (sent only by a list page and the first event of each watch).
    pub fn tables(collection: Collection, include: IncludeObject) -> ReflectorConfig {
        ReflectorConfig { accept: Accept::table(), include_object: Some(include), ..ReflectorConfig::new(collection) }
    }

    pub(crate) fn with_include_object(&self, request: RequestBuilder) -> RequestBuilder {
        match self.include_object {
            Some(include) => request.include_object(include),
            None => request,
        }
    }
}
