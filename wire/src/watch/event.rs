//! The typed [`WatchEvent`] a watch stream carries (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR),
//! read from an event document, and event documents written as the server writes them.

use crate::codec::cbor::{CborEncoding, Writer, SELF_DESCRIBED_TAG};
use crate::codec::value::ValueKind;
use crate::codec::value::{Map, Value};
use crate::view::list::ResourceVersion;
use crate::view::shape::{opt_str, shape, Expected, Found, ViewError};
use crate::view::status::{status_from_document, Status};
use crate::watch::lazy::LazyObject;
use crate::watch::object::watched_object;

/// The annotation on the BOOKMARK that ends the initial events of a streaming list.
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// One change seen by a watch. The object of an ADDED, MODIFIED or DELETED event is read lazily
/// ([`LazyObject`]): its head at once, the whole tree on demand.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEvent {
    Added(LazyObject),
    Modified(LazyObject),
    Deleted(LazyObject),
    Bookmark(Bookmark),
    /// An in-stream error, e.g. 410 Expired when the watch started from a compacted version.
    Error(Box<Status>),
}

/// A BOOKMARK: only the resource version (and annotations) of an object of the watched type.
#[derive(Debug, Clone, PartialEq)]
pub struct Bookmark {
    pub resource_version: Option<ResourceVersion>,
    /// Carries `k8s.io/initial-events-end: "true"`: the initial state of a streaming list is done.
    pub initial_events_end: bool,
    pub object: Value,
}

impl WatchEvent {
    /// Reads a `{"type": …, "object": …}` event document (a copy of it: [`WatchEvent::from_value`]
    /// takes the document and moves its object into the event).
    pub fn from_document(document: &Value) -> Result<WatchEvent, ViewError> {
        WatchEvent::from_value(document.clone())
    }

    /// Reads a `{"type": …, "object": …}` event document, moving its object into the event
    /// (what a watch decoder does with each event it frames: no copy of the object is made).
    pub fn from_value(mut document: Value) -> Result<WatchEvent, ViewError> {
        let event_type = opt_str(&document, "type", "$")?.unwrap_or_default();
        let object = match &mut document {
            Value::Object(map) => map.remove("object"),
            _ => None,
        };
        let object = match object {
            Some(object @ Value::Object(_)) => object,
            Some(other) => return Err(shape("$.object", ValueKind::Object, &other)),
            None => return Err(shape("$.object", ValueKind::Object, &Value::Null)),
        };
        match event_type.as_str() {
            "ADDED" => Ok(WatchEvent::Added(LazyObject::from_value(object))),
            "MODIFIED" => Ok(WatchEvent::Modified(LazyObject::from_value(object))),
            "DELETED" => Ok(WatchEvent::Deleted(LazyObject::from_value(object))),
            "BOOKMARK" => Ok(WatchEvent::Bookmark(Bookmark {
                resource_version: object
                    .at(&["metadata", "resourceVersion"])
                    .and_then(Value::as_str)
                    .map(ResourceVersion::new),
                // A Table watch wraps the bookmark object in a one-row Table.
                initial_events_end: watched_object(&object)
                    .at(&["metadata", "annotations", INITIAL_EVENTS_END_ANNOTATION])
                    .and_then(Value::as_str)
                    == Some("true"),
                object,
            })),
            "ERROR" => status_from_document(&object).map(|s| WatchEvent::Error(Box::new(s))),
            other => Err(ViewError::Shape {
                path: "$.type".to_string(),
                expected: Expected::WatchEventType,
                found: Found::Verbatim(format!("{other:?}")),
            }),
        }
    }

    /// The `type` as on the wire.
    pub fn event_type(&self) -> &'static str {
        match self {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            WatchEvent::Bookmark(_) => "BOOKMARK",
            WatchEvent::Error(_) => "ERROR",
        }
    }

    /// The object of an ADDED, MODIFIED or DELETED event.
    pub fn object(&self) -> Option<&LazyObject> {
        match self {
            WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => Some(o),
            WatchEvent::Bookmark(_) | WatchEvent::Error(_) => None,
        }
    }

    /// The resource version to resume the watch from after this event.
    pub fn resource_version(&self) -> Option<ResourceVersion> {
        match self {
            WatchEvent::Bookmark(b) => b.resource_version.clone(),
            WatchEvent::Error(_) => None,
            other => other.object().and_then(LazyObject::own_resource_version).map(ResourceVersion::new),
        }
    }
}

/// One event of a JSON watch as the server writes it: compact, one line.
pub fn encode_json_event(event_type: &str, object: &Value) -> Vec<u8> {
    let mut map = Map::new();
    map.insert("type", Value::String(event_type.to_string()));
    map.insert("object", object.clone());
    let mut text = Value::Object(map).to_json();
    text.push('\n');
    text.into_bytes()
}

/// One event of a CBOR watch as the server writes it: `55799({type, object: 55799({…})})` with
/// the encoding's string type and key order.
pub fn encode_cbor_event(event_type: &str, object: &Value, encoding: CborEncoding) -> Vec<u8> {
    let mut writer = Writer::new(encoding);
    if encoding.self_described {
        writer.head(ciborium_ll::Header::Tag(SELF_DESCRIBED_TAG));
    }
    writer.head(ciborium_ll::Header::Map(Some(2)));
    writer.text("type");
    writer.text(event_type);
    writer.text("object");
    if encoding.self_described {
        writer.head(ciborium_ll::Header::Tag(SELF_DESCRIBED_TAG));
    }
    writer.value(object);
    writer.finish()
}
