//! CronJob schedules as kube-controller-manager reads them: `cron.ParseStandard` of
//! robfig/cron v3 (`parser.go`, `spec.go`, `constantdelay.go`), with its error messages.
//!
//! Five fields (minute, hour, day of month, month, day of week), each `*` or `?`, a number or a
//! name (`jan`…`dec`, `sun`…`sat`, any case), a range `a-b`, a step `*/n`, `a/n` (a to the
//! field's maximum) or `a-b/n`, or a comma list of those; the descriptors `@yearly`
//! (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`), `@hourly` and `@every
//! DURATION`; a leading `CRON_TZ=ZONE` or `TZ=ZONE`. As in cron, a day matches when the day of
//! month or the day of week matches if both are restricted, and both must match if either is
//! `*` (a step over `*` is a restriction).
//!
//! Time zones: without a time zone database, kube-sim knows `UTC`, `Etc/UTC`, `GMT`, `Etc/GMT`,
//! `Local` (taken as UTC) and the fixed `Etc/GMT±N` zones (POSIX signs: `Etc/GMT+2` is two
//! hours behind UTC); any other name is the error Go gives for an unknown zone.

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, Timelike, Utc};

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schedule {
    Spec(Spec),
    /// `@every DURATION`, in whole seconds (at least one).
    Every {
        seconds: i64,
        zone: FixedOffset,
    },
}

/// The bits of each field, as robfig's `SpecSchedule` (bit 63 marks a field given as `*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
    zone: FixedOffset,
}

const STAR: u64 = 1 << 63;

struct Bounds {
    min: u32,
    max: u32,
    names: &'static [(&'static str, u32)],
}

const MINUTES: Bounds = Bounds { min: 0, max: 59, names: &[] };
const HOURS: Bounds = Bounds { min: 0, max: 23, names: &[] };
const DOM: Bounds = Bounds { min: 1, max: 31, names: &[] };
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[("sun", 0), ("mon", 1), ("tue", 2), ("wed", 3), ("thu", 4), ("fri", 5), ("sat", 6)],
};

impl Schedule {
    /// `cron.ParseStandard(spec)`.
    pub fn parse(spec: &str) -> Result<Schedule, String> {
        if spec.is_empty() {
            return Err("empty spec string".into());
        }
        let mut rest = spec;
        let mut zone = utc();
        if rest.starts_with("TZ=") || rest.starts_with("CRON_TZ=") {
            let eq = rest.find('=').unwrap_or(0);
            let end = rest.find(' ').unwrap_or(rest.len());
            zone = time_zone(&rest[eq + 1..end])
                .map_err(|e| format!("provided bad location {}: {e}", &rest[eq + 1..end]))?;
            rest = rest[end..].trim();
        }
        if rest.starts_with('@') {
            return descriptor(rest, zone);
        }
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" ")));
        }
        Ok(Schedule::Spec(Spec {
            minute: field(fields[0], &MINUTES)?,
            hour: field(fields[1], &HOURS)?,
            dom: field(fields[2], &DOM)?,
            month: field(fields[3], &MONTHS)?,
            dow: field(fields[4], &DOW)?,
            zone,
        }))
    }

    /// The first activation strictly after `t` (`Schedule.Next`), or `None` when none comes
    /// within five years (robfig's zero time, as for `0 0 30 2 *`).
    pub fn next(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            Schedule::Every { seconds, .. } => {
                Some(t - Duration::nanoseconds(i64::from(t.nanosecond())) + Duration::seconds(*seconds))
            }
            Schedule::Spec(s) => s.next(t),
        }
    }
}

fn utc() -> FixedOffset {
    FixedOffset::east_opt(0).expect("zero offset")
}

/// The zones kube-sim can compute without a time zone database.
pub fn time_zone(name: &str) -> Result<FixedOffset, String> {
    match name {
        "UTC" | "Etc/UTC" | "GMT" | "Etc/GMT" | "Local" | "" => return Ok(utc()),
        _ => {}
    }
    let hours = name.strip_prefix("Etc/GMT").and_then(|h| h.parse::<i32>().ok()).filter(|h| (-14..=12).contains(h));
    match hours {
        // POSIX: Etc/GMT+2 is UTC-2.
        Some(h) => FixedOffset::west_opt(h * 3600).ok_or_else(|| format!("unknown time zone {name}")),
        None => Err(format!("unknown time zone {name}")),
    }
}

