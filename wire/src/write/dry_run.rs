//! What a dry-run write would change (concepts page: "Dry-run", `#dry-run`, and its "Generated
//! values"): the diff from the object before the write (the live object, or the submitted body
//! of a create) to the object a `dryRun=All` request returned, with each generated field marked,
//! because its value will differ when the request is made for real.
//!
//! Generated fields: `metadata.uid`, `resourceVersion`, `creationTimestamp`, `deletionTimestamp`,
//! `generation`, the times in `metadata.managedFields`, and `metadata.name` when it comes from
//! `generateName`. Anything else (defaults, admission mutations, the managed fields themselves)
//! is a real effect of the request and is not marked.
//!
//! Invariant: every difference is reported exactly once, marked or not; nothing is hidden.

use crate::codec::value::Value;
use crate::write::diff::{diff_objects, pointer_segments, Change, DiffOptions};

/// A field whose dry-run value is not the value a real request would produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratedField {
    Uid,
    ResourceVersion,
    CreationTimestamp,
    DeletionTimestamp,
    Generation,
    ManagedFieldsTime,
    /// `metadata.name` made from `metadata.generateName`.
    GeneratedName,
}

impl GeneratedField {
    /// Why the value will differ, for a tooltip.
    pub fn reason(self) -> &'static str {
        match self {
            GeneratedField::Uid => "the uid is generated randomly for each object",
            GeneratedField::ResourceVersion => "the resourceVersion is set when the object is persisted",
            GeneratedField::CreationTimestamp => "the creationTimestamp records the time of creation",
            GeneratedField::DeletionTimestamp => "the deletionTimestamp records the time of deletion",
            GeneratedField::Generation => "the generation counts persisted changes of the spec",
            GeneratedField::ManagedFieldsTime => "managedFields record the time of the write",
            GeneratedField::GeneratedName => "a name from generateName has a unique random suffix",
        }
    }
}

/// One difference the dry run showed, with its mark.
#[derive(Debug, Clone, PartialEq)]
pub struct DryRunChange {
    pub change: Change,
    /// Set when the value will differ for real.
    pub generated: Option<GeneratedField>,
}

/// The differences a dry-run write showed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DryRunReport {
    pub changes: Vec<DryRunChange>,
}

impl DryRunReport {
    /// The differences that are real effects of the request.
    pub fn effects(&self) -> impl Iterator<Item = &DryRunChange> {
        self.changes.iter().filter(|c| c.generated.is_none())
    }

    /// The differences in generated fields.
    pub fn generated(&self) -> impl Iterator<Item = &DryRunChange> {
        self.changes.iter().filter(|c| c.generated.is_some())
    }
}

/// Compares `before` (the live object, or the body of a create) with the `dry_run` answer.
pub fn dry_run_report(before: &Value, dry_run: &Value) -> DryRunReport {
    let generate_name = before.at(&["metadata", "generateName"]).is_some()
        && before.at(&["metadata", "name"]).and_then(Value::as_str).is_none_or(str::is_empty);
    let changes = diff_objects(before, dry_run, DiffOptions::EVERYTHING)
        .changes
        .into_iter()
        .map(|change| {
            let generated = classify(&pointer_segments(&change.path), generate_name);
            DryRunChange { change, generated }
        })
        .collect();
    DryRunReport { changes }
}

fn classify(segments: &[String], generate_name: bool) -> Option<GeneratedField> {
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segments.as_slice() {
        ["metadata", "uid"] => Some(GeneratedField::Uid),
        ["metadata", "resourceVersion"] => Some(GeneratedField::ResourceVersion),
        ["metadata", "creationTimestamp"] => Some(GeneratedField::CreationTimestamp),
        ["metadata", "deletionTimestamp"] => Some(GeneratedField::DeletionTimestamp),
        ["metadata", "generation"] => Some(GeneratedField::Generation),
        ["metadata", "name"] if generate_name => Some(GeneratedField::GeneratedName),
        // A new entry (or the whole list, on a create) carries the write's time.
        ["metadata", "managedFields"] | ["metadata", "managedFields", _] | ["metadata", "managedFields", _, "time"] => {
            Some(GeneratedField::ManagedFieldsTime)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::decode_json;
    use crate::testdata::{real_apiserver_body, shared_file};

    /// The request body of a recorded exchange.
    fn request_body(name: &str) -> Value {
        let text = String::from_utf8(shared_file(&format!("kube/real-apiserver/{name}"))).expect("text");
        let request =
            text.split("=== RESPONSE").next().and_then(|t| t.split_once("=== REQUEST ===")).map_or("", |(_, r)| r);
        let body = request.split_once("\n\n").map(|(_, body)| body.trim()).unwrap_or_default();
        decode_json(body.as_bytes()).expect("request body")
    }

    #[track_caller]
    fn check(before: &Value, after: &Value, expect: &[(&str, Option<GeneratedField>)]) {
        let report = dry_run_report(before, after);
        let got: Vec<(String, Option<GeneratedField>)> =
            report.changes.iter().map(|c| (c.change.path.clone(), c.generated)).collect();
        let mut got = got;
        got.sort_by(|a, b| a.0.cmp(&b.0));
        let expect: Vec<(String, Option<GeneratedField>)> = expect.iter().map(|(p, g)| (p.to_string(), *g)).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn a_real_dry_run_create_marks_uid_timestamps_generation_and_managed_fields() {
        let before = request_body("90-dryRun-All-create-201.txt");
        let after = decode_json(&real_apiserver_body("90-dryRun-All-create-201.txt")).expect("response");
        check(
            &before,
            &after,
            &[
                ("/metadata/creationTimestamp", Some(GeneratedField::CreationTimestamp)),
                ("/metadata/generation", Some(GeneratedField::Generation)),
                ("/metadata/managedFields", Some(GeneratedField::ManagedFieldsTime)),
                ("/metadata/uid", Some(GeneratedField::Uid)),
            ],
        );
        assert_eq!(dry_run_report(&before, &after).effects().count(), 0);
    }

    #[test]
    fn a_name_from_generate_name_is_marked_and_a_defaulted_field_is_an_effect() {
        let before = request_body("15-create-widget-generateName.txt");
        let after = decode_json(&real_apiserver_body("15-create-widget-generateName.txt")).expect("response");
        let report = dry_run_report(&before, &after);
        let name = report.changes.iter().find(|c| c.change.path == "/metadata/name").expect("a generated name");
        assert_eq!(name.generated, Some(GeneratedField::GeneratedName));
        assert!(report.generated().count() >= 5);
        let live =
            decode_json(br#"{"metadata":{"name":"a","resourceVersion":"1"},"spec":{"size":"small"}}"#).expect("json");
        let patched = decode_json(br#"{"metadata":{"name":"a","resourceVersion":"2","managedFields":[{"time":"t"}]},"spec":{"size":"large","replicas":1}}"#).expect("json");
        check(
            &live,
            &patched,
            &[
                ("/metadata/managedFields", Some(GeneratedField::ManagedFieldsTime)),
                ("/metadata/resourceVersion", Some(GeneratedField::ResourceVersion)),
                ("/spec/replicas", None),
                ("/spec/size", None),
            ],
        );
        assert!(GeneratedField::Uid.reason().contains("random"));
    }
}
