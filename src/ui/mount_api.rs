//! The mount API for host pages that load the wasm themselves:
//!
//! ```js
//! import init, { mount } from "/explorer/kube-api-explorer-<hash>.js";
//! await init({ module_or_path: "/explorer/kube-api-explorer-<hash>_bg.wasm" });
//! const handle = mount(element, {
//!   apiBase: "https://k8s-proxy.example.com", readOnly: true, theme: "dark", accent: "#e4572e",
//!   route: { group: "", version: "v1", resource: "pods", namespace: "demo" },
//!   onSelect: (selected) => console.log(selected.name, selected.uid),
//! });
//! handle.navigate({ group: "apps", resource: "deployments", namespace: "demo" });
//! handle.unmount();
//! ```
//!
//! The page must carry an element with `data-kube-api-explorer-manual` so that the binary's
//! `main` does not also mount the explorer on `<body>`. A bad config throws, naming each problem.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;

use crate::model::host::{MountConfig, Route};
use crate::model::messages::{Inbound, Received};
use crate::ui::host::{to_json, Host, Setup};
use crate::ui::App;

/// A mounted explorer; `unmount()` removes it and closes what it had open. The explorer stays
/// mounted if the handle is garbage-collected without `unmount()`.
#[wasm_bindgen]
pub struct MountHandle {
    id: u32,
    host: Rc<RefCell<Option<Host>>>,
}

/// What `unmount()` takes down.
struct Mounted {
    /// The reactive owner of the mounted app: cleaning it up runs every `on_cleanup` (live views
    /// abort their watch requests, window listeners are removed).
    owner: Owner,
    /// Leptos' own handle: dropping it takes the app's nodes out of the element.
    view: Box<dyn std::any::Any>,
    element: web_sys::HtmlElement,
}

thread_local! {
    /// The explorers mounted through the API, by handle id.
    static MOUNTED: RefCell<HashMap<u32, Mounted>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

/// Mounts the explorer into `element` with `config` (see the module documentation).
#[wasm_bindgen(js_name = mount)]
pub fn mount_into(element: web_sys::HtmlElement, config: JsValue) -> Result<MountHandle, JsError> {
    let config_json = to_json(&config);
    let parsed = MountConfig::from_json(&config_json).map_err(|errors| {
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        JsError::new(&format!("kube-api-explorer mount: {}", errors.join("; ")))
    })?;
    let on_select = if config.is_object() {
        js_sys::Reflect::get(&config, &JsValue::from_str("onSelect")).ok().filter(|f| !f.is_undefined())
    } else {
        None
    };
    let on_select = match on_select {
        None => None,
        Some(f) => Some(
            f.dyn_into::<js_sys::Function>()
                .map_err(|_| JsError::new("kube-api-explorer mount: config.onSelect: expected a function"))?,
        ),
    };
    let host = Rc::new(RefCell::new(None));
    let setup = Setup::for_element(element.clone(), parsed, on_select, SendWrapper::new(host.clone()));
    let _ = element.class_list().add_1("kae-mount");
    let owner = Owner::new();
    let view = owner.with(|| leptos::mount::mount_to(element.clone(), move || view! { <App setup /> }));
    let id = NEXT_ID.with(|next| next.replace(next.get() + 1));
    MOUNTED.with(|mounted| mounted.borrow_mut().insert(id, Mounted { owner, view: Box::new(view), element }));
    Ok(MountHandle { id, host })
}

#[wasm_bindgen]
impl MountHandle {
    /// Removes the explorer from its element and closes its watches and listeners. Calling it
    /// again does nothing.
    pub fn unmount(&self) {
        self.host.borrow_mut().take();
        let Some(Mounted { owner, view, element }) = MOUNTED.with(|mounted| mounted.borrow_mut().remove(&self.id))
        else {
            return;
        };
        drop(view);
        owner.cleanup();
        let _ = element.class_list().remove_1("kae-mount");
    }

    /// Whether the explorer is still mounted.
    #[wasm_bindgen(getter)]
    pub fn mounted(&self) -> bool {
        MOUNTED.with(|mounted| mounted.borrow().contains_key(&self.id))
    }

    /// Opens a collection or object: `{ group?, version?, resource, namespace?, name? }`.
    pub fn navigate(&self, route: JsValue) -> Result<(), JsError> {
        let route = Route::from_json(&to_json(&route))
            .map_err(|e| JsError::new(&format!("kube-api-explorer navigate: {e}")))?;
        if route.resource.is_none() {
            return Err(JsError::new("kube-api-explorer navigate: resource is required"));
        }
        self.live_host()?.apply(Inbound::Navigate(route));
        Ok(())
    }

    /// Sends a message in the `postMessage` format (`kube-api-explorer:navigate`,
    /// `kube-api-explorer:set-theme`, `kube-api-explorer:set-read-only`).
    pub fn post(&self, message: JsValue) -> Result<(), JsError> {
        match Inbound::parse(&to_json(&message)) {
            Received::Message(message) => {
                self.live_host()?.apply(message);
                Ok(())
            }
            Received::NotForExplorer => Err(JsError::new(
                "kube-api-explorer post: expected an object whose type starts with kube-api-explorer:",
            )),
            Received::Invalid(why) => Err(JsError::new(&format!("kube-api-explorer post: {why}"))),
        }
    }

    fn live_host(&self) -> Result<Host, JsError> {
        (*self.host.borrow()).ok_or_else(|| JsError::new("kube-api-explorer: this explorer was unmounted"))
    }
}
