//! A small, fast hasher for the maps of the core. std's default SipHash
//! resists flooding by chosen keys, which a history cannot mount against its
//! own caller, and costs both time per message and about 1 KB of the wasm
//! module.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with FNV-1a.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv1a>>;

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
    fn equal_keys_meet_and_different_keys_stay_apart() {
        let mut map: FastMap<&str, usize> = FastMap::default();
        map.insert("call_1", 1);
        map.insert("call_2", 2);
        map.insert("call_1", 3);
        assert_eq!(map.get("call_1"), Some(&3));
        assert_eq!(map.get("call_2"), Some(&2));
        assert_eq!(map.get("call_3"), None);
    }
}
