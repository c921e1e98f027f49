//! A document shown as YAML or JSON text, with managedFields hidden unless asked for, a copy
//! button, and for CBOR bodies a hex view of the bytes that came.

use std::sync::Arc;

use kube_core::GroupVersionKind;
use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::i18n::Msg;
use crate::model::joined::JoinedList;
use crate::model::list_text::ListText;
use crate::model::page::{document_text, TextFormat};
use crate::model::segments::Source;
use crate::ui::code::{CodeView, WHOLE_LIST_ITEMS};
use crate::ui::i18n::live_text;

/// Shows `document` as text. `raw` (the body's bytes) enables the hex view.
#[component]
pub fn DocumentView(
    /// The decoded document (it may grow, as pages are joined; the chosen format stays).
    #[prop(into)]
    document: Signal<Value>,
    /// The raw body, for binary representations.
    #[prop(into)]
    raw: Signal<Option<Arc<[u8]>>>,
    /// Whether the raw body is CBOR (enables the diagnostic notation view).
    #[prop(optional)]
    cbor: bool,
    /// A list read lazily (a page, or pages joined by "Load all"): when set, it is what is
    /// shown as YAML or JSON (its text is written from its lazy items, those in view only).
    #[prop(optional, into)]
    joined: Option<Signal<Option<Arc<JoinedList>>>>,
    /// The kind whose schema explains the document's fields (an object's view): hovering or
    /// focusing a key shows its docs.
    #[prop(optional)]
    kind: Option<GroupVersionKind>,
) -> impl IntoView {
    let (format, set_format) = signal(TextFormat::Yaml);
    let (managed, set_managed) = signal(false);
    let has_raw = move || raw.with(Option::is_some);
    // A list in YAML or JSON is written item by item as its items come into view; anything
    // else (an object, a short list, the raw bytes) is written whole.
    let source = Memo::new(move |_| {
        let (format, managed) = (format.get(), managed.get());
        let by_items = matches!(format, TextFormat::Yaml | TextFormat::Json);
        let listed = match joined.and_then(|j| j.get()) {
            Some(list) if by_items => Some(list.list_text(format, managed)),
            // The raw bytes' views (hex, CBOR diagnostic) are of the body that came, while the
            // joined list is the one page's (after "Load all", no single body is it).
            Some(_) => None,
            None if by_items => document.with(|d| {
                let long = d.get("items").and_then(Value::as_array).is_some_and(|items| items.len() > WHOLE_LIST_ITEMS);
                long.then(|| ListText::of_document(Arc::new(d.clone()), format, managed)).flatten()
            }),
            None => None,
        };
        match listed {
            Some(Ok(list)) => Source::List(Arc::new(list)),
            Some(Err(e)) => Source::Text(Arc::new(format!("# cannot show the list item by item: {e}"))),
            None => {
                Source::Text(Arc::new(document.with(|d| raw.with(|r| document_text(d, format, r.as_deref(), managed)))))
            }
        }
    });
    let copy = move |_| {
        let clipboard = window().navigator().clipboard();
        let _ = clipboard.write_text(&source.with_untracked(Source::text));
    };
    let choice = move |f: TextFormat, label: Msg| {
        view! {
            <button
                class="segmented__item"
                aria-pressed=move || (format.get() == f).to_string()
                on:click=move |_| set_format.set(f)
            >
                {live_text(label)}
            </button>
        }
    };
    view! {
        <div class="document">
            <div class="document__bar">
                <div class="segmented" role="group" aria-label=live_text(Msg::TextFormat)>
                    {choice(TextFormat::Yaml, Msg::FormatYaml)}
                    {choice(TextFormat::Json, Msg::FormatJson)}
                    {move || has_raw().then(|| choice(TextFormat::Hex, Msg::FormatHex))}
                    {move || (has_raw() && cbor).then(|| choice(TextFormat::Diagnostic, Msg::FormatCborDiagnostic))}
                </div>
                <label>
                    <input
                        type="checkbox"
                        prop:checked=managed
                        on:change=move |e| set_managed.set(event_target_checked(&e))
                    />
                    " "
                    {live_text(Msg::ShowManagedFields)}
                </label>
                <button class="button button--quiet" on:click=copy>
                    {live_text(Msg::CopyText)}
                </button>
            </div>
            <CodeView
                source=source
                rich=Signal::derive(move || matches!(format.get(), TextFormat::Yaml | TextFormat::Json))
                docs=kind.clone()
            />
        </div>
    }
}
