//! Deleting objects as the API server does: graceful deletion of pods, finalizers holding an
//! object until they are gone, propagation to dependents (Background, Foreground, Orphan), and a
//! deleted namespace emptied: the store operation every deleter shares.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::controllers::recorder::{record, EventType, Recorded};
use crate::rules::status::{conflict, not_found, ApiResult};
use crate::store::object::meta_mut;
use crate::store::registry::ResourceType;
use crate::store::{Obj, Txn};
use crate::{app::App, store::object};

pub const MAX_GRACE_SECONDS: i64 = 365 * 24 * 3600;

/// Delete options from the query and an optional DeleteOptions body.
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub grace: Option<i64>,
    pub propagation: Option<String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub dry_run: bool,
}

/// What a delete did.
pub enum Deleted {
    /// Removed from storage; the last state.
    Gone(Obj),
    /// Marked for deletion (finalizers or a grace period remain).
    Pending(Obj),
}

/// Deletes one object inside a write.
pub fn delete_in(
    app: &Arc<App>,
    txn: &mut Txn<'_>,
    rt: &ResourceType,
    ns: &str,
    name: &str,
    o: &DeleteOptions,
) -> ApiResult<Deleted> {
    let key = rt.storage_key();
    let old = txn.get(&key, ns, name).ok_or_else(|| not_found(rt, name))?;
    if let Some(uid) = &o.uid {
        if uid != object::uid(&old) {
            return Err(conflict(
                rt,
                name,
                &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {}", object::uid(&old)),
            ));
        }
    }
    if let Some(rv) = &o.resource_version {
        if rv != object::resource_version(&old) {
            return Err(conflict(
                rt,
                name,
                &format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    object::resource_version(&old)
                ),
            ));
        }
    }
    let is_pod = rt.group.is_empty() && rt.plural == "pods";
    let is_namespace = rt.group.is_empty() && rt.plural == "namespaces";
    let grace = if is_pod {
        o.grace.unwrap_or_else(|| {
            old["spec"]["terminationGracePeriodSeconds"].as_i64().unwrap_or(30).clamp(0, MAX_GRACE_SECONDS)
        })
    } else {
        0
    };
    let mut finalizers = object::finalizers(&old);
    if o.propagation.as_deref() == Some("Foreground") && !finalizers.iter().any(|f| f == "foregroundDeletion") {
        finalizers.push("foregroundDeletion".into());
    }
    let orphan = o.propagation.as_deref() == Some("Orphan");
    if o.dry_run {
        return Ok(if finalizers.is_empty() && grace == 0 && !is_namespace {
            Deleted::Gone(old)
        } else {
            Deleted::Pending(old)
        });
    }
    if finalizers.is_empty() && grace == 0 && !is_namespace {
        let gone = remove_now(app, txn, rt, ns, name).ok_or_else(|| not_found(rt, name))?;
        collect_garbage(app, txn, object::uid(&gone), orphan);
        return Ok(Deleted::Gone(gone));
    }
    if object::is_deleting(&old) {
        return Ok(Deleted::Pending(old));
    }
    let mut marked = old.as_ref().clone();
    let when = object::timestamp(object::now() + chrono::Duration::seconds(grace));
    {
        let meta = meta_mut(&mut marked);
        meta.insert("deletionTimestamp".into(), json!(when));
        meta.insert("deletionGracePeriodSeconds".into(), json!(grace));
        if !finalizers.is_empty() {
            meta.insert("finalizers".into(), json!(finalizers));
        }
    }
    if is_namespace {
        object::set_at(&mut marked, &["status", "phase"], json!("Terminating"));
    }
    let marked = txn.put(&key, marked);
    if finalizers.iter().any(|f| f == "foregroundDeletion") {
        collect_garbage(app, txn, object::uid(&marked), false);
        let rest: Vec<String> = finalizers.iter().filter(|f| *f != "foregroundDeletion").cloned().collect();
        let mut done = marked.as_ref().clone();
        meta_mut(&mut done).insert("finalizers".into(), json!(rest));
        if rest.is_empty() {
            meta_mut(&mut done).remove("finalizers");
            let last = txn.put(&key, done);
            remove_now(app, txn, rt, ns, name);
            return Ok(Deleted::Gone(last));
        }
        return Ok(Deleted::Pending(txn.put(&key, done)));
    }
    if is_namespace {
        empty_namespace(app, txn, name);
        return Ok(Deleted::Pending(txn.get(&key, "", name).unwrap_or(marked)));
    }
    if is_pod && grace > 0 && finalizers.is_empty() {
        record_killing(app, txn, &marked);
        schedule_kubelet_removal(
            app.clone(),
            ns.to_string(),
            name.to_string(),
            object::uid(&marked).to_string(),
            grace,
        );
    }
    if orphan {
        collect_garbage(app, txn, object::uid(&marked), true);
    }
    Ok(Deleted::Pending(marked))
}

