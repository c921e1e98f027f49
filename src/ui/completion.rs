//! The object editor's help from the kind's schema: the docs of the field at the cursor (under
//! the editor) and of a key under the pointer (a tooltip), and completion. Typing a key, or
//! `Ctrl+Space`, lists the fields of the schema at the cursor's path not yet there; after
//! `key: ` a field's enum values (or `true`/`false`). `↑`/`↓` choose, `Enter`/`Tab` insert, `Esc`
//! closes. The textarea keeps its role and points at the list (`aria-controls`) and the option
//! chosen (`aria-activedescendant`); the list is a `listbox` of `option`s, and its size is said
//! in a live region.
//!
//! What the cursor is typing and what is offered is `model::completion`'s; this file follows the
//! cursor and edits the text (through the browser's editing, so that undo works).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::api::explain::{Located, SchemaTree, Step};
use crate::i18n::Msg;
use crate::model::completion::{
    byte_offset, candidates, cursor_place, member_at, utf16_offset, Candidate, CursorPlace, NoCandidates, Typing,
};
use crate::ui::field_docs::{no_candidates, FieldDocsCard, FieldDocsOf, TreeResult};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};

/// The editor's padding (`.editor__input`: `--space-2` above, `--space-3` at the start) and line
/// height, to place the list under the word at the cursor.
const PAD_TOP: i32 = 8;
const PAD_START: i32 = 12;
const LINE_HEIGHT: i32 = 18;

/// Numbers the editors, so that each list's ids are its own.
static EDITORS: AtomicU32 = AtomicU32::new(0);

/// The open list.
#[derive(Debug, Clone, PartialEq)]
struct Menu {
    place: CursorPlace,
    found: Result<Vec<Candidate>, NoCandidates>,
    active: usize,
    /// 0-based line and column (in characters) of the word replaced.
    line: usize,
    column: usize,
}

/// A key under the pointer: its 0-based line and where its tooltip goes.
#[derive(Debug, Clone, PartialEq)]
struct Hovered {
    line: usize,
    top: i32,
    left: i32,
}

/// One editor's help.
#[derive(Clone, Copy)]
pub struct Assist {
    tree: Signal<Option<TreeResult>>,
    text: RwSignal<String>,
    area: NodeRef<html::Textarea>,
    highlight: NodeRef<html::Pre>,
    /// The cursor, a byte offset into the text (`None` before the editor is focused).
    caret: RwSignal<Option<usize>>,
    menu: RwSignal<Option<Menu>>,
    hovered: RwSignal<Option<Hovered>>,
    id: u32,
}

impl Assist {
    /// The help of the editor showing `text` in `area` over `highlight`, from `tree`.
    pub fn new(
        tree: Signal<Option<TreeResult>>,
        text: RwSignal<String>,
        area: NodeRef<html::Textarea>,
        highlight: NodeRef<html::Pre>,
    ) -> Assist {
        Assist {
            tree,
            text,
            area,
            highlight,
            caret: RwSignal::new(None),
            menu: RwSignal::new(None),
            hovered: RwSignal::new(None),
            id: EDITORS.fetch_add(1, Ordering::Relaxed),
        }
    }

    fn list_id(self) -> String {
        format!("completion-{}", self.id)
    }

    fn option_id(self, index: usize) -> String {
        format!("completion-{}-{index}", self.id)
    }

    /// The list's id while it is open (the textarea's `aria-controls`).
    pub fn controls(self) -> Option<String> {
        self.menu.with(Option::is_some).then(|| self.list_id())
    }

    /// The chosen option's id (the textarea's `aria-activedescendant`).
    pub fn active_descendant(self) -> Option<String> {
        self.menu.with(|m| match m {
            Some(Menu { found: Ok(_), active, .. }) => Some(self.option_id(*active)),
            _ => None,
        })
    }

    /// The cursor as a byte offset, when nothing is selected.
    fn read_caret(self) -> Option<usize> {
        let area = self.area.get_untracked()?;
        let start = area.selection_start().ok().flatten()?;
        let end = area.selection_end().ok().flatten()?;
        (start == end).then(|| self.text.with_untracked(|t| byte_offset(t, start as usize)))
    }

    /// Follows the cursor: the docs follow it, and a list closes when the cursor leaves its word.
    pub fn sync_caret(self) {
        let caret = self.read_caret();
        self.caret.set(caret);
        let Some(menu) = self.menu.get_untracked() else { return };
        match caret {
            Some(at) if at >= menu.place.range.start && at <= menu.place.range.end + 1 => self.open(true),
            _ => self.close(),
        }
    }

