//! The pods the simulated kubelet is running, shared through `App` (a module of its own, so that
//! `App` depends on nothing that depends on it).

use std::collections::HashSet;
use std::sync::Mutex;

/// The pods the kubelet is running now (by uid), so that a pod is run once however often it is
/// handed over.
#[derive(Default)]
pub struct Kubelet {
    running: Mutex<HashSet<String>>,
    /// The Deployments (namespace, name) with a pod that became Ready and a count of it still to
    /// come: a key waits here once however many of its pods become Ready meanwhile, as a key waits
    /// once in client-go's work queue (`k8s.io/client-go/util/workqueue/queue.go`: `Add` of a key
    /// already dirty does nothing), so 10,000 replicas starting together are counted in a few
    /// rounds, not one round each.
    to_count: Mutex<HashSet<(String, String)>>,
}

impl Kubelet {
    pub fn claim(&self, uid: &str) -> bool {
        self.running.lock().unwrap_or_else(|p| p.into_inner()).insert(uid.to_string())
    }

    pub fn release(&self, uid: &str) {
        self.running.lock().unwrap_or_else(|p| p.into_inner()).remove(uid);
    }

    /// Queues a count of the Deployment's ready pods; false when one is already waiting.
    pub fn queue_count(&self, namespace: &str, deployment: &str) -> bool {
        self.to_count.lock().unwrap_or_else(|p| p.into_inner()).insert((namespace.to_string(), deployment.to_string()))
    }

    /// The queued count is starting: a pod ready from now on queues another.
    pub fn counting(&self, namespace: &str, deployment: &str) {
        self.to_count
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(namespace.to_string(), deployment.to_string()));
    }
}
