//! Joining texts with a separator. `[T]::join` is instantiated once for
//! `String` parts and once for `&str` parts, about 1 KB of the wasm module
//! each; this one loop serves both.

/// The parts, in order, with `separator` between each two.
pub fn join<'a>(parts: impl IntoIterator<Item = &'a str>, separator: &str) -> String {
    let mut out = String::new();
    for (index, part) in parts.into_iter().enumerate() {
        if index > 0 {
            out.push_str(separator);
        }
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn separates_each_two_parts() {
        assert_eq!(join([], ", "), "");
        assert_eq!(join(["a"], ", "), "a");
        assert_eq!(join(["a", "", "c"], "\n"), "a\n\nc");
    }
}
