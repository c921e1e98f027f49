use super::*;

fn clock() -> Box<dyn Fn() -> DateTime<Utc> + Send> {
    Box::new(|| chrono::DateTime::parse_from_rfc3339("2026-11-04T10:00:05Z").unwrap().with_timezone(&Utc))
}

fn container() -> Container {
    let mut c =
        Container { hostname: "web-1".into(), env: vec![("MODE".into(), "demo".into())], ..Container::default() };
    c.files.insert("/etc/hostname".into(), b"web-1\n".to_vec());
    c.started = Some("2026-11-04T08:58:05Z".into());
    c
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
    assert_eq!(transcript(&start(&["sh", "-c", "nope"], false).1), ["err:sh: nope: command not found\n", "exit:127"]);
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
        transcript(&p.input(b"echo a &\n")),
        ["err:sh: `&' (a background job) is not simulated (kube-sim's shell runs pipelines, for, while and until loops and redirections)\n"]
    );
    assert_eq!(transcript(&p.close_stdin()), ["exit:2"]);
}

/// `sh -c SCRIPT` run to its end (no sleeps): its stdout, its stderr, its exit code.
fn script(text: &str) -> (String, String, i32) {
    let (_, effects) = start(&["sh", "-c", text], false);
    let (mut out, mut err, mut code) = (String::new(), String::new(), None);
    for e in effects {
        match e {
            Effect::Stdout(b) => out.push_str(&String::from_utf8_lossy(&b)),
            Effect::Stderr(b) => err.push_str(&String::from_utf8_lossy(&b)),
            Effect::Exit(c) => code = Some(c),
            Effect::Sleep(_) => panic!("{text}: sleeps"),
        }
    }
    (out, err, code.unwrap_or_else(|| panic!("{text}: did not exit")))
}

fn out(text: &str) -> String {
    script(text).0
}

