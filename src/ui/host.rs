//! The host page's side of the explorer, wired to the DOM: reads where the API is and the
//! embedding settings from the page (`<meta>`, `data-api-base`, the URL query) or from a mount
//! config, applies the theme and accent, listens to `postMessage` from the configured origin, and
//! tells the host which object the user opened. The rules (validation, message format, origin
//! check) live in `model::host` and `model::messages`; this module only connects them.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::{JsCast, JsValue};

use crate::i18n::Text;
use crate::model::host::{
    ApiBase, ApiBaseSources, ConfigError, CssColor, HostSettings, MountConfig, Origin, Route, Source, Theme,
    API_BASE_ATTRIBUTE, API_BASE_META,
};
use crate::model::messages::{self, Inbound, MessageStats, Selected};
use crate::ui::write_policy::WritePolicy;

/// Where the explorer lives.
#[derive(Clone)]
pub enum Target {
    /// Its own page (possibly inside an `<iframe>`): the URL carries the view, the theme goes on
    /// `<html>`, and messages come through `window`.
    Page,
    /// An element of a host page (the mount API): the view lives in memory, the theme goes on the
    /// element, and the host talks through the mount handle.
    Element(SendWrapper<web_sys::HtmlElement>),
}

/// A slot the app fills with its [`Host`] so that a mount handle can drive it.
pub type HostSlot = SendWrapper<Rc<RefCell<Option<Host>>>>;

/// Everything read before the app starts.
#[derive(Clone)]
pub struct Setup {
    pub api_base: Result<(ApiBase, Source), ConfigError>,
    pub settings: HostSettings,
    /// The first view of a mount (resolved against discovery when it lacks a version).
    pub route: Option<Route>,
    pub target: Target,
    /// The mount config's `onSelect` callback.
    pub on_select: Option<SendWrapper<js_sys::Function>>,
    pub slot: Option<HostSlot>,
}

impl Setup {
    /// The explorer on its own page: the URL query, `<meta>` and `data-api-base` on `<body>`.
    pub fn from_page() -> Setup {
        let search = window().location().search().unwrap_or_default();
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(search.trim_start_matches('?').as_bytes()).into_owned().collect();
        let (settings, query) = HostSettings::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let sources = ApiBaseSources {
            mount_config: None,
            attribute: document().body().and_then(|b| b.get_attribute(API_BASE_ATTRIBUTE)),
            meta: meta_api_base(),
            query,
        };
        Setup { api_base: sources.resolve(), settings, route: None, target: Target::Page, on_select: None, slot: None }
    }

    /// The explorer mounted into `element` of a host page with `config`.
    pub fn for_element(
        element: web_sys::HtmlElement,
        config: MountConfig,
        on_select: Option<js_sys::Function>,
        slot: HostSlot,
    ) -> Setup {
        let sources = ApiBaseSources {
            mount_config: config.api_base.clone(),
            attribute: element.get_attribute(API_BASE_ATTRIBUTE),
            meta: meta_api_base(),
            query: None,
        };
        Setup {
            api_base: sources.resolve(),
            settings: config.settings,
            route: config.route,
            target: Target::Element(SendWrapper::new(element)),
            on_select: on_select.map(SendWrapper::new),
            slot: Some(slot),
        }
    }

    /// Whether the view lives in the page URL.
    pub fn in_page(&self) -> bool {
        matches!(self.target, Target::Page)
    }
}

fn meta_api_base() -> Option<String> {
    document()
        .query_selector(&format!("meta[name=\"{API_BASE_META}\"]"))
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
}

/// The host's settings as the app reads and changes them, shared through context.
#[derive(Clone, Copy)]
pub struct Host {
    /// No sidebar chrome: one resource view.
    pub embed: bool,
    pub theme: RwSignal<Theme>,
    pub accent: RwSignal<Option<CssColor>>,
    /// What became of the messages received.
    pub stats: RwSignal<MessageStats>,
    /// A navigation asked for by the host, waiting for discovery to resolve it.
    pub pending: RwSignal<Option<Route>>,
    /// Why the last navigation asked for could not be followed.
    pub problem: RwSignal<Option<Text>>,
    /// Where the API base came from.
    pub api_source: Source,
    /// Settings that were given but could not be used.
    pub errors: StoredValue<Vec<ConfigError>>,
    host_origin: StoredValue<Option<Origin>>,
    in_page: bool,
    policy: WritePolicy,
    on_select: StoredValue<Option<SendWrapper<js_sys::Function>>>,
    last_selected: StoredValue<Option<Selected>>,
}

impl Host {
    /// Provides the host context, applies the settings, and in a page starts listening to
    /// messages (telling the host `ready` when it is framed and has an origin configured).
    pub fn install(setup: &Setup, policy: WritePolicy) -> Host {
        let settings = &setup.settings;
        if settings.read_only {
            policy.forced_by_host.set(true);
        }
        let host = Host {
            embed: settings.embed,
            theme: RwSignal::new(settings.theme.unwrap_or_default()),
            accent: RwSignal::new(settings.accent.clone()),
            stats: RwSignal::new(MessageStats::default()),
            pending: RwSignal::new(setup.route.clone().filter(|r| messages::initial_view(r).is_none())),
            problem: RwSignal::new(None),
            api_source: setup.api_base.as_ref().map(|(_, source)| *source).unwrap_or(Source::Default),
            errors: StoredValue::new(settings.errors.clone()),
            host_origin: StoredValue::new(settings.host_origin.clone()),
            in_page: setup.in_page(),
            policy,
            on_select: StoredValue::new(setup.on_select.clone()),
            last_selected: StoredValue::new(None),
        };
        provide_context(host);
        if let Some(slot) = &setup.slot {
            *slot.borrow_mut() = Some(host);
        }
        host.apply_theme(&setup.target);
        if host.in_page {
            let handle = window_event_listener(leptos::ev::message, move |event: web_sys::MessageEvent| {
                host.receive(&event.origin(), &event.data());
            });
            on_cleanup(move || handle.remove());
            if let (Some(origin), Some(parent)) = (host.host_origin.get_value(), framing_parent()) {
                post(&parent, &messages::ready_message(), &origin);
            }
        }
        host
    }

