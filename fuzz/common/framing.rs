//! The property every watch framer keeps, shared by the framer fuzz targets (`json_watch`,
//! `cbor_watch`, `protobuf_watch`) and the native corpus test (`tests/fuzz_corpus.rs`): framing
//! never panics, and however a stream is cut into chunks it gives the same events, the same
//! error and the same end as when it is pushed whole.

use std::fmt::Debug;

use kube_wire::watch::Framer;

/// Pushes `stream` whole into one framer and in chunks of `step` bytes into another, and panics
/// if the two disagree.
pub fn check_chunking<F>(stream: &[u8], step: usize)
where
    F: Framer,
    F::Event: PartialEq + Debug,
{
    let mut whole = F::default();
    let whole_events = whole.push(stream);
    let whole_end = whole.finish();
    let mut chunked = F::default();
    let mut events = Vec::new();
    let mut failed = None;
    for chunk in stream.chunks(step.max(1)) {
        match chunked.push(chunk) {
            Ok(more) => events.extend(more),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    match (whole_events, failed) {
        (Ok(all), None) => {
            assert_eq!(all, events, "events pushed whole and in chunks of {step}");
            assert_eq!(whole_end, chunked.finish(), "end pushed whole and in chunks of {step}");
        }
        (Err(a), Some(b)) => assert_eq!(a, b, "error pushed whole and in chunks of {step}"),
        (a, b) => panic!("pushed whole {a:?}, in chunks of {step} {b:?}"),
    }
}
