//! `scripts/test`'s layer running and counting (`scripts/layers.sh`), run with fake layers: one
//! that fails to build (no `test result:` line, status 101), one whose output lacks its count, one
//! that stops on a failing command with a server running, one with a failing test, and ones that
//! pass. Whatever a layer does, the later layers run, the last line is `N passed, N failed` over
//! all of them, and the status is non-zero when anything failed: the line CI judges a run by.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The shell options of scripts/lib.sh, the layer library, and the fake layers.
const PRELUDE: &str = r#"set -euo pipefail
source "$REPO/scripts/layers.sh"
layer_broken_build() {
  cargo_tests "broken build" "$WORK/broken.log" \
    sh -c 'echo "error[E0425]: cannot find value \`x\` in this scope"; echo "error: could not compile \`kube-sim\` (test \"write\")"; exit 101'
}
layer_broken_then_passing() {
  cargo_tests "broken build" "$WORK/broken-first.log" sh -c 'echo "error: could not compile"; exit 101'
  cargo_tests "passing" "$WORK/passing-after.log" echo 'test result: ok. 1 passed; 0 failed'
}
layer_no_count() {
  echo "kubectl get pods ... ok" > "$WORK/conformance.log"
  count_line "kubectl conformance" "$WORK/conformance.log"
}
layer_no_log() {
  count_line "kubectl conformance" "$WORK/never-written.log"
}
layer_stops() {
  start_server "$WORK/server.log" bash -c \
    'trap "kill \$!; echo stopped > \"$WORK/server-stopped\"; exit 0" TERM; touch "$WORK/server-ready"; sleep 60 & wait'
  echo "$server_pid" > "$WORK/server.pid"
  for _ in $(seq 200); do [ -e "$WORK/server-ready" ] && break; sleep 0.05; done
  false
  add 5 0
}
layer_failing_test() {
  cargo_tests "failing test" "$WORK/failing.log" \
    sh -c 'echo "test result: FAILED. 2 passed; 1 failed; 0 ignored"; exit 101'
}
layer_passing() {
  cargo_tests "passing" "$WORK/passing.log" \
    printf 'test result: ok. 3 passed; 0 failed; 0 ignored\nrunning 2 tests\ntest result: ok. 2 passed; 0 failed\n'
  touch "$WORK/passing-ran"
}
layer_counts_line() {
  printf 'ok   get\n4 passed, 0 failed\n' > "$WORK/count.log"
  count_line "kubectl conformance" "$WORK/count.log"
}
layer_silent() {
  echo "ran, counted nothing"
}
"#;

struct Run {
    status: Option<i32>,
    stdout: String,
    work: PathBuf,
}

impl Run {
    fn last_line(&self) -> &str {
        self.stdout.lines().last().unwrap_or_default()
    }

    fn says(&self, text: &str) {
        assert!(self.stdout.contains(text), "expected {text:?} in:\n{}", self.stdout);
    }

    /// The layer's line of the summary says `counts` ("2 passed, 1 failed").
    fn counted(&self, layer: &str, counts: &str) {
        let want = format!("{layer} {counts}");
        let found = self.stdout.lines().any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == want);
        assert!(found, "expected the line {want:?} in:\n{}", self.stdout);
    }
}

/// Runs `run_layers LAYERS` over the fake layers in a fresh folder.
fn run_layers(name: &str, layers: &str) -> Run {
    let work = std::env::temp_dir().join(format!("kae-test-script-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a temporary folder");
    let script = format!("{PRELUDE}\nrun_layers {layers}\n");
    let output = Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("REPO", env!("CARGO_MANIFEST_DIR"))
        .env("WORK", &work)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    Run { status: output.status.code(), stdout, work }
}

fn wait_for(path: &Path) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_broken_build_a_missing_count_and_a_stop_each_count_one_failure_and_the_later_layers_run() {
    let run =
        run_layers("broken", "broken_build broken_then_passing no_count no_log stops failing_test passing counts_line");
    assert_eq!(run.last_line(), "12 passed, 6 failed", "{}", run.stdout);
    assert_eq!(run.status, Some(1), "{}", run.stdout);
    run.says("FAILED: broken build did not complete (status 101)");
    run.says("FAILED: kubectl conformance printed no count");
    run.says("FAILED: the stops layer stopped (status 1)");
    run.counted("broken_build", "0 passed, 1 failed");
    // A layer whose build failed and whose later step passed still counts the build as failed.
    run.counted("broken_then_passing", "1 passed, 1 failed");
    run.counted("no_count", "0 passed, 1 failed");
    run.counted("no_log", "0 passed, 1 failed");
    run.counted("stops", "0 passed, 1 failed");
    // A failed test is its own failure: no extra one for the non-zero status.
    run.counted("failing_test", "2 passed, 1 failed");
    run.counted("passing", "5 passed, 0 failed");
    run.counted("counts_line", "4 passed, 0 failed");
    assert!(run.work.join("passing-ran").exists(), "the layer after the broken ones ran:\n{}", run.stdout);
    // The server the stopped layer started was killed when the layer ended.
    assert!(run.work.join("server.pid").exists(), "{}", run.stdout);
    assert!(wait_for(&run.work.join("server-stopped")), "the layer's server is still running:\n{}", run.stdout);
}

#[test]
fn only_passing_layers_end_with_no_failure_and_status_zero() {
    let run = run_layers("passing", "passing counts_line");
    assert_eq!(run.last_line(), "9 passed, 0 failed", "{}", run.stdout);
    assert_eq!(run.status, Some(0), "{}", run.stdout);
}

#[test]
fn a_layer_that_counts_nothing_or_does_not_exist_fails() {
    let run = run_layers("silent", "silent passing nonexistent");
    assert_eq!(run.last_line(), "5 passed, 2 failed", "{}", run.stdout);
    assert_eq!(run.status, Some(1), "{}", run.stdout);
    run.says("FAILED: the silent layer counted no test");
    run.says("FAILED: there is no layer named nonexistent");
}

/// scripts/test runs its layers through run_layers, and every layer it runs by default exists.
#[test]
fn scripts_test_runs_its_default_layers_through_run_layers() {
    let script =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test")).expect("scripts/test");
    assert!(script.contains("source \"$(dirname \"$0\")/layers.sh\""), "scripts/test sources layers.sh");
    assert_eq!(script.trim_end().lines().last(), Some("run_layers \"$@\""), "scripts/test ends by running its layers");
    let defaults = script
        .lines()
        .find_map(|l| l.strip_prefix("if [ \"$#\" -eq 0 ]; then set -- "))
        .and_then(|l| l.strip_suffix("; fi"))
        .expect("the default layers");
    let names: Vec<&str> = defaults.split_whitespace().collect();
    assert_eq!(names, ["setup", "checks", "native", "browser", "kubectl", "clients", "e2e"]);
    for name in names {
        assert!(script.contains(&format!("\nlayer_{name}() {{\n")), "scripts/test defines layer_{name}");
    }
}
