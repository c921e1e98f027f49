//! kube-sim throughput, reported rather than asserted: start-up time of `--dataset scale:10000`,
//! list throughput paging `GET /api/v1/pods?limit=500` (pages/s, MB/s), the time to a page's
//! first byte in JSON and CBOR, kube-sim's CPU per pod change while `/_sim/churn` changes pods
//! with one JSON or CBOR watcher open (its own user and system time from `/proc`, over the
//! changes its resourceVersion counted), and watch fan-out (events per second delivered to 10
//! concurrent watchers while 10,000 pods are deleted).
//!
//! Run with `cargo bench -p kube-sim --bench throughput` (cargo builds the release binary first).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WATCHERS: usize = 10;
const PODS: usize = 10_000;

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Result<(Server, Duration), String> {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kube-sim"))
        .args(["--listen", "127.0.0.1:0", "--dataset", &format!("scale:{PODS}")])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start kube-sim: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let first = lines.next().and_then(Result::ok).ok_or("kube-sim printed nothing")?;
    let elapsed = started.elapsed();
    std::thread::spawn(move || for _ in lines {});
    let addr =
        first.split_whitespace().find_map(|w| w.strip_prefix("http://")).ok_or("no address printed")?.to_string();
    Ok((Server { child, base: format!("http://{addr}") }, elapsed))
}

async fn list_pass(client: &reqwest::Client, base: &str) -> Result<(usize, usize, usize), String> {
    let (mut pages, mut bytes, mut items) = (0, 0, 0);
    let mut token = String::new();
    loop {
        let url = if token.is_empty() {
            format!("{base}/api/v1/pods?limit=500")
        } else {
            format!("{base}/api/v1/pods?limit=500&continue={token}")
        };
        let body = client.get(url).send().await.map_err(|e| e.to_string())?.bytes().await.map_err(|e| e.to_string())?;
        let page: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        pages += 1;
        bytes += body.len();
        items += page["items"].as_array().map(Vec::len).unwrap_or(0);
        token = page["metadata"]["continue"].as_str().unwrap_or_default().to_string();
        if token.is_empty() {
            return Ok((pages, bytes, items));
        }
    }
}

/// Median time to the first byte of `GET /api/v1/pods?limit=500` with `accept`, over 10 reads.
async fn first_byte(client: &reqwest::Client, base: &str, accept: &str) -> Result<Duration, String> {
    let mut times = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        let mut resp = client
            .get(format!("{base}/api/v1/pods?limit=500"))
            .header("Accept", accept)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        resp.chunk().await.map_err(|e| e.to_string())?;
        times.push(t.elapsed());
        while resp.chunk().await.map_err(|e| e.to_string())?.is_some() {}
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// kube-sim's own CPU time (user + system) so far, from `/proc/PID/stat`, in seconds.
fn cpu_seconds(pid: u32) -> Result<f64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // The fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map(|(_, r)| r).ok_or("no command name in /proc stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).ok_or("short /proc stat");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    let ticks_per_second = 100.0; // USER_HZ on Linux
    Ok((ticks(11)? + ticks(12)?) as f64 / ticks_per_second)
}

async fn resource_version(client: &reqwest::Client, base: &str) -> Result<u64, String> {
    let body = client
        .get(format!("{base}/api/v1/pods?limit=1"))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .bytes()
        .await
        .map_err(|e| e.to_string())?;
    let list: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    list["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|rv| rv.parse().ok())
        .ok_or_else(|| "no resourceVersion".into())
}

/// kube-sim's CPU per pod change during a churn of `rate` changes a second for `seconds`, with
/// one watcher of all pods open in `accept`: (changes, CPU seconds, microseconds a change).
async fn cpu_per_change(
    client: &reqwest::Client,
    base: &str,
    pid: u32,
    accept: &str,
    rate: u64,
    seconds: u64,
) -> Result<(u64, f64, f64), String> {
    let before = resource_version(client, base).await?;
    let mut watch = client
        .get(format!("{base}/api/v1/pods?watch=1&resourceVersion={before}&timeoutSeconds=600"))
        .header("Accept", accept)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let drained = tokio::spawn(async move {
        let mut bytes = 0usize;
        while let Ok(Ok(Some(c))) = tokio::time::timeout(Duration::from_secs(3), watch.chunk()).await {
            bytes += c.len();
        }
        bytes
    });
    let cpu_before = cpu_seconds(pid)?;
    client.post(format!("{base}/_sim/churn?rate={rate}&seconds={seconds}")).send().await.map_err(|e| e.to_string())?;
    // The churn makes exactly rate × seconds changes, late ones catching up: wait until they are
    // all counted, then until the watcher has had no bytes for 3 s (it has read them all).
    let goal = before + rate * seconds;
    let deadline = Instant::now() + Duration::from_secs(seconds * 10 + 30);
    let mut after = before;
    while after < goal && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        after = resource_version(client, base).await?;
    }
    drained.await.map_err(|e| e.to_string())?;
    let cpu = cpu_seconds(pid)? - cpu_before;
    let changes = after - before;
    Ok((changes, cpu, cpu * 1e6 / changes.max(1) as f64))
}

