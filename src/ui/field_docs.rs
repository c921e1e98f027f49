//! A field's docs in place: its path, type in kubectl explain's words (and format:
//! `int-or-string`, `date-time`), required mark, default, enum and the first paragraph of its
//! description, with a link to the schema explorer at that field. Shown by the object view when a
//! key is hovered or focused (this file is in the on-demand part `field_docs`, see `ui::lazy`),
//! and by the editor for the field at the cursor and under the pointer.
//!
//! The kind's schema comes through the `/openapi/v3` cache (`client::schemas`); the tree built
//! from it is kept for [`TREE_TTL_MS`], so that hovering field after field asks for nothing.
//! Where the schema has nothing to say (no `/openapi/v3`, a kind without a schema, a field below
//! preserved unknown fields, a field the schema lacks) the card says so in words.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use kube_core::GroupVersionKind;
use leptos::prelude::*;

use crate::api::explain::{Located, NotInSchema, SchemaTree, Step};
use crate::api::write::diff::pointer_segments;
use crate::client::handle::{use_client, Client};
use crate::client::schemas::{load_indexed_schemas, SchemaError};
use crate::i18n::Msg;
use crate::model::completion::{first_paragraph, NoCandidates};
use crate::model::highlight::yaml_line_pointers;
use crate::model::view_state::ViewState;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::location::ViewLink;

/// How long a built tree is used before the `/openapi/v3` index is asked again.
const TREE_TTL_MS: f64 = 30_000.0;

/// A loaded kind's tree, or why there is none.
pub type TreeResult = Result<Arc<SchemaTree>, SchemaError>;

thread_local! {
    /// Trees by kind, with when they were built.
    static TREES: RefCell<HashMap<GroupVersionKind, (f64, Arc<SchemaTree>)>> = RefCell::new(HashMap::new());
}

/// The tree of `kind`, from the `/openapi/v3` document of its group version.
pub async fn load_tree(client: &Client, kind: &GroupVersionKind) -> TreeResult {
    let now = js_sys::Date::now();
    if let Some(tree) =
        TREES.with(|t| t.borrow().get(kind).filter(|(at, _)| now - at < TREE_TTL_MS).map(|(_, tree)| tree.clone()))
    {
        return Ok(tree);
    }
    let indexed = load_indexed_schemas(client, &kind.group, &kind.version).await?;
    let tree =
        Arc::new(SchemaTree::build(&indexed.schemas, kind).map_err(|error| SchemaError::Tree { url: None, error })?);
    TREES.with(|t| t.borrow_mut().insert(kind.clone(), (now, tree.clone())));
    Ok(tree)
}

/// The tree of a kind, kept in the built-tree cache, when the schema is already loaded (the
/// editor's validation reads the same document).
pub fn tree_of(schemas: &crate::api::schema::OpenApiSchemas, kind: &GroupVersionKind) -> TreeResult {
    let now = js_sys::Date::now();
    if let Some(tree) =
        TREES.with(|t| t.borrow().get(kind).filter(|(at, _)| now - at < TREE_TTL_MS).map(|(_, tree)| tree.clone()))
    {
        return Ok(tree);
    }
    let tree = Arc::new(SchemaTree::build(schemas, kind).map_err(|error| SchemaError::Tree { url: None, error })?);
    TREES.with(|t| t.borrow_mut().insert(kind.clone(), (now, tree.clone())));
    Ok(tree)
}

/// The docs of the field on 0-based `line` of the document `text` (YAML or JSON) of `kind`:
/// the object view's popover content.
#[component]
pub fn FieldDocsAtLine(text: Arc<String>, line: usize, kind: GroupVersionKind) -> impl IntoView {
    let client = use_client();
    let tree = RwSignal::new(None::<TreeResult>);
    client.tasks().spawn(async move {
        let loaded = load_tree(&client, &kind).await;
        tree.try_set(Some(loaded));
    });
    let segments = yaml_line_pointers(&text).into_iter().nth(line).flatten().map(|p| pointer_segments(&p));
    move || match (tree.get(), segments.clone()) {
        (None, _) => {
            view! { <p class="muted field-docs__state" role="status">{live_text(Msg::FieldDocsLoading)}</p> }.into_any()
        }
        (Some(Err(error)), _) => view! {
            <p class="field-docs__state" role="status" data-testid="field-docs-none">
                {worded(move || filled_text(Msg::FieldDocsNoSchema, &[("error", &localized(&error))]))}
            </p>
        }
        .into_any(),
        (Some(Ok(_)), None) => ().into_any(),
        (Some(Ok(tree)), Some(segments)) => view! { <FieldDocsCard tree segments /> }.into_any(),
    }
}

