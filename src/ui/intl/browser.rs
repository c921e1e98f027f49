//! Through the browser's `Intl` (the app as shipped).

use js_sys::{Array, Date, Function, Intl, Object, Reflect};
use wasm_bindgen::JsValue;

use crate::i18n::Msg;
use crate::ui::i18n::{filled_text, language};

fn locales() -> Array {
    Array::of1(&JsValue::from_str(language().tag()))
}

fn options(pairs: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&object, &JsValue::from_str(key), value);
    }
    object
}

fn call(format: Function, value: &JsValue) -> String {
    format.call1(&JsValue::UNDEFINED, value).ok().and_then(|s| s.as_string()).unwrap_or_default()
}

fn number_with(value: f64, pairs: &[(&str, JsValue)]) -> String {
    call(Intl::NumberFormat::new(&locales(), &options(pairs)).format(), &JsValue::from_f64(value))
}

/// A number with at most `fraction_digits` decimals (`1,234.5`, `۱٬۲۳۴٫۵`).
pub fn number(value: f64, fraction_digits: u32) -> String {
    number_with(value, &[("maximumFractionDigits", JsValue::from(fraction_digits))])
}

/// A count (`12,345`).
pub fn count(value: usize) -> String {
    number(value as f64, 0)
}

/// A duration given in milliseconds: milliseconds under a second, else seconds.
pub fn duration_ms(ms: f64) -> String {
    let (value, unit, digits) = if ms.abs() < 1000.0 {
        (ms, "millisecond", if ms.abs() < 10.0 { 1 } else { 0 })
    } else {
        (ms / 1000.0, "second", 2)
    };
    number_with(
        value,
        &[
            ("style", JsValue::from_str("unit")),
            ("unit", JsValue::from_str(unit)),
            ("maximumFractionDigits", JsValue::from(digits)),
        ],
    )
}

/// A size in bytes: bytes under a kilobyte, else kilobytes or megabytes (of 1000).
pub fn bytes(count: usize) -> String {
    let n = count as f64;
    let (value, unit) = match count {
        0..1_000 => (n, "byte"),
        1_000..1_000_000 => (n / 1e3, "kilobyte"),
        _ => (n / 1e6, "megabyte"),
    };
    number_with(
        value,
        &[
            ("style", JsValue::from_str("unit")),
            ("unit", JsValue::from_str(unit)),
            ("maximumFractionDigits", JsValue::from(1)),
        ],
    )
}

/// A moment (milliseconds since the epoch) as a date and time in the user's time zone.
pub fn date_time(epoch_ms: f64) -> String {
    let format = Intl::DateTimeFormat::new(
        &locales(),
        &options(&[("dateStyle", JsValue::from_str("medium")), ("timeStyle", JsValue::from_str("medium"))]),
    );
    call(format.format(), &Date::new(&JsValue::from_f64(epoch_ms)))
}

/// How long ago (negative) or from now (positive) `seconds` is, in the largest whole unit
/// ("5 minutes ago", "قبل از ۵ دقیقه").
pub fn relative_seconds(seconds: f64) -> String {
    let abs = seconds.abs();
    let (value, unit) = if abs < 60.0 {
        (seconds, "second")
    } else if abs < 3600.0 {
        (seconds / 60.0, "minute")
    } else if abs < 86_400.0 {
        (seconds / 3600.0, "hour")
    } else {
        (seconds / 86_400.0, "day")
    };
    let format = Intl::RelativeTimeFormat::new(&locales(), &options(&[("numeric", JsValue::from_str("auto"))]));
    String::from(format.format(value.trunc(), unit))
}

/// `count` with the form of a message its plural category takes in the current language
/// (`Intl.PluralRules`): `forms` are the messages for one, few, many and other (English uses
/// only one and other; Ukrainian all four; Chinese only other), each with a `{count}`.
pub fn plural(count: usize, forms: [Msg; 4]) -> String {
    let category = Intl::PluralRules::new(&locales(), &Object::new()).select(count as f64);
    let msg = match String::from(category).as_str() {
        "one" => forms[0],
        "few" => forms[1],
        "many" => forms[2],
        _ => forms[3],
    };
    filled_text(msg, &[("count", &self::count(count))])
}
