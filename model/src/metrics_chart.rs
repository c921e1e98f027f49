//! A pod's or a node's CPU and memory over time, kept in the page since its screen opened
//! (metrics-server keeps only its last scrape, so the page is the only place a history can be),
//! and the geometry of a line chart of them: drawn as plain SVG elements by the view (a path,
//! lines and texts, no inline style: the README's Content-Security-Policy allows no inline
//! style), with a table of the same samples for screen readers.
//!
//! Why geometry by hand rather than a chart library: the one chart needed is a line over time
//! with a zero-based y axis. plotters (the well-kept Rust chart crate) draws through a backend
//! into an SVG string or a canvas; its SVG string would have to be set as `innerHTML`, its text
//! placement needs a font layer, and what it draws cannot be checked natively except as that
//! string. Here the geometry is a pure function, checked number by number in
//! `metrics_chart_tests.rs`, and the view renders it as Leptos elements. The bundle figures of
//! both are printed by `scripts/bench chart-library`.
//!
//! Invariants: a scrape is recorded once (the same or an older `timestamp` is not a new sample);
//! at most [`KEPT`] samples are kept, the oldest dropped first; the chart's y axis starts at 0
//! and ends at four round steps (1, 2 or 5 × 10^k) above the highest value.

use std::collections::VecDeque;

use k8s_openapi::jiff::Timestamp;
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::{Map, Value};
use kube_wire::discovery::Discovery;
use kube_wire::media_type::{Accept, MediaType};
use kube_wire::params::GetParams;
use kube_wire::request::{Collection, Request};

use crate::metrics::{read_scrape, Measured, MetricsError, Usage, GROUP, VERSION};

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
        let unexpected = || MetricsError::Unexpected { at: "timestamp".into(), expected: "a time" };
        let timestamp = scrape.timestamp.ok_or_else(unexpected)?;
        let at_ms = timestamp.parse::<Timestamp>().map_err(|_| unexpected())?.as_millisecond();
        let window_ms = scrape.window_ms;
        if self.samples.back().is_some_and(|last| last.at_ms >= at_ms) {
            return Ok(Recorded { new: false, window_ms });
        }
        if self.samples.len() == KEPT {
            self.samples.pop_front();
        }
        self.samples.push_back(Sample { timestamp, at_ms, usage });
        Ok(Recorded { new: true, window_ms })
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
        match self {
            Figure::Cpu => {
                let cpu = sample.usage.cpu;
                cpu.div_euclid(1_000_000) + i128::from(cpu.rem_euclid(1_000_000) != 0)
            }
            Figure::Memory => sample.usage.memory.div_euclid(1024 * 1024),
        }
    }

    /// A value as shown (`38m`, `100Mi`), as `kubectl top` writes it.
    pub fn label(self, value: i128) -> String {
        match self {
            Figure::Cpu => format!("{value}m"),
            Figure::Memory => format!("{value}Mi"),
        }
    }
}

/// A mark on an axis: where, and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub at: f64,
    pub label: String,
}

/// A chart's geometry in a `width` × `height` box, the plot inside [`MARGIN`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub width: f64,
    pub height: f64,
    /// The plot's box: left, top, right, bottom.
    pub plot: (f64, f64, f64, f64),
    /// The line's SVG path (`M x y L x y …`), empty with no sample.
    pub path: String,
    /// Each sample's point (a lone sample is drawn as a point).
    pub points: Vec<(f64, f64)>,
    pub y_ticks: Vec<Tick>,
    pub x_ticks: Vec<Tick>,
}

/// Left, top, right and bottom margins around the plot (room for the axes' labels).
pub const MARGIN: (f64, f64, f64, f64) = (56.0, 8.0, 8.0, 24.0);

/// The smallest of 1, 2, 5 × 10^k at least `value` (at least 1).
fn nice_ceiling(value: f64) -> f64 {
    let value = value.max(1.0);
    let power = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|v| *v >= value).unwrap_or(10.0 * power)
}

/// The time of day a sample's timestamp names (`16:18:30` of `2026-11-28T16:18:30Z`), in UTC
/// as the server wrote it.
pub fn time_of_day(sample: &Sample) -> &str {
    sample.timestamp.get(11..19).unwrap_or(&sample.timestamp)
}

/// The line chart of `figure` over `samples` in a `width` × `height` box: the y axis from 0 to
/// a round top with four steps, the x axis from the first sample's time to the last's.
pub fn chart<'a>(samples: impl Iterator<Item = &'a Sample>, figure: Figure, width: f64, height: f64) -> Chart {
    let samples: Vec<&Sample> = samples.collect();
    let (left, top, right, bottom) = (MARGIN.0, MARGIN.1, width - MARGIN.2, height - MARGIN.3);
    let highest = samples.iter().map(|s| figure.value(s)).max().unwrap_or(0);
    let step = nice_ceiling(highest as f64 / 4.0);
    let ceiling = step * 4.0;
    let y = |value: f64| bottom - (bottom - top) * value / ceiling;
    let (first, last) = match (samples.first(), samples.last()) {
        (Some(first), Some(last)) => (first.at_ms, last.at_ms),
        _ => (0, 0),
    };
    let span = (last - first).max(1) as f64;
    let x = |at_ms: i64| {
        if last == first {
            (left + right) / 2.0
        } else {
            left + (right - left) * (at_ms - first) as f64 / span
        }
    };
    let points: Vec<(f64, f64)> = samples.iter().map(|s| (x(s.at_ms), y(figure.value(s) as f64))).collect();
    let path = points
        .iter()
        .enumerate()
        .map(|(i, (px, py))| format!("{}{px:.1} {py:.1}", if i == 0 { "M" } else { " L" }))
        .collect();
    let y_ticks =
        (0..=4).map(|i| Tick { at: y(step * i as f64), label: figure.label((step * i as f64) as i128) }).collect();
    let x_ticks = match (samples.first(), samples.last()) {
        (Some(a), Some(b)) if a.at_ms != b.at_ms => vec![
            Tick { at: x(a.at_ms), label: time_of_day(a).to_owned() },
            Tick { at: x(b.at_ms), label: time_of_day(b).to_owned() },
        ],
        (Some(a), _) => vec![Tick { at: x(a.at_ms), label: time_of_day(a).to_owned() }],
        _ => Vec::new(),
    };
    Chart { width, height, plot: (left, top, right, bottom), path, points, y_ticks, x_ticks }
}

#[cfg(test)]
#[path = "metrics_chart_tests.rs"]
mod tests;
