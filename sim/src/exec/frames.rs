//! The levels of the simulated shell's process ([`super::shell::Process`]): each frame runs a
//! list, a `for`, `while` or `until` loop or a pipeline, with its own file descriptors (where fd 1 and fd 2 go, what
//! fd 0 reads) and what happens when it ends (a command substitution hands its output to the
//! command waiting for it, a pipeline stage hands its output to the next stage).

use std::collections::VecDeque;

use super::commands;
use super::container::Container;
use super::expand::Piece;
use super::words::{Command, Item, Redirect, Script};

/// Where a frame's fd 1 or fd 2 goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    /// The frame below's fd 1 or 2 (the process's stdout or stderr below the last frame).
    Down(u8),
    /// `/dev/null`.
    Null,
    /// Kept in the frame (a command substitution, a pipeline stage but the last).
    Capture,
    /// Written to the frame's file number N ([`Frame::files`]).
    File(u8),
}

#[derive(Debug)]
pub enum Kind {
    /// A list; `interactive`: when it is done, it reads the next line of its stdin.
    Script { queue: VecDeque<Item>, interactive: bool },
    /// A `for` loop: the values left, each running the body with VAR set.
    Loop { var: String, values: VecDeque<String>, body: Script },
    /// A `while` (or `until`) loop: `testing` while its condition runs; `last` the status of
    /// the body's last run (the loop's own status).
    While { condition: Script, body: Script, until: bool, testing: bool, last: i32 },
    /// A pipeline: the stages not started yet, and the output of the one before.
    Pipe { stages: VecDeque<Command>, carry: Option<Vec<u8>> },
}

/// What a frame's end hands to the frame below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnEnd {
    Nothing,
    /// Its output completes the expansion of the command waiting below (quoted or not).
    Substitute {
        quoted: bool,
    },
    /// Its output is the next stage's stdin.
    NextStage,
    /// Its last status is the status of the loop below (a `while` body).
    Status,
}

/// A command whose words wait for a command substitution: the pieces expanded so far, in order.
#[derive(Debug)]
pub struct Pending {
    pub command: Command,
    pub values: Vec<Piece>,
}

#[derive(Debug)]
pub struct Frame {
    pub kind: Kind,
    pub out: Sink,
    pub err: Sink,
    /// What its commands read on stdin (`None`: the frame below's).
    pub input: Option<VecDeque<u8>>,
    pub captured: Vec<u8>,
    /// The files its redirections opened for writing (absolute paths).
    pub files: Vec<String>,
    /// `exit` leaves the frames down to and including this one (a shell or a subshell).
    pub boundary: bool,
    pub on_end: OnEnd,
    pub pending: Option<Pending>,
}

impl Frame {
    pub fn new(kind: Kind) -> Frame {
        Frame {
            kind,
            out: Sink::Down(1),
            err: Sink::Down(2),
            input: None,
            captured: Vec::new(),
            files: Vec::new(),
            boundary: false,
            on_end: OnEnd::Nothing,
            pending: None,
        }
    }

    /// A list run once.
    pub fn script(script: Script) -> Frame {
        Frame::new(Kind::Script { queue: script.into(), interactive: false })
    }

    /// A shell reading its stdin line by line.
    pub fn interactive() -> Frame {
        Frame { boundary: true, ..Frame::new(Kind::Script { queue: VecDeque::new(), interactive: true }) }
    }

    pub fn is_interactive(&self) -> bool {
        matches!(self.kind, Kind::Script { interactive: true, .. })
    }

    /// Where its fd 1 (or 2) goes.
    pub fn sink(&self, fd: u8) -> Sink {
        if fd == 2 {
            self.err
        } else {
            self.out
        }
    }

    pub fn set_sink(&mut self, fd: u8, sink: Sink) {
        if fd == 2 {
            self.err = sink;
        } else {
            self.out = sink;
        }
    }

    /// The frame a command's redirections make (applied in order, as bash applies them), or the
    /// message of the one that fails. A file written is opened in `container` (created, or
    /// emptied unless appended to), where [`commands::writable`] allows it; `/dev/null`,
    /// `/dev/stdout` and `/dev/stderr` are the devices.
    pub fn redirected(
        redirects: &[Redirect],
        targets: &[Vec<String>],
        cwd: &str,
        container: &mut Container,
    ) -> Result<Frame, String> {
        let mut frame = Frame::script(Vec::new());
        let mut targets = targets.iter();
        for redirect in redirects {
            let fd = match redirect {
                Redirect::Dup { fd, .. } | Redirect::Write { fd, .. } | Redirect::Read { fd, .. } => *fd,
            };
            let path = match redirect {
                Redirect::Dup { .. } => String::new(),
                _ => match targets.next().map(Vec::as_slice) {
                    Some([one]) => one.clone(),
                    _ => return Err("sh: ambiguous redirect\n".into()),
                },
            };
            match (redirect, fd) {
                (Redirect::Dup { to, .. }, 1 | 2) => match to {
                    1 | 2 => frame.set_sink(fd as u8, frame.sink(*to as u8)),
                    _ => return Err(format!("sh: {to}: Bad file descriptor\n")),
                },
                (Redirect::Write { append, .. }, 1 | 2) => {
                    let sink = match path.as_str() {
                        "/dev/null" => Sink::Null,
                        "/dev/stdout" => frame.sink(1),
                        "/dev/stderr" => frame.sink(2),
                        _ => {
                            let resolved = commands::resolve(cwd, &path);
                            commands::writable(container, &resolved).map_err(|why| format!("sh: {path}: {why}\n"))?;
                            let file = container.files.entry(resolved.clone()).or_default();
                            if !append {
                                file.clear();
                            }
                            frame.files.push(resolved);
                            Sink::File(frame.files.len() as u8 - 1)
                        }
                    };
                    frame.set_sink(fd as u8, sink);
                }
                (Redirect::Read { .. }, 0) => {
                    let resolved = commands::resolve(cwd, &path);
                    let content = container.files.get(&resolved).cloned().or((resolved == "/dev/null").then(Vec::new));
                    let Some(content) = content else {
                        return Err(format!("sh: {path}: No such file or directory\n"));
                    };
                    frame.input = Some(content.into());
                }
                (Redirect::Dup { to: 0, .. }, 0) => {}
                _ => return Err(format!("sh: {fd}: only file descriptors 0, 1 and 2 are simulated\n")),
            }
        }
        Ok(frame)
    }
}
