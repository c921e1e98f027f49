//! The protobuf watch framer never panics, and chunking never changes what it frames: the input is
//! pushed whole and in chunks whose sizes come from the input itself (`common/framing.rs`).
#![no_main]

#[path = "../common/framing.rs"]
mod framing;

use kube_wire::watch::ProtobufFramer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&step, stream)) = data.split_first() else { return };
    framing::check_chunking::<ProtobufFramer>(stream, usize::from(step));
});
