//! The `log` subresource of pods: plain-text container output made up from the pod's image,
//! with `container`, `tailLines`, `timestamps`, `limitBytes`, and `follow=true`, which keeps the
//! response open and writes a new line every second until the client goes away.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::http::{Ctx, ResourcePath};
use crate::object;
use crate::status::{bad_request, not_found, ApiResult};
use crate::App;

/// Lines a container "wrote" before the request: one per ten seconds since it started, at most 200.
fn history_len(pod: &Value) -> usize {
    let started = object::path(pod, "status.startTime").and_then(Value::as_str).and_then(object::parse_time);
    started.map(|t| ((object::now() - t).num_seconds().max(0) / 10 + 3).min(200) as usize).unwrap_or(3)
}

fn line(pod: &str, container: &str, image: &str, n: usize, at: DateTime<Utc>, timestamps: bool) -> String {
    let text = if image.starts_with("nginx") {
        format!(
            "10.244.0.{} - - [{}] \"GET /healthz HTTP/1.1\" 200 2 \"-\" \"kube-probe/1.36\"",
            n % 250,
            at.format("%d/%b/%Y:%H:%M:%S +0000")
        )
    } else {
        format!(
            "level=info ts={} msg=\"handled request\" pod={pod} container={container} seq={n}",
            object::timestamp(at)
        )
    };
    if timestamps {
        format!("{} {text}\n", at.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true))
    } else {
        format!("{text}\n")
    }
}

pub fn log(app: &Arc<App>, ctx: &Ctx, path: &ResourcePath, name: &str) -> ApiResult<Response> {
    let ns = path.namespace.clone().unwrap_or_default();
    let pod = app.store.read().get("/pods", &ns, name).ok_or_else(|| not_found(&path.rt, name))?;
    let containers: Vec<(String, String)> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (c["name"].as_str().unwrap_or_default().to_string(), c["image"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    let container = match ctx.query.get("container") {
        Some(c) => containers
            .iter()
            .find(|(n, _)| n == c)
            .cloned()
            .ok_or_else(|| bad_request(format!("container {c} is not valid for pod {name}")))?,
        None if containers.len() == 1 => containers[0].clone(),
        None => {
            let names: Vec<&str> = containers.iter().map(|(n, _)| n.as_str()).collect();
            return Err(bad_request(format!(
                "a container name must be specified for pod {name}, choose one of: [{}]",
                names.join(" ")
            )));
        }
    };
    if pod["status"]["phase"] != "Running" {
        return Err(bad_request(format!(
            "container \"{}\" in pod \"{name}\" is waiting to start: ContainerCreating",
            container.0
        )));
    }
    let timestamps = ctx.query.get("timestamps").is_some_and(|t| t == "true" || t == "1");
    let follow = ctx.query.get("follow").is_some_and(|t| t == "true" || t == "1");
    let total = history_len(&pod);
    let tail = ctx
        .query
        .get("tailLines")
        .map(|t| {
            t.parse::<i64>().map_err(|_| bad_request(format!("strconv.ParseInt: parsing \"{t}\": invalid syntax")))
        })
        .transpose()?
        .map(|t| t.max(0) as usize)
        .unwrap_or(total)
        .min(total);
    let now = object::now();
    let mut text = String::new();
    for i in (total - tail)..total {
        let at = now - chrono::Duration::seconds(((total - i) * 10) as i64);
        text.push_str(&line(name, &container.0, &container.1, i, at, timestamps));
    }
    if let Some(limit) = ctx.query.get("limitBytes").and_then(|l| l.parse::<usize>().ok()) {
        let mut cut = limit.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    let mut resp = if follow {
        let name = name.to_string();
        let first = futures::stream::once(async move { Ok::<Bytes, std::io::Error>(Bytes::from(text)) });
        let rest = futures::stream::unfold(total, move |n| {
            let (name, container) = (name.clone(), container.clone());
            async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let l = line(&name, &container.0, &container.1, n, object::now(), timestamps);
                Some((Ok(Bytes::from(l)), n + 1))
            }
        });
        let mut cut = app.faults.watch_cuts();
        let stop = async move {
            // A closed channel means the server is going away: stop as well.
            let _ = cut.changed().await;
        };
        Response::new(Body::from_stream(futures::StreamExt::take_until(futures::StreamExt::chain(first, rest), stop)))
    } else {
        Response::new(Body::from(text))
    };
    *resp.status_mut() = StatusCode::OK;
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    Ok(resp)
}
