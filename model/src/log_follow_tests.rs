//! Transcripts of [`LogFollow`]: the inputs in order, and the actions and state each answers.

use super::*;
use crate::i18n::Msg;
use kube_wire::discovery::Scope;
use kube_wire::testdata::resource_type;

fn pod(restarts: i64) -> Value {
    Value::from_serde_json(&serde_json::json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "demo"},
        "spec": {"containers": [{"name": "app"}, {"name": "sidecar"}], "initContainers": [{"name": "setup"}]},
        "status": {"containerStatuses": [{"name": "app", "restartCount": restarts}, {"name": "sidecar", "restartCount": 0}]}
    }))
}

fn machine(cap: usize) -> LogFollow {
    let pods = resource_type("", "v1", "pods", Scope::Namespaced);
    LogFollow::new(LogSource::of_pod(pods, Some("demo".into()), "web-1".into(), &pod(0)), cap)
}

fn ask(container: &str, follow: bool) -> LogAsk {
    LogAsk::of_form(container.into(), follow, false, "", "100")
}

fn status(code: u16, message: &str) -> LogFailure {
    LogFailure::Status(Box::new(
        serde_json::from_value(serde_json::json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": "BadRequest", "code": code,
        }))
        .expect("a Status"),
    ))
}

/// A step as lines: each action (the request's path and query without the pod's prefix), and
/// the redraw.
fn show(step: &Step) -> Vec<String> {
    let mut lines: Vec<String> = step
        .actions
        .iter()
        .map(|action| match action {
            Action::Read { id, request } | Action::Follow { id, request } => {
                let verb = if matches!(action, Action::Read { .. }) { "read" } else { "follow" };
                let path = request.path_and_query();
                let short = path.strip_prefix("/api/v1/namespaces/demo/pods/web-1/").unwrap_or(&path).to_owned();
                format!("{verb} #{} {} {short}", id.0, request.method().as_str())
            }
            Action::Wait { id, ms } => format!("wait #{} {ms}ms", id.0),
            Action::Close { id } => format!("close #{}", id.0),
        })
        .collect();
    lines.push(format!("redraw {:?}", step.redraw));
    lines
}

/// The state: each container's phase, then the lines shown (and the held count while paused).
fn state(m: &LogFollow) -> String {
    let phases: Vec<String> = m.phases().map(|(c, p)| format!("{c}: {p:?}")).collect();
    let lines: Vec<String> = m.shown().lines().map(|l| format!("{}|{}", l.container, l.text)).collect();
    let held = m.held().map(|n| format!(" held {n}")).unwrap_or_default();
    format!("{} / {}{held}", phases.join(", "), lines.join(" "))
}

fn chunk(id: u64, text: &str) -> Input {
    Input::Chunk { id: ConnectionId(id), bytes: text.as_bytes().to_vec() }
}

const T1: &str = "2026-11-24T10:00:01.100Z";
const T2: &str = "2026-11-24T10:00:02.200Z";
const T3: &str = "2026-11-24T10:00:03.300Z";

#[test]
fn a_read_asks_for_stamped_lines_and_keeps_the_last_line_without_a_newline() {
    let mut m = machine(100);
    let step = m.step(Input::Start(ask("app", false)));
    assert_eq!(show(&step), ["read #0 GET log?container=app&tailLines=100&timestamps=true", "redraw Now"]);
    assert_eq!(state(&m), "app: Reading / ");
    let body = format!("{T1} one\n{T2} two\n{T3} three").into_bytes();
    let step = m.step(Input::Read { id: ConnectionId(0), body: Ok(body) });
    assert_eq!(show(&step), ["redraw Now"]);
    assert_eq!(state(&m), "app: Ended(Read { lines: 3 }) / app|one app|two app|three");
}

#[test]
fn a_refused_read_is_a_failure_with_the_status() {
    let mut m = machine(100);
    m.step(Input::Start(LogAsk::of_form("app".into(), false, true, " 30 ", "")));
    let step =
        m.step(Input::Read { id: ConnectionId(0), body: Err(status(400, "previous terminated container not found")) });
    assert_eq!(show(&step), ["redraw Now"]);
    assert!(matches!(m.phases().next(), Some(("app", Phase::Failed(LogFailure::Status(s)))) if s.code == 400));
}

#[test]
fn the_previous_run_and_since_seconds_go_on_the_request() {
    let mut m = machine(100);
    let step = m.step(Input::Start(LogAsk::of_form("app".into(), false, true, " 30 ", "")));
    assert_eq!(
        show(&step),
        ["read #0 GET log?container=app&previous=true&sinceSeconds=30&timestamps=true", "redraw Now"]
    );
    // A sinceSeconds of 0 or a word is none; a tailLines of 0 is asked for.
    let step = m.step(Input::Start(LogAsk::of_form("app".into(), false, false, "0", " 0")));
    // (The first read, still unanswered, is closed: its answer will not be heard.)
    assert_eq!(show(&step), ["close #0", "read #1 GET log?container=app&tailLines=0&timestamps=true", "redraw Now"]);
    assert_eq!(LogAsk::of_form("app".into(), false, false, "soon", "x").since_seconds, None);
}

