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
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::intl;
use crate::ui::on_demand::{at_once, on_demand};
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

/// What the person asked to decode, or why there is nothing to decode.
#[derive(Clone, PartialEq)]
enum Asked {
    Decode(Captured),
    Failed(Text),
}

/// A captured body and how to read it: `choice` is a media type or "auto".
#[derive(Clone, PartialEq)]
pub struct Captured {
    choice: String,
    source: String,
    bytes: Arc<[u8]>,
}

/// What decoding gave: a protobuf body is decoded in full by the on-demand part.
enum Outcome {
    Document { media_type: String, document: Value, raw: Arc<[u8]> },
    Protobuf { media_type: String, body: ProtobufBody },
    Failed(Text),
}

/// The decode tool.
#[component]
pub fn DecodeTool() -> impl IntoView {
    let (text, set_text) = signal(String::new());
    let file_bytes = RwSignal::new(None::<(String, Vec<u8>)>);
    let (choice, set_choice) = signal("auto".to_owned());
    let asked = RwSignal::new(None::<Asked>);

    let decode = move || {
        let (source, bytes) = match file_bytes.get_untracked() {
            Some((name, bytes)) => (name, bytes),
            None => (text_now(Msg::PastedText), text.get_untracked().into_bytes()),
        };
        asked.set(Some(Asked::Decode(Captured { choice: choice.get_untracked(), source, bytes: Arc::from(bytes) })));
    };
    let on_file = move |e: leptos::ev::Event| {
        let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        let name = file.name();
        crate::client::task::spawn(async move {
            match JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => file_bytes.set(Some((name, js_sys::Uint8Array::new(&buffer).to_vec()))),
                Err(_) => asked.set(Some(Asked::Failed(Text::new(Msg::CouldNotReadFile).with("name", &name)))),
            }
        });
    };

    view! {
        <section class="panel decode" aria-labelledby="decode-heading">
            <h2 id="decode-heading">{live_text(Msg::DecodeHeading)}</h2>
            <p class="muted">
                {live_text(Msg::DecodeHelp)}
            </p>
            <textarea
                class="decode__text"
                aria-label=live_text(Msg::BodyToDecode)
                rows="8"
                prop:value=text
                on:input=move |e| {
                    set_text.set(event_target_value(&e));
                    file_bytes.set(None);
                }
            ></textarea>
            <div class="toolbar">
                <label class="toolbar__field">
                    {live_text(Msg::File)}
                    " "
                    <input type="file" aria-label=live_text(Msg::BodyFile) on:change=on_file />
                </label>
                <label class="toolbar__field">
                    {live_text(Msg::ContentType)}
                    " "
                    <select aria-label=live_text(Msg::ContentType) on:change=move |e| set_choice.set(event_target_value(&e))>
                        {CHOICES
                            .into_iter()
                            .map(|(value, label)| {
                                let label = move || match label {
                                    Label::Msg(msg) => text_now(msg),
                                    Label::Term(term) => term.to_owned(),
                                };
                                view! { <option value=value>{label}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
                <button class="button" on:click=move |_| decode()>
                    {live_text(Msg::Decode)}
                </button>
                {move || {
                    file_bytes
                        .get()
                        .map(|(name, bytes)| {
                            view! { <span class="muted">{filled_text(Msg::FileSize, &[("name", &name), ("size", &intl::bytes(bytes.len()))])}</span> }
                        })
                }}
            </div>
            {move || match asked.get() {
                None => ().into_any(),
                Some(Asked::Failed(message)) => failed(message),
                Some(Asked::Decode(captured)) => view! { <DecodedOnDemand captured /> }.into_any(),
            }}
        </section>
    }
}

/// An error shown where the decoded body would be.
fn failed(message: Text) -> AnyView {
    view! {
        <p class="status-error" role="alert" data-testid="decode-error">
            {worded(move || localized(&message))}
        </p>
    }
    .into_any()
}

/// [`Decoded`] loaded on demand: the decoders (YAML, CBOR, sniffing) and the document view are
/// needed only once something is decoded.
#[component]
fn DecodedOnDemand(captured: Captured) -> impl IntoView {
    on_demand(Msg::PartDecoder, split::preload_decoder, move || at_once!(split::decoded(captured.clone())))
}

/// The split point.
mod split {
    use leptos::prelude::*;

    use crate::ui::decode::{Captured, Decoded};
    use crate::ui::on_demand::LoadFailed;

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(browse, wasm_split_path = ::leptos::wasm_split, preload(preload_decoder), fallible)
    )]
    pub fn decoded(captured: Captured) -> Result<AnyView, LoadFailed> {
        crate::client::fetched::load_yaml_decoder();
        Ok(view! { <Decoded captured /> }.into_any())
    }

    #[cfg(not(feature = "split"))]
    pub async fn preload_decoder() -> Result<(), LoadFailed> {
        Ok(())
    }
}

/// A captured body decoded: its media type and document, or why it could not be decoded.
#[component]
fn Decoded(captured: Captured) -> impl IntoView {
    match decode_bytes(&captured) {
        Outcome::Failed(message) => failed(message),
        Outcome::Document { media_type, document, raw } => {
            let cbor = media_type.starts_with("application/cbor");
            view! {
                <p data-testid="decode-media-type">{worded(move || filled_text(Msg::DecodedAs, &[("media_type", &media_type)]))}</p>
                <DocumentView document raw=Some(raw) cbor />
            }
            .into_any()
        }
        Outcome::Protobuf { media_type, body } => view! {
            <p data-testid="decode-media-type">{worded(move || filled_text(Msg::DecodedAs, &[("media_type", &media_type)]))}</p>
            <ProtobufOnDemand body />
        }
        .into_any(),
    }
}

fn decode_bytes(captured: &Captured) -> Outcome {
    let Captured { choice, source, bytes } = captured;
    match decode_captured(choice, source, bytes) {
        Ok((media_type, document)) => match ProtobufBody::captured(&media_type, bytes.clone()) {
            Some(body) => Outcome::Protobuf { media_type: media_type.to_string(), body },
            None => Outcome::Document { media_type: media_type.to_string(), document, raw: bytes.clone() },
        },
        Err(message) => Outcome::Failed(message),
    }
}