async fn fan_out(client: &reqwest::Client, base: &str) -> Result<(usize, Duration), String> {
    let body = client
        .get(format!("{base}/api/v1/pods?limit=1"))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .bytes()
        .await
        .map_err(|e| e.to_string())?;
    let list: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap_or("0").to_string();
    let mut watchers = Vec::new();
    for _ in 0..WATCHERS {
        let resp = client
            .get(format!("{base}/api/v1/pods?watch=1&resourceVersion={rv}&timeoutSeconds=600"))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        watchers.push(tokio::spawn(async move {
            let mut resp = resp;
            let mut newlines = 0usize;
            while newlines < PODS {
                match tokio::time::timeout(Duration::from_secs(120), resp.chunk()).await {
                    Ok(Ok(Some(c))) => newlines += c.iter().filter(|b| **b == b'\n').count(),
                    _ => break,
                }
            }
            (newlines, Instant::now())
        }));
    }
    let started = Instant::now();
    for i in 0..10 {
        client
            .delete(format!("{base}/api/v1/namespaces/load-{i}/pods?gracePeriodSeconds=0"))
            .send()
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut events = 0;
    let mut last = started;
    for w in watchers {
        let (n, at) = w.await.map_err(|e| e.to_string())?;
        events += n;
        last = last.max(at);
    }
    Ok((events, last - started))
}

fn main() {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return eprintln!("bench: no runtime: {e}"),
    };
    if let Err(e) = runtime.block_on(run()) {
        eprintln!("bench failed: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let (server, startup) = start()?;
    println!("start-up, --dataset scale:{PODS}: {:.2} s (until the address is printed)", startup.as_secs_f64());
    let client = reqwest::Client::new();
    let passes = 5;
    let t = Instant::now();
    let (mut pages, mut bytes, mut items) = (0, 0, 0);
    for _ in 0..passes {
        let (p, b, i) = list_pass(&client, &server.base).await?;
        pages += p;
        bytes += b;
        items += i;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "list, limit=500: {pages} pages ({items} pods, {:.1} MB) in {secs:.2} s = {:.1} pages/s, {:.1} MB/s",
        bytes as f64 / 1e6,
        pages as f64 / secs,
        bytes as f64 / 1e6 / secs
    );
    for (name, accept) in [("JSON", "application/json"), ("CBOR", "application/cbor")] {
        let t = first_byte(&client, &server.base, accept).await?;
        println!("first byte of a 500-pod page in {name}: {:.1} ms (median of 10)", t.as_secs_f64() * 1e3);
    }
    let pid = server.child.id();
    for (name, accept) in [("JSON", "application/json"), ("CBOR", "application/cbor")] {
        let (changes, cpu, per) = cpu_per_change(&client, &server.base, pid, accept, 10_000, 4).await?;
        println!(
            "CPU per pod change, /_sim/churn?rate=10000&seconds=4, one {name} watcher: {per:.1} µs ({cpu:.2} s of kube-sim CPU for {changes} changes)"
        );
    }
    let (events, took) = fan_out(&client, &server.base).await?;
    println!(
        "watch fan-out: {events} events to {WATCHERS} watchers in {:.2} s = {:.0} events/s",
        took.as_secs_f64(),
        events as f64 / took.as_secs_f64()
    );
    drop(server);
    Ok(())
}
