//! Media type and Accept parsing never panic; a parsed media type prints to text that parses back
//! to the same value.
#![no_main]

use kube_wire::media_type::{Accept, MediaType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(media_type) = text.parse::<MediaType>() {
        let printed = media_type.to_string();
        assert_eq!(printed.parse::<MediaType>().map(|m| m.to_string()), Ok(printed));
    }
    if let Ok(accept) = Accept::parse(text) {
        let _ = accept.negotiate(&[MediaType::json(), MediaType::cbor()]);
    }
});
