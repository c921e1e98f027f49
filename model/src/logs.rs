//! A pod's log as the explorer keeps it. The bytes of `GET …/pods/NAME/log` are cut into lines
//! wherever the chunks end (also inside a UTF-8 sequence), and each line keeps the timestamp the
//! server put in front of it. The explorer always asks for `timestamps=true` and shows the stamps
//! only when the user wants them. They are what a follow resumes from after a drop (`sinceTime`)
//! and what interleaves the containers of a pod. At most a cap of lines is kept, and the lines
//! dropped are counted.

use std::collections::VecDeque;
use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;

/// How many lines a log view keeps by default; older ones are dropped and counted.
pub const DEFAULT_CAP: usize = 10_000;

/// Cuts a byte stream into lines. A line is complete at its `\n` (a `\r` before it is dropped);
/// bytes that are not UTF-8 are shown as U+FFFD, as the browser's `TextDecoder` would.
#[derive(Debug, Default)]
pub struct LineSplitter {
    pending: Vec<u8>,
}

impl LineSplitter {
    /// The lines `chunk` completes.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.pending.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            let mut line = std::mem::take(&mut self.pending);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            lines.push(String::from_utf8_lossy(&line).into_owned());
        }
        self.pending.extend_from_slice(rest);
        lines
    }

    /// The last line, when the stream ended without a newline after it.
    pub fn finish(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.pending);
        (!line.is_empty()).then(|| String::from_utf8_lossy(&line).into_owned())
    }
}

/// One line of a container's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// The container that wrote it.
    pub container: Arc<str>,
    /// When, as the server stamped it (`None` when the line carried no stamp).
    pub time: Option<Timestamp>,
    /// The stamp as the server wrote it (RFC 3339 with nanoseconds), or empty.
    pub stamp: String,
    /// The line without its stamp.
    pub text: String,
}

impl LogLine {
    /// Reads a line of a `timestamps=true` log: an RFC 3339 time, a space, the text. A line whose
    /// start is not a time is kept whole, without one.
    pub fn parse(container: &Arc<str>, raw: String) -> LogLine {
        let split = raw.split_once(' ').and_then(|(stamp, text)| {
            let time = stamp.parse::<Timestamp>().ok()?;
            Some((time, stamp.to_owned(), text.to_owned()))
        });
        match split {
            Some((time, stamp, text)) => LogLine { container: container.clone(), time: Some(time), stamp, text },
            None => LogLine { container: container.clone(), time: None, stamp: String::new(), text: raw },
        }
    }
}

/// Where a follow that dropped picks up again: `sinceTime` (whole seconds, as the API takes it)
/// and the lines of that second already kept, which the server will send again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    /// The last kept line's time.
    pub after: Timestamp,
    /// The texts kept at exactly `after`, in order.
    pub seen: Vec<String>,
}

impl Resume {
    /// The `sinceTime` to ask for: `after` cut to the second, as RFC 3339 in UTC.
    pub fn since_time(&self) -> String {
        rfc3339_seconds(self.after.as_second())
    }

    /// Whether `line` of the resumed stream was kept before (the server sends everything since
    /// the start of `after`'s second again). A line after `after` ends the overlap.
    pub fn already_kept(&mut self, line: &LogLine) -> bool {
        let Some(time) = line.time else { return false };
        if time < self.after {
            return true;
        }
        if time == self.after {
            if let Some(at) = self.seen.iter().position(|t| *t == line.text) {
                self.seen.remove(at);
                return true;
            }
        }
        false
    }
}

/// `seconds` since the Unix epoch as RFC 3339 in UTC (`2026-11-24T10:00:02Z`). Written out here
/// (the civil-from-days algorithm) rather than with jiff's `strftime`, which made the page's
/// wasm several kilobytes larger for this one line.
pub(crate) fn rfc3339_seconds(seconds: i64) -> String {
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    let (hour, minute, second) = (second_of_day / 3_600, second_of_day % 3_600 / 60, second_of_day % 60);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z")
}

/// The lines kept, oldest first, in time order across containers.
#[derive(Debug, Clone)]
pub struct LogBuffer {
    lines: VecDeque<LogLine>,
    cap: usize,
    dropped: u64,
}

impl LogBuffer {
    /// An empty log keeping at most `cap` lines (at least one).
    pub fn new(cap: usize) -> LogBuffer {
        LogBuffer { lines: VecDeque::new(), cap: cap.max(1), dropped: 0 }
    }

