//! The runs of consecutive indexes in a sorted list: what a cut kept. A file
//! of its own, with nothing but std, so that the fuzz targets include it
//! (`#[path]`) as the integration tests do: it is a test helper, not part of
//! the crate's API.

/// The runs of consecutive indexes in a sorted list.
#[allow(dead_code)]
pub fn contiguous_runs(indexes: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for &index in indexes {
        match runs.last_mut() {
            Some(run) if run.end == index => run.end += 1,
            _ => runs.push(index..index + 1),
        }
    }
    runs
}
