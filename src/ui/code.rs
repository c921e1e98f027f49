//! Highlighted, foldable text for YAML and JSON documents, with line numbers. Tokens and fold
//! ranges come from `model::highlight`; this only renders them. Documents longer than
//! [`MAX_RICH_LINES`] are virtualized ([`VirtualCode`]): only the lines in view are in the page,
//! highlighted as they scroll in, with folds and a search over the whole text.

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;

use crate::i18n::Msg;
use crate::model::highlight::{fold_ends, highlight, highlight_line, looks_like_json};
use crate::model::lines::{find_lines, reveal, shown_lines, window, Lines};
use crate::ui::i18n::{t, tf, tr};
use crate::ui::intl;

/// Above this many lines a document is virtualized.
pub const MAX_RICH_LINES: usize = 4000;

/// The height of a line of a virtualized document, in CSS pixels (`.code--virtual .code__line`
/// in components.css says the same).
const LINE_HEIGHT: f64 = 18.0;
/// Lines rendered beyond each edge of the viewport.
const OVERSCAN: usize = 30;

/// `text` highlighted as YAML or JSON, each block foldable.
#[component]
pub fn CodeView(
    /// The document's text.
    #[prop(into)]
    text: Signal<Arc<String>>,
    /// Whether it is YAML or JSON to highlight (false: plain text, e.g. a hex dump).
    #[prop(into)]
    rich: Signal<bool>,
) -> impl IntoView {
    let long = Memo::new(move |_| text.with(|t| memchr::memchr_iter(b'\n', t.as_bytes()).count() + 1 > MAX_RICH_LINES));
    move || {
        if long.get() {
            view! { <VirtualCode text rich /> }.into_any()
        } else {
            view! { <ShortCode text rich /> }.into_any()
        }
    }
}

