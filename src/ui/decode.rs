//! "Decode a captured body": paste text or pick a file, say (or let the tool guess) its media
//! type, and see it decoded with the same views as a live response: the browser twin of the
//! `kube-decode` command.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::api::codec::value::Value;
use crate::i18n::{Msg, Text};
use crate::model::protobuf::ProtobufBody;
use crate::model::sniff::decode_captured;
use crate::ui::document::DocumentView;
use crate::ui::i18n::{t, tf, tl, tr, worded};
use crate::ui::intl;
use crate::ui::protobuf::ProtobufOnDemand;

/// The media types a person can pick; "auto" guesses from the first bytes.
/// How a choice is named: in words of the interface, or by a format's own name.
#[derive(Clone, Copy)]
enum Label {
    Msg(Msg),
    Term(&'static str),
}

const CHOICES: [(&str, Label); 8] = [
    ("auto", Label::Msg(Msg::GuessFromBytes)),
    ("application/json", Label::Term("JSON")),
    ("application/yaml", Label::Term("YAML")),
    ("application/cbor", Label::Term("CBOR")),
    ("application/vnd.kubernetes.protobuf", Label::Msg(Msg::ProtobufEnvelopeChoice)),
    ("application/json;stream=watch", Label::Msg(Msg::JsonWatchStream)),
    ("application/cbor-seq", Label::Msg(Msg::CborSequence)),
    ("application/vnd.kubernetes.protobuf;stream=watch", Label::Msg(Msg::ProtobufWatchStream)),
];

/// What decoding gave: a protobuf body is decoded in full by the on-demand part.
#[derive(Clone, PartialEq)]
enum Outcome {
    Document { media_type: String, document: Value, raw: Vec<u8> },
    Protobuf { media_type: String, body: ProtobufBody },
    Failed(Text),
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
            None => (tr(Msg::PastedText), text.get_untracked().into_bytes()),
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
                Err(_) => outcome.set(Some(Outcome::Failed(Text::new(Msg::CouldNotReadFile).with("name", &name)))),
            }
        });
    };

    view! {
        <section class="panel decode" aria-labelledby="decode-heading">
            <h2 id="decode-heading">{t(Msg::DecodeHeading)}</h2>
            <p class="muted">
                {t(Msg::DecodeHelp)}
            </p>
            <textarea
                class="decode__text"
                aria-label=t(Msg::BodyToDecode)
                rows="8"
                prop:value=text
                on:input=move |e| {
                    set_text.set(event_target_value(&e));
                    file_bytes.set(None);
                }
            ></textarea>
            <div class="toolbar">
                <label class="toolbar__field">
                    {t(Msg::File)}
                    " "
                    <input type="file" aria-label=t(Msg::BodyFile) on:change=on_file />
                </label>
                <label class="toolbar__field">
                    {t(Msg::ContentType)}
                    " "
                    <select aria-label=t(Msg::ContentType) on:change=move |e| set_choice.set(event_target_value(&e))>
                        {CHOICES
                            .into_iter()
                            .map(|(value, label)| {
                                let label = move || match label {
                                    Label::Msg(msg) => tr(msg),
                                    Label::Term(term) => term.to_owned(),
                                };
                                view! { <option value=value>{label}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
                <button class="button" on:click=move |_| decode()>
                    {t(Msg::Decode)}
                </button>
                {move || {
                    file_bytes
                        .get()
                        .map(|(name, bytes)| {
                            view! { <span class="muted">{tf(Msg::FileSize, &[("name", &name), ("size", &intl::bytes(bytes.len()))])}</span> }
                        })
                }}
            </div>
            {move || match outcome.get() {
                None => ().into_any(),
                Some(Outcome::Failed(message)) => {
                    view! {
                        <p class="status-error" role="alert" data-testid="decode-error">
                            {worded(move || tl(&message))}
                        </p>
                    }
                        .into_any()
                }
                Some(Outcome::Document { media_type, document, raw }) => {
                    let cbor = media_type.starts_with("application/cbor");
                    view! {
                        <p data-testid="decode-media-type">{worded(move || tf(Msg::DecodedAs, &[("media_type", &media_type)]))}</p>
                        <DocumentView document raw=Some(Arc::<[u8]>::from(raw)) cbor />
                    }
                        .into_any()
                }
                Some(Outcome::Protobuf { media_type, body }) => {
                    view! {
                        <p data-testid="decode-media-type">{worded(move || tf(Msg::DecodedAs, &[("media_type", &media_type)]))}</p>
                        <ProtobufOnDemand body />
                    }
                        .into_any()
                }
            }}
        </section>
    }
}

fn decode_bytes(choice: &str, source: &str, bytes: Vec<u8>) -> Outcome {
    match decode_captured(choice, source, &bytes) {
        Ok((media_type, document)) => match ProtobufBody::captured(&media_type, Arc::from(&bytes[..])) {
            Some(body) => Outcome::Protobuf { media_type: media_type.to_string(), body },
            None => Outcome::Document { media_type: media_type.to_string(), document, raw: bytes },
        },
        Err(message) => Outcome::Failed(message),
    }
}
