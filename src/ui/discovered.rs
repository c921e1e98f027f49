//! What discovery found, as an app-wide context: the views that resolve kinds to resource types
//! (owner links, create) read it here.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::discovery::Discovery;

/// Provides `discovery` to the components below.
pub fn provide_discovery(discovery: &Discovery) {
    provide_context(Arc::new(discovery.clone()));
}

/// What discovery found.
pub fn use_discovery() -> Arc<Discovery> {
    expect_context::<Arc<Discovery>>()
}
