//! What follows a write: controllers kept in step with it (Deployments, the pods they own,
//! custom resource types served from stored CustomResourceDefinitions).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::store::lifecycle::{is_crd, CRD_CLEANUP};
use crate::store::object::meta_mut;
use crate::store::registry::ResourceType;
use crate::{app::App, store::object};

/// Keeps controllers in step with a write: the served custom resource types with stored
/// CustomResourceDefinitions, the rules of aggregated ClusterRoles with the ClusterRoles they
/// gather, and a Deployment's ReplicaSets and pods with its spec (a pod of
/// theirs that is deleted is replaced at once, as the ReplicaSet controller does).
pub fn after_write(app: &Arc<App>, rt: &ResourceType, obj: &Value, gone: bool) {
    if rt.group == "apps" && rt.plural == "deployments" && !gone {
        crate::controllers::deployments::reconcile(app, object::namespace(obj), object::name(obj));
        return;
    }
    if rt.group.is_empty() && rt.plural == "pods" && (gone || object::is_deleting(obj)) {
        let owner = app.store.write(|txn| crate::controllers::deployments::owning_deployment(txn, obj));
        if let Some(dep) = owner {
            crate::controllers::deployments::reconcile(app, object::namespace(obj), &dep);
        }
        return;
    }
    if rt.group == crate::auth::rbac::GROUP && rt.plural == "clusterroles" {
        app.store.write(crate::controllers::policy::aggregate);
        return;
    }
    if !is_crd(rt) {
        return;
    }
    let group = obj["spec"]["group"].as_str().unwrap_or_default().to_string();
    let plural = obj["spec"]["names"]["plural"].as_str().unwrap_or_default().to_string();
    if gone || object::is_deleting(obj) {
        let key = format!("{group}/{plural}");
        let crd_name = object::name(obj).to_string();
        app.store.write(|txn| {
            for o in txn.state().list(&key, None) {
                txn.remove(&key, object::namespace(&o), object::name(&o));
            }
            let crd_key = rt.storage_key();
            if let Some(crd) = txn.get(&crd_key, "", &crd_name) {
                let rest: Vec<String> = object::finalizers(&crd).into_iter().filter(|f| f != CRD_CLEANUP).collect();
                if rest.is_empty() {
                    txn.remove(&crd_key, "", &crd_name);
                } else {
                    let mut c = crd.as_ref().clone();
                    meta_mut(&mut c).insert("finalizers".into(), json!(rest));
                    txn.put(&crd_key, c);
                }
            }
        });
        app.registry.remove_custom(&group, &plural);
    } else if app.registry.add_custom(obj).is_ok() {
        // The real server's watch cache for the type starts after the CRD is established (a write
        // after the create): a watch from the CRD's own resourceVersion or older is too old.
        let rv = obj["metadata"]["resourceVersion"].as_str().and_then(|r| r.parse::<u64>().ok()).unwrap_or(0);
        app.registry.serve_since(&group, &plural, rv + 1);
    } else {
        app.registry.remove_custom(&group, &plural);
    }
}
