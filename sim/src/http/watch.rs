//! Watch streams: chunked responses that flush each event as it happens (one JSON event per
//! line; changes already waiting when one is written go in the same chunk), starting from the resourceVersion semantics of the concepts page (unset or "0": initial
//! ADDED events, then changes; exact: changes after it; too old: one in-stream ERROR 410),
//! `sendInitialEvents` with the `k8s.io/initial-events-end` BOOKMARK, periodic bookmarks,
//! `timeoutSeconds`, selectors (an object leaving the selection is DELETED for this watcher), and
//! Table or PartialObjectMetadata events. Framing: JSON lines, a CBOR sequence, or protobuf
//! (`;stream=watch`: 4-byte big-endian length + `WatchEvent`, encoded per watcher, not shared).

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use kube_wire::params::IncludeObject;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio::sync::{broadcast, mpsc};

use crate::app::App;
use crate::encoding::encode;
use crate::encoding::negotiate::{Format, Shape, Target};
use crate::encoding::ordered::{order_of, Order, Ordered};
use crate::encoding::table;
use crate::http::{with_version, Ctx, ResourcePath};
use crate::rules::list::{too_large_rv, ListOptions};
use crate::rules::status::{not_acceptable, ApiError, ApiResult, Status};
use crate::store::registry::ResourceType;
use crate::store::{Change, ChangeKind, Obj};

/// A watch's changes that are already waiting are written together, up to this many bytes.
const WRITE_BATCH: usize = 64 * 1024;

/// Default length of a watch without timeoutSeconds, as the real server's minimum request timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

#[derive(Serialize)]
struct Event<'a, T: Serialize> {
    #[serde(rename = "type")]
    ty: &'a str,
    object: T,
}

/// How each event's object is written.
struct Framer {
    rt: Arc<ResourceType>,
    shape: Shape,
    include: IncludeObject,
    columns_sent: bool,
    /// JSON lines, a CBOR sequence, or length-prefixed protobuf `WatchEvent`s.
    format: Format,
    /// The buffer size for the next shared frame: a little more than the last one took.
    size_hint: usize,
}

impl Framer {
    fn frame(&mut self, ty: &str, obj: &Value) -> Bytes {
        let obj = with_version(&self.rt, obj);
        if self.format == Format::Protobuf {
            let tree = match self.shape {
                Shape::Metadata(v) => table::partial_metadata(&obj, v.api_version()),
                _ => obj,
            };
            return match encode::protobuf_event(ty, &tree) {
                Ok(frame) => Bytes::from(frame),
                // The object does not fit its message: this watcher gets the 500 instead.
                Err(ApiError::Status(s)) => error_frame(&s, Format::Protobuf),
                Err(ApiError::PageNotFound) => Bytes::new(),
            };
        }
        if self.format == Format::Cbor {
            let bytes = match self.shape {
                Shape::Metadata(v) => encode::cbor_event(ty, &table::partial_metadata(&obj, v.api_version())),
                _ => encode::cbor_event(ty, &obj),
            };
            return Bytes::from(bytes);
        }
        let bytes = match self.shape {
            Shape::Object => encode::json(&Event { ty, object: Ordered::new(&obj, order_of(&self.rt)) }, false),
            Shape::Metadata(v) => {
                let pm = table::partial_metadata(&obj, v.api_version());
                encode::json(&Event { ty, object: Ordered::new(&pm, Order::Typed) }, false)
            }
            Shape::Table(v) => {
                let t = if ty == "BOOKMARK" {
                    table::bookmark_table(&self.rt, &obj, v.api_version())
                } else {
                    let mut meta = Map::new();
                    meta.insert("resourceVersion".into(), obj["metadata"]["resourceVersion"].clone());
                    let first = !self.columns_sent;
                    self.columns_sent = true;
                    table::table(&self.rt, &[&obj], meta, self.include, v.api_version(), first)
                };
                encode::json(&Event { ty, object: t }, false)
            }
        };
        Bytes::from(bytes)
    }

    /// The frame of a change; the plain JSON and CBOR forms are shared by all watchers through the
    /// change (encoded once, not once per watcher).
    fn frame_change(&mut self, ty: &'static str, c: &Change) -> Bytes {
        let plain = self.shape == Shape::Object
            && ty == c.kind.as_str()
            && c.object["apiVersion"].as_str() == Some(self.rt.api_version().as_str());
        if plain && self.format == Format::Cbor {
            return c
                .cbor_frame
                .get_or_init(|| {
                    let frame = encode::cbor_event_document(ty, &c.object, self.size_hint);
                    self.size_hint = frame.len() + frame.len() / 8;
                    Bytes::from(frame)
                })
                .clone();
        }
        if plain && self.format == Format::Json {
            return c
                .json_line
                .get_or_init(|| {
                    let object = Ordered::new(&c.object, order_of(&self.rt));
                    let line = encode::json_with_capacity(&Event { ty, object }, false, self.size_hint);
                    self.size_hint = line.len() + line.len() / 8;
                    Bytes::from(line)
                })
                .clone();
        }
        self.frame(ty, &c.object)
    }

