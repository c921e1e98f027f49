use super::*;

fn seq_of(args: &[&str]) -> (String, String, i32) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = seq(&args);
    (String::from_utf8(out.stdout).expect("text"), out.stderr, out.status)
}

fn lines(s: &str) -> (String, String, i32) {
    (s.into(), String::new(), 0)
}

/// Each case as Debian 12's coreutils 9.1 prints it.
#[test]
fn seq_counts_as_coreutils_does() {
    assert_eq!(seq_of(&["3"]), lines("1\n2\n3\n"));
    assert_eq!(seq_of(&["1", "3"]), lines("1\n2\n3\n"));
    assert_eq!(seq_of(&["3", "-1", "1"]), lines("3\n2\n1\n"));
    assert_eq!(seq_of(&["1", "0.5", "2"]), lines("1.0\n1.5\n2.0\n"));
    assert_eq!(seq_of(&["-s", ",", "1", "3"]), lines("1,2,3\n"));
    assert_eq!(seq_of(&["-w", "8", "10"]), lines("08\n09\n10\n"));
    assert_eq!(seq_of(&["5", "1"]), lines(""), "nothing to count");
    assert_eq!(seq_of(&["-2", "0"]), lines("-2\n-1\n0\n"), "a negative number is no option");
    assert_eq!(
        seq_of(&[]),
        (String::new(), "seq: missing operand\nTry 'seq --help' for more information.\n".into(), 1)
    );
    assert_eq!(seq_of(&["a"]).1, "seq: invalid floating point argument: 'a'\nTry 'seq --help' for more information.\n");
    assert_eq!(seq_of(&["1", "0", "2"]).1.lines().next(), Some("seq: invalid Zero increment value: '0'"));
    assert_eq!(seq_of(&["-x"]).2, 1);
}

#[test]
fn gzip_writes_a_gzip_stream_as_gnu_gzip_heads_it_and_reads_one_back() {
    let zipped = gzip(b"This is a test string", 6);
    // RFC 1952: magic, deflate, no flags, mtime 0, no extra flags, OS 3 (as `echo -n hi | gzip`).
    assert_eq!(zipped[..10], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    let mut text = String::new();
    flate2::read::GzDecoder::new(&zipped[..]).read_to_string(&mut text).expect("a gzip stream");
    assert_eq!(text, "This is a test string");
    let back = Filter::Gunzip.finish(&zipped, false);
    assert_eq!((back.stdout.as_slice(), back.status), (&b"This is a test string"[..], 0));
    let two = [gzip(b"a", 1), gzip(b"b", 9)].concat();
    assert_eq!(Filter::Gunzip.finish(&two, false).stdout, b"ab", "every member");
    assert_eq!(Filter::Gunzip.finish(b"plain", false).stderr, "gzip: stdin: not in gzip format\n");
    assert_eq!(Filter::Gunzip.finish(&zipped[..12], false).stderr, "gzip: stdin: unexpected end of file\n");
    assert_eq!(Filter::Gzip(6).finish(b"x", true).status, 1, "not to a terminal");
    assert_eq!(Filter::Cat.finish(b"as is", false).stdout, b"as is");
}

#[test]
fn gzip_options_and_files_read_from_the_mounts() {
    let read = |f: &str| (f == "conf").then(|| b"server {}\n".to_vec());
    let run = |name: &str, args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        gzip_command(name, &args, &read)
    };
    assert!(matches!(run("gzip", &[]), Gzip::Filter(Filter::Gzip(6))));
    assert!(matches!(run("gzip", &["-9c", "-"]), Gzip::Filter(Filter::Gzip(9))));
    assert!(matches!(run("gzip", &["-d"]), Gzip::Filter(Filter::Gunzip)));
    assert!(matches!(run("zcat", &[]), Gzip::Filter(Filter::Gunzip)));
    let Gzip::Done(out) = run("gzip", &["-c", "conf"]) else { panic!("a file") };
    assert_eq!(Filter::Gunzip.finish(&out.stdout, false).stdout, b"server {}\n");
    let Gzip::Done(out) = run("gzip", &["conf", "nope"]) else { panic!("files") };
    assert_eq!(
        (out.stderr.as_str(), out.status),
        ("gzip: conf.gz: Read-only file system\ngzip: nope: No such file or directory\n", 1)
    );
    let Gzip::Done(out) = run("gzip", &["-x"]) else { panic!("usage") };
    assert_eq!(out.stderr, "gzip: invalid option -- 'x'\nTry `gzip --help' for more information.\n");
}

#[test]
fn uptime_counts_from_the_boot_as_procps_prints_it() {
    let at = |s: &str| DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&Utc);
    let now = at("2026-11-04T10:00:05Z");
    assert_eq!(
        uptime(now, Some(at("2026-11-04T09:57:00Z"))),
        " 10:00:05 up 3 min,  0 user,  load average: 0.00, 0.00, 0.00\n"
    );
    assert_eq!(
        uptime(now, Some(at("2026-11-04T01:26:00Z"))),
        " 10:00:05 up  8:34,  0 user,  load average: 0.00, 0.00, 0.00\n"
    );
    assert_eq!(
        uptime(now, Some(at("2026-11-02T09:00:00Z"))),
        " 10:00:05 up 2 days,  1:00,  0 user,  load average: 0.00, 0.00, 0.00\n"
    );
    assert_eq!(uptime(now, None), " 10:00:05 up 0 min,  0 user,  load average: 0.00, 0.00, 0.00\n");
}
