//! The cache the reflector keeps: objects by [`ObjectKey`], each with the resourceVersion it
//! was stored at, and running [`Counters`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::codec::value::Value;
use crate::view::list::ResourceVersion;
use crate::watch::lazy::{LazyObject, ObjectHead};
use crate::watch::watched_object;

/// The key of a cached object: its uid, or its namespace and name when it has no uid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKey {
    Uid(String),
    Name { namespace: Option<String>, name: String },
}

impl ObjectKey {
    /// The key of an object document, or of the object of a one-row Table (a Table watch event);
    /// `None` without a uid and a name.
    pub fn of(object: &Value) -> Option<ObjectKey> {
        ObjectKey::of_head(&ObjectHead::of(watched_object(object)))
    }

    /// The key of an object by its head (see [`LazyObject::head`]).
    pub fn of_head(head: &ObjectHead) -> Option<ObjectKey> {
        let field = |value: &Option<String>| value.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
        match (field(&head.uid), field(&head.name)) {
            (Some(uid), _) => Some(ObjectKey::Uid(uid)),
            (None, Some(name)) => Some(ObjectKey::Name { namespace: field(&head.namespace), name }),
            (None, None) => None,
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectKey::Uid(uid) => f.write_str(uid),
            ObjectKey::Name { namespace: Some(ns), name } => write!(f, "{ns}/{name}"),
            ObjectKey::Name { namespace: None, name } => f.write_str(name),
        }
    }
}

/// One cached object and the resourceVersion it was stored at. The object is shared: a view that
/// keeps versions of it (an object history) holds the same allocation, not a copy. An object that
/// came in a watch event is kept as its wire bytes and decoded on demand ([`LazyObject`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CachedObject {
    pub object: Arc<LazyObject>,
    pub resource_version: Option<ResourceVersion>,
}

/// The cache: objects by key, in key order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Store {
    pub(crate) objects: BTreeMap<ObjectKey, CachedObject>,
}

impl Store {
    pub fn get(&self, key: &ObjectKey) -> Option<&CachedObject> {
        self.objects.get(key)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&ObjectKey, &CachedObject)> {
        self.objects.iter()
    }
}

/// Running totals, for the status line and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// ADDED, MODIFIED and DELETED events applied to the cache.
    pub events_applied: u64,
    /// Events whose object version was already applied.
    pub duplicates_ignored: u64,
    pub bookmarks: u64,
    pub list_pages: u64,
    /// Syncs started (paged or streaming lists), the first one included.
    pub syncs: u64,
    /// 410 Gone answers and ERROR events.
    pub expired: u64,
    /// Watch requests sent after a sync (resumes included; streaming lists not).
    pub watches: u64,
}
