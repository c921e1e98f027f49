//! The go-to box's keys: `:` (not while typing) or Ctrl/⌘-K (also while typing) open it, loaded
//! on demand (`ui::goto::GotoDialog`); closing gives the focus back. A module of its own so that
//! the box's module does not import the loader that imports it.

use leptos::prelude::*;

use crate::model::goto::TypeAhead;
use crate::ui::keys::{modified, typing, TypedAhead};
use crate::ui::lazy::GotoDialogOnDemand;

/// The go-to key's listener; the box (loaded on demand) while open.
#[component]
pub fn GotoBox() -> impl IntoView {
    let open = RwSignal::new(false);
    // Where the focus was, to give it back on close.
    let before = StoredValue::new_local(None::<web_sys::HtmlElement>);
    let ahead = StoredValue::new(TypeAhead::default());
    provide_context(TypedAhead(ahead));
    // Registered with the shell, before any view's keys: while the box is open and its input not
    // yet there (its part loading), what is typed is the box's, kept for it, and no view's key.
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        let shortcut = (event.ctrl_key() || event.meta_key()) && event.key().eq_ignore_ascii_case("k");
        let colon = event.key() == ":" && !modified(&event) && !typing(&event);
        if open.get_untracked() {
            if !modified(&event) && !typing(&event) && ahead.try_update_value(|a| a.key(&event.key())) == Some(true) {
                event.prevent_default();
                event.stop_immediate_propagation();
            }
        } else if shortcut || colon {
            event.prevent_default();
            let focused = document().active_element().and_then(|e| wasm_bindgen::JsCast::dyn_into(e).ok());
            before.set_value(focused);
            ahead.set_value(TypeAhead::default());
            open.set(true);
        }
    });
    on_cleanup(move || handle.remove());
    let close = Callback::new(move |()| {
        open.set(false);
        if let Some(Some(element)) = before.try_get_value() {
            let _ = element.focus();
        }
    });
    move || open.get().then(|| view! { <GotoDialogOnDemand close /> })
}
