//! `collect::<Result<Vec<_>, _>>()` written as a loop.

/// The items of `items` until the first error: what
/// `items.collect::<Result<Vec<_>, _>>()` answers, without the four generic
/// adapters core's version makes for each use (about 1 KB of WebAssembly
/// each).
pub fn all_ok<T, E>(items: impl Iterator<Item = Result<T, E>>) -> Result<Vec<T>, E> {
    let mut all = Vec::with_capacity(items.size_hint().0);
    for item in items {
        all.push(item?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::all_ok;

    #[test]
    fn answers_as_collect_does() {
        let ok: Vec<Result<u8, &str>> = vec![Ok(1), Ok(2)];
        assert_eq!(all_ok(ok.clone().into_iter()), ok.into_iter().collect());
        let failing: Vec<Result<u8, &str>> = vec![Ok(1), Err("a"), Err("b")];
        assert_eq!(
            all_ok(failing.clone().into_iter()),
            failing.into_iter().collect()
        );
    }
}
