//! A small, fast hasher for the tables of the crate (the memo's entries,
//! the call ids of `cuts::Pairs`, the bindings' field names). std's default
//! SipHash resists flooding by chosen keys, which a history cannot mount
//! against its own caller, and costs both time per message and about 1 KB
//! of the wasm module; std's `HashMap` is not used at all, since its generic
//! code is about 1.5 KB of the module for each key and value type.

use std::hash::Hasher;

/// FNV-1a over the key's bytes.
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_as_fnv_1a_does() {
        let hash = |bytes: &[u8]| {
            let mut hasher = Fnv1a::default();
            hasher.write(bytes);
            hasher.finish()
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
