//! Highlighted, foldable text for YAML and JSON documents, with line numbers. Tokens and fold
//! ranges come from `model::highlight`; this only renders them. Documents longer than
//! [`MAX_RICH_LINES`], and lists of more than [`WHOLE_LIST_ITEMS`] items, are virtualized
//! ([`VirtualCode`]): only the lines in view are in the page, highlighted as they scroll in, with
//! folds and a search over the whole text; a list's items are written only as they come into
//! view (`model::segments`).

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;

use crate::client::fetch::sleep;
use crate::client::task::Tasks;
use crate::i18n::Msg;
use kube_core::GroupVersionKind;

use crate::model::highlight::{fold_ends, highlight, highlight_line, TokenKind};
use crate::model::lines::window;
use crate::model::segments::{LineAt, Segmented, Source};
use crate::ui::field_hover::{FieldHover, FieldPopover};
use crate::ui::i18n::{filled_text, live_text, text_now, worded};
use crate::ui::intl;

/// Above this many lines a document is virtualized.
pub const MAX_RICH_LINES: usize = 4000;

/// The height of a line of a virtualized document, in CSS pixels (`.code--virtual .code__line`
/// in components.css says the same).
const LINE_HEIGHT: f64 = 18.0;
/// Lines rendered beyond each edge of the viewport.
const OVERSCAN: usize = 30;
/// A list of at most this many items is written whole (a short list reads best with every
/// fold, the `items` key's included); a longer one item by item as it comes into view.
pub const WHOLE_LIST_ITEMS: usize = 50;
/// Segments a search reads between two turns of the event loop.
const SEARCH_CHUNK: usize = 100;

/// `source` highlighted as YAML or JSON, each block foldable.
#[component]
pub fn CodeView(
    /// The document: a text, or a list written item by item.
    #[prop(into)]
    source: Signal<Source>,
    /// Whether it is YAML or JSON to highlight (false: plain text, e.g. a hex dump).
    #[prop(into)]
    rich: Signal<bool>,
    /// The kind whose schema explains the document's fields: its keys then show their docs on
    /// hover and focus (an object's document, drawn whole).
    #[prop(optional_no_strip)]
    docs: Option<GroupVersionKind>,
) -> impl IntoView {
    // A short list is written whole; a text is drawn whole unless it is long.
    move || {
        let rich = rich.get();
        let text = match source.get() {
            Source::Text(text) => text,
            Source::List(list) if list.item_count() <= WHOLE_LIST_ITEMS => Arc::new(list.text()),
            list => return view! { <VirtualCode source=list rich docs=None /> }.into_any(),
        };
        if memchr::memchr_iter(b'\n', text.as_bytes()).count() < MAX_RICH_LINES {
            view! { <ShortCode text=Signal::stored(text) rich=Signal::stored(rich) docs=docs.clone() /> }.into_any()
        } else {
            view! { <VirtualCode source=Source::Text(text) rich docs=docs.clone() /> }.into_any()
        }
    }
}

