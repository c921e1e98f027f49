//! Reading or following a pod's log, as a state machine: [`LogFollow::step`] takes what happened
//! ([`Input`]) and answers what to do ([`Action`]: read a body, open a stream, wait, close), with
//! no clock and no I/O. The driver (`client::logs`) runs the actions and feeds their outcomes
//! back; the view renders [`LogFollow::shown`], [`LogFollow::phases`] and [`LogFollow::held`].
//!
//! A run ([`Input::Start`]) reads one container, or every app container interleaved by time;
//! starting again (another container, the previous run, other options) closes what the last run
//! had open, and whatever of it still arrives is ignored (each connection and each wait has its
//! own [`ConnectionId`]).
//!
//! A follow that drops (the stream ends, is cut, or could not be opened) waits
//! ([`reconnect_delay_ms`]: 1, 2, 4, 8, then 10 s while nothing new arrives) and reconnects from
//! `sinceTime`, its last stamped line's second (`timestamps=true` always), without `tailLines`
//! and `sinceSeconds`; the lines of that second it already has, equal in time and text, are
//! skipped. A line the drop cut in two is not kept: it comes again whole. The server refusing a
//! reconnection ends the follow (the container stopped, the pod went away) and keeps the lines;
//! refusing the first request is a failure. At most a cap of lines is kept ([`LogBuffer`]);
//! pausing freezes what is shown while lines keep coming.
//!
//! Invariants: every [`Action::Read`] and [`Action::Follow`] carries a request made here; an
//! input naming a connection the machine no longer waits for changes nothing.

use std::sync::Arc;

use kube_wire::codec::value::Value;
use kube_wire::discovery::ResourceType;
use kube_wire::params::LogOptions;
use kube_wire::request::{Request, RequestError};
use kube_wire::view::status::Status;

use crate::i18n::Text;
use crate::logs::{reconnect_delay_ms, LineSplitter, LogBuffer, LogLine, Resume};
use crate::target::subresource_request;

/// The value of the container choice that reads every app container, interleaved.
pub const ALL_CONTAINERS: &str = "";

/// A container the log can be read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    /// An init container (listed after the others, not part of "all").
    pub init: bool,
    /// Restarts so far: a previous run exists when above zero.
    pub restarts: i64,
}

/// The containers of a pod document: `spec.containers`, then `spec.initContainers`, with their
/// restart counts from the status.
pub fn containers(pod: &Value) -> Vec<Container> {
    let restarts = |name: &str| {
        ["containerStatuses", "initContainerStatuses"]
            .iter()
            .flat_map(|key| pod.at(&["status", key]).and_then(Value::as_array).unwrap_or_default())
            .find(|s| s.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|s| s.get("restartCount"))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    [("containers", false), ("initContainers", true)]
        .iter()
        .flat_map(|(key, init)| {
            pod.at(&["spec", key])
                .and_then(Value::as_array)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c.get("name").and_then(Value::as_str))
                .map(|name| Container { name: name.to_owned(), init: *init, restarts: restarts(name) })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The pod whose log is read.
#[derive(Debug, Clone, PartialEq)]
pub struct LogSource {
    /// The pods resource type.
    pub resource: ResourceType,
    pub namespace: Option<String>,
    pub pod: String,
    pub containers: Vec<Container>,
}

impl LogSource {
    /// The log of the pod `document` (its containers and their restarts).
    pub fn of_pod(resource: ResourceType, namespace: Option<String>, pod: String, document: &Value) -> LogSource {
        LogSource { resource, namespace, pod, containers: containers(document) }
    }

    /// The app containers ("all" reads these, interleaved).
    pub fn app_containers(&self) -> impl Iterator<Item = &str> {
        self.containers.iter().filter(|c| !c.init).map(|c| c.name.as_str())
    }

    /// Whether "all containers" is offered (more than one app container).
    pub fn several(&self) -> bool {
        self.app_containers().nth(1).is_some()
    }

    /// The container chosen at first (the first of the spec), or [`ALL_CONTAINERS`] with none.
    pub fn first_choice(&self) -> String {
        self.containers.first().map(|c| c.name.clone()).unwrap_or_default()
    }

    /// Whether `choice` (a name or [`ALL_CONTAINERS`]) has a previous run to read.
    pub fn has_previous(&self, choice: &str) -> bool {
        self.containers.iter().filter(|c| choice == ALL_CONTAINERS || c.name == choice).any(|c| c.restarts > 0)
    }
}

/// What the user asked to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogAsk {
    /// One container, or [`ALL_CONTAINERS`].
    pub container: String,
    pub follow: bool,
    pub previous: bool,
    pub since_seconds: Option<u32>,
    pub tail_lines: Option<u32>,
}

impl LogAsk {
    /// The ask of the log form: `since` and `tail` as typed (blank or not a number is none; a
    /// `sinceSeconds` of 0 is none, a `tailLines` of 0 is kept).
    pub fn of_form(container: String, follow: bool, previous: bool, since: &str, tail: &str) -> LogAsk {
        LogAsk {
            container,
            follow,
            previous,
            since_seconds: since.trim().parse::<u32>().ok().filter(|n| *n > 0),
            tail_lines: tail.trim().parse::<u32>().ok(),
        }
    }
}

/// Why a container's log could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum LogFailure {
    /// The request could not be made (a name the API refuses).
    Request(RequestError),
    /// The server answered with a `Status`.
    Status(Box<Status>),
    /// Nothing came back, or an answer without a `Status` (the client's error, worded).
    Unanswered(Text),
}

/// How a container's read ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// A read (not a follow) got its `lines`.
    Read { lines: usize },
    /// The server refused a reconnection: the follow is over, its lines stay.
    Stopped(LogFailure),
}

