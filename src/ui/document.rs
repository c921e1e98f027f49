//! A document shown as YAML or JSON text, with managedFields hidden unless asked for, a copy
//! button, and for CBOR bodies a hex view of the bytes that came.

use leptos::prelude::*;

use crate::api::codec::cbor::diagnostic;
use crate::api::codec::value::Value;
use crate::api::codec::yaml::encode_yaml;
use crate::model::page::without_managed_fields;
use crate::ui::code::CodeView;

/// Text format of the document view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextFormat {
    Yaml,
    Json,
    Hex,
    /// RFC 8949 diagnostic notation of a CBOR body.
    Diagnostic,
}

/// How much diagnostic notation is shown (a 10,000-pod list would be hundreds of megabytes).
const MAX_DIAGNOSTIC_CHARS: usize = 2_000_000;

/// Shows `document` as text. `raw` (the body's bytes) enables the hex view.
#[component]
pub fn DocumentView(
    /// The decoded document (it may grow, as pages are joined; the chosen format stays).
    #[prop(into)]
    document: Signal<Value>,
    /// The raw body, for binary representations.
    #[prop(into)]
    raw: Signal<Option<Vec<u8>>>,
    /// Whether the raw body is CBOR (enables the diagnostic notation view).
    #[prop(optional)]
    cbor: bool,
) -> impl IntoView {
    let (format, set_format) = signal(TextFormat::Yaml);
    let (managed, set_managed) = signal(false);
    let has_raw = move || raw.with(Option::is_some);
    let text = Memo::new(move |_| {
        let shown = document.with(|d| if managed.get() { d.clone() } else { without_managed_fields(d) });
        match format.get() {
            TextFormat::Json => serde_json::to_string_pretty(&shown.to_serde_json()).unwrap_or_default(),
            TextFormat::Yaml => match encode_yaml(&shown) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => format!("# cannot show as YAML: {e}"),
            },
            TextFormat::Hex => raw.with(|r| r.as_deref().map(hex_dump).unwrap_or_default()),
            TextFormat::Diagnostic => match raw.with(|r| r.as_deref().map(|r| diagnostic(r, MAX_DIAGNOSTIC_CHARS))) {
                Some(Ok(text)) => text,
                Some(Err(e)) => format!("not CBOR diagnostic notation: {e}"),
                None => String::new(),
            },
        }
    });
    let copy = move |_| {
        let clipboard = window().navigator().clipboard();
        let _ = clipboard.write_text(&text.get_untracked());
    };
    let choice = move |f: TextFormat, label: &'static str| {
        view! {
            <button
                class="segmented__item"
                aria-pressed=move || (format.get() == f).to_string()
                on:click=move |_| set_format.set(f)
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="document">
            <div class="document__bar">
                <div class="segmented" role="group" aria-label="Text format">
                    {choice(TextFormat::Yaml, "YAML")}
                    {choice(TextFormat::Json, "JSON")}
                    {move || has_raw().then(|| choice(TextFormat::Hex, "Hex (raw bytes)"))}
                    {move || (has_raw() && cbor).then(|| choice(TextFormat::Diagnostic, "CBOR diagnostic"))}
                </div>
                <label>
                    <input
                        type="checkbox"
                        prop:checked=managed
                        on:change=move |e| set_managed.set(event_target_checked(&e))
                    />
                    " Show managedFields"
                </label>
                <button class="button button--quiet" on:click=copy>
                    "Copy"
                </button>
            </div>
            <CodeView
                text=text
                rich=Signal::derive(move || matches!(format.get(), TextFormat::Yaml | TextFormat::Json))
            />
        </div>
    }
}

/// Bytes as a hex dump: offset, 16 bytes in hex, and their printable ASCII.
pub fn hex_dump(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 4);
    for (line, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x}  ", line * 16);
        for i in 0..16 {
            match chunk.get(i) {
                Some(b) => {
                    let _ = write!(out, "{b:02x} ");
                }
                None => out.push_str("   "),
            }
        }
        out.push(' ');
        out.extend(chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }));
        out.push('\n');
    }
    out
}
