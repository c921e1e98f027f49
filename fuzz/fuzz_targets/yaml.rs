//! YAML decoding never panics; what decodes encodes to YAML without panicking.
#![no_main]

use kube_wire::codec::yaml::{decode_yaml, encode_yaml};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = decode_yaml(data) {
        let _ = encode_yaml(&value);
    }
});