/// A document of at most [`MAX_RICH_LINES`] lines, every line in the page.
#[component]
fn ShortCode(text: Signal<Arc<String>>, rich: Signal<bool>, docs: Option<GroupVersionKind>) -> impl IntoView {
    let hover = docs.is_some().then(FieldHover::new);
    let key_tab = hover.map(|_| "-1");
    let folded = RwSignal::new(BTreeSet::<usize>::new());
    Effect::new(move |_| {
        text.track();
        folded.set(BTreeSet::new());
    });
    let rendered = Memo::new(move |_| {
        let text = text.get();
        rich.get().then(|| (highlight(&text), fold_ends(&text)))
    });
    let pre = hover.map(|h| h.pre).unwrap_or_default();
    let described_by = hover.map(|_| "field-docs-hint");
    let popover = docs.zip(hover).map(|(kind, hover)| view! { <FieldPopover hover text kind /> });
    let hint = hover
        .map(|_| view! { <span class="visually-hidden" id="field-docs-hint">{live_text(Msg::FieldDocsHint)}</span> });
    view! {
        <div class="code-docs">
        {hint}
        <pre
            class="document__text code"
            data-testid="document-text"
            tabindex="0"
            node_ref=pre
            aria-describedby=described_by
            on:mouseover=move |e| if let Some(h) = hover { h.on_over(e) }
            on:mouseleave=move |_| if let Some(h) = hover { h.on_out() }
            on:focusin=move |e| if let Some(h) = hover { h.on_focus(e) }
            on:focusout=move |_| if let Some(h) = hover { h.on_out() }
            on:keydown=move |e| if let Some(h) = hover { h.on_keydown(e) }
        >
            {move || match rendered.get() {
                None => text.get().to_string().into_any(),
                Some((lines, ends)) => {
                    let folded_now = folded.get();
                    let mut out = Vec::with_capacity(lines.len());
                    let mut i = 0;
                    while i < lines.len() {
                        let end = ends[i];
                        let is_folded = folded_now.contains(&i);
                        let number = i + 1;
                        let toggle = end.map(|end| {
                            let hidden = end - i;
                            view! {
                                <button
                                    class="code__fold"
                                    aria-expanded=(!is_folded).to_string()
                                    aria-label=worded(move || filled_text(Msg::FoldLines, &[("from", &(number + 1)), ("to", &(end + 1))]))
                                    title=move || {
                                        filled_text(if is_folded { Msg::UnfoldCount } else { Msg::FoldCount }, &[("count", &hidden)])
                                    }
                                    on:click=move |_| {
                                        folded
                                            .update(|f| {
                                                if !f.remove(&i) {
                                                    f.insert(i);
                                                }
                                            })
                                    }
                                ></button>
                            }
                        });
                        let tokens = lines[i]
                            .iter()
                            .map(|t| {
                                let tab = key_tab.filter(|_| t.kind == TokenKind::Key);
                                view! { <span class=format!("tok--{}", t.kind.class()) tabindex=tab>{t.text.clone()}</span> }
                            })
                            .collect_view();
                        let ellipsis = (is_folded && end.is_some())
                            .then(|| {
                                let hidden = end.unwrap_or(i) - i;
                                view! { <span class="code__folded">{worded(move || filled_text(Msg::FoldedLines, &[("count", &hidden)]))}</span> }
                            });
                        let newline = if i + 1 < lines.len() { "\n" } else { "" };
                        out.push(
                            view! {
                                <span class="code__line" data-line=number.to_string()>
                                    {toggle}
                                    {tokens}
                                    {ellipsis}
                                    {newline}
                                </span>
                            },
                        );
                        i = match (is_folded, end) {
                            (true, Some(end)) => end + 1,
                            _ => i + 1,
                        };
                    }
                    out.collect_view().into_any()
                }
            }}
        </pre>
        {popover}
        </div>
    }
}

/// What a long document's box shows at a scroll position.
#[derive(Debug, Clone, PartialEq)]
struct Frame {
    /// The first row drawn.
    start: usize,
    /// Rows in all (the box's height).
    rows: usize,
    lines: Vec<LineAt>,
    /// The heights' version: line numbers may move when it changes.
    version: u64,
}