fn descriptor(spec: &str, zone: FixedOffset) -> Result<Schedule, String> {
    let all = |b: &Bounds| bits(b.min, b.max, 1) | STAR;
    let spec_of = |minute, hour, dom, month, dow| Schedule::Spec(Spec { minute, hour, dom, month, dow, zone });
    match spec {
        "@yearly" | "@annually" => Ok(spec_of(1, 1, 1 << 1, 1 << 1, all(&DOW))),
        "@monthly" => Ok(spec_of(1, 1, 1 << 1, all(&MONTHS), all(&DOW))),
        "@weekly" => Ok(spec_of(1, 1, all(&DOM), all(&MONTHS), 1)),
        "@daily" | "@midnight" => Ok(spec_of(1, 1, all(&DOM), all(&MONTHS), all(&DOW))),
        "@hourly" => Ok(spec_of(1, all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW))),
        _ => match spec.strip_prefix("@every ") {
            Some(d) => {
                let seconds = go_duration_seconds(d).ok_or_else(|| {
                    format!("failed to parse duration {spec}: time: invalid duration \"{}\"", d.trim())
                })?;
                Ok(Schedule::Every { seconds: seconds.max(1), zone })
            }
            None => Err(format!("unrecognized descriptor: {spec}")),
        },
    }
}

/// A Go duration (`1h30m`, `90s`, `1.5h`), in whole seconds as `@every` keeps it.
fn go_duration_seconds(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut total = 0.0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let num_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += number * scale;
        rest = &rest[unit_end..];
    }
    // `cron.Every` drops the fraction of a second.
    Some(total.floor() as i64)
}

/// One field: a comma list of ranges (`getField`).
fn field(text: &str, bounds: &Bounds) -> Result<u64, String> {
    text.split(',').try_fold(0u64, |acc, part| Ok(acc | range(part, bounds)?))
}

/// `getRange`.
fn range(expr: &str, b: &Bounds) -> Result<u64, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let mut extra = 0;
    let (start, mut end) = if low_and_high[0] == "*" || low_and_high[0] == "?" {
        extra = STAR;
        (b.min, b.max)
    } else {
        let start = int_or_name(low_and_high[0], b)?;
        match low_and_high.len() {
            1 => (start, start),
            2 => (start, int_or_name(low_and_high[1], b)?),
            _ => return Err(format!("too many hyphens: {expr}")),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            // "N/step" means "N-max/step".
            if single {
                end = b.max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Err(format!("beginning of range ({start}) below minimum ({}): {expr}", b.min));
    }
    if end > b.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr}", b.max));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(bits(start, end, step) | extra)
}

fn int_or_name(expr: &str, b: &Bounds) -> Result<u32, String> {
    let lower = expr.to_ascii_lowercase();
    match b.names.iter().find(|(n, _)| *n == lower) {
        Some((_, v)) => Ok(*v),
        None => must_parse_int(expr),
    }
}

fn must_parse_int(expr: &str) -> Result<u32, String> {
    let n: i64 = expr
        .parse()
        .map_err(|_| format!("failed to parse int from {expr}: strconv.Atoi: parsing \"{expr}\": invalid syntax"))?;
    if n < 0 {
        return Err(format!("negative number ({n}) not allowed: {expr}"));
    }
    u32::try_from(n)
        .map_err(|_| format!("failed to parse int from {expr}: strconv.Atoi: parsing \"{expr}\": value out of range"))
}

fn bits(min: u32, max: u32, step: u32) -> u64 {
    if step == 1 {
        return !(u64::MAX << (max + 1)) & (u64::MAX << min);
    }
    (min..=max).step_by(step as usize).fold(0, |acc, i| acc | 1 << i)
}

fn has(field: u64, value: u32) -> bool {
    field & (1 << value) != 0
}

impl Spec {
    fn day_matches(&self, t: &NaiveDateTime) -> bool {
        let dom = has(self.dom, t.day());
        let dow = has(self.dow, t.weekday().num_days_from_sunday());
        if self.dom & STAR != 0 || self.dow & STAR != 0 {
            dom && dow
        } else {
            dom || dow
        }
    }

