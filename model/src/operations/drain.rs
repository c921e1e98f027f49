//! `kubectl drain NODE` as kubectl does it (`pkg/drain/drain.go`, `pkg/drain/filters.go`,
//! `pkg/cmd/drain/drain.go`), as pure pieces a driver runs: after the cordon (the plan of
//! [`Operation::Cordon`](super::Operation::Cordon)), the node's pods listed across namespaces by
//! the `spec.nodeName` field selector in pages of 500 (kubectl's `--chunk-size` default),
//! kubectl's filters deciding for each pod, then per pod a [`PodEviction`]: a `policy/v1`
//! Eviction POSTed to `pods/NAME/eviction`, a 429 (a PodDisruptionBudget says no) retried every
//! 5 s (`EvictErrorRetryDelay`) with the budget named, within the total wait the user chose
//! (kubectl's `--timeout`, none by default), a 404 counted as done, and after a 2xx the pod read
//! every second (`waitForDelete`'s interval) until it is gone or another pod took its name.
//!
//! Invariants: no clock and no I/O here: every step takes the time (milliseconds) and the answer
//! it reacts to, and says what to send or how long to wait; a pod is never evicted by a drain
//! that refuses (kubectl evicts nothing when a filter says no).

use crate::i18n::{Localized, Msg, Text};
use kube_wire::build::RequestBuilder;
use kube_wire::codec::value::{Map, Value};
use kube_wire::media_type::{Accept, MediaType};
use kube_wire::params::{GetParams, ListParams, WriteParams};
use kube_wire::request::{Body, Collection, Request, RequestError};

/// kubectl drain's `--chunk-size` default: pods listed 500 at a time.
pub const CHUNK_SIZE: u32 = 500;
/// How long kubectl waits before evicting again after a 429 (`EvictErrorRetryDelay`).
pub const EVICTION_RETRY_MS: u64 = 5_000;
/// How often kubectl reads an evicted pod until it is gone (`waitForDelete`'s interval).
pub const FOLLOW_INTERVAL_MS: u64 = 1_000;
/// The annotation of a static pod's mirror (`corev1.MirrorPodAnnotationKey`).
pub const MIRROR: &str = "kubernetes.io/config.mirror";

/// kubectl drain's flags that change what it does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrainOptions {
    /// `--ignore-daemonsets`: DaemonSet pods are left where they are instead of refusing.
    pub ignore_daemonsets: bool,
    /// `--delete-emptydir-data`: pods with an emptyDir volume are evicted (their data is lost).
    pub delete_emptydir_data: bool,
    /// `--force`: pods no controller manages are evicted (nothing makes them again).
    pub force: bool,
    /// `--dry-run=server`: every eviction carries `dryRun: ["All"]` and no pod is followed.
    pub dry_run: bool,
    /// `--timeout`: the longest the evictions may take, in milliseconds; `None` waits for ever.
    pub timeout_ms: Option<u64>,
}

/// Why kubectl leaves a pod on the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// A mirror of a static pod: the kubelet owns it.
    Mirror,
    /// `--ignore-daemonsets`: "ignoring DaemonSet-managed Pods".
    DaemonSet,
}

/// Why kubectl refuses the drain because of a pod (each names the flag that overrides it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)".
    DaemonSet,
    /// "Pods with local storage (use --delete-emptydir-data to override)".
    LocalStorage,
    /// "Pods that declare no controller (use --force to override)".
    Unmanaged,
}

/// What kubectl's filters make of one pod (`makeFilters`, in their order: DaemonSet, mirror,
/// local storage, unreplicated; the first that does not delete decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Evicted; with the warning kubectl prints when a flag allowed it (the last filter's).
    Evict(Option<Refusal>),
    Skip(Skip),
    Refuse(Refusal),
}