    pub fn close(self) {
        if self.menu.get_untracked().is_some() {
            self.menu.set(None);
        }
    }

    /// Lists what may be typed at the cursor. Asked for (`Ctrl+Space`), the list also says why
    /// nothing is offered; opened by typing, it opens only with something to offer.
    fn open(self, asked: bool) {
        let Some(caret) = self.read_caret() else { return self.close() };
        let Some(Ok(tree)) = self.tree.get_untracked() else { return self.close() };
        let place = self.text.with_untracked(|text| cursor_place(text, caret));
        let Some(place) = place else { return self.close() };
        let found = candidates(&tree, &place);
        if found.is_err() && !asked {
            return self.close();
        }
        let (line, column) = self.text.with_untracked(|text| {
            let before = &text[..place.range.start.min(text.len())];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            (before.matches('\n').count(), before[line_start..].chars().count())
        });
        let active = self.menu.with_untracked(|m| match (m, &found) {
            (Some(old), Ok(items)) if old.line == line => {
                let label = old.found.as_ref().ok().and_then(|o| o.get(old.active)).map(|c| c.label.clone());
                label.and_then(|l| items.iter().position(|c| c.label == l)).unwrap_or(0)
            }
            _ => 0,
        });
        self.menu.set(Some(Menu { place, found, active, line, column }));
    }

