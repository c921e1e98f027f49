//! The user's own settings that outlive the page, remembered in the browser's localStorage:
//! whether collections open live.

use leptos::prelude::*;

/// Where "open collections live" is remembered ("0" when turned off).
const OPEN_LIVE_KEY: &str = "kube-api-explorer.openLive";

/// The remembered settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// A collection opens live (list, then watch) unless the URL says otherwise.
    pub open_live: RwSignal<bool>,
}

impl Settings {
    /// Provides the settings, reading what was remembered; a browser without storage (or one
    /// that refuses it) gets the defaults, kept for the page's lifetime.
    pub fn install() -> Settings {
        let storage = window().local_storage().ok().flatten();
        let remembered = storage.and_then(|s| s.get_item(OPEN_LIVE_KEY).ok().flatten());
        let settings = Settings { open_live: RwSignal::new(remembered.as_deref() != Some("0")) };
        Effect::new(move |first: Option<()>| {
            let open_live = settings.open_live.get();
            // Nothing is written until the user changes something.
            if first.is_some() {
                if let Some(storage) = window().local_storage().ok().flatten() {
                    let _ = storage.set_item(OPEN_LIVE_KEY, if open_live { "1" } else { "0" });
                }
            }
        });
        provide_context(settings);
        settings
    }
}

/// The settings provided by the app, or the defaults where none were (a component tested alone).
pub fn use_settings() -> Settings {
    use_context::<Settings>().unwrap_or_else(|| Settings { open_live: RwSignal::new(true) })
}
