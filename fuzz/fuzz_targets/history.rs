//! Arbitrary message histories, in every format, through every history
//! function: no panic, and every invariant of `kram_compaction_fuzz::history`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kram_compaction_fuzz::history::run(data));
