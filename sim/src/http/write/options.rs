//! The options every write takes (`dryRun`, `fieldManager`, `fieldValidation`), read from the
//! query, and the 422 a bad one gets.

use serde_json::json;

use crate::http::Ctx;
use crate::rules::status::{ApiError, ApiResult, Cause, Details, FieldError, Status};

/// How strictly unknown and duplicate fields are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    Warn,
    Strict,
}

/// Options every write takes from the query.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub manager: String,
    pub manager_given: bool,
    pub validation: FieldValidation,
    pub force: Option<bool>,
}

impl WriteOptions {
    pub fn parse(ctx: &Ctx) -> ApiResult<WriteOptions> {
        let kind = match ctx.method.as_str() {
            "POST" => "CreateOptions",
            "PUT" => "UpdateOptions",
            "DELETE" => "DeleteOptions",
            _ => "PatchOptions",
        };
        let dry_run = match ctx.query.get("dryRun").map(String::as_str) {
            None | Some("") => false,
            Some("All") => true,
            Some(other) => {
                let e = FieldError {
                    reason: "FieldValueNotSupported",
                    field: "dryRun".into(),
                    detail: format!("Unsupported value: [\"{other}\"]: supported values: \"All\""),
                };
                return Err(options_invalid(kind, vec![e]));
            }
        };
        let validation = match ctx.query.get("fieldValidation").map(String::as_str) {
            None | Some("") | Some("Warn") => FieldValidation::Warn,
            Some("Ignore") => FieldValidation::Ignore,
            Some("Strict") => FieldValidation::Strict,
            Some(other) => {
                let e = FieldError::not_supported("fieldValidation", other, &["", "Ignore", "Strict", "Warn"]);
                return Err(options_invalid(kind, vec![e]));
            }
        };
        let given = ctx.query.get("fieldManager").filter(|m| !m.is_empty()).cloned();
        let manager = given.clone().unwrap_or_else(|| {
            let ua = ctx.header("user-agent").unwrap_or("unknown");
            ua.split('/').next().unwrap_or(ua).chars().take(128).collect()
        });
        if manager.chars().count() > 128 {
            return Err(options_invalid(
                "PatchOptions",
                vec![FieldError::invalid("fieldManager", &json!(manager), "must be less than 128 characters")],
            ));
        }
        let force = match ctx.query.get("force").map(String::as_str) {
            None => None,
            Some("true" | "1") => Some(true),
            Some(_) => Some(false),
        };
        Ok(WriteOptions { dry_run, manager, manager_given: given.is_some(), validation, force })
    }
}

/// `XOptions.meta.k8s.io "" is invalid: ...` as the option validators answer.
pub fn options_invalid(kind: &str, errors: Vec<FieldError>) -> ApiError {
    let list: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect();
    let joined = if list.len() == 1 { list[0].clone() } else { format!("[{}]", list.join(", ")) };
    Status::failure(422, "Invalid", format!("{kind}.meta.k8s.io \"\" is invalid: {joined}"))
        .with_details(Details {
            group: "meta.k8s.io".into(),
            kind: kind.into(),
            causes: errors
                .iter()
                .map(|e| Cause { reason: e.reason.into(), message: e.detail.clone(), field: e.field.clone() })
                .collect(),
            ..Details::default()
        })
        .into()
}

#[cfg(test)]
mod tests {
    use axum::http::Method;

    use super::*;
    use crate::rules::status::ApiError;

    fn message(error: ApiError) -> String {
        match error {
            ApiError::Status(status) => format!("{} {}", status.code, status.message),
            ApiError::PageNotFound => "404 page not found".to_owned(),
        }
    }

    #[test]
    fn write_options_default_to_warn_and_no_dry_run() {
        let options = WriteOptions::parse(&Ctx::for_test(Method::POST, &[("fieldManager", "me")])).expect("valid");
        assert!(!options.dry_run);
        assert_eq!(options.validation, FieldValidation::Warn);
        assert_eq!((options.manager.as_str(), options.manager_given), ("me", true));
        assert_eq!(options.force, None);
    }

    #[test]
    fn a_bad_dry_run_is_refused_naming_the_options_kind_of_the_verb() {
        let put = WriteOptions::parse(&Ctx::for_test(Method::PUT, &[("dryRun", "Some")])).expect_err("refused");
        let text = message(put);
        assert!(text.starts_with("422 UpdateOptions.meta.k8s.io \"\" is invalid"), "{text}");
        assert!(text.contains(r#"Unsupported value: ["Some"]: supported values: "All""#), "{text}");
        let strict = WriteOptions::parse(&Ctx::for_test(Method::PATCH, &[("fieldValidation", "Loud")]));
        assert!(message(strict.expect_err("refused")).contains("PatchOptions"));
    }
}
