//! The terminal emulator on the screen: xterm.js, imported from the bundle's `terminal/` folder
//! (`assets/terminal/`) the first time a terminal opens, through the small module `glue.js`. The
//! emulator draws what [`Screen::write`] is given and reports keys and sizes; it knows nothing
//! of Kubernetes.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::html;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::client::bundle_file::bundle_url;
use crate::i18n::Msg;
use crate::ui::i18n::{filled_text, live_text, worded};

#[wasm_bindgen(inline_js = "export function importModule(url) { return import(url); }")]
extern "C" {
    /// `import(url)`: a module of the bundle, loaded on demand (no `eval`, so the page's
    /// Content-Security-Policy needs nothing more than `script-src 'self'`).
    #[wasm_bindgen(js_name = importModule)]
    fn import_module(url: &str) -> js_sys::Promise;
}

#[wasm_bindgen]
extern "C" {
    /// `glue.js`, once imported.
    type Glue;
    #[wasm_bindgen(method, structural)]
    fn open(
        this: &Glue,
        element: &web_sys::HtmlElement,
        on_data: &js_sys::Function,
        on_resize: &js_sys::Function,
    ) -> Emulator;

    /// One open terminal emulator.
    type Emulator;
    #[wasm_bindgen(method, structural)]
    fn write(this: &Emulator, bytes: &js_sys::Uint8Array);
    #[wasm_bindgen(method, structural)]
    fn focus(this: &Emulator);
    #[wasm_bindgen(method, structural)]
    fn reset(this: &Emulator);
    #[wasm_bindgen(method, structural)]
    fn dispose(this: &Emulator);
}

/// The emulator's handlers of keys and sizes, kept as long as it lives.
type Handlers = (Closure<dyn FnMut(String)>, Closure<dyn FnMut(u16, u16)>);

#[derive(Default)]
struct Inner {
    emulator: Option<Emulator>,
    /// Output that came before the emulator was there.
    pending: Vec<u8>,
    _callbacks: Option<Handlers>,
}

/// Where the container's output goes: the emulator once loaded, kept until then.
#[derive(Clone, Default)]
pub struct Screen(Rc<RefCell<Inner>>);

impl Screen {
    /// Writes bytes (UTF-8 and escape sequences, split anywhere) to the emulator.
    pub fn write(&self, bytes: Vec<u8>) {
        let mut inner = self.0.borrow_mut();
        match &inner.emulator {
            Some(emulator) => emulator.write(&js_sys::Uint8Array::from(bytes.as_slice())),
            None => inner.pending.extend(bytes),
        }
    }

    /// Clears the screen for a new session and gives it the keyboard.
    pub fn restart(&self) {
        let inner = self.0.borrow();
        if let Some(emulator) = &inner.emulator {
            emulator.reset();
            emulator.focus();
        }
    }
}

/// The emulator's element: loads xterm.js and opens it there, then sends keys to `typed` and
/// sizes to `resized`.
#[component]
pub fn ScreenView(
    /// Where output is written.
    screen: Screen,
    /// The terminal's accessible name.
    label: Signal<String>,
    /// What the keyboard typed, UTF-8.
    typed: Callback<Vec<u8>>,
    /// Every new size, `(cols, rows)`.
    resized: Callback<(u16, u16)>,
) -> impl IntoView {
    let element: NodeRef<html::Div> = NodeRef::new();
    let failed = RwSignal::new(None::<(String, String)>);
    let loaded = RwSignal::new(false);
    let shared = SendWrapper::new(screen);
    let leaving = shared.clone();
    let tasks = crate::client::task::Tasks::for_current_owner();
    Effect::new(move |_| {
        let Some(div) = element.get() else { return };
        let screen = (*shared).clone();
        tasks.spawn(async move {
            let url = bundle_url("terminal/glue.js");
            match JsFuture::from(import_module(&url)).await {
                Err(error) => failed.set(Some((url, format!("{error:?}")))),
                Ok(module) => {
                    let on_data = Closure::<dyn FnMut(String)>::new(move |data: String| typed.run(data.into_bytes()));
                    let on_resize = Closure::<dyn FnMut(u16, u16)>::new(move |cols, rows| resized.run((cols, rows)));
                    let glue: Glue = module.unchecked_into();
                    let emulator =
                        glue.open(&div, on_data.as_ref().unchecked_ref(), on_resize.as_ref().unchecked_ref());
                    let mut inner = screen.0.borrow_mut();
                    let pending = std::mem::take(&mut inner.pending);
                    if !pending.is_empty() {
                        emulator.write(&js_sys::Uint8Array::from(pending.as_slice()));
                    }
                    emulator.focus();
                    inner.emulator = Some(emulator);
                    inner._callbacks = Some((on_data, on_resize));
                    loaded.set(true);
                }
            }
        });
    });
    on_cleanup(move || {
        let screen: &Screen = &leaving;
        if let Some(emulator) = screen.0.borrow_mut().emulator.take() {
            emulator.dispose();
        }
    });
    view! {
        <div class="terminal__screen" role="group" aria-label=label node_ref=element data-testid="terminal-screen"></div>
        {move || {
            (!loaded.get() && failed.with(Option::is_none))
                .then(|| view! { <p class="loading" aria-busy="true">{live_text(Msg::TerminalLoadingEmulator)}</p> })
        }}
        {move || {
            failed
                .get()
                .map(|(url, error)| {
                    view! {
                        <p class="warning" role="alert">
                            {worded(move || filled_text(Msg::TerminalEmulatorFailed, &[("url", &url), ("error", &error)]))}
                        </p>
                    }
                })
        }}
    }
}
