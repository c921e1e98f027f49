//! `use_relations`: an object's owners and dependents. It sends the lists
//! [`model::relations::plan`](crate::model::relations::plan) chose (one per dependent kind, never
//! one per object), builds the tree from their items with
//! [`model::relations::tree`](crate::model::relations::tree), and reads them again on
//! [`UseRelations::refresh`]. Its requests end with the calling component.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::Discovery;
use crate::client::handle::use_client;
use crate::i18n::{Localized, Text};
use crate::model::relations::{items, plan, tree, Node, Related};

/// What [`use_relations`] gives the view.
#[derive(Clone, Copy)]
pub struct UseRelations {
    /// The owners named by `ownerReferences`, the controller first.
    pub owners: StoredValue<Vec<Related>>,
    /// What the object names in its spec ([`crate::model::references`]): read from it, no request.
    pub uses: StoredValue<Vec<Related>>,
    /// The dependents' tree; `None` until the lists have been read.
    pub tree: RwSignal<Option<Vec<Node>>>,
    /// Whether this kind has dependents to look for at all.
    pub looks_down: StoredValue<bool>,
    /// Why the dependents cannot be shown.
    pub problem: RwSignal<Option<Text>>,
    /// Reads the lists again.
    pub refresh: Callback<()>,
}

/// The relations of the object `document` describes, for the current owner.
pub fn use_relations(discovery: &Discovery, document: &Value) -> UseRelations {
    let tree_signal = RwSignal::new(None);
    let problem = RwSignal::new(None);
    let (owners, lists, uid) = match plan(discovery, document) {
        Ok(plan) => (plan.owners, plan.lists, plan.uid),
        Err(error) => {
            problem.set(Some(error.text()));
            (crate::model::relations::owners(document), Vec::new(), String::new())
        }
    };
    let looks_down = StoredValue::new(!lists.is_empty() || problem.with_untracked(Option::is_some));
    let client = use_client();
    let read = move || {
        let (client, lists, uid) = (client.clone(), lists.clone(), uid.clone());
        if lists.is_empty() {
            return;
        }
        client.clone().tasks().spawn(async move {
            let mut read = Vec::with_capacity(lists.len());
            for list in &lists {
                let outcome = match client.document(list.request.clone()).await {
                    Ok((_, document)) => items(&document, list.kind).map_err(|e| e.text()),
                    Err(error) => Err(error.text()),
                };
                match outcome {
                    Ok(values) => read.push(values),
                    Err(text) => {
                        problem.set(Some(text));
                        return;
                    }
                }
            }
            problem.set(None);
            tree_signal.set(Some(tree(&uid, &read)));
        });
    };
    read();
    UseRelations {
        owners: StoredValue::new(owners),
        uses: StoredValue::new(crate::model::references::references(document)),
        tree: tree_signal,
        looks_down,
        problem,
        refresh: Callback::new(move |()| read()),
    }
}
