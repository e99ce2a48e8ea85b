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
    /// Punctuation: every other byte.
    pub punct: u64,
    /// ESC, which opens a terminal's escape sequence.
    pub escape: u64,
    /// Bytes equal to the byte before them.
    pub repeat: u64,
}

impl Classes {
    /// The classes of a block whose bytes outside `there` are zeros put
    /// there to fill it, now of no class. A zero byte is punctuation and
    /// nothing else, so only that mask changes (`repeat` is read only
    /// together with it).
    pub fn within(self, there: u64) -> Classes {
        Classes {
            punct: self.punct & there,
            ..self
        }
    }
}

/// The classes of `block`, `previous` being the byte before it.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
pub fn classes(block: &[u8; BLOCK], previous: u8) -> Classes {
    use super::bytes::{Byte, BYTES};
    let mut out = Classes::default();
    let mut before = previous;
    for (i, &byte) in block.iter().enumerate() {
        let bit = 1u64 << i;
        let class = BYTES[byte as usize];
        match class {
            Byte::Lower => out.lower |= bit,
            Byte::Upper => {}
            Byte::Digit => out.digit |= bit,
            Byte::Space => out.blank |= bit,
            Byte::Newline => out.newline |= bit,
            Byte::Escape => out.escape |= bit,
            Byte::Punct | Byte::NonAscii => out.punct |= bit,
        }
        if matches!(class, Byte::Lower | Byte::Upper) {
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
    // Written out four times, not looped: a loop over the four kept them
    // in memory (the size-optimised build does not unroll).
    let first = load(0);
    let second = load(16);
    let third = load(32);
    let fourth = load(48);
    let q = [
        quarter(first, u8x16_splat(previous)),
        quarter(second, first),
        quarter(third, second),
        quarter(fourth, third),
    ];
    let letter = join(q[0].letter, q[1].letter, q[2].letter, q[3].letter);
    let digit = join(q[0].digit, q[1].digit, q[2].digit, q[3].digit);
    let blank = join(q[0].blank, q[1].blank, q[2].blank, q[3].blank);
    let newline = join(q[0].newline, q[1].newline, q[2].newline, q[3].newline);
    let escape = join(q[0].escape, q[1].escape, q[2].escape, q[3].escape);
    Classes {
        lower: letter & join(q[0].bit_5, q[1].bit_5, q[2].bit_5, q[3].bit_5),
        letter,
        digit,
        blank,
        newline,
        punct: !(letter | digit | blank | newline | escape),
        escape,
        repeat: join(q[0].repeat, q[1].repeat, q[2].repeat, q[3].repeat),
    }
}

/// The masks of four quarters of a block, the first in the low bits.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn join(first: u16, second: u16, third: u16, fourth: u16) -> u64 {
    first as u64 | (second as u64) << 16 | (third as u64) << 32 | (fourth as u64) << 48
}

/// The classes of sixteen bytes, one bit a byte.
#[cfg(target_arch = "wasm32")]
struct Quarter {
    letter: u16,
    /// Bit 5 of each byte, which a small letter has and a capital lacks.
    bit_5: u16,
    digit: u16,
    blank: u16,
    newline: u16,
    repeat: u16,
    escape: u16,
}

/// The classes of the sixteen bytes of `v`, after the sixteen of `before`.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn quarter(v: core::arch::wasm32::v128, before: core::arch::wasm32::v128) -> Quarter {
    use core::arch::wasm32::*;
    // ASCII letters, small or capital: (v | 0x20) in a..=z, as a signed
    // compare after moving `a` to -128.
    let folded = i8x16_add(v128_or(v, u8x16_splat(0x20)), u8x16_splat(0x80 - b'a'));
    let letter = i8x16_lt(folded, i8x16_splat(-128 + 26));
    let digit = i8x16_lt(
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
    // The byte before each: the last of `before`, then the first fifteen.
    let shifted =
        i8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(before, v);
    Quarter {
        letter: u8x16_bitmask(letter),
        bit_5: u8x16_bitmask(i8x16_shl(v, 2)),
        digit: u8x16_bitmask(digit),
        blank: u8x16_bitmask(blank),
        newline: u8x16_bitmask(newline),
        repeat: u8x16_bitmask(i8x16_eq(v, shifted)),
        escape: u8x16_bitmask(i8x16_eq(v, u8x16_splat(0x1B))),
    }
}
