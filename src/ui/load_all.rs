//! The progress of "Load all" (the driver is `client::load_all`, the progress `model::load_all`).

use leptos::prelude::*;

use crate::i18n::Msg;
use crate::model::load_all::LoadAllProgress;
use crate::ui::i18n::{filled_text, live_text, localized, worded};
use crate::ui::intl;

/// The progress bar of "load all".
#[component]
pub fn LoadAllBar(progress: LoadAllProgress) -> impl IntoView {
    let (done, loaded, estimate) = (progress.done, progress.loaded, progress.estimate);
    let text = move || match (done, estimate) {
        (true, _) => filled_text(Msg::AllLoaded, &[("count", &intl::count(loaded))]),
        (false, Some(total)) => filled_text(
            Msg::LoadedOfAbout,
            &[("count", &intl::count(loaded)), ("total", &intl::number(total as f64, 0))],
        ),
        (false, None) => filled_text(Msg::LoadedTotalUnknown, &[("count", &intl::count(loaded))]),
    };
    let max = if progress.done { progress.loaded } else { progress.estimate.unwrap_or(0) };
    view! {
        <progress max=max.to_string() value=progress.loaded.to_string() aria-label=live_text(Msg::LoadAllProgress)></progress>
        <span data-testid="load-all-progress">{text}</span>
        {progress.error.map(|e| view! { <p class="warning" role="alert">{worded(move || localized(&e))}</p> })}
    }
}
