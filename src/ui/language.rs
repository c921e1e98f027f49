//! The language switch of the top bar (the app as shipped): the language chosen, remembered in
//! localStorage, at first the browser's `navigator.languages`; its file fetched the first time it
//! is chosen; `lang` and `dir` kept on the explorer's root so that Persian lays out right to left.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;

use crate::client::bundle_file;
use crate::i18n::{Language, Msg, Table};
use crate::ui::host::Target;
use crate::ui::i18n::active::{state, Active, State, LOADED};
use crate::ui::i18n::{filled_text, live_text};

/// Where the chosen language is remembered (its tag).
const LANGUAGE_KEY: &str = "kube-api-explorer.language";

/// Picks the first language (the remembered one, else the browser's), starts loading it, and keeps
/// `lang` and `dir` on the explorer's root in step.
pub fn install(target: &Target) {
    let remembered = storage().and_then(|s| s.get_item(LANGUAGE_KEY).ok().flatten());
    let first = match remembered.as_deref().and_then(Language::from_tag) {
        Some(language) => language,
        None => {
            let browser: Vec<String> = window().navigator().languages().iter().filter_map(|l| l.as_string()).collect();
            Language::preferred(browser.iter().map(String::as_str))
        }
    };
    choose(first);
    let element = match target {
        Target::Page => document().document_element(),
        Target::Element(element) => Some((**element).clone().unchecked_into()),
    };
    let Some(element) = element else { return };
    let element = StoredValue::new(SendWrapper::new(element));
    let active = state().active;
    Effect::new(move |_| {
        let language = active.with(|a| a.language);
        element.with_value(|element| {
            let _ = element.set_attribute("lang", language.tag());
            let _ = element.set_attribute("dir", language.direction().as_str());
        });
    });
    if matches!(target, Target::Element(_)) {
        on_cleanup(move || {
            element.try_with_value(|element| {
                let _ = element.remove_attribute("lang");
                let _ = element.remove_attribute("dir");
            });
        });
    }
}

/// Shows `language`: at once when it is English or already read, else once its file arrives.
fn choose(language: Language) {
    let state = state();
    state.chosen.set(language);
    state.problem.set(None);
    let Some(file) = language.file() else {
        state.active.set(Active::default());
        return;
    };
    if let Some(table) = LOADED.with(|l| l.borrow()[language as usize].clone()) {
        state.active.set(Active { language, table: Some(table) });
        return;
    }
    leptos::task::spawn_local(async move {
        #[cfg(feature = "split")]
        let reading = read_language(file).await;
        #[cfg(not(feature = "split"))]
        let reading = read_language(file);
        let loaded = match reading {
            Ok(reading) => reading.await,
            Err(ReaderNotLoaded(error)) => Err(error),
        };
        let state = self::state();
        // A later choice wins over a file that arrives late.
        if state.chosen.get_untracked() != language {
            return;
        }
        match loaded {
            Ok(table) => {
                let table = Arc::new(table);
                LOADED.with(|l| l.borrow_mut()[language as usize] = Some(table.clone()));
                state.active.set(Active { language, table: Some(table) });
            }
            Err(error) => {
                state.active.set(Active::default());
                state.chosen.set(Language::English);
                state
                    .problem
                    .set(Some(filled_text(Msg::LanguageLoadFailed, &[("language", &language), ("error", &error)])));
            }
        }
    });
}

/// A language file being fetched and read: its strings, or why they cannot be used.
type Reading = Pin<Box<dyn Future<Output = Result<Table, String>>>>;

/// Fetches and reads the language file at `file` (which names it in an error). With the `split`
/// feature this is a part of its own, fetched before the first language file: only a user who
/// picks another language than English needs the fetching, the JSON reader and its checks.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(language_file, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn read_language(file: String) -> Result<Reading, ReaderNotLoaded> {
    Ok(Box::pin(async move {
        let json = bundle_file::fetch_text(&file).await.map_err(|e| e.to_string())?;
        Table::parse(&json).map_err(|e| format!("{file}: {e}"))
    }))
}

/// The language file's reader could not be fetched (the loader's words).
struct ReaderNotLoaded(String);

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for ReaderNotLoaded {
    fn from(error: leptos::wasm_split::SplitLoaderError) -> ReaderNotLoaded {
        ReaderNotLoaded(error.to_string())
    }
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The language switch of the top bar: every language by its own name; a choice is remembered.
#[component]
pub fn LanguageSwitch() -> impl IntoView {
    let State { chosen, problem, active } = state();
    let loading = {
        let (chosen, active) = (chosen.clone(), active.clone());
        move || {
            let wanted = chosen.get();
            (wanted != active.with(|a| a.language)).then(|| filled_text(Msg::LanguageLoading, &[("language", &wanted)]))
        }
    };
    let on_change = move |e: leptos::ev::Event| {
        if let Some(language) = Language::from_tag(&event_target_value(&e)) {
            if let Some(storage) = storage() {
                let _ = storage.set_item(LANGUAGE_KEY, language.tag());
            }
            choose(language);
        }
    };
    let dismiss = {
        let problem = problem.clone();
        move |_| problem.set(None)
    };
    view! {
        <label class="topbar__language">
            {live_text(Msg::Language)}
            " "
            <select data-testid="language" aria-label=live_text(Msg::Language) prop:value=move || chosen.get().tag() on:change=on_change>
                {Language::ALL
                    .into_iter()
                    .map(|language| {
                        view! {
                            <option value=language.tag() lang=language.tag()>
                                {language.native_name()}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
        {move || loading().map(|text| view! { <span class="muted" aria-live="polite">{text}</span> })}
        {move || {
            problem
                .get()
                .map(|text| {
                    view! {
                        <p class="warning topbar__language-problem" role="alert" data-testid="language-problem">
                            {text}
                            " "
                            <button class="button button--quiet" on:click=dismiss.clone()>
                                {live_text(Msg::Dismiss)}
                            </button>
                        </p>
                    }
                })
        }}
    }
}
