//! The simulated process of `pods/exec`, a state machine without I/O: the command given (a shell
//! with or without `-c`, or one of the [`commands`](super::commands)) runs against its
//! [`Container`]; what arrives on stdin, a resize, the close of stdin and the end of a sleep are
//! fed in, and each call returns the [`Effect`]s to carry out (output on stdout or stderr, a
//! sleep to wait out, the exit code).
//!
//! The shell runs what [`words`] parses with bash's semantics: pipelines, `for` loops, command
//! substitution and redirections, each level a [`Frame`] with its own file descriptors. A
//! pipeline's stages run one after the other, each reading what the one before wrote (the output
//! is bash's; only the stages' timing differs: `sleep 1 | echo a` prints after the sleep).
//!
//! With `tty` the terminal's line discipline is simulated too: typed characters are echoed,
//! Enter (`\r`) ends a line, backspace erases, Ctrl-C interrupts (`^C`, status 130), Ctrl-D on an
//! empty line ends the input, output newlines become `\r\n`, and an interactive shell prints the
//! prompt `CWD # `. Without it, lines end at `\n` and nothing is echoed.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::commands::{self, Env, Filter, Run};
use super::container::Container;
use super::expand::{self, Piece};
use super::frames::{Frame, Kind, OnEnd, Pending, Sink};
use super::words::{self, Command, Item, Join, Part, Pipeline, Redirect, Word};

