//! The container's own process: its `command` (and `args`) run by the simulated shell from the
//! moment the container started, on a clock of its own. What it writes on stdout and stderr is
//! the container's log, each line stamped with the time it was written, and the files it writes
//! are there for `kubectl exec` and `kubectl cp`, as a real container's are. It is computed again
//! from the start whenever it is read (the kubelet's log file is the same whoever reads it, and
//! when), so it is pure: a sleep moves its clock, it never waits.
//!
//! A container without a `command`, or whose command is not a program kube-sim simulates (an
//! image's own server), has no such process: its log is the fake kubelet's
//! ([`crate::http::logs`]).

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use super::commands;
use super::container::Container;
use super::shell::{Effect, Process};

/// Sleeps a process may wake from before it is left where it is: a log is read in one go, and a
/// container that has run for days of one-second sleeps would otherwise be run through all of
/// them on every read. A busy loop (no sleep) is left at its first pause, after the shell's
/// 10,000 steps.
pub const TURNS: usize = 20_000;

/// A line of the log: when its last byte was written, and its text with its `\n` (the last line
/// of a process that exited may have none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub at: DateTime<Utc>,
    pub text: String,
}

pub struct Main {
    process: Process,
    clock: Arc<Mutex<DateTime<Utc>>>,
    /// When the process next wakes (`None`: it exited, or it waits for stdin, which nothing
    /// sends it).
    wake: Option<DateTime<Utc>>,
    /// What was written since the last `\n`.
    partial: Vec<u8>,
    turns: usize,
    /// The exit code, once it has exited.
    pub exit: Option<i32>,
}

impl Main {
    /// Starts the process of `container` at `started`, when it has one: the lines it writes at
    /// once come with it.
    pub fn start(container: Container, started: DateTime<Utc>) -> Option<(Main, Vec<Line>)> {
        let argv = container.command.clone()?;
        if !commands::is_program(&argv[0]) {
            return None;
        }
        let clock = Arc::new(Mutex::new(started));
        let read = Arc::clone(&clock);
        let now = Box::new(move || *read.lock().unwrap_or_else(|e| e.into_inner()));
        let (process, effects) = Process::start(container, &argv, false, now);
        let mut main = Main { process, clock, wake: None, partial: Vec::new(), turns: 0, exit: None };
        let mut lines = Vec::new();
        main.apply(effects, &mut lines);
        Some((main, lines))
    }

