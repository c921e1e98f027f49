//! The commands of the simulated container: `echo`, `env`, `printenv`, `hostname`, `date`, `pwd`,
//! `cd`, `ls`, `cat`, `sleep`, `exit`, `true`, `false`, `whoami`, `id`, `stty size`, `printf`
//! ([`super::printf`]), `tar cf -` (`super::tar`, for `kubectl cp` from a pod), `seq`, `uptime`,
//! `gzip`, `gunzip`, `zcat` ([`super::coreutils`]) and the shells
//! (`sh`, `bash`, `ash`, `dash`); anything else is `command not found` (127). Their messages are
//! those of a Debian image's bash and coreutils (the demo's nginx), their files those the
//! container mounts ([`Container::files`]) under a fixed set of top-level folders.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::container::Container;
pub use super::coreutils::Filter;
use super::coreutils::{self, Gzip};

/// The top-level folders every simulated container has besides those of its mounts.
const BASE_DIRS: &[&str] = &["/bin", "/dev", "/etc", "/home", "/proc", "/root", "/sys", "/tmp", "/usr", "/var"];

/// The commands known by name (as a path's last segment too).
pub const KNOWN: &[&str] = &[
    "echo", "env", "printenv", "hostname", "date", "pwd", "cd", "ls", "cat", "sleep", "exit", "true", "false",
    "whoami", "id", "stty", "printf", "sh", "bash", "ash", "dash", "tar", "seq", "uptime", "gzip", "gunzip", "zcat",
];

/// Whether `kubectl exec POD -- NAME` finds NAME as a program (the shell builtins `cd` and
/// `exit` are none).
pub fn is_program(argv0: &str) -> bool {
    let name = argv0.rsplit('/').next().unwrap_or_default();
    KNOWN.contains(&name) && !matches!(name, "cd" | "exit")
}

/// What a command leaves for the shell to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    Done(i32),
    Sleep(Duration),
    Exit(i32),
    /// A shell: with `-c`, its script; without, an interactive one reading stdin.
    Shell(Option<String>),
    /// A command reading stdin until it ends (`cat` without files, `gzip`).
    Filter(Filter),
}

