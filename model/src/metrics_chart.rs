//! A pod's or a node's CPU and memory over time, kept in the page since its screen opened
//! (metrics-server keeps only its last scrape, so the page is the only place a history can be),
//! and the geometry of a line chart of them: drawn as plain SVG elements by the view (a path,
//! lines and texts, no inline style: the README's Content-Security-Policy allows no inline
//! style), with a table of the same samples for screen readers.
//!
//! The chart's geometry is [`crate::line_chart`]'s (why not a chart library: there).
//!
//! Invariants: a scrape is recorded once (the same or an older `timestamp` is not a new sample);
//! at most [`KEPT`] samples are kept, the oldest dropped first.

use std::collections::VecDeque;

use k8s_openapi::jiff::Timestamp;
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::{Map, Value};
use kube_wire::discovery::Discovery;
use kube_wire::media_type::{Accept, MediaType};
use kube_wire::params::GetParams;
use kube_wire::request::{Collection, Request};

use crate::line_chart::{line_chart, Point};
use crate::metrics::{read_scrape, Measured, MetricsError, Usage, GROUP, VERSION};

pub use crate::line_chart::{Chart, Tick};

/// How many samples are kept: an hour at metrics-server's 15 s resolution.
pub const KEPT: usize = 240;

/// One scrape of the object.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The scrape's `timestamp`, as written.
    pub timestamp: String,
    /// The same, in milliseconds since the epoch.
    pub at_ms: i64,
    /// A pod's usage summed over its containers; a node's usage.
    pub usage: Usage,
}

/// What recording a document did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recorded {
    /// Whether the scrape was new (not one already recorded).
    pub new: bool,
    /// The window the document names, in milliseconds, when it names one that reads.
    pub window_ms: Option<f64>,
}

/// The samples seen, oldest first, at most [`KEPT`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricsHistory {
    samples: VecDeque<Sample>,
}

impl MetricsHistory {
    /// Records a PodMetrics or NodeMetrics document (a `get` of one object's metrics). A scrape
    /// already recorded (read again before the next window) or older than the last is not
    /// recorded.
    pub fn record(&mut self, document: &Value, measured: Measured) -> Result<Recorded, MetricsError> {
        let mut list = Map::new();
        list.insert("items", Value::Array(vec![document.clone()]));
        let scrape = read_scrape(&Value::Object(list), measured).map_err(unlisted)?;
        let usage = scrape.usage.values().next().copied().unwrap_or_default();
        let timestamp = scrape.timestamp.unwrap_or_default();
        let new = self.record_usage(&timestamp, usage)?;
        Ok(Recorded { new, window_ms: scrape.window_ms })
    }

    /// Records `usage` measured at `timestamp` (RFC 3339, as metrics-server writes it): a
    /// namespace's pods summed, or one object's. Returns whether it was new; the same or an
    /// older time is not.
    pub fn record_usage(&mut self, timestamp: &str, usage: Usage) -> Result<bool, MetricsError> {
        let unexpected = || MetricsError::Unexpected { at: "timestamp".into(), expected: "a time" };
        let at_ms = timestamp.parse::<Timestamp>().map_err(|_| unexpected())?.as_millisecond();
        if self.samples.back().is_some_and(|last| last.at_ms >= at_ms) {
            return Ok(false);
        }
        if self.samples.len() == KEPT {
            self.samples.pop_front();
        }
        self.samples.push_back(Sample { timestamp: timestamp.to_owned(), at_ms, usage });
        Ok(true)
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &Sample> + DoubleEndedIterator {
        self.samples.iter()
    }
}

/// An error of [`read_scrape`] about the one-item list a document was put in, about the document:
/// `items[0].containers[1].usage.cpu` is the document's `containers[1].usage.cpu`.
fn unlisted(error: MetricsError) -> MetricsError {
    let strip = |at: String| at.strip_prefix("items[0].").map(str::to_owned).unwrap_or(at);
    match error {
        MetricsError::Unexpected { at, expected } => MetricsError::Unexpected { at: strip(at), expected },
        MetricsError::Quantity { at, error } => MetricsError::Quantity { at: strip(at), error },
        MetricsError::Decode { at, error } => MetricsError::Decode { at: strip(at), error },
        MetricsError::NotServed => MetricsError::NotServed,
    }
}

/// The `get` of one object's metrics (`metrics.k8s.io/v1beta1` `pods` in its namespace, or
/// `nodes`), if discovery lists that type with `get`.
pub fn plan_object(
    discovery: &Discovery,
    measured: Measured,
    namespace: Option<&str>,
    name: &str,
) -> Result<Request, MetricsError> {
    let resource = discovery.find_resource(GROUP, VERSION, measured.plural()).filter(|r| r.supports("get"));
    let object = resource
        .and_then(|r| Collection::new(r, r.scoped(namespace)).ok())
        .and_then(|c| c.object(name).ok())
        .ok_or(MetricsError::NotServed)?;
    Ok(RequestBuilder::get_object(&object, &GetParams::default(), &Accept::only(MediaType::json())).build())
}

/// Which figure a chart draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Millicores, rounded up as `kubectl top` shows them.
    Cpu,
    /// MiB, rounded down as `kubectl top` shows them.
    Memory,
}

impl Figure {
    /// The sample's value in the figure's unit.
    pub fn value(self, sample: &Sample) -> i128 {
        self.unit(self.amount(&sample.usage))
    }

    /// The figure's raw amount in a usage: nanocores of CPU, bytes of memory.
    pub fn amount(self, usage: &Usage) -> i128 {
        match self {
            Figure::Cpu => usage.cpu,
            Figure::Memory => usage.memory,
        }
    }

    /// A raw amount in the figure's unit: millicores rounded up, MiB rounded down.
    pub fn unit(self, raw: i128) -> i128 {
        match self {
            Figure::Cpu => raw.div_euclid(1_000_000) + i128::from(raw.rem_euclid(1_000_000) != 0),
            Figure::Memory => raw.div_euclid(1024 * 1024),
        }
    }

    /// A raw amount as shown (`38m`, `100Mi`).
    pub fn show(self, raw: i128) -> String {
        self.label(self.unit(raw))
    }

    /// A value as shown (`38m`, `100Mi`), as `kubectl top` writes it.
    pub fn label(self, value: i128) -> String {
        match self {
            Figure::Cpu => format!("{value}m"),
            Figure::Memory => format!("{value}Mi"),
        }
    }
}

/// The time of day a sample's timestamp names (`16:18:30` of `2026-11-28T16:18:30Z`), in UTC
/// as the server wrote it.
pub fn time_of_day(sample: &Sample) -> &str {
    sample.timestamp.get(11..19).unwrap_or(&sample.timestamp)
}

/// The line chart of `figure` over `samples` in a `width` × `height` box ([`line_chart`]).
pub fn chart<'a>(samples: impl Iterator<Item = &'a Sample>, figure: Figure, width: f64, height: f64) -> Chart {
    let points: Vec<Point> =
        samples.map(|s| Point { at_ms: s.at_ms, value: figure.value(s), time: time_of_day(s) }).collect();
    line_chart(&points, |value| figure.label(value), width, height)
}

#[cfg(test)]
#[path = "metrics_chart_tests.rs"]
mod tests;