/// A document of at most [`MAX_RICH_LINES`] lines, every line in the page.
#[component]
fn ShortCode(text: Signal<Arc<String>>, rich: Signal<bool>) -> impl IntoView {
    let folded = RwSignal::new(BTreeSet::<usize>::new());
    Effect::new(move |_| {
        text.track();
        folded.set(BTreeSet::new());
    });
    let rendered = Memo::new(move |_| {
        let text = text.get();
        rich.get().then(|| (highlight(&text), fold_ends(&text)))
    });
    view! {
        <pre class="document__text code" data-testid="document-text" tabindex="0">
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
                                    aria-label=move || tf(Msg::FoldLines, &[("from", &(number + 1)), ("to", &(end + 1))])
                                    title=move || {
                                        tf(if is_folded { Msg::UnfoldCount } else { Msg::FoldCount }, &[("count", &hidden)])
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
                            .map(|t| view! { <span class=format!("tok--{}", t.kind.class())>{t.text.clone()}</span> })
                            .collect_view();
                        let ellipsis = (is_folded && end.is_some())
                            .then(|| {
                                let hidden = end.unwrap_or(i) - i;
                                view! { <span class="code__folded">{move || tf(Msg::FoldedLines, &[("count", &hidden)])}</span> }
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
    }
}

/// A long document: only the lines in view are in the page (each highlighted as it scrolls in),
/// inside a scrolling box as tall as all the lines shown; folds and a search work on the whole
/// text. Heights and offsets are set through the CSSOM (the page allows no style attributes).
#[component]
fn VirtualCode(text: Signal<Arc<String>>, rich: Signal<bool>) -> impl IntoView {
    let lines = Memo::new(move |_| text.with(|t| Lines::new(t)));
    // Rows are keyed by the text they come from as well as their line number: a new text (the
    // joined list after "Load all") redraws the lines in view, which read the text untracked.
    let generation = Memo::new(move |previous: Option<&u64>| {
        text.track();
        previous.map_or(0, |g| g + 1)
    });
    let json = Memo::new(move |_| text.with(|t| looks_like_json(t)));
    let ends = Memo::new(move |_| if rich.get() { text.with(|t| fold_ends(t)) } else { Vec::new() });
    let folded = RwSignal::new(BTreeSet::<usize>::new());
    let shown = Memo::new(move |_| {
        let count = lines.with(Lines::count);
        ends.with(|ends| if ends.len() == count { folded.with(|f| shown_lines(ends, f)) } else { (0..count).collect() })
    });
    let (view_top, set_view_top) = signal(0.0_f64);
    let (view_height, set_view_height) = signal(600.0_f64);
    let rows =
        Memo::new(move |_| shown.with(|s| window(view_top.get(), view_height.get(), LINE_HEIGHT, s.len(), OVERSCAN)));
    let scroller: NodeRef<html::Div> = NodeRef::new();
    let spacer: NodeRef<html::Div> = NodeRef::new();
    let slab: NodeRef<html::Pre> = NodeRef::new();
    Effect::new(move |_| {
        text.track();
        folded.set(BTreeSet::new());
    });
    // The box's scroll height: all the lines shown.
    let size_spacer = move |rows: usize| {
        if let Some(spacer) = spacer.get_untracked() {
            let total = rows as f64 * LINE_HEIGHT;
            let _ = web_sys::HtmlElement::style(&spacer).set_property("height", &format!("{total}px"));
        }
    };
    Effect::new(move |_| {
        spacer.track();
        size_spacer(shown.with(Vec::len));
    });
    Effect::new(move |_| {
        let top = rows.get().start as f64 * LINE_HEIGHT;
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
        if let Some(scroller) = scroller.get() {
            set_view_top.set(f64::from(scroller.scroll_top()));
            set_view_height.set(f64::from(scroller.client_height()).max(LINE_HEIGHT));
        }
    };
    // Search: the lines matching, and which of them is current.
    let (query, set_query) = signal(String::new());
    let matches = Memo::new(move |_| query.with(|q| text.with(|t| lines.with(|l| find_lines(t, l, q.trim())))));
    let current = RwSignal::new(None::<usize>);
    let go_to = move |index: usize| {
        let Some(line) = matches.with_untracked(|m| m.get(index).copied()) else { return };
        current.set(Some(index));
        ends.with_untracked(|ends| folded.update(|f| reveal(ends, f, line)));
        let row = shown.with_untracked(|s| s.partition_point(|&l| l < line));
        // Unfolding grew the box: size it now, or the scroll below would stop at its old end.
        size_spacer(shown.with_untracked(Vec::len));
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
    let current_line = move || current.get().and_then(|i| matches.with(|m| m.get(i).copied()));
    let summary = move || {
        let count = matches.with(Vec::len);
        match (query.with(|q| q.trim().is_empty()), current.get()) {
            (true, _) => String::new(),
            (false, _) if count == 0 => tr(Msg::NoMatch),
            (false, Some(i)) => tf(Msg::MatchOf, &[("index", &intl::count(i + 1)), ("count", &intl::count(count))]),
            (false, None) => tf(Msg::Matches, &[("count", &intl::count(count))]),
        }
    };
    let note = move || {
        let count = lines.with(Lines::count);
        tf(Msg::VirtualNote, &[("count", &intl::count(count))])
    };
    let row_view = move |line: usize| {
        let number = line + 1;
        let end = ends.with_untracked(|e| e.get(line).copied().flatten());
        let is_folded = move || folded.with(|f| f.contains(&line));
        let toggle = end.map(|end| {
            view! {
                <button
                    class="code__fold"
                    aria-expanded=move || (!is_folded()).to_string()
                    aria-label=move || tf(Msg::FoldLines, &[("from", &(number + 1)), ("to", &(end + 1))])
                    title=move || tf(if is_folded() { Msg::UnfoldCount } else { Msg::FoldCount }, &[("count", &(end - line))])
                    on:click=move |_| folded.update(|f| {
                        if !f.remove(&line) {
                            f.insert(line);
                        }
                    })
                ></button>
            }
        });
        let content = text.with_untracked(|t| lines.with_untracked(|l| l.line(t, line).to_owned()));
        let tokens = if rich.get_untracked() {
            highlight_line(&content, json.get_untracked())
                .into_iter()
                .map(|t| view! { <span class=format!("tok--{}", t.kind.class())>{t.text}</span> })
                .collect_view()
                .into_any()
        } else {
            content.into_any()
        };
        let ellipsis = end.map(|end| {
            move || {
                is_folded().then(
                    || view! { <span class="code__folded">{tf(Msg::FoldedLines, &[("count", &(end - line))])}</span> },
                )
            }
        });
        view! {
            <span
                class="code__line"
                class:code__line--match=move || current_line() == Some(line)
                data-line=number.to_string()
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
                aria-label=t(Msg::SearchDocument)
                placeholder=t(Msg::SearchDocument)
                data-testid="document-search"
                on:change=move |e| {
                    current.set(None);
                    set_query.set(event_target_value(&e));
                    step(true);
                }
            />
            <button class="button button--quiet" on:click=move |_| step(false) aria-label=t(Msg::PreviousMatch)>"↑"</button>
            <button class="button button--quiet" on:click=move |_| step(true) aria-label=t(Msg::NextMatch)>"↓"</button>
            <span class="muted" data-testid="document-search-status" role="status">{summary}</span>
        </div>
        <p class="muted" data-testid="document-virtual-note">{note}</p>
        <div
            class="document__text code code--virtual"
            data-testid="document-text"
            tabindex="0"
            node_ref=scroller
            on:scroll=on_scroll
        >
            <div class="code__spacer" node_ref=spacer></div>
            <pre class="code__slab" node_ref=slab>
                <For
                    each=move || {
                        let range = rows.get();
                        let generation = generation.get();
                        shown.with(|s| s[range].iter().map(|&line| (generation, line)).collect::<Vec<_>>())
                    }
                    key=|row| *row
                    children=move |(_, line)| row_view(line)
                />
            </pre>
        </div>
    }
}
