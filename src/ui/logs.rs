//! A pod's log (`GET …/pods/NAME/log`), read once or followed. Follow is `follow=true` streamed
//! over fetch, in a slot of the page's stream budget as a watch is. After a drop it reconnects,
//! backing off, from `sinceTime` (its last line's second); the lines the server sends again are
//! recognised and skipped. Options: container (or all of them, interleaved by time), the previous
//! run, `sinceSeconds`, `tailLines`. Display: timestamps, wrap, search with the count of matching
//! lines, pause (the view stands still while lines keep coming), download. At most
//! [`DEFAULT_CAP`] lines are kept; older ones are dropped and counted.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::params::LogOptions;
use crate::api::request::{Request, RequestError};
use crate::api::view::status::Status;
use crate::client::error::ApiError;
use crate::client::fetch::sleep;
use crate::client::fetched::Fetched;
use crate::client::handle::{use_client, Client};
use crate::i18n::{Localized, Msg, Text};
use crate::model::logs::{
    download_name, reconnect_delay_ms, LineSplitter, LogBuffer, LogDisplay, LogLine, Resume, DEFAULT_CAP,
};
use crate::model::target::subresource_request;
use crate::ui::i18n::{t, tf, tl, tr, worded};
use crate::ui::intl;
use crate::ui::status_view::StatusView;

/// The value of the container choice that reads every container, interleaved.
const ALL: &str = "";
/// How often a burst of lines is shown at most (ms).
const RENDER_MS: u64 = 100;

/// A container the log can be read from.
#[derive(Debug, Clone, PartialEq)]
struct Container {
    name: String,
    /// An init container (listed after the others).
    init: bool,
    /// Restarts so far: a previous run exists when above zero.
    restarts: i64,
}