    fn bookmark(&mut self, rv: u64, initial_end: bool) -> Bytes {
        let mut meta = json!({"resourceVersion": rv.to_string()});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let obj = json!({"kind": self.rt.kind, "apiVersion": self.rt.api_version(), "metadata": meta});
        self.frame("BOOKMARK", &obj)
    }
}

fn error_frame(status: &Status, format: Format) -> Bytes {
    match format {
        Format::Cbor => return Bytes::from(encode::cbor_event("ERROR", status)),
        Format::Protobuf => {
            let tree = serde_json::to_value(status).unwrap_or(Value::Null);
            // A Status always fits its message.
            return Bytes::from(encode::protobuf_event("ERROR", &tree).unwrap_or_default());
        }
        Format::Json | Format::Yaml => {}
    }
    Bytes::from(encode::json(&Event { ty: "ERROR", object: status }, false))
}

fn too_old(rv: u64, oldest: u64) -> Status {
    Status::failure(410, "Expired", format!("too old resource version: {rv} ({oldest})"))
}

/// What one watcher sees.
struct Filter {
    key: String,
    namespace: Option<String>,
    name: Option<String>,
    opts: ListOptions,
}

impl Filter {
    fn selects(&self, o: &Value) -> bool {
        self.name.as_deref().is_none_or(|n| crate::store::object::name(o) == n) && self.opts.matches(o)
    }

    /// The event this watcher gets for a change, if any.
    fn event(&self, c: &Change) -> Option<(&'static str, Obj)> {
        if c.key != self.key || self.namespace.as_deref().is_some_and(|ns| ns != c.namespace) {
            return None;
        }
        let now = self.selects(&c.object);
        let before = c.prev.as_ref().is_some_and(|p| self.selects(p));
        match c.kind {
            ChangeKind::Added if now => Some(("ADDED", c.object.clone())),
            ChangeKind::Deleted if before || now => Some(("DELETED", c.object.clone())),
            ChangeKind::Modified => match (before, now) {
                (true, true) => Some(("MODIFIED", c.object.clone())),
                (false, true) => Some(("ADDED", c.object.clone())),
                (true, false) => Some(("DELETED", c.object.clone())),
                (false, false) => None,
            },
            _ => None,
        }
    }
}

