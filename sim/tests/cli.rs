//! The command line: loopback only unless --allow-remote, dataset names, the start-up line, and a
//! clean stop on Ctrl-C (SIGINT) even with a watch open.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::WatchLines;

#[test]
fn refuses_non_loopback_addresses_and_unknown_datasets() {
    let out = Command::new(env!("CARGO_BIN_EXE_kube-sim")).args(["--listen", "0.0.0.0:0"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_kube-sim")).args(["--dataset", "huge"]).output().expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown dataset"));
}

#[tokio::test]
async fn prints_address_and_dataset_and_stops_on_ctrl_c() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kube-sim"))
        .args(["--listen", "127.0.0.1:0", "--dataset", "empty"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(60)).expect("start-up line");
    assert!(first.contains("dataset=empty"), "{first}");
    let addr = first.split_whitespace().find_map(|w| w.strip_prefix("http://")).expect("address").to_string();
    let client = reqwest::Client::new();
    let resp = client.get(format!("http://{addr}/api/v1/namespaces?watch=1")).send().await.expect("watch");
    let mut w = WatchLines::new(resp);
    w.next(30).await.expect("initial event");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            assert!(exit.success(), "clean exit: {exit:?}");
            break;
        }
        assert!(Instant::now() < deadline, "kube-sim did not stop within 30 s of SIGINT");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
