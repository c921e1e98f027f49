//! Writes: JSON patches, strategic merge patches, updates, managed fields, and the documents of
//! a create.

use kube_wire::write::documents::{DocumentError, DocumentProblem};
use kube_wire::write::managed_fields::ManagedFieldsError;
use kube_wire::write::patch::PatchError;
use kube_wire::write::strategic::{BadPatch, StrategicError};
use kube_wire::write::update::UpdateError;

use crate::i18n::{Localized, Msg, Text};

impl Localized for PatchError {
    fn text(&self) -> Text {
        match self {
            PatchError::BadOperation(found, why) => {
                Text::new(Msg::PatchBadOperation).with("found", found).with("why", why)
            }
            PatchError::NotAnArray(found) => Text::new(Msg::PatchNotAnArray).with_text("found", found),
            PatchError::Failed { index, op, path, reason } => Text::new(Msg::PatchOperationFailed)
                .with("index", index)
                .with("op", op)
                .with("path", path)
                .with("reason", reason),
        }
    }
}

impl Localized for StrategicError {
    fn text(&self) -> Text {
        match self {
            StrategicError::CustomResource(kind) => Text::new(Msg::StrategicCustomResource).with("kind", kind),
            StrategicError::UnknownKind(kind) => Text::new(Msg::StrategicUnknownKind).with("kind", kind),
            StrategicError::NoKind(found) => Text::new(Msg::StrategicNoKind).with_text("found", found),
            StrategicError::MissingMergeKey { path, key } => {
                Text::new(Msg::StrategicMissingMergeKey).with("path", path).with("key", format!("{key:?}"))
            }
            StrategicError::UnmergeableList(path) => Text::new(Msg::StrategicUnmergeableList).with("path", path),
            StrategicError::BadPatch { path, reason } => {
                Text::new(Msg::StrategicBadPatch).with("path", path).with_text("reason", reason)
            }
        }
    }
}

impl Localized for BadPatch {
    fn text(&self) -> Text {
        match self {
            BadPatch::ExpectedObject(found) => Text::new(Msg::StrategicExpectedObject).with_text("found", found),
            BadPatch::UnknownDirective(directive) => {
                Text::new(Msg::StrategicUnknownDirective).with("directive", directive)
            }
            BadPatch::NotAList(key) => Text::new(Msg::StrategicNotAList).with("key", key),
            BadPatch::ExpectedMergeKey(key) => {
                Text::new(Msg::StrategicExpectedMergeKey).with("key", format!("{key:?}"))
            }
        }
    }
}

impl Localized for UpdateError {
    fn text(&self) -> Text {
        match self {
            UpdateError::NoResourceVersion => Text::new(Msg::UpdateNoResourceVersion),
            UpdateError::NotAnObject(found) => Text::new(Msg::UpdateNotAnObject).with_text("found", found),
        }
    }
}

impl Localized for ManagedFieldsError {
    fn text(&self) -> Text {
        match self {
            ManagedFieldsError::NotAList(found) => Text::new(Msg::ManagedFieldsNotAList).with_text("found", found),
            ManagedFieldsError::BadEntry { index, expected } => {
                Text::new(Msg::ManagedFieldsBadEntry).with("index", index).with("expected", expected)
            }
            ManagedFieldsError::FieldsType { index, found } => {
                Text::new(Msg::ManagedFieldsFieldsType).with("index", index).with("found", format!("{found:?}"))
            }
            ManagedFieldsError::BadKey(found) => {
                Text::new(Msg::ManagedFieldsBadKey).with("found", format!("{found:?}"))
            }
        }
    }
}

impl Localized for DocumentError {
    fn text(&self) -> Text {
        Text::new(Msg::DocumentAt).with("line", self.line).with("column", self.column).with_text("error", &self.message)
    }
}

impl Localized for DocumentProblem {
    fn text(&self) -> Text {
        match self {
            DocumentProblem::Syntax { expected, found } => {
                Text::new(Msg::DocExpectedFound).with_text("expected", expected).with_text("found", found)
            }
            DocumentProblem::NoKind(found) => Text::new(Msg::StrategicNoKind).with_text("found", found),
        }
    }
}

#[cfg(test)]
mod tests {
    use kube_wire::codec::value::ValueKind;
    use kube_wire::error::Token;

    use super::*;
    use crate::i18n::wire::tests::check_all;

    #[test]
    fn write_errors_read_in_english_as_their_catalogue_texts() {
        check_all(&[
            PatchError::BadOperation("{\"op\":\"add\"}".into(), "missing field `path`".into()),
            PatchError::NotAnArray(ValueKind::Object),
            PatchError::Failed { index: 1, op: "test", path: "/a".into(), reason: "value differs".into() },
        ]);
        let bad_patches = [
            BadPatch::ExpectedObject(ValueKind::Array),
            BadPatch::UnknownDirective("\"explode\"".into()),
            BadPatch::NotAList("$retainKeys".into()),
            BadPatch::ExpectedMergeKey("name".into()),
        ];
        let mut strategic = vec![
            StrategicError::CustomResource("example.com/v1, Kind=Widget".into()),
            StrategicError::UnknownKind("apps/v1, Kind=Deployment".into()),
            StrategicError::NoKind(ValueKind::Array),
            StrategicError::MissingMergeKey { path: "spec.containers".into(), key: "name".into() },
            StrategicError::UnmergeableList("spec.x".into()),
        ];
        strategic.extend(bad_patches.map(|reason| StrategicError::BadPatch { path: "spec".into(), reason }));
        check_all(&strategic);
        check_all(&[UpdateError::NoResourceVersion, UpdateError::NotAnObject(ValueKind::Array)]);
        check_all(&[
            ManagedFieldsError::NotAList(ValueKind::Object),
            ManagedFieldsError::BadEntry { index: 0, expected: "a manager" },
            ManagedFieldsError::FieldsType { index: 1, found: "FieldsV2".into() },
            ManagedFieldsError::BadKey("x:1".into()),
        ]);
        check_all(&[
            DocumentError {
                line: 3,
                column: 7,
                message: DocumentProblem::Syntax { expected: Token::WellFormedYaml, found: Token::EndOfInput },
            },
            DocumentError { line: 1, column: 1, message: DocumentProblem::NoKind(ValueKind::Object) },
        ]);
    }
}
