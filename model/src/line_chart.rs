//! A line chart's geometry: values over time in a box, under a zero-based y axis of four round
//! steps (1, 2 or 5 × 10^k), from the first point's time to the last's. The view draws it as
//! SVG elements (`ui::metrics_chart`); this module depends on nothing but `std`, so that
//! `scripts/bench chart-library` can build it alone beside a chart library and compare them.
//!
//! Why geometry by hand rather than a chart library: the one chart needed is a line over time.
//! plotters (the well-kept Rust chart crate) draws through a backend into an SVG string or a
//! canvas: its SVG string would have to be set as `innerHTML` (the one place the app would write
//! markup as text), and what it draws can be checked natively only as that string. Here the
//! geometry is a pure function checked number by number (`metrics_chart_tests.rs`), and the view
//! renders it as Leptos elements with classes (no inline style: the Content-Security-Policy has
//! no `'unsafe-inline'` for styles). What each costs in the bundle and per chart is printed by
//! `scripts/bench chart-library` (docs/benchmarks.md).
//!
//! Invariants: the y axis starts at 0 and its top is four steps above or at the highest value;
//! every point lies inside the plot; one point is drawn in the middle.

use std::fmt::Write;

/// One value at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point<'a> {
    /// Milliseconds since the epoch.
    pub at_ms: i64,
    pub value: i128,
    /// The time as the x axis labels it.
    pub time: &'a str,
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
    /// Each value's place (a lone value is drawn as a point).
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

/// The line chart of `points` (in time order) in a `width` × `height` box, the values labelled
/// by `label`: the y axis from 0 to a round top with four steps, the x axis from the first
/// point's time to the last's.
pub fn line_chart(points: &[Point], label: impl Fn(i128) -> String, width: f64, height: f64) -> Chart {
    let (left, top, right, bottom) = (MARGIN.0, MARGIN.1, width - MARGIN.2, height - MARGIN.3);
    let highest = points.iter().map(|p| p.value).max().unwrap_or(0);
    let step = nice_ceiling(highest as f64 / 4.0);
    let ceiling = step * 4.0;
    let y = |value: f64| bottom - (bottom - top) * value / ceiling;
    let (first, last) = match (points.first(), points.last()) {
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
    let placed: Vec<(f64, f64)> = points.iter().map(|p| (x(p.at_ms), y(p.value as f64))).collect();
    let mut path = String::with_capacity(placed.len() * 14);
    for (i, (px, py)) in placed.iter().enumerate() {
        let _ = write!(path, "{}{px:.1} {py:.1}", if i == 0 { "M" } else { " L" });
    }
    let y_ticks = (0..=4).map(|i| Tick { at: y(step * i as f64), label: label((step * i as f64) as i128) }).collect();
    let x_ticks = match (points.first(), points.last()) {
        (Some(a), Some(b)) if a.at_ms != b.at_ms => {
            vec![Tick { at: x(a.at_ms), label: a.time.to_owned() }, Tick { at: x(b.at_ms), label: b.time.to_owned() }]
        }
        (Some(a), _) => vec![Tick { at: x(a.at_ms), label: a.time.to_owned() }],
        _ => Vec::new(),
    };
    Chart { width, height, plot: (left, top, right, bottom), path, points: placed, y_ticks, x_ticks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_are_one_two_or_five_times_a_power_of_ten() {
        let steps: Vec<f64> = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 5.0, 7.0, 10.0, 11.0, 99.0, 101.0, 2001.0]
            .iter()
            .map(|v| nice_ceiling(*v))
            .collect();
        assert_eq!(steps, [1.0, 1.0, 1.0, 2.0, 2.0, 5.0, 5.0, 10.0, 10.0, 20.0, 100.0, 200.0, 5000.0]);
    }

    #[test]
    fn every_point_lies_in_the_plot_under_the_top() {
        let times = ["a", "b", "c", "d"];
        let points: Vec<Point> = [(0, 7), (1_000, 0), (2_500, 1_000_001), (4_000, 999)]
            .iter()
            .zip(times)
            .map(|(&(at_ms, value), time)| Point { at_ms, value, time })
            .collect();
        let chart = line_chart(&points, |v| v.to_string(), 300.0, 100.0);
        let (left, top, right, bottom) = chart.plot;
        assert!(chart.points.iter().all(|&(x, y)| (left..=right).contains(&x) && (top..=bottom).contains(&y)));
        assert_eq!(chart.points[0].0, left);
        assert_eq!(chart.points[3].0, right);
        assert_eq!(chart.points[1].1, bottom, "0 is on the x axis");
        // 1,000,001 / 4 rounds up to a step of 500,000: a top of 2,000,000.
        assert_eq!(chart.y_ticks.last().map(|t| t.label.as_str()), Some("2000000"));
        assert_eq!(chart.x_ticks.iter().map(|t| t.label.as_str()).collect::<Vec<_>>(), ["a", "d"]);
    }
}