    /// Adds a line in time order (after the lines of the same time; at the end when it has no
    /// time), dropping the oldest beyond the cap.
    pub fn push(&mut self, line: LogLine) {
        let at = match line.time {
            // Lines come mostly in order: look from the end.
            Some(time) => {
                let mut at = self.lines.len();
                while at > 0 && self.lines[at - 1].time.is_some_and(|t| t > time) {
                    at -= 1;
                }
                at
            }
            None => self.lines.len(),
        };
        self.lines.insert(at, line);
        while self.lines.len() > self.cap {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &LogLine> {
        self.lines.iter()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// How many lines were ever added: those kept and those dropped.
    pub fn total(&self) -> u64 {
        self.lines.len() as u64 + self.dropped
    }

    /// How many lines were dropped to keep the cap.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Where `container`'s stream resumes after a drop: its last stamped line's time and the texts
    /// kept at that time. `None` when it has no stamped line (the stream starts over).
    pub fn resume(&self, container: &str) -> Option<Resume> {
        let last = self.lines.iter().rev().find(|l| &*l.container == container && l.time.is_some())?;
        let after = last.time?;
        let mut seen: Vec<String> = self
            .lines
            .iter()
            .rev()
            .filter(|l| &*l.container == container)
            .take_while(|l| l.time.is_none_or(|t| t >= after))
            .filter(|l| l.time == Some(after))
            .map(|l| l.text.clone())
            .collect();
        seen.reverse();
        Some(Resume { after, seen })
    }
}

/// How the lines are shown (and downloaded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogDisplay {
    /// Each line starts with its stamp.
    pub timestamps: bool,
    /// Each line starts with `[container]` (several containers interleaved).
    pub containers: bool,
    /// Only lines containing this text (case-insensitive), when not empty.
    pub search: String,
}

impl LogDisplay {
    /// The search, lower-cased, or `None` when there is none.
    fn needle(&self) -> Option<String> {
        let needle = self.search.trim();
        (!needle.is_empty()).then(|| needle.to_lowercase())
    }

    /// Whether `line` matches the search (every line does without one).
    pub fn matches(&self, line: &LogLine) -> bool {
        self.needle().is_none_or(|n| line_matches(line, &n))
    }

    /// How many kept lines match the search.
    pub fn count(&self, buffer: &LogBuffer) -> usize {
        match self.needle() {
            Some(needle) => buffer.lines().filter(|l| line_matches(l, &needle)).count(),
            None => buffer.len(),
        }
    }

    /// The lines shown, as text: the matching lines only, one per line.
    pub fn text(&self, buffer: &LogBuffer) -> String {
        let needle = self.needle();
        let mut text = String::new();
        for line in buffer.lines().filter(|l| needle.as_ref().is_none_or(|n| line_matches(l, n))) {
            if self.containers {
                text.push('[');
                text.push_str(&line.container);
                text.push_str("] ");
            }
            if self.timestamps && !line.stamp.is_empty() {
                text.push_str(&line.stamp);
                text.push(' ');
            }
            text.push_str(&line.text);
            text.push('\n');
        }
        text
    }
}

fn line_matches(line: &LogLine, needle: &str) -> bool {
    line.text.to_lowercase().contains(needle)
}

/// How long a follow waits before its `attempt`-th reconnection (from 1): 1, 2, 4, 8, then 10 s.
pub fn reconnect_delay_ms(attempt: u32) -> u32 {
    1_000u32.saturating_mul(1 << attempt.saturating_sub(1).min(4)).min(10_000)
}

/// The name a downloaded log is saved under: `POD_CONTAINER.log`, or `POD.log` for all of them.
pub fn download_name(pod: &str, container: Option<&str>) -> String {
    let safe = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || "-._".contains(c) { c } else { '_' }).collect::<String>()
    };
    match container {
        Some(c) => format!("{}_{}.log", safe(pod), safe(c)),
        None => format!("{}.log", safe(pod)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> Arc<str> {
        Arc::from("app")
    }

    fn line(container: &Arc<str>, raw: &str) -> LogLine {
        LogLine::parse(container, raw.to_owned())
    }

    #[test]
    fn lines_are_cut_wherever_the_chunks_end_even_inside_a_character() {
        let bytes = "one\r\ntwo — ✓\nthree".as_bytes();
        for cut in 0..=bytes.len() {
            let mut splitter = LineSplitter::default();
            let mut lines = splitter.push(&bytes[..cut]);
            lines.extend(splitter.push(&bytes[cut..]));
            lines.extend(splitter.finish());
            assert_eq!(lines, ["one", "two — ✓", "three"], "cut at {cut}");
        }
        let mut splitter = LineSplitter::default();
        assert_eq!(splitter.push(b"a\xffb\n"), ["a\u{fffd}b"]);
        assert_eq!(splitter.finish(), None);
    }

    #[test]
    fn a_stamped_line_keeps_its_time_and_text_and_an_unstamped_one_stays_whole() {
        let stamped = line(&app(), "2026-11-24T10:00:01.5Z level=info msg=\"a b\"");
        assert_eq!(stamped.text, "level=info msg=\"a b\"");
        assert_eq!(stamped.stamp, "2026-11-24T10:00:01.5Z");
        assert_eq!(stamped.time, Some("2026-11-24T10:00:01.500Z".parse().unwrap()));
        let plain = line(&app(), "starting server on :8080");
        assert_eq!((plain.time, plain.text.as_str()), (None, "starting server on :8080"));
    }

    #[test]
    fn containers_interleave_by_time_and_the_cap_drops_the_oldest() {
        let (a, b) = (app(), Arc::from("sidecar"));
        let mut buffer = LogBuffer::new(3);
        buffer.push(line(&a, "2026-11-24T10:00:01Z a1"));
        buffer.push(line(&a, "2026-11-24T10:00:03Z a3"));
        // RFC 3339 strings do not sort as text ("01Z" after "01.5Z"): times are compared.
        buffer.push(line(&b, "2026-11-24T10:00:01.5Z b1"));
        let texts: Vec<&str> = buffer.lines().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["a1", "b1", "a3"]);
        buffer.push(line(&b, "2026-11-24T10:00:02Z b2"));
        let texts: Vec<&str> = buffer.lines().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["b1", "b2", "a3"]);
        assert_eq!(buffer.dropped(), 1);
        assert_eq!(buffer.total(), 4);
    }

