//! Command line of kube-sim: where to listen, which dataset to load, and the time windows that
//! drive continue-token expiry, watch history and bookmarks.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::Parser;

/// A simulated Kubernetes API server on loopback.
#[derive(Debug, Clone, Parser)]
#[command(name = "kube-sim", version, about)]
pub struct Cli {
    /// Address to listen on; loopback only unless --allow-remote is given.
    #[arg(long, default_value = "127.0.0.1:8001")]
    pub listen: SocketAddr,
    /// Objects to start with: demo, empty, or scale:N (N extra pods of ~2 KB each).
    #[arg(long, default_value = "demo")]
    pub dataset: Dataset,
    /// Seconds a continue token stays valid; after that it answers 410 Expired.
    #[arg(long, default_value_t = 300)]
    pub continue_ttl: u64,
    /// Seconds of watch history kept; a watch from an older resourceVersion gets a 410 event.
    #[arg(long, default_value_t = 300)]
    pub history: u64,
    /// The most changes the watch history keeps (as an API server's watch cache has a
    /// capacity): under a fast churn the oldest go before --history says, so that memory stays
    /// bounded (each change holds a copy of its object).
    #[arg(long, default_value_t = 50_000)]
    pub history_events: usize,
    /// Seconds between periodic BOOKMARK events on watches that allow them.
    #[arg(long, default_value_t = 15)]
    pub bookmark_interval: u64,
    /// Keep changing objects so that watches show a steady flow of events.
    #[arg(long)]
    pub activity: bool,
    /// Seconds a pod of a Job runs before its containers exit (the simulated kubelet).
    #[arg(long, default_value_t = 3)]
    pub pod_run_seconds: u64,
    /// Do not serve metrics.k8s.io, as a cluster without metrics-server (`kubectl top` then
    /// says "Metrics API not available").
    #[arg(long)]
    pub no_metrics: bool,
    /// Accept a non-loopback --listen address.
    #[arg(long)]
    pub allow_remote: bool,
    /// Also serve static files from this folder, as `kubectl proxy --www` does.
    #[arg(long)]
    pub www: Option<PathBuf>,
    /// The URL path the --www files are served under, as `kubectl proxy --www-prefix`.
    #[arg(long, default_value = "/static/")]
    pub www_prefix: String,
    /// Users who authenticate with `Authorization: Bearer TOKEN`, one a line as kube-apiserver's
    /// --token-auth-file: token,user,uid[,"group1,group2"].
    #[arg(long, value_name = "FILE")]
    pub users: Option<PathBuf>,
    /// The user that requests without credentials are made by (behind `kubectl proxy` a browser
    /// has none); the default is a cluster admin in the group system:masters.
    #[arg(long = "as", value_name = "USER", default_value = crate::auth::DEFAULT_USER)]
    pub as_user: String,
    /// Serve legacy discovery only, as a server without aggregated discovery (before 1.26, or
    /// with the AggregatedDiscoveryEndpoint feature gate off): an Accept that asks for
    /// `as=APIGroupDiscoveryList` gets its plain JSON fallback, or 406 when it has none.
    #[arg(long)]
    pub legacy_discovery_only: bool,
}

impl Cli {
    pub fn continue_ttl(&self) -> Duration {
        Duration::from_secs(self.continue_ttl)
    }

    pub fn history(&self) -> Duration {
        Duration::from_secs(self.history)
    }

    pub fn bookmark_interval(&self) -> Duration {
        Duration::from_secs(self.bookmark_interval.max(1))
    }
}

/// The initial content of the simulated cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dataset {
    /// A small living cluster: namespaces, workloads, services, config, nodes, events, leases and
    /// a custom resource type with instances.
    Demo,
    /// Only the system namespaces and the custom resource definition.
    Empty,
    /// The demo cluster plus N pods spread over namespaces.
    Scale(usize),
}

impl FromStr for Dataset {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "demo" => Ok(Dataset::Demo),
            "empty" => Ok(Dataset::Empty),
            other => match other.strip_prefix("scale:").map(str::parse) {
                Some(Ok(n)) => Ok(Dataset::Scale(n)),
                _ => Err(format!("unknown dataset {other:?}: expected demo, empty or scale:N")),
            },
        }
    }
}

impl std::fmt::Display for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dataset::Demo => f.write_str("demo"),
            Dataset::Empty => f.write_str("empty"),
            Dataset::Scale(n) => write!(f, "scale:{n}"),
        }
    }
}
