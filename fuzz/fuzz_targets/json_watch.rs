//! The JSON watch framer never panics, and chunking never changes what it frames: the input is
//! pushed whole and in chunks whose sizes come from the input itself.
#![no_main]

use kube_api_explorer::api::watch::JsonFramer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&step, stream)) = data.split_first() else { return };
    let mut whole = JsonFramer::new();
    let whole_events = whole.push(stream);
    let whole_end = whole.finish();
    let mut chunked = JsonFramer::new();
    let mut events = Vec::new();
    let mut failed = None;
    for chunk in stream.chunks(usize::from(step).max(1)) {
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
            assert_eq!(all, events);
            assert_eq!(whole_end, chunked.finish());
        }
        (Err(a), Some(b)) => assert_eq!(a, b),
        (a, b) => panic!("whole {a:?} but chunked {b:?}"),
    }
});
