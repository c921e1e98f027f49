//! Files that ship beside the app (the language files, `i18n/<tag>.json`), fetched on demand.
//! They are found next to the app's JavaScript module (`import.meta.url`), not the page: a host
//! page that mounts the explorer from another folder or origin gets them from the bundle, as it
//! gets the split-off wasm files.

use crate::i18n::{Localized, Msg, Text};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The URL of the app's JavaScript module.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static MODULE_URL: String;
}

/// Why a file of the bundle could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleFileError {
    Status { url: String, status: u16 },
    Network { url: String, message: String },
}

impl Localized for BundleFileError {
    fn text(&self) -> Text {
        match self {
            BundleFileError::Status { url, status } => {
                Text::new(Msg::LoadAnswered).with("url", url).with("what", format!("HTTP {status}"))
            }
            BundleFileError::Network { url, message } => {
                Text::new(Msg::BundleFileUnreachable).with("url", url).with("error", message)
            }
        }
    }
}

crate::localized_display!(BundleFileError);

impl std::error::Error for BundleFileError {}

/// The absolute URL of `path` in the bundle.
pub fn bundle_url(path: &str) -> String {
    let base = MODULE_URL.with(String::clone);
    web_sys::Url::new_with_base(path, &base).map(|u| u.href()).unwrap_or_else(|_| path.to_owned())
}

/// The text of the bundle's file at `path` (relative to the app's module).
pub async fn fetch_text(path: &str) -> Result<String, BundleFileError> {
    let url = bundle_url(path);
    let network = |e: JsValue| BundleFileError::Network { url: url.clone(), message: describe(&e) };
    let response = JsFuture::from(leptos::prelude::window().fetch_with_str(&url)).await.map_err(network)?;
    let response: web_sys::Response = response.dyn_into().map_err(network)?;
    if !response.ok() {
        return Err(BundleFileError::Status { url, status: response.status() });
    }
    let text = JsFuture::from(response.text().map_err(network)?).await.map_err(network)?;
    text.as_string().ok_or_else(|| BundleFileError::Network { url, message: "the body is not text".to_owned() })
}

fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "network error".to_owned())
}
