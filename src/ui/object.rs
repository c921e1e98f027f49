//! One object: its metadata summary (labels, annotations, owners, finalizers, deletion, versions),
//! status conditions, subresources, and the document in the representation the user picked.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::{Discovery, ResourceType};
use crate::client::fetched::Fetched;
use crate::client::field_owners::use_field_owners;
use crate::client::handle::use_client;
use crate::client::metrics::{use_metrics_history, use_namespace_metrics};
use crate::client::object_events::use_object_events;
use crate::i18n::Msg;
use crate::model::log_follow::LogSource;
use crate::model::messages::Selected;
use crate::model::metrics::Measured;
use crate::model::object_events::Regarding;
use crate::model::page::{Page, PageBody};
use crate::model::protobuf::ProtobufBody;
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::context::picture::NamespacePicture;
use crate::ui::context::time_axis::{AxisLinks, TimeAxis};
use crate::ui::discovered::use_discovery;
use crate::ui::document::DocumentView;
use crate::ui::explain_link::ExplainLink;
use crate::ui::glance::Glance;
use crate::ui::host::Host;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::intl;
use crate::ui::lazy::ObjectActionsOnDemand;
use crate::ui::location::{use_navigation, ViewLink};
use crate::ui::metrics_chart::MetricsCharts;
use crate::ui::metrics_overview::NamespaceMetrics;
use crate::ui::protobuf::ProtobufOnDemand;
use crate::ui::response_info::ResponseInfo;
use crate::ui::status_view::StatusView;
use crate::ui::subresource::SubresourcePanel;

/// The newest version of `shown` the screen's watch has seen (the same object: the same uid),
/// else `shown` as read.
fn live(owners: crate::client::field_owners::UseFieldOwners, shown: Value) -> Signal<Value> {
    let uid = shown.at(&["metadata", "uid"]).cloned();
    Signal::derive(move || {
        owners
            .newest()
            .filter(|newest| newest.at(&["metadata", "uid"]) == uid.as_ref())
            .map(|newest| (*newest).clone())
            .unwrap_or_else(|| shown.clone())
    })
}

