//! `--www` and `--www-prefix`: static files next to the API, as `kubectl proxy --www` serves them.

mod common;

use std::process::Command;

use common::Sim;

fn bundle(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kube-sim-www-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(dir.join("assets")).expect("temp folder");
    std::fs::write(dir.join("index.html"), "<!DOCTYPE html><title>bundle</title>").expect("writes");
    std::fs::write(dir.join("assets/app.js"), "export const x = 1;").expect("writes");
    dir
}

#[tokio::test]
async fn serves_the_folder_under_the_prefix_next_to_the_api() {
    let dir = bundle("serve");
    let sim = Sim::start(&["--www", dir.to_str().expect("utf-8 path"), "--www-prefix", "/explorer/"]);
    let index = sim.get("/explorer/").await;
    assert_eq!(index.status(), 200);
    assert!(index.headers()["content-type"].to_str().unwrap_or_default().starts_with("text/html"));
    assert_eq!(index.text().await.expect("body"), "<!DOCTYPE html><title>bundle</title>");
    let script = sim.get("/explorer/assets/app.js").await;
    assert_eq!(script.status(), 200);
    assert!(script.headers()["content-type"].to_str().unwrap_or_default().contains("javascript"));
    assert_eq!(sim.get("/explorer/missing.js").await.status(), 404);
    assert_eq!(sim.get("/explorer/../Cargo.toml").await.status(), 404);

    let no_redirects =
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client builds");
    let bare = no_redirects.get(sim.url("/explorer?embed=1")).send().await.expect("request succeeds");
    assert_eq!(bare.status(), 301);
    assert_eq!(bare.headers()["location"], "/explorer/?embed=1");

    let (status, namespaces) = sim.get_json("/api/v1/namespaces").await;
    assert_eq!(status, 200);
    assert_eq!(namespaces["kind"], "NamespaceList");

    // A page on another local origin may load the bundle (module scripts are fetched with CORS).
    let cross = sim
        .client
        .get(sim.url("/explorer/assets/app.js"))
        .header("Origin", "http://127.0.0.1:9")
        .send()
        .await
        .expect("request succeeds");
    assert_eq!(cross.headers()["access-control-allow-origin"], "http://127.0.0.1:9");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn faults_hit_the_api_not_the_static_files() {
    let dir = bundle("faults");
    let sim = Sim::start(&["--www", dir.to_str().expect("utf-8 path"), "--www-prefix", "ui"]);
    let armed = sim.client.post(sim.url("/_sim/fail?status=500&count=1")).send().await.expect("request succeeds");
    assert_eq!(armed.status(), 200);
    assert_eq!(sim.get("/ui/index.html").await.status(), 200);
    assert_eq!(sim.get("/api/v1/namespaces").await.status(), 500);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn refuses_a_prefix_that_would_hide_the_api_or_a_missing_folder() {
    let dir = bundle("refuse");
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_kube-sim")).args(args).output().expect("runs");
    let out = run(&["--listen", "127.0.0.1:0", "--www", dir.to_str().expect("utf-8 path"), "--www-prefix", "/apis/"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/apis belongs to the API"));
    let out = run(&["--listen", "127.0.0.1:0", "--www", "/no/such/folder"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--www /no/such/folder: not a folder"));
    let _ = std::fs::remove_dir_all(dir);
}
