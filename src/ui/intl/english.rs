//! English only, with the `english-only` feature: numbers, sizes, durations and dates formatted in
//! Rust, in English, as an interface without `Intl` would.

use crate::i18n::Msg;
use crate::ui::i18n::filled_text;

fn grouped(int: u64) -> String {
    let digits = int.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn number(value: f64, fraction_digits: u32) -> String {
    let s = format!("{:.*}", fraction_digits as usize, value.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let frac = frac.trim_end_matches('0');
    let sign = if value < 0.0 { "-" } else { "" };
    let int = grouped(int.parse().unwrap_or(0));
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

pub fn count(value: usize) -> String {
    grouped(value as u64)
}

pub fn duration_ms(ms: f64) -> String {
    if ms.abs() < 1000.0 {
        format!("{} ms", number(ms, if ms.abs() < 10.0 { 1 } else { 0 }))
    } else {
        format!("{} sec", number(ms / 1000.0, 2))
    }
}

pub fn bytes(count: usize) -> String {
    let n = count as f64;
    match count {
        0..1_000 => format!("{count} byte"),
        1_000..1_000_000 => format!("{} kB", number(n / 1e3, 1)),
        _ => format!("{} MB", number(n / 1e6, 1)),
    }
}

pub fn date_time(epoch_ms: f64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(epoch_ms));
    String::from(date.to_locale_string("en", &wasm_bindgen::JsValue::UNDEFINED))
}

pub fn relative_seconds(seconds: f64) -> String {
    let abs = seconds.abs();
    let (value, unit) = if abs < 60.0 {
        (abs, "second")
    } else if abs < 3600.0 {
        (abs / 60.0, "minute")
    } else if abs < 86_400.0 {
        (abs / 3600.0, "hour")
    } else {
        (abs / 86_400.0, "day")
    };
    let value = value.trunc() as u64;
    let plural = if value == 1 { "" } else { "s" };
    if seconds < 0.0 {
        format!("{value} {unit}{plural} ago")
    } else {
        format!("in {value} {unit}{plural}")
    }
}

pub fn plural(count: usize, forms: [Msg; 4]) -> String {
    let msg = if count == 1 { forms[0] } else { forms[3] };
    filled_text(msg, &[("count", &self::count(count))])
}
