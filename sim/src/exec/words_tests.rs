use super::*;

/// A simple command's words as text: `<NAME>` for `$NAME`, `$(N)` for a substitution of N
/// pipelines.
fn show(word: &Word) -> String {
    word.iter()
        .map(|p| match p {
            Part::Text(t) => t.clone(),
            Part::Var { name, .. } => format!("<{name}>"),
            Part::Command { script, .. } => format!("$({})", script.len()),
        })
        .collect()
}

fn texts(script: &str) -> Vec<(Join, Vec<String>)> {
    parse(script)
        .expect("parses")
        .into_iter()
        .map(|item| match &item.pipeline.0[..] {
            [Command::Simple { words, .. }] => (item.join, words.iter().map(show).collect()),
            other => panic!("not one simple command: {other:?}"),
        })
        .collect()
}

fn text(s: &str) -> Word {
    vec![Part::Text(s.into())]
}

fn simple(words: &[&str]) -> Command {
    Command::Simple { words: words.iter().map(|w| text(w)).collect(), redirects: Vec::new() }
}

fn one(command: Command) -> Item {
    Item { join: Join::Always, pipeline: Pipeline(vec![command]) }
}

#[test]
fn commands_split_on_separators_and_keep_their_joins() {
    assert_eq!(
        texts("echo a; false && echo b || echo c\nexit 3"),
        vec![
            (Join::Always, vec!["echo".into(), "a".into()]),
            (Join::Always, vec!["false".into()]),
            (Join::And, vec!["echo".into(), "b".into()]),
            (Join::Or, vec!["echo".into(), "c".into()]),
            (Join::Always, vec!["exit".into(), "3".into()]),
        ]
    );
    assert_eq!(texts("  ;; # a comment\n"), vec![]);
    assert_eq!(texts("true &&\n\n echo b").len(), 2, "newlines after && continue the list");
}

#[test]
fn quotes_and_variables_read_as_sh_reads_them() {
    assert_eq!(
        texts(r#"echo 'a $HOME' "b $HOME${X}c" d\ e $? "\$x""#),
        vec![(
            Join::Always,
            vec!["echo".into(), "a $HOME".into(), "b <HOME><X>c".into(), "d e".into(), "<?>".into(), "$x".into()]
        )]
    );
    assert_eq!(texts("echo ''"), vec![(Join::Always, vec!["echo".into(), "".into()])]);
    assert_eq!(texts("echo 5$"), vec![(Join::Always, vec!["echo".into(), "5$".into()])]);
    let quoted = &parse(r#"echo "$A" $B"#).expect("parses")[0].pipeline.0[0];
    let Command::Simple { words, .. } = quoted else { panic!("{quoted:?}") };
    assert_eq!(words[1][0], Part::Var { name: "A".into(), quoted: true });
    assert_eq!(words[2][0], Part::Var { name: "B".into(), quoted: false });
}

#[test]
fn a_for_loop_over_a_command_substitution_parses_into_its_parts() {
    let script = parse("for i in $(seq 1 3); do date; done").expect("parses");
    let seq = vec![one(simple(&["seq", "1", "3"]))];
    assert_eq!(
        script,
        vec![one(Command::For {
            var: "i".into(),
            items: Some(vec![vec![Part::Command { script: seq, quoted: false }]]),
            body: vec![one(simple(&["date"]))],
            redirects: Vec::new(),
        })]
    );
    let nested = parse("for a in x y\ndo\n  for b; do echo $a$b; done\ndone >/dev/null; echo after").expect("parses");
    assert_eq!(nested.len(), 2);
    let Command::For { items, body, redirects, .. } = &nested[0].pipeline.0[0] else { panic!("{nested:?}") };
    assert_eq!(items.as_ref().map(Vec::len), Some(2));
    assert!(matches!(&body[0].pipeline.0[0], Command::For { items: None, .. }));
    assert_eq!(redirects, &vec![Redirect::Write { fd: 1, file: text("/dev/null"), append: false }]);
    assert_eq!(
        texts("echo for done do in"),
        vec![(Join::Always, ["echo", "for", "done", "do", "in"].map(String::from).to_vec())]
    );
    let inner = parse(r#"echo "$(echo "a b" | cat)"x"#).expect("a quoted substitution with quotes inside");
    let Command::Simple { words, .. } = &inner[0].pipeline.0[0] else { panic!("{inner:?}") };
    assert!(matches!(&words[1][0], Part::Command { script, quoted: true } if script[0].pipeline.0.len() == 2));
    assert_eq!(words[1][1], Part::Text("x".into()));
}

#[test]
fn pipes_and_redirections_parse_in_order() {
    let script = parse(r#"echo -n "This is a test string" | gzip | cat"#).expect("parses");
    assert_eq!(
        script,
        vec![Item {
            join: Join::Always,
            pipeline: Pipeline(vec![
                simple(&["echo", "-n", "This is a test string"]),
                simple(&["gzip"]),
                simple(&["cat"])
            ])
        }]
    );
    let redirected = parse("echo test string 2 >&2 2>/dev/null >>log <in 3>&1 &>all").expect("parses");
    let Command::Simple { words, redirects } = &redirected[0].pipeline.0[0] else { panic!("{redirected:?}") };
    assert_eq!(words.len(), 4);
    assert_eq!(
        redirects,
        &vec![
            Redirect::Dup { fd: 1, to: 2 },
            Redirect::Write { fd: 2, file: text("/dev/null"), append: false },
            Redirect::Write { fd: 1, file: text("log"), append: true },
            Redirect::Read { fd: 0, file: text("in") },
            Redirect::Dup { fd: 3, to: 1 },
            Redirect::Write { fd: 1, file: text("all"), append: false },
            Redirect::Dup { fd: 2, to: 1 },
        ]
    );
    assert_eq!(parse("false || true | cat").expect("parses")[1].pipeline.0.len(), 2, "| binds tighter than ||");
    assert_eq!(texts("echo 2>x"), texts("echo 2>x"));
    let arg = parse("echo a2>x").expect("parses");
    let Command::Simple { words, redirects } = &arg[0].pipeline.0[0] else { panic!("{arg:?}") };
    assert_eq!((words.len(), redirects[0].clone()), (2, Redirect::Write { fd: 1, file: text("x"), append: false }));
}

#[test]
fn what_is_not_simulated_is_an_error_that_says_so() {
    for script in ["echo hi &", "(echo a)", "echo `date`", "echo $((1 + 2))", "if true; then date; fi", "echo >&-"] {
        assert!(parse(script).unwrap_err().0.contains("not simulated"), "{script}: {:?}", parse(script));
    }
    for (script, message) in [
        ("echo 'open", "unterminated"),
        ("&& echo", "unexpected token `&&'"),
        ("echo a &&", "unexpected end of file"),
        ("echo a |", "unexpected end of file"),
        ("echo $(date", "matching `)'"),
        ("for 1 in a; do echo; done", "`1': not a valid identifier"),
        ("for i in a; do echo $i", "unexpected end of file"),
        ("for i in a; echo $i; done", "unexpected token `echo'"),
        ("done", "unexpected token `done'"),
        ("echo >", "unexpected token `newline'"),
        ("echo a )", "not simulated"),
    ] {
        let error = parse(script).expect_err(script).0;
        assert!(error.contains(message), "{script}: {error}");
    }
}
