//! Deleting: one object with `DeleteOptions` (propagation policy, grace period, preconditions on
//! uid and resourceVersion, dry-run), followed until it is gone when finalizers hold it; and
//! deletecollection of the filtered collection, with the count and a confirmation naming it.
//! Every destructive action asks for a confirmation naming what it deletes.

use leptos::prelude::*;

use crate::api::codec::value::Value;
use crate::api::discovery::ResourceType;
use crate::api::params::{ListOptions, ListParams};
use crate::api::request::{Collection, ObjectRef};
use crate::client::answer::WriteFailure;
use crate::client::delete::{use_delete, use_delete_collection, UseDelete, UseDeleteCollection};
use crate::i18n::{Localized, Msg};
use crate::model::requests;
use crate::model::write::{delete_params, DeleteChoice};
use crate::ui::i18n::{filled_text, live_text, localized, text_now, worded};
use crate::ui::status_view::StatusView;
use crate::ui::write_policy::use_write_policy;

/// The delete form of one object.
#[component]
pub fn DeletePanel(
    object: ObjectRef,
    /// `Kind namespace/name`, named in the confirmation.
    title: String,
    /// Called when the object changed or went.
    on_changed: Callback<()>,
) -> impl IntoView {
    let policy = use_write_policy();
    let propagation = RwSignal::new(String::new());
    let grace = RwSignal::new(String::new());
    let with_uid = RwSignal::new(false);
    let with_rv = RwSignal::new(false);
    let dry_run = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let UseDelete { current, send: deleting, progress } = use_delete(&object, on_changed);
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
    let send = move |_: leptos::ev::MouseEvent| {
        let Ok(request) = request.get_untracked() else { return };
        if !policy.allows_writes() {
            return;
        }
        confirming.set(false);
        deleting.dispatch_local((request, dry_run.get_untracked()));
    };
    let state = move || match progress.get() {
        None => ().into_any(),
        Some(Err(WriteFailure::Refused(status))) => view! { <StatusView status=*status /> }.into_any(),
        Some(Err(WriteFailure::Problem(problem))) => {
            view! { <p class="warning" role="alert">{worded(move || localized(&problem))}</p> }.into_any()
        }
        Some(Ok(now)) => view! {
            <p class="notice" data-testid="delete-state" aria-live="polite">{worded(move || localized(&now))}</p>
        }
        .into_any(),
    };
    let confirm_title = title.clone();
    view! {
        <section class="panel write" aria-label=live_text(Msg::DeleteObject)>
            <h3>
                {
                    let title = title.clone();
                    worded(move || filled_text(Msg::DeleteTitle, &[("title", &title)]))
                }
            </h3>
            <div class="toolbar">
                <label class="toolbar__field">
                    {live_text(Msg::Propagation)}
                    " "
                    <select aria-label=live_text(Msg::PropagationPolicy) on:change=move |e| propagation.set(event_target_value(&e))>
                        <option value="">{live_text(Msg::ServerDefault)}</option>
                        <option value="Background">"Background"</option>
                        <option value="Foreground">"Foreground"</option>
                        <option value="Orphan">"Orphan"</option>
                    </select>
                </label>
                <label class="toolbar__field">
                    {live_text(Msg::GracePeriodSeconds)}
                    " "
                    <input aria-label=live_text(Msg::GracePeriod) size="6" prop:value=move || grace.get() on:input=move |e| grace.set(event_target_value(&e)) />
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || with_uid.get() on:change=move |e| with_uid.set(event_target_checked(&e)) />
                    " "
                    {worded(move || filled_text(Msg::OnlyIfUid, &[("uid", &uid().unwrap_or_default())]))}
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || with_rv.get() on:change=move |e| with_rv.set(event_target_checked(&e)) />
                    " "
                    {worded(move || filled_text(Msg::OnlyIfResourceVersion, &[("rv", &rv().unwrap_or_default())]))}
                </label>
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || dry_run.get() on:change=move |e| dry_run.set(event_target_checked(&e)) />
                    " "
                    {live_text(Msg::DryRun)}
                </label>
            </div>
            {move || match request.get() {
                Err(e) => view! { <p class="warning" role="alert">{localized(&e)}</p> }.into_any(),
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
                        worded(move || filled_text(Msg::DeleteTitleEntry, &[("title", &title)]))
                    }
                </button>
                {move || (!policy.allows_writes()).then(|| view! { <span class="muted">{live_text(Msg::ReadOnlyNothingSent)}</span> })}
            </div>
            {move || {
                let title = confirm_title.clone();
                confirming.get().then(move || {
                    view! {
                        <div class="confirm" role="alertdialog" aria-label=live_text(Msg::ConfirmDelete)>
                            <p>
                                {filled_text(
                                    if dry_run.get() { Msg::ConfirmDryRunDeleteQuestion } else { Msg::ConfirmDeleteQuestion },
                                    &[("title", &title)],
                                )}
                            </p>
                            <button class="button button--danger" on:click=send>{filled_text(Msg::YesDelete, &[("title", &title)])}</button>
                            <button class="button button--quiet" on:click=move |_| confirming.set(false)>{live_text(Msg::Cancel)}</button>
                        </div>
                    }
                })
            }}
            {state}
        </section>
    }
    .into_any()
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
    let policy = use_write_policy();
    let dry_run = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let collection = Collection::new(&resource, namespace.as_deref()).map_err(|e| e.text());
    let list_params = ListParams::new(ListOptions {
        label_selector: label_selector.clone(),
        field_selector: field_selector.clone(),
        ..ListOptions::default()
    })
    .map_err(|e| e.text());
    let what = format!(
        "{}{}{}{}",
        resource.plural,
        namespace
            .as_ref()
            .map(|n| filled_text(Msg::InNamespace, &[("namespace", n)]))
            .unwrap_or_else(|| text_now(Msg::InAllNamespaces)),
        label_selector.as_ref().map(|l| filled_text(Msg::WithLabels, &[("labels", l)])).unwrap_or_default(),
        field_selector.as_ref().map(|f| filled_text(Msg::WithFields, &[("fields", f)])).unwrap_or_default(),
    );
    let (collection, list_params) = match (collection, list_params) {
        (Ok(c), Ok(p)) => (c, p),
        (Err(e), _) | (_, Err(e)) => {
            return view! { <p class="warning" role="alert">{worded(move || localized(&e))}</p> }.into_any();
        }
    };
    let UseDeleteCollection { count, send: deleting } = use_delete_collection(collection, list_params, on_changed);
    let send = move |_: leptos::ev::MouseEvent| {
        if !policy.allows_writes() {
            return;
        }
        confirming.set(false);
        deleting.dispatch_local(dry_run.get_untracked());
    };
    let what_confirm = what.clone();
    view! {
        <section class="panel write" aria-label=live_text(Msg::DeleteCollection)>
            <h3>
                {
                    let what = what.clone();
                    worded(move || filled_text(Msg::DeleteCollectionTitle, &[("what", &what)]))
                }
            </h3>
            <p data-testid="deletecollection-count">
                {move || match count.get() {
                    None => text_now(Msg::Counting),
                    Some(Ok(n)) => filled_text(Msg::ObjectsMatchNow, &[("count", &n)]),
                    Some(Err(e)) => filled_text(Msg::CouldNotCount, &[("error", &localized(&e))]),
                }}
            </p>
            <div class="toolbar">
                <label class="toolbar__field">
                    <input type="checkbox" prop:checked=move || dry_run.get() on:change=move |e| dry_run.set(event_target_checked(&e)) />
                    " "
                    {live_text(Msg::DryRun)}
                </label>
                <button
                    class="button button--danger"
                    disabled=move || !policy.allows_writes() || !matches!(count.get(), Some(Ok(n)) if n > 0)
                    on:click=move |_| confirming.set(true)
                >
                    {live_text(Msg::DeleteThese)}
                </button>
            </div>
            {move || {
                let what = what_confirm.clone();
                confirming.get().then(move || {
                    let n = count.get().and_then(Result::ok).unwrap_or(0);
                    view! {
                        <div class="confirm" role="alertdialog" aria-label=live_text(Msg::ConfirmDeleteCollection)>
                            <p>{filled_text(Msg::ConfirmDeleteCollectionQuestion, &[("count", &n), ("what", &what)])}</p>
                            <button class="button button--danger" on:click=send>
                                {filled_text(Msg::YesDeleteCount, &[("count", &n), ("what", &what)])}
                            </button>
                            <button class="button button--quiet" on:click=move |_| confirming.set(false)>{live_text(Msg::Cancel)}</button>
                        </div>
                    }
                })
            }}
            {move || {
                deleting.value().get().flatten().map(|result| match result {
                    Ok((status, status_text)) => view! {
                        <p class="notice" data-testid="deletecollection-result">{format!("HTTP {status} {status_text}")}</p>
                    }
                    .into_any(),
                    Err(WriteFailure::Refused(status)) => view! { <StatusView status=*status /> }.into_any(),
                    Err(WriteFailure::Problem(problem)) => {
                        view! { <p class="warning" role="alert">{worded(move || localized(&problem))}</p> }.into_any()
                    }
                })
            }}
        </section>
    }
    .into_any()
}
