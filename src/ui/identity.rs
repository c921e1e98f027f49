//! "Who am I": the top bar's User fact, from a SelfSubjectReview sent once when the app starts
//! (and again on demand). "unknown" with the reason when the API refuses or lacks the review.

use leptos::prelude::*;

use crate::api::access::UserInfo;
use crate::client::access::who_am_i;
use crate::client::error::ApiError;
use crate::client::handle::Client;
use crate::i18n::Msg;
use crate::ui::i18n::{filled_text, live_text, localized, text_now};

/// The user the API server sees, provided as context by the app.
#[derive(Clone, Copy)]
pub struct Identity {
    pub user: LocalResource<Result<UserInfo, ApiError>>,
}

impl Identity {
    /// Sends the SelfSubjectReview through `client` and provides the answer as context.
    pub fn install(client: &Client) -> Identity {
        let client = client.clone();
        let identity = Identity {
            user: LocalResource::new(move || {
                let client = client.clone();
                async move { who_am_i(&client).await }
            }),
        };
        provide_context(identity);
        identity
    }
}

/// Why the user is unknown, in words.
fn unknown_reason(error: &ApiError) -> String {
    match error {
        error if error.is_not_found() => text_now(Msg::NoSelfSubjectReview),
        ApiError::Status(status) if status.code == 403 => {
            filled_text(Msg::SelfSubjectReviewRefused, &[("message", &status.message)])
        }
        error => filled_text(Msg::SelfSubjectReviewFailed, &[("error", &localized(error))]),
    }
}

/// The top bar's User fact.
#[component]
pub fn IdentityFact(
    /// The identity to show.
    identity: Identity,
) -> impl IntoView {
    let shown = move || match identity.user.get() {
        None => view! { <dd aria-busy="true">{live_text(Msg::Asking)}</dd> }.into_any(),
        Some(Ok(user)) => {
            let groups = user.groups.join(", ");
            let title = match &user.uid {
                Some(uid) => filled_text(Msg::UidAndGroups, &[("uid", uid), ("groups", &groups)]),
                None => filled_text(Msg::GroupsOnly, &[("groups", &groups)]),
            };
            view! {
                <dd data-testid="identity-user" title=title>
                    {user.username.clone()}
                </dd>
                <dd class="muted identity__groups" data-testid="identity-groups">
                    {if groups.is_empty() { text_now(Msg::NoGroups) } else { groups }}
                </dd>
            }
            .into_any()
        }
        Some(Err(error)) => view! {
            <dd data-testid="identity-user">{live_text(Msg::UnknownUser)}</dd>
            <dd class="muted identity__groups" data-testid="identity-unknown-reason">
                {unknown_reason(&error)}
            </dd>
        }
        .into_any(),
    };
    view! {
        <div class="identity">
            <dt>{live_text(Msg::User)}</dt>
            {shown}
        </div>
    }
}
