//! The protocol core's errors and states in the catalogue's words. `kube-wire` carries no UI
//! texts: each of its errors has an English `Display`, and here each gets its [`Localized`]
//! text, the catalogue message with the same arguments, so that the interface shows it in the
//! language chosen. The English of the two must read the same: the tests of each file compare
//! them for every variant.
//!
//! [`Localized`]: crate::i18n::Localized

mod decode;
mod reflector;
mod request;
mod schema;
mod write;

#[cfg(test)]
mod tests;