pub fn watch_response(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, opts: ListOptions) -> ApiResult<Response> {
    let output = ctx.output(Target::Watch, path.rt.protobuf())?;
    if output.format == Format::Yaml {
        return Err(not_acceptable());
    }
    let format = output.format;
    let include = crate::encoding::table::parse_include_object(ctx.query.get("includeObject").map(String::as_str))
        .map_err(crate::rules::status::bad_request)?;
    let rt = path.rt.clone();
    let mut framer =
        Framer { rt: rt.clone(), shape: output.shape, include, columns_sent: false, format, size_hint: 256 };
    let filter = Filter {
        key: rt.storage_key(),
        namespace: path.namespace.clone(),
        name: path.name.clone(),
        opts: opts.clone(),
    };
    let mut rx = app.store.subscribe();
    let mut first: Vec<Bytes> = Vec::new();
    // The initial events' objects, encoded in the writing task (see there).
    let mut initial_objects: Vec<crate::store::Obj> = Vec::new();
    let mut initial_end = false;
    let start_rv;
    let mut failed = false;
    {
        let state = app.store.read();
        start_rv = state.rv;
        let rv = opts.rv_number();
        let initial = match (opts.send_initial_events, rv) {
            (Some(true), _) => true,
            (Some(false), _) => false,
            (None, None | Some(0)) => true,
            (None, Some(_)) => false,
        };
        if let Some(n) = rv.filter(|n| *n > state.rv) {
            return Err(too_large_rv(n, state.rv));
        }
        if initial {
            initial_objects = state
                .list(&filter.key, filter.namespace.as_deref())
                .into_iter()
                .filter(|o| filter.selects(o))
                .collect();
            // With bookmarks allowed, the initial events of `sendInitialEvents=true` and of
            // `resourceVersion=0` end with the marked BOOKMARK (recorded: 61 and 67 of
            // real-apiserver).
            initial_end = opts.allow_bookmarks && (opts.send_initial_events == Some(true) || rv == Some(0));
        } else if let Some(n) = rv.filter(|n| *n > 0) {
            let since = app.registry.served_since(&rt.group, &rt.plural).filter(|since| n < *since);
            match since.map_or_else(|| state.changes_since(n), |oldest| Err(crate::store::TooOld { oldest })) {
                Ok(changes) => {
                    for c in changes {
                        if let Some((ty, o)) = filter.event(&c) {
                            first.push(framer.frame(ty, &o));
                        }
                    }
                }
                Err(e) => {
                    first.push(error_frame(&too_old(n, e.oldest), format));
                    failed = true;
                }
            }
        }
    }
    let (tx, body_rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(64);
    let timeout = opts.timeout_seconds.map(Duration::from_secs).unwrap_or(DEFAULT_TIMEOUT);
    let bookmarks = opts.allow_bookmarks.then(|| app.cli.bookmark_interval());
    let mut cut = app.faults.watch_cuts();
    let app = app.clone();
    tokio::spawn(async move {
        // The initial events go out as they are encoded, WRITE_BATCH bytes at a time, as the API
        // server streams them from its watch cache: the first of 10,000 objects does not wait
        // for the last to be encoded (it did: 550 ms to the first byte of a pod list's Table
        // watch at scale:10000).
        let mut batch: Vec<u8> = Vec::new();
        for o in std::mem::take(&mut initial_objects) {
            batch.extend_from_slice(&framer.frame("ADDED", &o));
            if batch.len() >= WRITE_BATCH && tx.send(Ok(Bytes::from(std::mem::take(&mut batch)))).await.is_err() {
                return;
            }
        }
        if initial_end {
            batch.extend_from_slice(&framer.bookmark(start_rv, true));
        }
        if !batch.is_empty() && tx.send(Ok(Bytes::from(batch))).await.is_err() {
            return;
        }
        for f in first {
            if tx.send(Ok(f)).await.is_err() {
                return;
            }
        }
        if failed {
            return;
        }
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut ticker = tokio::time::interval(bookmarks.unwrap_or(Duration::from_secs(3600)));
        ticker.tick().await;
        loop {
            tokio::select! {
                _ = &mut deadline => return,
                _ = tx.closed() => return,
                _ = cut.changed() => {
                    let _ = tx.send(Err(std::io::Error::other("watch dropped by /_sim/drop-watches"))).await;
                    return;
                }
                _ = ticker.tick(), if bookmarks.is_some() => {
                    let rv = app.store.current_rv();
                    if tx.send(Ok(framer.bookmark(rv, false))).await.is_err() {
                        return;
                    }
                }
                change = rx.recv() => {
                    // The changes already waiting go out as one chunk (up to WRITE_BATCH bytes),
                    // as the API server flushes a watch only when no event is waiting: a fast
                    // churn is not one write (and one chunk for the client to read) per event.
                    let mut batch: Vec<u8> = Vec::new();
                    let mut next = Some(change);
                    let mut end = None;
                    while let Some(change) = next.take() {
                        match change {
                            Ok(c) if c.rv <= start_rv => {}
                            Ok(c) => {
                                if let Some((ty, _)) = filter.event(&c) {
                                    batch.extend_from_slice(&framer.frame_change(ty, &c));
                                }
                            }
                            Err(broadcast::error::RecvError::Lagged(_)) => {
                                let s = too_old(start_rv, app.store.read().compacted_rv);
                                end = Some(Some(error_frame(&s, format)));
                                break;
                            }
                            Err(broadcast::error::RecvError::Closed) => {
                                end = Some(None);
                                break;
                            }
                        }
                        if batch.len() < WRITE_BATCH {
                            next = match rx.try_recv() {
                                Ok(c) => Some(Ok(c)),
                                Err(broadcast::error::TryRecvError::Empty) => None,
                                Err(broadcast::error::TryRecvError::Lagged(n)) => {
                                    Some(Err(broadcast::error::RecvError::Lagged(n)))
                                }
                                Err(broadcast::error::TryRecvError::Closed) => {
                                    Some(Err(broadcast::error::RecvError::Closed))
                                }
                            };
                        }
                    }
                    if !batch.is_empty() && tx.send(Ok(Bytes::from(batch))).await.is_err() {
                        return;
                    }
                    if let Some(last) = end {
                        if let Some(frame) = last {
                            let _ = tx.send(Ok(frame)).await;
                        }
                        return;
                    }
                }
            }
        }
    });
    let stream = futures::stream::unfold(body_rx, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) });
    let mut resp = Response::new(Body::from_stream(stream));
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    // As the real server names them (apiserver's handlers/watch.go): JSON as is, CBOR as a
    // sequence, anything else with `;stream=watch`.
    let content_type = match format {
        Format::Cbor => "application/cbor-seq",
        Format::Protobuf => "application/vnd.kubernetes.protobuf;stream=watch",
        Format::Json | Format::Yaml => "application/json",
    };
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::negotiate::TableVersion;

    #[test]
    fn table_watch_sends_columns_only_first() {
        let registry = crate::store::registry::Registry::load().expect("registry loads");
        let rt = registry.find("", "v1", "namespaces").expect("namespaces served");
        let mut f = Framer {
            rt,
            shape: Shape::Table(TableVersion::V1),
            include: IncludeObject::None,
            columns_sent: false,
            format: Format::Json,
            size_hint: 256,
        };
        let o = json!({"metadata": {"name": "a", "resourceVersion": "5"}, "status": {"phase": "Active"}});
        let one: Value = serde_json::from_slice(&f.frame("ADDED", &o)).expect("json");
        let two: Value = serde_json::from_slice(&f.frame("MODIFIED", &o)).expect("json");
        assert!(one["object"]["columnDefinitions"].is_array());
        assert!(two["object"]["columnDefinitions"].is_null());
        let b: Value = serde_json::from_slice(&f.bookmark(9, true)).expect("json");
        assert_eq!(b["object"]["rows"][0]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
    }
}