/// The decision for `pod` under `options`. (kubectl also reads the DaemonSet of a DaemonSet pod,
/// to evict an orphan with `--force`; here a DaemonSet pod is one whose controller is a
/// DaemonSet.)
pub fn decide(pod: &Value, options: &DrainOptions) -> Decision {
    let finished = matches!(pod.at(&["status", "phase"]).and_then(Value::as_str), Some("Succeeded" | "Failed"));
    let controller = pod
        .at(&["metadata", "ownerReferences"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .find(|owner| owner.get("controller").and_then(Value::as_bool) == Some(true));
    let by_daemon_set = controller.is_some_and(|owner| {
        owner.get("kind").and_then(Value::as_str) == Some("DaemonSet")
            && owner.get("apiVersion").and_then(Value::as_str) == Some("apps/v1")
    });
    if by_daemon_set && !finished {
        return if options.ignore_daemonsets {
            Decision::Skip(Skip::DaemonSet)
        } else {
            Decision::Refuse(Refusal::DaemonSet)
        };
    }
    if pod.at(&["metadata", "annotations", MIRROR]).is_some() {
        return Decision::Skip(Skip::Mirror);
    }
    let mut warning = None;
    let volumes = pod.at(&["spec", "volumes"]).and_then(Value::as_array).unwrap_or_default();
    if !finished && volumes.iter().any(|volume| volume.get("emptyDir").is_some_and(|v| *v != Value::Null)) {
        if !options.delete_emptydir_data {
            return Decision::Refuse(Refusal::LocalStorage);
        }
        warning = Some(Refusal::LocalStorage);
    }
    if !finished && controller.is_none() {
        if !options.force {
            return Decision::Refuse(Refusal::Unmanaged);
        }
        warning = Some(Refusal::Unmanaged);
    }
    Decision::Evict(warning)
}

/// The pods of `namespace`, or of every namespace.
fn pods(namespace: Option<&str>) -> Collection {
    Collection {
        group: String::new(),
        version: "v1".into(),
        plural: "pods".into(),
        namespace: namespace.map(str::to_owned),
    }
}

/// One page of the node's pods: `GET /api/v1/pods?fieldSelector=spec.nodeName%3DNODE&limit=500`,
/// with `continue` from the page before (client-go writes the query sorted by key, so
/// `continue` comes first).
pub fn pods_page(node: &str, continue_token: Option<&str>) -> Request {
    let mut builder = RequestBuilder::list(&pods(None), &ListParams::default(), &Accept::only(MediaType::json()));
    if let Some(token) = continue_token {
        builder = builder.param("continue", token);
    }
    builder.param("fieldSelector", format!("spec.nodeName={node}")).param("limit", CHUNK_SIZE.to_string()).build()
}

/// A pod as drain knows it: where it is, its uid (to tell it from a new pod of the same name),
/// and what the filters decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodePod {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub decision: Decision,
}

/// The pods of one page of the list and the token of the next page (`None` on the last).
pub fn read_page(page: &Value, options: &DrainOptions) -> Result<(Vec<NodePod>, Option<String>), DrainError> {
    let items = page.get("items").and_then(Value::as_array).ok_or(DrainError::Missing("items"))?;
    let pods = items
        .iter()
        .map(|pod| -> Result<NodePod, DrainError> {
            let text = |path: &[&str], field: &'static str| {
                pod.at(path).and_then(Value::as_str).map(str::to_owned).ok_or(DrainError::Missing(field))
            };
            Ok(NodePod {
                namespace: text(&["metadata", "namespace"], "metadata.namespace")?,
                name: text(&["metadata", "name"], "metadata.name")?,
                uid: text(&["metadata", "uid"], "metadata.uid")?,
                decision: decide(pod, options),
            })
        })
        .collect::<Result<Vec<_>, DrainError>>()?;
    let next = page.at(&["metadata", "continue"]).and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_owned);
    Ok((pods, next))
}

/// The pods kubectl refuses to drain for, by reason; empty when the drain may go on.
pub fn refusals(pods: &[NodePod]) -> Vec<(Refusal, Vec<&NodePod>)> {
    [Refusal::DaemonSet, Refusal::LocalStorage, Refusal::Unmanaged]
        .into_iter()
        .map(|reason| (reason, pods.iter().filter(|p| p.decision == Decision::Refuse(reason)).collect::<Vec<_>>()))
        .filter(|(_, pods)| !pods.is_empty())
        .collect()
}

