//! A terminal in a container of a pod (`pods/exec`, `pods/attach`), loaded on demand
//! (`ui::lazy::TerminalOnDemand`): the container, the session (a command, a shell by default, or
//! the running process), the emulator, the session's state with the exit code, reconnect, and the
//! exact WebSocket URL, subprotocols and `kubectl` line. The session is `client::terminal`'s
//! (`use_terminal`); this view only renders it and passes the user's intents on.

mod xterm;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::client::terminal::use_terminal;
use crate::i18n::Msg;
use crate::model::access::Question;
use crate::model::exec_channel::{Ending, Protocol};
use crate::model::terminal::{
    containers_of, default_container, parse_command, Mode, Phase, SessionPlan, TerminalError, DEFAULT_COMMAND,
};
use crate::ui::access::refusal;
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::write_policy::use_write_policy;
use xterm::{Screen, ScreenView};

/// A terminal session in one of the pod's containers.
#[component]
pub fn TerminalPanel(
    /// The pods resource type (discovery's, so the request has its group and version).
    resource: ResourceType,
    /// The pod's namespace.
    namespace: String,
    /// The pod's name.
    name: String,
    /// The pod (its containers).
    document: Value,
    /// `attach` to attach to the running process; anything else runs a command.
    subresource: String,
) -> impl IntoView {
    let containers = containers_of(&document);
    let container = RwSignal::new(default_container(&document).unwrap_or_default());
    let attach = RwSignal::new(subresource == "attach");
    let command = RwSignal::new(DEFAULT_COMMAND.to_owned());
    let parsed = Memo::new(move |_| parse_command(&command.get()));
    let (pods, plan_namespace, pod) = (resource.clone(), namespace.clone(), name.clone());
    let plan = Signal::derive(move || {
        let mode = if attach.get() { Mode::Attach } else { Mode::Exec { command: parsed.get().ok()? } };
        let container = container.get();
        (!container.is_empty()).then(|| SessionPlan {
            pods: pods.clone(),
            namespace: plan_namespace.clone(),
            pod: pod.clone(),
            container,
            mode,
        })
    });
    let screen = Screen::default();
    let output = screen.clone();
    let session = use_terminal(plan, std::rc::Rc::new(move |bytes: Vec<u8>| output.write(bytes)));
    let refused = {
        let (resource, namespace, name) = (resource.clone(), namespace.clone(), name.clone());
        refusal(
            move || {
                let sub = if attach.get() { "attach" } else { "exec" };
                vec![Question::on("create", &resource, Some(namespace.as_str())).named(&name).subresource(sub)]
            },
            true,
        )
    };
    let policy = use_write_policy();
    let active = Signal::derive(move || session.phase.with(Phase::is_active));
    // (The click handler must be Send; the emulator is the page's thread's.)
    let restart = send_wrapper::SendWrapper::new(screen.clone());
    let connect = move |_| {
        restart.restart();
        session.start.run(());
    };
    let label = {
        let name = name.clone();
        Signal::derive(move || filled_text(Msg::TerminalScreen, &[("container", &container.get()), ("pod", &name)]))
    };
    let connect_label = move || match session.phase.get() {
        Phase::Idle => text_now(Msg::TerminalConnect),
        _ => text_now(Msg::TerminalReconnect),
    };
    view! {
        <section class="panel terminal" aria-label=live_text(Msg::TerminalHeading) data-testid="terminal">
            <h3>{live_text(Msg::TerminalHeading)}</h3>
            {move || {
                (policy.read_only.get() || policy.forced_by_host.get())
                    .then(|| view! { <p class="muted" data-testid="terminal-read-only">{live_text(Msg::TerminalReadOnlyNote)}</p> })
            }}
            {move || {
                refused
                    .get()
                    .map(|r| {
                        view! {
                            <p class="warning" data-testid="terminal-refused">
                                {worded(move || filled_text(Msg::TerminalRefusedTitle, &[("words", &r.words)]))}
                                " "
                                <code>{r.command.clone()}</code>
                            </p>
                        }
                    })
            }}
            <div class="toolbar terminal__form">
                <label>
                    {live_text(Msg::TerminalModeLabel)}
                    " "
                    <select
                        data-testid="terminal-mode"
                        prop:value=move || if attach.get() { "attach" } else { "exec" }
                        on:change=move |e| attach.set(event_target_value(&e) == "attach")
                    >
                        <option value="exec">{live_text(Msg::TerminalModeExec)}</option>
                        <option value="attach">{live_text(Msg::TerminalModeAttach)}</option>
                    </select>
                </label>
                <ContainerPicker containers container />
                <Show when=move || !attach.get()>
                    <label>
                        {live_text(Msg::TerminalCommand)}
                        " "
                        <input
                            type="text"
                            class="terminal__command"
                            data-testid="terminal-command"
                            title=live_text(Msg::TerminalCommandHint)
                            prop:value=move || command.get()
                            on:input=move |e| command.set(event_target_value(&e))
                        />
                    </label>
                </Show>
                <button
                    class="button"
                    data-testid="terminal-connect"
                    disabled=move || active.get() || plan.with(Option::is_none) || refused.with(Option::is_some)
                    on:click=connect
                >
                    {connect_label}
                </button>
                <button
                    class="button button--quiet"
                    data-testid="terminal-disconnect"
                    disabled=move || !active.get()
                    on:click=move |_| session.stop.run(())
                >
                    {live_text(Msg::TerminalDisconnect)}
                </button>
            </div>
            {move || {
                parsed
                    .get()
                    .err()
                    .filter(|_| !attach.get())
                    .map(|e| view! { <p class="warning" role="alert">{localized(&e)}</p> })
            }}
            <PhaseLine phase=session.phase />
            <ScreenView screen label typed=session.typed resized=session.resized />
            <ConnectionFacts plan />
        </section>
    }
}

