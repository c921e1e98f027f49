//! The self reviews sent over the [`Client`]: who the user is (SelfSubjectReview), the rules of a
//! namespace (SelfSubjectRulesReview) and one precise question (SelfSubjectAccessReview). They
//! are POSTs that store nothing, so the write gate lets them through in read-only mode.

use crate::api::access::{access_review, rules_review, user_info, ResourceAttributes, RulesReview, UserInfo};
use crate::client::error::ApiError;
use crate::client::handle::Client;
use crate::i18n::Localized;
use crate::model::requests;

/// Asks the server who the user is.
pub async fn who_am_i(client: &Client) -> Result<UserInfo, ApiError> {
    let (fetched, document) = client.document(requests::who_am_i()).await?;
    user_info(&document).map_err(|e| ApiError::Undecodable { code: fetched.response.status, message: e.text() })
}

/// Asks the server for the user's rules in `namespace`.
pub async fn rules_of(client: &Client, namespace: &str) -> Result<RulesReview, ApiError> {
    let (fetched, document) = client.document(requests::rules_of(namespace)).await?;
    rules_review(&document).map_err(|e| ApiError::Undecodable { code: fetched.response.status, message: e.text() })
}

/// Asks the server whether the user may do one thing: `(allowed, reason)`.
pub async fn can_i(client: &Client, attributes: &ResourceAttributes) -> Result<(bool, Option<String>), ApiError> {
    let (fetched, document) = client.document(requests::can_i(attributes)).await?;
    access_review(&document).map_err(|e| ApiError::Undecodable { code: fetched.response.status, message: e.text() })
}