    /// Keeps `data-theme` and `--accent` on the target in step with the signals, and takes them
    /// off a host's element when the explorer is unmounted.
    fn apply_theme(&self, target: &Target) {
        let element = match target {
            Target::Page => document().document_element().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()),
            Target::Element(element) => Some((**element).clone()),
        };
        let Some(element) = element else { return };
        let element = StoredValue::new(SendWrapper::new(element));
        let (theme, accent) = (self.theme, self.accent);
        Effect::new(move |_| {
            let (theme, accent) = (theme.get(), accent.get());
            element.with_value(|element| {
                let _ = match theme {
                    Theme::System => element.remove_attribute("data-theme"),
                    other => element.set_attribute("data-theme", other.as_str()),
                };
                // A CSSOM call with a colour this app wrote itself: never the host's raw text.
                let style = element.style();
                let _ = match &accent {
                    Some(color) => style.set_property("--accent", color.as_str()),
                    None => style.remove_property("--accent").map(|_| ()),
                };
            });
        });
        if matches!(target, Target::Element(_)) {
            on_cleanup(move || {
                element.try_with_value(|element| {
                    let _ = element.remove_attribute("data-theme");
                    let _ = element.style().remove_property("--accent");
                });
            });
        }
    }

    /// Handles one `message` event: obeyed only from the configured origin, counted otherwise.
    pub fn receive(&self, origin: &str, data: &JsValue) {
        let data = to_json(data);
        let configured = self.host_origin.get_value();
        let mut stats = self.stats.get_untracked();
        let message = stats.receive(configured.as_ref(), origin, &data);
        if stats != self.stats.get_untracked() {
            if message.is_none() {
                if let Some(problem) = &stats.last_problem {
                    web_sys::console::warn_1(&JsValue::from_str(&format!("kube-api-explorer: {problem}")));
                }
            }
            self.stats.set(stats);
        }
        if let Some(message) = message {
            self.apply(message);
        }
    }

    /// Does what an accepted message asks.
    pub fn apply(&self, message: Inbound) {
        match message {
            Inbound::Navigate(route) => self.pending.set(Some(route)),
            Inbound::SetTheme { theme, accent } => {
                if let Some(theme) = theme {
                    self.theme.set(theme);
                }
                if accent.is_some() {
                    self.accent.set(accent);
                }
            }
            Inbound::SetReadOnly(read_only) => self.policy.forced_by_host.set(read_only),
        }
    }

    /// Tells the host which object the user opened (once per object).
    pub fn select(&self, selected: Selected) {
        if self.last_selected.get_value().as_ref() == Some(&selected) {
            return;
        }
        self.last_selected.set_value(Some(selected.clone()));
        let message = selected.to_message();
        let outcome = self
            .on_select
            .with_value(|callback| callback.as_ref().map(|callback| callback.call1(&JsValue::NULL, &to_js(&message))));
        if let Some(Err(error)) = outcome {
            web_sys::console::warn_2(&JsValue::from_str("kube-api-explorer: the onSelect callback threw"), &error);
        }
        if self.in_page {
            if let (Some(origin), Some(parent)) = (self.host_origin.get_value(), framing_parent()) {
                post(&parent, &message, &origin);
            }
        }
    }

    /// Forgets the last selection, so that opening the same object again is told again (the
    /// object view calls it when it closes).
    pub fn forget_selection(&self) {
        let _ = self.last_selected.try_set_value(None);
    }

    /// Whether messages are expected (a host origin is configured).
    pub fn listens(&self) -> bool {
        self.host_origin.with_value(Option::is_some)
    }

    /// The configured host origin, for display.
    pub fn host_origin(&self) -> Option<String> {
        self.host_origin.with_value(|o| o.as_ref().map(ToString::to_string))
    }
}

/// The window that frames this page, if it is framed.
fn framing_parent() -> Option<web_sys::Window> {
    let own = window();
    let parent = own.parent().ok().flatten()?;
    (!js_sys::Object::is(&parent, &own)).then_some(parent)
}

/// Posts `message` to `target`, addressed to `origin` only (never `*`).
fn post(target: &web_sys::Window, message: &serde_json::Value, origin: &Origin) {
    if let Err(error) = target.post_message(&to_js(message), origin.as_str()) {
        web_sys::console::warn_2(&JsValue::from_str("kube-api-explorer: postMessage failed"), &error);
    }
}

/// A JS value as JSON (structured-clone data and config objects are plain data; functions and
/// undefined fields drop out); anything that cannot be serialized becomes `null`.
pub fn to_json(value: &JsValue) -> serde_json::Value {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// A JSON value as a plain JS object.
pub fn to_js(value: &serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}
