//! `kube-explorer-model`: the explorer's own pure models, between the protocol core (`kube-wire`)
//! and the app's client and views: the view state carried by the URL, the view resolved once into
//! its requests (`target`, [`requests`]), tables formatted for display, highlighted and foldable
//! text, the budget of open streams, what a host page configures and says through
//! `postMessage`, and the interface's languages ([`i18n`]: the catalogue, and the core's errors
//! in its words). Like the core, nothing here does I/O, so it is tested natively.
//!
//! The model is the one layer that makes requests (with the core's `build::RequestBuilder`);
//! [`api`] hands the rest of the core on to the app, the builder left out.

pub mod access;
pub mod api;
pub mod cells;
pub mod commands;
pub mod completion;
pub mod delete;
pub mod edit;
pub mod exec_channel;
pub mod explain;
pub mod field_owners;
pub mod field_owners_history;
pub mod glance;
pub mod goto;
pub mod highlight;
pub mod history;
pub mod host;
pub mod i18n;
pub mod joined;
pub mod line_chart;
pub mod lines;
pub mod list_text;
pub mod live_rows;
pub mod load_all;
pub mod log_follow;
pub mod logs;
pub mod messages;
pub mod metrics;
pub mod metrics_chart;
pub mod metrics_overview;
pub mod metrics_quantity;
pub mod object_events;
pub mod operations;
pub mod page;
pub mod picture;
pub mod protobuf;
pub mod references;
pub mod relations;
pub mod requests;
pub mod scale;
pub mod search;
pub mod segments;
pub mod sniff;
pub mod streams;
pub mod subresource;
pub mod target;
pub mod terminal;
pub mod time_axis;
pub mod validation;
pub mod view_state;
pub mod wire_log;
pub mod write;