/// The object named in the view state.
#[component]
pub fn ObjectView(
    /// The object's resource type.
    resource: ResourceType,
    /// The object's name.
    name: String,
) -> impl IntoView {
    let navigation = use_navigation();
    let client = use_client();
    let fetch_resource = resource.clone();
    let fetch_name = name.clone();
    let loaded = LocalResource::new(move || {
        let state = navigation.state.get();
        let (client, resource, name) = (client.clone(), fetch_resource.clone(), fetch_name.clone());
        async move {
            let object = state.object_target(&resource, &name).map_err(|e| localized(&e))?;
            let plan = state.object_plan(&object);
            let fetched = client.send(plan.request).await.map_err(|e| localized(&e))?;
            let page = match fetched.decoded() {
                Ok(decoded) => Page::from_decoded(decoded, plan.shape, 0),
                Err(message) => return Err(localized(message)),
            };
            Ok::<(Arc<Fetched>, Page), String>((fetched, page))
        }
    });
    let panel_resource = resource.clone();
    let panel_name = name.clone();
    let kind = crate::model::explain::kind_of(&resource);
    // The host page hears which object the user opened.
    let host = use_context::<Host>();
    let key = ResourceKey {
        group: resource.group.clone(),
        version: resource.version.clone(),
        plural: resource.plural.clone(),
    };
    let selected_name = name.clone();
    if let Some(host) = host {
        on_cleanup(move || host.forget_selection());
    }
    let (actions_resource, actions_name) = (resource.clone(), name.clone());
    // `l` on a row opens its pod at the log. Taken here, once: the panel below is built again
    // whenever the object is read again.
    let open_log = crate::ui::keys::Intents::take(crate::ui::keys::Intent::Log);
    // The object's watch (its field managers, and whether the version shown is still the
    // newest), held here so that reading the object again keeps what it saw.
    let owners = {
        let namespace = navigation.state.with_untracked(|s| resource.scoped(s.namespace.as_deref()).map(str::to_owned));
        use_field_owners(&resource, namespace.as_deref(), &name, None)
    };
    let owners_open = RwSignal::new(false);
    // The time axis's log lines open the log of the subresource panel.
    let log_asked = RwSignal::new(0u32);
    // A pod's or a node's CPU and memory, read every window since the screen opened (held here:
    // reading the object again keeps the history).
    let metrics = Measured::of(&resource).zip(use_context::<Arc<Discovery>>()).map(|(measured, discovery)| {
        let namespace = navigation.state.with_untracked(|s| resource.scoped(s.namespace.as_deref()).map(str::to_owned));
        use_metrics_history(&discovery, measured, namespace.as_deref(), &name)
    });
    // A namespace's pods' CPU and memory, summed, likewise kept since the screen opened.
    let namespace_metrics = (resource.group.is_empty() && resource.plural == "namespaces")
        .then(use_context::<Arc<Discovery>>)
        .flatten()
        .map(|discovery| use_namespace_metrics(&discovery, &name));
    let overview_namespace = name.clone();
    view! {
        <section class="object" aria-label=format!("{} {}", resource.kind, name)>
            <header class="collection__header">
                <button
                    class="button button--quiet"
                    on:click=move |_| navigation.update(|s| s.name = None)
                >
                    <span class="back-arrow">"←"</span>
                    {format!(" {}", resource.plural)}
                </button>
                <h2 data-testid="object-title">{format!("{} {}", resource.kind, name)}</h2>
                <ExplainLink />
                <ObjectActionsOnDemand resource=actions_resource name=actions_name on_written=Callback::new(move |_| loaded.refetch()) />
            </header>
            <Transition fallback=|| view! { <p class="loading" aria-busy="true">{live_text(Msg::Loading)}</p> }>
                {move || {
                    let (panel_resource, panel_name) = (panel_resource.clone(), panel_name.clone());
                    let overview_namespace = overview_namespace.clone();
                    let (key, selected_name, kind) = (key.clone(), selected_name.clone(), kind.clone());
                    Suspend::new(async move {
                    match loaded.await {
                        Err(message) => {
                            view! {
                                <section class="status-error" role="alert">
                                    <p>{message}</p>
                                </section>
                            }
                                .into_any()
                        }
                        Ok((fetched, page)) => {
                            let raw = fetched.response.body.clone();
                            let binary = fetched.content_type.as_ref().is_some_and(|t| t.essence.as_str() != "application/json");
                            let cbor = fetched.content_type.as_ref().is_some_and(|t| t.essence.as_str() == "application/cbor");
                            let info = view! { <ResponseInfo fetched page=page.clone() /> };
                            let body = match page.body {
                                PageBody::Status(status) => view! { <StatusView status=*status /> }.into_any(),
                                PageBody::Document(document) => {
                                    let namespace = document
                                        .at(&["metadata", "namespace"])
                                        .and_then(Value::as_str)
                                        .map(str::to_owned);
                                    if let Some(host) = host {
                                        host.select(Selected::of(&key, &document, &selected_name));
                                    }
                                    // The object's Events, watched once for its Events panel and its time axis.
                                    let object_events = Regarding::of(&document)
                                        .ok()
                                        .map(|regarding| use_object_events(&use_discovery(), &regarding));
                                    let pod_log = (panel_resource.group.is_empty() && panel_resource.plural == "pods").then(|| {
                                        LogSource::of_pod(panel_resource.clone(), namespace.clone(), panel_name.clone(), &document)
                                    });
                                    let links = AxisLinks { owners_open, log_asked };
                                    let picture = (panel_resource.group.is_empty() && panel_resource.plural == "namespaces")
                                        .then(|| view! { <NamespacePicture namespace=panel_name.clone() /> });
                                    view! {
                                        <crate::ui::context::owners::Freshness
                                            owners
                                            shown=document.clone()
                                            on_read=Callback::new(move |_| loaded.refetch())
                                        />
                                        <MetadataSummary document=document.clone() />
                                        <Glance group=panel_resource.group.clone() kind=panel_resource.kind.clone() document=live(owners, document.clone()) />
                                        <Conditions document=document.clone() />
                                        <crate::ui::context::events::ObjectEvents document=document.clone() events=object_events />
                                        <crate::ui::context::relations::Relations document=document.clone() />
                                        {picture}
                                        {metrics.map(|metrics| view! { <MetricsCharts metrics /> })}
                                        {namespace_metrics.map(|metrics| view! { <NamespaceMetrics metrics namespace=overview_namespace.clone() /> })}
                                        <crate::ui::context::owners::FieldOwners owners open=owners_open />
                                        <TimeAxis events=object_events owners log=pod_log links />
                                        <SubresourcePanel
                                            resource=panel_resource.clone()
                                            namespace
                                            name=panel_name.clone()
                                            document=document.clone()
                                            open_log
                                            log_asked
                                        />
                                        <DocumentView document raw=binary.then_some(raw) cbor kind=kind.clone() />
                                    }
                                        .into_any()
                                }
                                PageBody::Envelope(envelope) => {
                                    let body = ProtobufBody::Envelope { envelope, raw: Some(raw) };
                                    view! { <ProtobufOnDemand body /> }.into_any()
                                }
                                PageBody::Grid(_) | PageBody::List(_) => view! { <p>{live_text(Msg::ListInsteadOfObject)}</p> }.into_any(),
                            };
                            view! {
                                {info}
                                {body}
                            }
                                .into_any()
                        }
                    }
                })}}
            </Transition>
        </section>
    }
}

