//! "Decode a captured body": paste text or pick a file, say (or let the tool guess) its media
//! type, and see it decoded with the same views as a live response: the browser twin of the
//! `kube-decode` command.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::api::codec::value::Value;
use crate::model::sniff::decode_captured;
use crate::ui::document::DocumentView;

/// The media types a person can pick; "auto" guesses from the first bytes.
const CHOICES: [(&str, &str); 8] = [
    ("auto", "Guess from the bytes"),
    ("application/json", "JSON"),
    ("application/yaml", "YAML"),
    ("application/cbor", "CBOR"),
    ("application/vnd.kubernetes.protobuf", "Protobuf envelope"),
    ("application/json;stream=watch", "JSON watch stream (one event per line)"),
    ("application/cbor-seq", "CBOR sequence (watch stream)"),
    ("application/vnd.kubernetes.protobuf;stream=watch", "Protobuf watch stream"),
];

/// What decoding gave.
#[derive(Clone, PartialEq)]
enum Outcome {
    Document { media_type: String, document: Value, raw: Vec<u8> },
    Failed(String),
}

/// The decode tool.
#[component]
pub fn DecodeTool() -> impl IntoView {
    let (text, set_text) = signal(String::new());
    let file_bytes = RwSignal::new(None::<(String, Vec<u8>)>);
    let (choice, set_choice) = signal("auto".to_owned());
    let outcome = RwSignal::new(None::<Outcome>);

    let decode = move || {
        let (source, bytes) = match file_bytes.get_untracked() {
            Some((name, bytes)) => (name, bytes),
            None => ("pasted text".to_owned(), text.get_untracked().into_bytes()),
        };
        outcome.set(Some(decode_bytes(&choice.get_untracked(), &source, bytes)));
    };
    let on_file = move |e: leptos::ev::Event| {
        let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        let name = file.name();
        leptos::task::spawn_local(async move {
            match JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => file_bytes.set(Some((name, js_sys::Uint8Array::new(&buffer).to_vec()))),
                Err(_) => outcome.set(Some(Outcome::Failed(format!("could not read the file {name}")))),
            }
        });
    };

    view! {
        <section class="panel decode" aria-labelledby="decode-heading">
            <h2 id="decode-heading">"Decode a captured body"</h2>
            <p class="muted">
                "Paste a response body or pick a file (binary CBOR and protobuf need a file). It is decoded here, in the browser, by the same code that reads live responses."
            </p>
            <textarea
                class="decode__text"
                aria-label="Body to decode"
                rows="8"
                prop:value=text
                on:input=move |e| {
                    set_text.set(event_target_value(&e));
                    file_bytes.set(None);
                }
            ></textarea>
            <div class="toolbar">
                <label class="toolbar__field">
                    "File " <input type="file" aria-label="Body file" on:change=on_file />
                </label>
                <label class="toolbar__field">
                    "Content-Type "
                    <select aria-label="Content-Type" on:change=move |e| set_choice.set(event_target_value(&e))>
                        {CHOICES
                            .into_iter()
                            .map(|(value, label)| view! { <option value=value>{label}</option> })
                            .collect_view()}
                    </select>
                </label>
                <button class="button" on:click=move |_| decode()>
                    "Decode"
                </button>
                {move || file_bytes.get().map(|(name, bytes)| view! { <span class="muted">{format!("{name}: {} bytes", bytes.len())}</span> })}
            </div>
            {move || match outcome.get() {
                None => ().into_any(),
                Some(Outcome::Failed(message)) => {
                    view! {
                        <p class="status-error" role="alert" data-testid="decode-error">
                            {message}
                        </p>
                    }
                        .into_any()
                }
                Some(Outcome::Document { media_type, document, raw }) => {
                    let cbor = media_type.starts_with("application/cbor");
                    view! {
                        <p data-testid="decode-media-type">{format!("Decoded as {media_type}")}</p>
                        <DocumentView document raw=Some(Arc::<[u8]>::from(raw)) cbor />
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

fn decode_bytes(choice: &str, source: &str, bytes: Vec<u8>) -> Outcome {
    match decode_captured(choice, source, &bytes) {
        Ok((media_type, document)) => Outcome::Document { media_type: media_type.to_string(), document, raw: bytes },
        Err(message) => Outcome::Failed(message),
    }
}