/// The containers of a pod document: `spec.containers`, then `spec.initContainers`, with their
/// restart counts from the status.
fn containers(pod: &Value) -> Vec<Container> {
    let restarts = |name: &str| {
        ["containerStatuses", "initContainerStatuses"]
            .iter()
            .flat_map(|key| pod.at(&["status", key]).and_then(Value::as_array).unwrap_or_default())
            .find(|s| s.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|s| s.get("restartCount"))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    [("containers", false), ("initContainers", true)]
        .iter()
        .flat_map(|(key, init)| {
            pod.at(&["spec", key])
                .and_then(Value::as_array)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c.get("name").and_then(Value::as_str))
                .map(|name| Container { name: name.to_owned(), init: *init, restarts: restarts(name) })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Where one container's stream stands.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Reading,
    Following,
    Reconnecting {
        attempt: u32,
        seconds: u32,
    },
    /// The read finished (or the follow ended for good), with why.
    Ended(String),
    Failed(Failure),
}

#[derive(Debug, Clone, PartialEq)]
enum Failure {
    Status(Box<Status>),
    Text(Text),
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Failure {
        match error {
            ApiError::Status(status) => Failure::Status(status),
            other => Failure::Text(other.text()),
        }
    }
}

/// What the user asked to read.
#[derive(Debug, Clone, PartialEq)]
struct Ask {
    /// One container, or [`ALL`].
    container: String,
    follow: bool,
    previous: bool,
    since_seconds: Option<u32>,
    tail_lines: Option<u32>,
}

/// Everything a reading task shares with the view.
#[derive(Clone)]
struct Reading {
    client: Client,
    resource: ResourceType,
    namespace: Option<String>,
    pod: String,
    ask: Ask,
    buffer: RwSignal<LogBuffer>,
    phases: RwSignal<Vec<(String, Phase)>>,
    /// The run this task belongs to; a newer run stops it.
    run: u64,
    runs: StoredValue<u64>,
    render_pending: StoredValue<bool>,
    signal: web_sys::AbortSignal,
}

impl Reading {
    fn stopped(&self) -> bool {
        self.signal.aborted() || self.runs.try_get_value() != Some(self.run)
    }

    fn set_phase(&self, container: &str, phase: Phase) {
        if self.stopped() {
            return;
        }
        self.phases.try_update(|phases| match phases.iter_mut().find(|(c, _)| c == container) {
            Some(entry) => entry.1 = phase,
            None => phases.push((container.to_owned(), phase)),
        });
    }

    /// Adds lines and shows them at the next render (at most every [`RENDER_MS`]).
    fn add(&self, lines: Vec<LogLine>) {
        if lines.is_empty() || self.stopped() {
            return;
        }
        self.buffer.try_update_untracked(|buffer| lines.into_iter().for_each(|line| buffer.push(line)));
        if self.render_pending.try_get_value() == Some(false) {
            self.render_pending.set_value(true);
            let (buffer, pending) = (self.buffer, self.render_pending);
            self.client.tasks().spawn(async move {
                sleep(Duration::from_millis(RENDER_MS)).await;
                pending.try_set_value(false);
                if !buffer.is_disposed() {
                    buffer.notify();
                }
            });
        }
    }

    fn request(&self, container: &str, resume: Option<&Resume>) -> Result<Request, RequestError> {
        let first = resume.is_none();
        let options = LogOptions {
            container: Some(container.to_owned()),
            // Always stamped: the stamps resume a follow and interleave containers; the view
            // shows them only when asked.
            timestamps: true,
            previous: self.ask.previous,
            follow: self.ask.follow,
            since_seconds: self.ask.since_seconds.filter(|_| first),
            since_time: resume.map(Resume::since_time),
            tail_lines: self.ask.tail_lines.filter(|_| first),
        };
        subresource_request(&self.resource, self.namespace.as_deref(), &self.pod, "log", &options)
    }
}

/// Reads `container`'s log once.
async fn read_once(reading: Reading, container: String) {
    reading.set_phase(&container, Phase::Reading);
    let request = match reading.request(&container, None) {
        Ok(request) => request,
        Err(error) => return reading.set_phase(&container, Phase::Failed(Failure::Text(error.text()))),
    };
    let fetched = match reading.client.send_undecoded(request).await {
        Ok(fetched) => fetched,
        Err(error) => return reading.set_phase(&container, Phase::Failed(Failure::Text(error.text()))),
    };
    if !fetched.response.is_success() {
        let failure = fetched.error().map_or_else(|| Failure::Text(Msg::NoFailure.into()), Failure::from);
        return reading.set_phase(&container, Phase::Failed(failure));
    }
    let name: Arc<str> = Arc::from(container.as_str());
    let mut splitter = LineSplitter::default();
    let mut raw = splitter.push(&fetched.response.body);
    raw.extend(splitter.finish());
    let count = raw.len();
    reading.add(raw.into_iter().map(|line| LogLine::parse(&name, line)).collect());
    reading.set_phase(&container, Phase::Ended(tf(Msg::LinesRead, &[("count", &count)])));
}

/// Follows `container`'s log, reconnecting after drops until the view stops it or the server
/// refuses a reconnection (the container or the pod is gone).
async fn follow(reading: Reading, container: String) {
    let name: Arc<str> = Arc::from(container.as_str());
    let mut attempt = 0u32;
    let mut resume: Option<Resume> = None;
    loop {
        if reading.stopped() {
            return;
        }
        let request = match reading.request(&container, resume.as_ref()) {
            Ok(request) => request,
            Err(error) => return reading.set_phase(&container, Phase::Failed(Failure::Text(error.text()))),
        };
        reading.set_phase(&container, if attempt == 0 { Phase::Reading } else { Phase::Following });
        let why = match reading.client.open_watch(&request, &reading.signal).await {
            None => return,
            Some(Err(error)) => tl(&error),
            Some(Ok(stream)) if !(200..300).contains(&stream.status) => {
                let url = reading.client.base().absolute_url(&request);
                let error = match stream.into_response(url).await {
                    Ok(response) => Fetched::new(request, response).error().map(Failure::from),
                    Err(cut) => Some(Failure::Text(cut.text())),
                };
                let failure = error.unwrap_or_else(|| Failure::Text(Msg::ServerRefusedLog.into()));
                // Refused at first: a failure. Refused on a reconnection: the follow is over
                // (the container stopped, or the pod went away), and the lines stay.
                let phase = match (resume.is_some(), failure) {
                    (true, Failure::Status(status)) => {
                        Phase::Ended(tf(Msg::StoppedWith, &[("reason", &status.message)]))
                    }
                    (true, Failure::Text(text)) => Phase::Ended(tf(Msg::StoppedWith, &[("reason", &tl(&text))])),
                    (false, failure) => Phase::Failed(failure),
                };
                return reading.set_phase(&container, phase);
            }
            Some(Ok(mut stream)) => {
                reading.set_phase(&container, Phase::Following);
                let mut splitter = LineSplitter::default();
                loop {
                    match stream.next_chunk().await {
                        Ok(Some(chunk)) => {
                            let mut fresh = Vec::new();
                            for raw in splitter.push(&chunk) {
                                let line = LogLine::parse(&name, raw);
                                if resume.as_mut().is_some_and(|r| r.already_kept(&line)) {
                                    continue;
                                }
                                resume = None;
                                fresh.push(line);
                            }
                            if !fresh.is_empty() {
                                attempt = 0;
                            }
                            reading.add(fresh);
                        }
                        // A line cut off by the end is not kept: it comes again from sinceTime.
                        Ok(None) => break tr(Msg::StreamEnded),
                        Err(cut) => break cut.to_string(),
                    }
                }
            }
        };
        if reading.stopped() {
            return;
        }
        attempt += 1;
        let delay = reconnect_delay_ms(attempt);
        reading.set_phase(&container, Phase::Reconnecting { attempt, seconds: delay / 1000 });
        leptos::logging::debug_warn!("log follow of {container} dropped ({why}); reconnecting in {delay} ms");
        resume = reading.buffer.with_untracked(|b| b.resume(&container));
        sleep(Duration::from_millis(u64::from(delay))).await;
    }
}

/// The log of pod `name`.
#[component]
pub fn LogView(
    /// The pods resource type.
    resource: ResourceType,
    /// The pod's namespace.
    namespace: Option<String>,
    /// The pod's name.
    name: String,
    /// The pod (its containers and their restarts).
    document: Value,
) -> impl IntoView {
    let client = use_client();
    let containers = containers(&document);
    let first = containers.first().map(|c| c.name.clone()).unwrap_or_default();
    let container = RwSignal::new(first);
    let follow_on = RwSignal::new(false);
    let previous = RwSignal::new(false);
    let since = RwSignal::new(String::new());
    let tail = RwSignal::new(String::from("100"));
    let display = RwSignal::new(LogDisplay::default());
    let wrap = RwSignal::new(true);
    let buffer = RwSignal::new(LogBuffer::new(DEFAULT_CAP));
    // The lines shown while paused: a copy of the buffer as it was.
    let frozen = RwSignal::new(None::<LogBuffer>);
    let phases = RwSignal::new(Vec::<(String, Phase)>::new());
    let runs = StoredValue::new(0u64);
    let render_pending = StoredValue::new(false);
    let controller = StoredValue::new_local(None::<AbortController>);
    on_cleanup(move || {
        if let Some(Some(c)) = controller.try_get_value() {
            c.abort();
        }
    });
    let restarts = {
        let containers = containers.clone();
        move |chosen: &str| containers.iter().filter(|c| chosen == ALL || c.name == chosen).any(|c| c.restarts > 0)
    };
    let all_names: Vec<String> = containers.iter().filter(|c| !c.init).map(|c| c.name.clone()).collect();
    let several = all_names.len() > 1;
    let pod = name.clone();
    let start = move || {
        let number = |text: String| text.trim().parse::<u32>().ok().filter(|n| *n > 0);
        let ask = Ask {
            container: container.get_untracked(),
            follow: follow_on.get_untracked(),
            previous: previous.get_untracked(),
            since_seconds: number(since.get_untracked()),
            tail_lines: tail.with_untracked(|t| t.trim().parse::<u32>().ok()),
        };
        if let Some(old) = controller.get_value() {
            old.abort();
        }
        let Ok(abort) = AbortController::new() else { return };
        let signal = abort.signal();
        controller.set_value(Some(abort));
        runs.update_value(|n| *n += 1);
        buffer.set(LogBuffer::new(DEFAULT_CAP));
        frozen.set(None);
        phases.set(Vec::new());
        let names = if ask.container == ALL { all_names.clone() } else { vec![ask.container.clone()] };
        let reading = Reading {
            client: client.clone(),
            resource: resource.clone(),
            namespace: namespace.clone(),
            pod: pod.clone(),
            ask,
            buffer,
            phases,
            run: runs.get_value(),
            runs,
            render_pending,
            signal,
        };
        for name in names {
            let (reading, tasks) = (reading.clone(), client.tasks());
            if reading.ask.follow {
                tasks.spawn(follow(reading, name));
            } else {
                tasks.spawn(read_once(reading, name));
            }
        }
    };
    let start = Arc::new(start);
    {
        let start = start.clone();
        // Read at once with the defaults, as the log button promises.
        start();
    }
    let restart = {
        let start = start.clone();
        move || start()
    };
    let shown = Memo::new(move |_| {
        let mut display = display.get();
        display.containers = several && container.with(|c| c == ALL);
        let text = |b: &LogBuffer| (display.text(b), display.count(b), b.len(), b.dropped());
        frozen.with(|f| match f {
            Some(b) => text(b),
            None => buffer.with(text),
        })
    });
    let held = move || frozen.with(|f| f.as_ref().map(|f| buffer.with(|b| b.total() - f.total())));
    let text_ref = NodeRef::<leptos::html::Pre>::new();
    // Stay at the end while new lines come, unless the user scrolled up.
    let stick = StoredValue::new(true);
    Effect::new(move |_| {
        shown.track();
        if stick.get_value() {
            if let Some(pre) = text_ref.get_untracked() {
                request_animation_frame(move || pre.set_scroll_top(pre.scroll_height()));
            }
        }
    });
    let download = {
        let name = name.clone();
        move |_| {
            let file = download_name(&name, container.with_untracked(|c| (c != ALL).then(|| c.clone())).as_deref());
            let text = shown.with_untracked(|(text, ..)| text.clone());
            if let Err(message) = save_text(&file, &text) {
                leptos::logging::warn!("the log could not be downloaded: {message}");
            }
        }
    };
    let option_changed = {
        let restart = restart.clone();
        move || restart()
    };
    let choices = containers.clone();
    let restarts_for_title = restarts.clone();
    view! {
        <section class="logs" aria-label=t(Msg::PodLog)>
            <div class="toolbar" aria-label=t(Msg::LogOptions) role="group">
                {(choices.len() > 1)
                    .then(|| {
                        let option_changed = option_changed.clone();
                        view! {
                            <label class="toolbar__field">
                                {t(Msg::Container)}
                                " "
                                <select
                                    aria-label=t(Msg::Container)
                                    on:change=move |e| {
                                        container.set(event_target_value(&e));
                                        if !restarts(&container.get_untracked()) {
                                            previous.set(false);
                                        }
                                        option_changed();
                                    }
                                >
                                    {choices
                                        .iter()
                                        .map(|c| {
                                            let (name, init) = (c.name.clone(), c.init);
                                            let label = move || if init { tf(Msg::InitContainer, &[("name", &name)]) } else { name.clone() };
                                            view! { <option value=c.name.clone()>{label}</option> }
                                        })
                                        .collect_view()}
                                    {several.then(|| view! { <option value=ALL>{t(Msg::AllContainers)}</option> })}
                                </select>
                            </label>
                        }
                    })}
                <label class="toolbar__field" title=t(Msg::FollowTitle)>
                    <input
                        type="checkbox"
                        data-testid="log-follow"
                        prop:checked=follow_on
                        on:change={
                            let option_changed = option_changed.clone();
                            move |e| {
                                follow_on.set(event_target_checked(&e));
                                option_changed();
                            }
                        }
                    />
                    " "
                    {t(Msg::Follow)}
                </label>
                <label
                    class="toolbar__field"
                    title=move || {
                        tr(if restarts_for_title(&container.get()) {
                            Msg::PreviousTitle
                        } else {
                            Msg::PreviousNoRestartTitle
                        })
                    }
                >
                    <input
                        type="checkbox"
                        prop:checked=previous
                        on:change={
                            let option_changed = option_changed.clone();
                            move |e| {
                                previous.set(event_target_checked(&e));
                                option_changed();
                            }
                        }
                    />
                    " "
                    {t(Msg::PreviousRun)}
                </label>
                <label class="toolbar__field" title=t(Msg::SinceSecondsTitle)>
                    "sinceSeconds "
                    <input
                        type="number"
                        min="1"
                        size="6"
                        aria-label="sinceSeconds"
                        placeholder=t(Msg::All)
                        prop:value=since
                        on:change={
                            let option_changed = option_changed.clone();
                            move |e| {
                                since.set(event_target_value(&e));
                                option_changed();
                            }
                        }
                    />
                </label>
                <label class="toolbar__field" title=t(Msg::TailLinesTitle)>
                    "tailLines "
                    <input
                        type="number"
                        min="0"
                        size="6"
                        aria-label="tailLines"
                        placeholder=t(Msg::All)
                        prop:value=tail
                        on:change={
                            let option_changed = option_changed.clone();
                            move |e| {
                                tail.set(event_target_value(&e));
                                option_changed();
                            }
                        }
                    />
                </label>
                <button class="button" data-testid="log-read" on:click=move |_| option_changed()>
                    {worded(move || tr(if follow_on.get() { Msg::FollowAgain } else { Msg::ReadAgain }))}
                </button>
            </div>
            <div class="toolbar" aria-label=t(Msg::LogDisplay) role="group">
                <label class="toolbar__field">
                    <input
                        type="checkbox"
                        prop:checked=move || display.with(|d| d.timestamps)
                        on:change=move |e| display.update(|d| d.timestamps = event_target_checked(&e))
                    />
                    " "
                    {t(Msg::Timestamps)}
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=wrap on:change=move |e| wrap.set(event_target_checked(&e)) />
                    " "
                    {t(Msg::Wrap)}
                </label>
                <label class="toolbar__field">
                    {t(Msg::SearchLabel)}
                    " "
                    <input
                        type="search"
                        dir="auto"
                        aria-label=t(Msg::SearchTheLog)
                        placeholder=t(Msg::TextInLine)
                        prop:value=move || display.with(|d| d.search.clone())
                        on:input=move |e| display.update(|d| d.search = event_target_value(&e))
                    />
                </label>
                <span class="muted" data-testid="log-count" aria-live="polite">
                    {move || {
                        let (_, matching, kept, _) = shown.get();
                        if display.with(|d| d.search.trim().is_empty()) {
                            tf(Msg::LogLines, &[("count", &intl::count(kept))])
                        } else {
                            tf(Msg::MatchingLinesOf, &[("matching", &intl::count(matching)), ("kept", &intl::count(kept))])
                        }
                    }}
                </span>
                {move || {
                    follow_on
                        .get()
                        .then(|| {
                            view! {
                                <button
                                    class="button button--quiet"
                                    data-testid="log-pause"
                                    aria-pressed=move || frozen.with(Option::is_some).to_string()
                                    title=t(Msg::PauseTitle)
                                    on:click=move |_| {
                                        if frozen.with_untracked(Option::is_some) {
                                            frozen.set(None);
                                            stick.set_value(true);
                                        } else {
                                            frozen.set(Some(buffer.get_untracked()));
                                        }
                                    }
                                >
                                    {move || match held() {
                                        Some(n) => tf(Msg::ResumeNew, &[("count", &n)]),
                                        None => tr(Msg::Pause),
                                    }}
                                </button>
                            }
                        })
                }}
                <button class="button button--quiet" data-testid="log-download" on:click=download>
                    {t(Msg::Download)}
                </button>
            </div>
            <p class="muted log-state" data-testid="log-state" aria-live="polite">
                {move || {
                    let (_, _, _, dropped) = shown.get();
                    let mut parts: Vec<String> = phases
                        .get()
                        .iter()
                        .filter_map(|(c, p)| {
                            let words = match p {
                                Phase::Reading => tr(Msg::LogReading),
                                Phase::Following => tr(Msg::LogFollowing),
                                Phase::Reconnecting { attempt, seconds } => {
                                    tf(Msg::Reconnecting, &[("seconds", seconds), ("attempt", attempt)])
                                }
                                Phase::Ended(why) => why.clone(),
                                Phase::Failed(_) => return None,
                            };
                            Some(if several { format!("{c}: {words}") } else { words })
                        })
                        .collect();
                    if dropped > 0 {
                        parts.push(tf(
                            Msg::OlderDropped,
                            &[("dropped", &intl::number(dropped as f64, 0)), ("cap", &intl::count(DEFAULT_CAP))],
                        ));
                    }
                    parts.join(" · ")
                }}
            </p>
            {move || {
                phases
                    .get()
                    .into_iter()
                    .filter_map(|(c, p)| match p {
                        Phase::Failed(failure) => Some((c, failure)),
                        _ => None,
                    })
                    .map(|(c, failure)| match failure {
                        Failure::Status(status) => view! { <StatusView status=*status /> }.into_any(),
                        Failure::Text(text) => {
                            view! {
                                <p class="warning" role="alert">
                                    {worded(move || format!("{c}: {}", tl(&text)))}
                                </p>
                            }
                                .into_any()
                        }
                    })
                    .collect_view()
            }}
            <pre
                class="document__text log-text"
                class:log-text--nowrap=move || !wrap.get()
                data-testid="log-text"
                tabindex="0"
                node_ref=text_ref
                on:scroll=move |_| {
                    if let Some(pre) = text_ref.get_untracked() {
                        stick.set_value(pre.scroll_top() + pre.client_height() >= pre.scroll_height() - 4);
                    }
                }
            >
                {move || {
                    let (text, matching, kept, _) = shown.get();
                    if kept == 0 {
                        tr(Msg::LogEmpty)
                    } else if matching == 0 {
                        tr(Msg::NoLineMatches)
                    } else {
                        text
                    }
                }}
            </pre>
        </section>
    }
}

/// Offers `text` as a file named `file` (a Blob behind a link that is clicked once).
fn save_text(file: &str, text: &str) -> Result<(), String> {
    let describe = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let blob = web_sys::Blob::new_with_str_sequence(&parts).map_err(describe)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(describe)?;
    let document = window().document().ok_or("no document")?;
    let link = document.create_element("a").map_err(describe)?;
    link.set_attribute("href", &url).map_err(describe)?;
    link.set_attribute("download", file).map_err(describe)?;
    link.dyn_ref::<web_sys::HtmlElement>().ok_or("not an element")?.click();
    web_sys::Url::revoke_object_url(&url).map_err(describe)
}
