//! The editor's text read as the one object it edits, with the error located in the text.

use crate::i18n::{Localized, Msg, Text};
use kube_wire::codec::value::Value;
use kube_wire::write::documents::{split_yaml_documents, DocumentError};

/// Where and why the editor's text is not one object: a document's own error, an empty text, a
/// document that is not a mapping, or several documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    /// 1-based line in the text.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    pub message: Text,
}

impl Localized for EditError {
    fn text(&self) -> Text {
        Text::new(Msg::DocumentAt).with("line", self.line).with("column", self.column).with_text("error", &self.message)
    }
}

crate::localized_display!(EditError);

impl std::error::Error for EditError {}

impl From<DocumentError> for EditError {
    fn from(error: DocumentError) -> EditError {
        EditError { line: error.line, column: error.column, message: error.message.text() }
    }
}

/// Parses the editor's text (YAML or JSON) as exactly one object, with the error located in the
/// text.
pub fn parse_edit(text: &str) -> Result<Value, EditError> {
    let documents = split_yaml_documents(text);
    match documents.as_slice() {
        [] => Err(EditError { line: 1, column: 1, message: Msg::DocEmpty.into() }),
        [one] => {
            let value = one.parsed.clone()?;
            match value {
                Value::Object(_) => Ok(value),
                other => Err(EditError {
                    line: one.start_line,
                    column: 1,
                    message: Text::new(Msg::DocNotMapping).with_text("found", other.kind()),
                }),
            }
        }
        [_, second, ..] => Err(EditError {
            line: second.start_line,
            column: 1,
            message: Text::new(Msg::DocSeveral).with("count", documents.len()),
        }),
    }
}