#[test]
fn a_follow_keeps_a_line_split_across_chunks_whole() {
    let mut m = machine(100);
    let step = m.step(Input::Start(ask("app", true)));
    assert_eq!(
        show(&step),
        ["follow #0 GET log?container=app&follow=true&tailLines=100&timestamps=true", "redraw Now"]
    );
    assert_eq!(show(&m.step(Input::Opened { id: ConnectionId(0) })), ["redraw Now"]);
    assert_eq!(state(&m), "app: Following / ");
    assert_eq!(show(&m.step(chunk(0, &format!("{T1} one\n{T2} tw")))), ["redraw Soon"]);
    assert_eq!(state(&m), "app: Following / app|one");
    // The rest of the line, with nothing after it: no new line, nothing to draw.
    assert_eq!(show(&m.step(chunk(0, "o, then"))), ["redraw No"]);
    m.step(chunk(0, " more\n"));
    assert_eq!(state(&m), "app: Following / app|one app|two, then more");
}

#[test]
fn a_stream_that_ends_reconnects_from_since_time_and_skips_what_it_had() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n{T2} two\n{T2} two\n")));
    let step = m.step(Input::Closed { id: ConnectionId(0) });
    assert_eq!(show(&step), ["wait #1 1000ms", "redraw Now"]);
    assert_eq!(state(&m), "app: Reconnecting { attempt: 1, seconds: 1 } / app|one app|two app|two");
    let step = m.step(Input::Waited { id: ConnectionId(1) });
    // From the last line's second, without tailLines (it would cut what is new).
    assert_eq!(
        show(&step),
        [
            "follow #2 GET log?container=app&follow=true&sinceTime=2026-11-24T10%3A00%3A02Z&timestamps=true",
            "redraw Now"
        ]
    );
    assert_eq!(state(&m), "app: Following / app|one app|two app|two");
    m.step(Input::Opened { id: ConnectionId(2) });
    // The server sends that second again: an earlier line of it, the two lines kept, then a
    // third `two` of the same time (new: it was not kept) and a later line.
    m.step(chunk(2, &format!("2026-11-24T10:00:02.000Z zero\n{T2} two\n{T2} two\n{T2} two\n{T3} three\n")));
    assert_eq!(state(&m), "app: Following / app|one app|two app|two app|two app|three");
}

#[test]
fn a_cut_stream_backs_off_while_nothing_new_arrives_and_a_new_line_resets_it() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n")));
    let mut waits = Vec::new();
    let mut id = 0;
    for _ in 0..6 {
        let step = m.step(Input::Closed { id: ConnectionId(id) });
        let Some(Action::Wait { id: wait, ms }) = step.actions.first().cloned() else { panic!("{step:?}") };
        waits.push(ms);
        let step = m.step(Input::Waited { id: wait });
        let Some(Action::Follow { id: next, .. }) = step.actions.first().cloned() else { panic!("{step:?}") };
        id = next.0;
        // Opened, and only the line it had comes again.
        m.step(Input::Opened { id: next });
        m.step(chunk(id, &format!("{T1} one\n")));
    }
    assert_eq!(waits, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    assert_eq!(state(&m), "app: Following / app|one");
    m.step(chunk(id, &format!("{T2} two\n")));
    let step = m.step(Input::Closed { id: ConnectionId(id) });
    assert!(matches!(step.actions[..], [Action::Wait { ms: 1_000, .. }]), "{step:?}");
}

#[test]
fn a_line_cut_off_by_a_drop_comes_again_whole_and_once() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n{T2} half of a li")));
    m.step(Input::Closed { id: ConnectionId(0) });
    m.step(Input::Waited { id: ConnectionId(1) });
    m.step(Input::Opened { id: ConnectionId(2) });
    m.step(chunk(2, &format!("{T1} one\n{T2} half of a line\n")));
    assert_eq!(state(&m), "app: Following / app|one app|half of a line");
}

#[test]
fn a_refused_reconnection_ends_the_follow_and_keeps_the_lines() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n")));
    m.step(Input::Closed { id: ConnectionId(0) });
    m.step(Input::Waited { id: ConnectionId(1) });
    let step = m.step(Input::Refused { id: ConnectionId(2), failure: status(404, "pods \"web-1\" not found") });
    assert_eq!(show(&step), ["redraw Now"]);
    assert!(matches!(m.phases().next(), Some((_, Phase::Ended(Ended::Stopped(LogFailure::Status(_)))))));
    assert_eq!(m.shown().len(), 1);
    // Nothing more is heard from it.
    assert_eq!(show(&m.step(Input::Closed { id: ConnectionId(2) })), ["redraw No"]);
}