/// What a command sees and writes.
pub struct Env<'a> {
    pub container: &'a Container,
    pub cwd: &'a mut String,
    pub status: i32,
    pub size: Option<(u16, u16)>,
    pub tty: bool,
    pub now: DateTime<Utc>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Env<'_> {
    fn out(&mut self, text: &str) {
        self.stdout.extend_from_slice(text.as_bytes());
    }

    fn err(&mut self, text: &str) {
        self.stderr.extend_from_slice(text.as_bytes());
    }

    fn resolve(&self, path: &str) -> String {
        resolve(self.cwd, path)
    }

    fn is_dir(&self, path: &str) -> bool {
        is_dir(self.container, path)
    }

    /// The names in a folder, sorted.
    fn entries(&self, dir: &str) -> Vec<String> {
        let prefix = if dir == "/" { "/".to_string() } else { format!("{dir}/") };
        let mut names: Vec<String> = BASE_DIRS
            .iter()
            .copied()
            .chain(self.container.files.keys().map(String::as_str))
            .filter_map(|p| p.strip_prefix(&prefix))
            .map(|rest| rest.split('/').next().unwrap_or_default().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Whether the absolute `path` is a folder of `container`.
fn is_dir(container: &Container, path: &str) -> bool {
    path == "/"
        || BASE_DIRS.contains(&path)
        || container.files.keys().any(|f| f.strip_prefix(path).is_some_and(|rest| rest.starts_with('/')))
}

/// Whether a process may write the file at the absolute `path`, or why not (the message of the
/// system call's error). The container's own file system is writable, as an image's is; the
/// volumes it mounts (ConfigMaps, Secrets, the downward API, as the kubelet mounts them) and the
/// kernel's `/proc` and `/sys` are read-only. A file written lives as long as the process.
pub fn writable(container: &Container, path: &str) -> Result<(), &'static str> {
    if is_dir(container, path) {
        return Err("Is a directory");
    }
    let parent = path.rsplit_once('/').map_or("/", |(p, _)| if p.is_empty() { "/" } else { p });
    if !is_dir(container, parent) {
        return Err("No such file or directory");
    }
    let under = |root: &str| path.strip_prefix(root).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    if container.read_only.iter().any(|m| under(m)) || under("/proc") || under("/sys") {
        return Err("Read-only file system");
    }
    Ok(())
}

/// An absolute, normalized path for `path` as given in the folder `cwd`.
pub fn resolve(cwd: &str, path: &str) -> String {
    let joined = if path.starts_with('/') { path.to_string() } else { format!("{cwd}/{path}") };
    let mut parts: Vec<&str> = Vec::new();
    for p in joined.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Runs `argv` (non-empty) in `env`.
pub fn run(env: &mut Env<'_>, argv: &[String]) -> Run {
    let name = argv[0].rsplit('/').next().unwrap_or_default();
    let args = &argv[1..];
    match name {
        "echo" => {
            let (newline, words) = match args.first().map(String::as_str) {
                Some("-n") => (false, &args[1..]),
                _ => (true, args),
            };
            env.out(&words.join(" "));
            if newline {
                env.out("\n");
            }
            Run::Done(0)
        }
        "env" => {
            let lines: String = env.container.env.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
            env.out(&lines);
            Run::Done(0)
        }
        "printenv" => printenv(env, args),
        "hostname" => {
            let host = format!("{}\n", env.container.hostname);
            env.out(&host);
            Run::Done(0)
        }
        "date" => {
            let text = format!("{}\n", env.now.format("%a %b %e %H:%M:%S UTC %Y"));
            env.out(&text);
            Run::Done(0)
        }
        "pwd" => {
            let cwd = format!("{}\n", env.cwd);
            env.out(&cwd);
            Run::Done(0)
        }
        "cd" => cd(env, args),
        "ls" => ls(env, args),
        "cat" => cat(env, args),
        "sleep" => sleep(env, args),
        "exit" => match args.first() {
            None => Run::Exit(env.status),
            Some(n) => match n.parse::<i64>() {
                Ok(code) => Run::Exit(code.rem_euclid(256) as i32),
                Err(_) => {
                    env.err(&format!("sh: exit: {n}: numeric argument required\n"));
                    Run::Exit(2)
                }
            },
        },
        "true" => Run::Done(0),
        "false" => Run::Done(1),
        "whoami" => {
            env.out("root\n");
            Run::Done(0)
        }
        "id" => {
            env.out("uid=0(root) gid=0(root) groups=0(root)\n");
            Run::Done(0)
        }
        "stty" => stty(env, args),
        "tar" => tar(env, args),
        "printf" => {
            let printed = super::printf::printf(args);
            env.out(&printed.stdout);
            env.err(&printed.stderr);
            Run::Done(printed.status)
        }
        "seq" => {
            let done = coreutils::seq(args);
            finished(env, done)
        }
        "uptime" => {
            let booted = env.container.started.as_deref().and_then(|t| DateTime::parse_from_rfc3339(t).ok());
            let text = coreutils::uptime(env.now, booted.map(|b| b.with_timezone(&Utc)));
            env.out(&text);
            Run::Done(0)
        }
        "gzip" | "gunzip" | "zcat" => {
            let read = |file: &str| env.container.files.get(&resolve(env.cwd, file)).cloned();
            match coreutils::gzip_command(name, args, &read) {
                Gzip::Filter(filter) => Run::Filter(filter),
                Gzip::Done(done) => finished(env, done),
            }
        }
        "sh" | "bash" | "ash" | "dash" => shell(env, name, args),
        _ => {
            env.err(&format!("sh: {}: command not found\n", argv[0]));
            Run::Done(127)
        }
    }
}

fn finished(env: &mut Env<'_>, done: coreutils::Output) -> Run {
    env.stdout.extend_from_slice(&done.stdout);
    env.err(&done.stderr);
    Run::Done(done.status)
}

fn printenv(env: &mut Env<'_>, args: &[String]) -> Run {
    if args.is_empty() {
        return run(env, &["env".to_string()]);
    }
    let mut status = 0;
    for name in args {
        match env.container.var(name).map(str::to_string) {
            Some(v) => env.out(&format!("{v}\n")),
            None => status = 1,
        }
    }
    Run::Done(status)
}

fn cd(env: &mut Env<'_>, args: &[String]) -> Run {
    let target = args.first().map_or("/root".to_string(), |a| env.resolve(a));
    if env.container.files.contains_key(&target) {
        env.err(&format!("sh: cd: {}: Not a directory\n", args[0]));
        return Run::Done(1);
    }
    if !env.is_dir(&target) {
        env.err(&format!("sh: cd: {}: No such file or directory\n", args.first().map_or("", String::as_str)));
        return Run::Done(1);
    }
    *env.cwd = target;
    Run::Done(0)
}

fn ls(env: &mut Env<'_>, args: &[String]) -> Run {
    let all = args.iter().any(|a| a.starts_with('-') && a.contains('a'));
    let mut paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let dot = ".".to_string();
    if paths.is_empty() {
        paths.push(&dot);
    }
    let mut status = 0;
    let many = paths.len() > 1;
    for (i, given) in paths.iter().enumerate() {
        let path = env.resolve(given);
        if env.container.files.contains_key(&path) {
            env.out(&format!("{given}\n"));
            continue;
        }
        if !env.is_dir(&path) {
            env.err(&format!("ls: cannot access '{given}': No such file or directory\n"));
            status = 2;
            continue;
        }
        if many {
            env.out(&format!("{}{given}:\n", if i > 0 { "\n" } else { "" }));
        }
        let mut names = env.entries(&path);
        if all {
            names.splice(0..0, [".".to_string(), "..".to_string()]);
        }
        let listing =
            if env.tty { format!("{}\n", names.join("  ")) } else { names.iter().map(|n| format!("{n}\n")).collect() };
        if !names.is_empty() {
            env.out(&listing);
        }
    }
    Run::Done(status)
}

fn cat(env: &mut Env<'_>, args: &[String]) -> Run {
    if args.is_empty() || args == ["-"] {
        return Run::Filter(Filter::Cat);
    }
    let mut status = 0;
    for given in args {
        let path = env.resolve(given);
        match env.container.files.get(&path) {
            Some(content) => env.stdout.extend_from_slice(content),
            None if env.is_dir(&path) => {
                env.err(&format!("cat: {given}: Is a directory\n"));
                status = 1;
            }
            None => {
                env.err(&format!("cat: {given}: No such file or directory\n"));
                status = 1;
            }
        }
    }
    Run::Done(status)
}

/// `tar cf - [-C DIR] PATH…` (what `kubectl cp POD:PATH …` runs); extracting (`tar xmf -`,
/// `kubectl cp … POD:PATH`) is not simulated and says so.
fn tar(env: &mut Env<'_>, args: &[String]) -> Run {
    let mode = args.first().map(|a| a.trim_start_matches('-')).unwrap_or_default();
    if mode.contains('x') {
        env.err("tar: extracting is not simulated: kube-sim's tar writes an archive only (tar cf - PATH...)\n");
        return Run::Done(2);
    }
    if !(mode.contains('c') && mode.contains('f') && args.get(1).is_some_and(|f| f == "-")) {
        env.err("tar: kube-sim's tar writes an archive to stdout only: tar cf - PATH...\n");
        return Run::Done(2);
    }
    // `-C DIR` changes the folder the paths after it are read from, as GNU tar's does.
    let mut members = Vec::new();
    let mut dir = env.cwd.clone();
    let mut rest = args[2..].iter();
    while let Some(arg) = rest.next() {
        if arg == "-C" {
            let Some(to) = rest.next() else {
                env.err("tar: option requires an argument -- 'C'\n");
                return Run::Done(2);
            };
            dir = resolve(&dir, to);
            if !env.is_dir(&dir) {
                env.err(&format!(
                    "tar: {to}: Cannot chdir: No such file or directory\ntar: Error is not recoverable: exiting now\n"
                ));
                return Run::Done(2);
            }
            continue;
        }
        let name = resolve("/", arg).trim_start_matches('/').to_string();
        members.push(super::tar::Member { path: resolve(&dir, arg), name, given: arg.clone() });
    }
    if members.is_empty() {
        env.err("tar: Cowardly refusing to create an empty archive\n");
        return Run::Done(2);
    }
    if members.iter().any(|m| m.given.starts_with('/')) {
        env.err("tar: Removing leading `/' from member names\n");
    }
    let (archive, errors) = super::tar::create(&env.container.files, &members, env.now.timestamp());
    env.stdout.extend_from_slice(&archive);
    for e in &errors {
        env.err(&format!("{e}\n"));
    }
    if errors.is_empty() {
        Run::Done(0)
    } else {
        env.err("tar: Exiting with failure status due to previous errors\n");
        Run::Done(2)
    }
}

fn sleep(env: &mut Env<'_>, args: &[String]) -> Run {
    let Some(arg) = args.first() else {
        env.err("sleep: missing operand\n");
        return Run::Done(1);
    };
    let (number, unit) = match arg.strip_suffix(['s', 'm', 'h', 'd']) {
        Some(n) => (n, &arg[n.len()..]),
        None => (arg.as_str(), "s"),
    };
    let scale = match unit {
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => 1.0,
    };
    match number.parse::<f64>() {
        Ok(n) if n >= 0.0 && n.is_finite() => Run::Sleep(Duration::from_secs_f64((n * scale).min(1e9))),
        _ => {
            env.err(&format!("sleep: invalid time interval '{arg}'\n"));
            Run::Done(1)
        }
    }
}

fn stty(env: &mut Env<'_>, args: &[String]) -> Run {
    if !env.tty {
        env.err("stty: 'standard input': Inappropriate ioctl for device\n");
        return Run::Done(1);
    }
    match args {
        [size] if size == "size" => {
            // A terminal no resize has reached is 0 by 0, as a pty nobody sized.
            let (cols, rows) = env.size.unwrap_or((0, 0));
            env.out(&format!("{rows} {cols}\n"));
            Run::Done(0)
        }
        _ => {
            env.err("stty: only 'stty size' is simulated\n");
            Run::Done(1)
        }
    }
}

fn shell(env: &mut Env<'_>, name: &str, args: &[String]) -> Run {
    match args {
        [] => Run::Shell(None),
        [flag, script, ..] if flag == "-c" => Run::Shell(Some(script.clone())),
        [flag] if flag == "-c" => {
            env.err(&format!("{name}: -c: option requires an argument\n"));
            Run::Done(2)
        }
        [flag, ..] if flag == "-i" || flag == "-l" => Run::Shell(None),
        [file, ..] => {
            env.err(&format!("{name}: {file}: No such file or directory\n"));
            Run::Done(127)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container() -> Container {
        let mut c = Container {
            hostname: "web-1".into(),
            env: vec![("HOME".into(), "/root".into()), ("MODE".into(), "demo".into())],
            ..Container::default()
        };
        c.files.insert("/etc/nginx/conf.d/default.conf".into(), b"server {}\n".to_vec());
        c.files.insert("/etc/hostname".into(), b"web-1\n".to_vec());
        c
    }

    fn sh(line: &[&str], tty: bool) -> (Run, String, String, String) {
        let c = container();
        let mut cwd = "/".to_string();
        let mut env = Env {
            container: &c,
            cwd: &mut cwd,
            status: 0,
            size: Some((120, 40)),
            tty,
            now: chrono::DateTime::parse_from_rfc3339("2026-11-04T10:00:05Z").unwrap().with_timezone(&Utc),
            stdout: Vec::new(),
            stderr: Vec::new(),
        };
        let argv: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        let r = run(&mut env, &argv);
        let (out, err) = (String::from_utf8(env.stdout).unwrap(), String::from_utf8(env.stderr).unwrap());
        (r, out, err, cwd)
    }

    #[test]
    fn the_everyday_commands_print_what_a_container_would() {
        assert_eq!(sh(&["echo", "hi", "there"], false).1, "hi there\n");
        assert_eq!(sh(&["echo", "-n", "hi"], false).1, "hi");
        assert_eq!(sh(&["env"], false).1, "HOME=/root\nMODE=demo\n");
        assert_eq!(sh(&["printenv", "MODE"], false).1, "demo\n");
        assert_eq!(sh(&["printenv", "NOPE"], false).0, Run::Done(1));
        assert_eq!(sh(&["/bin/hostname"], false).1, "web-1\n");
        assert_eq!(sh(&["date"], false).1, "Wed Nov  4 10:00:05 UTC 2026\n");
        assert_eq!(sh(&["stty", "size"], true).1, "40 120\n");
        assert_eq!(sh(&["stty", "size"], false).0, Run::Done(1));
        assert_eq!(sh(&["printf", "%s", "main"], false).1, "main");
        assert_eq!(sh(&["/usr/bin/printf", "%d", "x"], false).0, Run::Done(1));
    }

    #[test]
    fn ls_and_cat_read_the_mounted_files() {
        assert_eq!(sh(&["ls", "/etc/nginx/conf.d"], false).1, "default.conf\n");
        assert_eq!(sh(&["ls", "/etc"], true).1, "hostname  nginx\n");
        assert!(sh(&["ls"], false).1.starts_with("bin\ndev\netc\n"));
        assert_eq!(sh(&["cat", "/etc/nginx/conf.d/default.conf"], false).1, "server {}\n");
        let (run, _, err, _) = sh(&["cat", "/etc/passwd"], false);
        assert_eq!((run, err.as_str()), (Run::Done(1), "cat: /etc/passwd: No such file or directory\n"));
        let (run, _, err, _) = sh(&["ls", "/nope"], false);
        assert_eq!((run, err.as_str()), (Run::Done(2), "ls: cannot access '/nope': No such file or directory\n"));
        assert_eq!(sh(&["cat", "/etc"], false).2, "cat: /etc: Is a directory\n");
        assert_eq!(sh(&["cat"], false).0, Run::Filter(Filter::Cat));
    }

    #[test]
    fn cd_moves_within_folders_only() {
        assert_eq!(sh(&["cd", "/etc/nginx"], false).3, "/etc/nginx");
        assert_eq!(sh(&["cd", "/etc/../tmp/."], false).3, "/tmp");
        assert_eq!(sh(&["cd", "/nope"], false).2, "sh: cd: /nope: No such file or directory\n");
        assert_eq!(sh(&["cd", "/etc/hostname"], false).0, Run::Done(1));
    }

    #[test]
    fn control_commands_tell_the_shell_what_to_do() {
        assert_eq!(sh(&["exit", "3"], false).0, Run::Exit(3));
        assert_eq!(sh(&["exit", "300"], false).0, Run::Exit(44));
        assert_eq!(sh(&["exit", "x"], false).0, Run::Exit(2));
        assert_eq!(sh(&["sleep", "1.5"], false).0, Run::Sleep(Duration::from_millis(1500)));
        assert_eq!(sh(&["sleep", "2m"], false).0, Run::Sleep(Duration::from_secs(120)));
        assert_eq!(sh(&["sleep", "soon"], false).0, Run::Done(1));
        assert_eq!(sh(&["sh", "-c", "exit 3"], false).0, Run::Shell(Some("exit 3".into())));
        assert_eq!(sh(&["/bin/bash"], false).0, Run::Shell(None));
        let (run, _, err, _) = sh(&["vim", "x"], false);
        assert_eq!((run, err.as_str()), (Run::Done(127), "sh: vim: command not found\n"));
    }
}