/// Steps (commands, loop turns) a process takes before it pauses for a [`Effect::Sleep`] of zero.
const STEPS: u32 = 10_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// Call [`Process::wake`] after this long (unless input interrupts it first).
    Sleep(Duration),
    Exit(i32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Busy {
    No,
    Sleeping,
    /// Paused after [`STEPS`] steps without waiting, so that a busy loop cannot hold the thread
    /// that drives it: it goes on at the next [`Process::wake`].
    Paused,
    /// A command reading the process's stdin until it closes (`cat`, `gzip`).
    Reading(Filter),
}

pub struct Process {
    container: Container,
    tty: bool,
    frames: Vec<Frame>,
    status: i32,
    cwd: String,
    /// Shell variables (`for`'s); the container's environment below them.
    vars: BTreeMap<String, String>,
    size: Option<(u16, u16)>,
    busy: Busy,
    /// What a reading command has collected.
    reading: Vec<u8>,
    /// The line being typed, and the lines typed but not yet read.
    line: Vec<u8>,
    lines: VecDeque<String>,
    stdin_open: bool,
    prompted: bool,
    exited: bool,
    /// Steps since the process last waited.
    steps: u32,
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
            vars: BTreeMap::new(),
            size: None,
            busy: Busy::No,
            reading: Vec::new(),
            line: Vec::new(),
            lines: VecDeque::new(),
            stdin_open: true,
            prompted: false,
            exited: false,
            steps: 0,
            clock,
            effects: Vec::new(),
        };
        p.frames.push(Frame { boundary: true, ..Frame::script(vec![words::simple(argv)]) });
        p.run();
        let effects = p.take();
        (p, effects)
    }

    /// The effects so far, consecutive output on one stream joined into one write.
    fn take(&mut self) -> Vec<Effect> {
        self.steps = 0;
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

    /// The container as the process has left it (the files it wrote).
    pub fn container(&self) -> &Container {
        &self.container
    }

    /// Whether it waits for a [`wake`](Process::wake).
    pub fn sleeping(&self) -> bool {
        matches!(self.busy, Busy::Sleeping | Busy::Paused)
    }

    /// Bytes from stdin.
    pub fn input(&mut self, bytes: &[u8]) -> Vec<Effect> {
        for (i, &b) in bytes.iter().enumerate() {
            if self.exited {
                break;
            }
            if self.tty {
                self.tty_byte(b);
            } else if matches!(self.busy, Busy::Reading(_)) {
                self.feed(&bytes[i..]);
                break;
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
                if matches!(self.busy, Busy::Reading(_)) {
                    self.feed(format!("{line}\n").as_bytes());
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
                if matches!(self.busy, Busy::Reading(_)) {
                    self.finish_reading();
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
        self.reading.clear();
        self.status = 130;
        while self.frames.last().is_some_and(|f| !f.is_interactive()) && self.frames.len() > 1 {
            self.frames.pop();
        }
        match self.frames.last_mut() {
            Some(f) if f.is_interactive() => {
                if let Kind::Script { queue, .. } = &mut f.kind {
                    queue.clear();
                }
                f.pending = None;
                self.prompted = false;
            }
            _ => self.exit(130),
        }
    }

    /// Stdin has closed (v5's close signal).
    pub fn close_stdin(&mut self) -> Vec<Effect> {
        self.stdin_open = false;
        if !self.line.is_empty() && !self.tty {
            let line = std::mem::take(&mut self.line);
            if matches!(self.busy, Busy::Reading(_)) {
                self.feed(&line);
            } else {
                self.lines.push_back(String::from_utf8_lossy(&line).into_owned());
            }
        }
        self.finish_reading();
        self.run();
        self.take()
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.size = Some((width, height));
    }

    /// The sleep asked for has passed.
    pub fn wake(&mut self) -> Vec<Effect> {
        match self.busy {
            Busy::Sleeping => {
                self.busy = Busy::No;
                self.status = 0;
            }
            Busy::Paused => self.busy = Busy::No,
            _ => {}
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

    /// Writes on fd 1 or 2 of the top frame, wherever its redirections send it.
    fn write_fd(&mut self, fd: u8, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut fd = fd;
        for frame in self.frames.iter_mut().rev() {
            match frame.sink(fd) {
                Sink::Down(n) => fd = n,
                Sink::Null => return,
                Sink::Capture => return frame.captured.extend_from_slice(bytes),
                Sink::File(n) => {
                    if let Some(path) = frame.files.get(n as usize) {
                        self.container.files.entry(path.clone()).or_default().extend_from_slice(bytes);
                    }
                    return;
                }
            }
        }
        if fd == 2 {
            self.write_err(bytes);
        } else {
            self.write_out(bytes);
        }
    }

    /// Whether fd 1 of the top frame is the terminal.
    fn stdout_is_terminal(&self) -> bool {
        let mut fd = 1;
        for frame in self.frames.iter().rev() {
            match frame.sink(fd) {
                Sink::Down(n) => fd = n,
                Sink::Null | Sink::Capture | Sink::File(_) => return false,
            }
        }
        self.tty
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
            self.steps += 1;
            if self.steps > STEPS {
                self.busy = Busy::Paused;
                self.effects.push(Effect::Sleep(Duration::ZERO));
                return;
            }
            let Some(frame) = self.frames.last_mut() else { return self.exit(self.status) };
            if let Some(pending) = frame.pending.take() {
                self.execute(pending.command, pending.values);
                continue;
            }
            match &mut frame.kind {
                Kind::Script { queue, interactive } => {
                    if let Some(item) = queue.pop_front() {
                        if item.join.runs(self.status) {
                            self.pipeline(item.pipeline);
                        }
                    } else if !*interactive {
                        self.pop_frame();
                    } else if !self.read_next_line() {
                        return;
                    }
                }
                Kind::Loop { var, values, body } => match values.pop_front() {
                    Some(value) => {
                        let (var, body) = (var.clone(), body.clone());
                        self.vars.insert(var, value);
                        self.frames.push(Frame::script(body));
                    }
                    None => self.pop_frame(),
                },
                Kind::While { condition, body, until, testing, last } => {
                    if !*testing {
                        *testing = true;
                        let condition = condition.clone();
                        self.frames.push(Frame::script(condition));
                    } else if (self.status == 0) != *until {
                        *testing = false;
                        let body = body.clone();
                        // The body's last status is the loop's, read when the body is done.
                        self.frames.push(Frame { on_end: OnEnd::Status, ..Frame::script(body) });
                    } else {
                        self.status = *last;
                        self.pop_frame();
                    }
                }
                Kind::Pipe { stages, carry } => match stages.pop_front() {
                    Some(command) => {
                        let last = stages.is_empty();
                        let mut stage =
                            Frame::script(vec![Item { join: Join::Always, pipeline: Pipeline(vec![command]) }]);
                        stage.boundary = true;
                        stage.input = carry.take().map(VecDeque::from);
                        if !last {
                            stage.out = Sink::Capture;
                            stage.on_end = OnEnd::NextStage;
                        }
                        self.frames.push(stage);
                    }
                    None => self.pop_frame(),
                },
            }
        }
    }

    /// An interactive frame reads its next line; false when it has to wait for one.
    fn read_next_line(&mut self) -> bool {
        if let Some(input) = self.frames.iter_mut().rev().find_map(|f| f.input.as_mut()) {
            if input.is_empty() {
                self.pop_frame();
                return true;
            }
            let end = input.iter().position(|&b| b == b'\n').map_or(input.len(), |i| i + 1);
            let line: Vec<u8> = input.drain(..end).collect();
            let line = String::from_utf8_lossy(&line).trim_end_matches('\n').to_string();
            self.read_line(&line);
            return true;
        }
        if let Some(line) = self.lines.pop_front() {
            self.prompted = false;
            self.read_line(&line);
        } else if !self.stdin_open {
            self.pop_frame();
        } else {
            if self.tty && !self.prompted {
                self.prompted = true;
                let prompt = format!("{} # ", self.cwd);
                self.effects.push(Effect::Stdout(prompt.into_bytes()));
            }
            return false;
        }
        true
    }

    /// The top frame is done: it hands its output on; the process ends with the last frame.
    fn pop_frame(&mut self) {
        let Some(frame) = self.frames.pop() else { return };
        match (frame.on_end, self.frames.last_mut()) {
            (OnEnd::Substitute { quoted }, Some(below)) => {
                let text = expand::substituted(&frame.captured);
                if let Some(pending) = below.pending.as_mut() {
                    pending.values.push(if quoted { Piece::Quoted(text) } else { Piece::Unquoted(text) });
                }
            }
            (OnEnd::NextStage, Some(Frame { kind: Kind::Pipe { carry, .. }, .. })) => *carry = Some(frame.captured),
            (OnEnd::Status, Some(Frame { kind: Kind::While { last, .. }, .. })) => *last = self.status,
            _ => {}
        }
        if self.frames.is_empty() {
            self.exit(self.status);
        }
    }

    fn read_line(&mut self, line: &str) {
        match words::parse(line) {
            Ok(script) => {
                if let Some(Frame { kind: Kind::Script { queue, .. }, .. }) = self.frames.last_mut() {
                    queue.extend(script);
                }
            }
            Err(e) => {
                self.write_fd(2, format!("sh: {}\n", e.0).as_bytes());
                self.status = 2;
            }
        }
    }

    fn pipeline(&mut self, pipeline: Pipeline) {
        let mut commands = pipeline.0;
        if commands.len() == 1 {
            let command = commands.remove(0);
            self.execute(command, Vec::new());
        } else {
            self.frames.push(Frame::new(Kind::Pipe { stages: commands.into(), carry: None }));
        }
    }

    fn var(&self, name: &str) -> String {
        match name {
            "?" => self.status.to_string(),
            "PWD" => self.cwd.clone(),
            _ => self.vars.get(name).map(String::as_str).or(self.container.var(name)).unwrap_or_default().to_string(),
        }
    }

    /// Expands a command's words (a substitution first runs in a frame of its own, the command
    /// waiting below it), applies its redirections in a frame, and runs it.
    fn execute(&mut self, command: Command, mut values: Vec<Piece>) {
        let mut words: Vec<&Word> = match &command {
            Command::Simple { words, .. } => words.iter().collect(),
            Command::For { items, .. } => items.iter().flatten().collect(),
            Command::While { .. } => Vec::new(),
        };
        let count = words.len();
        words.extend(command.redirects().iter().filter_map(|r| match r {
            Redirect::Write { file, .. } | Redirect::Read { file, .. } => Some(file),
            Redirect::Dup { .. } => None,
        }));
        let expanded = match expand::words(&words, &mut values, &|name| self.var(name)) {
            Ok(expanded) => expanded,
            Err((script, quoted)) => {
                if let Some(frame) = self.frames.last_mut() {
                    frame.pending = Some(Pending { command: command.clone(), values });
                }
                let capture =
                    Frame { out: Sink::Capture, on_end: OnEnd::Substitute { quoted }, ..Frame::script(script) };
                self.frames.push(Frame { boundary: true, ..capture });
                return;
            }
        };
        let substituted = words.iter().flat_map(|w| w.iter()).any(|p| matches!(p, Part::Command { .. }));
        let (fields, targets) = expanded.split_at(count);
        if !command.redirects().is_empty() {
            match Frame::redirected(command.redirects(), targets, &self.cwd, &mut self.container) {
                Ok(frame) => self.frames.push(frame),
                Err(message) => {
                    self.write_fd(2, message.as_bytes());
                    self.status = 1;
                    return;
                }
            }
        }
        match command {
            Command::Simple { .. } => {
                let argv = fields.concat();
                if argv.is_empty() {
                    // A command of nothing keeps the status of its last substitution.
                    if !substituted {
                        self.status = 0;
                    }
                    return;
                }
                self.simple(&argv);
            }
            Command::For { var, items, body, .. } => {
                let values = if items.is_some() { fields.concat().into() } else { VecDeque::new() };
                self.status = 0;
                self.frames.push(Frame::new(Kind::Loop { var, values, body }));
            }
            Command::While { condition, body, until, .. } => {
                self.status = 0;
                self.frames.push(Frame::new(Kind::While { condition, body, until, testing: false, last: 0 }));
            }
        }
    }

    /// Runs one of the [`commands`] in the top frame.
    fn simple(&mut self, argv: &[String]) {
        let terminal = self.stdout_is_terminal();
        let mut env = Env {
            container: &self.container,
            cwd: &mut self.cwd,
            status: self.status,
            size: self.size,
            tty: terminal,
            now: (self.clock)(),
            stdout: Vec::new(),
            stderr: Vec::new(),
        };
        let run = commands::run(&mut env, argv);
        let (stdout, stderr) = (env.stdout, env.stderr);
        self.write_fd(1, &stdout);
        self.write_fd(2, &stderr);
        match run {
            Run::Done(code) => self.status = code,
            Run::Sleep(d) => {
                self.busy = Busy::Sleeping;
                self.effects.push(Effect::Sleep(d));
            }
            Run::Filter(filter) => self.filter(filter),
            Run::Exit(code) => {
                self.status = code;
                // `exit` ends the shell (or subshell) it runs in: a nested one returns to its parent.
                while let Some(frame) = self.frames.last() {
                    let boundary = frame.boundary;
                    self.pop_frame();
                    if boundary {
                        break;
                    }
                }
            }
            Run::Shell(Some(script)) => match words::parse(&script) {
                Ok(script) => self.frames.push(Frame { boundary: true, ..Frame::script(script) }),
                Err(e) => {
                    self.write_fd(2, format!("sh: -c: {}\n", e.0).as_bytes());
                    self.status = 2;
                }
            },
            Run::Shell(None) => {
                self.prompted = false;
                self.frames.push(Frame::interactive());
            }
        }
    }

    /// A command that reads stdin to its end: a pipe's or a file's at once, the process's as it
    /// comes (lines typed ahead first).
    fn filter(&mut self, filter: Filter) {
        // gzip refuses a terminal before it reads anything.
        if matches!(filter, Filter::Gzip(_)) && self.stdout_is_terminal() {
            self.busy = Busy::Reading(filter);
            return self.finish_reading();
        }
        if let Some(input) = self.frames.iter_mut().rev().find_map(|f| f.input.as_mut()) {
            let bytes: Vec<u8> = input.drain(..).collect();
            self.busy = Busy::Reading(filter);
            self.reading = bytes;
            return self.finish_reading();
        }
        let ahead: Vec<u8> = self.lines.drain(..).flat_map(|l| format!("{l}\n").into_bytes()).collect();
        self.busy = Busy::Reading(filter);
        self.reading.clear();
        self.feed(&ahead);
        if !self.stdin_open {
            self.finish_reading();
        }
    }

    /// Bytes for the reading command: `cat` passes them on at once, others collect them.
    fn feed(&mut self, bytes: &[u8]) {
        match self.busy {
            Busy::Reading(Filter::Cat) => self.write_fd(1, bytes),
            Busy::Reading(_) => self.reading.extend_from_slice(bytes),
            _ => {}
        }
    }

    /// The reading command's input has ended: its output and status.
    fn finish_reading(&mut self) {
        let Busy::Reading(filter) = self.busy else { return };
        self.busy = Busy::No;
        let input = std::mem::take(&mut self.reading);
        let done = filter.finish(&input, self.stdout_is_terminal());
        self.write_fd(1, &done.stdout);
        self.write_fd(2, done.stderr.as_bytes());
        self.status = done.status;
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
#[path = "shell_tests.rs"]
mod tests;
