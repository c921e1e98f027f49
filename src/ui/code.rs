//! Highlighted, foldable text for YAML and JSON documents, with line numbers. Tokens and fold
//! ranges come from `model::highlight`; this only renders them. Documents longer than
//! [`MAX_RICH_LINES`] are shown as plain text, since a DOM node per token would freeze the page.

use std::collections::BTreeSet;

use leptos::prelude::*;

use crate::model::highlight::{fold_ends, highlight};

/// Above this many lines a document is shown as plain text.
pub const MAX_RICH_LINES: usize = 4000;

/// `text` highlighted as YAML or JSON, each block foldable.
#[component]
pub fn CodeView(
    /// The document's text.
    #[prop(into)]
    text: Signal<String>,
    /// Whether it is YAML or JSON to highlight (false: plain text, e.g. a hex dump).
    #[prop(into)]
    rich: Signal<bool>,
) -> impl IntoView {
    let folded = RwSignal::new(BTreeSet::<usize>::new());
    Effect::new(move |_| {
        text.track();
        folded.set(BTreeSet::new());
    });
    let rendered = Memo::new(move |_| {
        let text = text.get();
        let line_count = text.split('\n').count();
        (rich.get() && line_count <= MAX_RICH_LINES).then(|| (highlight(&text), fold_ends(&text)))
    });
    let plain_note = move || {
        let lines = text.with(|t| t.split('\n').count());
        (rich.get() && lines > MAX_RICH_LINES).then(|| {
            view! {
                <p class="muted">
                    {format!(
                        "{lines} lines: highlighting and folding are off above {MAX_RICH_LINES} lines, so that the page stays responsive."
                    )}
                </p>
            }
        })
    };
    view! {
        {plain_note}
        <pre class="document__text code" data-testid="document-text" tabindex="0">
            {move || match rendered.get() {
                None => text.get().into_any(),
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
                                    aria-label=format!("Fold lines {} to {}", number + 1, end + 1)
                                    title=if is_folded { format!("Unfold {hidden} lines") } else { format!("Fold {hidden} lines") }
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
                                view! { <span class="code__folded">{format!(" … {hidden} lines")}</span> }
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