    /// `SpecSchedule.Next`: field by field from the next whole minute, in the schedule's zone.
    fn next(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = after.with_timezone(&self.zone).naive_local();
        let mut t = local.with_nanosecond(0)?.with_second(0)? + Duration::minutes(1);
        let year_limit = t.year() + 5;
        'wrap: loop {
            if t.year() > year_limit {
                return None;
            }
            while !has(self.month, t.month()) {
                t = NaiveDate::from_ymd_opt(t.year(), t.month(), 1)?.and_hms_opt(0, 0, 0)?;
                t = add_month(t)?;
                if t.month() == 1 {
                    continue 'wrap;
                }
            }
            while !self.day_matches(&t) {
                t = t.date().and_hms_opt(0, 0, 0)? + Duration::days(1);
                if t.day() == 1 {
                    continue 'wrap;
                }
            }
            while !has(self.hour, t.hour()) {
                t = t.date().and_hms_opt(t.hour(), 0, 0)? + Duration::hours(1);
                if t.hour() == 0 {
                    continue 'wrap;
                }
            }
            while !has(self.minute, t.minute()) {
                t += Duration::minutes(1);
                if t.minute() == 0 {
                    continue 'wrap;
                }
            }
            return Some(DateTime::<Utc>::from_naive_utc_and_offset(t - self.zone, Utc));
        }
    }
}

