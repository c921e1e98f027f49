//! The `log` subresource of pods, as a fake kubelet writes it: each container writes line `n`
//! at `started + n` seconds (plus a few milliseconds that depend on `n`), so a log is the same
//! whenever it is read and a follow that drops and resumes from `sinceTime` gets the same lines
//! again. The last [`KEPT`] lines are kept, as a rotated log file would be. Options:
//! `container`, `tailLines`, `timestamps` (RFC 3339 with nanoseconds, trailing zeros trimmed, as
//! the kubelet writes them), `sinceSeconds` or `sinceTime`, `previous` (the terminated instance
//! that `lastState.terminated` of the container's status describes), `limitBytes`, and
//! `follow=true`, which keeps the response open and writes each line when its time comes, until
//! the client goes away or the streams are cut.
//!
//! A container whose `command` kube-sim can run (a shell script, `echo`, `sleep`…: see
//! [`crate::exec::main`]) logs what that process writes instead, each line stamped with the time
//! its process's clock says (a busybox `while true; do echo hi; sleep 5; done` logs `hi` at its
//! start and every five seconds after), and a follow of it ends when the process exits.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;

use crate::app::App;
use crate::http::{exec, Ctx, ResourcePath};
use crate::rules::status::{bad_request, not_found, ApiResult};
use crate::store::object;

/// Lines a container's log keeps (older ones were rotated away).
const KEPT: i64 = 200;

/// Lines a container writes at once when it starts.
const STARTUP: i64 = 3;

/// When line `n` of a run that started at `started` was written: the first [`STARTUP`] lines in
/// one burst at the start (a microsecond apart), then one a second (a few milliseconds past it, so
/// stamps have fractions). A status reports the start no sooner than it happened, so whoever has
/// read a running container's status finds its burst written, however soon they ask for the log.
pub(crate) fn line_time(started: DateTime<Utc>, n: i64) -> DateTime<Utc> {
    if n < STARTUP {
        return started + chrono::Duration::microseconds(n);
    }
    started + chrono::Duration::seconds(n - STARTUP + 1) + chrono::Duration::milliseconds((n * 37).rem_euclid(1000))
}

/// The number of the last line written by `now` (`None` before the first).
pub(crate) fn last_line(started: DateTime<Utc>, now: DateTime<Utc>) -> Option<i64> {
    let mut n = (now - started).num_seconds() + STARTUP;
    while n >= 0 && line_time(started, n) > now {
        n -= 1;
    }
    (n >= 0).then_some(n)
}

/// `RFC3339Nano` as Go writes it: nanoseconds with the trailing zeros (and a bare point) trimmed.
fn stamp(at: DateTime<Utc>) -> String {
    let full = at.to_rfc3339_opts(SecondsFormat::Nanos, true);
    let (head, _) = full.split_at(full.len() - 1);
    format!("{}Z", head.trim_end_matches('0').trim_end_matches('.'))
}

pub(crate) fn line(pod: &str, container: &str, image: &str, n: i64, at: DateTime<Utc>, timestamps: bool) -> String {
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
        format!("{} {text}\n", stamp(at))
    } else {
        format!("{text}\n")
    }
}

/// The container's run whose log is read: when it started and, for a terminated one, when it
/// finished.
pub(crate) struct Run {
    pub started: DateTime<Utc>,
    pub finished: Option<DateTime<Utc>>,
}