/// What the schema says of the member at `segments` (a JSON pointer's segments).
#[component]
pub fn FieldDocsCard(tree: Arc<SchemaTree>, segments: Vec<String>) -> impl IntoView {
    match tree.locate(&segments) {
        Ok(located) => view! { <FieldDocsOf tree located /> }.into_any(),
        Err(why) => {
            let text = not_in_schema(&tree, &why);
            view! {
                <div class="field-docs" data-testid="field-docs">
                    <p class="field-docs__path"><code data-testid="field-docs-path">{segments.join(".")}</code></p>
                    <p class="field-docs__state" data-testid="field-docs-none">{text}</p>
                </div>
            }
            .into_any()
        }
    }
}

/// What the schema says of a located member: its field's type, required mark, default, enum,
/// description, and a link to the explorer at it.
#[component]
pub fn FieldDocsOf(tree: Arc<SchemaTree>, located: Located) -> impl IntoView {
    let Some(field) = tree.field(&located.field).cloned() else { return ().into_any() };
    let path = located.field.clone();
    let shown = if path.is_empty() { tree.kind.kind.clone() } else { path.clone() };
    let step = match &located.step {
        Step::Field => None,
        Step::Item => Some(filled_text(Msg::FieldDocsItemOf, &[("list", &shown)])),
        Step::MapValue(key) => Some(filled_text(Msg::FieldDocsValueOf, &[("key", key), ("map", &shown)])),
    };
    let type_text = match &field.format {
        Some(format) => format!("<{}> {format}", field.type_label),
        None => format!("<{}>", field.type_label),
    };
    let mut facts: Vec<(Msg, String)> = Vec::new();
    if let Some(default) = &field.default {
        facts.push((Msg::ExplainFactDefault, default.clone()));
    }
    if !field.enum_values.is_empty() {
        facts.push((Msg::ExplainFactEnum, field.enum_values.join(", ")));
    }
    if !field.item_enum_values.is_empty() {
        facts.push((Msg::ExplainFactItemEnum, field.item_enum_values.join(", ")));
    }
    let facts = facts
        .into_iter()
        .map(|(label, value)| view! { <dt>{live_text(label)}</dt><dd><code>{value}</code></dd> })
        .collect_view();
    let description = first_paragraph(&field.description);
    let link_path = path.clone();
    let change = Arc::new(move |s: &mut ViewState| {
        s.explain = Some(link_path.clone());
        s.compare = None;
    });
    let label = shown.clone();
    view! {
        <div
            class="field-docs"
            role="group"
            data-testid="field-docs"
            aria-label=worded(move || filled_text(Msg::FieldDocsRegion, &[("path", &label)]))
        >
            <p class="field-docs__path">
                <code data-testid="field-docs-path">{shown}</code>
                " "
                <code class="field-docs__type" data-testid="field-docs-type">{type_text}</code>
                {field.required.then(|| view! { " " <span class="explain__required">{live_text(Msg::ExplainRequiredMark)}</span> })}
            </p>
            {step.map(|s| view! { <p class="muted field-docs__step">{s}</p> })}
            <dl class="field-docs__facts">{facts}</dl>
            <p class="field-docs__description" data-testid="field-docs-description">
                {if description.is_empty() { text_now(Msg::FieldDocsNoDescription) } else { description }}
            </p>
            <ViewLink change testid="field-docs-explain">{live_text(Msg::FieldDocsOpen)}</ViewLink>
        </div>
    }
    .into_any()
}

/// Why a member has no docs, in words; the kind's name stands for the empty path.
pub fn not_in_schema(tree: &SchemaTree, why: &NotInSchema) -> String {
    let name = |path: &str| if path.is_empty() { tree.kind.kind.clone() } else { path.to_string() };
    match why {
        NotInSchema::Unknown { parent, name: field } => {
            filled_text(Msg::NotInSchemaUnknown, &[("name", field), ("parent", &name(parent))])
        }
        NotInSchema::Preserved { field, .. } => filled_text(Msg::NotInSchemaPreserved, &[("field", &name(field))]),
    }
}

/// Why nothing is offered at the cursor, in words.
pub fn no_candidates(tree: &SchemaTree, why: &NoCandidates) -> String {
    let name = |path: &str| if path.is_empty() { tree.kind.kind.clone() } else { path.to_string() };
    match why {
        NoCandidates::NotInSchema(why) => not_in_schema(tree, why),
        NoCandidates::FreeKeys { map } => filled_text(Msg::CompletionFreeKeys, &[("map", &name(map))]),
        NoCandidates::ListItems { list } => filled_text(Msg::CompletionListItems, &[("list", &name(list))]),
        NoCandidates::Scalar { field } => filled_text(Msg::CompletionScalar, &[("field", &name(field))]),
        NoCandidates::NoValues { field } => filled_text(Msg::CompletionNoValues, &[("field", &name(field))]),
        NoCandidates::AllPresent { object } => filled_text(Msg::CompletionAllPresent, &[("object", &name(object))]),
        NoCandidates::NoMatch { prefix } => filled_text(Msg::CompletionNoMatch, &[("prefix", prefix)]),
    }
}
