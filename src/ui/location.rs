//! The view state lives in the URL: this module reads it from `location.search`, pushes a new
//! history entry when the view changes, and follows the browser's back and forward buttons.

use leptos::prelude::*;

use crate::model::view_state::ViewState;

/// The current view and a way to move to another, shared through context.
#[derive(Clone, Copy)]
pub struct Navigation {
    pub state: ReadSignal<ViewState>,
    set_state: WriteSignal<ViewState>,
}

impl Navigation {
    /// Reads the view from the URL and follows back/forward from now on.
    pub fn install() -> Navigation {
        let (state, set_state) = signal(ViewState::from_search(&current_search()));
        let handle = window_event_listener(leptos::ev::popstate, move |_| {
            set_state.set(ViewState::from_search(&current_search()));
        });
        on_cleanup(move || handle.remove());
        let navigation = Navigation { state, set_state };
        provide_context(navigation);
        navigation
    }

    /// Moves to `next`, as a new history entry (so back returns here).
    pub fn go(&self, next: ViewState) {
        if next == self.state.get_untracked() {
            return;
        }
        let search = next.to_search();
        if let Ok(history) = window().history() {
            let path = window().location().pathname().unwrap_or_default();
            let url = if search.is_empty() { path } else { format!("{path}{search}") };
            // Failing to record history only costs the back button; the view still changes.
            let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        self.set_state.set(next);
    }

    /// Changes the view with `change` applied to a copy of the current one.
    pub fn update(&self, change: impl FnOnce(&mut ViewState)) {
        let mut next = self.state.get_untracked();
        change(&mut next);
        self.go(next);
    }
}

/// The navigation provided by the app.
pub fn use_navigation() -> Navigation {
    expect_context::<Navigation>()
}

fn current_search() -> String {
    window().location().search().unwrap_or_default()
}