pub(crate) fn container_run(pod: &Value, container: &str, previous: bool) -> Result<Run, String> {
    let statuses = pod["status"]["containerStatuses"].as_array();
    let status = statuses.into_iter().flatten().find(|s| s["name"] == container);
    let time = |v: &Value| v.as_str().and_then(object::parse_time);
    if previous {
        let terminated = status.map(|s| &s["lastState"]["terminated"]).filter(|t| t.is_object());
        return match terminated.and_then(|t| Some((time(&t["startedAt"])?, time(&t["finishedAt"])?))) {
            Some((started, finished)) => Ok(Run { started, finished: Some(finished) }),
            None => Err(format!(
                "previous terminated container \"{container}\" in pod \"{}\" not found",
                pod["metadata"]["name"].as_str().unwrap_or_default()
            )),
        };
    }
    let started = status
        .and_then(|s| time(&s["state"]["running"]["startedAt"]))
        .or_else(|| time(&pod["status"]["startTime"]))
        .unwrap_or_else(object::now);
    Ok(Run { started, finished: None })
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
    let flag = |key: &str| ctx.query.get(key).is_some_and(|t| t == "true" || t == "1");
    let (timestamps, follow, previous) = (flag("timestamps"), flag("follow"), flag("previous"));
    let run = container_run(&pod, &container.0, previous).map_err(bad_request)?;
    let now = object::now();
    let since = match (ctx.query.get("sinceSeconds"), ctx.query.get("sinceTime")) {
        (Some(_), Some(_)) => return Err(bad_request("at most one of sinceTime or sinceSeconds may be specified")),
        (Some(seconds), None) => match seconds.parse::<i64>() {
            Ok(s) if s > 0 => Some(now - chrono::Duration::seconds(s)),
            _ => return Err(bad_request(format!("sinceSeconds: Invalid value: {seconds}: must be greater than 0"))),
        },
        (None, Some(time)) => Some(object::parse_time(time).ok_or_else(|| {
            bad_request(format!("parsing time \"{time}\" as \"2006-01-02T15:04:05Z07:00\": cannot parse"))
        })?),
        (None, None) => None,
    };
    let tail = ctx
        .query
        .get("tailLines")
        .map(|t| {
            t.parse::<i64>().map_err(|_| bad_request(format!("strconv.ParseInt: parsing \"{t}\": invalid syntax")))
        })
        .transpose()?;
    let until = run.finished.unwrap_or(now).min(now);
    // What the log holds: the container's own process's lines when kube-sim runs its command,
    // else the fake kubelet's numbered lines.
    let main = exec::main_process(app, &pod, &container.0, run.started);
    let (mut entries, main, end) = match main {
        Some((mut main, first)) => {
            let mut lines = first;
            lines.extend(main.advance(until, KEPT as usize));
            lines.drain(..lines.len().saturating_sub(KEPT as usize));
            let entries: Vec<(DateTime<Utc>, String)> = lines.into_iter().map(|l| (l.at, l.text)).collect();
            (entries, Some(main), None)
        }
        None => {
            let end = last_line(run.started, until);
            let first_kept = end.map_or(0, |e| (e - KEPT + 1).max(0));
            let entries = end
                .map(|end| {
                    (first_kept..=end)
                        .map(|n| {
                            let at = line_time(run.started, n);
                            (at, line(name, &container.0, &container.1, n, at, false))
                        })
                        .collect()
                })
                .unwrap_or_default();
            (entries, None, end)
        }
    };
    entries.retain(|(at, _)| since.is_none_or(|s| *at >= s));
    if let Some(tail) = tail {
        let keep = tail.max(0) as usize;
        entries.drain(..entries.len().saturating_sub(keep));
    }
    let mut text = String::new();
    for (at, line) in &entries {
        if timestamps {
            text.push_str(&stamp(*at));
            text.push(' ');
        }
        text.push_str(line);
    }
    if let (Some(finished), Some(_)) = (run.finished, end) {
        if since.is_none_or(|s| finished >= s) {
            let last = format!("level=error msg=\"exiting: lost connection to upstream\" container={}", container.0);
            text.push_str(&if timestamps { format!("{} {last}\n", stamp(finished)) } else { format!("{last}\n") });
        }
    }
    if let Some(limit) = ctx.query.get("limitBytes").and_then(|l| l.parse::<usize>().ok()) {
        let mut cut = limit.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    // A terminated run has nothing more to write: a follow of it ends with what it has; so has a
    // process that exited (or was left after its sleeps).
    let follow = follow && run.finished.is_none() && main.as_ref().is_none_or(|m| m.next().is_some());
    let mut resp = if follow {
        let first = futures::stream::once(async move { Ok::<Bytes, std::io::Error>(Bytes::from(text)) });
        let rest: futures::stream::BoxStream<'static, Result<Bytes, std::io::Error>> = match main {
            Some(main) => Box::pin(futures::stream::unfold(main, move |mut main| async move {
                // Each time the process wakes, what it wrote; the stream ends when it has no
                // next time (it exited).
                let at = main.next()?;
                let wait = (at - object::now()).to_std().unwrap_or_default();
                tokio::time::sleep(wait).await;
                let mut text = String::new();
                for l in main.advance(at, usize::MAX) {
                    if timestamps {
                        text.push_str(&stamp(l.at));
                        text.push(' ');
                    }
                    text.push_str(&l.text);
                }
                Some((Ok(Bytes::from(text)), main))
            })),
            None => {
                let name = name.to_string();
                let started = run.started;
                let next = end.map_or(0, |e| e + 1);
                Box::pin(futures::stream::unfold(next, move |n| {
                    let (name, container) = (name.clone(), container.clone());
                    async move {
                        let at = line_time(started, n);
                        let wait = (at - object::now()).to_std().unwrap_or_default();
                        tokio::time::sleep(wait).await;
                        let l = line(&name, &container.0, &container.1, n, at, timestamps);
                        Some((Ok(Bytes::from(l)), n + 1))
                    }
                }))
            }
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_written_in_order_one_a_second_after_a_startup_burst() {
        let started = object::parse_time("2026-11-24T10:00:00Z").unwrap();
        let times: Vec<DateTime<Utc>> = (0..40).map(|n| line_time(started, n)).collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
        assert_eq!(last_line(started, started - chrono::Duration::seconds(1)), None, "nothing before the start");
        assert_eq!(last_line(started, started), Some(0));
        assert_eq!(last_line(started, started + chrono::Duration::microseconds(2)), Some(2), "the burst");
        assert_eq!(last_line(started, started + chrono::Duration::milliseconds(999)), Some(2));
        assert_eq!(last_line(started, started + chrono::Duration::milliseconds(1111)), Some(3));
        let later = started + chrono::Duration::seconds(30);
        let last = last_line(started, later).unwrap();
        assert!(line_time(started, last) <= later && line_time(started, last + 1) > later);
    }

    #[test]
    fn stamps_are_rfc3339_nano_with_trailing_zeros_trimmed() {
        let at = object::parse_time("2026-11-24T10:00:01.250Z").unwrap();
        assert_eq!(stamp(at), "2026-11-24T10:00:01.25Z");
        assert_eq!(stamp(object::parse_time("2026-11-24T10:00:01Z").unwrap()), "2026-11-24T10:00:01Z");
    }
}
