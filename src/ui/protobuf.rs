//! A protobuf body decoded in full, a part loaded on demand (see [`crate::ui::lazy`]): prost and
//! the messages of every built-in type are needed only when protobuf is shown. The object or list
//! of a response's envelope, or every event of a captured protobuf watch, shown as the documents
//! of the other representations. A type without a message (or a message that cannot be read)
//! says why, naming its apiVersion and kind, and the envelope is still shown. The same part
//! gives the live view's reflector its decoder of protobuf objects ([`protobuf_loader`]).

use leptos::prelude::*;

use crate::client::reflector::ProtobufLoader;
use crate::i18n::{Msg, Text};
use crate::model::protobuf::{InFull, ProtobufBody};
use crate::ui::document::DocumentView;
use crate::ui::i18n::{live_text, localized, worded};
use crate::ui::on_demand::{at_once, on_demand};

/// [`ProtobufDocument`] loaded on demand.
#[component]
pub fn ProtobufOnDemand(body: ProtobufBody) -> impl IntoView {
    on_demand(Msg::PartProtobuf, split::preload_protobuf, move || at_once!(split::protobuf(body.clone())))
}

/// Fetches the part (the first time) for a reflector that reads protobuf bodies, and gives it the
/// part's decoder of protobuf objects; a failed download is the reason, to be retried.
pub fn protobuf_loader() -> ProtobufLoader {
    std::rc::Rc::new(|| {
        Box::pin(async {
            #[cfg(feature = "split")]
            let decoder = split::in_full_decoder().await;
            #[cfg(not(feature = "split"))]
            let decoder = split::in_full_decoder();
            decoder.map_err(|failed| Text::new(Msg::ProtobufDecoderNotLoaded).with("reason", failed.reason()))
        })
    })
}

/// The split points.
mod split {
    use leptos::prelude::*;

    use crate::model::protobuf::{objects_decoder, InFullDecoder, ProtobufBody};
    use crate::ui::on_demand::LoadFailed;
    use crate::ui::protobuf::ProtobufDocument;

    /// The decoder of protobuf objects: a value made here, so that the code it calls is the
    /// part's, not the page load's.
    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(protobuf, wasm_split_path = ::leptos::wasm_split, fallible)
    )]
    pub fn in_full_decoder() -> Result<InFullDecoder, LoadFailed> {
        Ok(objects_decoder())
    }

    #[cfg_attr(
        feature = "split",
        leptos::wasm_split::wasm_split(protobuf, wasm_split_path = ::leptos::wasm_split, preload(preload_protobuf), fallible)
    )]
    pub fn protobuf(body: ProtobufBody) -> Result<AnyView, LoadFailed> {
        Ok(view! { <ProtobufDocument body /> }.into_any())
    }

    #[cfg(not(feature = "split"))]
    pub async fn preload_protobuf() -> Result<(), LoadFailed> {
        Ok(())
    }
}

/// The body decoded in full, or why it is not with its envelope.
#[component]
pub fn ProtobufDocument(body: ProtobufBody) -> impl IntoView {
    let raw = body.raw();
    match body.in_full() {
        InFull::Decoded(document) => view! {
            <p class="muted" data-testid="protobuf-decoded">
                {live_text(Msg::ProtobufDecodedInFull)}
            </p>
            <DocumentView document raw=raw />
        }
        .into_any(),
        InFull::NotDecoded { why, envelope } => view! {
            <p class="notice" role="status" data-testid="protobuf-not-decoded">
                {worded(move || localized(&why))}
            </p>
            {envelope
                .map(|document| {
                    view! {
                        <p class="muted">{live_text(Msg::ProtobufEnvelopeOnly)}</p>
                        <DocumentView document raw=raw />
                    }
                })}
        }
        .into_any(),
    }
}
