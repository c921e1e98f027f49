//! Kubernetes quantities (`250m`, `1.5`, `128Mi`, `43629237n`, `1e3`) read exactly, as
//! apimachinery's `resource.ParseQuantity` reads them, and scaled to a whole number of units
//! rounded up, as `Quantity.ScaledValue` rounds (`MilliValue` of `43629237n` is 44): CPU in
//! nanocores, memory in bytes. No float: a pod's request of `100m` and a usage of `100000000n`
//! must compare equal.

use crate::i18n::{Localized, Msg, Text};

/// A quantity that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantityError {
    /// Not a quantity: the text found.
    Malformed(String),
    /// A quantity too large to count in the unit asked for.
    TooLarge(String),
}

impl Localized for QuantityError {
    fn text(&self) -> Text {
        match self {
            QuantityError::Malformed(text) => {
                Text::new(Msg::MetricsQuantityMalformed).with("text", format!("{text:?}"))
            }
            QuantityError::TooLarge(text) => Text::new(Msg::MetricsQuantityTooLarge).with("text", format!("{text:?}")),
        }
    }
}

crate::localized_display!(QuantityError);

/// The value of a suffix: a power of 1024 (binary) or of 10 (decimal and exponent).
enum Suffix {
    Binary(u32),
    Decimal(i32),
}

fn suffix(text: &str) -> Option<Suffix> {
    Some(match text {
        "" => Suffix::Decimal(0),
        "n" => Suffix::Decimal(-9),
        "u" => Suffix::Decimal(-6),
        "m" => Suffix::Decimal(-3),
        "k" => Suffix::Decimal(3),
        "M" => Suffix::Decimal(6),
        "G" => Suffix::Decimal(9),
        "T" => Suffix::Decimal(12),
        "P" => Suffix::Decimal(15),
        "E" => Suffix::Decimal(18),
        "Ki" => Suffix::Binary(1),
        "Mi" => Suffix::Binary(2),
        "Gi" => Suffix::Binary(3),
        "Ti" => Suffix::Binary(4),
        "Pi" => Suffix::Binary(5),
        "Ei" => Suffix::Binary(6),
        _ => {
            // `1e3`, `5E-2`: a decimal exponent (a lone `E` is exa, above).
            let exponent = text.strip_prefix(['e', 'E'])?;
            let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 4 {
                return None;
            }
            Suffix::Decimal(exponent.parse().ok()?)
        }
    })
}

/// `text` as a whole number of `10^scale` units, rounded up (away from zero for a negative
/// quantity, as Go's `ScaledValue` does): `scale` -9 gives nanocores, 0 bytes.
pub fn scaled(text: &str, scale: i32) -> Result<i128, QuantityError> {
    let malformed = || QuantityError::Malformed(text.to_owned());
    let too_large = || QuantityError::TooLarge(text.to_owned());
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let number_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    let (number, unit) = rest.split_at(number_end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return Err(malformed());
    }
    let suffix = suffix(unit).ok_or_else(malformed)?;
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 36 {
        return Err(too_large());
    }
    let mut value: i128 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| malformed())? };
    let mut exponent = -(fraction.len() as i32) - scale;
    match suffix {
        Suffix::Binary(power) => {
            for _ in 0..power {
                value = value.checked_mul(1024).ok_or_else(too_large)?;
            }
        }
        Suffix::Decimal(power) => exponent += power,
    }
    if exponent >= 0 {
        for _ in 0..exponent {
            value = value.checked_mul(10).ok_or_else(too_large)?;
        }
    } else {
        let divisor = 10_i128.checked_pow(exponent.unsigned_abs()).unwrap_or(i128::MAX);
        value = value / divisor + i128::from(value % divisor != 0);
    }
    Ok(if negative { -value } else { value })
}

/// CPU in nanocores (`250m` → 250000000).
pub fn nanocores(text: &str) -> Result<i128, QuantityError> {
    scaled(text, -9)
}

/// Memory in bytes (`128Mi` → 134217728).
pub fn bytes(text: &str) -> Result<i128, QuantityError> {
    scaled(text, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_apimachinery_reads_them() {
        assert_eq!(nanocores("250m"), Ok(250_000_000));
        assert_eq!(nanocores("1"), Ok(1_000_000_000));
        assert_eq!(nanocores("1.5"), Ok(1_500_000_000));
        assert_eq!(nanocores("43629237n"), Ok(43_629_237));
        assert_eq!(nanocores("1500u"), Ok(1_500_000));
        assert_eq!(nanocores("0"), Ok(0));
        assert_eq!(bytes("128Mi"), Ok(134_217_728));
        assert_eq!(bytes("634824Ki"), Ok(650_059_776));
        assert_eq!(bytes("1Gi"), Ok(1_073_741_824));
        assert_eq!(bytes("2G"), Ok(2_000_000_000));
        assert_eq!(bytes("1e3"), Ok(1000));
        assert_eq!(bytes("1E"), Ok(1_000_000_000_000_000_000));
        assert_eq!(bytes(".5Ki"), Ok(512));
    }

    #[test]
    fn a_finer_quantity_rounds_up_as_scaled_value_does() {
        // Quantity.MilliValue of 43629237n is 44; a byte and a half is two bytes.
        assert_eq!(scaled("43629237n", -3), Ok(44));
        assert_eq!(bytes("1500m"), Ok(2));
        assert_eq!(scaled("44000000n", -3), Ok(44));
    }

    #[test]
    fn what_is_not_a_quantity_is_named() {
        for text in ["", "abc", "1.2.3", "12Q", "Mi", "1e", "1ee3", "."] {
            assert_eq!(bytes(text), Err(QuantityError::Malformed(text.into())), "{text:?}");
        }
        assert!(matches!(bytes("999999999999999999999999999999999999999Ei"), Err(QuantityError::TooLarge(_))));
        assert_eq!(
            QuantityError::Malformed("abc".into()).to_string(),
            "expected a quantity such as 250m or 128Mi, found \"abc\""
        );
    }
}