#[test]
fn a_command_substitution_is_its_output_split_into_fields() {
    assert_eq!(out("for i in $(seq 1 3); do date; done"), "Wed Nov  4 10:00:05 UTC 2026\n".repeat(3));
    assert_eq!(out("echo $(echo a   b)"), "a b\n", "unquoted: split");
    assert_eq!(out(r#"echo "$(echo 'a   b')""#), "a   b\n", "quoted: kept");
    assert_eq!(out(r#"echo $(echo 'a   b')"#), "a b\n", "unquoted: split");
    assert_eq!(out(r#"echo "[$(printf 'a\n\n')]""#), "[a]\n", "trailing newlines removed");
    assert_eq!(out("echo $(echo $(echo deep))"), "deep\n");
    assert_eq!(out("false; echo $? $(exit 3) $?"), "1 3\n", "bash: $? is the substitution's after it");
    assert_eq!(out("echo $(echo a; exit 3; echo b) $?"), "a 3\n", "exit leaves the substitution only");
    assert_eq!(script("echo $(echo err >&2)"), ("\n".into(), "err\n".into(), 0), "stderr is not captured");
    assert_eq!(script("$(exit 4)"), (String::new(), String::new(), 4), "a command of nothing keeps its status");
    let (mut p, effects) = start(&["sh", "-c", "echo $(sleep 1; echo late) now"], false);
    assert_eq!(transcript(&effects), ["sleep:1000"]);
    assert_eq!(transcript(&p.wake()), ["out:late now\n", "exit:0"]);
}

#[test]
fn a_for_loop_runs_its_body_for_each_field() {
    assert_eq!(out(r#"for i in a "b c"; do echo "[$i]"; done"#), "[a]\n[b c]\n");
    assert_eq!(out("for i in 1 2; do for j in x y; do echo $i$j; done; done"), "1x\n1y\n2x\n2y\n");
    assert_eq!(out("false; for i in; do echo no; done; echo $?"), "0\n", "no iteration: status 0");
    assert_eq!(out("for i; do echo $i; done; echo none"), "none\n", "no positional parameters");
    assert_eq!(out("for i in 1 2; do echo $i; done > /dev/null; echo $i"), "2\n", "the variable stays set");
    assert_eq!(script("for i in 1 2; do echo $i; exit 4; done; echo no"), ("1\n".into(), String::new(), 4));
    assert_eq!(out("for i in 1 2 3; do false; done || echo failed"), "failed\n");
    let (mut p, effects) = start(&["sh", "-c", "for i in 1 2; do echo $i; sleep 1; done"], false);
    assert_eq!(transcript(&effects), ["out:1\n", "sleep:1000"]);
    assert_eq!(transcript(&p.wake()), ["out:2\n", "sleep:1000"]);
    assert_eq!(transcript(&p.wake()), ["exit:0"]);
}

#[test]
fn a_pipeline_feeds_each_output_to_the_next_and_ends_with_the_last_status() {
    let (_, effects) = start(&["/bin/sh", "-c", r#"echo -n "This is a test string" | gzip"#], false);
    let Effect::Stdout(zipped) = &effects[0] else { panic!("{effects:?}") };
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&zipped[..]), &mut text).expect("gzip");
    assert_eq!(text, "This is a test string");
    assert_eq!(effects[1], Effect::Exit(0));
    assert_eq!(out("echo hi | cat | cat"), "hi\n");
    assert_eq!(out("seq 1 3 | gzip | gunzip"), "1\n2\n3\n");
    assert_eq!(out("printf 'echo one\\necho two\\n' | sh"), "one\ntwo\n", "a shell reads its lines from a pipe");
    assert_eq!(out("false | true; echo $?; true | false; echo $?"), "0\n1\n");
    assert_eq!(
        script("ls /nope 2>&1 | cat"),
        ("ls: cannot access '/nope': No such file or directory\n".into(), String::new(), 0)
    );
    assert_eq!(script("echo a | exit 3; echo $?"), ("3\n".into(), String::new(), 0), "each stage is a subshell");
    let (mut p, effects) = start(&["sh", "-c", "cat | gzip -d"], false);
    assert!(effects.is_empty());
    p.input(&crate::exec::coreutils::gzip(b"from stdin", 6));
    assert_eq!(transcript(&p.close_stdin()), ["out:from stdin", "exit:0"]);
}

#[test]
fn redirections_send_output_where_bash_sends_it() {
    assert_eq!(script("echo test string 2 >&2"), (String::new(), "test string 2\n".into(), 0));
    assert_eq!(script("echo x 2>&1 >/dev/null"), (String::new(), String::new(), 0));
    assert_eq!(script("nope 2>/dev/null; echo $?"), ("127\n".into(), String::new(), 0));
    assert_eq!(script("echo hi >/dev/stderr"), (String::new(), "hi\n".into(), 0));
    assert_eq!(script("nope &>/dev/null || echo $?"), ("127\n".into(), String::new(), 0));
    assert_eq!(script("cat < /etc/hostname"), ("web-1\n".into(), String::new(), 0));
    assert_eq!(
        script("echo hi > /proc/x; echo $?"),
        ("1\n".into(), "sh: /proc/x: Read-only file system\n".into(), 0),
        "the command does not run"
    );
    assert_eq!(script("echo > /nope/x"), (String::new(), "sh: /nope/x: No such file or directory\n".into(), 1));
    assert_eq!(script("echo > /tmp"), (String::new(), "sh: /tmp: Is a directory\n".into(), 1));
    assert_eq!(script("cat < /nope"), (String::new(), "sh: /nope: No such file or directory\n".into(), 1));
    assert_eq!(script("echo a >&3"), (String::new(), "sh: 3: Bad file descriptor\n".into(), 1));
    assert_eq!(script("cd /etc; echo > $MODE$MODE; ls"), ("demodemo\nhostname\n".into(), String::new(), 0));
    assert_eq!(script("echo > $(echo a b)"), (String::new(), "sh: ambiguous redirect\n".into(), 1));
}

#[test]
fn a_file_written_is_there_for_the_commands_after_it() {
    assert_eq!(
        script("echo hi > /tmp/x; cat /tmp/x; echo b >> /tmp/x; cat /tmp/x; echo new > /tmp/x; cat < /tmp/x"),
        ("hi\nhi\nb\nnew\n".into(), String::new(), 0)
    );
    assert_eq!(script("cd /tmp && nope 2> err; cat err"), ("sh: nope: command not found\n".into(), String::new(), 0));
    assert_eq!(
        script("echo a > /tmp/f 2>&1; ls /tmp; tar cf - -C /tmp f | cat > /dev/null"),
        ("f\n".into(), String::new(), 0)
    );
    // A mounted ConfigMap is read-only, as the kubelet mounts it.
    let mut c = container();
    c.files.insert("/etc/config/mode".into(), b"demo\n".to_vec());
    c.read_only.push("/etc/config".into());
    let argv =
        ["sh", "-c", "echo x > /etc/config/mode; echo y > /etc/config/new; cat /etc/config/mode"].map(String::from);
    let (_, effects) = Process::start(c, &argv, false, clock());
    assert_eq!(
        transcript(&effects),
        [
            "err:sh: /etc/config/mode: Read-only file system\nsh: /etc/config/new: Read-only file system\n",
            "out:demo\n",
            "exit:0"
        ]
    );
}

#[test]
fn while_and_until_loops_run_their_body_while_the_condition_holds() {
    assert_eq!(script("while false; do echo never; done; echo $?"), ("0\n".into(), String::new(), 0));
    // The condition's output is the loop's; the loop's status is its body's last.
    assert_eq!(
        script("until cat /tmp/done 2>/dev/null; do echo turn > /tmp/done; nope 2>/dev/null; done; echo $?"),
        ("turn\n127\n".into(), String::new(), 0)
    );
    let (mut p, effects) = start(&["sh", "-c", "while true;do echo 'this is a test';sleep 5; done"], false);
    assert_eq!(transcript(&effects), ["out:this is a test\n", "sleep:5000"]);
    assert_eq!(transcript(&p.wake()), ["out:this is a test\n", "sleep:5000"]);
    assert_eq!(words::parse("while; do :; done").unwrap_err().0, "syntax error near unexpected token `;'");
    assert_eq!(words::parse("while true; do done").unwrap_err().0, "syntax error near unexpected token `done'");
    assert_eq!(words::parse("for i in a; do done").unwrap_err().0, "syntax error near unexpected token `done'");
    assert_eq!(words::parse("while true; do echo").unwrap_err().0, "syntax error: unexpected end of file");
}

#[test]
fn a_busy_loop_pauses_so_that_it_cannot_hold_its_thread() {
    let (mut p, effects) = start(&["sh", "-c", "while true; do true; done"], false);
    assert_eq!(transcript(&effects), ["sleep:0"]);
    assert!(p.sleeping());
    assert_eq!(transcript(&p.wake()), ["sleep:0"], "it goes on where it paused");
    let (mut p, _) = start(&["sh"], true);
    assert_eq!(transcript(&p.input(b"while true; do true; done\r")).last().map(String::as_str), Some("sleep:0"));
    assert_eq!(transcript(&p.input(b"\x03")), ["out:^C\r\n/ # "], "Ctrl-C stops it");
    assert!(transcript(&p.input(b"echo $?\r")).concat().ends_with("130\r\n/ # "));
}

#[test]
fn an_interactive_shell_writes_each_stream_on_its_channel() {
    let (mut p, _) = start(&["/bin/sh"], false);
    assert_eq!(transcript(&p.input(b"echo test string 1\n")), ["out:test string 1\n"]);
    assert_eq!(transcript(&p.input(b"echo test string 2 >&2\n")), ["err:test string 2\n"]);
    assert_eq!(transcript(&p.input(b"exit\n")), ["exit:0"]);
}

#[test]
fn ctrl_c_stops_a_loop_and_its_pipeline() {
    let (mut p, _) = start(&["sh"], true);
    p.input(b"for i in 1 2 3; do sleep 5; done | cat\r");
    assert!(p.sleeping());
    assert_eq!(transcript(&p.input(b"\x03")), ["out:^C\r\n/ # "]);
    assert!(transcript(&p.input(b"echo $?\r")).concat().ends_with("130\r\n/ # "));
}

#[test]
fn uptime_and_gzip_on_a_terminal_answer_as_their_programs() {
    assert_eq!(out("uptime"), " 10:00:05 up  1:02,  0 user,  load average: 0.00, 0.00, 0.00\n");
    let (_, effects) = start(&["gzip"], true);
    assert_eq!(
        transcript(&effects),
        [
            "out:gzip: compressed data not written to a terminal. Use -f to force compression.\r\nFor help, type: gzip -h\r\n",
            "exit:1"
        ]
    );
}