#[test]
fn a_refused_first_follow_is_a_failure_and_so_is_a_refused_restart_without_lines() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    let refused = LogFailure::Unanswered(Text::new(Msg::ServerRefusedLog));
    m.step(Input::Refused { id: ConnectionId(0), failure: refused.clone() });
    assert_eq!(m.phases().next(), Some(("app", &Phase::Failed(refused.clone()))));
    // A follow that dropped before any stamped line starts over (tailLines again): a refusal
    // then is a failure too.
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(1) });
    m.step(Input::Closed { id: ConnectionId(1) });
    let step = m.step(Input::Waited { id: ConnectionId(2) });
    assert_eq!(
        show(&step),
        ["follow #3 GET log?container=app&follow=true&tailLines=100&timestamps=true", "redraw Now"]
    );
    m.step(Input::Refused { id: ConnectionId(3), failure: refused.clone() });
    assert_eq!(m.phases().next(), Some(("app", &Phase::Failed(refused))));
}

#[test]
fn the_buffer_keeps_the_newest_lines_up_to_its_cap() {
    let mut m = machine(2);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n{T2} two\n{T3} three\n")));
    assert_eq!(state(&m), "app: Following / app|two app|three");
    assert_eq!((m.shown().dropped(), m.shown().total()), (1, 3));
}

#[test]
fn a_pause_holds_what_is_shown_while_lines_keep_coming() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n")));
    assert_eq!(show(&m.step(Input::Pause(true))), ["redraw Now"]);
    m.step(chunk(0, &format!("{T2} two\n{T3} three\n")));
    assert_eq!(state(&m), "app: Following / app|one held 2");
    // Pausing again changes nothing held.
    m.step(Input::Pause(true));
    assert_eq!(m.held(), Some(2));
    m.step(Input::Pause(false));
    assert_eq!(state(&m), "app: Following / app|one app|two app|three");
}

#[test]
fn switching_container_closes_the_last_run_and_ignores_what_it_still_sends() {
    let mut m = machine(100);
    m.step(Input::Start(ask("app", true)));
    m.step(Input::Opened { id: ConnectionId(0) });
    m.step(chunk(0, &format!("{T1} one\n")));
    m.step(Input::Pause(true));
    let step = m.step(Input::Start(ask("sidecar", true)));
    assert_eq!(
        show(&step),
        ["close #0", "follow #1 GET log?container=sidecar&follow=true&tailLines=100&timestamps=true", "redraw Now"]
    );
    assert_eq!(state(&m), "sidecar: Reading / ");
    assert_eq!(show(&m.step(chunk(0, &format!("{T2} late\n")))), ["redraw No"]);
    assert_eq!(show(&m.step(Input::Closed { id: ConnectionId(0) })), ["redraw No"]);
    // A run waiting to reconnect closes its wait.
    m.step(Input::Closed { id: ConnectionId(1) });
    assert_eq!(show(&m.step(Input::Start(ask("app", false))))[0], "close #2");
    assert_eq!(show(&m.step(Input::Waited { id: ConnectionId(2) })), ["redraw No"]);
}

#[test]
fn all_containers_are_read_side_by_side_and_interleaved_by_time() {
    let mut m = machine(100);
    let step = m.step(Input::Start(ask(ALL_CONTAINERS, false)));
    assert_eq!(
        show(&step),
        [
            "read #0 GET log?container=app&tailLines=100&timestamps=true",
            "read #1 GET log?container=sidecar&tailLines=100&timestamps=true",
            "redraw Now"
        ]
    );
    assert!(m.interleaved());
    m.step(Input::Read { id: ConnectionId(1), body: Ok(format!("{T2} s2\n").into_bytes()) });
    m.step(Input::Read { id: ConnectionId(0), body: Ok(format!("{T1} a1\n{T3} a3\n").into_bytes()) });
    assert_eq!(
        state(&m),
        "app: Ended(Read { lines: 2 }), sidecar: Ended(Read { lines: 1 }) / app|a1 sidecar|s2 app|a3"
    );
}

#[test]
fn a_name_the_api_refuses_fails_without_a_request() {
    let pods = resource_type("", "v1", "pods", Scope::Namespaced);
    let mut m = LogFollow::new(LogSource::of_pod(pods, Some("demo".into()), "no/such".into(), &pod(0)), 100);
    let step = m.step(Input::Start(ask("app", true)));
    assert_eq!(show(&step), ["redraw Now"]);
    assert!(matches!(m.phases().next(), Some((_, Phase::Failed(LogFailure::Request(_))))), "{}", state(&m));
}

#[test]
fn the_pod_document_gives_its_containers_and_which_have_a_previous_run() {
    let pods = resource_type("", "v1", "pods", Scope::Namespaced);
    let source = LogSource::of_pod(pods, None, "web-1".into(), &pod(2));
    let names: Vec<(&str, bool, i64)> =
        source.containers.iter().map(|c| (c.name.as_str(), c.init, c.restarts)).collect();
    assert_eq!(names, [("app", false, 2), ("sidecar", false, 0), ("setup", true, 0)]);
    assert_eq!(source.app_containers().collect::<Vec<_>>(), ["app", "sidecar"]);
    assert!(source.several());
    assert_eq!(source.first_choice(), "app");
    assert!(source.has_previous("app") && source.has_previous(ALL_CONTAINERS));
    assert!(!source.has_previous("sidecar"));
}
