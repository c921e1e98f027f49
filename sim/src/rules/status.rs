//! `Status` bodies and the API error type. Every failure an API handler returns becomes a Status
//! shaped like the real server's (kind, apiVersion, metadata {}, status, message, reason, details,
//! code), except unknown paths, which get the plain-text `404 page not found` as the real mux.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::store::registry::ResourceType;

#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub kind: &'static str,
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    pub metadata: Map<String, Value>,
    pub status: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
    /// Omitted (0) in a success Status, as the real server writes it.
    #[serde(skip_serializing_if = "is_zero")]
    pub code: u16,
}

fn is_zero(code: &u16) -> bool {
    *code == 0
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Details {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<Cause>,
    #[serde(rename = "retryAfterSeconds", skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cause {
    pub reason: String,
    pub message: String,
    /// Left out when empty, as `metav1.StatusCause` writes it (`omitempty`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub field: String,
}

impl Status {
    pub fn failure(code: u16, reason: &str, message: impl Into<String>) -> Status {
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: Map::new(),
            status: "Failure",
            message: message.into(),
            reason: reason.to_string(),
            details: None,
            code,
        }
    }

    pub fn success(details: Details) -> Status {
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: Map::new(),
            status: "Success",
            message: String::new(),
            reason: String::new(),
            details: Some(details),
            code: 0,
        }
    }

    pub fn with_details(mut self, details: Details) -> Status {
        self.details = Some(details);
        self
    }
}

/// What an API handler can fail with.
#[derive(Debug, Clone)]
pub enum ApiError {
    Status(Box<Status>),
    /// The mux's plain-text 404 for paths that name no served group, version or resource.
    PageNotFound,
}

impl From<Status> for ApiError {
    fn from(s: Status) -> Self {
        ApiError::Status(Box::new(s))
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

pub fn bad_request(message: impl Into<String>) -> ApiError {
    Status::failure(400, "BadRequest", message).into()
}

pub fn not_found(rt: &ResourceType, name: &str) -> ApiError {
    Status::failure(404, "NotFound", format!("{} \"{name}\" not found", rt.qualified_name()))
        .with_details(resource_details(rt, name))
        .into()
}

pub fn already_exists(rt: &ResourceType, name: &str) -> ApiError {
    Status::failure(409, "AlreadyExists", format!("{} \"{name}\" already exists", rt.qualified_name()))
        .with_details(resource_details(rt, name))
        .into()
}

pub fn conflict(rt: &ResourceType, name: &str, why: &str) -> ApiError {
    Status::failure(
        409,
        "Conflict",
        format!("Operation cannot be fulfilled on {} \"{name}\": {why}", rt.qualified_name()),
    )
    .with_details(resource_details(rt, name))
    .into()
}

pub fn method_not_allowed() -> ApiError {
    Status::failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        .with_details(Details::default())
        .into()
}

pub fn unsupported_media_type(accepted: &[&str]) -> ApiError {
    Status::failure(
        415,
        "UnsupportedMediaType",
        format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ),
    )
    .into()
}

pub fn not_acceptable() -> ApiError {
    Status::failure(
        406,
        "NotAcceptable",
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor",
    )
    .into()
}

pub fn resource_details(rt: &ResourceType, name: &str) -> Details {
    Details { name: name.to_string(), group: rt.group.clone(), kind: rt.plural.clone(), ..Details::default() }
}

/// A field error as the apimachinery validators phrase it.
#[derive(Debug, Clone)]
pub struct FieldError {
    pub reason: &'static str,
    pub field: String,
    pub detail: String,
}

impl FieldError {
    pub fn forbidden(field: &str, detail: impl Into<String>) -> FieldError {
        FieldError {
            reason: "FieldValueForbidden",
            field: field.into(),
            detail: format!("Forbidden: {}", detail.into()),
        }
    }

    /// `field.Required`: "Required value", with ": detail" only when there is one (the real
    /// server's structural validation says just "Required value").
    pub fn required(field: &str, detail: impl Into<String>) -> FieldError {
        let detail = detail.into();
        FieldError {
            reason: "FieldValueRequired",
            field: field.into(),
            detail: if detail.is_empty() { "Required value".to_string() } else { format!("Required value: {detail}") },
        }
    }

    pub fn invalid(field: &str, value: &Value, detail: impl Into<String>) -> FieldError {
        FieldError {
            reason: "FieldValueInvalid",
            field: field.into(),
            detail: format!("Invalid value: {}: {}", go_value(value), detail.into()),
        }
    }

    pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
        let quoted: Vec<String> = supported.iter().map(|s| format!("\"{s}\"")).collect();
        FieldError {
            reason: "FieldValueNotSupported",
            field: field.into(),
            detail: format!("Unsupported value: \"{value}\": supported values: {}", quoted.join(", ")),
        }
    }
}

fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// 422 Invalid for `kind` `name` in `group`, as `errors.NewInvalid` builds it.
pub fn invalid(group: &str, kind: &str, name: &str, errors: &[FieldError]) -> ApiError {
    let qualified = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
    let list: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect();
    let joined = if list.len() == 1 { list[0].clone() } else { format!("[{}]", list.join(", ")) };
    Status::failure(422, "Invalid", format!("{qualified} \"{name}\" is invalid: {joined}"))
        .with_details(Details {
            name: name.to_string(),
            group: group.to_string(),
            kind: kind.to_string(),
            causes: errors
                .iter()
                .map(|e| Cause { reason: e.reason.to_string(), message: e.detail.clone(), field: e.field.clone() })
                .collect(),
            ..Details::default()
        })
        .into()
}
