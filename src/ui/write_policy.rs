//! Whether the explorer may send writes. The user can switch to read-only at any time; a host page
//! that embeds the explorer can force it, and then the user cannot switch it off. Every write
//! request is checked against this policy before it reaches `fetch`.

use leptos::prelude::*;

/// The read-only switch, provided as context by the app.
#[derive(Debug, Clone, Copy)]
pub struct WritePolicy {
    /// The user's own choice.
    pub read_only: RwSignal<bool>,
    /// Set by the host page (embedding); overrides the user's choice.
    pub forced_by_host: RwSignal<bool>,
}

impl WritePolicy {
    /// Provides the policy as context; writes are allowed until someone says otherwise.
    pub fn install() -> WritePolicy {
        let policy = WritePolicy { read_only: RwSignal::new(false), forced_by_host: RwSignal::new(false) };
        provide_context(policy);
        policy
    }

    /// Whether a write may be sent now (tracks both signals).
    pub fn allows_writes(&self) -> bool {
        !self.read_only.get() && !self.forced_by_host.get()
    }
}

/// The policy provided by the app.
pub fn use_write_policy() -> WritePolicy {
    expect_context::<WritePolicy>()
}
