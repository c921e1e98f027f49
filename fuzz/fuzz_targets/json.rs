//! JSON decoding, the typed views on top, and the large-list fast paths never panic; what decodes
//! re-encodes to text that decodes to the same tree.
#![no_main]

use kube_wire::codec::json::decode_json;
use kube_wire::view::list::{ObjectList, RawList};
use kube_wire::view::metadata::metadata_list_from_json;
use kube_wire::view::status::status_from_document;
use kube_wire::view::table::Table;
use kube_wire::watch::WatchEvent;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = decode_json(data) {
        let again = decode_json(value.to_json().as_bytes()).expect("re-encoded JSON decodes");
        assert!(again.equivalent(&value));
        let _ = Table::from_document(&value);
        let _ = ObjectList::from_document(&value);
        let _ = status_from_document(&value);
        let _ = WatchEvent::from_document(&value);
    }
    if let Ok(list) = RawList::from_json(data) {
        for i in 0..list.items.len().min(4) {
            let _ = list.item(i);
        }
    }
    let _ = metadata_list_from_json(data);
});
