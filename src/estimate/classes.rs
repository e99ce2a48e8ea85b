//! The byte classes of a block of 64 ASCII bytes as bitmasks, one bit a
//! byte (bit `i` for byte `i`), so that the estimate can price many bytes
//! with a few operations on whole words. In WebAssembly they are built with
//! SIMD, sixteen bytes an instruction; elsewhere with a plain loop over the
//! same classes, so that native tests check the arithmetic built on them.

/// The bytes of a block.
pub const BLOCK: usize = 64;

/// The classes of the bytes of one block.
#[derive(Clone, Copy, Default)]
pub struct Classes {
    /// Small letters.
    pub lower: u64,
    /// Letters, small or capital.
    pub letter: u64,
    pub digit: u64,
    /// Spaces and tabs.
    pub blank: u64,
    /// `\n` and `\r`.
    pub newline: u64,
    /// Punctuation: every other byte (ESC too: a block that holds one is
    /// not priced from the masks).
    pub punct: u64,
    /// Bytes equal to the byte before them.
    pub repeat: u64,
    /// Whether the block holds an ESC, which the masks do not price.
    pub escape: bool,
}

/// The classes of `block`, `previous` being the byte before it.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
pub fn classes(block: &[u8; BLOCK], previous: u8) -> Classes {
    use super::bytes::{class, Byte};
    let mut out = Classes::default();
    let mut before = previous;
    for (i, &byte) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match class(byte) {
            Byte::Lower => out.lower |= bit,
            Byte::Upper => {}
            Byte::Digit => out.digit |= bit,
            Byte::Space => out.blank |= bit,
            Byte::Newline => out.newline |= bit,
            Byte::Escape => {
                out.escape = true;
                out.punct |= bit;
            }
            Byte::Punct | Byte::NonAscii => out.punct |= bit,
        }
        if matches!(class(byte), Byte::Lower | Byte::Upper) {
            out.letter |= bit;
        }
        if byte == before {
            out.repeat |= bit;
        }
        before = byte;
    }
    out
}

/// The classes of `block`, `previous` being the byte before it: sixteen
/// bytes at a time, with WebAssembly SIMD.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
pub fn classes(block: &[u8; BLOCK], previous: u8) -> Classes {
    use core::arch::wasm32::*;
    let load = |at: usize| -> v128 {
        // SAFETY: `at` is 0, 16, 32 or 48, so the 16 bytes read are inside
        // the 64 of `block`; v128_load needs no alignment.
        unsafe { v128_load(block.as_ptr().add(at).cast()) }
    };
    let vectors = [load(0), load(16), load(32), load(48)];
    let mut out = Classes::default();
    let mut escape = u8x16_splat(0);
    let mut before = u8x16_splat(previous);
    for (k, &v) in vectors.iter().enumerate() {
        let shift = 16 * k as u32;
        // ASCII letters, small or capital: (v | 0x20) in a..=z, as a signed
        // compare after moving `a` to -128.
        let folded = i8x16_add(v128_or(v, u8x16_splat(0x20)), u8x16_splat(0x80 - b'a'));
        let letter = i8x16_lt(folded, i8x16_splat(-128 + 26));
        // Small letters have bit 5 set: shifted to the sign bit.
        let small = u8x16_bitmask(i8x16_shl(v, 2));
        let digits = i8x16_lt(
            i8x16_add(v, u8x16_splat(0x80 - b'0')),
            i8x16_splat(-128 + 10),
        );
        let blank = v128_or(
            i8x16_eq(v, u8x16_splat(b' ')),
            i8x16_eq(v, u8x16_splat(b'\t')),
        );
        let newline = v128_or(
            i8x16_eq(v, u8x16_splat(b'\n')),
            i8x16_eq(v, u8x16_splat(b'\r')),
        );
        escape = v128_or(escape, i8x16_eq(v, u8x16_splat(0x1B)));
        // The byte before each: the last of the vector before, then this
        // one's first fifteen.
        let shifted = i8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(
            before, v,
        );
        before = v;
        let letter = u8x16_bitmask(letter) as u64;
        let digit = u8x16_bitmask(digits) as u64;
        let blank = u8x16_bitmask(blank) as u64;
        let newline = u8x16_bitmask(newline) as u64;
        out.letter |= letter << shift;
        out.lower |= (letter & small as u64) << shift;
        out.digit |= digit << shift;
        out.blank |= blank << shift;
        out.newline |= newline << shift;
        out.repeat |= (u8x16_bitmask(i8x16_eq(v, shifted)) as u64) << shift;
    }
    out.punct = !(out.letter | out.digit | out.blank | out.newline);
    out.escape = v128_any_true(escape);
    out
}
