//! Multi-document YAML for **create**: a file of objects separated by `---` lines becomes one
//! document per object, each parsed on its own with its parse error located by line and column
//! in the whole file, so that one bad document does not hide the others (the concepts page's
//! "Single resource API": each object is its own request).
//!
//! Invariants: line and column numbers are 1-based and count in the whole text (a marker line
//! `--- {...}` keeps its columns: the marker is blanked, not cut); documents holding only
//! comments or blank lines are skipped, as `kubectl create -f` skips them; every other document
//! is reported, parsed or not, in file order.

use crate::build::RequestBuilder;
use crate::codec::value::{Value, ValueKind};
use crate::codec::yaml::decode_yaml;
use crate::error::Token;
use crate::params::WriteParams;
use crate::request::{Body, Collection};

/// Where and why a document failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct DocumentError {
    /// 1-based line in the whole text.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    pub message: DocumentProblem,
}

/// Why a document cannot be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentProblem {
    /// The YAML decoder's account of the text.
    #[error("expected {expected}, found {found}")]
    Syntax { expected: Token, found: Token },
    /// An object (or another value) without `apiVersion` and `kind`.
    #[error("expected an object with apiVersion and kind, found {0}")]
    NoKind(ValueKind),
}

/// One document of a multi-document YAML text.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlDocument {
    /// 0-based position among the reported documents.
    pub index: usize,
    /// 1-based line of the document's first line in the whole text.
    pub start_line: usize,
    /// The document's text.
    pub text: String,
    /// The object, or where parsing failed.
    pub parsed: Result<Value, DocumentError>,
}

impl YamlDocument {
    /// The object's `apiVersion`, `kind`, `metadata.namespace` and `metadata.name` (or
    /// `generateName`), for choosing the collection to create it in.
    pub fn identity(&self) -> Option<(&str, &str, Option<&str>, Option<&str>)> {
        let object = self.parsed.as_ref().ok()?;
        let text = |path: &[&str]| object.at(path).and_then(Value::as_str);
        let name = text(&["metadata", "name"]).or_else(|| text(&["metadata", "generateName"]));
        Some((text(&["apiVersion"])?, text(&["kind"])?, text(&["metadata", "namespace"]), name))
    }

    /// The objects to create: the items of a `kind: List` (as `kubectl create -f` expands it),
    /// else the document itself.
    pub fn objects(&self) -> Result<Vec<Value>, DocumentError> {
        let object = self.parsed.as_ref().map_err(Clone::clone)?;
        match (object.get("kind").and_then(Value::as_str), object.get("items")) {
            (Some("List"), Some(Value::Array(items))) => Ok(items.clone()),
            _ => Ok(vec![object.clone()]),
        }
    }
}

impl RequestBuilder {
    /// The **create** of `document` in `collection` (JSON body).
    pub fn create_document(
        document: &YamlDocument,
        collection: &Collection,
        params: &WriteParams,
    ) -> Result<RequestBuilder, DocumentError> {
        let object = document.parsed.as_ref().map_err(Clone::clone)?;
        if document.identity().is_none() {
            let blank = document.text.lines().take_while(|l| l.trim().is_empty()).count();
            return Err(DocumentError {
                line: document.start_line + blank,
                column: 1,
                message: DocumentProblem::NoKind(object.kind()),
            });
        }
        Ok(RequestBuilder::create(collection, Body::json(object), params))
    }
}