/// `POST /api/v1/namespaces/NS/pods/NAME/eviction`: a `policy/v1` Eviction (`EvictPod`) whose
/// DeleteOptions carry `dryRun: ["All"]` with `--dry-run=server`. The same JSON bytes as the real
/// kubectl 1.32.4's (`kubectl drain node-2 … --dry-run=server -v=8` against kube-sim: client-go's
/// eviction expansion sends JSON, `creationTimestamp: null` included, ending in a newline).
pub fn eviction(pod: &NodePod, dry_run: bool) -> Result<Request, RequestError> {
    let object = pods(Some(pod.namespace.as_str())).object(&pod.name)?.subresource("eviction")?;
    let mut metadata = Map::new();
    metadata.insert("name", Value::String(pod.name.clone()));
    metadata.insert("namespace", Value::String(pod.namespace.clone()));
    // Go writes an unset `metav1.Time` as null (kubectl 1.32's body, seen with -v=8).
    metadata.insert("creationTimestamp", Value::Null);
    let mut delete_options = Map::new();
    if dry_run {
        delete_options.insert("dryRun", Value::Array(vec![Value::String("All".into())]));
    }
    let mut body = Map::new();
    body.insert("kind", Value::String("Eviction".into()));
    body.insert("apiVersion", Value::String("policy/v1".into()));
    body.insert("metadata", Value::Object(metadata));
    body.insert("deleteOptions", Value::Object(delete_options));
    Ok(RequestBuilder::create_subresource(&object, Body::json(&Value::Object(body)), &WriteParams::default()).build())
}

/// The read that follows an evicted pod.
pub fn follow(pod: &NodePod) -> Result<Request, RequestError> {
    let object = pods(Some(pod.namespace.as_str())).object(&pod.name)?;
    Ok(RequestBuilder::get_object(&object, &GetParams::default(), &Accept::only(MediaType::json())).build())
}

/// Where one pod's eviction is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// The Eviction is being sent (`attempt` counts from 1).
    Evicting { attempt: u32 },
    /// A PodDisruptionBudget said no (429): evicting again at `retry_at_ms`.
    Blocked { attempt: u32, budget: Option<String>, retry_at_ms: u64 },
    /// Evicted: the pod is read until it is gone.
    Following,
    /// Gone (or never there: a 404 to the eviction), or accepted by a dry run.
    Done,
    /// The eviction failed with another status: kubectl gives up on this pod.
    Failed { status: u16, message: String },
    /// `--timeout` passed before the pod was gone.
    TimedOut,
}

/// What the driver does next for a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Send(Request),
    /// Send this request at `at_ms` (the same clock as the steps').
    SendAt(Request, u64),
    /// Nothing more for this pod.
    Finished,
}

/// One pod's eviction, from the first Eviction to the pod gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodEviction {
    pub pod: NodePod,
    pub phase: Phase,
    started_ms: u64,
    options: DrainOptions,
}

impl PodEviction {
    /// Starts evicting `pod` at `now_ms`.
    pub fn start(pod: NodePod, options: DrainOptions, now_ms: u64) -> Result<(PodEviction, Next), RequestError> {
        let request = eviction(&pod, options.dry_run)?;
        let state = PodEviction { pod, phase: Phase::Evicting { attempt: 1 }, started_ms: now_ms, options };
        Ok((state, Next::Send(request)))
    }

    /// The answer to the Eviction: `status` and, for a failure, the Status body.
    pub fn evicted(&mut self, status: u16, body: Option<&Value>, now_ms: u64) -> Result<Next, RequestError> {
        let Phase::Evicting { attempt } = self.phase else { return Ok(Next::Finished) };
        Ok(match status {
            200..=299 if self.options.dry_run => self.finish(Phase::Done),
            200..=299 => {
                self.phase = Phase::Following;
                Next::Send(follow(&self.pod)?)
            }
            404 => self.finish(Phase::Done),
            429 => {
                let retry_at_ms = now_ms + EVICTION_RETRY_MS;
                if self.out_of_time(retry_at_ms) {
                    return Ok(self.finish(Phase::TimedOut));
                }
                self.phase = Phase::Blocked { attempt, budget: body.and_then(budget_name), retry_at_ms };
                Next::SendAt(eviction(&self.pod, self.options.dry_run)?, retry_at_ms)
            }
            _ => {
                let message =
                    body.and_then(|b| b.get("message")).and_then(Value::as_str).unwrap_or_default().to_owned();
                self.finish(Phase::Failed { status, message })
            }
        })
    }

    /// The retry after a 429 was sent (at its time).
    pub fn retrying(&mut self) {
        if let Phase::Blocked { attempt, .. } = self.phase {
            self.phase = Phase::Evicting { attempt: attempt + 1 };
        }
    }

