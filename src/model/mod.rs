//! The explorer's own pure models, between the `api` concepts and the `ui` components: the view
//! state carried by the URL, and tables formatted for display. Like `api`, nothing here does I/O,
//! so it is tested natively.

pub mod cells;
pub mod commands;
pub mod highlight;
pub mod page;
pub mod sniff;
pub mod view_state;
pub mod write;