/// Where one container's log stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Reading,
    Following,
    /// Waiting `seconds` before reconnection `attempt` (from 1).
    Reconnecting {
        attempt: u32,
        seconds: u32,
    },
    Ended(Ended),
    Failed(LogFailure),
}

/// One connection or one wait of a run: what an [`Action`] starts and an [`Input`] answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnectionId(pub u64);

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Read (or follow) anew: the last run's connections close and its lines go.
    Start(LogAsk),
    /// Hold what is shown (`true`) while lines keep coming, or show everything again.
    Pause(bool),
    /// The whole answer of an [`Action::Read`]: the body of a success, or why not.
    Read { id: ConnectionId, body: Result<Vec<u8>, LogFailure> },
    /// An [`Action::Follow`]'s stream opened with a success: its chunks follow.
    Opened { id: ConnectionId },
    /// An [`Action::Follow`] was answered with a failure.
    Refused { id: ConnectionId, failure: LogFailure },
    /// A chunk of an opened stream's body.
    Chunk { id: ConnectionId, bytes: Vec<u8> },
    /// An [`Action::Follow`]'s stream ended, was cut, or could not be opened at all.
    Closed { id: ConnectionId },
    /// An [`Action::Wait`] is over.
    Waited { id: ConnectionId },
}

/// What to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send `request` and answer with [`Input::Read`].
    Read { id: ConnectionId, request: Request },
    /// Open `request` as a stream (in a slot of the page's stream budget) and answer with
    /// [`Input::Opened`] or [`Input::Refused`], then the [`Input::Chunk`]s and [`Input::Closed`].
    Follow { id: ConnectionId, request: Request },
    /// Answer with [`Input::Waited`] after `ms`.
    Wait { id: ConnectionId, ms: u32 },
    /// Abort the connection `id` (what it still sends is ignored).
    Close { id: ConnectionId },
}

/// When the view should draw what a step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redraw {
    /// Nothing it shows changed.
    No,
    /// Lines arrived: draw them with the next ones (a burst is drawn once).
    Soon,
    /// A phase or the pause changed: draw now.
    Now,
}

/// The answer to one input.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// To run, in order.
    pub actions: Vec<Action>,
    pub redraw: Redraw,
}

impl Step {
    fn nothing() -> Step {
        Step { actions: Vec::new(), redraw: Redraw::No }
    }
}

