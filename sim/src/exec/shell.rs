//! The simulated process of `pods/exec`, a state machine without I/O: the command given (a shell
//! with or without `-c`, or one of the [`commands`](super::commands)) runs against its
//! [`Container`]; what arrives on stdin, a resize, the close of stdin and the end of a sleep are
//! fed in, and each call returns the [`Effect`]s to carry out (output on stdout or stderr, a
//! sleep to wait out, the exit code).
//!
//! With `tty` the terminal's line discipline is simulated too: typed characters are echoed,
//! Enter (`\r`) ends a line, backspace erases, Ctrl-C interrupts (`^C`, status 130), Ctrl-D on an
//! empty line ends the input, output newlines become `\r\n`, and an interactive shell prints the
//! prompt `CWD # `. Without it, lines end at `\n` and nothing is echoed.

use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::commands::{self, Env, Run};
use super::container::Container;
use super::words::{self, Join, Part, Word};

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// Call [`Process::wake`] after this long (unless input interrupts it first).
    Sleep(Duration),
    Exit(i32),
}

/// One level of shell: the commands left to run, and whether it reads stdin when they are done.
#[derive(Debug)]
struct Frame {
    queue: VecDeque<words::Command>,
    interactive: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Busy {
    No,
    Sleeping,
    /// `cat` copying stdin.
    Copying,
}

pub struct Process {
    container: Container,
    tty: bool,
    frames: Vec<Frame>,
    status: i32,
    cwd: String,
    size: Option<(u16, u16)>,
    busy: Busy,
    /// The line being typed, and the lines typed but not yet read.
    line: Vec<u8>,
    lines: VecDeque<String>,
    stdin_open: bool,
    prompted: bool,
    exited: bool,
    clock: Box<dyn Fn() -> DateTime<Utc> + Send>,
    effects: Vec<Effect>,
}

impl Process {
    /// Starts `argv` (non-empty, its first word a [known](commands::KNOWN) command).
    pub fn start(
        container: Container,
        argv: &[String],
        tty: bool,
        clock: Box<dyn Fn() -> DateTime<Utc> + Send>,
    ) -> (Process, Vec<Effect>) {
        let mut p = Process {
            container,
            tty,
            frames: Vec::new(),
            status: 0,
            cwd: "/".into(),
            size: None,
            busy: Busy::No,
            line: Vec::new(),
            lines: VecDeque::new(),
            stdin_open: true,
            prompted: false,
            exited: false,
            clock,
            effects: Vec::new(),
        };
        let words: Vec<Word> = argv.iter().map(|a| vec![Part::Text(a.clone())]).collect();
        let command = words::Command { join: Join::Always, words };
        p.frames.push(Frame { queue: VecDeque::from([command]), interactive: false });
        p.run();
        let effects = p.take();
        (p, effects)
    }

    /// The effects so far, consecutive output on one stream joined into one write.
    fn take(&mut self) -> Vec<Effect> {
        let mut out: Vec<Effect> = Vec::new();
        for effect in std::mem::take(&mut self.effects) {
            match (out.last_mut(), effect) {
                (Some(Effect::Stdout(a)), Effect::Stdout(b)) | (Some(Effect::Stderr(a)), Effect::Stderr(b)) => {
                    a.extend(b)
                }
                (_, effect) => out.push(effect),
            }
        }
        out
    }

    /// Whether it waits for a [`wake`](Process::wake).
    pub fn sleeping(&self) -> bool {
        self.busy == Busy::Sleeping
    }

    /// Bytes from stdin.
    pub fn input(&mut self, bytes: &[u8]) -> Vec<Effect> {
        for &b in bytes {
            if self.exited {
                break;
            }
            if self.tty {
                self.tty_byte(b);
            } else if self.busy == Busy::Copying {
                self.effects.push(Effect::Stdout(vec![b]));
            } else if b == b'\n' {
                let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
                self.lines.push_back(line);
            } else {
                self.line.push(b);
            }
        }
        self.run();
        self.take()
    }

