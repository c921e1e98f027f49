//! `seq`, `uptime` and `gzip` (`gunzip`, `zcat`) of the simulated container, with the output and
//! messages of Debian 12's coreutils 9.1, procps 4.0.2 and gzip 1.12 (the demo's images are
//! Debian's), and the commands that read stdin to its end ([`Filter`]: `cat`, `gzip`).

use std::io::{Read, Write};

use chrono::{DateTime, Utc};
use flate2::{read::MultiGzDecoder, Compression, GzBuilder};

/// A command that reads its stdin until it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// `cat`: stdin to stdout, as it comes.
    Cat,
    /// `gzip` (`-c`): stdin compressed, at level 1 to 9.
    Gzip(u32),
    /// `gzip -d`, `gunzip`, `zcat`.
    Gunzip,
}

/// What a filter or a file command wrote, and its status.
#[derive(Debug, Default, PartialEq)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub status: i32,
}

impl Filter {
    /// The output for the whole input (`cat` has passed it on already as it came, so here it
    /// gets what remains: nothing, or a pipe's bytes). `terminal`: stdout is the terminal.
    pub fn finish(self, input: &[u8], terminal: bool) -> Output {
        match self {
            Filter::Cat => Output { stdout: input.to_vec(), ..Output::default() },
            Filter::Gzip(_) if terminal => Output {
                stderr: "gzip: compressed data not written to a terminal. Use -f to force compression.\n\
                         For help, type: gzip -h\n"
                    .into(),
                status: 1,
                ..Output::default()
            },
            Filter::Gzip(level) => Output { stdout: gzip(input, level), ..Output::default() },
            Filter::Gunzip => match gunzip(input) {
                Ok(stdout) => Output { stdout, ..Output::default() },
                Err(message) => Output { stderr: format!("gzip: stdin: {message}\n"), status: 1, ..Output::default() },
            },
        }
    }
}

/// A gzip member as GNU gzip writes one from stdin: no name, mtime 0, OS 3 (Unix), deflate at
/// `level` (RFC 1952; flate2's deflate, so the compressed bytes differ from GNU gzip's, the
/// decompressed ones do not).
pub fn gzip(input: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = GzBuilder::new().mtime(0).operating_system(3).write(Vec::new(), Compression::new(level));
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(input);
    encoder.finish().unwrap_or_default()
}

/// Every gzip member of `input`, decompressed; or gzip's message.
fn gunzip(input: &[u8]) -> Result<Vec<u8>, String> {
    if !input.starts_with(&[0x1f, 0x8b]) {
        return Err("not in gzip format".into());
    }
    let mut out = Vec::new();
    match MultiGzDecoder::new(input).read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err("unexpected end of file".into()),
        Err(_) => Err("invalid compressed data--format violated".into()),
    }
}

/// What `gzip ARGS` (or `gunzip`, `zcat`) does: a [`Filter`] on stdin, or its output at once.
pub enum Gzip {
    Filter(Filter),
    Done(Output),
}

/// `gzip [-cdfkn1-9] [FILE…]`: on stdin (no file, or `-`) it filters; with `-c` the files are
/// read from the container's mounts; without `-c` it would replace them, and they are read-only.
pub fn gzip_command(name: &str, args: &[String], read: &dyn Fn(&str) -> Option<Vec<u8>>) -> Gzip {
    let mut decompress = name != "gzip";
    let mut to_stdout = name == "zcat";
    let mut level = 6;
    let mut files = Vec::new();
    for arg in args {
        match arg.strip_prefix('-') {
            Some("") | None => files.push(arg.as_str()),
            Some(flags) if flags.starts_with('-') => match flags {
                "-stdout" | "-to-stdout" => to_stdout = true,
                "-decompress" | "-uncompress" => decompress = true,
                "-force" | "-keep" | "-no-name" | "-name" | "-quiet" => {}
                _ => return usage(name, &format!("unrecognized option '{arg}'")),
            },
            Some(flags) => {
                for flag in flags.chars() {
                    match flag {
                        'c' => to_stdout = true,
                        'd' => decompress = true,
                        'f' | 'k' | 'n' | 'N' | 'q' => {}
                        '1'..='9' => level = flag.to_digit(10).unwrap_or(6),
                        _ => return usage(name, &format!("invalid option -- '{flag}'")),
                    }
                }
            }
        }
    }
    let filter = if decompress { Filter::Gunzip } else { Filter::Gzip(level) };
    if files.is_empty() || files == ["-"] {
        return Gzip::Filter(filter);
    }
    let mut out = Output::default();
    for file in files {
        let Some(content) = read(file) else {
            out.stderr.push_str(&format!("gzip: {file}: No such file or directory\n"));
            out.status = 1;
            continue;
        };
        if !to_stdout {
            let target = if decompress { file.trim_end_matches(".gz").to_string() } else { format!("{file}.gz") };
            out.stderr.push_str(&format!("gzip: {target}: Read-only file system\n"));
            out.status = 1;
            continue;
        }
        let done = filter.finish(&content, false);
        out.stdout.extend(done.stdout);
        out.stderr.push_str(&done.stderr.replace("gzip: stdin:", &format!("gzip: {file}:")));
        out.status = out.status.max(done.status);
    }
    Gzip::Done(out)
}

