//! Numbers as JS prints them, without the standard library's float
//! formatting: that one code path costs about 14 KB of WebAssembly, more than
//! whole features of this package, and error messages and token estimates
//! only need a faithful short text.

/// The text of `value` as `String(value)` gives it in JS for integers and
/// for decimals of up to 15 significant digits: `60000`, `1.5`, `-0.25`,
/// `1e+21`, `NaN`, `Infinity`.
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
    let sign = if value < 0.0 { "-" } else { "" };
    let magnitude = value.abs();
    if magnitude.fract() == 0.0 && magnitude < 1.8e19 {
        return format!("{sign}{}", magnitude as u64);
    }
    // 15 significant digits `digits` with the decimal exponent of the first.
    let mut exponent: i32 = 0;
    let mut scaled = magnitude;
    while scaled >= 10.0 {
        scaled /= 10.0;
        exponent += 1;
    }
    while scaled < 1.0 {
        scaled *= 10.0;
        exponent -= 1;
    }
    let mut digits = (scaled * 1e14).round() as u64;
    if digits >= 1_000_000_000_000_000 {
        digits /= 10;
        exponent += 1;
    }
    let mut text = digits.to_string();
    while text.len() > 1 && text.ends_with('0') {
        text.pop();
    }
    let (first, rest) = text.split_at_checked(1).unwrap_or(("", ""));
    let body = if (-6..21).contains(&exponent) {
        if exponent < 0 {
            format!("0.{}{text}", "0".repeat((-exponent - 1) as usize))
        } else {
            let point = exponent as usize + 1;
            if text.len() <= point {
                format!("{text}{}", "0".repeat(point - text.len()))
            } else {
                let (whole, fraction) = text.split_at_checked(point).unwrap_or((&text, ""));
                format!("{whole}.{fraction}")
            }
        }
    } else {
        let dot = if rest.is_empty() { "" } else { "." };
        let sign = if exponent < 0 { "-" } else { "+" };
        // Unsigned, as the sign is written already: the module formats u32
        // elsewhere, and i32's own formatting would add 0.3 KB.
        format!("{first}{dot}{rest}e{sign}{}", exponent.unsigned_abs())
    };
    format!("{sign}{body}")
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