    /// After the text changed by typing: a word typed opens (or narrows) the list; anything else
    /// closes it, unless it was open (a deletion narrows it again).
    pub fn after_input(self, event: &web_sys::Event) {
        self.caret.set(self.read_caret());
        let kind =
            js_sys::Reflect::get(event, &"inputType".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
        let was_open = self.menu.with_untracked(Option::is_some);
        if kind == "insertText" {
            let opening = self.read_caret().is_some_and(|caret| {
                self.text.with_untracked(|text| match cursor_place(text, caret) {
                    Some(CursorPlace { typing: Typing::Key { .. }, prefix, .. }) => !prefix.is_empty(),
                    Some(_) => true,
                    None => false,
                })
            });
            if opening || was_open {
                return self.open(false);
            }
        } else if was_open && kind.starts_with("delete") {
            return self.open(false);
        }
        self.close();
    }

    /// `Ctrl+Space` opens the list; with it open, `↑`/`↓` choose, `Enter`/`Tab` insert, `Esc` closes.
    pub fn on_keydown(self, e: &web_sys::KeyboardEvent) {
        if e.ctrl_key() && (e.key() == " " || e.code() == "Space") {
            e.prevent_default();
            return self.open(true);
        }
        let Some(menu) = self.menu.get_untracked() else { return };
        let count = menu.found.as_ref().map_or(0, Vec::len);
        match e.key().as_str() {
            "Escape" => {
                e.prevent_default();
                e.stop_propagation();
                self.close();
            }
            "ArrowDown" | "ArrowUp" if count > 0 => {
                e.prevent_default();
                let next =
                    if e.key() == "ArrowDown" { (menu.active + 1) % count } else { (menu.active + count - 1) % count };
                self.menu.update(|m| {
                    if let Some(m) = m {
                        m.active = next;
                    }
                });
                self.reveal(next);
            }
            "Enter" | "Tab" if count > 0 && !e.shift_key() => {
                e.prevent_default();
                self.accept(menu.active);
            }
            _ => {}
        }
    }

    /// Scrolls the chosen option into the list's view.
    fn reveal(self, index: usize) {
        let option = document()
            .get_element_by_id(&self.option_id(index))
            .and_then(|o| o.dyn_into::<web_sys::HtmlElement>().ok());
        let list = document().get_element_by_id(&self.list_id());
        let (Some(option), Some(list)) = (option, list) else { return };
        let (top, bottom) = (option.offset_top(), option.offset_top() + option.offset_height());
        if top < list.scroll_top() {
            list.set_scroll_top(top);
        } else if bottom > list.scroll_top() + list.client_height() {
            list.set_scroll_top(bottom - list.client_height());
        }
    }

    /// Replaces the word at the cursor with candidate `index`, through the browser's editing
    /// (one undo step), then offers the values of a field just completed.
    fn accept(self, index: usize) {
        let Some(menu) = self.menu.get_untracked() else { return };
        let Some(candidate) = menu.found.clone().ok().and_then(|items| items.into_iter().nth(index)) else { return };
        let Some(area) = self.area.get_untracked() else { return };
        let (start, end) = self.text.with_untracked(|text| {
            (utf16_offset(text, menu.place.range.start) as u32, utf16_offset(text, menu.place.range.end) as u32)
        });
        let _ = area.focus();
        let _ = area.set_selection_range(start, end);
        if !exec_insert_text(&candidate.insert) {
            // Without `execCommand` the text is replaced directly (no undo step) and the input
            // event the editor listens to is sent by hand.
            let _ = area.set_range_text_with_start_and_end(&candidate.insert, start, end);
            let after = start + candidate.insert.encode_utf16().count() as u32;
            let _ = area.set_selection_range(after, after);
            if let Ok(event) = web_sys::Event::new("input") {
                let _ = area.dispatch_event(&event);
            }
        }
        self.menu.set(None);
        self.caret.set(self.read_caret());
        // A field's name just written: its values (or its first fields) are offered next.
        if matches!(menu.place.typing, Typing::Key { .. }) {
            self.open(false);
        }
    }

    /// Shows the docs of the key under the pointer. The keys are in the highlighted copy under
    /// the textarea, which takes the pointer: the line is told from the pointer's height, and the
    /// key by its box (both boxes start at the code box's corner).
    pub fn on_mousemove(self, e: &web_sys::MouseEvent) {
        let (x, y) = (e.offset_x(), e.offset_y());
        let line = (y - PAD_TOP).div_euclid(LINE_HEIGHT);
        let key = self.highlight.get_untracked().and_then(|highlight| {
            let selector = format!(".editor__line[data-line=\"{line}\"] .tok--key");
            let key = highlight.query_selector(&selector).ok().flatten()?.dyn_into::<web_sys::HtmlElement>().ok()?;
            let inside = (key.offset_left()..key.offset_left() + key.offset_width()).contains(&x)
                && (key.offset_top()..key.offset_top() + key.offset_height()).contains(&y);
            inside.then_some(key)
        });
        let Some(key) = key else {
            if self.hovered.with_untracked(Option::is_some) {
                self.hovered.set(None);
            }
            return;
        };
        let line = line as usize;
        if self.hovered.with_untracked(|h| h.as_ref().map(|h| h.line)) == Some(line) {
            return;
        }
        let top = key.offset_top() + key.offset_height() + 2;
        let left = key.offset_left();
        self.hovered.set(Some(Hovered { line, top, left }));
    }

    pub fn on_mouseleave(self) {
        self.hovered.set(None);
    }
}

/// `document.execCommand("insertText", false, text)`: whether the browser did it.
fn exec_insert_text(text: &str) -> bool {
    let document = document();
    let Ok(exec) = js_sys::Reflect::get(&document, &"execCommand".into()) else { return false };
    let Ok(exec) = exec.dyn_into::<js_sys::Function>() else { return false };
    exec.call3(&document, &"insertText".into(), &false.into(), &text.into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// The list under the word at the cursor, and the tooltip of a key under the pointer (inside the
/// editor's code box).
#[component]
pub fn AssistPopups(assist: Assist) -> impl IntoView {
    let anchor: NodeRef<html::Div> = NodeRef::new();
    let place = Memo::new(move |_| assist.menu.with(|m| m.as_ref().map(|m| (m.line, m.column))));
    Effect::new(move |_| {
        let (Some((line, column)), Some(anchor)) = (place.get(), anchor.get()) else { return };
        let style = web_sys::HtmlElement::style(&anchor);
        let _ = style.set_property("top", &format!("{}px", PAD_TOP + (line as i32 + 1) * LINE_HEIGHT));
        let _ = style.set_property("left", &format!("calc({PAD_START}px + {column}ch)"));
        // The cursor may be out of the editor's view (the editor's box scrolls, not the
        // textarea): the list is brought into it.
        if let Some(menu) = anchor.first_element_child() {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
            menu.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
    let menu = move || {
        let menu = assist.menu.get()?;
        let tree = assist.tree.get().and_then(Result::ok)?;
        let body = match &menu.found {
            Ok(items) => {
                let count = items.len();
                let options = items
                    .iter()
                    .enumerate()
                    .map(|(index, c)| {
                        let detail = if c.from_description { text_now(Msg::CompletionFromDescription) } else { format!("<{}>", c.type_label) };
                        view! {
                            <li
                                class="completion__option"
                                role="option"
                                id=assist.option_id(index)
                                aria-selected=(index == menu.active).to_string()
                                on:mousedown=move |e| {
                                    e.prevent_default();
                                    assist.accept(index);
                                }
                            >
                                <span class="completion__label">{c.label.clone()}</span>
                                {c.required.then(|| view! { <span class="completion__detail">{live_text(Msg::ExplainRequiredMark)}</span> })}
                                <span class="completion__detail">{detail}</span>
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <ul class="completion__list" role="listbox" id=assist.list_id() aria-label=live_text(Msg::CompletionLabel) data-testid="completion-list">
                        {options}
                    </ul>
                    <p class="visually-hidden" role="status">{worded(move || filled_text(Msg::CompletionCount, &[("count", &count)]))}</p>
                }
                .into_any()
            }
            Err(why) => view! {
                <p class="completion__note" role="status" id=assist.list_id() data-testid="completion-none">{no_candidates(&tree, why)}</p>
            }
            .into_any(),
        };
        Some(view! { <div class="completion__menu" data-testid="completion">{body}</div> })
    };
    let tooltip: NodeRef<html::Div> = NodeRef::new();
    let hovered = Memo::new(move |_| assist.hovered.get());
    Effect::new(move |_| {
        let (Some(h), Some(element)) = (hovered.get(), tooltip.get()) else { return };
        let style = web_sys::HtmlElement::style(&element);
        let _ = style.set_property("top", &format!("{}px", h.top));
        let _ = style.set_property("left", &format!("{}px", h.left));
    });
    let hover = move || {
        let h = hovered.get()?;
        let tree = assist.tree.get().and_then(Result::ok)?;
        let segments = assist.text.with(|text| {
            crate::model::highlight::yaml_line_pointers(text)
                .into_iter()
                .nth(h.line)
                .flatten()
                .map(|p| crate::api::write::diff::pointer_segments(&p))
        })?;
        Some(view! {
            <div class="completion__hover" role="tooltip" data-testid="editor-hover">
                <FieldDocsCard tree segments />
            </div>
        })
    };
    // The anchors stay while their contents come and go, so that a list or tooltip drawn again
    // (another option chosen, another key hovered) is never drawn unplaced.
    view! {
        <div class="completion__anchor" node_ref=anchor>{menu}</div>
        <div class="completion__anchor" node_ref=tooltip>{hover}</div>
    }
}

/// The docs of the field at the cursor, under the editor; while the list is open, of the field
/// chosen in it.
#[component]
pub fn CursorDocs(assist: Assist) -> impl IntoView {
    let shown = move || {
        let tree = match assist.tree.get() {
            None => return view! { <p class="muted">{live_text(Msg::FieldDocsLoading)}</p> }.into_any(),
            Some(Err(error)) => {
                return view! { <p class="muted">{worded(move || filled_text(Msg::FieldDocsNoSchema, &[("error", &localized(&error))]))}</p> }
                    .into_any();
            }
            Some(Ok(tree)) => tree,
        };
        let chosen = assist.menu.with(|m| {
            m.as_ref()
                .and_then(|m| m.found.as_ref().ok().and_then(|items| items.get(m.active)).map(|c| c.field.clone()))
        });
        if let Some(path) = chosen {
            return docs_of_path(tree, path);
        }
        let segments = assist.caret.get().and_then(|caret| assist.text.with(|text| member_at(text, caret)));
        match segments {
            Some(segments) => view! { <FieldDocsCard tree segments /> }.into_any(),
            None => view! { <p class="muted">{live_text(Msg::FieldDocsNothingAtCursor)}</p> }.into_any(),
        }
    };
    view! {
        <section class="editor__docs" aria-label=live_text(Msg::FieldDocsAtCursor) data-testid="cursor-docs">
            <h4>{live_text(Msg::FieldDocsAtCursor)}</h4>
            {shown}
        </section>
    }
}

/// The docs of the field at a tree path (a candidate's).
fn docs_of_path(tree: Arc<SchemaTree>, path: String) -> AnyView {
    let Some(field) = tree.field(&path) else { return ().into_any() };
    let located = Located { shape: field.shape(), field: path.clone(), step: Step::Field, members: path };
    view! { <FieldDocsOf tree located /> }.into_any()
}
