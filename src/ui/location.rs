//! The view state lives in the URL: this module reads it from `location.search`, pushes a new
//! history entry when the view changes, and follows the browser's back and forward buttons. The
//! host's parameters (`embed`, `api-base`, ...) stay on every URL written. An explorer mounted in
//! a host's element keeps its view in memory instead: the host page's URL is not its to change.

use leptos::prelude::*;

use crate::model::host::{join_search, HostSettings};
use crate::model::view_state::ViewState;

/// The current view and a way to move to another, shared through context.
#[derive(Clone, Copy)]
pub struct Navigation {
    pub state: ReadSignal<ViewState>,
    set_state: WriteSignal<ViewState>,
    /// The host parameters kept on every URL, or `None` when the view is not in the URL.
    host_query: StoredValue<Option<String>>,
}

impl Navigation {
    /// Reads the view from the URL and follows back/forward from now on.
    pub fn install() -> Navigation {
        let search = current_search();
        let (state, set_state) = signal(ViewState::from_search(&search));
        let handle = window_event_listener(leptos::ev::popstate, move |_| {
            set_state.set(ViewState::from_search(&current_search()));
        });
        on_cleanup(move || handle.remove());
        let navigation =
            Navigation { state, set_state, host_query: StoredValue::new(Some(HostSettings::host_query(&search))) };
        provide_context(navigation);
        navigation
    }

    /// Keeps the view in memory, starting at `initial`.
    pub fn install_in_memory(initial: ViewState) -> Navigation {
        let (state, set_state) = signal(initial);
        let navigation = Navigation { state, set_state, host_query: StoredValue::new(None) };
        provide_context(navigation);
        navigation
    }

    /// Moves to `next`, as a new history entry (so back returns here).
    pub fn go(&self, next: ViewState) {
        if next == self.state.get_untracked() {
            return;
        }
        if let Some(host_query) = self.host_query.get_value() {
            let search = join_search(&next.to_search(), &host_query);
            if let Ok(history) = window().history() {
                let path = window().location().pathname().unwrap_or_default();
                let url = if search.is_empty() { path } else { format!("{path}{search}") };
                // Failing to record history only costs the back button; the view still changes.
                let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
            }
        }
        self.set_state.set(next);
    }

    /// Changes the view with `change` applied to a copy of the current one.
    pub fn update(&self, change: impl FnOnce(&mut ViewState)) {
        let mut next = self.state.get_untracked();
        change(&mut next);
        self.go(next);
    }

    /// The address of `target`, for a link to open in a new tab or copy (the host parameters
    /// kept); a click on the link navigates in place instead ([`ViewLink`]).
    pub fn href(&self, target: &ViewState) -> String {
        let search = match self.host_query.get_value() {
            Some(host_query) => join_search(&target.to_search(), &host_query),
            None => target.to_search(),
        };
        if search.is_empty() {
            "?".to_owned()
        } else {
            search
        }
    }

    /// The link to the explorer's start view (the host parameters kept), when the view is in
    /// the URL.
    pub fn home_href(&self) -> Option<String> {
        self.host_query.get_value().map(|q| join_search("", &q)).map(|s| if s.is_empty() { "?".to_owned() } else { s })
    }
}

/// A link to another view: the current one changed by `change`. Its address opens it in a new tab
/// (or is copied); a plain click moves there in place, a click with a modifier key is the
/// browser's.
#[component]
pub fn ViewLink(
    /// How the target differs from the current view (applied again when the view changes).
    change: std::sync::Arc<dyn Fn(&mut ViewState) + Send + Sync>,
    #[prop(optional)] testid: Option<&'static str>,
    /// Said on hover (in the current language: a signal).
    #[prop(optional, into)]
    title: Option<Signal<String>>,
    children: Children,
) -> impl IntoView {
    let navigation = use_navigation();
    let target = {
        let change = change.clone();
        move || {
            let mut target = navigation.state.get();
            change(&mut target);
            target
        }
    };
    let href = move || navigation.href(&target());
    view! {
        <a
            href=href
            data-testid=testid
            title=move || title.map(|t| t.get())
            on:click=move |e: web_sys::MouseEvent| {
                if is_plain_click(&e) {
                    e.prevent_default();
                    navigation.update(|s| change(s));
                }
            }
        >
            {children()}
        </a>
    }
}

/// Whether a click on a link is a plain left click, for the app to navigate in place; with a
/// modifier key or another button it is the browser's (a new tab, a download).
pub fn is_plain_click(e: &web_sys::MouseEvent) -> bool {
    e.button() == 0 && !(e.ctrl_key() || e.meta_key() || e.shift_key() || e.alt_key())
}

/// The navigation provided by the app.
pub fn use_navigation() -> Navigation {
    expect_context::<Navigation>()
}

fn current_search() -> String {
    window().location().search().unwrap_or_default()
}