fn add_month(t: NaiveDateTime) -> Option<NaiveDateTime> {
    let (y, m) = if t.month() == 12 { (t.year() + 1, 1) } else { (t.year(), t.month() + 1) };
    NaiveDate::from_ymd_opt(y, m, 1)?.and_hms_opt(0, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).expect("a time").with_timezone(&Utc)
    }

    /// The activations after `from`, in RFC 3339.
    #[track_caller]
    fn check(spec: &str, from: &str, expect: &[&str]) {
        let schedule = Schedule::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let mut t = at(from);
        let mut got = Vec::new();
        for _ in expect {
            t = schedule.next(t).unwrap_or_else(|| panic!("{spec} stops after {t}"));
            got.push(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        }
        assert_eq!(got, expect, "{spec} after {from}");
    }

    #[track_caller]
    fn refused(spec: &str, message: &str) {
        assert_eq!(Schedule::parse(spec).err().as_deref(), Some(message), "{spec}");
    }

    #[test]
    fn every_minute_fires_on_each_whole_minute() {
        check("* * * * *", "2026-03-01T10:00:30Z", &["2026-03-01T10:01:00Z", "2026-03-01T10:02:00Z"]);
        check("* * * * *", "2026-03-01T10:00:00Z", &["2026-03-01T10:01:00Z"]);
    }

    #[test]
    fn steps_ranges_and_lists() {
        check("*/15 * * * *", "2026-03-01T10:07:00Z", &["2026-03-01T10:15:00Z", "2026-03-01T10:30:00Z"]);
        check("5/20 * * * *", "2026-03-01T10:00:00Z", &["2026-03-01T10:05:00Z", "2026-03-01T10:25:00Z"]);
        check("0 9-11 * * *", "2026-03-01T10:30:00Z", &["2026-03-01T11:00:00Z", "2026-03-02T09:00:00Z"]);
        check(
            "0 8-18/4 * * *",
            "2026-03-01T00:00:00Z",
            &["2026-03-01T08:00:00Z", "2026-03-01T12:00:00Z", "2026-03-01T16:00:00Z"],
        );
        check("0,30 1,2 * * *", "2026-03-01T01:10:00Z", &["2026-03-01T01:30:00Z", "2026-03-01T02:00:00Z"]);
    }

    #[test]
    fn month_and_weekday_names_in_any_case() {
        // 2026-03-01 is a Sunday.
        check("0 0 * * MON-fri", "2026-03-01T00:00:00Z", &["2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"]);
        check("0 0 1 Jul,DEC *", "2026-03-01T00:00:00Z", &["2026-07-01T00:00:00Z", "2026-12-01T00:00:00Z"]);
    }

    #[test]
    fn a_restricted_day_of_month_and_day_of_week_match_either() {
        // The 13th, or a Friday (2026-03-06 is a Friday).
        check("0 0 13 * 5", "2026-03-01T00:00:00Z", &["2026-03-06T00:00:00Z", "2026-03-13T00:00:00Z"]);
        // A step over * restricts the field too.
        check("0 0 */10 * 0", "2026-03-02T00:00:00Z", &["2026-03-08T00:00:00Z", "2026-03-11T00:00:00Z"]);
        // With one field *, both must match.
        check("0 0 * * 0", "2026-03-02T00:00:00Z", &["2026-03-08T00:00:00Z"]);
    }

    #[test]
    fn descriptors() {
        check("@hourly", "2026-03-01T10:20:00Z", &["2026-03-01T11:00:00Z"]);
        check("@daily", "2026-03-01T10:20:00Z", &["2026-03-02T00:00:00Z"]);
        check("@midnight", "2026-03-01T10:20:00Z", &["2026-03-02T00:00:00Z"]);
        check("@weekly", "2026-03-02T10:20:00Z", &["2026-03-08T00:00:00Z"]);
        check("@monthly", "2026-03-02T10:20:00Z", &["2026-04-01T00:00:00Z"]);
        check("@yearly", "2026-03-02T10:20:00Z", &["2027-01-01T00:00:00Z"]);
        check("@annually", "2026-03-02T10:20:00Z", &["2027-01-01T00:00:00Z"]);
        check("@every 90s", "2026-03-01T10:00:00.5Z", &["2026-03-01T10:01:30Z", "2026-03-01T10:03:00Z"]);
        check("@every 1h30m", "2026-03-01T10:00:00Z", &["2026-03-01T11:30:00Z"]);
    }

    #[test]
    fn month_ends_and_leap_days() {
        check("0 0 31 * *", "2026-03-31T12:00:00Z", &["2026-05-31T00:00:00Z"]);
        check("0 12 29 2 *", "2026-03-01T00:00:00Z", &["2028-02-29T12:00:00Z"]);
        check("59 23 31 12 *", "2026-12-31T23:59:00Z", &["2027-12-31T23:59:00Z"]);
        let never = Schedule::parse("0 0 30 2 *").expect("parses");
        assert_eq!(never.next(at("2026-01-01T00:00:00Z")), None, "February 30th never comes");
    }

    #[test]
    fn time_zones_shift_the_activations() {
        check("CRON_TZ=Etc/GMT-2 0 9 * * *", "2026-03-01T00:00:00Z", &["2026-03-01T07:00:00Z"]);
        check("TZ=UTC 0 9 * * *", "2026-03-01T00:00:00Z", &["2026-03-01T09:00:00Z"]);
        // Midnight UTC is 19:00 the day before in Etc/GMT+5.
        check("CRON_TZ=Etc/GMT+5 30 23 * * *", "2026-03-01T00:00:00Z", &["2026-03-01T04:30:00Z"]);
        refused("CRON_TZ=Mars/Olympus * * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus");
    }

    #[test]
    fn errors_are_robfigs() {
        refused("", "empty spec string");
        refused("* * * *", "expected exactly 5 fields, found 4: [* * * *]");
        refused("0 0 * * * *", "expected exactly 5 fields, found 6: [0 0 * * * *]");
        refused("@fortnightly", "unrecognized descriptor: @fortnightly");
        refused("60 * * * *", "end of range (60) above maximum (59): 60");
        refused("* * 0 * *", "beginning of range (0) below minimum (1): 0");
        refused("* 5-2 * * *", "beginning of range (5) beyond end of range (2): 5-2");
        refused("*/0 * * * *", "step of range should be a positive number: */0");
        refused("1-2-3 * * * *", "too many hyphens: 1-2-3");
        refused("*/2/3 * * * *", "too many slashes: */2/3");
        refused("x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
        refused("* * * * 7", "end of range (7) above maximum (6): 7");
        refused("* * * foo *", "failed to parse int from foo: strconv.Atoi: parsing \"foo\": invalid syntax");
        refused("@every soon", "failed to parse duration @every soon: time: invalid duration \"soon\"");
    }
}