fn usage(name: &str, problem: &str) -> Gzip {
    let stderr = format!("{name}: {problem}\nTry `{name} --help' for more information.\n");
    Gzip::Done(Output { stderr, status: 1, ..Output::default() })
}

/// `seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST`: integers, or decimals printed with the most
/// fractional digits FIRST and INCREMENT have (coreutils' seq.c).
pub fn seq(args: &[String]) -> Output {
    let mut separator = "\n".to_string();
    let mut equal_width = false;
    let mut numbers: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let numeric = arg.strip_prefix('-').is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit() || c == '.'));
        match arg {
            "-s" if numbers.is_empty() => {
                i += 1;
                let Some(sep) = args.get(i) else { return seq_error("option requires an argument -- 's'") };
                separator = sep.clone();
            }
            "-w" if numbers.is_empty() => equal_width = true,
            _ if arg.starts_with('-') && arg.len() > 1 && !numeric => {
                return seq_error(&format!("invalid option -- '{}'", &arg[1..2]));
            }
            _ => numbers.push(arg),
        }
        i += 1;
    }
    let (first, step, last) = match numbers.as_slice() {
        [] => return seq_error("missing operand"),
        [last] => ("1", "1", *last),
        [first, last] => (*first, "1", *last),
        [first, step, last] => (*first, *step, *last),
        [_, _, _, extra, ..] => return seq_error(&format!("extra operand '{extra}'")),
    };
    let mut values = [0.0; 3];
    for (value, text) in values.iter_mut().zip([first, step, last]) {
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => *value = v,
            _ => return seq_error(&format!("invalid floating point argument: '{text}'")),
        }
    }
    let [first_v, step_v, last_v] = values;
    if step_v == 0.0 {
        return seq_error(&format!("invalid Zero increment value: '{step}'"));
    }
    let decimals = |t: &str| t.split_once('.').map_or(0, |(_, f)| f.len());
    let precision = decimals(first).max(decimals(step));
    let mut texts = Vec::new();
    let mut n = 0.0;
    loop {
        let v = first_v + n * step_v;
        if (step_v > 0.0 && v > last_v + 1e-9) || (step_v < 0.0 && v < last_v - 1e-9) || texts.len() >= 1_000_000 {
            break;
        }
        texts.push(format!("{v:.precision$}"));
        n += 1.0;
    }
    if equal_width {
        let width = texts.iter().map(String::len).max().unwrap_or(0);
        for t in &mut texts {
            *t = match t.strip_prefix('-') {
                Some(rest) => format!("-{rest:0>w$}", w = width - 1),
                None => format!("{t:0>width$}"),
            };
        }
    }
    let mut stdout = texts.join(&separator);
    if !texts.is_empty() {
        stdout.push('\n');
    }
    Output { stdout: stdout.into_bytes(), ..Output::default() }
}

fn seq_error(problem: &str) -> Output {
    let stderr = format!("seq: {problem}\nTry 'seq --help' for more information.\n");
    Output { stderr, status: 1, ..Output::default() }
}

/// `uptime` as procps 4.0.2 prints it: the time, how long since `booted` (kube-sim has no node
/// boot: the pod's start), no users logged in, and no load (nothing runs).
pub fn uptime(now: DateTime<Utc>, booted: Option<DateTime<Utc>>) -> String {
    let seconds = booted.map_or(0, |b| (now - b).num_seconds().max(0));
    let days = seconds / 86_400;
    let (hours, minutes) = (seconds / 3600 % 24, seconds / 60 % 60);
    let mut up = String::new();
    if days > 0 {
        up.push_str(&format!("{days} day{}, ", if days == 1 { "" } else { "s" }));
    }
    if hours > 0 {
        up.push_str(&format!("{hours:2}:{minutes:02}"));
    } else {
        up.push_str(&format!("{minutes} min"));
    }
    format!(" {} up {up},  0 user,  load average: 0.00, 0.00, 0.00\n", now.format("%H:%M:%S"))
}

#[cfg(test)]
#[path = "coreutils_tests.rs"]
mod tests;
