use super::*;
use kube_wire::discovery::Scope;
use kube_wire::testdata::resource_type;

fn plan(mode: Mode) -> SessionPlan {
    SessionPlan {
        pods: resource_type("", "v1", "pods", Scope::Namespaced),
        namespace: "demo".to_owned(),
        pod: "web-1".to_owned(),
        container: "web".to_owned(),
        mode,
    }
}

fn shell() -> SessionPlan {
    plan(Mode::Exec { command: vec!["sh".to_owned()] })
}

const URL: &str = "ws://127.0.0.1:8001/api/v1/namespaces/demo/pods/web-1/exec?command=sh&container=web&stdin=true&stdout=true&stderr=true&tty=true";

fn upgrade_required() -> Input {
    Input::Probed(Ok(ProbeAnswer {
        status: 400,
        content_type: Some("application/json".to_owned()),
        body: br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Upgrade request required","reason":"BadRequest","code":400}"#.to_vec(),
    }))
}

fn message(channel: u8, data: &[u8]) -> Input {
    let mut bytes = vec![channel];
    bytes.extend_from_slice(data);
    Input::Message(bytes)
}

fn send(channel: u8, data: &[u8]) -> Action {
    let mut bytes = vec![channel];
    bytes.extend_from_slice(data);
    Action::Send(bytes)
}

/// Feeds `inputs` one after another; answers every step's actions and the phase at the end.
fn run(session: &mut Session, inputs: Vec<Input>) -> Vec<Vec<Action>> {
    inputs.into_iter().map(|input| session.step(input)).collect()
}

