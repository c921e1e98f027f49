//! The Events panel of an object's screen: the live Events about it (and, when asked, about its
//! controller), each a link to the Event. It renders what `use_object_events` hands it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::client::object_events::{use_object_events, UseObjectEvents};
use crate::i18n::Msg;
use crate::model::object_events::{EventRow, EventType, EventsApi, Regarding};
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::discovered::use_discovery;
use crate::ui::i18n::{filled_text, live_text, localized, worded};
use crate::ui::intl;
use crate::ui::location::ViewLink;

/// The Events of the object `document` describes, and a switch to add its controller's.
#[component]
pub fn ObjectEvents(
    /// The object, as read.
    document: Value,
    /// Its Events, when the screen watches them already (the time axis shares them); watched
    /// here when not.
    events: Option<UseObjectEvents>,
) -> impl IntoView {
    let regarding = match Regarding::of(&document) {
        Ok(regarding) => regarding,
        Err(error) => {
            let text = localized(&error);
            return view! { <section class="panel events" aria-label=live_text(Msg::EventsTitle)><p role="status">{text}</p></section> }
                .into_any();
        }
    };
    let events = events.unwrap_or_else(|| use_object_events(&use_discovery(), &regarding));
    let owner = Regarding::controller_of(&document);
    let show_owner = RwSignal::new(false);
    let owner_part = owner.map(|owner| {
        let label = format!("{} {}", owner.kind, owner.name);
        let (toggle_label, title_label) = (label.clone(), label.clone());
        view! {
            <label class="events__owner-toggle">
                <input
                    type="checkbox"
                    data-testid="events-show-owner"
                    prop:checked=move || show_owner.get()
                    on:change=move |ev| show_owner.set(event_target_checked(&ev))
                />
                {worded(move || filled_text(Msg::EventsShowOwner, &[("owner", &toggle_label)]))}
            </label>
            <Show when=move || show_owner.get()>
                <OwnerEvents
                    regarding=owner.clone()
                    title=Signal::derive({
                        let title_label = title_label.clone();
                        move || filled_text(Msg::EventsOfOwner, &[("owner", &title_label)])
                    })
                />
            </Show>
        }
    });
    view! {
        <section class="panel events" aria-label=live_text(Msg::EventsTitle)>
            <EventsTable events title=Signal::derive(live_text(Msg::EventsTitle)) testid="object-events" />
            {owner_part}
        </section>
    }
    .into_any()
}

/// The controller's Events, watched while they are shown.
#[component]
fn OwnerEvents(
    /// The controller.
    regarding: Regarding,
    /// The heading (in the current language).
    title: Signal<String>,
) -> impl IntoView {
    let events = use_object_events(&use_discovery(), &regarding);
    view! { <EventsTable events title testid="owner-events" /> }
}

/// One object's live Events as a table under a heading.
#[component]
fn EventsTable(
    /// Whose Events, as they are watched.
    events: UseObjectEvents,
    /// The heading (in the current language).
    title: Signal<String>,
    /// The table's test id.
    testid: &'static str,
) -> impl IntoView {
    let source = events.source.get_value();
    let summary = source.clone().map(|(api, _)| {
        let api = match api {
            EventsApi::EventsV1 => "events.k8s.io/v1",
            EventsApi::CoreV1 => "v1",
        };
        let forms = [Msg::EventsCountOne, Msg::EventsCountFew, Msg::EventsCountMany, Msg::EventsCountOther];
        worded(move || {
            filled_text(
                Msg::EventsWatched,
                &[("events", &intl::plural(events.rows.with(Vec::len), forms)), ("api", &api)],
            )
        })
    });
    let resource = source.map(|(_, resource)| resource);
    view! {
        <h3>{move || title.get()}</h3>
        <p class="events__state" role="status">
            {summary}
            " "
            {move || events.problem.get().map(|p| localized(&p))}
        </p>
        <table class="causes events__table" data-testid=testid>
            <thead>
                <tr>
                    <th>{live_text(Msg::EventsType)}</th>
                    <th>{live_text(Msg::EventsReason)}</th>
                    <th>{live_text(Msg::EventsAge)}</th>
                    <th>{live_text(Msg::EventsCount)}</th>
                    <th>{live_text(Msg::EventsFrom)}</th>
                    <th>{live_text(Msg::EventsMessage)}</th>
                </tr>
            </thead>
            <tbody>
                <For
                    each=move || events.rows.get()
                    key=|row| (row.name.clone(), row.count, row.last_seen.clone())
                    children=move |row| view! { <EventLine row resource=resource.clone() /> }
                />
            </tbody>
        </table>
        <Show when=move || events.synced.get() && events.rows.with(Vec::is_empty)>
            <p class="events__none">{live_text(Msg::EventsNone)}</p>
        </Show>
    }
}

/// One Event as a row; its reason links to the Event.
#[component]
fn EventLine(
    /// The Event.
    row: EventRow,
    /// The Event type watched, for the link.
    resource: Option<ResourceType>,
) -> impl IntoView {
    let (type_text, warning) = match &row.event_type {
        EventType::Normal => ("Normal".to_owned(), false),
        EventType::Warning => ("Warning".to_owned(), true),
        EventType::Other(other) => (other.clone(), false),
    };
    let age = row.age(js_sys::Date::now() as i64).unwrap_or_default();
    let reason = match resource {
        Some(resource) => {
            let change = link_to(&resource, row.name.clone(), row.namespace.clone());
            view! { <ViewLink change testid="event-link">{row.reason.clone()}</ViewLink> }.into_any()
        }
        None => row.reason.clone().into_any(),
    };
    view! {
        <tr data-warning=warning.then_some("true")>
            <td>{type_text}</td>
            <td>{reason}</td>
            <td title=row.last_seen.clone()>{age}</td>
            <td>{row.count}</td>
            <td>{row.reporter.clone()}</td>
            <td>{row.message.clone()}</td>
        </tr>
    }
}

/// Moves the view to the Event `name` of `resource` in `namespace`.
pub(crate) fn link_to(
    resource: &ResourceType,
    name: String,
    namespace: Option<String>,
) -> Arc<dyn Fn(&mut ViewState) + Send + Sync> {
    let key = ResourceKey {
        group: resource.group.clone(),
        version: resource.version.clone(),
        plural: resource.plural.clone(),
    };
    let namespaced = resource.is_namespaced();
    Arc::new(move |target: &mut ViewState| {
        target.resource = Some(key.clone());
        target.name = Some(name.clone());
        target.watch = None;
        if namespaced {
            target.namespace = namespace.clone();
        }
    })
}
