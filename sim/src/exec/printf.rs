//! `printf FORMAT [ARGUMENT...]` of the simulated container, as bash's builtin writes it
//! (bash `builtins/printf.def`, checked against bash 5.2 on Debian 12; busybox's `printf.c`
//! agrees on what is covered here): the format's
//! backslash escapes, the conversions `%s %b %c %d %i %u %o %x %X %%` with the flags `-` and `0`,
//! a width and a precision, the format used again while arguments remain, a missing argument
//! read as empty or 0. A number that does not parse is `printf: X: invalid number` (status 1, 0
//! printed); an unknown conversion ends the output with ``printf: `z': invalid format
//! character`` (status 1); no format is the usage line (status 2).

/// What printf wrote and its exit status.
#[derive(Debug, PartialEq)]
pub struct Printed {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
}

/// A conversion's flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    fn pad(&self, body: &str, numeric: bool) -> String {
        let len = body.chars().count();
        if len >= self.width {
            return body.to_string();
        }
        let fill = self.width - len;
        if self.left {
            format!("{body}{}", " ".repeat(fill))
        } else if self.zero && numeric && self.precision.is_none() {
            let (sign, digits) = body.strip_prefix('-').map_or(("", body), |d| ("-", d));
            format!("{sign}{}{digits}", "0".repeat(fill))
        } else {
            format!("{}{body}", " ".repeat(fill))
        }
    }
}

/// Runs `printf` with `args` (the words after its name).
pub fn printf(args: &[String]) -> Printed {
    let Some((format, mut rest)) = args.split_first() else {
        return Printed {
            stdout: String::new(),
            stderr: "sh: printf: usage: printf [-v var] format [arguments]\n".into(),
            status: 2,
        };
    };
    let mut out = Printed { stdout: String::new(), stderr: String::new(), status: 0 };
    loop {
        let before = rest.len();
        if !once(format, &mut rest, &mut out) || rest.is_empty() || rest.len() == before {
            return out;
        }
    }
}

/// One pass over the format; false when an invalid conversion ended the output.
fn once(format: &str, args: &mut &[String], out: &mut Printed) -> bool {
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => escape(&mut chars, &mut out.stdout),
            '%' if chars.peek() == Some(&'%') => {
                chars.next();
                out.stdout.push('%');
            }
            '%' => {
                let start = format.len() - chars.clone().map(char::len_utf8).sum::<usize>() - 1;
                let mut spec = Spec::default();
                while let Some(&flag) = chars.peek().filter(|c| matches!(c, '-' | '0' | '+' | ' ' | '#')) {
                    spec.left |= flag == '-';
                    spec.zero |= flag == '0';
                    chars.next();
                }
                spec.width = digits(&mut chars).unwrap_or(0);
                if chars.peek() == Some(&'.') {
                    chars.next();
                    spec.precision = Some(digits(&mut chars).unwrap_or(0));
                }
                // C's length modifiers change nothing here; bash skips them too.
                while chars.next_if(|c| matches!(c, 'h' | 'l' | 'L' | 'j' | 'z' | 't')).is_some() {}
                let Some(conversion) = chars.next() else {
                    out.stderr.push_str(&format!("sh: printf: `{}': missing format character\n", &format[start..]));
                    out.status = 1;
                    return false;
                };
                if !convert(conversion, &spec, args, out) {
                    out.stderr.push_str(&format!("sh: printf: `{conversion}': invalid format character\n"));
                    out.status = 1;
                    return false;
                }
            }
            other => out.stdout.push(other),
        }
    }
    true
}

fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<usize> {
    let mut text = String::new();
    while let Some(&d) = chars.peek().filter(|c| c.is_ascii_digit()) {
        text.push(d);
        chars.next();
    }
    text.parse().ok()
}

/// Writes one conversion; false for a conversion character printf does not know.
fn convert(conversion: char, spec: &Spec, args: &mut &[String], out: &mut Printed) -> bool {
    let mut next = || {
        let (first, rest) = args.split_first().map_or((None, &[][..]), |(f, r)| (Some(f.clone()), r));
        *args = rest;
        first
    };
    let body = match conversion {
        's' | 'b' | 'c' => {
            let arg = next().unwrap_or_default();
            let mut text = if conversion == 'b' {
                let mut expanded = String::new();
                let mut chars = arg.chars().peekable();
                while let Some(c) = chars.next() {
                    if c == '\\' {
                        escape(&mut chars, &mut expanded)
                    } else {
                        expanded.push(c)
                    }
                }
                expanded
            } else if conversion == 'c' {
                arg.chars().next().map(String::from).unwrap_or_default()
            } else {
                arg
            };
            if let (Some(p), true) = (spec.precision, conversion != 'c') {
                text = text.chars().take(p).collect();
            }
            spec.pad(&text, false)
        }
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
            let arg = next().unwrap_or_default();
            let n = number(&arg).unwrap_or_else(|| {
                out.stderr.push_str(&format!("sh: printf: {arg}: invalid number\n"));
                out.status = 1;
                0
            });
            let magnitude = match conversion {
                'o' => format!("{:o}", n.unsigned_abs()),
                'x' => format!("{:x}", n.unsigned_abs()),
                'X' => format!("{:X}", n.unsigned_abs()),
                _ => n.unsigned_abs().to_string(),
            };
            let least = spec.precision.unwrap_or(1);
            let padded = format!("{}{magnitude}", "0".repeat(least.saturating_sub(magnitude.len())));
            spec.pad(&if n < 0 { format!("-{padded}") } else { padded }, true)
        }
        _ => return false,
    };
    out.stdout.push_str(&body);
    true
}

