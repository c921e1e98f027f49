//! Saving the shown log as a file.

use leptos::prelude::window;
use wasm_bindgen::JsCast;

/// Offers `text` as a file named `file` (a Blob behind a link that is clicked once). The error
/// is the browser's, described: the caller logs it at once.
pub(super) fn save_text(file: &str, text: &str) -> Result<(), String> {
    let describe = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let blob = web_sys::Blob::new_with_str_sequence(&parts).map_err(describe)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(describe)?;
    let document = window().document().ok_or("no document")?;
    let link = document.create_element("a").map_err(describe)?;
    link.set_attribute("href", &url).map_err(describe)?;
    link.set_attribute("download", file).map_err(describe)?;
    link.dyn_ref::<web_sys::HtmlElement>().ok_or("not an element")?.click();
    web_sys::Url::revoke_object_url(&url).map_err(describe)
}
