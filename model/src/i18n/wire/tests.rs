//! What the tests of the core's texts share.

use std::fmt::Display;

use crate::i18n::Localized;

/// `value`'s English `Display` (the core's) reads as its catalogue text in English.
#[track_caller]
pub fn check(value: &(impl Localized + Display + std::fmt::Debug)) {
    assert_eq!(value.to_string(), value.text().to_string(), "{value:?}");
}

/// [`check`] of each of `values`.
#[track_caller]
pub fn check_all<T: Localized + Display + std::fmt::Debug>(values: &[T]) {
    for value in values {
        check(value);
    }
}