/// An integer argument as printf reads one: decimal, 0x hex, 0 octal, or 'C (C's code point).
fn number(arg: &str) -> Option<i64> {
    if arg.is_empty() {
        return Some(0);
    }
    if let Some(c) = arg.strip_prefix('\'').or_else(|| arg.strip_prefix('"')) {
        return Some(c.chars().next().map_or(0, |c| c as i64));
    }
    let (negative, unsigned) = match arg.as_bytes()[0] {
        b'-' => (true, &arg[1..]),
        b'+' => (false, &arg[1..]),
        _ => (false, arg),
    };
    let value = if let Some(hex) = unsigned.strip_prefix("0x").or_else(|| unsigned.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        i64::from_str_radix(&unsigned[1..], 8).ok()?
    } else {
        unsigned.parse().ok()?
    };
    Some(if negative { -value } else { value })
}

/// The escape after a backslash: `\n \t \r \a \b \e \f \v \\ \" \'`, `\NNN` octal, `\xHH`; any
/// other character keeps its backslash.
fn escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) {
    let Some(c) = chars.next() else {
        out.push('\\');
        return;
    };
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'e' => Some('\x1b'),
        'f' => Some('\x0c'),
        'v' => Some('\x0b'),
        '\\' | '"' | '\'' => Some(c),
        _ => None,
    };
    if let Some(s) = simple {
        out.push(s);
        return;
    }
    let (radix, max, mut text) = match c {
        '0'..='7' => (8, 3, c.to_string()),
        'x' => (16, 2, String::new()),
        _ => {
            out.push('\\');
            out.push(c);
            return;
        }
    };
    while text.len() < max {
        match chars.peek().filter(|d| d.is_digit(radix)) {
            Some(&d) => {
                text.push(d);
                chars.next();
            }
            None => break,
        }
    }
    match u32::from_str_radix(&text, radix).ok().and_then(|n| char::from_u32(n & 0xff)) {
        Some(ch) => out.push(ch),
        None => {
            out.push('\\');
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What bash 5.2's `printf ARGS` writes (each case run with Debian 12's bash 5.2.15; its
    /// messages start with the shell's name, `sh:` here as every simulated message).
    fn check(args: &[&str], stdout: &str, stderr: &str, status: i32) {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        assert_eq!(printf(&args), Printed { stdout: stdout.into(), stderr: stderr.into(), status }, "printf {args:?}");
    }

    #[test]
    fn strings_numbers_and_escapes_as_bash_prints_them() {
        check(&["%s", "main"], "main", "", 0);
        check(&["%s\\n", "a", "b"], "a\nb\n", "", 0);
        check(&["[%5s|%-5s|%.2s]", "ab", "cd", "xyz"], "[   ab|cd   |xy]", "", 0);
        check(&["%d %i %05d %x %X %o\\n", "42", "-7", "-42", "255", "255", "8"], "42 -7 -0042 ff FF 10\n", "", 0);
        check(&["%d\\n", "0x1f", "010", "'A"], "31\n8\n65\n", "", 0);
        check(&["%b|%s", "a\\tb", "a\\tb"], "a\tb|a\\tb", "", 0);
        check(&["100%%\\x41\\101\\q"], "100%AA\\q", "", 0);
        check(&["%s-%s\\n", "only"], "only-\n", "", 0);
        check(&["%c%c", "hello", "w"], "hw", "", 0);
    }

    #[test]
    fn bad_input_is_bash_s_error_and_status() {
        check(&["%d|", "abc"], "0|", "sh: printf: abc: invalid number\n", 1);
        check(&["a%kb", "x"], "a", "sh: printf: `k': invalid format character\n", 1);
        check(&["a%5"], "a", "sh: printf: `%5': missing format character\n", 1);
        check(&["a%zb", "x"], "ax", "", 0);
        check(&[], "", "sh: printf: usage: printf [-v var] format [arguments]\n", 2);
    }
}
