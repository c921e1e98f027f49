//! Native time per chart (printed, not asserted: a benchmark): `cargo test --release --features
//! hand|plotters --test time -- --nocapture`.

#[test]
fn time_per_chart() {
    let rounds = 2000u32;
    let start = std::time::Instant::now();
    let mut bytes = 0;
    for seed in 1..=rounds {
        bytes += chart_library_bench::render(seed).len();
    }
    let per = start.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    let sample = chart_library_bench::render(1);
    assert!(sample.starts_with("<svg") && sample.contains("16:00:00"), "not a chart: {sample:.200}");
    println!("BENCH-CHART {per:.1} µs per chart, {} bytes of SVG", bytes / rounds as usize);
}
