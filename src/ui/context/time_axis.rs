//! The time axis panel of an object's screen (#36 item 4): its Events, the changes its watch saw
//! and, for a pod, its log lines on one list by time, filtered by source, each entry a link to
//! where it came from (the Event, the change in the Field managers panel, the pod's log). Folded
//! at first: a pod's log is followed only while the panel is open. It renders what
//! `use_time_axis` hands it.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::api::discovery::ResourceType;
use crate::client::field_owners::UseFieldOwners;
use crate::client::object_events::UseObjectEvents;
use crate::client::time_axis::use_time_axis;
use crate::i18n::Msg;
use crate::model::log_follow::LogSource;
use crate::model::time_axis::{Entry, Origin, Source};
use crate::ui::context::events::link_to;
use crate::ui::i18n::live_text;
use crate::ui::intl;
use crate::ui::location::ViewLink;

/// Where the entries' links lead on this screen.
#[derive(Clone, Copy)]
pub struct AxisLinks {
    /// Unfolds the Field managers panel (its changes are listed there, `#change-RV`).
    pub owners_open: RwSignal<bool>,
    /// Asks the subresource panel to open the pod's log (counts the asks).
    pub log_asked: RwSignal<u32>,
}

/// The time axis of an object: `events` (its Events, if they can be watched), `owners` (its watch)
/// and, for a pod, `log`.
#[component]
pub fn TimeAxis(
    events: Option<UseObjectEvents>,
    owners: UseFieldOwners,
    log: Option<LogSource>,
    links: AxisLinks,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let log = StoredValue::new(log);
    view! {
        <section class="panel time-axis" aria-label=live_text(Msg::AxisTitle) data-testid="time-axis">
            <details on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
                <summary data-testid="time-axis-summary"><h3>{live_text(Msg::AxisTitle)}</h3></summary>
                <p class="time-axis__about">{live_text(Msg::AxisAbout)}</p>
                <Show when=move || open.get()>
                    <AxisBody events owners log=log.get_value() links />
                </Show>
            </details>
        </section>
    }
}

/// The open panel: the hook's follow lives as long as this.
#[component]
fn AxisBody(
    events: Option<UseObjectEvents>,
    owners: UseFieldOwners,
    log: Option<LogSource>,
    links: AxisLinks,
) -> impl IntoView {
    let has_log = log.is_some();
    let axis = use_time_axis(events, owners, log);
    let event_type = events.and_then(|events| events.source.get_value()).map(|(_, resource)| resource);
    let toggle = move |source: Source, label: Msg, testid: &'static str| {
        view! {
            <label class="time-axis__source">
                <input
                    type="checkbox"
                    data-testid=testid
                    prop:checked=move || axis.shown.get().shows(source)
                    on:change=move |ev| axis.shown.update(|shown| *shown = shown.with(source, event_target_checked(&ev)))
                />
                {live_text(label)}
            </label>
        }
    };
    view! {
        <fieldset class="time-axis__filter">
            <legend>{live_text(Msg::AxisShow)}</legend>
            {toggle(Source::Event, Msg::AxisEvents, "axis-show-events")}
            {toggle(Source::Change, Msg::AxisChanges, "axis-show-changes")}
            {has_log.then(|| toggle(Source::Log, Msg::AxisLogLines, "axis-show-logs"))}
        </fieldset>
        {axis.log.map(|log| view! { <crate::ui::logs::LogFailures log /> })}
        <Show when=move || axis.entries.with(Vec::is_empty)>
            <p class="time-axis__none">{live_text(Msg::AxisNone)}</p>
        </Show>
        <ol class="time-axis__entries" data-testid="time-axis-entries">
            <For
                each=move || axis.entries.get()
                key=|entry: &Entry| (entry.at, entry.source, entry.headline.clone(), entry.detail.clone())
                children=move |entry| view! { <AxisEntry entry event_type=event_type.clone() links /> }
            />
        </ol>
    }
}

/// One entry: its time, its source as a link to where it came from, its headline and detail.
#[component]
fn AxisEntry(entry: Entry, event_type: Option<ResourceType>, links: AxisLinks) -> impl IntoView {
    let stamp = entry.at.to_string();
    let when = intl::date_time(entry.at.as_millisecond() as f64);
    let source = match entry.source {
        Source::Event => "event",
        Source::Change => "change",
        Source::Log => "log",
    };
    let badge = match (entry.origin, event_type) {
        (Origin::Event { name, namespace }, Some(resource)) => {
            let change = link_to(&resource, name, namespace);
            view! { <ViewLink change testid="axis-link">{live_text(Msg::AxisEvent)}</ViewLink> }.into_any()
        }
        (Origin::Event { .. }, None) => view! { <span>{live_text(Msg::AxisEvent)}</span> }.into_any(),
        (Origin::Version { resource_version }, _) => {
            let target = format!("change-{resource_version}");
            let href = format!("#{target}");
            let go = move |ev: web_sys::MouseEvent| {
                ev.prevent_default();
                links.owners_open.set(true);
                reveal(target.clone());
            };
            view! { <a href=href data-testid="axis-link" on:click=go>{live_text(Msg::AxisChange)}</a> }.into_any()
        }
        (Origin::Log { .. }, _) => {
            let go = move |ev: web_sys::MouseEvent| {
                ev.prevent_default();
                links.log_asked.update(|n| *n += 1);
                reveal("subresource-panel".to_owned());
            };
            view! { <a href="#subresource-panel" data-testid="axis-link" on:click=go>{live_text(Msg::AxisLog)}</a> }
                .into_any()
        }
    };
    view! {
        <li class="time-axis__entry" data-source=source data-warning=entry.warning.then_some("true") data-testid="axis-entry">
            <time datetime=stamp.clone() title=stamp>{when}</time>
            " "
            <span class="time-axis__badge">{badge}</span>
            " "
            <strong>{entry.headline}</strong>
            " "
            <span class="time-axis__detail">{entry.detail}</span>
        </li>
    }
}

/// Scrolls the element `id` into view once the panels have drawn what the click opened.
fn reveal(id: String) {
    let Some(window) = web_sys::window() else { return };
    let scroll = wasm_bindgen::closure::Closure::once_into_js(move || {
        if let Some(element) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&id)) {
            element.scroll_into_view();
        }
    });
    let _ = window.request_animation_frame(scroll.unchecked_ref());
}