/// The kubelet's Killing Event for each container of a bound pod it stops on a graceful delete
/// (`kuberuntime_container.go`, killContainer), counted again as the kubelet's other Events are.
fn record_killing(app: &App, txn: &mut Txn<'_>, pod: &Value) {
    if pod["spec"]["nodeName"].as_str().unwrap_or_default().is_empty() {
        return;
    }
    for container in pod["spec"]["containers"].as_array().into_iter().flatten() {
        let message = format!("Stopping container {}", container["name"].as_str().unwrap_or_default());
        let killing = Recorded {
            about: pod.clone(),
            kind: EventType::Normal,
            reason: "Killing".into(),
            message,
            component: "kubelet",
        };
        record(app, txn, &killing, object::now());
    }
}

/// The simulated kubelet finishes a graceful pod deletion after (at most one second of) its grace
/// period: halfway, its containers have stopped (terminated, exit code 0: they stop on SIGTERM)
/// and the pod is no longer Ready, as a real kubelet reports before it confirms the deletion
/// (pkg/kubelet/status/status_manager.go; a pod that is being deleted ends in a terminal phase,
/// pkg/kubelet/kubelet_pods.go `getPhase`); then the pod goes.
pub fn schedule_kubelet_removal(app: Arc<App>, ns: String, name: String, uid: String, grace: i64) {
    tokio::spawn(async move {
        let half = Duration::from_millis((grace.clamp(0, 1) * 500) as u64);
        tokio::time::sleep(half).await;
        app.store.write(|txn| {
            let Some(p) = txn.get("/pods", &ns, &name).filter(|p| object::uid(p) == uid) else { return };
            if p["status"]["containerStatuses"].as_array().is_some_and(|c| !c.is_empty())
                && !crate::store::pod::is_terminal(&p)
            {
                let mut stopped = p.as_ref().clone();
                stopped["status"] = crate::store::pod::terminated_status(&p, 0);
                txn.put("/pods", stopped);
            }
        });
        tokio::time::sleep(half).await;
        let Some(rt) = app.registry.by_storage_key("/pods") else { return };
        app.store.write(|txn| {
            if let Some(p) = txn.get("/pods", &ns, &name) {
                if object::uid(&p) == uid && object::finalizers(&p).is_empty() {
                    remove_now(&app, txn, &rt, &ns, &name);
                }
            }
        });
    });
}

/// Removes an object now, then finishes a terminating namespace that became empty.
pub fn remove_now(app: &Arc<App>, txn: &mut Txn<'_>, rt: &ResourceType, ns: &str, name: &str) -> Option<Obj> {
    let gone = txn.remove(&rt.storage_key(), ns, name)?;
    if !ns.is_empty() {
        if let Some(n) = txn.get("/namespaces", "", ns) {
            if object::is_deleting(&n) && namespace_is_empty(app, txn, ns) {
                txn.remove("/namespaces", "", ns);
            }
        }
    }
    Some(gone)
}

pub fn namespace_is_empty(app: &Arc<App>, txn: &Txn<'_>, ns: &str) -> bool {
    app.registry.namespaced_storage_keys().iter().all(|k| txn.state().list(k, Some(ns)).is_empty())
}

/// Deletes everything in a terminating namespace; removes it when nothing is left.
pub fn empty_namespace(app: &Arc<App>, txn: &mut Txn<'_>, ns: &str) {
    for key in app.registry.namespaced_storage_keys() {
        let Some(rt) = app.registry.by_storage_key(&key) else { continue };
        for o in txn.state().list(&key, Some(ns)) {
            let opts = DeleteOptions { grace: Some(0), ..DeleteOptions::default() };
            // An object that is already gone is not an error here.
            let _ = delete_in(app, txn, &rt, ns, object::name(&o), &opts);
        }
    }
    if namespace_is_empty(app, txn, ns) {
        txn.remove("/namespaces", "", ns);
    }
}

/// Deletes (or orphans) the dependents of a removed owner, as the garbage collector does.
pub fn collect_garbage(app: &Arc<App>, txn: &mut Txn<'_>, owner_uid: &str, orphan: bool) {
    if owner_uid.is_empty() {
        return;
    }
    for (key, ns, name) in txn.state().dependents(owner_uid) {
        let Some(rt) = app.registry.by_storage_key(&key) else { continue };
        let Some(o) = txn.get(&key, &ns, &name) else { continue };
        if orphan {
            let mut c = o.as_ref().clone();
            if let Some(refs) = meta_mut(&mut c).get_mut("ownerReferences").and_then(Value::as_array_mut) {
                refs.retain(|r| r["uid"] != owner_uid);
            }
            txn.put(&key, c);
        } else {
            let opts = DeleteOptions { grace: Some(0), ..DeleteOptions::default() };
            // Dependents may be gone already.
            let _ = delete_in(app, txn, &rt, &ns, &name, &opts);
        }
    }
}
