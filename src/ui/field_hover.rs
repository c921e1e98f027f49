//! The keys of an object's document as ways into its schema: hovering a key, or focusing it
//! (`↑`/`↓` in the document move from key to key), shows a popover with the field's docs below
//! it; `Esc` hides it, and it stays while the pointer or the focus is on it (Tab from a key
//! reaches its link to the schema explorer). Only the events and the popover's box are here, in
//! the first load; the docs come in the on-demand part `field_docs` (`ui::lazy`).

use std::sync::Arc;
use std::time::Duration;

use kube_core::GroupVersionKind;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::lazy::FieldDocsOnDemand;

/// How long the popover stays after the pointer or the focus left the key (to reach it).
const LINGER: Duration = Duration::from_millis(300);
/// The popover's element id (a key it describes points at it).
const POPOVER_ID: &str = "field-docs-popover";

/// The key shown, and where its popover goes (pixels from the document's box).
#[derive(Debug, Clone, PartialEq)]
struct Shown {
    /// 0-based line of the document.
    line: usize,
    top: i32,
    left: i32,
}

/// The hover state of one document.
#[derive(Clone, Copy)]
pub struct FieldHover {
    shown: RwSignal<Option<Shown>>,
    /// Bumped by each show and keep: a hide scheduled before does nothing.
    turn: StoredValue<u64>,
    /// The key described (its `aria-describedby` is removed when hidden).
    key: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
    pub pre: NodeRef<html::Pre>,
}

impl Default for FieldHover {
    fn default() -> FieldHover {
        FieldHover::new()
    }
}

impl FieldHover {
    pub fn new() -> FieldHover {
        FieldHover {
            shown: RwSignal::new(None),
            turn: StoredValue::new(0),
            key: StoredValue::new_local(None),
            pre: NodeRef::new(),
        }
    }

    /// The key element an event happened on, if any.
    fn key_of(target: Option<web_sys::EventTarget>) -> Option<web_sys::HtmlElement> {
        let element = target?.dyn_into::<web_sys::Element>().ok()?;
        element.closest(".tok--key").ok().flatten()?.dyn_into().ok()
    }

