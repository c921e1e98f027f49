//! Two versions of one kind side by side (a CRD's `v1beta1` and `v1`, a built-in's deprecated
//! version and its successor): the fields one has and the other lacks, and for the fields both
//! have, what changed in type, requirement, default, enum, format, bounds, extensions or
//! validation rules.
//!
//! Invariants: fields are matched by path; a change lists every aspect that differs, each as
//! "aspect: old → new"; the result follows the newer tree's order, with removed fields placed
//! after the field that preceded them in the older tree.

use crate::explain::{Field, SchemaTree, Validation};

/// How a field differs between two versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Only in the newer version.
    Added,
    /// Only in the older version.
    Removed,
    /// In both, with these differences ("type: <string> → <integer>").
    Changed(Vec<String>),
}

/// One field that differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    pub path: String,
    /// The type in the version that has it (the newer one when both do).
    pub type_label: String,
    pub change: Change,
}

/// The differences from `old` to `new`, in the newer tree's order. The kind's own description
/// and rules count as the field with the empty path.
pub fn diff(old: &SchemaTree, new: &SchemaTree) -> Vec<FieldChange> {
    let mut changes = Vec::new();
    let aspects = differences(&old.root, &new.root);
    if !aspects.is_empty() {
        changes.push(FieldChange {
            path: String::new(),
            type_label: new.root.type_label.clone(),
            change: Change::Changed(aspects),
        });
    }
    // Removed fields go after their predecessor in the old tree; a removed top-level first field
    // (no predecessor) goes first.
    let mut removed_after: Vec<(Option<&str>, &Field)> = Vec::new();
    for (i, field) in old.fields.iter().enumerate() {
        if new.field(&field.path).is_none() {
            let before = old.fields[..i].iter().rev().map(|f| f.path.as_str()).find(|p| new.field(p).is_some());
            removed_after.push((before, field));
        }
    }
    let removed = |after: Option<&str>, changes: &mut Vec<FieldChange>| {
        for (_, field) in removed_after.iter().filter(|(b, _)| *b == after) {
            changes.push(FieldChange {
                path: field.path.clone(),
                type_label: field.type_label.clone(),
                change: Change::Removed,
            });
        }
    };
    removed(None, &mut changes);
    for field in &new.fields {
        match old.field(&field.path) {
            None => changes.push(FieldChange {
                path: field.path.clone(),
                type_label: field.type_label.clone(),
                change: Change::Added,
            }),
            Some(before) => {
                let aspects = differences(before, field);
                if !aspects.is_empty() {
                    changes.push(FieldChange {
                        path: field.path.clone(),
                        type_label: field.type_label.clone(),
                        change: Change::Changed(aspects),
                    });
                }
            }
        }
        removed(Some(&field.path), &mut changes);
    }
    changes
}

/// Every aspect in which two versions of one field differ, as "aspect: old → new".
fn differences(old: &Field, new: &Field) -> Vec<String> {
    let mut out = Vec::new();
    let mut compare = |aspect: &str, before: String, after: String| {
        if before != after {
            out.push(format!("{aspect}: {} → {}", or_none(&before), or_none(&after)));
        }
    };
    compare("type", format!("<{}>", old.type_label), format!("<{}>", new.type_label));
    compare("required", yes_no(old.required), yes_no(new.required));
    compare("default", old.default.clone().unwrap_or_default(), new.default.clone().unwrap_or_default());
    compare("enum", old.enum_values.join(", "), new.enum_values.join(", "));
    compare("items.enum", old.item_enum_values.join(", "), new.item_enum_values.join(", "));
    compare("format", old.format.clone().unwrap_or_default(), new.format.clone().unwrap_or_default());
    compare("nullable", yes_no(old.nullable), yes_no(new.nullable));
    for key in union(&old.constraints, &new.constraints) {
        compare(&key, value_of(&old.constraints, &key), value_of(&new.constraints, &key));
    }
    // Each version names its own group-version-kind: that is no change.
    for key in union(&old.extensions, &new.extensions).into_iter().filter(|k| k != "x-kubernetes-group-version-kind") {
        compare(&key, value_of(&old.extensions, &key), value_of(&new.extensions, &key));
    }
    compare("validations", rules(&old.validations), rules(&new.validations));
    if old.description != new.description {
        out.push("description changed".into());
    }
    out
}

fn or_none(text: &str) -> &str {
    if text.is_empty() {
        "(none)"
    } else {
        text
    }
}

fn yes_no(flag: bool) -> String {
    if flag {
        "yes".into()
    } else {
        "no".into()
    }
}

fn union(a: &[(String, String)], b: &[(String, String)]) -> Vec<String> {
    let mut keys: Vec<String> = a.iter().chain(b).map(|(k, _)| k.clone()).collect();
    keys.sort();
    keys.dedup();
    keys
}

fn value_of(pairs: &[(String, String)], key: &str) -> String {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap_or_default()
}

fn rules(validations: &[Validation]) -> String {
    validations.iter().map(|v| v.rule.as_str()).collect::<Vec<_>>().join("; ")
}