/// Labels, annotations, owners, finalizers, deletion and versions of an object.
#[component]
fn MetadataSummary(document: Value) -> impl IntoView {
    let meta = document.get("metadata").cloned().unwrap_or(Value::Null);
    let text = |key: &str| meta.get(key).and_then(Value::as_str).map(str::to_owned);
    let pairs = |key: &str| -> Vec<(String, String)> {
        meta.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.to_owned(), v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_json())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let labels = pairs("labels");
    let annotations = pairs("annotations");
    let finalizers: Vec<String> = meta
        .get("finalizers")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect();
    let discovery = use_discovery();
    let owners = meta
        .get("ownerReferences")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .map(|o| {
            let field = |key: &str| o.get(key).and_then(Value::as_str).unwrap_or("?").to_owned();
            let (kind, owner, api_version) = (field("kind"), field("name"), field("apiVersion"));
            let controller = if o.get("controller").and_then(Value::as_bool) == Some(true) {
                text_now(Msg::Controller)
            } else {
                String::new()
            };
            let label = format!("{kind} {owner}{controller}");
            view! { <li>{object_link(&discovery, &api_version, &kind, owner, None, label, "owner-link")}</li> }
        })
        .collect_view();
    // An Event's object (`involvedObject` in core/v1, `regarding` in events.k8s.io/v1).
    let involved = document.get("involvedObject").or_else(|| document.get("regarding")).and_then(|o| {
        let field = |key: &str| o.get(key).and_then(Value::as_str).map(str::to_owned);
        let (kind, name) = (field("kind")?, field("name")?);
        let api_version = field("apiVersion").unwrap_or_else(|| "v1".to_owned());
        let namespace = field("namespace").filter(|n| !n.is_empty());
        let label = match &namespace {
            Some(namespace) => format!("{kind} {namespace}/{name}"),
            None => format!("{kind} {name}"),
        };
        Some(object_link(&discovery, &api_version, &kind, name, Some(namespace), label, "involved-object-link"))
    });
    let generation = meta.get("generation").and_then(Value::as_i64);
    let chips = |items: Vec<(String, String)>| {
        items.into_iter().map(|(k, v)| view! { <li class="chip">{format!("{k}={v}")}</li> }).collect_view()
    };
    view! {
        <section class="panel" aria-label=live_text(Msg::Metadata)>
            <dl class="facts" data-testid="metadata-summary">
                <dt>{live_text(Msg::Namespace)}</dt>
                <dd>
                    {match text("namespace") {
                        Some(namespace) => namespace.into_any(),
                        None => live_text(Msg::ClusterScopedObject).into_any(),
                    }}
                </dd>
                <dt>"uid"</dt>
                <dd>
                    <code>{text("uid")}</code>
                </dd>
                <dt>"resourceVersion"</dt>
                <dd>
                    <code data-testid="object-rv">{text("resourceVersion")}</code>
                </dd>
                <dt>"generation"</dt>
                <dd>{generation.map(|g| g.to_string())}</dd>
                <dt>{live_text(Msg::Created)}</dt>
                <dd>
                    {text("creationTimestamp")
                        .map(|stamp| {
                            let parsed = js_sys::Date::parse(&stamp);
                            let shown = move || if parsed.is_nan() { stamp.clone() } else { intl::date_time(parsed) };
                            view! {
                                <time datetime=text("creationTimestamp") data-testid="created">
                                    {shown}
                                </time>
                            }
                        })}
                </dd>
                {text("deletionTimestamp")
                    .map(|stamp| {
                        view! {
                            <dt>{live_text(Msg::BeingDeleted)}</dt>
                            <dd class="warning">
                                {
                                    let count = finalizers.len();
                                    worded(move || filled_text(Msg::BeingDeletedSince, &[("time", &stamp), ("count", &count)]))
                                }
                            </dd>
                        }
                    })}
                <dt>{live_text(Msg::Labels)}</dt>
                <dd>
                    <ul class="chips" data-testid="labels">{chips(labels)}</ul>
                </dd>
                <dt>{live_text(Msg::Annotations)}</dt>
                <dd>
                    <ul class="chips">{chips(annotations)}</ul>
                </dd>
                <dt>{live_text(Msg::Owners)}</dt>
                <dd>
                    <ul class="owners">{owners}</ul>
                </dd>
                {involved
                    .map(|link| {
                        view! {
                            <dt>{live_text(Msg::InvolvedObject)}</dt>
                            <dd>{link}</dd>
                        }
                    })}
                <dt>{live_text(Msg::Finalizers)}</dt>
                <dd>{finalizers.join(", ")}</dd>
            </dl>
        </section>
    }
}

