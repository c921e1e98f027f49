//! Documents the server describes itself with: OpenAPI documents and their index, a kind's
//! explanation, validation against a schema, discovery, and the access reviews.

use kube_wire::access::ReviewError;
use kube_wire::discovery::DiscoveryError;
use kube_wire::explain::{ExplainError, REF_PREFIX};
use kube_wire::openapi_index::IndexError;
use kube_wire::schema::SchemaError;
use kube_wire::validate::{Unreadable, ValidateError};

use crate::i18n::{Localized, Msg, Text};

impl Localized for SchemaError {
    fn text(&self) -> Text {
        match self {
            SchemaError::Json(error) => Text::new(Msg::SchemaInvalidDocument).with("error", error),
            SchemaError::NoSchemas => Text::new(Msg::SchemaNoSchemas),
        }
    }
}

impl Localized for ExplainError {
    fn text(&self) -> Text {
        match self {
            ExplainError::NoKind(kind) => Text::new(Msg::ExplainNoKind).with("kind", kind),
            ExplainError::MissingRef { field, reference } => {
                Text::new(Msg::ExplainMissingRef).with("field", field).with("reference", reference)
            }
            ExplainError::ForeignRef { field, reference } => Text::new(Msg::ExplainForeignRef)
                .with("field", field)
                .with("reference", reference)
                .with("prefix", REF_PREFIX),
            ExplainError::NotASchema { field, found } => {
                Text::new(Msg::ExplainNotASchema).with("field", field).with("found", found)
            }
        }
    }
}

impl Localized for IndexError {
    fn text(&self) -> Text {
        match self {
            IndexError::Json(error) => Text::new(Msg::IndexNotJson).with("error", error),
            IndexError::NoPaths => Text::new(Msg::IndexNoPaths),
            IndexError::Unlisted(key) => Text::new(Msg::IndexUnlisted).with("key", key),
            IndexError::BadUrl { key, found } => {
                Text::new(Msg::IndexBadUrl).with("key", key).with("found", format!("{found:?}"))
            }
        }
    }
}

impl Localized for ValidateError {
    fn text(&self) -> Text {
        match self {
            ValidateError::NoKind => Text::new(Msg::ValidateNoKind),
            ValidateError::UnknownKind(kind) => Text::new(Msg::ValidateUnknownKind).with("kind", kind),
        }
    }
}

/// The YAML decoder's words, as they are.
impl Localized for Unreadable {
    fn text(&self) -> Text {
        Text::verbatim(&self.0)
    }
}

impl Localized for DiscoveryError {
    fn text(&self) -> Text {
        match self {
            DiscoveryError::NotADocument { path, expected, detail } => Text::new(Msg::DiscoveryNotADocument)
                .with("expected", expected)
                .with("path", path)
                .with("detail", detail),
        }
    }
}

impl Localized for ReviewError {
    fn text(&self) -> Text {
        match self {
            ReviewError::Kind { expected, found } => {
                Text::new(Msg::ReviewKind).with("expected", expected).with("found", found)
            }
            ReviewError::Shape { path, expected } => {
                Text::new(Msg::ReviewShape).with("path", path).with_text("expected", expected)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use kube_wire::codec::value::ValueKind;

    use super::*;
    use crate::i18n::wire::tests::{check, check_all};

    #[test]
    fn document_errors_read_in_english_as_their_catalogue_texts() {
        check_all(&[SchemaError::Json("EOF".into()), SchemaError::NoSchemas]);
        check_all(&[
            ExplainError::NoKind("v1, Kind=Pod".into()),
            ExplainError::MissingRef { field: "spec".into(), reference: "#/components/schemas/x".into() },
            ExplainError::ForeignRef { field: "spec".into(), reference: "#/definitions/x".into() },
            ExplainError::NotASchema { field: "spec".into(), found: "a string".into() },
        ]);
        check_all(&[
            IndexError::Json("EOF".into()),
            IndexError::NoPaths,
            IndexError::Unlisted("apis/apps/v1".into()),
            IndexError::BadUrl { key: "api/v1".into(), found: "/x".into() },
        ]);
        check_all(&[ValidateError::NoKind, ValidateError::UnknownKind("v1, Kind=Pod".into())]);
        check(&Unreadable("did not find expected key".into()));
        check(&DiscoveryError::NotADocument {
            path: "/apis".into(),
            expected: "an APIGroupList",
            detail: "EOF".into(),
        });
        check_all(&[
            ReviewError::Kind { expected: "SelfSubjectReview", found: "Status".into() },
            ReviewError::Shape { path: "status.allowed", expected: ValueKind::Boolean },
        ]);
    }
}
