//! Validation while typing in the object editor: the group version's OpenAPI v3 schema is read
//! once (through the `/openapi/v3` index, held by its hash), the text is checked a moment after
//! typing pauses, and the problems are listed under the editor in the server's words, each with a
//! button that puts the cursor on its line (the editor's gutter marks the same lines).
//!
//! Checking is `model::validation`; this file only schedules it and shows the result. When the
//! schema cannot be read the list says so and the editor works as before.

use std::sync::Arc;
use std::time::Duration;

use leptos::html;
use leptos::prelude::*;

use crate::api::schema::OpenApiSchemas;
use crate::api::validate::Refusal;
use crate::client::error::ApiError;
use crate::client::handle::use_client;
use crate::client::schemas::load_indexed_schemas;
use crate::i18n::Msg;
use crate::model::validation::{check_edit, line_range, LineProblem, NotChecked};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};

/// How long typing must pause before the text is checked again.
const DEBOUNCE: Duration = Duration::from_millis(250);
/// The height of one editor line in pixels (`.editor__line-number`), for scrolling to a line.
const LINE_HEIGHT: i32 = 18;

/// What the check of the latest settled text found.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// The schema is being read.
    Loading,
    /// The schema could not be read: nothing is checked.
    SchemaFailed(ApiError),
    NotChecked(NotChecked),
    Problems(Vec<LineProblem>),
}

/// The validation of one editor's text.
#[derive(Debug, Clone, Copy)]
pub struct Validation {
    pub checked: Memo<Checked>,
    /// The group version's schemas (the editor's docs and completion read them too).
    pub schemas: RwSignal<Option<Result<Arc<OpenApiSchemas>, ApiError>>>,
}

/// Reads the schema of `group`/`version` and checks `text` a moment after each change.
pub fn use_validation(text: RwSignal<String>, group: String, version: String) -> Validation {
    let client = use_client();
    let schemas = RwSignal::new(None::<Result<Arc<OpenApiSchemas>, ApiError>>);
    client.tasks().spawn(async move {
        let loaded = load_indexed_schemas(&client, &group, &version).await.map(|indexed| indexed.schemas);
        schemas.try_set(Some(loaded));
    });
    // Only the text typing has paused on is checked: a keystroke costs nothing here.
    let settled = RwSignal::new(text.get_untracked());
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let current = text.get();
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        set_timeout(
            move || {
                if generation.try_get_value() == Some(mine) {
                    settled.try_set(current);
                }
            },
            DEBOUNCE,
        );
    });
    let checked = Memo::new(move |_| match schemas.get() {
        None => Checked::Loading,
        Some(Err(error)) => Checked::SchemaFailed(error),
        Some(Ok(schemas)) => settled.with(|text| match check_edit(text, &schemas) {
            Ok(problems) => Checked::Problems(problems),
            Err(reason) => Checked::NotChecked(reason),
        }),
    });
    Validation { checked, schemas }
}

/// The problems under the editor, each jumping to its line.
#[component]
pub fn ValidationList(
    /// The check to show.
    validation: Validation,
    /// The editor's text (to find a line's offsets).
    text: RwSignal<String>,
    /// The editor's textarea, focused on a line by the buttons.
    editor: NodeRef<html::Textarea>,
) -> impl IntoView {
    let jump = move |line: usize| {
        let Some(area) = editor.get_untracked() else { return };
        let (start, end) = text.with_untracked(|t| {
            let (start, end) = line_range(t, line);
            // A textarea's selection counts UTF-16 code units.
            let units = |byte: usize| t.get(..byte).map_or(0, |s| s.encode_utf16().count()) as u32;
            (units(start), units(end))
        });
        let _ = area.focus();
        let _ = area.set_selection_range(start, end);
        if let Ok(Some(scroller)) = area.closest(".editor__scroll") {
            scroller.set_scroll_top(((line as i32) - 3).max(0) * LINE_HEIGHT);
        }
    };
    move || {
        match validation.checked.get() {
        Checked::Loading => {
            view! { <p class="muted validation" data-testid="validation-state">{live_text(Msg::ValidationChecking)}</p> }
                .into_any()
        }
        Checked::SchemaFailed(error) => view! {
            <p class="notice validation" role="status" data-testid="validation-state">
                {worded(move || filled_text(Msg::ValidationSchemaFailed, &[("error", &localized(&error))]))}
            </p>
        }
        .into_any(),
        Checked::NotChecked(reason) => {
            let reason = move || match &reason {
                NotChecked::Unreadable(_) => text_now(Msg::ValidationUnreadable),
                NotChecked::NoSchema(why) => localized(why),
            };
            view! {
                <p class="muted validation" data-testid="validation-state">
                    {worded(move || filled_text(Msg::ValidationNotChecked, &[("reason", &reason())]))}
                </p>
            }
            .into_any()
        }
        Checked::Problems(problems) if problems.is_empty() => {
            view! { <p class="muted validation" data-testid="validation-state">{live_text(Msg::ValidationNoProblems)}</p> }
                .into_any()
        }
        Checked::Problems(problems) => {
            let count = problems.len();
            let items = problems
                .into_iter()
                .map(|problem| {
                    let line = problem.line;
                    let refusal = match problem.refusal {
                        Refusal::Strict => Msg::RefusalStrict,
                        Refusal::Decode => Msg::RefusalDecode,
                        Refusal::Invalid => Msg::RefusalInvalid,
                    };
                    view! {
                        <li class="validation__item" data-line=line.to_string()>
                            <button
                                class="button button--quiet validation__line"
                                title=worded(move || filled_text(Msg::ValidationGoToLineTitle, &[("line", &line)]))
                                on:click=move |_| jump(line)
                            >
                                {worded(move || filled_text(Msg::ValidationGoToLine, &[("line", &line)]))}
                            </button>
                            " "
                            <code class="validation__message" data-testid="validation-message">{problem.message}</code>
                            " "
                            <span class="muted validation__refusal">{live_text(refusal)}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="validation" role="status" data-testid="validation-problems">
                    <h4>{live_text(Msg::ValidationHeading)}</h4>
                    <p class="muted">{worded(move || filled_text(Msg::ValidationCount, &[("count", &count)]))}</p>
                    <ul class="validation__list">{items}</ul>
                </div>
            }
            .into_any()
        }
    }
    }
}
