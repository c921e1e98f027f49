//! The keyboard: which keys do what ([`KEYS`], listed by `?`), the rule that no key fires while
//! the user types in a field or a dialog is open, and the intent a key leaves for the view it
//! opens (`e` opens an object in the editor, `l` at its log).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::Msg;
use crate::ui::i18n::{filled_text, live_text, text_now, worded};

/// The keys, as `?` lists them: one key or two alternatives (key names stay as printed on
/// keyboards), and what they do.
pub const KEYS: [(&str, Option<&str>, Msg); 10] = [
    (":", Some("Ctrl/⌘ K"), Msg::KeyGoTo),
    ("/", None, Msg::KeyFilter),
    ("j", Some("↓"), Msg::KeyNextRow),
    ("k", Some("↑"), Msg::KeyPreviousRow),
    ("Enter", None, Msg::KeyOpenRow),
    ("e", None, Msg::KeyEditRow),
    ("l", None, Msg::KeyRowLog),
    ("Esc", None, Msg::KeyCloseDialog),
    ("?", None, Msg::KeyTheseKeys),
    ("Tab", None, Msg::KeyEverythingElse),
];

/// Whether a key event comes from a field the user types in (or a dialog is open), where the
/// page's keys must not fire.
pub fn typing(event: &web_sys::KeyboardEvent) -> bool {
    let in_field = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|e| {
        matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
            || e.closest("[contenteditable=true], .cm-editor").ok().flatten().is_some()
    });
    in_field || dialog_open()
}

/// The keys typed while the go-to box's part loads ([`TypeAhead`](crate::model::goto::TypeAhead)), in context (from
/// `ui::goto_key`) for the box to take when its input appears.
#[derive(Clone, Copy)]
pub struct TypedAhead(pub StoredValue<crate::model::goto::TypeAhead>);

/// Whether a modal dialog of the app is open (its own keys handle everything then).
pub fn dialog_open() -> bool {
    document().query_selector("[aria-modal=true]").ok().flatten().is_some()
}

/// Whether the event carries a modifier that makes it someone else's shortcut.
pub fn modified(event: &web_sys::KeyboardEvent) -> bool {
    event.ctrl_key() || event.meta_key() || event.alt_key()
}

/// What the view opened by a key should do first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Open the editor (`e`).
    Edit,
    /// Open the pod's log (`l`).
    Log,
}

/// The intent left by the last key, until a view takes it.
#[derive(Debug, Clone, Copy)]
pub struct Intents(RwSignal<Option<Intent>>);

impl Intents {
    pub fn install() {
        provide_context(Intents(RwSignal::new(None)));
    }

    /// The app's intents; read while a component is built (a key handler runs outside any).
    pub fn here() -> Option<Intents> {
        use_context::<Intents>()
    }

    /// Leaves `intent` for the next view.
    pub fn leave(self, intent: Intent) {
        self.0.set(Some(intent));
    }

    /// Takes the intent if it is `intent` (a view that does it calls this once, when built).
    pub fn take(intent: Intent) -> bool {
        let Some(intents) = use_context::<Intents>() else { return false };
        let found = intents.0.get_untracked() == Some(intent);
        if found {
            intents.0.set(None);
        }
        found
    }
}

/// The list of keys, opened with `?` (and closed with Esc, `?` or its button).
#[component]
pub fn KeysHelp() -> impl IntoView {
    let open = RwSignal::new(false);
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "Escape" && open.get_untracked() {
            open.set(false);
        } else if event.key() == "?" && !modified(&event) && !typing(&event) {
            event.prevent_default();
            open.set(true);
        }
    });
    on_cleanup(move || handle.remove());
    let close = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if open.get() {
            if let Some(button) = close.get() {
                let _ = button.focus();
            }
        }
    });
    move || {
        open.get().then(|| {
            view! {
                <div class="dialog-backdrop" on:click=move |_| open.set(false)>
                    <div
                        class="dialog keys-help"
                        role="dialog"
                        aria-modal="true"
                        aria-labelledby="keys-help-title"
                        on:click=|e| e.stop_propagation()
                    >
                        <h2 id="keys-help-title">{live_text(Msg::Keys)}</h2>
                        <table class="keys-help__table">
                            <tbody>
                                {KEYS
                                    .iter()
                                    .map(|&(key, other, what)| {
                                        let keys = move || match other {
                                            Some(other) => filled_text(Msg::KeyOr, &[("a", &key), ("b", &other)]),
                                            None => key.to_owned(),
                                        };
                                        view! {
                                            <tr>
                                                <th scope="row">
                                                    <kbd dir="ltr">{keys}</kbd>
                                                </th>
                                                <td>{worded(move || text_now(what))}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                        <p class="muted">{live_text(Msg::NoKeyWhileTyping)}</p>
                        <button class="button" node_ref=close on:click=move |_| open.set(false)>
                            {live_text(Msg::Close)}
                        </button>
                    </div>
                </div>
            }
        })
    }
}
