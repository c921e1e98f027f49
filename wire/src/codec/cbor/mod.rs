//! CBOR bodies (`application/cbor`, `application/apply-patch+cbor`, items of
//! `application/cbor-seq`) to and from [`Value`], with the Kubernetes rules on top of RFC 8949.
//!
//! `ciborium-ll` reads and writes item heads; the rules are ours (see `kube/README.md`):
//! - the self-described tag 55799 is unwrapped wherever it appears (the server puts it on every
//!   top-level item and on a watch event's embedded object);
//! - byte strings are text: decoded as UTF-8 with each invalid byte replaced by U+FFFD, as Go's
//!   JSON encoder does; text strings must be valid UTF-8; map keys must be either;
//! - tag 22 around a byte string is raw bytes ([`Value::Bytes`], base64 in JSON);
//! - integers must fit `i64`; bignums (tags 2, 3), other tags, NaN, infinities and simple values
//!   other than `false`, `true`, `null` are refused; floats of any width stay floats;
//! - a map that repeats a key is refused; definite and indefinite lengths are both accepted.
//!
//! Invariants: no allocation is sized from a length prefix beyond the bytes actually present,
//! nesting is bounded by [`MAX_DEPTH`], and every error carries the byte offset of the item.
//!
//! The encoder writes either form Kubernetes reads ([`CborEncoding::CLIENT`], as client-go writes
//! request bodies) or the form the server writes ([`CborEncoding::SERVER`]: tag 55799 first, byte
//! strings for keys and text, definite lengths, shortest exact floats, optionally shuffled keys).

mod diagnostic;
mod encode;
mod reader;
#[cfg(test)]
mod tests;

pub use diagnostic::diagnostic;
pub(crate) use encode::Writer;
pub use encode::{encode_cbor, encode_cbor_json, CborEncoding, CborWriter, KeyOrder, StringType};
pub(crate) use reader::Reader;
pub use reader::{
    decode_cbor, decode_cbor_prefix, go_lossy_utf8, BASE64_TAG, SELF_DESCRIBED_PREFIX, SELF_DESCRIBED_TAG,
};
