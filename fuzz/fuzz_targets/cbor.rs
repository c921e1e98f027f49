//! CBOR decoding never panics; what decodes re-encodes (client and shuffled server forms) to
//! bytes that decode to the same tree, and its JSON text decodes to an equivalent tree.
#![no_main]

use kube_wire::codec::cbor::{decode_cbor, decode_cbor_prefix, encode_cbor, CborEncoding};
use kube_wire::codec::json::decode_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = decode_cbor_prefix(data);
    if let Ok(value) = decode_cbor(data) {
        let again = decode_cbor(&encode_cbor(&value, CborEncoding::CLIENT)).expect("re-encoded CBOR decodes");
        assert_eq!(again, value);
        let shuffled = CborEncoding::SERVER.shuffled(data.len() as u64);
        let again = decode_cbor(&encode_cbor(&value, shuffled)).expect("shuffled CBOR decodes");
        assert!(again.equivalent(&value));
        let from_json = decode_json(value.to_json().as_bytes()).expect("JSON text decodes");
        assert!(from_json.equivalent(&value));
    }
});
