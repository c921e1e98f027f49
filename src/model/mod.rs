//! The explorer's own pure models, between the `api` concepts and the `ui` components: the view
//! state carried by the URL, the view resolved once into its requests (`target`), tables
//! formatted for display, highlighted and foldable text, the budget of open streams, and what a
//! host page configures and says through `postMessage`. Like `api`, nothing here does I/O, so it
//! is tested natively.

pub mod access;
pub mod cells;
pub mod commands;
pub mod completion;
pub mod exec_channel;
pub mod explain;
pub mod goto;
pub mod highlight;
pub mod history;
pub mod host;
pub mod joined;
pub mod lines;
pub mod list_text;
pub mod live_rows;
pub mod logs;
pub mod messages;
pub mod page;
pub mod protobuf;
pub mod search;
pub mod segments;
pub mod sniff;
pub mod streams;
pub mod target;
pub mod terminal;
pub mod validation;
pub mod view_state;
pub mod write;