    /// The terminal's line discipline for one typed byte.
    fn tty_byte(&mut self, b: u8) {
        match b {
            b'\r' | b'\n' => {
                self.write_out(b"\n");
                let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
                if self.busy == Busy::Copying {
                    self.write_out(format!("{line}\n").as_bytes());
                } else {
                    self.lines.push_back(line);
                }
            }
            0x7f | 0x08 if !self.line.is_empty() => {
                self.line.pop();
                self.effects.push(Effect::Stdout(b"\x08 \x08".to_vec()));
            }
            0x03 => {
                self.write_out(b"^C\n");
                self.line.clear();
                self.lines.clear();
                self.interrupt();
            }
            0x04 if self.line.is_empty() => {
                if self.busy == Busy::Copying {
                    self.busy = Busy::No;
                    self.status = 0;
                } else if self.busy == Busy::No {
                    self.lines.push_back("exit".into());
                }
            }
            0x04 => {}
            0x20..=0x7e | 0x80..=0xff | b'\t' => {
                self.line.push(b);
                self.effects.push(Effect::Stdout(vec![b]));
            }
            // Escape sequences (arrows) and other controls: not simulated, not echoed.
            _ => {}
        }
    }

    /// Ctrl-C: what runs stops with 130, an interactive shell goes back to its prompt.
    fn interrupt(&mut self) {
        self.busy = Busy::No;
        self.status = 130;
        while self.frames.last().is_some_and(|f| !f.interactive) && self.frames.len() > 1 {
            self.frames.pop();
        }
        match self.frames.last_mut() {
            Some(f) if f.interactive => {
                f.queue.clear();
                self.prompted = false;
            }
            _ => self.exit(130),
        }
    }

    /// Stdin has closed (v5's close signal).
    pub fn close_stdin(&mut self) -> Vec<Effect> {
        self.stdin_open = false;
        if !self.line.is_empty() && !self.tty {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
            self.lines.push_back(line);
        }
        if self.busy == Busy::Copying {
            self.busy = Busy::No;
            self.status = 0;
        }
        self.run();
        self.take()
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.size = Some((width, height));
    }

    /// The sleep asked for has passed.
    pub fn wake(&mut self) -> Vec<Effect> {
        if self.busy == Busy::Sleeping {
            self.busy = Busy::No;
            self.status = 0;
        }
        self.run();
        self.take()
    }

    fn write_out(&mut self, bytes: &[u8]) {
        let bytes = if self.tty { crlf(bytes) } else { bytes.to_vec() };
        if !bytes.is_empty() {
            self.effects.push(Effect::Stdout(bytes));
        }
    }

    fn write_err(&mut self, bytes: &[u8]) {
        // A terminal has one output stream: stderr goes where stdout goes.
        if self.tty {
            self.write_out(bytes);
        } else if !bytes.is_empty() {
            self.effects.push(Effect::Stderr(bytes.to_vec()));
        }
    }

    fn exit(&mut self, code: i32) {
        if !self.exited {
            self.exited = true;
            self.effects.push(Effect::Exit(code));
        }
    }

    /// Runs commands until it has to wait (a sleep, stdin) or the process ends.
    fn run(&mut self) {
        while !self.exited && self.busy == Busy::No {
            let Some(frame) = self.frames.last_mut() else { return self.exit(self.status) };
            if let Some(command) = frame.queue.pop_front() {
                let runs = match command.join {
                    Join::Always => true,
                    Join::And => self.status == 0,
                    Join::Or => self.status != 0,
                };
                if runs {
                    self.execute(&command.words);
                }
                continue;
            }
            if !frame.interactive {
                self.leave_frame();
                continue;
            }
            if let Some(line) = self.lines.pop_front() {
                self.prompted = false;
                self.read_line(&line);
            } else if !self.stdin_open {
                self.leave_frame();
            } else {
                if self.tty && !self.prompted {
                    self.prompted = true;
                    let prompt = format!("{} # ", self.cwd);
                    self.effects.push(Effect::Stdout(prompt.into_bytes()));
                }
                return;
            }
        }
    }

    /// The top frame is done: its status is the last command's; the process ends with the last.
    fn leave_frame(&mut self) {
        self.frames.pop();
        if self.frames.is_empty() {
            self.exit(self.status);
        }
    }