/// A link to the object `name` of `kind` in `api_version` (in `namespace` when given: `Some(None)`
/// is cluster-scoped; `None` keeps the view's), or its label and why not when discovery does not
/// know the kind.
fn object_link(
    discovery: &Discovery,
    api_version: &str,
    kind: &str,
    name: String,
    namespace: Option<Option<String>>,
    label: String,
    testid: &'static str,
) -> AnyView {
    let Some(target_type) = discovery.find_kind(api_version, kind) else {
        let api_version = api_version.to_owned();
        return (worded(move || filled_text(Msg::NotInDiscovery, &[("label", &label), ("api_version", &api_version)])))
            .into_any();
    };
    let key = ResourceKey {
        group: target_type.group.clone(),
        version: target_type.version.clone(),
        plural: target_type.plural.clone(),
    };
    let cluster_scoped = !target_type.is_namespaced();
    let change = Arc::new(move |target: &mut ViewState| {
        target.resource = Some(key.clone());
        target.name = Some(name.clone());
        target.watch = None;
        if cluster_scoped {
            target.namespace = None;
        } else if let Some(namespace) = &namespace {
            target.namespace = namespace.clone();
        }
    });
    view! {
        <ViewLink change testid>
            {label}
        </ViewLink>
    }
    .into_any()
}

/// `status.conditions` as a table.
#[component]
fn Conditions(document: Value) -> impl IntoView {
    let conditions: Vec<Value> =
        document.at(&["status", "conditions"]).and_then(Value::as_array).unwrap_or_default().to_vec();
    (!conditions.is_empty()).then(|| {
        let field = |c: &Value, key: &str| c.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        view! {
            <section class="panel" aria-label=live_text(Msg::Conditions)>
                <table class="causes" data-testid="conditions">
                    <thead>
                        <tr>
                            <th>{live_text(Msg::ConditionType)}</th>
                            <th>{live_text(Msg::StatusLabel)}</th>
                            <th>{live_text(Msg::Reason)}</th>
                            <th>{live_text(Msg::Message)}</th>
                            <th>{live_text(Msg::LastTransition)}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {conditions
                            .iter()
                            .map(|c| {
                                view! {
                                    <tr>
                                        <td>{field(c, "type")}</td>
                                        <td>{field(c, "status")}</td>
                                        <td>{field(c, "reason")}</td>
                                        <td>{field(c, "message")}</td>
                                        <td>{field(c, "lastTransitionTime")}</td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </section>
        }
    })
}
