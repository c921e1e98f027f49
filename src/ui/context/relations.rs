//! The Relations panel of an object's screen (#36 item 2): its owners up, what it names in its
//! spec (its node, ConfigMaps, Secrets, claims…), and its dependents down as a tree, each a link
//! to its object with its status word. It renders what `use_relations`
//! hands it.

use std::sync::Arc;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::client::relations::use_relations;
use crate::i18n::Msg;
use crate::model::relations::{Node, Related, Status};
use crate::model::view_state::{ResourceKey, ViewState};
use crate::ui::discovered::use_discovery;
use crate::ui::i18n::{filled_text, live_text, localized, worded};
use crate::ui::location::ViewLink;

/// The owners and dependents of the object `document` describes.
#[component]
pub fn Relations(
    /// The object, as read.
    document: Value,
) -> impl IntoView {
    let discovery = use_discovery();
    let relations = use_relations(&discovery, &document);
    let owners = relations.owners.get_value();
    let has_owners = !owners.is_empty();
    let owner_links = owners
        .into_iter()
        .map(|owner| view! { <li><RelatedLink object=owner status=Status::Unknown /></li> })
        .collect_view();
    let has_uses = relations.uses.with_value(|uses| !uses.is_empty());
    // Drawn again once the statuses are read (and on Read again), not more often.
    let use_links = move || {
        let statuses = relations.uses_status.get();
        relations
            .uses
            .get_value()
            .into_iter()
            .zip(statuses)
            .map(|(object, status)| view! { <li><RelatedLink object status /></li> })
            .collect_view()
    };
    let looks_down = relations.looks_down.get_value();
    // What it owns in any type: the Search screen, by owner, where the object lives (a
    // cluster-scoped owner's dependents may be anywhere).
    let everywhere = document.at(&["metadata", "uid"]).and_then(Value::as_str).filter(|u| !u.is_empty()).map(|uid| {
        let (uid, namespace) = (uid.to_owned(), document.at(&["metadata", "namespace"]).and_then(Value::as_str).map(str::to_owned));
        let change: Arc<dyn Fn(&mut ViewState) + Send + Sync> = Arc::new(move |target: &mut ViewState| {
            target.resource = None;
            target.name = None;
            target.watch = None;
            target.access = false;
            target.search = Some(String::new());
            target.search_labels.clear();
            target.search_owner = uid.clone();
            target.namespace = namespace.clone();
        });
        view! { <p><ViewLink change testid="relations-everywhere">{live_text(Msg::RelationsLookEverywhere)}</ViewLink></p> }
    });
    let down = looks_down.then(|| {
        view! {
            <h4>{live_text(Msg::RelationsDependents)}</h4>
            <p role="status" class="relations__state">
                {move || relations.problem.get().map(|p| localized(&p))}
                {move || relations.tree.with(Option::is_none).then(|| live_text(Msg::RelationsReading))}
                {move || relations.tree.with(|tree| matches!(tree, Some(t) if t.is_empty())).then(|| live_text(Msg::RelationsNone))}
            </p>
            <div data-testid="relations-dependents">{move || relations.tree.get().map(|nodes| view! { <Tree nodes /> })}</div>
        }
    });
    view! {
        <section class="panel relations" aria-label=live_text(Msg::RelationsTitle) data-testid="relations">
            <h3>{live_text(Msg::RelationsTitle)}</h3>
            <Show when=move || has_owners>
                <h4>{live_text(Msg::RelationsOwners)}</h4>
            </Show>
            <ul class="relations__owners" data-testid="relations-owners">{owner_links}</ul>
            <Show when=move || has_uses>
                <h4>{live_text(Msg::RelationsUses)}</h4>
            </Show>
            <ul class="relations__owners" data-testid="relations-uses">{use_links}</ul>
            {down}
            {everywhere}
            <Show when=move || looks_down || has_uses>
                <button type="button" class="button button--quiet" data-testid="relations-refresh" on:click=move |_| relations.refresh.run(())>
                    {live_text(Msg::RelationsRefresh)}
                </button>
            </Show>
        </section>
    }
}

/// How many objects of one level are drawn; the rest are counted (a Deployment of 10,000 pods
/// stays a tree one can read).
const DRAWN: usize = 50;

/// One level of the tree, and the levels under it.
#[component]
pub(crate) fn Tree(nodes: Vec<Node>) -> AnyView {
    let more = nodes.len().saturating_sub(DRAWN);
    view! {
        <ul class="relations__tree">
            {nodes
                .into_iter()
                .take(DRAWN)
                .map(|node| {
                    let children = (!node.children.is_empty()).then(|| view! { <Tree nodes=node.children /> });
                    view! { <li><RelatedLink object=node.object status=node.status />{children}</li> }
                })
                .collect_view()}
            {(more > 0).then(|| {
                let count = more.to_string();
                view! { <li class="relations__more" data-testid="relations-more">{worded(move || filled_text(Msg::RelationsMore, &[("count", &count)]))}</li> }
            })}
        </ul>
    }
    .into_any()
}

/// A link to a related object, `Kind name`, with its status word after it (or that the server
/// does not have it).
#[component]
fn RelatedLink(object: Related, status: Status) -> impl IntoView {
    let discovery = use_discovery();
    let label = format!("{} {}", object.kind, object.name);
    let status = match status {
        Status::Word(word) => word.into_any(),
        Status::Ready { ready, desired } => format!("{ready}/{desired}").into_any(),
        Status::Unknown => ().into_any(),
        Status::Missing => {
            view! { <span class="relations__missing">{live_text(Msg::RelationsMissing)}</span> }.into_any()
        }
    };
    let link = discovery.find_kind(&object.api_version, &object.kind).map(|resource| {
        let key = ResourceKey {
            group: resource.group.clone(),
            version: resource.version.clone(),
            plural: resource.plural.clone(),
        };
        let (name, namespace, namespaced) = (object.name.clone(), object.namespace.clone(), resource.is_namespaced());
        let change: Arc<dyn Fn(&mut ViewState) + Send + Sync> = Arc::new(move |target: &mut ViewState| {
            target.resource = Some(key.clone());
            target.name = Some(name.clone());
            target.watch = None;
            if namespaced {
                target.namespace = namespace.clone();
            }
        });
        change
    });
    let text = label.clone();
    view! {
        {match link {
            Some(change) => view! { <ViewLink change testid="relation-link">{text}</ViewLink> }.into_any(),
            None => text.into_any(),
        }}
        " "
        <span class="relations__status">{status}</span>
    }
}
