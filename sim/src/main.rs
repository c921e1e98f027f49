//! kube-sim: a simulated Kubernetes API server on loopback, for Kube API Explorer's tests and
//! demos. It keeps objects in memory, streams watches, negotiates representations and answers
//! with the status codes a real kube-apiserver gives.
//!
//! The code map is in `sim/README.md`: `store` (objects, served types, what every write does to
//! the store), `rules` (the API's rules: Status, selectors, list options, schemas, defaults,
//! managed fields, merge semantics), `encoding` (representations), `auth` (users, RBAC, the
//! filters every request passes), `controllers` (the simulated kubelet and controllers, the
//! datasets), `http` (the handlers and their routes), `openapi` (the served documents).

mod app;
mod auth;
mod cli;
mod controllers;
mod encoding;
mod exec;
mod heap;
mod http;
mod openapi;
mod rules;
mod store;

use std::sync::Arc;
use std::time::Instant;

use clap::Parser;

use crate::app::App;
use crate::cli::Cli;
use crate::controllers::{activity, dataset};
use crate::http::{faults, routes, www};
use crate::rules::schema;
use crate::store::registry::Registry;
use crate::store::Store;

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
    if !cli.no_metrics {
        registry.serve_metrics();
    }
    let store = Store::new(cli.history(), cli.history_events, cli.continue_ttl());
    store.write(|txn| dataset::load(txn, &registry, cli.dataset, !cli.no_metrics));
    let app = Arc::new(App {
        cli: cli.clone(),
        registry,
        store,
        faults: faults::state::Faults::new(),
        schemas,
        www,
        users,
        anonymous: anonymous.clone(),
        kubelet: Default::default(),
    });
    let listener = match tokio::net::TcpListener::bind(cli.listen).await {
        Ok(l) => l,
        Err(e) => fail(&format!("cannot listen on {}: {e}", cli.listen)),
    };
    let addr = listener.local_addr().unwrap_or(cli.listen);
    println!(
        "kube-sim listening on http://{addr} dataset={} activity={} metrics={} as={} objects={} resourceVersion={} ready in {} ms",
        cli.dataset,
        if cli.activity { "on" } else { "off" },
        if cli.no_metrics { "off" } else { "on" },
        anonymous.username,
        app.store.read().counts().values().sum::<usize>(),
        app.store.current_rv(),
        started.elapsed().as_millis()
    );
    if let Some(www) = &app.www {
        println!("kube-sim serves {} at http://{addr}{}", www.dir.display(), www.prefix);
    }
    controllers::manager::start(app.clone());
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
    let router = routes::router(app.clone());
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
