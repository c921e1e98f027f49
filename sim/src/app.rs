//! The server's state, shared by every request handler and every simulated controller.

use crate::auth::{UserInfo, Users};
use crate::cli::Cli;
use crate::controllers::running::Kubelet;
use crate::http::faults::state::Faults;
use crate::http::www::Www;
use crate::rules::schema::Schemas;
use crate::store::registry::Registry;
use crate::store::Store;

/// Everything a request handler needs.
pub struct App {
    pub cli: Cli,
    pub registry: Registry,
    pub store: Store,
    pub faults: Faults,
    pub schemas: Schemas,
    /// Static files served next to the API (`--www`), as `kubectl proxy --www` does.
    pub www: Option<Www>,
    /// Who may authenticate, by token or by name.
    pub users: Users,
    /// The user requests without credentials are made by (`--as`).
    pub anonymous: UserInfo,
    /// The pods the simulated kubelet is running.
    pub kubelet: Kubelet,
}