/// One container's reading in the current run.
#[derive(Debug)]
struct Reading {
    container: Arc<str>,
    phase: Phase,
    /// The connection or wait an input must name to be heard.
    current: Option<ConnectionId>,
    /// Drops since the last line that was new.
    attempt: u32,
    /// Where the open connection resumed from, until its first new line.
    resume: Option<Resume>,
    /// The open connection is a reconnection that resumed from lines kept (a refusal ends it).
    resumed: bool,
    splitter: LineSplitter,
}

/// The log of one pod as read or followed: the machine (see the module's documentation).
#[derive(Debug)]
pub struct LogFollow {
    source: LogSource,
    ask: Option<LogAsk>,
    readings: Vec<Reading>,
    next: u64,
    cap: usize,
    buffer: LogBuffer,
    /// The lines shown while paused: the buffer as it was.
    frozen: Option<LogBuffer>,
}

impl LogFollow {
    /// Nothing read yet from `source`'s pod; at most `cap` lines will be kept.
    pub fn new(source: LogSource, cap: usize) -> LogFollow {
        LogFollow { source, ask: None, readings: Vec::new(), next: 0, cap, buffer: LogBuffer::new(cap), frozen: None }
    }

    pub fn source(&self) -> &LogSource {
        &self.source
    }

    /// The lines shown: the frozen copy while paused, else every line kept.
    pub fn shown(&self) -> &LogBuffer {
        self.frozen.as_ref().unwrap_or(&self.buffer)
    }

    /// While paused, how many lines arrived since.
    pub fn held(&self) -> Option<u64> {
        self.frozen.as_ref().map(|f| self.buffer.total() - f.total())
    }

    /// Each container of the run and where its log stands, in the order they were started.
    pub fn phases(&self) -> impl Iterator<Item = (&str, &Phase)> {
        self.readings.iter().map(|r| (&*r.container, &r.phase))
    }

    /// Whether the run reads several containers interleaved (lines name their container).
    pub fn interleaved(&self) -> bool {
        self.readings.len() > 1
    }

    /// What to do about `input`.
    pub fn step(&mut self, input: Input) -> Step {
        match input {
            Input::Start(ask) => self.start(ask),
            Input::Pause(paused) => {
                if paused != self.frozen.is_some() {
                    self.frozen = paused.then(|| self.buffer.clone());
                }
                Step { actions: Vec::new(), redraw: Redraw::Now }
            }
            Input::Read { id, body } => self.read(id, body),
            Input::Opened { id } => self.with_reading(id, |_, reading| {
                reading.phase = Phase::Following;
                reading.splitter = LineSplitter::default();
                Step { actions: Vec::new(), redraw: Redraw::Now }
            }),
            Input::Refused { id, failure } => self.with_reading(id, |_, reading| {
                reading.current = None;
                reading.phase =
                    if reading.resumed { Phase::Ended(Ended::Stopped(failure)) } else { Phase::Failed(failure) };
                Step { actions: Vec::new(), redraw: Redraw::Now }
            }),
            Input::Chunk { id, bytes } => self.chunk(id, &bytes),
            Input::Closed { id } => self.closed(id),
            Input::Waited { id } => self.reconnect(id),
        }
    }

    fn start(&mut self, ask: LogAsk) -> Step {
        let mut actions: Vec<Action> =
            self.readings.iter().filter_map(|r| r.current).map(|id| Action::Close { id }).collect();
        self.buffer = LogBuffer::new(self.cap);
        self.frozen = None;
        let names: Vec<String> = if ask.container == ALL_CONTAINERS {
            self.source.app_containers().map(str::to_owned).collect()
        } else {
            vec![ask.container.clone()]
        };
        self.ask = Some(ask);
        self.readings = names
            .into_iter()
            .map(|name| Reading {
                container: Arc::from(name),
                phase: Phase::Reading,
                current: None,
                attempt: 0,
                resume: None,
                resumed: false,
                splitter: LineSplitter::default(),
            })
            .collect();
        for at in 0..self.readings.len() {
            actions.extend(self.connect(at, None));
        }
        Step { actions, redraw: Redraw::Now }
    }

