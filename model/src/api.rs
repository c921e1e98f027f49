//! The protocol core (`kube-wire`) as the layers above the model see it: every module but
//! `build`, whose `RequestBuilder` is the only way to make a request. The app's crate depends on
//! this crate, not on the core, so its views and its client can hold, show and send the requests
//! the model makes, and cannot make or change one (the root crate's documentation shows the
//! compiler refusing it). Inside this crate, code names the core as `kube_wire`.

pub use kube_wire::{
    access, body, codec, discovery, error, explain, explain_diff, media_type, openapi_index, params, reflector,
    request, schema, selector, validate, view, watch, write,
};
