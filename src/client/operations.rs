//! The driver of an operation (`model::operations`): sends the plan's read, then its write, and
//! hands back what came of each. It decides nothing: the plan says what to send.

use crate::api::codec::value::Value;
use crate::client::answer::{send_write, Answer};
use crate::client::error::ApiError;
use crate::client::handle::Client;
use crate::model::operations::{read, related_request, Operation, Plan, Target};

/// Sends the read every operation starts with (the GET kubectl sends first) and returns the
/// object, for the plan.
pub async fn read_target(client: &Client, target: &Target) -> Result<Value, ApiError> {
    client.document(read(target)).await.map(|(_, object)| object)
}

/// What an operation reads before it plans: the object, then what the plan needs beside it
/// (`model::operations::related_request`: a Deployment's ReplicaSets for undo, as kubectl's second
/// GET). A related request that cannot be made leaves it `None`; the plan then says what is missing.
pub async fn read_for(
    client: &Client,
    target: &Target,
    operation: Operation,
) -> Result<(Value, Option<Value>), ApiError> {
    let object = read_target(client, target).await?;
    let related = match related_request(operation, target, &object) {
        Some(Ok(request)) => Some(client.document(request).await?.1),
        Some(Err(_)) | None => None,
    };
    Ok((object, related))
}

/// Sends the plan's write, exactly as planned (the client refuses it in read-only mode).
pub async fn send_plan(client: &Client, plan: &Plan) -> Answer {
    send_write(client, plan.write().clone()).await
}
