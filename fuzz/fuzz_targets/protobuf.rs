//! The protobuf envelope decoder never panics; a decoded envelope re-encodes to one that decodes
//! the same.
#![no_main]

use kube_wire::codec::protobuf::{decode_envelope, decode_watch_event};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(envelope) = decode_envelope(data) {
        assert_eq!(decode_envelope(&envelope.encode()), Ok(envelope));
    }
    let _ = decode_watch_event(data, 0);
});
