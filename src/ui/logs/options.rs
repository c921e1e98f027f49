//! What to read: the container (or all of them), follow, the previous run, `sinceSeconds`,
//! `tailLines`, and the button that reads again. Every change reads anew.

use leptos::prelude::*;

use crate::i18n::Msg;
use crate::model::log_follow::{LogSource, ALL_CONTAINERS};
use crate::ui::i18n::{filled_text, live_text, text_now, worded};

use super::form::LogForm;

/// The log's options; `read` reads with them.
#[component]
pub(super) fn LogOptions(source: StoredValue<LogSource>, form: LogForm, read: Callback<()>) -> impl IntoView {
    let has_previous = move |choice: &str| source.with_value(|s| s.has_previous(choice));
    let previous_title = move || {
        text_now(if has_previous(&form.container.get()) { Msg::PreviousTitle } else { Msg::PreviousNoRestartTitle })
    };
    view! {
        <div class="toolbar" aria-label=live_text(Msg::LogOptions) role="group">
            <ContainerChoice source form read />
            <label class="toolbar__field" title=live_text(Msg::FollowTitle)>
                <input
                    type="checkbox"
                    data-testid="log-follow"
                    prop:checked=form.follow
                    on:change=move |e| {
                        form.follow.set(event_target_checked(&e));
                        read.run(());
                    }
                />
                " "
                {live_text(Msg::Follow)}
            </label>
            <label class="toolbar__field" title=previous_title>
                <input
                    type="checkbox"
                    prop:checked=form.previous
                    on:change=move |e| {
                        form.previous.set(event_target_checked(&e));
                        read.run(());
                    }
                />
                " "
                {live_text(Msg::PreviousRun)}
            </label>
            <label class="toolbar__field" title=live_text(Msg::SinceSecondsTitle)>
                "sinceSeconds "
                <input
                    type="number"
                    min="1"
                    size="6"
                    aria-label="sinceSeconds"
                    placeholder=live_text(Msg::All)
                    prop:value=form.since
                    on:change=move |e| {
                        form.since.set(event_target_value(&e));
                        read.run(());
                    }
                />
            </label>
            <label class="toolbar__field" title=live_text(Msg::TailLinesTitle)>
                "tailLines "
                <input
                    type="number"
                    min="0"
                    size="6"
                    aria-label="tailLines"
                    placeholder=live_text(Msg::All)
                    prop:value=form.tail
                    on:change=move |e| {
                        form.tail.set(event_target_value(&e));
                        read.run(());
                    }
                />
            </label>
            <button class="button" data-testid="log-read" on:click=move |_| read.run(())>
                {worded(move || text_now(if form.follow.get() { Msg::FollowAgain } else { Msg::ReadAgain }))}
            </button>
        </div>
    }
}

/// The container select, when the pod has more than one; choosing one without a previous run
/// unchecks "previous run".
#[component]
fn ContainerChoice(source: StoredValue<LogSource>, form: LogForm, read: Callback<()>) -> impl IntoView {
    let (choices, several) = source.with_value(|s| (s.containers.clone(), s.several()));
    (choices.len() > 1).then(|| {
        view! {
            <label class="toolbar__field">
                {live_text(Msg::Container)}
                " "
                <select
                    aria-label=live_text(Msg::Container)
                    on:change=move |e| {
                        form.container.set(event_target_value(&e));
                        if !source.with_value(|s| s.has_previous(&form.container.get_untracked())) {
                            form.previous.set(false);
                        }
                        read.run(());
                    }
                >
                    {choices
                        .iter()
                        .map(|c| {
                            let (name, init) = (c.name.clone(), c.init);
                            let label = move || if init { filled_text(Msg::InitContainer, &[("name", &name)]) } else { name.clone() };
                            view! { <option value=c.name.clone()>{label}</option> }
                        })
                        .collect_view()}
                    {several.then(|| view! { <option value=ALL_CONTAINERS>{live_text(Msg::AllContainers)}</option> })}
                </select>
            </label>
        }
    })
}
