//! The pods the simulated kubelet is running, shared through `App` (a module of its own, so that
//! `App` depends on nothing that depends on it).

use std::collections::HashSet;
use std::sync::Mutex;

/// The pods the kubelet is running now (by uid), so that a pod is run once however often it is
/// handed over.
#[derive(Default)]
pub struct Kubelet {
    running: Mutex<HashSet<String>>,
}

impl Kubelet {
    pub fn claim(&self, uid: &str) -> bool {
        self.running.lock().unwrap_or_else(|p| p.into_inner()).insert(uid.to_string())
    }

    pub fn release(&self, uid: &str) {
        self.running.lock().unwrap_or_else(|p| p.into_inner()).remove(uid);
    }
}