/// The container choice.
#[component]
fn ContainerPicker(
    /// The pod's containers.
    containers: Vec<String>,
    /// The chosen one.
    container: RwSignal<String>,
) -> impl IntoView {
    if containers.is_empty() {
        return view! { <p class="warning">{live_text(Msg::TerminalNoContainers)}</p> }.into_any();
    }
    view! {
        <label>
            {live_text(Msg::TerminalContainer)}
            " "
            <select
                data-testid="terminal-container"
                prop:value=move || container.get()
                on:change=move |e| container.set(event_target_value(&e))
            >
                {containers
                    .into_iter()
                    .map(|name| view! { <option value=name.clone()>{name.clone()}</option> })
                    .collect_view()}
            </select>
        </label>
    }
    .into_any()
}

/// Where the session stands, in words; the proxy's refusal with its explanation.
#[component]
fn PhaseLine(
    /// The session's phase.
    phase: Signal<Phase>,
) -> impl IntoView {
    move || {
        let line = match phase.get() {
            Phase::Idle => text_now(Msg::TerminalIdle),
            Phase::Checking => text_now(Msg::TerminalChecking),
            Phase::Connecting => text_now(Msg::TerminalConnecting),
            Phase::Open { protocol } => filled_text(Msg::TerminalOpen, &[("protocol", &protocol.name())]),
            Phase::Ended(Ending::Failure { message, reason }) => {
                filled_text(Msg::TerminalEndedFailure, &[("message", &message), ("reason", &reason)])
            }
            Phase::Ended(ending) => {
                filled_text(Msg::TerminalExitCode, &[("code", &ending.exit_code().unwrap_or_default())])
            }
            Phase::Closed => text_now(Msg::TerminalClosed),
            Phase::Failed(TerminalError::ProxyRefused) => return view! { <ProxyRefused /> }.into_any(),
            Phase::Failed(error) => {
                return view! {
                    <p class="warning" role="alert" data-testid="terminal-status">
                        {localized(&error)}
                    </p>
                }
                .into_any();
            }
        };
        view! {
            <p role="status" data-testid="terminal-status">
                {line}
            </p>
        }
        .into_any()
    }
}

/// `kubectl proxy` refused exec or attach: why, and the flag that allows it.
#[component]
fn ProxyRefused() -> impl IntoView {
    let flag = "kubectl proxy --www=DIR --www-prefix=/explorer/ --reject-paths='^$'";
    view! {
        <div class="warning terminal__proxy" role="alert" data-testid="terminal-status">
            <p>{localized(&TerminalError::ProxyRefused)}</p>
            <p>{live_text(Msg::TerminalProxyWhy)}</p>
            <p>{live_text(Msg::TerminalProxyFlag)}</p>
            <CopyCode text=Signal::stored(flag.to_owned()) testid="terminal-proxy-flag" />
        </div>
    }
}

/// The exact URL, subprotocols and kubectl line of the session the form describes.
#[component]
fn ConnectionFacts(
    /// The session the form describes, if valid.
    plan: Signal<Option<SessionPlan>>,
) -> impl IntoView {
    let base = crate::client::handle::use_client().base_display();
    let url = Signal::derive(move || plan.get().and_then(|p| p.websocket_url(&base).ok()).unwrap_or_default());
    let kubectl = Signal::derive(move || plan.get().map(|p| p.kubectl()).unwrap_or_default());
    let offer = Protocol::OFFER.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
    view! {
        <section class="terminal__connection" aria-label=live_text(Msg::TerminalConnection)>
            <dl class="facts">
                <dt>{live_text(Msg::TerminalUrl)}</dt>
                <dd>
                    <CopyCode text=url testid="terminal-url" />
                </dd>
                <dt>{live_text(Msg::TerminalSubprotocols)}</dt>
                <dd>
                    <CopyCode text=Signal::stored(offer) testid="terminal-protocols" />
                </dd>
                <dt>{live_text(Msg::TerminalKubectl)}</dt>
                <dd>
                    <CopyCode text=kubectl testid="terminal-kubectl" />
                </dd>
            </dl>
        </section>
    }
}

/// A line of code and a button that copies it.
#[component]
fn CopyCode(
    /// The text.
    text: Signal<String>,
    /// The code element's test id.
    testid: &'static str,
) -> impl IntoView {
    let copied = RwSignal::new(false);
    Effect::new(move |_| {
        text.track();
        copied.set(false);
    });
    let copy = move |_| {
        let _ = window().navigator().clipboard().write_text(&text.get_untracked());
        copied.set(true);
    };
    view! {
        <code class="terminal__code" data-testid=testid>
            {move || text.get()}
        </code>
        " "
        <button class="button button--quiet" on:click=copy>
            {move || if copied.get() { text_now(Msg::Copied) } else { text_now(Msg::CopyText) }}
        </button>
    }
}
