//! kube-sim: a simulated Kubernetes API server on loopback, for Kube API Explorer's tests and
//! demos. It keeps objects in memory, streams watches, negotiates representations and answers
//! with the status codes a real kube-apiserver gives.

mod access;
mod access_log;
mod activity;
mod api;
mod apply;
mod auth;
mod cli;
mod controller;
mod cors;
mod dataset;
mod defaults;
mod deletion;
mod discovery;
mod encode;
mod faults;
mod fields;
mod heap;
mod http;
mod kubelet;
mod lifecycle;
mod list;
mod logs;
mod negotiate;
mod object;
mod openapi;
mod ordered;
mod patch;
mod policy;
mod protobuf;
mod rbac;
mod read;
mod registry;
mod request_info;
mod review;
mod schema;
mod selector;
mod status;
mod store;
mod table;
mod typed;
mod watch;
mod write;
mod www;

use std::sync::Arc;
use std::time::Instant;

use clap::Parser;

use crate::cli::Cli;
use crate::registry::Registry;
use crate::store::Store;

/// Everything a request handler needs.
pub struct App {
    pub cli: Cli,
    pub registry: Registry,
    pub store: Store,
    pub faults: faults::Faults,
    pub schemas: schema::Schemas,
    /// Static files served next to the API (`--www`), as `kubectl proxy --www` does.
    pub www: Option<www::Www>,
    /// Who may authenticate, by token or by name.
    pub users: auth::Users,
    /// The user requests without credentials are made by (`--as`).
    pub anonymous: auth::UserInfo,
}

fn main() {
    // Before the runtime starts its threads.
    heap::tune();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build();
    match runtime {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => fail(&format!("cannot start the runtime: {e}")),
    }
}

async fn run() {
    let cli = Cli::parse();
    if !cli.listen.ip().is_loopback() && !cli.allow_remote {
        fail(&format!(
            "refusing to listen on {}: kube-sim listens on loopback only (use --allow-remote to override)",
            cli.listen
        ));
    }
    let www = match &cli.www {
        Some(dir) => match www::Www::new(dir, &cli.www_prefix) {
            Ok(www) => Some(www),
            Err(e) => fail(&e),
        },
        None => None,
    };
    let mut known = if cli.dataset == cli::Dataset::Empty { Vec::new() } else { auth::demo_users() };
    if let Some(file) = &cli.users {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", file.display())));
        match auth::parse_token_file(&text) {
            Ok(users) => known.extend(users),
            Err(e) => fail(&format!("{}: {e}", file.display())),
        }
    }
    let users = auth::Users::new(known);
    let anonymous = users.named(&cli.as_user);
    let started = Instant::now();
    let registry = match Registry::load() {
        Ok(r) => r,
        Err(e) => fail(&format!("embedded discovery data is broken: {e}")),
    };
    let schemas = match schema::Schemas::load() {
        Ok(s) => s,
        Err(e) => fail(&format!("embedded OpenAPI data is broken: {e}")),
    };
    let store = Store::new(cli.history(), cli.history_events, cli.continue_ttl());
    store.write(|txn| dataset::load(txn, &registry, cli.dataset));
    let app = Arc::new(App {
        cli: cli.clone(),
        registry,
        store,
        faults: faults::Faults::new(),
        schemas,
        www,
        users,
        anonymous: anonymous.clone(),
    });
    let listener = match tokio::net::TcpListener::bind(cli.listen).await {
        Ok(l) => l,
        Err(e) => fail(&format!("cannot listen on {}: {e}", cli.listen)),
    };
    let addr = listener.local_addr().unwrap_or(cli.listen);
    println!(
        "kube-sim listening on http://{addr} dataset={} activity={} as={} objects={} resourceVersion={} ready in {} ms",
        cli.dataset,
        if cli.activity { "on" } else { "off" },
        anonymous.username,
        app.store.read().counts().values().sum::<usize>(),
        app.store.current_rv(),
        started.elapsed().as_millis()
    );
    if let Some(www) = &app.www {
        println!("kube-sim serves {} at http://{addr}{}", www.dir.display(), www.prefix);
    }
    if cli.activity {
        activity::start(app.clone());
    }
    let compactor = app.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        loop {
            tick.tick().await;
            compactor.store.prune();
        }
    });
    let router = api::router(app.clone());
    let on_shutdown = app.clone();
    if let Err(e) = axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            // If the signal handler cannot be installed, run until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            // Open watches would keep the graceful shutdown waiting: end them.
            on_shutdown.faults.cut_streams();
        })
        .await
    {
        fail(&format!("server error: {e}"));
    }
    println!("kube-sim stopped");
}

fn fail(message: &str) -> ! {
    eprintln!("kube-sim: {message}");
    std::process::exit(2);
}
