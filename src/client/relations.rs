//! `use_relations`: an object's owners and dependents. It sends the lists
//! [`model::relations::plan`](crate::model::relations::plan) chose (one per dependent kind, never
//! one per object; a Service's EndpointSlices and the pods it selects), builds the tree from their items with
//! [`model::relations::tree`](crate::model::relations::tree); it reads how each object the spec
//! names is with the lists [`model::references::status_lists`](crate::model::references::status_lists)
//! chose (one per type and namespace); and it reads them all again every
//! [`READ_AGAIN_MS`](crate::model::relations::READ_AGAIN_MS) and on [`UseRelations::refresh`].
//! Its requests end with the calling component.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::Discovery;
use crate::api::request::Request;
use crate::client::handle::{use_client, Client};
use crate::i18n::{Localized, Text};
use crate::model::references::{references, status_lists, statuses};
use crate::model::relations::{items, plan, read_list, tree, Node, Related, Shape, Status, READ_AGAIN_MS};

/// What [`use_relations`] gives the view.
#[derive(Clone, Copy)]
pub struct UseRelations {
    /// The owners named by `ownerReferences`, the controller first.
    pub owners: StoredValue<Vec<Related>>,
    /// What the object names in its spec ([`crate::model::references`]): read from it, no request.
    pub uses: StoredValue<Vec<Related>>,
    /// How each of `uses` is, in its order (all unknown until read).
    pub uses_status: RwSignal<Vec<Status>>,
    /// The dependents' tree; `None` until the lists have been read.
    pub tree: RwSignal<Option<Vec<Node>>>,
    /// Whether this kind has dependents to look for at all.
    pub looks_down: StoredValue<bool>,
    /// Why the dependents cannot be shown.
    pub problem: RwSignal<Option<Text>>,
    /// Reads the lists again.
    pub refresh: Callback<()>,
}

/// The objects of the list `request` asks for, items of `kind` (a Table's rows read as such), or
/// why not in words. Shared with `use_picture`.
pub(crate) async fn objects(client: &Client, request: &Request, kind: &str) -> Result<Vec<Value>, Text> {
    match client.document(request.clone()).await {
        Ok((_, body)) => read_list(kind, &body).map_err(|e| e.text()),
        Err(error) => Err(error.text()),
    }
}

/// The relations of the object `document` describes, for the current owner.
pub fn use_relations(discovery: &Discovery, document: &Value) -> UseRelations {
    let tree_signal = RwSignal::new(None);
    let problem = RwSignal::new(None);
    let (owners, lists, uid, shape) = match plan(discovery, document) {
        Ok(plan) => (plan.owners, plan.lists, plan.uid, plan.shape),
        Err(error) => {
            problem.set(Some(error.text()));
            (crate::model::relations::owners(document), Vec::new(), String::new(), Shape::Owned)
        }
    };
    let looks_down = StoredValue::new(!lists.is_empty() || problem.with_untracked(Option::is_some));
    let uses = references(document);
    let uses_status = RwSignal::new(vec![Status::Unknown; uses.len()]);
    let used_lists = status_lists(discovery, &uses);
    let client = use_client();
    let read_uses = {
        let (client, uses) = (client.clone(), uses.clone());
        move || {
            let (client, uses, used_lists) = (client.clone(), uses.clone(), used_lists.clone());
            if used_lists.is_empty() {
                return;
            }
            client.clone().tasks().spawn(async move {
                let mut read = Vec::with_capacity(used_lists.len());
                for list in &used_lists {
                    // A list that cannot be read (not allowed, say) leaves its objects unknown.
                    let held =
                        client.document(list.request.clone()).await.ok().and_then(|(_, d)| items(&d, &list.kind).ok());
                    read.push(held);
                }
                let now = statuses(&uses, &used_lists, &read);
                // Drawn again only when something changed.
                if uses_status.with_untracked(|was| *was != now) {
                    uses_status.set(now);
                }
            });
        }
    };
    let read = move || {
        read_uses();
        let (client, lists, uid) = (client.clone(), lists.clone(), uid.clone());
        if lists.is_empty() {
            return;
        }
        client.clone().tasks().spawn(async move {
            let mut read = Vec::with_capacity(lists.len());
            for list in &lists {
                match objects(&client, &list.request, list.kind).await {
                    Ok(values) => read.push(values),
                    Err(text) => {
                        problem.set(Some(text));
                        return;
                    }
                }
            }
            if problem.with_untracked(Option::is_some) {
                problem.set(None);
            }
            let now = Some(tree(shape, &uid, &read));
            if tree_signal.with_untracked(|was| *was != now) {
                tree_signal.set(now);
            }
        });
    };
    read();
    // Read again every READ_AGAIN_MS while the screen is open, so that the status words follow.
    use_client().tasks().every(Duration::from_millis(READ_AGAIN_MS), read.clone());
    UseRelations {
        owners: StoredValue::new(owners),
        uses: StoredValue::new(uses),
        uses_status,
        tree: tree_signal,
        looks_down,
        problem,
        refresh: Callback::new(move |()| read()),
    }
}
