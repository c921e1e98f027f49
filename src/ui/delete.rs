//! Deleting: one object with `DeleteOptions` (propagation policy, grace period, preconditions on
//! uid and resourceVersion, dry-run), followed until it is gone when finalizers hold it; and
//! deletecollection of the filtered collection, with the count and a confirmation naming it.
//! Every destructive action asks for a confirmation naming what it deletes.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::params::{ListOptions, ListParams};
use crate::api::request::{Collection, ObjectRef};
use crate::client::answer::{read_object, send_write, Answer};
use crate::client::fetch::sleep;
use crate::client::handle::use_client;
use crate::i18n::{Msg, Text};
use crate::model::requests;
use crate::model::write::{delete_params, finalizing, DeleteChoice};
use crate::ui::i18n::{t, tf, tl, tr, worded};
use crate::ui::status_view::StatusView;
use crate::ui::write_policy::use_write_policy;

/// Where a deleted object stands.
#[derive(Debug, Clone, PartialEq)]
enum Progress {
    /// Nothing sent yet.
    Idle,
    /// The server refused or failed.
    Failed(Answer),
    /// Dry run accepted: nothing deleted.
    DryRun(Answer),
    /// Deletion started; finalizers still to run (since, finalizers).
    Finalizing(String, Vec<String>),
    /// The object is gone.
    Gone,
}

