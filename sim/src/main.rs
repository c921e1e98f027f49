//! kube-sim: a simulated Kubernetes API server on loopback.

use std::net::SocketAddr;

use axum::{routing::get, Json, Router};
use serde_json::json;

#[tokio::main]
async fn main() {
    let mut listen: SocketAddr = ([127, 0, 0, 1], 8001).into();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => match args.next().map(|a| a.parse()) {
                Some(Ok(addr)) => listen = addr,
                _ => fail("--listen expects an address such as 127.0.0.1:8001"),
            },
            other => fail(&format!("unknown argument {other:?}")),
        }
    }
    if !listen.ip().is_loopback() {
        fail("kube-sim listens on loopback only");
    }
    let app = Router::new().route(
        "/version",
        get(|| async {
            Json(json!({"major": "1", "minor": "36", "gitVersion": "v1.36.3-sim", "platform": "kube-sim"}))
        }),
    );
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => fail(&format!("cannot listen on {listen}: {e}")),
    };
    println!("kube-sim listening on http://{listen}");
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    {
        fail(&format!("server error: {e}"));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("kube-sim: {message}");
    std::process::exit(2);
}