/// A long document: only the lines in view are in the page (each highlighted as it scrolls in,
/// and for a list each item written as it comes into view), inside a scrolling box as tall as
/// all the lines shown; folds and a search work on the whole text. Heights and offsets are set
/// through the CSSOM (the page allows no style attributes). A new source is a new component.
#[component]
fn VirtualCode(
    source: Source,
    rich: bool,
    /// The kind whose schema explains a text's fields (an object's long document): its keys in
    /// view show their docs on hover and focus, as a short document's do.
    #[prop(optional_no_strip)]
    docs: Option<GroupVersionKind>,
) -> impl IntoView {
    let json = source.is_json();
    let text = match &source {
        Source::Text(text) => Some(text.clone()),
        Source::List(_) => None,
    };
    let hover = docs.as_ref().and(text.as_ref()).map(|_| FieldHover::new());
    let key_tab = hover.map(|_| "-1");
    let described_by = hover.map(|_| "field-docs-hint");
    let popover = docs.zip(text).zip(hover).map(|((kind, text), hover)| {
        view! { <FieldPopover hover text=Signal::stored(text) kind /> }
    });
    let hint = hover
        .map(|_| view! { <span class="visually-hidden" id="field-docs-hint">{live_text(Msg::FieldDocsHint)}</span> });
    let list = match &source {
        Source::List(list) => Some(list.item_count()),
        Source::Text(_) => None,
    };
    let doc = StoredValue::new_local(Segmented::new(source, rich));
    // Bumped when a fold changes what is shown.
    let folds = RwSignal::new(0_u64);
    let (view_top, set_view_top) = signal(0.0_f64);
    let (view_height, set_view_height) = signal(600.0_f64);
    let frame = Memo::new(move |_| {
        folds.track();
        let (top, height) = (view_top.get(), view_height.get());
        doc.try_update_value(|doc| {
            doc.ensure(window(top, height, LINE_HEIGHT, doc.rows(), OVERSCAN));
            let rows = window(top, height, LINE_HEIGHT, doc.rows(), OVERSCAN);
            Frame { start: rows.start, rows: doc.rows(), lines: doc.visible(rows), version: doc.version() }
        })
        .unwrap_or(Frame { start: 0, rows: 0, lines: Vec::new(), version: 0 })
    });
    let scroller: NodeRef<html::Div> = NodeRef::new();
    let spacer: NodeRef<html::Div> = NodeRef::new();
    let slab: NodeRef<html::Pre> = hover.map(|h| h.pre).unwrap_or_default();
    // The box's scroll height: all the rows shown.
    let size_spacer = move |rows: usize| {
        if let Some(spacer) = spacer.get_untracked() {
            let total = rows as f64 * LINE_HEIGHT;
            let _ = web_sys::HtmlElement::style(&spacer).set_property("height", &format!("{total}px"));
        }
    };
    // Scrolled to the end, the box stays at the end as the items there are written (their
    // heights replace estimates, and the end moves).
    let at_end = StoredValue::new(false);
    Effect::new(move |_| {
        spacer.track();
        size_spacer(frame.with(|f| f.rows));
        if at_end.get_value() {
            if let Some(scroller) = scroller.get_untracked() {
                let end = scroller.scroll_height() - scroller.client_height();
                if scroller.scroll_top() < end {
                    scroller.set_scroll_top(end);
                    set_view_top.set(f64::from(end));
                }
            }
        }
    });
    Effect::new(move |_| {
        let top = frame.with(|f| f.start) as f64 * LINE_HEIGHT;
        if let Some(slab) = slab.get() {
            let _ = web_sys::HtmlElement::style(&slab).set_property("transform", &format!("translateY({top}px)"));
        }
    });
    Effect::new(move |_| {
        if let Some(scroller) = scroller.get() {
            set_view_height.set(f64::from(scroller.client_height()).max(LINE_HEIGHT));
        }
    });
    let on_scroll = move |_| {
        if let Some(hover) = hover {
            hover.on_scroll();
        }
        if let Some(scroller) = scroller.get() {
            at_end.set_value(
                scroller.scroll_top() > 0
                    && scroller.scroll_top() + scroller.client_height() + 2 >= scroller.scroll_height(),
            );
            set_view_top.set(f64::from(scroller.scroll_top()));
            set_view_height.set(f64::from(scroller.client_height()).max(LINE_HEIGHT));
        }
    };
    // Search: the lines matching, which of them is current, and how far a search has read.
    let matches = RwSignal::new(Vec::<LineAt>::new());
    let current = RwSignal::new(None::<usize>);
    let (query, set_query) = signal(String::new());
    let searching = RwSignal::new(None::<(usize, usize)>);
    let search_turn = StoredValue::new(0_u64);
    let tasks = Tasks::for_current_owner();
    let go_to = move |index: usize| {
        let Some(at) = matches.with_untracked(|m| m.get(index).copied()) else { return };
        current.set(Some(index));
        let Some(row) = doc.try_update_value(|doc| doc.reveal(at)) else { return };
        folds.update(|f| *f += 1);
        // Unfolding grew the box: size it now, or the scroll below would stop at its old end.
        size_spacer(doc.try_with_value(Segmented::rows).unwrap_or(0));
        at_end.set_value(false);
        if let Some(scroller) = scroller.get_untracked() {
            let top = (row as f64 * LINE_HEIGHT - f64::from(scroller.client_height()) / 3.0).max(0.0);
            scroller.set_scroll_top(top as i32);
            set_view_top.set(top);
        }
    };
    let step = move |forward: bool| {
        let count = matches.with_untracked(Vec::len);
        if count == 0 {
            return;
        }
        let next = match current.get_untracked() {
            None => 0,
            Some(i) if forward => (i + 1) % count,
            Some(i) => (i + count - 1) % count,
        };
        go_to(next);
    };
    // Reads every segment a chunk at a time, yielding between chunks; a newer search ends it.
    let search = move |needle: String| {
        let turn = search_turn.get_value() + 1;
        search_turn.set_value(turn);
        current.set(None);
        matches.set(Vec::new());
        if needle.is_empty() {
            searching.set(None);
            return;
        }
        tasks.spawn(async move {
            let Some(count) = doc.try_with_value(Segmented::segment_count) else { return };
            let mut found = Vec::new();
            let mut at = 0;
            while at < count {
                if search_turn.try_get_value() != Some(turn) {
                    return;
                }
                let end = (at + SEARCH_CHUNK).min(count);
                if doc.try_update_value(|doc| doc.find(&needle, at..end, &mut found)).is_none() {
                    return;
                }
                at = end;
                if at < count {
                    searching.set(Some((at, count)));
                    sleep(std::time::Duration::ZERO).await;
                }
            }
            searching.set(None);
            matches.set(found);
            // The search learned heights: the box and the line numbers follow.
            folds.update(|f| *f += 1);
            step(true);
        });
    };
    let current_line = move || current.get().and_then(|i| matches.with(|m| m.get(i).copied()));
    let summary = move || {
        let count = matches.with(Vec::len);
        if let Some((done, of)) = searching.get() {
            return match list {
                Some(_) => filled_text(
                    Msg::SearchingItems,
                    &[("done", &intl::count(done.saturating_sub(1))), ("count", &intl::count(of - 2))],
                ),
                None => text_now(Msg::SearchingText),
            };
        }
        match (query.with(|q| q.trim().is_empty()), current.get()) {
            (true, _) => String::new(),
            (false, _) if count == 0 => text_now(Msg::NoMatch),
            (false, Some(i)) => {
                filled_text(Msg::MatchOf, &[("index", &intl::count(i + 1)), ("count", &intl::count(count))])
            }
            (false, None) => filled_text(Msg::Matches, &[("count", &intl::count(count))]),
        }
    };
    let note = move || {
        frame.track();
        let (lines, exact) = doc.try_with_value(Segmented::lines).unwrap_or((0, true));
        match list {
            None => filled_text(Msg::VirtualNote, &[("count", &intl::count(lines))]),
            Some(items) => filled_text(
                if exact { Msg::VirtualListNote } else { Msg::VirtualListNoteAbout },
                &[("items", &intl::count(items)), ("lines", &intl::count(lines))],
            ),
        }
    };
    let row_view = move |at: LineAt| {
        let (content, end) =
            doc.try_with_value(|doc| (doc.line_text(at).to_owned(), doc.fold_end(at))).unwrap_or_default();
        let number = move || {
            frame.track();
            match doc.try_with_value(|doc| doc.number(at)) {
                Some((number, true)) => number.to_string(),
                Some((number, false)) => format!("~{number}"),
                None => String::new(),
            }
        };
        let is_folded = move || {
            folds.track();
            doc.try_with_value(|doc| doc.is_folded(at)).unwrap_or(false)
        };
        let toggle = end.map(|end| {
            let hidden = end - at.line;
            let label = move || {
                frame.track();
                match doc.try_with_value(|doc| doc.number(at)) {
                    Some((n, exact)) => filled_text(
                        if exact { Msg::FoldLines } else { Msg::FoldLinesAbout },
                        &[("from", &(n + 1)), ("to", &(n + hidden))],
                    ),
                    None => String::new(),
                }
            };
            view! {
                <button
                    class="code__fold"
                    aria-expanded=move || (!is_folded()).to_string()
                    aria-label=label
                    title=worded(move || filled_text(if is_folded() { Msg::UnfoldCount } else { Msg::FoldCount }, &[("count", &hidden)]))
                    on:click=move |_| {
                        doc.try_update_value(|doc| doc.toggle_fold(at));
                        folds.update(|f| *f += 1);
                    }
                ></button>
            }
        });
        let tokens = if rich {
            highlight_line(&content, json)
                .into_iter()
                .map(|t| {
                    let tab = key_tab.filter(|_| t.kind == TokenKind::Key);
                    view! { <span class=format!("tok--{}", t.kind.class()) tabindex=tab>{t.text}</span> }
                })
                .collect_view()
                .into_any()
        } else {
            content.into_any()
        };
        let ellipsis = end.map(|end| {
            move || {
                is_folded().then(
                    || view! { <span class="code__folded">{filled_text(Msg::FoldedLines, &[("count", &(end - at.line))])}</span> },
                )
            }
        });
        view! {
            <span
                class="code__line"
                class:code__line--match=move || current_line() == Some(at)
                data-line=number
            >
                {toggle}
                {tokens}
                {ellipsis}
            </span>
        }
    };
    view! {
        <div class="code-search" role="search">
            <input
                type="search"
                dir="auto"
                aria-label=live_text(Msg::SearchDocument)
                placeholder=live_text(Msg::SearchDocument)
                data-testid="document-search"
                on:change=move |e| {
                    let value = event_target_value(&e);
                    search(value.trim().to_owned());
                    set_query.set(value);
                }
            />
            <button class="button button--quiet" on:click=move |_| step(false) aria-label=live_text(Msg::PreviousMatch)>"↑"</button>
            <button class="button button--quiet" on:click=move |_| step(true) aria-label=live_text(Msg::NextMatch)>"↓"</button>
            <span class="muted" data-testid="document-search-status" role="status">{summary}</span>
        </div>
        <p class="muted" data-testid="document-virtual-note">{note}</p>
        <div class="code-docs">
        {hint}
        <div
            class="document__text code code--virtual"
            data-testid="document-text"
            aria-describedby=described_by
            on:mouseover=move |e| if let Some(h) = hover { h.on_over(e) }
            on:mouseleave=move |_| if let Some(h) = hover { h.on_out() }
            on:focusin=move |e| if let Some(h) = hover { h.on_focus(e) }
            on:focusout=move |_| if let Some(h) = hover { h.on_out() }
            on:keydown=move |e| if let Some(h) = hover { h.on_keydown(e) }
            tabindex="0"
            data-items-written=move || {
                frame.track();
                list.and_then(|_| doc.try_with_value(|doc| doc.written_count().saturating_sub(2).to_string()))
            }
            node_ref=scroller
            on:scroll=on_scroll
        >
            <div class="code__spacer" node_ref=spacer></div>
            <pre class="code__slab" node_ref=slab>
                <For each=move || frame.with(|f| f.lines.clone()) key=|at| *at children=row_view />
            </pre>
        </div>
        {popover}
        </div>
    }
}
