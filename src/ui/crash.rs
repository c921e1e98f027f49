//! A panic shown to the user. A panic in the wasm ends the instance (the release build aborts:
//! the page's next call into it traps), so the hook installed by `main`, beside
//! `console_error_panic_hook`, puts a plain alert at the top of each explorer on the page: what
//! happened, in the interface's language, the panic's message for a bug report, and a Reload
//! link to the page's own address, which the browser follows without calling into the wasm.
//! The explorer's elements below it are made `inert`: their buttons no longer do anything.
//!
//! Invariants: the hook reads nothing reactive and builds its alert with DOM calls, not Leptos
//! (a panic may come from the reactive graph itself, in the middle of an update); its texts are
//! kept ready, in the language of the moment, while the app runs. No inline style or script:
//! the alert's look is `.crash-alert` in `style/components.css`, and the page's
//! Content-Security-Policy needs nothing more. It shows once, whatever panics after it.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;

use crate::i18n::Msg;
use crate::ui::host::Target;
use crate::ui::i18n::text_now;

/// The alert's texts, in the interface's language.
#[derive(Clone)]
struct Texts {
    title: String,
    explanation: String,
    details: String,
    reload: String,
}

impl Texts {
    fn english() -> Texts {
        Texts {
            title: Msg::CrashTitle.english().to_owned(),
            explanation: Msg::CrashExplanation.english().to_owned(),
            details: Msg::CrashDetails.english().to_owned(),
            reload: Msg::CrashReload.english().to_owned(),
        }
    }
}

thread_local! {
    static TEXTS: RefCell<Option<Texts>> = const { RefCell::new(None) };
    /// The explorers on the page (each `App`): their element, or `None` for the page's body.
    static ROOTS: RefCell<Vec<(u32, Option<web_sys::HtmlElement>)>> = const { RefCell::new(Vec::new()) };
    static NEXT_ROOT: Cell<u32> = const { Cell::new(0) };
    static SHOWN: Cell<bool> = const { Cell::new(false) };
}

/// Installs the panic hook: the panic goes to the console as before, then to the page.
pub fn install_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show(&info.to_string());
    }));
}

/// Registers the explorer at `target` as one to show a panic in, for as long as the current
/// owner lives, and keeps the alert's texts in the interface's language.
pub fn watch(target: &Target) {
    let element = match target {
        Target::Page => None,
        Target::Element(element) => Some((**element).clone()),
    };
    let id = NEXT_ROOT.with(|next| next.replace(next.get() + 1));
    ROOTS.with(|roots| roots.borrow_mut().push((id, element)));
    on_cleanup(move || {
        ROOTS.with(|roots| {
            if let Ok(mut roots) = roots.try_borrow_mut() {
                roots.retain(|(root, _)| *root != id);
            }
        });
    });
    Effect::new(move |_| {
        let texts = Texts {
            title: text_now(Msg::CrashTitle),
            explanation: text_now(Msg::CrashExplanation),
            details: text_now(Msg::CrashDetails),
            reload: text_now(Msg::CrashReload),
        };
        TEXTS.with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut() {
                *kept = Some(texts);
            }
        });
    });
}

/// Shows the alert for a panic whose message is `message` (once).
fn show(message: &str) {
    if SHOWN.with(|shown| shown.replace(true)) {
        return;
    }
    let texts = TEXTS.with(|kept| kept.try_borrow().ok().and_then(|kept| kept.clone())).unwrap_or_else(Texts::english);
    let Some(document) = web_sys::window().and_then(|window| window.document()) else { return };
    let registered: Vec<Option<web_sys::HtmlElement>> = ROOTS
        .with(|roots| roots.try_borrow().ok().map(|roots| roots.iter().map(|(_, element)| element.clone()).collect()))
        .unwrap_or_default();
    let mut roots: Vec<web_sys::HtmlElement> =
        registered.into_iter().filter_map(|element| element.or_else(|| document.body())).collect();
    if roots.is_empty() {
        // A panic before any explorer was mounted (or after the last was unmounted): the page.
        roots.extend(document.body());
    }
    let mut first_link = None;
    for root in roots {
        if let Some(link) = alert_in(&document, &root, &texts, message) {
            first_link.get_or_insert(link);
        }
    }
    if let Some(link) = first_link {
        let _ = link.focus();
    }
}

/// Puts the alert first in `root` and makes the rest of it inert; returns its Reload link.
fn alert_in(
    document: &web_sys::Document,
    root: &web_sys::HtmlElement,
    texts: &Texts,
    message: &str,
) -> Option<web_sys::HtmlElement> {
    let mut child = root.first_element_child();
    while let Some(element) = child {
        let _ = element.set_attribute("inert", "");
        child = element.next_element_sibling();
    }
    let element = |tag: &str, class: &str, text: Option<&str>| -> Option<web_sys::Element> {
        let element = document.create_element(tag).ok()?;
        element.set_class_name(class);
        if let Some(text) = text {
            element.set_text_content(Some(text));
        }
        Some(element)
    };
    let alert = element("section", "crash-alert", None)?;
    let _ = alert.set_attribute("role", "alert");
    let _ = alert.set_attribute("data-testid", "crash-alert");
    let title = element("h2", "crash-alert__title", Some(&texts.title))?;
    let explanation = element("p", "crash-alert__explanation", Some(&texts.explanation))?;
    let link = element("a", "button crash-alert__reload", Some(&texts.reload))?;
    let _ = link.set_attribute("href", &reload_address()?);
    let details = element("details", "crash-alert__details", None)?;
    let summary = element("summary", "", Some(&texts.details))?;
    let code = element("pre", "crash-alert__message", Some(message))?;
    let _ = code.set_attribute("data-testid", "crash-message");
    let _ = details.append_child(&summary);
    let _ = details.append_child(&code);
    for part in [&title, &explanation, &link, &details] {
        let _ = alert.append_child(part);
    }
    let _ = root.prepend_with_node_1(&alert);
    link.dyn_into::<web_sys::HtmlElement>().ok()
}

/// The page's own address without its fragment: following it loads the page again (a link to the
/// same address with a fragment would only scroll).
fn reload_address() -> Option<String> {
    let href = web_sys::window()?.location().href().ok()?;
    Some(match href.split_once('#') {
        Some((address, _)) => address.to_owned(),
        None => href,
    })
}

/// Panics with `message`, through the hook like any panic: how the end-to-end tests show the
/// alert a real panic brings. Harmless: only script already running in the explorer's own page
/// can call it, and such script can end the page anyway (a host page on another origin cannot
/// reach it through an iframe).
#[wasm_bindgen(js_name = panicForTests)]
pub fn panic_for_tests(message: String) {
    panic!("{message}");
}