/// The delete form of one object.
#[component]
pub fn DeletePanel(
    object: ObjectRef,
    /// `Kind namespace/name`, named in the confirmation.
    title: String,
    /// Called when the object changed or went.
    on_changed: Callback<()>,
) -> impl IntoView {
    let client = use_client();
    let policy = use_write_policy();
    let propagation = RwSignal::new(String::new());
    let grace = RwSignal::new(String::new());
    let with_uid = RwSignal::new(false);
    let with_rv = RwSignal::new(false);
    let dry_run = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let progress = RwSignal::new(Progress::Idle);
    // The object as read now, for the preconditions.
    let current = RwSignal::new(None::<Value>);
    {
        let (client, object) = (client.clone(), object.clone());
        client.tasks().spawn(async move {
            if let Ok(value) = read_object(&client, &object).await {
                current.set(Some(value));
            }
        });
    }
    let field = move |path: [&'static str; 2]| {
        current.with(|c| c.as_ref().and_then(|c| c.at(&path)).and_then(Value::as_str).map(str::to_string))
    };
    let uid = move || field(["metadata", "uid"]);
    let rv = move || field(["metadata", "resourceVersion"]);
    let choice = move || DeleteChoice {
        propagation: propagation.get(),
        grace_period: grace.get(),
        uid: if with_uid.get() { uid() } else { None },
        resource_version: if with_rv.get() { rv() } else { None },
        dry_run: dry_run.get(),
    };
    let request_object = object.clone();
    let request = Memo::new(move |_| delete_params(&choice()).map(|p| requests::delete(&request_object, &p)));

    // Follows a deleting object until it is gone.
    let poll = {
        let (client, object) = (client.clone(), object.clone());
        move || {
            let (client, object) = (client.clone(), object.clone());
            client.tasks().spawn(async move {
                loop {
                    let Progress::Finalizing(..) = progress.get_untracked() else { return };
                    sleep(Duration::from_millis(1000)).await;
                    match read_object(&client, &object).await {
                        Ok(value) => match finalizing(&value) {
                            Some((since, left)) => progress.set(Progress::Finalizing(since, left)),
                            None => return,
                        },
                        Err(e) if e.is_not_found() => {
                            progress.set(Progress::Gone);
                            on_changed.run(());
                            return;
                        }
                        Err(_) => {}
                    }
                }
            });
        }
    };
    let send = move |_: leptos::ev::MouseEvent| {
        let Ok(request) = request.get_untracked() else { return };
        if !policy.allows_writes() {
            return;
        }
        confirming.set(false);
        let client = client.clone();
        let is_dry = dry_run.get_untracked();
        let poll = poll.clone();
        client.tasks().spawn(async move {
            let answer = send_write(&client, request).await;
            if !(200..300).contains(&answer.status) {
                progress.set(Progress::Failed(answer));
                return;
            }
            if is_dry {
                progress.set(Progress::DryRun(answer));
                return;
            }
            match answer.object.as_ref().and_then(finalizing) {
                Some((since, left)) => {
                    progress.set(Progress::Finalizing(since, left));
                    on_changed.run(());
                    poll();
                }
                None => {
                    progress.set(Progress::Gone);
                    on_changed.run(());
                }
            }
        });
    };
    let state = move || match progress.get() {
        Progress::Idle => ().into_any(),
        Progress::Failed(answer) => match answer.status_body {
            Some(status) => view! { <StatusView status /> }.into_any(),
            None => view! { <p class="warning" role="alert">{answer.problem.map(|p| worded(move || tl(&p)))}</p> }
                .into_any(),
        },
        Progress::DryRun(answer) => view! {
            <p class="notice" data-testid="delete-state">
                {worded(move || tf(Msg::DryRunWouldDelete, &[("status", &answer.status)]))}
            </p>
        }
        .into_any(),
        Progress::Finalizing(since, left) => view! {
            <p class="notice" data-testid="delete-state" aria-live="polite">
                {
                    let remaining = left.join(", ");
                    worded(move || tf(Msg::BeingFinalized, &[("since", &since), ("remaining", &remaining)]))
                }
            </p>
        }
        .into_any(),
        Progress::Gone => view! {
            <p class="notice" data-testid="delete-state" aria-live="polite">{t(Msg::DeletedGone)}</p>
        }
        .into_any(),
    };
    let confirm_title = title.clone();
    view! {
        <section class="panel write" aria-label=t(Msg::DeleteObject)>
            <h3>
                {
                    let title = title.clone();
                    worded(move || tf(Msg::DeleteTitle, &[("title", &title)]))
                }
            </h3>
            <div class="toolbar">
                <label class="toolbar__field">
                    {t(Msg::Propagation)}
                    " "
                    <select aria-label=t(Msg::PropagationPolicy) on:change=move |e| propagation.set(event_target_value(&e))>
                        <option value="">{t(Msg::ServerDefault)}</option>
                        <option value="Background">"Background"</option>
                        <option value="Foreground">"Foreground"</option>
                        <option value="Orphan">"Orphan"</option>
                    </select>
                </label>
                <label class="toolbar__field">
                    {t(Msg::GracePeriodSeconds)}
                    " "
                    <input aria-label=t(Msg::GracePeriod) size="6" prop:value=move || grace.get() on:input=move |e| grace.set(event_target_value(&e)) />
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || with_uid.get() on:change=move |e| with_uid.set(event_target_checked(&e)) />
                    " "
                    {worded(move || tf(Msg::OnlyIfUid, &[("uid", &uid().unwrap_or_default())]))}
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || with_rv.get() on:change=move |e| with_rv.set(event_target_checked(&e)) />
                    " "
                    {worded(move || tf(Msg::OnlyIfResourceVersion, &[("rv", &rv().unwrap_or_default())]))}
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || dry_run.get() on:change=move |e| dry_run.set(event_target_checked(&e)) />
                    " "
                    {t(Msg::DryRun)}
                </label>
            </div>
            {move || match request.get() {
                Err(e) => view! { <p class="warning" role="alert">{tl(&e)}</p> }.into_any(),
                Ok(r) => {
                    let body = r.body().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
                    view! {
                        <pre class="document__text write__request" data-testid="delete-preview" tabindex="0">
                            {format!("{} {}\n\n{body}", r.method(), r.path_and_query())}
                        </pre>
                    }
                    .into_any()
                }
            }}
            <div class="toolbar">
                <button
                    class="button button--danger"
                    disabled=move || !policy.allows_writes() || request.with(Result::is_err)
                    on:click=move |_| confirming.set(true)
                >
                    {
                        let title = title.clone();
                        worded(move || tf(Msg::DeleteTitleEntry, &[("title", &title)]))
                    }
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{t(Msg::ReadOnlyNothingSent)}</span> })}
            </div>
            {move || {
                let title = confirm_title.clone();
                let send = send.clone();
                confirming.get().then(move || {
                    view! {
                        <div class="confirm" role="alertdialog" aria-label=t(Msg::ConfirmDelete)>
                            <p>
                                {tf(
                                    if dry_run.get() { Msg::ConfirmDryRunDeleteQuestion } else { Msg::ConfirmDeleteQuestion },
                                    &[("title", &title)],
                                )}
                            </p>
                            <button class="button button--danger" on:click=send>{tf(Msg::YesDelete, &[("title", &title)])}</button>
                            <button class="button button--quiet" on:click=move |_| confirming.set(false)>{t(Msg::Cancel)}</button>
                        </div>
                    }
                })
            }}
            {state}
        </section>
    }
}

