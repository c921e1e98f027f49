//! One line chart, 240 samples of CPU in millicores over an hour, drawn to an SVG document:
//! with the `plotters` feature by plotters, with `hand` by the app's geometry
//! (`model/src/line_chart.rs`) written out as the elements `ui::metrics_chart` renders; with
//! neither, nothing (the baseline). `render` is what the wasm exports; `main.rs`-less native
//! timing is `tests/time.rs`.

use wasm_bindgen::prelude::wasm_bindgen;

#[cfg(feature = "hand")]
#[path = "../../../model/src/line_chart.rs"]
#[allow(dead_code)]
mod line_chart;

/// The samples: (milliseconds since the first, millicores), a deterministic wave from `seed`.
pub fn samples(seed: u32) -> Vec<(i64, i128)> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    (0..240)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (i as i64 * 15_000, 20 + i128::from(state % 40) + i128::from(i as u32 % 60))
        })
        .collect()
}

/// The clock time `at_ms` after 16:00:00, as the axis labels it.
pub fn time(at_ms: i64) -> String {
    let seconds = 16 * 3600 + at_ms / 1000;
    format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// The chart of `samples(seed)` as an SVG document, 456 × 132.
#[wasm_bindgen]
pub fn render(seed: u32) -> String {
    draw(&samples(seed))
}

#[cfg(feature = "hand")]
fn draw(samples: &[(i64, i128)]) -> String {
    use std::fmt::Write;
    // Only the axis's two labels are read: the app slices them out of the samples' timestamps,
    // with no formatting, so formatting all 240 here would charge the geometry for nothing.
    let last = samples.len().saturating_sub(1);
    let times: Vec<String> = samples
        .iter()
        .enumerate()
        .map(|(i, (at, _))| if i == 0 || i == last { time(*at) } else { String::new() })
        .collect();
    let points: Vec<line_chart::Point> = samples
        .iter()
        .zip(&times)
        .map(|(&(at_ms, value), time)| line_chart::Point { at_ms, value, time })
        .collect();
    let chart = line_chart::line_chart(&points, |v| format!("{v}m"), 456.0, 132.0);
    let (left, top, right, bottom) = chart.plot;
    let mut svg = String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 456 132">"#);
    for tick in &chart.y_ticks {
        let _ = write!(
            svg,
            r#"<line class="metrics-chart__grid" x1="{left}" x2="{right}" y1="{at}" y2="{at}"/><text class="metrics-chart__label" x="{x}" y="{y}" text-anchor="end">{label}</text>"#,
            at = tick.at,
            x = left - 6.0,
            y = tick.at + 4.0,
            label = tick.label
        );
    }
    let _ = write!(svg, r#"<line class="metrics-chart__axis" x1="{left}" x2="{left}" y1="{top}" y2="{bottom}"/>"#);
    let _ = write!(svg, r#"<line class="metrics-chart__axis" x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}"/>"#);
    for (i, tick) in chart.x_ticks.iter().enumerate() {
        let anchor = if i == 0 { "start" } else { "end" };
        let _ = write!(
            svg,
            r#"<text class="metrics-chart__label" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#,
            tick.at,
            bottom + 16.0,
            tick.label
        );
    }
    let _ = write!(svg, r#"<path class="metrics-chart__line" d="{}"/></svg>"#, chart.path);
    svg
}

#[cfg(feature = "plotters")]
fn draw(samples: &[(i64, i128)]) -> String {
    use plotters::prelude::*;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (456, 132)).into_drawing_area();
        let last = samples.last().map_or(1, |s| s.0.max(1));
        let highest = samples.iter().map(|s| s.1).max().unwrap_or(0) as f64;
        let drawn = (|| -> Result<(), Box<dyn std::error::Error + '_>> {
            let mut chart = ChartBuilder::on(&root)
                .margin(8)
                .x_label_area_size(16)
                .y_label_area_size(48)
                .build_cartesian_2d(0i64..last, 0f64..highest.max(1.0))?;
            chart
                .configure_mesh()
                .x_labels(2)
                .y_labels(5)
                .disable_x_mesh()
                .x_label_formatter(&|at| time(*at))
                .y_label_formatter(&|v| format!("{v:.0}m"))
                .draw()?;
            chart.draw_series(LineSeries::new(samples.iter().map(|&(at, v)| (at, v as f64)), &BLUE))?;
            root.present()?;
            Ok(())
        })();
        if let Err(error) = drawn {
            return format!("error: {error}");
        }
    }
    svg
}

#[cfg(not(any(feature = "hand", feature = "plotters")))]
fn draw(samples: &[(i64, i128)]) -> String {
    samples.len().to_string()
}
