//! The classes of bytes that the estimate's rule tells apart: the one table
//! that the general scan and the block pass's masks (`classes`, outside
//! WebAssembly) read, so that they cannot disagree on what a byte is. The
//! SIMD masks state the same classes as compares of bytes; the JS parity
//! test holds them to this table.

/// What a byte starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Byte {
    Lower,
    Upper,
    Digit,
    Space,
    Newline,
    Escape,
    Punct,
    NonAscii,
}

/// Each byte's class, indexed by the byte.
pub const BYTES: [Byte; 256] = {
    let mut table = [Byte::NonAscii; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = match b as u8 {
            b'a'..=b'z' => Byte::Lower,
            b'A'..=b'Z' => Byte::Upper,
            b'0'..=b'9' => Byte::Digit,
            b' ' | b'\t' => Byte::Space,
            b'\n' | b'\r' => Byte::Newline,
            0x1B => Byte::Escape,
            _ => Byte::Punct,
        };
        b += 1;
    }
    table
};

/// Where the first byte of `bytes` that is not ASCII is: the estimate's
/// first pass over every text. In WebAssembly, 64 bytes an iteration with
/// SIMD up to the block that holds one; then eight at a time.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
pub fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    use core::arch::wasm32::*;
    let mut at = 0;
    for block in bytes.chunks_exact(64) {
        // SAFETY: the four loads read the 64 bytes of `block`; v128_load
        // needs no alignment.
        let high = unsafe {
            let load = |k: usize| v128_load(block.as_ptr().add(16 * k).cast());
            v128_or(v128_or(load(0), load(1)), v128_or(load(2), load(3)))
        };
        if u8x16_bitmask(high) != 0 {
            break;
        }
        at += 64;
    }
    let rest = first_non_ascii_by_words(bytes.get(at..).unwrap_or_default())?;
    Some(at + rest)
}

/// Where the first byte of `bytes` that is not ASCII is: the estimate's
/// first pass over every text.
#[cfg(not(target_arch = "wasm32"))]
pub fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    first_non_ascii_by_words(bytes)
}

/// Where the first byte of `bytes` that is not ASCII is, looking at eight
/// bytes at a time.
#[inline(always)]
fn first_non_ascii_by_words(bytes: &[u8]) -> Option<usize> {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let word = u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]);
        let high = word & HIGH_BITS;
        if high != 0 {
            // The lowest byte with its high bit set comes first.
            return Some(at + high.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let rest = words.remainder().iter().position(|&b| b >= 0x80)?;
    Some(at + rest)
}