    fn read_line(&mut self, line: &str) {
        match words::parse(line) {
            Ok(commands) => {
                if let Some(frame) = self.frames.last_mut() {
                    frame.queue.extend(commands);
                }
            }
            Err(e) => {
                self.write_err(format!("sh: {}\n", e.0).as_bytes());
                self.status = 2;
            }
        }
    }

    fn expand(&self, word: &Word) -> String {
        word.iter()
            .map(|p| match p {
                Part::Text(t) => t.clone(),
                Part::Var(v) if v == "?" => self.status.to_string(),
                Part::Var(v) if v == "PWD" => self.cwd.clone(),
                Part::Var(v) => self.container.var(v).unwrap_or_default().to_string(),
            })
            .collect()
    }

    fn execute(&mut self, words: &[Word]) {
        let argv: Vec<String> = words.iter().map(|w| self.expand(w)).collect();
        if argv.is_empty() {
            return;
        }
        let mut env = Env {
            container: &self.container,
            cwd: &mut self.cwd,
            status: self.status,
            size: self.size,
            tty: self.tty,
            now: (self.clock)(),
            stdout: Vec::new(),
            stderr: Vec::new(),
        };
        let run = commands::run(&mut env, &argv);
        let (stdout, stderr) = (env.stdout, env.stderr);
        self.write_out(&stdout);
        self.write_err(&stderr);
        match run {
            Run::Done(code) => self.status = code,
            Run::Sleep(d) => {
                self.busy = Busy::Sleeping;
                self.effects.push(Effect::Sleep(d));
            }
            Run::CopyStdin => {
                if self.stdin_open {
                    self.busy = Busy::Copying;
                } else {
                    self.status = 0;
                }
            }
            Run::Exit(code) => {
                self.status = code;
                // `exit` ends the shell it runs in: a nested one returns to its parent.
                self.frames.pop();
                if self.frames.is_empty() {
                    self.exit(code);
                }
            }
            Run::Shell(Some(script)) => match words::parse(&script) {
                Ok(commands) => self.frames.push(Frame { queue: commands.into(), interactive: false }),
                Err(e) => {
                    self.write_err(format!("sh: -c: {}\n", e.0).as_bytes());
                    self.status = 2;
                }
            },
            Run::Shell(None) => {
                self.prompted = false;
                self.frames.push(Frame { queue: VecDeque::new(), interactive: true });
            }
        }
    }
}

/// `\n` as a terminal writes it (`\r\n`), leaving an existing `\r\n` alone.
fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 8);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && (i == 0 || bytes[i - 1] != b'\r') {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> Box<dyn Fn() -> DateTime<Utc> + Send> {
        Box::new(|| chrono::DateTime::parse_from_rfc3339("2026-11-04T10:00:05Z").unwrap().with_timezone(&Utc))
    }

    fn container() -> Container {
        Container { hostname: "web-1".into(), env: vec![("MODE".into(), "demo".into())], ..Container::default() }
    }

    fn start(argv: &[&str], tty: bool) -> (Process, Vec<Effect>) {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        Process::start(container(), &argv, tty, clock())
    }

    /// The effects as a transcript: `out:…`, `err:…`, `sleep:MS`, `exit:N`.
    fn transcript(effects: &[Effect]) -> Vec<String> {
        effects
            .iter()
            .map(|e| match e {
                Effect::Stdout(b) => format!("out:{}", String::from_utf8_lossy(b)),
                Effect::Stderr(b) => format!("err:{}", String::from_utf8_lossy(b)),
                Effect::Sleep(d) => format!("sleep:{}", d.as_millis()),
                Effect::Exit(c) => format!("exit:{c}"),
            })
            .collect()
    }

    #[test]
    fn a_direct_command_runs_once_and_exits_with_its_code() {
        assert_eq!(transcript(&start(&["echo", "hi"], false).1), ["out:hi\n", "exit:0"]);
        assert_eq!(transcript(&start(&["sh", "-c", "echo $MODE; exit 3"], false).1), ["out:demo\n", "exit:3"]);
        assert_eq!(transcript(&start(&["sh", "-c", "false || echo $?"], false).1), ["out:1\n", "exit:0"]);
        assert_eq!(
            transcript(&start(&["sh", "-c", "nope; echo after"], false).1),
            ["err:sh: nope: command not found\n", "out:after\n", "exit:0"]
        );
        assert_eq!(
            transcript(&start(&["sh", "-c", "nope"], false).1),
            ["err:sh: nope: command not found\n", "exit:127"]
        );
        assert_eq!(transcript(&start(&["sh", "-c", "sh -c 'exit 4'; echo $?"], false).1), ["out:4\n", "exit:0"]);
    }

    #[test]
    fn a_sleep_waits_for_its_wake() {
        let (mut p, effects) = start(&["sh", "-c", "echo a; sleep 2; echo b"], false);
        assert_eq!(transcript(&effects), ["out:a\n", "sleep:2000"]);
        assert_eq!(transcript(&p.input(b"ignored")), Vec::<String>::new(), "no one reads stdin meanwhile");
        assert_eq!(transcript(&p.wake()), ["out:b\n", "exit:0"]);
        assert!(p.exited);
    }

    #[test]
    fn an_interactive_shell_on_a_terminal_echoes_prompts_and_exits() {
        let (mut p, effects) = start(&["sh"], true);
        assert_eq!(transcript(&effects), ["out:/ # "]);
        assert_eq!(transcript(&p.input(b"echo hx\x7fi\r")), ["out:echo hx\x08 \x08i\r\nhi\r\n/ # "]);
        p.resize(100, 30);
        assert_eq!(transcript(&p.input(b"stty size\r")), ["out:stty size\r\n30 100\r\n/ # "]);
        assert_eq!(transcript(&p.input(b"sleep 1\r")).last().map(String::as_str), Some("sleep:1000"));
        assert!(p.sleeping());
        assert_eq!(transcript(&p.input(b"\x03")), ["out:^C\r\n/ # "], "Ctrl-C ends the sleep");
        assert!(!p.sleeping());
        assert!(transcript(&p.input(b"echo $?\r")).concat().ends_with("130\r\n/ # "));
        assert_eq!(transcript(&p.input(b"exit 3\r")).last().map(String::as_str), Some("exit:3"));
    }

    #[test]
    fn without_a_terminal_lines_end_at_newline_and_stdin_closing_ends_the_shell() {
        let (mut p, effects) = start(&["sh"], false);
        assert!(effects.is_empty(), "no prompt without a terminal");
        assert_eq!(transcript(&p.input(b"echo one\necho t")), ["out:one\n"]);
        assert_eq!(transcript(&p.input(b"wo\nfalse\n")), ["out:two\n"]);
        assert_eq!(transcript(&p.close_stdin()), ["exit:1"], "the last status");
    }

    #[test]
    fn cat_copies_stdin_until_it_closes() {
        let (mut p, effects) = start(&["cat"], false);
        assert!(effects.is_empty());
        assert_eq!(transcript(&p.input(b"abc")), ["out:abc"]);
        assert_eq!(transcript(&p.close_stdin()), ["exit:0"]);
    }

    #[test]
    fn ctrl_d_on_an_empty_line_leaves_the_terminal_shell() {
        let (mut p, _) = start(&["bash"], true);
        p.input(b"false\r");
        assert_eq!(transcript(&p.input(b"\x04")), ["exit:1"]);
    }

    #[test]
    fn a_nested_shell_returns_to_its_parent() {
        let (mut p, _) = start(&["sh"], false);
        assert!(transcript(&p.input(b"sh\nexit 5\necho $?\n")).contains(&"out:5\n".to_string()));
        assert!(!p.exited);
        assert_eq!(transcript(&p.input(b"exit\n")), ["exit:0"]);
    }

    #[test]
    fn parse_errors_are_reported_not_run() {
        let (mut p, _) = start(&["sh"], false);
        assert_eq!(
            transcript(&p.input(b"ls | wc\n")),
            ["err:sh: `|' is not simulated (kube-sim's shell runs simple commands joined by ; && ||)\n"]
        );
        assert_eq!(transcript(&p.close_stdin()), ["exit:2"]);
    }
}
