//! A pod's log (`GET …/pods/NAME/log`), read once or followed, as `use_log_follow` runs it
//! (`model::log_follow` decides: requests, reconnections from `sinceTime`, the lines skipped).
//! These views only render: the options (container or all of them, follow, the previous run,
//! `sinceSeconds`, `tailLines`), the display (timestamps, wrap, search with the count of matching
//! lines, pause, download), each container's state, and the lines.

mod display;
mod form;
mod options;
mod save;
mod state;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::client::logs::{use_log_follow, UseLogFollow};
use crate::i18n::Msg;
use crate::model::log_follow::LogSource;
use crate::model::logs::LogDisplay;
use crate::ui::i18n::{live_text, text_now};

use display::LogDisplayBar;
use form::{LogForm, Shown};
use options::LogOptions;
pub(crate) use state::LogFailures;
use state::LogStateLine;

/// The log of pod `name`.
#[component]
pub fn LogView(
    /// The pods resource type.
    resource: ResourceType,
    /// The pod's namespace.
    namespace: Option<String>,
    /// The pod's name.
    name: String,
    /// The pod (its containers and their restarts).
    document: Value,
) -> impl IntoView {
    let source = LogSource::of_pod(resource, namespace, name, &document);
    let form = LogForm {
        container: RwSignal::new(source.first_choice()),
        follow: RwSignal::new(false),
        previous: RwSignal::new(false),
        since: RwSignal::new(String::new()),
        tail: RwSignal::new(String::from("100")),
    };
    let source = StoredValue::new(source.clone());
    let follow = use_log_follow(source.get_value());
    let UseLogFollow { log, start, .. } = follow;
    let read = Callback::new(move |()| start.run(form.ask()));
    // Read at once with the defaults, as the log button promises.
    read.run(());
    let display = RwSignal::new(LogDisplay::default());
    let wrap = RwSignal::new(true);
    let shown = Memo::new(move |_| {
        let mut display = display.get();
        log.with(|log| {
            display.containers = log.interleaved();
            let buffer = log.shown();
            (display.text(buffer), display.count(buffer), buffer.len(), buffer.dropped())
        })
    });
    // Stay at the end while new lines come, unless the user scrolled up (a resume sticks again).
    let stick = StoredValue::new(true);
    view! {
        <section class="logs" aria-label=live_text(Msg::PodLog)>
            <LogOptions source form read />
            <LogDisplayBar source form follow display wrap shown stick />
            <LogStateLine log shown />
            <LogFailures log />
            <LogText shown wrap stick />
        </section>
    }
}

/// The lines, kept scrolled to the end while `stick` holds.
#[component]
fn LogText(shown: Memo<Shown>, wrap: RwSignal<bool>, stick: StoredValue<bool>) -> impl IntoView {
    let text_ref = NodeRef::<leptos::html::Pre>::new();
    Effect::new(move |_| {
        shown.track();
        if stick.get_value() {
            if let Some(pre) = text_ref.get_untracked() {
                request_animation_frame(move || pre.set_scroll_top(pre.scroll_height()));
            }
        }
    });
    view! {
        <pre
            class="document__text log-text"
            class:log-text--nowrap=move || !wrap.get()
            data-testid="log-text"
            tabindex="0"
            node_ref=text_ref
            on:scroll=move |_| {
                if let Some(pre) = text_ref.get_untracked() {
                    stick.set_value(pre.scroll_top() + pre.client_height() >= pre.scroll_height() - 4);
                }
            }
        >
            {move || {
                let (text, matching, kept, _) = shown.get();
                if kept == 0 {
                    text_now(Msg::LogEmpty)
                } else if matching == 0 {
                    text_now(Msg::NoLineMatches)
                } else {
                    text
                }
            }}
        </pre>
    }
}