#[test]
fn a_shell_session_probes_opens_resizes_types_and_ends_with_the_exit_code() {
    let mut session = Session::new(shell(), "http://127.0.0.1:8001");
    let transcript = run(
        &mut session,
        vec![
            Input::Resized { cols: 80, rows: 24 },
            Input::Start,
            upgrade_required(),
            Input::Opened { protocol: "v5.channel.k8s.io".to_owned() },
            message(1, b""),
            message(1, b"/ # "),
            Input::Typed(b"echo hi\r".to_vec()),
            Input::Resized { cols: 100, rows: 30 },
            Input::Resized { cols: 100, rows: 30 },
            message(1, b"echo hi\r\nhi\r\n"),
            Input::Typed(b"exit 3\r".to_vec()),
            message(3, br#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#),
            Input::Closed { code: 1000, reason: String::new() },
            Input::Typed(b"ignored".to_vec()),
        ],
    );
    let request = shell().request().expect("request");
    assert_eq!(
        transcript,
        vec![
            vec![],
            vec![Action::Probe(request)],
            vec![Action::Open { url: URL.to_owned(), protocols: vec!["v5.channel.k8s.io", "v4.channel.k8s.io"] }],
            vec![send(4, br#"{"Width":80,"Height":24}"#)],
            vec![],
            vec![Action::Show(b"/ # ".to_vec())],
            vec![send(0, b"echo hi\r")],
            vec![send(4, br#"{"Width":100,"Height":30}"#)],
            vec![],
            vec![Action::Show(b"echo hi\r\nhi\r\n".to_vec())],
            vec![send(0, b"exit 3\r")],
            vec![],
            vec![],
            vec![],
        ]
    );
    match session.phase() {
        Phase::Ended(ending) => assert_eq!(ending.exit_code(), Some(3)),
        other => panic!("expected the end, found {other:?}"),
    }
}

#[test]
fn reconnecting_starts_again_from_the_probe() {
    let mut session = Session::new(shell(), "http://127.0.0.1:8001");
    run(&mut session, vec![Input::Start, upgrade_required(), Input::Opened { protocol: "v4.channel.k8s.io".into() }]);
    assert_eq!(session.phase(), &Phase::Open { protocol: Protocol::V4 });
    // A second Start while connected does nothing; Stop closes (v4 has no stdin close).
    assert_eq!(session.step(Input::Start), vec![]);
    assert_eq!(session.step(Input::Stop), vec![Action::Close]);
    assert_eq!(session.phase(), &Phase::Closed);
    // The close event that follows keeps the user's Closed.
    session.step(Input::Closed { code: 1005, reason: String::new() });
    assert_eq!(session.phase(), &Phase::Closed);
    assert!(matches!(session.step(Input::Start).as_slice(), [Action::Probe(_)]));
    assert_eq!(session.phase(), &Phase::Checking);
}

#[test]
fn v5_closes_stdin_before_the_socket_when_the_user_stops() {
    let mut session = Session::new(shell(), "https://k8s.example.com/prefix");
    run(&mut session, vec![Input::Start, upgrade_required()]);
    assert_eq!(
        session.url(),
        Ok("wss://k8s.example.com/prefix/api/v1/namespaces/demo/pods/web-1/exec?command=sh&container=web&stdin=true&stdout=true&stderr=true&tty=true")
    );
    session.step(Input::Opened { protocol: "v5.channel.k8s.io".into() });
    assert_eq!(session.step(Input::Stop), vec![Action::Send(vec![255, 0]), Action::Close]);
}

#[test]
fn the_proxys_refusal_and_the_apis_are_told_apart() {
    let proxy = ProbeAnswer {
        status: 403,
        content_type: Some("text/plain; charset=utf-8".into()),
        body: b"Forbidden\n".to_vec(),
    };
    assert_eq!(read_probe(&proxy), Err(TerminalError::ProxyRefused));
    let rbac = ProbeAnswer {
        status: 403,
        content_type: Some("application/json".into()),
        body: br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"web-1\" is forbidden: User \"viewer\" cannot get resource \"pods/exec\"","reason":"Forbidden","code":403}"#.to_vec(),
    };
    assert!(
        matches!(read_probe(&rbac), Err(TerminalError::Refused { code: 403, ref reason, .. }) if reason == "Forbidden")
    );
    let container = ProbeAnswer {
        status: 400,
        content_type: Some("application/json".into()),
        body: br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"container x is not valid for pod web-1","reason":"BadRequest","code":400}"#.to_vec(),
    };
    assert!(matches!(read_probe(&container), Err(TerminalError::Refused { code: 400, .. })));
    let gateway = ProbeAnswer { status: 502, content_type: None, body: b"Bad Gateway".to_vec() };
    assert_eq!(read_probe(&gateway), Err(TerminalError::UnexpectedProbe { status: 502, body: "Bad Gateway".into() }));
    // A 403 with another body is not taken for the proxy's.
    let other = ProbeAnswer { status: 403, content_type: Some("text/html".into()), body: b"<h1>no</h1>".to_vec() };
    assert!(matches!(read_probe(&other), Err(TerminalError::UnexpectedProbe { status: 403, .. })));

    let mut session = Session::new(shell(), "");
    session.step(Input::Start);
    assert_eq!(session.step(Input::Probed(Ok(proxy))), vec![]);
    assert_eq!(session.phase(), &Phase::Failed(TerminalError::ProxyRefused));
    // Nothing typed reaches a failed session, and it can be started again.
    assert_eq!(session.step(Input::Typed(b"x".to_vec())), vec![]);
    assert!(matches!(session.step(Input::Start).as_slice(), [Action::Probe(_)]));
    // The client's reason, as a catalogue text (shown in the reader's language).
    let network = Text::new(Msg::NetworkFailureWith).with("error", "Failed to fetch");
    session.step(Input::Probed(Err(network.clone())));
    assert_eq!(session.phase(), &Phase::Failed(TerminalError::NotSent(network.clone())));
    let shown = TerminalError::NotSent(network).text();
    assert_eq!(
        (shown.msg, &shown.args[0].1),
        (
            Msg::NotSentError,
            &crate::i18n::Arg::Text(Text::new(Msg::NetworkFailureWith).with("error", "Failed to fetch"))
        )
    );
}

#[test]
fn a_socket_that_never_opens_or_speaks_wrongly_fails_with_the_reason() {
    let mut session = Session::new(shell(), "http://h");
    run(&mut session, vec![Input::Start, upgrade_required(), Input::Closed { code: 1006, reason: String::new() }]);
    assert_eq!(session.phase(), &Phase::Failed(TerminalError::HandshakeFailed { code: 1006 }));

    let mut session = Session::new(shell(), "http://h");
    let steps = run(&mut session, vec![Input::Start, upgrade_required(), Input::Opened { protocol: String::new() }]);
    assert_eq!(steps[2], vec![Action::Close]);
    assert_eq!(session.phase(), &Phase::Failed(TerminalError::Protocol(ChannelError::NotNegotiated(String::new()))));

    let mut session = Session::new(shell(), "http://h");
    run(&mut session, vec![Input::Start, upgrade_required(), Input::Opened { protocol: "v5.channel.k8s.io".into() }]);
    assert_eq!(session.step(message(7, b"?")), vec![Action::Close]);
    assert_eq!(session.phase(), &Phase::Failed(TerminalError::Protocol(ChannelError::UnknownChannel(7))));

    // Closed while open without the error channel's Status.
    let mut session = Session::new(shell(), "http://h");
    run(&mut session, vec![Input::Start, upgrade_required(), Input::Opened { protocol: "v5.channel.k8s.io".into() }]);
    session.step(Input::Closed { code: 1006, reason: String::new() });
    assert_eq!(session.phase(), &Phase::Failed(TerminalError::ClosedEarly { code: 1006, reason: String::new() }));
}

#[test]
fn attach_has_no_command_and_success_is_exit_code_0() {
    let attach = plan(Mode::Attach);
    assert_eq!(
        attach.request().expect("request").path_and_query(),
        "/api/v1/namespaces/demo/pods/web-1/attach?container=web&stdin=true&stdout=true&stderr=true&tty=true"
    );
    assert_eq!(attach.kubectl(), "kubectl attach -it -n demo web-1 -c web");
    let mut session = Session::new(attach, "http://h");
    run(
        &mut session,
        vec![
            Input::Start,
            upgrade_required(),
            Input::Opened { protocol: "v5.channel.k8s.io".into() },
            message(3, br#"{"metadata":{},"status":"Success"}"#),
            Input::Closed { code: 1000, reason: String::new() },
        ],
    );
    assert_eq!(session.phase(), &Phase::Ended(Ending::Success));
}

#[test]
fn the_kubectl_line_quotes_what_a_shell_would_split() {
    let plan = plan(Mode::Exec { command: parse_command(r#"sh -c 'echo "$HOME"; exit 3'"#).expect("words") });
    assert_eq!(plan.kubectl(), r#"kubectl exec -it -n demo web-1 -c web -- sh -c 'echo "$HOME"; exit 3'"#);
    assert_eq!(
        plan.request().expect("request").path_and_query(),
        "/api/v1/namespaces/demo/pods/web-1/exec?command=sh&command=-c&command=echo+%22%24HOME%22%3B+exit+3&container=web&stdin=true&stdout=true&stderr=true&tty=true"
    );
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
}

#[test]
fn command_lines_split_as_a_shell_splits_them() {
    let check = |line: &str, words: &[&str]| {
        assert_eq!(parse_command(line), Ok(words.iter().map(|w| w.to_string()).collect()), "{line}")
    };
    check("sh", &["sh"]);
    check("  bash   -l ", &["bash", "-l"]);
    check(r#"sh -c "echo \"hi\"""#, &["sh", "-c", r#"echo "hi""#]);
    check(r"echo a\ b ''", &["echo", "a b", ""]);
    assert_eq!(parse_command("   "), Err(CommandError::Empty));
    assert_eq!(parse_command("sh -c 'echo"), Err(CommandError::UnclosedQuote('\'')));
    // A name the path cannot hold is refused before anything is sent.
    let mut bad = shell();
    bad.pod = "a/b".to_owned();
    let mut session = Session::new(bad, "http://h");
    assert_eq!(session.step(Input::Start), vec![]);
    assert!(matches!(session.phase(), Phase::Failed(TerminalError::NotSent(_))));
}

#[test]
fn the_containers_and_the_default_one_come_from_the_pod() {
    let pod = kube_wire::codec::json::decode_json(
        br#"{"metadata":{"annotations":{"kubectl.kubernetes.io/default-container":"app"}},
            "spec":{"initContainers":[{"name":"init"}],"containers":[{"name":"sidecar"},{"name":"app"}],
            "ephemeralContainers":[{"name":"debugger"}]}}"#,
    )
    .expect("json");
    assert_eq!(containers_of(&pod), ["sidecar", "app", "debugger"]);
    assert_eq!(default_container(&pod).as_deref(), Some("app"));
    let plain = kube_wire::codec::json::decode_json(br#"{"spec":{"containers":[{"name":"web"}]}}"#).expect("json");
    assert_eq!(default_container(&plain).as_deref(), Some("web"));
    let unknown = kube_wire::codec::json::decode_json(
        br#"{"metadata":{"annotations":{"kubectl.kubernetes.io/default-container":"gone"}},"spec":{"containers":[{"name":"web"}]}}"#,
    )
    .expect("json");
    assert_eq!(default_container(&unknown).as_deref(), Some("web"));
}

#[test]
fn only_a_core_pods_exec_and_attach_open_a_terminal() {
    let pods = resource_type("", "v1", "pods", Scope::Namespaced);
    assert!(opens_terminal(&pods, "exec"));
    assert!(opens_terminal(&pods, "attach"));
    assert!(!opens_terminal(&pods, "log"));
    assert!(!opens_terminal(&pods, "portforward"));
    let other = resource_type("example.com", "v1", "pods", Scope::Namespaced);
    assert!(!opens_terminal(&other, "exec"));
}