    /// The request of reading `at`, resuming from `resume`, as an action (or its failure).
    fn connect(&mut self, at: usize, resume: Option<Resume>) -> Option<Action> {
        let ask = self.ask.as_ref()?;
        let reading = &self.readings[at];
        let first = resume.is_none();
        let options = LogOptions {
            container: Some(reading.container.to_string()),
            // Always stamped: the stamps resume a follow and interleave containers; the view
            // shows them only when asked.
            timestamps: true,
            previous: ask.previous,
            follow: ask.follow,
            since_seconds: ask.since_seconds.filter(|_| first),
            since_time: resume.as_ref().map(Resume::since_time),
            tail_lines: ask.tail_lines.filter(|_| first),
        };
        let built = subresource_request(
            &self.source.resource,
            self.source.namespace.as_deref(),
            &self.source.pod,
            "log",
            &options,
        );
        let follow = ask.follow;
        let id = ConnectionId(self.next);
        self.next += 1;
        let reading = &mut self.readings[at];
        match built {
            Ok(request) => {
                reading.current = Some(id);
                reading.resumed = resume.is_some();
                reading.resume = resume;
                Some(if follow { Action::Follow { id, request } } else { Action::Read { id, request } })
            }
            Err(error) => {
                reading.current = None;
                reading.phase = Phase::Failed(LogFailure::Request(error));
                None
            }
        }
    }

    /// Runs `change` on the reading waiting for `id`; nothing when none is.
    fn with_reading(&mut self, id: ConnectionId, change: impl FnOnce(&mut LogBuffer, &mut Reading) -> Step) -> Step {
        match self.readings.iter_mut().find(|r| r.current == Some(id)) {
            Some(reading) => change(&mut self.buffer, reading),
            None => Step::nothing(),
        }
    }

    fn read(&mut self, id: ConnectionId, body: Result<Vec<u8>, LogFailure>) -> Step {
        self.with_reading(id, |buffer, reading| {
            reading.current = None;
            reading.phase = match body {
                Ok(body) => {
                    let mut raw = reading.splitter.push(&body);
                    raw.extend(reading.splitter.finish());
                    let lines = raw.len();
                    raw.into_iter().for_each(|line| buffer.push(LogLine::parse(&reading.container, line)));
                    Phase::Ended(Ended::Read { lines })
                }
                Err(failure) => Phase::Failed(failure),
            };
            Step { actions: Vec::new(), redraw: Redraw::Now }
        })
    }

    fn chunk(&mut self, id: ConnectionId, bytes: &[u8]) -> Step {
        self.with_reading(id, |buffer, reading| {
            let mut fresh = 0;
            for raw in reading.splitter.push(bytes) {
                let line = LogLine::parse(&reading.container, raw);
                if reading.resume.as_mut().is_some_and(|r| r.already_kept(&line)) {
                    continue;
                }
                reading.resume = None;
                buffer.push(line);
                fresh += 1;
            }
            if fresh == 0 {
                return Step::nothing();
            }
            reading.attempt = 0;
            Step { actions: Vec::new(), redraw: Redraw::Soon }
        })
    }

    /// A follow dropped: wait, then reconnect from the lines kept.
    fn closed(&mut self, id: ConnectionId) -> Step {
        let wait = ConnectionId(self.next);
        let step = self.with_reading(id, |_, reading| {
            // A line cut off by the end is not kept: it comes again from sinceTime.
            reading.splitter = LineSplitter::default();
            reading.attempt += 1;
            let ms = reconnect_delay_ms(reading.attempt);
            reading.phase = Phase::Reconnecting { attempt: reading.attempt, seconds: ms / 1000 };
            reading.current = Some(wait);
            Step { actions: vec![Action::Wait { id: wait, ms }], redraw: Redraw::Now }
        });
        if !step.actions.is_empty() {
            self.next += 1;
        }
        step
    }

    fn reconnect(&mut self, id: ConnectionId) -> Step {
        let Some(at) = self.readings.iter().position(|r| r.current == Some(id)) else { return Step::nothing() };
        let resume = self.buffer.resume(&self.readings[at].container);
        self.readings[at].phase = Phase::Following;
        let actions = self.connect(at, resume).into_iter().collect();
        Step { actions, redraw: Redraw::Now }
    }
}

#[cfg(test)]
#[path = "log_follow_tests.rs"]
mod tests;