/// deletecollection of `resource` in `namespace` with the view's selectors: counts first, then
/// asks for a confirmation naming the collection and the count.
#[component]
pub fn DeleteCollectionPanel(
    resource: ResourceType,
    namespace: Option<String>,
    label_selector: Option<String>,
    field_selector: Option<String>,
    /// Called after the collection changed.
    on_changed: Callback<()>,
) -> impl IntoView {
    let client = use_client();
    let policy = use_write_policy();
    let dry_run = RwSignal::new(false);
    let count = RwSignal::new(None::<Result<usize, Text>>);
    let result = RwSignal::new(None::<Answer>);
    let confirming = RwSignal::new(false);
    let collection = Collection::new(&resource, namespace.as_deref()).map_err(|e| tl(&e));
    let list_params = ListParams::new(ListOptions {
        label_selector: label_selector.clone(),
        field_selector: field_selector.clone(),
        ..ListOptions::default()
    })
    .map_err(|e| tl(&e));
    let what = format!(
        "{}{}{}{}",
        resource.plural,
        namespace
            .as_ref()
            .map(|n| tf(Msg::InNamespace, &[("namespace", n)]))
            .unwrap_or_else(|| tr(Msg::InAllNamespaces)),
        label_selector.as_ref().map(|l| tf(Msg::WithLabels, &[("labels", l)])).unwrap_or_default(),
        field_selector.as_ref().map(|f| tf(Msg::WithFields, &[("fields", f)])).unwrap_or_default(),
    );
    let targets = match (collection, list_params) {
        (Ok(c), Ok(p)) => Ok((c, p)),
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    let count_targets = targets.clone();
    let count_api = client.clone();
    let recount = move || {
        let Ok((collection, params)) = count_targets.clone() else { return };
        let client = count_api.clone();
        client.tasks().spawn(async move {
            let request = requests::count_collection(&collection, &params);
            let answer = send_write(&client, request).await;
            count.set(Some(match answer.object {
                Some(list) => Ok(list.get("items").and_then(Value::as_array).map_or(0, <[Value]>::len)),
                None => Err(answer
                    .problem
                    .or(answer.status_body.map(|s| Text::verbatim(s.message)))
                    .unwrap_or_else(|| Text::verbatim(format!("HTTP {}", answer.status)))),
            }));
        });
    };
    recount();
    let send_targets = targets.clone();
    let send = {
        let recount = recount.clone();
        move |_: leptos::ev::MouseEvent| {
            let Ok((collection, params)) = send_targets.clone() else { return };
            if !policy.allows_writes() {
                return;
            }
            confirming.set(false);
            let client = client.clone();
            let recount = recount.clone();
            let options = crate::api::params::DeleteParams { dry_run: dry_run.get_untracked(), ..Default::default() };
            client.tasks().spawn(async move {
                let request = requests::delete_collection(&collection, &params, &options);
                let answer = send_write(&client, request).await;
                result.set(Some(answer));
                recount();
                on_changed.run(());
            });
        }
    };
    let what_confirm = what.clone();
    view! {
        <section class="panel write" aria-label=t(Msg::DeleteCollection)>
            <h3>
                {
                    let what = what.clone();
                    worded(move || tf(Msg::DeleteCollectionTitle, &[("what", &what)]))
                }
            </h3>
            <p data-testid="deletecollection-count">
                {move || match count.get() {
                    None => tr(Msg::Counting),
                    Some(Ok(n)) => tf(Msg::ObjectsMatchNow, &[("count", &n)]),
                    Some(Err(e)) => tf(Msg::CouldNotCount, &[("error", &tl(&e))]),
                }}
            </p>
            <div class="toolbar">
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || dry_run.get() on:change=move |e| dry_run.set(event_target_checked(&e)) />
                    " "
                    {t(Msg::DryRun)}
                </label>
                <button
                    class="button button--danger"
                    disabled=move || !policy.allows_writes() || !matches!(count.get(), Some(Ok(n)) if n > 0)
                    on:click=move |_| confirming.set(true)
                >
                    {t(Msg::DeleteThese)}
                </button>
            </div>
            {move || {
                let send = send.clone();
                let what = what_confirm.clone();
                confirming.get().then(move || {
                    let n = count.get().and_then(Result::ok).unwrap_or(0);
                    view! {
                        <div class="confirm" role="alertdialog" aria-label=t(Msg::ConfirmDeleteCollection)>
                            <p>{tf(Msg::ConfirmDeleteCollectionQuestion, &[("count", &n), ("what", &what)])}</p>
                            <button class="button button--danger" on:click=send>
                                {tf(Msg::YesDeleteCount, &[("count", &n), ("what", &what)])}
                            </button>
                            <button class="button button--quiet" on:click=move |_| confirming.set(false)>{t(Msg::Cancel)}</button>
                        </div>
                    }
                })
            }}
            {move || {
                result.get().map(|a| match a.status_body.clone().filter(|_| !(200..300).contains(&a.status)) {
                    Some(status) => view! { <StatusView status /> }.into_any(),
                    None => view! {
                        <p class="notice" data-testid="deletecollection-result">
                            {worded(move || {
                                format!(
                                    "HTTP {} {}{}",
                                    a.status,
                                    a.status_text,
                                    a.problem.as_ref().map(|p| format!(": {}", tl(p))).unwrap_or_default()
                                )
                            })}
                        </p>
                    }
                    .into_any(),
                })
            }}
        </section>
    }
}
