//! The diff of two versions of an object, shared by the object history of a watch and by every
//! write (what a request should change, what a dry run would persist, a live object against an
//! edit after a conflict): the structural changes (path, kind, old → new) and the line diff of
//! their YAML, unified or side by side, with managedFields and status optionally left out. The
//! diffs themselves come from `api::write::diff`.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::write::diff::{diff_objects, yaml_diff, ChangeKind, DiffOptions, RowKind};
use crate::i18n::Msg;
use crate::ui::i18n::{live_text, localized, text_now};

/// The diff of `old` → `new`. Test ids: `{name}-changes` (the structural list) and `{name}-diff`
/// (the unified text).
#[component]
pub fn DiffView(
    old: Value,
    new: Value,
    /// Prefix of the test ids.
    name: &'static str,
    /// Whether status starts ignored.
    #[prop(optional)]
    ignore_status: bool,
) -> impl IntoView {
    let (managed, set_managed) = signal(true);
    let (status, set_status) = signal(ignore_status);
    let (side_by_side, set_side_by_side) = signal(false);
    let options = move || DiffOptions {
        ignore_managed_fields: managed.get(),
        ignore_status: status.get(),
        ignore_server_fields: false,
    };
    let (old_for_changes, new_for_changes) = (old.clone(), new.clone());
    let changes = move || {
        let changes = diff_objects(&old_for_changes, &new_for_changes, options()).changes;
        if changes.is_empty() {
            return view! { <p class="muted" data-testid=format!("{name}-changes")>{live_text(Msg::NoDifferences)}</p> }
                .into_any();
        }
        view! {
            <ul class="history__changes" data-testid=format!("{name}-changes")>
                {changes
                    .into_iter()
                    .map(|c| {
                        let show = |v: Option<Value>| v.map(|v| v.to_json()).unwrap_or_default();
                        let kind = match c.kind {
                            ChangeKind::Added => Msg::Added,
                            ChangeKind::Removed => Msg::Removed,
                            ChangeKind::Changed => Msg::Changed,
                        };
                        view! {
                            <li data-kind=kind.english()>
                                <code>{c.display_path()}</code>
                                {
                                    let (old, new) = (show(c.old), show(c.new));
                                    move || format!(" {}: {old} → {new}", text_now(kind))
                                }
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any()
    };
    let lines = move || {
        let diff = match yaml_diff(&old, &new, options(), 3) {
            Ok(diff) => diff,
            Err(e) => return view! { <p class="warning">{localized(&e)}</p> }.into_any(),
        };
        if side_by_side.get() {
            let rows = diff
                .rows
                .into_iter()
                .map(|row| {
                    let class = match row.kind {
                        RowKind::Same => "diff__row",
                        RowKind::Changed => "diff__row diff__row--changed",
                        RowKind::Added => "diff__row diff__row--added",
                        RowKind::Removed => "diff__row diff__row--removed",
                    };
                    let cell = |line: Option<crate::api::write::diff::Line>| {
                        let (number, text) = line.map(|l| (l.number.to_string(), l.text)).unwrap_or_default();
                        view! {
                            <td class="diff__number">{number}</td>
                            <td class="diff__text">{text}</td>
                        }
                    };
                    view! { <tr class=class>{cell(row.old)}{cell(row.new)}</tr> }
                })
                .collect_view();
            view! {
                <div class="diff__scroll">
                    <table class="diff__table" data-testid=format!("{name}-side-by-side")>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any()
        } else {
            view! { <pre class="document__text" data-testid=format!("{name}-diff")>{diff.unified()}</pre> }.into_any()
        }
    };
    view! {
        <div class="diff">
            <div class="toolbar">
                <div class="segmented" role="group" aria-label=live_text(Msg::DiffLayout)>
                    <button
                        class="segmented__item"
                        aria-pressed=move || (!side_by_side.get()).to_string()
                        on:click=move |_| set_side_by_side.set(false)
                    >
                        {live_text(Msg::Unified)}
                    </button>
                    <button
                        class="segmented__item"
                        aria-pressed=move || side_by_side.get().to_string()
                        on:click=move |_| set_side_by_side.set(true)
                    >
                        {live_text(Msg::SideBySide)}
                    </button>
                </div>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=managed on:change=move |e| set_managed.set(event_target_checked(&e)) />
                    " "
                    {live_text(Msg::IgnoreManagedFields)}
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=status on:change=move |e| set_status.set(event_target_checked(&e)) />
                    " "
                    {live_text(Msg::IgnoreStatus)}
                </label>
            </div>
            {changes}
            {lines}
        </div>
    }
}