    fn show(self, key: web_sys::HtmlElement) {
        self.keep();
        let Some(pre) = self.pre.get_untracked() else { return };
        let line = key
            .parent_element()
            .and_then(|l| l.get_attribute("data-line"))
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1));
        let Some(line) = line else { return };
        let Some((top, left)) = FieldHover::below(&pre, &key) else { return };
        self.forget_key();
        let _ = key.set_attribute("aria-describedby", POPOVER_ID);
        self.key.set_value(Some(key));
        self.shown.set(Some(Shown { line, top, left }));
    }

    /// Where the popover of `key` goes: below it, from the corner of the wrapper it is placed in
    /// (`.code-docs`), measured on the screen (a long document's lines sit in a slab moved by a
    /// transform). `None` when the key is out of the wrapper's box (scrolled out of view).
    fn below(pre: &web_sys::HtmlElement, key: &web_sys::HtmlElement) -> Option<(i32, i32)> {
        let wrapper = pre.closest(".code-docs").ok().flatten().unwrap_or_else(|| pre.clone().into());
        let (frame, at) = (wrapper.get_bounding_client_rect(), key.get_bounding_client_rect());
        if at.bottom() <= frame.top() || at.top() >= frame.bottom() {
            return None;
        }
        Some(((at.bottom() - frame.top()).round() as i32 + 2, (at.left() - frame.left()).round() as i32))
    }

    fn keep(self) {
        self.turn.update_value(|t| *t += 1);
    }

    fn forget_key(self) {
        if let Some(Some(key)) = self.key.try_get_value() {
            let _ = key.remove_attribute("aria-describedby");
        }
    }

    fn hide(self) {
        self.forget_key();
        self.key.set_value(None);
        self.shown.set(None);
    }

    fn hide_soon(self) {
        self.keep();
        let mine = self.turn.get_value();
        set_timeout(
            move || {
                if self.turn.try_get_value() == Some(mine) {
                    self.hide();
                }
            },
            LINGER,
        );
    }

    pub fn on_over(self, e: web_sys::MouseEvent) {
        match FieldHover::key_of(e.target()) {
            Some(key) => self.show(key),
            None => self.hide_soon(),
        }
    }

    pub fn on_out(self) {
        self.hide_soon();
    }

    /// A long document scrolled: the popover follows its key, and goes when the key left the
    /// view (or the page: the lines drawn change as it scrolls).
    pub fn on_scroll(self) {
        let Some(shown) = self.shown.get_untracked() else { return };
        let key = self.key.try_get_value().flatten().filter(|key| key.is_connected());
        let place = key.zip(self.pre.get_untracked()).and_then(|(key, pre)| FieldHover::below(&pre, &key));
        match place {
            Some((top, left)) => self.shown.set(Some(Shown { top, left, ..shown })),
            None => self.hide(),
        }
    }

    pub fn on_focus(self, e: web_sys::FocusEvent) {
        if let Some(key) = FieldHover::key_of(e.target()) {
            self.show(key);
        }
    }

    /// `↓`/`↑` focus the next or previous key; `Esc` hides the popover; `Tab` on a key goes
    /// into its popover (to its link), which the document order would not reach next.
    pub fn on_keydown(self, e: web_sys::KeyboardEvent) {
        let step: isize = match e.key().as_str() {
            "Tab" if !e.shift_key() && self.shown.get_untracked().is_some() => {
                let on_key = FieldHover::key_of(e.target()).is_some();
                let link = document()
                    .get_element_by_id(POPOVER_ID)
                    .and_then(|p| p.query_selector("a").ok().flatten())
                    .and_then(|a| a.dyn_into::<web_sys::HtmlElement>().ok());
                if let (true, Some(link)) = (on_key, link) {
                    e.prevent_default();
                    self.keep();
                    let _ = link.focus();
                }
                return;
            }
            "ArrowDown" => 1,
            "ArrowUp" => -1,
            "Escape" => {
                if self.shown.get_untracked().is_some() {
                    e.prevent_default();
                    e.stop_propagation();
                    self.hide();
                }
                return;
            }
            _ => return,
        };
        let Some(pre) = self.pre.get_untracked() else { return };
        let Ok(keys) = pre.query_selector_all(".tok--key") else { return };
        let active = document().active_element();
        let current = (0..keys.length()).find(|&i| match (keys.get(i), &active) {
            (Some(key), Some(active)) => key.is_same_node(Some(active)),
            _ => false,
        });
        let next = match current {
            Some(i) => i as isize + step,
            None if step > 0 => 0,
            None => keys.length() as isize - 1,
        };
        if next < 0 || next >= keys.length() as isize {
            return;
        }
        if let Some(key) = keys.get(next as u32).and_then(|k| k.dyn_into::<web_sys::HtmlElement>().ok()) {
            e.prevent_default();
            let _ = key.focus();
        }
    }
}

/// The popover of a document's hovered or focused key.
#[component]
pub fn FieldPopover(
    /// The document's hover state.
    hover: FieldHover,
    /// The document's text (its lines' paths are read from it).
    text: Signal<Arc<String>>,
    /// The kind whose schema explains it.
    kind: GroupVersionKind,
) -> impl IntoView {
    let popover: NodeRef<html::Div> = NodeRef::new();
    Effect::new(move |_| {
        let (Some(shown), Some(element)) = (hover.shown.get(), popover.get()) else { return };
        let style = web_sys::HtmlElement::style(&element);
        let _ = style.set_property("top", &format!("{}px", shown.top));
        let _ = style.set_property("left", &format!("{}px", shown.left.max(0)));
    });
    let line = Memo::new(move |_| hover.shown.with(|s| s.as_ref().map(|s| s.line)));
    move || {
        line.get().map(|line| {
            let kind = kind.clone();
            view! {
                <div
                    class="field-popover"
                    id=POPOVER_ID
                    role="tooltip"
                    node_ref=popover
                    data-testid="field-popover"
                    on:mouseover=move |_| hover.keep()
                    on:mouseout=move |_| hover.hide_soon()
                    on:focusin=move |_| hover.keep()
                    on:focusout=move |_| hover.hide_soon()
                    on:keydown=move |e| hover.on_keydown(e)
                >
                    <FieldDocsOnDemand text=text.get_untracked() line kind />
                </div>
            }
        })
    }
}