/// Splits `text` at `---` lines and parses each document.
pub fn split_yaml_documents(text: &str) -> Vec<YamlDocument> {
    let mut chunks: Vec<(usize, String)> = Vec::new();
    let mut current = String::new();
    let mut start_line = 1;
    for (number, line) in text.split_inclusive('\n').enumerate().map(|(i, l)| (i + 1, l)) {
        let marker = line.starts_with("---") && line[3..].chars().next().is_none_or(char::is_whitespace);
        let end = line.trim_end() == "...";
        if marker || end {
            chunks.push((start_line, std::mem::take(&mut current)));
            start_line = number;
            if marker {
                // Keep what follows the marker on its line, in its columns.
                current.push_str("   ");
                current.push_str(&line[3..]);
            } else {
                start_line = number + 1;
            }
        } else {
            current.push_str(line);
        }
    }
    chunks.push((start_line, current));
    chunks
        .into_iter()
        .filter(|(_, chunk)| chunk.lines().any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')))
        .enumerate()
        .map(|(index, (start_line, text))| {
            let parsed = decode_yaml(text.as_bytes()).map_err(|e| {
                let (line, column) = line_and_column(&text, e.offset);
                DocumentError {
                    line: start_line + line - 1,
                    column,
                    message: DocumentProblem::Syntax { expected: e.expected, found: e.found },
                }
            });
            YamlDocument { index, start_line, text, parsed }
        })
        .collect()
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::Scope;

    /// A document's start line and its JSON text, or the line and column of its error.
    type Parsed = (usize, Result<String, (usize, usize)>);
    type Expected<'a> = (usize, Result<&'a str, (usize, usize)>);

    #[track_caller]
    fn check(text: &str, expect: &[Expected<'_>]) {
        let got: Vec<Parsed> = split_yaml_documents(text)
            .iter()
            .map(|d| (d.start_line, d.parsed.as_ref().map(Value::to_json).map_err(|e| (e.line, e.column))))
            .collect();
        let expect: Vec<Parsed> = expect.iter().map(|(l, r)| (*l, r.map(str::to_string))).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn documents_split_at_marker_lines_and_skip_empty_ones() {
        check(
            "# leading comment\n---\na: 1\n---\n# only a comment\n---   \nb: [x]\n...\n--- {c: 2}\n",
            &[(2, Ok(r#"{"a":1}"#)), (6, Ok(r#"{"b":["x"]}"#)), (9, Ok(r#"{"c":2}"#))],
        );
        check("a: 1\n", &[(1, Ok(r#"{"a":1}"#))]);
        check("", &[]);
        check("----\n", &[(1, Ok(r#""----""#))]);
    }

    #[test]
    fn a_parse_error_is_located_in_the_whole_file_and_spares_the_other_documents() {
        let text = "kind: A\n---\nkind: B\nmetadata:\n  name: [x\n---\nkind: C\nkind: D\n";
        let documents = split_yaml_documents(text);
        assert_eq!(documents.len(), 3);
        assert!(documents[0].parsed.is_ok());
        let error = documents[1].parsed.as_ref().expect_err("unclosed flow sequence");
        assert!((5..=6).contains(&error.line), "{error}");
        let duplicate = documents[2].parsed.as_ref().expect_err("duplicate key");
        // The parser places a duplicate key at the start of the mapping that repeats it.
        assert_eq!(duplicate.line, 7, "{duplicate}");
        assert!(duplicate.to_string().starts_with("line 7, column 1: expected unique keys"), "{duplicate}");
        assert_eq!(line_and_column("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn a_list_document_expands_into_its_items_as_kubectl_create_does() {
        let text = crate::testdata::shared_file("kube/recordings/kubectl-edit/testcase-create-list/svc.yaml");
        let documents = split_yaml_documents(&String::from_utf8_lossy(&text));
        let objects = documents[0].objects().expect("a list");
        let names: Vec<Option<&str>> =
            objects.iter().map(|o| o.at(&["metadata", "name"]).and_then(Value::as_str)).collect();
        assert_eq!(names, [Some("svc1"), Some("svc2")]);
        let single = split_yaml_documents("kind: A\n");
        assert_eq!(single[0].objects().map(|o| o.len()), Ok(1));
        assert!(split_yaml_documents("a: [\n")[0].objects().is_err());
    }

    #[test]
    fn each_document_becomes_its_own_create_request() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: b-\n  namespace: x\n---\n- not an object\n";
        let documents = split_yaml_documents(text);
        assert_eq!(documents[0].identity(), Some(("v1", "ConfigMap", None, Some("a"))));
        assert_eq!(documents[1].identity(), Some(("v1", "ConfigMap", Some("x"), Some("b-"))));
        let resource = crate::testdata::resource_type("", "v1", "configmaps", Scope::Namespaced);
        let collection = Collection::new(&resource, Some("default")).expect("collection");
        let request = RequestBuilder::create_document(&documents[0], &collection, &WriteParams::default())
            .expect("request")
            .build();
        assert_eq!(request.path_and_query(), "/api/v1/namespaces/default/configmaps");
        assert_eq!(
            request.body.as_deref(),
            Some(&b"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}\n"[..])
        );
        let refused =
            RequestBuilder::create_document(&documents[2], &collection, &WriteParams::default()).expect_err("a list");
        assert_eq!(
            refused.to_string(),
            "line 12, column 1: expected an object with apiVersion and kind, found an array"
        );
    }
}
