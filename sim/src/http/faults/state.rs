//! What kube-sim has been asked to get wrong (`/_sim/fail`, `/_sim/slow`, `/_sim/truncate-next`,
//! cuts of open streams, the churn's generation): state the fault routes set and the middleware,
//! watches and logs read.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Debug, Clone, Copy)]
pub(super) struct Failure {
    pub(super) status: u16,
    pub(super) remaining: u64,
    pub(super) retry_after: u64,
    /// Only watch requests fail (`watches=true`): a client's watch is held off while other
    /// requests, such as a test's own changes, go through.
    pub(super) watches_only: bool,
}

pub struct Faults {
    pub(super) failure: Mutex<Option<Failure>>,
    pub(super) slow_ms: AtomicU64,
    pub(super) truncate_next: AtomicBool,
    pub(super) cuts: tokio::sync::watch::Sender<u64>,
    pub(super) churns: AtomicU64,
}

impl Faults {
    pub fn new() -> Faults {
        Faults {
            failure: Mutex::new(None),
            slow_ms: AtomicU64::new(0),
            truncate_next: AtomicBool::new(false),
            cuts: tokio::sync::watch::Sender::new(0),
            churns: AtomicU64::new(0),
        }
    }

    /// Ends every open watch and followed log, as on shutdown.
    pub fn cut_streams(&self) {
        self.cuts.send_modify(|n| *n += 1);
    }

    /// Changes each time every open watch must be cut.
    pub fn watch_cuts(&self) -> tokio::sync::watch::Receiver<u64> {
        self.cuts.subscribe()
    }

    /// Bumped by each `/_sim/churn`: a churn runs while this is its generation.
    pub fn churn_generation(&self) -> u64 {
        self.churns.load(Ordering::SeqCst)
    }

    /// The failure the next request meets, if any (`watch`: whether that request is a watch).
    pub(super) fn take_failure(&self, watch: bool) -> Option<Failure> {
        let mut guard = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        let f = guard.as_mut()?;
        if f.watches_only && !watch {
            return None;
        }
        if f.remaining == 0 {
            *guard = None;
            return None;
        }
        f.remaining -= 1;
        Some(*f)
    }
}
