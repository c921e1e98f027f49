//! A text editor for YAML and JSON: a plain `<textarea>` (so typing, selection, undo and
//! accessibility are the browser's) laid exactly over a highlighted copy of its text, with line
//! numbers, a gutter for per-line marks (field ownership, server warnings, problems found while
//! typing) and the parse error pointed at its line and column. Tokens come from `model::highlight`.
//! Given the edited kind's schema, it also shows field docs and completes (`ui::completion`).

use leptos::html;
use leptos::prelude::*;

use crate::i18n::Msg;
use crate::model::highlight::highlight;
use crate::ui::completion::{Assist, AssistPopups, CursorDocs};
use crate::ui::field_docs::TreeResult;
use crate::ui::i18n::{filled_text, live_text, worded};

/// A mark in the gutter of one line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineMark {
    /// A short label (the owning manager).
    pub label: String,
    /// The full text (hover).
    pub title: String,
    /// Whether the line carries a server warning.
    pub warning: bool,
    /// Whether the line carries a problem found while typing (before anything is sent).
    pub problem: bool,
}

/// Where the text fails to parse (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The editor. `marks` is indexed by 0-based line.
#[component]
pub fn CodeEditor(
    text: RwSignal<String>,
    /// The accessible name of the textarea.
    label: Msg,
    /// The parse error, if any.
    #[prop(into)]
    error: Signal<Option<TextError>>,
    /// Per-line gutter marks.
    #[prop(into)]
    marks: Signal<Vec<Option<LineMark>>>,
    /// Test id of the textarea.
    #[prop(optional)]
    testid: &'static str,
    /// The textarea, for a caller that moves the cursor (going to a problem's line).
    #[prop(optional)]
    input_ref: Option<NodeRef<html::Textarea>>,
    /// The schema of the edited kind: with it the editor shows the docs of the field at the
    /// cursor and under the pointer, and completes field names and values (`ui::completion`).
    #[prop(optional)]
    schema: Option<Signal<Option<TreeResult>>>,
) -> impl IntoView {
    let input_ref = input_ref.unwrap_or_default();
    let highlight_ref: NodeRef<html::Pre> = NodeRef::new();
    let assist = schema.map(|tree| Assist::new(tree, text, input_ref, highlight_ref));
    let autocomplete = assist.map(|_| "list");
    let lines = Memo::new(move |_| text.with(|t| highlight(t)));
    let gutter = move || {
        let error_line = error.get().map(|e| e.line);
        let marks = marks.get();
        (1..=lines.with(Vec::len))
            .map(|number| {
                let mark = marks.get(number - 1).cloned().flatten();
                let mut class = "editor__line-number".to_string();
                if error_line == Some(number) {
                    class.push_str(" editor__line-number--error");
                }
                if mark.as_ref().is_some_and(|m| m.warning) {
                    class.push_str(" editor__line-number--warning");
                }
                if mark.as_ref().is_some_and(|m| m.problem) {
                    class.push_str(" editor__line-number--problem");
                }
                let (label, title) = mark.map(|m| (m.label, m.title)).unwrap_or_default();
                view! {
                    <div class=class title=title.clone()>
                        <span class="editor__owner" data-testid="owner-mark">{label}</span>
                        <span class="editor__number">{number}</span>
                    </div>
                }
            })
            .collect_view()
    };
    let highlighted = move || {
        lines.with(|lines| {
            lines
                .iter()
                .enumerate()
                .map(|(index, tokens)| {
                    let spans = tokens
                        .iter()
                        .map(|t| view! { <span class=format!("tok tok--{}", t.kind.class())>{t.text.clone()}</span> })
                        .collect_view();
                    view! { <span class="editor__line" data-line=index>{spans} "\n"</span> }
                })
                .collect_view()
        })
    };
    view! {
        <div class="editor">
            <div class="editor__scroll">
                <div class="editor__gutter" aria-hidden="true">{gutter}</div>
                <div class="editor__code">
                    <pre class="editor__highlight" aria-hidden="true" node_ref=highlight_ref>{highlighted}" "</pre>
                    <textarea
                        node_ref=input_ref
                        class="editor__input"
                        aria-label=live_text(label)
                        data-testid=testid
                        spellcheck="false"
                        autocomplete="off"
                        wrap="off"
                        aria-autocomplete=autocomplete
                        aria-controls=move || assist.and_then(Assist::controls)
                        aria-activedescendant=move || assist.and_then(Assist::active_descendant)
                        prop:value=move || text.get()
                        on:input=move |e| {
                            text.set(event_target_value(&e));
                            if let Some(assist) = assist {
                                assist.after_input(&e);
                            }
                        }
                        on:keydown=move |e| if let Some(assist) = assist { assist.on_keydown(&e) }
                        on:keyup=move |e| {
                            let moved = matches!(e.key().as_str(), "ArrowLeft" | "ArrowRight" | "Home" | "End" | "PageUp" | "PageDown");
                            let menu_keys = matches!(e.key().as_str(), "ArrowUp" | "ArrowDown");
                            if let Some(assist) = assist.filter(|_| moved || (menu_keys && assist.and_then(Assist::controls).is_none())) {
                                assist.sync_caret();
                            }
                        }
                        on:click=move |_| if let Some(assist) = assist { assist.sync_caret() }
                        on:focus=move |_| if let Some(assist) = assist { assist.sync_caret() }
                        on:blur=move |_| if let Some(assist) = assist { assist.close() }
                        on:mousemove=move |e| if let Some(assist) = assist { assist.on_mousemove(&e) }
                        on:mouseleave=move |_| if let Some(assist) = assist { assist.on_mouseleave() }
                    ></textarea>
                    {assist.map(|assist| view! { <AssistPopups assist /> })}
                </div>
            </div>
            {assist.map(|assist| view! { <CursorDocs assist /> })}
            {move || {
                error
                    .get()
                    .map(|e| {
                        view! {
                            <p class="warning editor__error" role="alert" data-testid="editor-error">
                                {worded(move || filled_text(Msg::LineColumn, &[("line", &e.line), ("column", &e.column), ("message", &e.message)]))}
                            </p>
                        }
                    })
            }}
        </div>
    }
}