    #[test]
    fn a_resumed_follow_skips_what_it_had_and_keeps_what_is_new() {
        let a = app();
        let mut buffer = LogBuffer::new(100);
        for raw in ["2026-11-24T10:00:01.2Z x", "2026-11-24T10:00:02.7Z y", "2026-11-24T10:00:02.7Z z"] {
            buffer.push(line(&a, raw));
        }
        let mut resume = buffer.resume("app").expect("stamped lines");
        assert_eq!(resume.since_time(), "2026-11-24T10:00:02Z");
        assert_eq!(resume.seen, ["y", "z"]);
        assert!(buffer.resume("sidecar").is_none());
        // The server sends the whole second again, then what is new.
        let again = ["2026-11-24T10:00:02.1Z w", "2026-11-24T10:00:02.7Z y", "2026-11-24T10:00:02.7Z z"];
        for raw in again {
            assert!(resume.already_kept(&line(&a, raw)), "{raw}");
        }
        assert!(!resume.already_kept(&line(&a, "2026-11-24T10:00:02.7Z z")), "a third z is new");
        assert!(!resume.already_kept(&line(&a, "2026-11-24T10:00:03Z next")));
    }

    #[test]
    fn the_display_filters_counts_and_prefixes_lines() {
        let (a, b) = (app(), Arc::from("sidecar"));
        let mut buffer = LogBuffer::new(10);
        buffer.push(line(&a, "2026-11-24T10:00:01Z GET /healthz 200"));
        buffer.push(line(&b, "2026-11-24T10:00:02Z ERROR upstream refused"));
        buffer.push(line(&a, "no stamp here"));
        let plain = LogDisplay::default();
        assert_eq!(plain.text(&buffer), "GET /healthz 200\nERROR upstream refused\nno stamp here\n");
        assert_eq!(plain.count(&buffer), 3);
        let search = LogDisplay { search: " error ".into(), timestamps: true, containers: true };
        assert_eq!(search.count(&buffer), 1);
        assert_eq!(search.text(&buffer), "[sidecar] 2026-11-24T10:00:02Z ERROR upstream refused\n");
    }

    #[test]
    fn since_time_is_the_seconds_in_utc_as_jiff_reads_them() {
        for text in [
            "1970-01-01T00:00:00Z",
            "2000-02-29T23:59:59Z",
            "2026-11-24T10:00:02Z",
            "2100-03-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
        ] {
            let time: Timestamp = text.parse().unwrap();
            assert_eq!(rfc3339_seconds(time.as_second()), text);
        }
        // Every day over four centuries agrees with jiff.
        let start: Timestamp = "1900-01-01T12:34:56Z".parse().unwrap();
        for day in (0..146_097).step_by(7) {
            let seconds = start.as_second() + day * 86_400;
            let text = rfc3339_seconds(seconds);
            assert_eq!(text.parse::<Timestamp>().unwrap().as_second(), seconds, "{text}");
        }
    }

    #[test]
    fn reconnections_back_off_to_ten_seconds() {
        let delays: Vec<u32> = (1..=7).map(reconnect_delay_ms).collect();
        assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
        assert_eq!(reconnect_delay_ms(0), 1_000);
    }

    #[test]
    fn downloads_are_named_after_the_pod_and_container() {
        assert_eq!(download_name("web-1", Some("app")), "web-1_app.log");
        assert_eq!(download_name("web/1", None), "web_1.log");
    }
}