    /// The answer to a read of the evicted pod: gone on a 404 or when another pod (another uid)
    /// has its name; otherwise read again in a second.
    pub fn read(&mut self, status: u16, pod: Option<&Value>, now_ms: u64) -> Result<Next, RequestError> {
        if self.phase != Phase::Following {
            return Ok(Next::Finished);
        }
        let uid = pod.and_then(|p| p.at(&["metadata", "uid"])).and_then(Value::as_str);
        if status == 404 || (status == 200 && uid != Some(self.pod.uid.as_str())) {
            return Ok(self.finish(Phase::Done));
        }
        let at = now_ms + FOLLOW_INTERVAL_MS;
        if self.out_of_time(at) {
            return Ok(self.finish(Phase::TimedOut));
        }
        Ok(Next::SendAt(follow(&self.pod)?, at))
    }

    fn out_of_time(&self, at_ms: u64) -> bool {
        self.options.timeout_ms.is_some_and(|timeout| at_ms > self.started_ms + timeout)
    }

    fn finish(&mut self, phase: Phase) -> Next {
        self.phase = phase;
        Next::Finished
    }
}

/// `kubectl drain NODE` with the flags `options` stand for, as the user would type it.
pub fn command(node: &str, options: &DrainOptions) -> String {
    let mut command = format!("kubectl drain {node}");
    for (set, flag) in [
        (options.ignore_daemonsets, " --ignore-daemonsets"),
        (options.delete_emptydir_data, " --delete-emptydir-data"),
        (options.force, " --force"),
        (options.dry_run, " --dry-run=server"),
    ] {
        if set {
            command.push_str(flag);
        }
    }
    if let Some(timeout) = options.timeout_ms {
        command.push_str(&format!(" --timeout={}s", timeout.div_ceil(1000)));
    }
    command
}

/// How many of a drain's evictions are where: what its progress line says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub evicting: usize,
    pub blocked: usize,
    pub following: usize,
    pub done: usize,
    pub failed: usize,
    pub timed_out: usize,
}

impl Tally {
    pub fn of(evictions: &[PodEviction]) -> Tally {
        let mut tally = Tally::default();
        for eviction in evictions {
            match eviction.phase {
                Phase::Evicting { .. } => tally.evicting += 1,
                Phase::Blocked { .. } => tally.blocked += 1,
                Phase::Following => tally.following += 1,
                Phase::Done => tally.done += 1,
                Phase::Failed { .. } => tally.failed += 1,
                Phase::TimedOut => tally.timed_out += 1,
            }
        }
        tally
    }

    /// Whether every eviction has ended (done, failed or out of time).
    pub fn finished(&self) -> bool {
        self.evicting + self.blocked + self.following == 0
    }

    /// Whether the drain succeeded: every pod gone, none failed.
    pub fn succeeded(&self) -> bool {
        self.finished() && self.failed + self.timed_out == 0
    }
}

/// The pods a drain evicts (the filters' `Evict`), in the order listed.
pub fn evicted(pods: &[NodePod]) -> Vec<&NodePod> {
    pods.iter().filter(|p| matches!(p.decision, Decision::Evict(_))).collect()
}

/// The PodDisruptionBudget a 429 names: its cause `DisruptionBudget` says "The disruption budget
/// NAME needs …" (the eviction REST handler's wording).
fn budget_name(status: &Value) -> Option<String> {
    let causes = status.at(&["details", "causes"]).and_then(Value::as_array)?;
    let cause = causes.iter().find(|c| c.get("reason").and_then(Value::as_str) == Some("DisruptionBudget"))?;
    let message = cause.get("message").and_then(Value::as_str)?;
    let rest = message.strip_prefix("The disruption budget ")?;
    rest.split_whitespace().next().map(str::to_owned)
}

/// What is wrong with a page of the pods list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrainError {
    Missing(&'static str),
}

impl Localized for DrainError {
    fn text(&self) -> Text {
        match self {
            DrainError::Missing(field) => Text::new(Msg::OpMissingField).with("field", field),
        }
    }
}

crate::localized_display!(DrainError);
crate::localized_display!(Refusal);

impl Localized for Refusal {
    fn text(&self) -> Text {
        Text::new(match self {
            Refusal::DaemonSet => Msg::OpDrainDaemonSet,
            Refusal::LocalStorage => Msg::OpDrainLocalStorage,
            Refusal::Unmanaged => Msg::OpDrainUnmanaged,
        })
    }
}
