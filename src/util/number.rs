//! Numbers as JS prints them (`String(value)`, which `JSON.stringify` uses
//! for a finite number too): the text the estimate prices and the errors
//! show. In WebAssembly, JS prints them itself (`bindings::js_number_text`):
//! the standard library's float formatting that the rule below needs costs
//! about 14 KB of WebAssembly, and the module's own copy of JS's rule cost
//! 1.5 KB and printed at most 15 significant digits where JS prints up to 17.

#[cfg(target_arch = "wasm32")]
pub use crate::bindings::js_number_text as number_text;

/// The text of `value` as `String(value)` gives it in JS: `60000`, `1.5`,
/// `-0.25`, `0.30000000000000004`, `1e-7`, `1e+21`, `NaN`, `Infinity`.
/// ECMAScript's `Number::toString`, from the shortest digits that read back
/// as the same number, which Rust's `{:e}` writes as JS picks them.
#[cfg(not(target_arch = "wasm32"))]
pub fn number_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if value == 0.0 {
        return "0".into();
    }
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    even_on_a_tie(&mut digits, exponent, value.abs());
    // The digits are d1 d2 ... dk, and the value is 0.d1...dk × 10^point.
    let count = digits.len() as i32;
    let point = exponent.parse::<i32>().unwrap_or(0) + 1;
    let body = if count <= point && point <= 21 {
        format!("{digits}{}", "0".repeat((point - count) as usize))
    } else if 0 < point && point <= 21 {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    } else if -6 < point && point <= 0 {
        format!("0.{}{digits}", "0".repeat(-point as usize))
    } else {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let sign = if point > 0 { "+" } else { "-" };
        format!("{first}{dot}{rest}e{sign}{}", (point - 1).unsigned_abs())
    };
    let sign = if value < 0.0 { "-" } else { "" };
    format!("{sign}{body}")
}

/// Where the value lies exactly halfway between two shortest digit strings,
/// JS takes the even one and Rust's `{:e}` the upper: the lower one is
/// taken instead when the upper is odd and the lower reads back as the
/// same number.
#[cfg(not(target_arch = "wasm32"))]
fn even_on_a_tie(digits: &mut String, exponent: &str, value: f64) {
    let last = digits.as_bytes()[digits.len() - 1];
    if last.is_multiple_of(2) {
        return;
    }
    // The exact value's digits: a tie is the shortest ones less one in the
    // last place, then a 5, then nothing.
    let exact = format!("{:.60e}", value);
    let exact: String = exact
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let (head, tail) = exact.split_at(digits.len().min(exact.len()));
    let mut lower = digits.clone();
    lower.pop();
    lower.push(char::from(last - 1));
    let halfway = head == lower
        && tail
            .strip_prefix('5')
            .is_some_and(|rest| rest.bytes().all(|b| b == b'0'));
    let reads_back = format!("0.{lower}e{}", exponent.parse::<i32>().unwrap_or(0) + 1)
        .parse::<f64>()
        == Ok(value);
    if halfway && reads_back {
        *digits = lower;
    }
}

#[cfg(test)]
mod tests {
    use super::number_text;

    #[test]
    fn prints_as_js_does() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (60_000.0, "60000"),
            (-3.0, "-3"),
            (1.5, "1.5"),
            (-0.25, "-0.25"),
            (0.1, "0.1"),
            (3.25159, "3.25159"),
            (123.456, "123.456"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-9, "1.5e-9"),
            (1e21, "1e+21"),
            (2.5e22, "2.5e+22"),
            (1e20, "100000000000000000000"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (123_456_789.123_456_78, "123456789.12345678"),
            (1_733_456_789.123_456_7, "1733456789.1234567"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            // Exactly halfway between two shortest digit strings: the even one.
            (f64::from_bits(0x416b_fbeb_64e8_0000), "14671707.153320312"),
            (f64::from_bits(0x4059_132a_8000_0000), "100.29946899414062"),
            (-1e-7, "-1e-7"),
            (123e-20, "1.23e-18"),
            (0.00001234, "0.00001234"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(value, text) in cases {
            assert_eq!(number_text(value), text, "{value:?}");
        }
    }

    #[test]
    fn short_decimals_print_as_the_standard_library_does() {
        for value in [0.5, 2.75, 10.125, 99.99, 1234.5678, 0.0625, -7.5] {
            assert_eq!(number_text(value), format!("{value}"));
        }
    }
}
