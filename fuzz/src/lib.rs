//! What the fuzz targets share: the generators of fuzzed input and the
//! invariants checked on it. Each target in `fuzz_targets/` is one call here.

pub mod gen;
pub mod history;