    /// The time on the process's clock.
    pub fn now(&self) -> DateTime<Utc> {
        *self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// When it next writes, sleeps or exits: `None` once it has exited, waits for nothing, or has
    /// taken its [`TURNS`].
    pub fn next(&self) -> Option<DateTime<Utc>> {
        self.wake.filter(|_| self.turns < TURNS)
    }

    /// Runs it up to `until`: the lines written meanwhile (at most `keep`, the last ones).
    pub fn advance(&mut self, until: DateTime<Utc>, keep: usize) -> Vec<Line> {
        let mut lines = Vec::new();
        while let Some(at) = self.next().filter(|at| *at <= until) {
            *self.clock.lock().unwrap_or_else(|e| e.into_inner()) = at;
            self.wake = None;
            self.turns += 1;
            let effects = self.process.wake();
            self.apply(effects, &mut lines);
            if lines.len() > keep.saturating_mul(2) {
                lines.drain(..lines.len() - keep);
            }
        }
        lines.drain(..lines.len().saturating_sub(keep));
        lines
    }

    /// The files of the container as the process has left them.
    pub fn container(&self) -> &Container {
        self.process.container()
    }

    fn apply(&mut self, effects: Vec<Effect>, lines: &mut Vec<Line>) {
        let at = self.now();
        for effect in effects {
            match effect {
                Effect::Stdout(bytes) | Effect::Stderr(bytes) => {
                    for &b in &bytes {
                        self.partial.push(b);
                        if b == b'\n' {
                            let text = String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned();
                            lines.push(Line { at, text });
                        }
                    }
                }
                // A sleep of nothing is a busy loop's pause: it is left there (its next turn would
                // write as much again at the same instant).
                Effect::Sleep(d) if d.is_zero() => self.wake = None,
                Effect::Sleep(d) => self.wake = Some(at + chrono::Duration::from_std(d).unwrap_or_default()),
                Effect::Exit(code) => {
                    self.exit = Some(code);
                    if !self.partial.is_empty() {
                        let text = String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned();
                        lines.push(Line { at, text });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn running(command: &[&str]) -> Container {
        Container { command: Some(command.iter().map(|s| s.to_string()).collect()), ..Container::default() }
    }

    fn texts(lines: &[Line]) -> Vec<(String, String)> {
        lines.iter().map(|l| (l.at.format("%H:%M:%S").to_string(), l.text.clone())).collect()
    }

    #[test]
    fn a_loop_writes_its_lines_at_the_times_its_sleeps_say() {
        // lightkube's e2e test_pod_apis runs this in busybox and reads the first line of the log.
        let c = running(&["sh", "-c", "while true;do echo 'this is a test';sleep 5; done"]);
        let (mut main, first) = Main::start(c, at("2026-11-28T10:00:00Z")).unwrap();
        assert_eq!(texts(&first), [("10:00:00".into(), "this is a test\n".into())]);
        assert_eq!(main.next(), Some(at("2026-11-28T10:00:05Z")));
        let later = main.advance(at("2026-11-28T10:00:12Z"), usize::MAX);
        assert_eq!(
            texts(&later),
            [("10:00:05".into(), "this is a test\n".into()), ("10:00:10".into(), "this is a test\n".into())]
        );
        assert_eq!(main.now(), at("2026-11-28T10:00:10Z"), "it never runs past the time asked for");
        assert_eq!(main.advance(at("2026-11-28T10:01:00Z"), 3).len(), 3, "the last lines are kept");
    }

    #[test]
    fn the_files_it_writes_stay_and_an_exit_ends_the_log() {
        // client-node's cpFromPod test copies the file this writes.
        let c = running(&["sh", "-c", "echo \"test content\" > /tmp/test.txt && sleep 3600"]);
        let (main, lines) = Main::start(c, at("2026-11-28T10:00:00Z")).unwrap();
        assert!(lines.is_empty());
        assert_eq!(main.container().files.get("/tmp/test.txt").map(Vec::as_slice), Some(&b"test content\n"[..]));
        let (mut main, lines) =
            Main::start(running(&["sh", "-c", "printf 'a\\nb'; exit 3"]), at("2026-11-28T10:00:00Z")).unwrap();
        assert_eq!(texts(&lines), [("10:00:00".into(), "a\n".into()), ("10:00:00".into(), "b".into())]);
        assert_eq!((main.exit, main.next()), (Some(3), None));
        assert!(main.advance(at("2026-11-29T10:00:00Z"), 10).is_empty());
    }

    #[test]
    fn a_command_kube_sim_does_not_know_has_no_process() {
        assert!(Main::start(running(&["/app/server", "--port=80"]), Utc::now()).is_none());
        assert!(Main::start(Container::default(), Utc::now()).is_none(), "no command: the image's entrypoint");
    }

    #[test]
    fn a_busy_loop_is_left_at_its_first_pause() {
        let (mut main, first) = Main::start(running(&["sh", "-c", "while true; do echo x; done"]), Utc::now()).unwrap();
        assert!(first.len() > 1000 && first.iter().all(|l| l.text == "x\n"), "{}", first.len());
        assert!(main.advance(Utc::now() + chrono::Duration::days(1), 5).is_empty());
        assert_eq!(main.next(), None, "it is left where it paused");
        let (mut main, _) =
            Main::start(running(&["sh", "-c", "while true; do echo x; sleep 1; done"]), at("2026-11-28T10:00:00Z"))
                .unwrap();
        main.advance(at("2026-12-28T10:00:00Z"), 5);
        assert_eq!(main.now(), at("2026-11-28T10:00:00Z") + chrono::Duration::seconds(TURNS as i64));
        assert_eq!(main.next(), None, "it is left after {TURNS} sleeps");
    }
}
