//! The explorer's own pure models, between the `api` concepts and the `ui` components: the view
//! state carried by the URL, tables formatted for display, and what a host page configures and
//! says through `postMessage`. Like `api`, nothing here does I/O, so it is tested natively.

pub mod cells;
pub mod commands;
pub mod host;
pub mod messages;
pub mod page;
pub mod sniff;
pub mod view_state;
