//! FNV-1a, the one non-cryptographic hash of the engine: its values are the same on every
//! machine, build and run (std's default hasher is keyed at random), so they may be stored in
//! traces, links and parts and compared later. One definition for every use: the checker's state
//! fingerprints ([`Fnv64`]), a sweep part's spec hash, the DHT's key positions, the catalog's key
//! hashes (32 bits, also computed by `build.rs`, which includes this file), the trace hash's start.
//!
//! This file uses nothing but `core`/`std`: `build.rs` compiles it on its own.

use std::hash::{Hash, Hasher};

/// FNV-1a's 64-bit offset basis: the hash of no bytes.
pub const OFFSET_64: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME_64: u64 = 0x0100_0000_01b3;
const OFFSET_32: u32 = 0x811c_9dc5;
const PRIME_32: u32 = 0x0100_0193;

/// 64-bit FNV-1a of `bytes`, continuing from `h` (start from [`OFFSET_64`]).
pub const fn fnv1a_64_from(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h = (h ^ bytes[i] as u64).wrapping_mul(PRIME_64);
        i += 1;
    }
    h
}

/// 64-bit FNV-1a of `bytes`.
pub const fn fnv1a_64(bytes: &[u8]) -> u64 {
    fnv1a_64_from(OFFSET_64, bytes)
}

/// 32-bit FNV-1a of `bytes` (the catalog's key hashes).
pub const fn fnv1a_32(bytes: &[u8]) -> u32 {
    let mut h = OFFSET_32;
    let mut i = 0;
    while i < bytes.len() {
        h = (h ^ bytes[i] as u32).wrapping_mul(PRIME_32);
        i += 1;
    }
    h
}

/// [`fnv1a_64`] as a [`Hasher`], for values that derive `Hash` (the checker's fingerprints).
/// Integers are fed as their little-endian bytes, so a value hashes the same on every target.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(pub u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(OFFSET_64)
    }
}

impl Hasher for Fnv64 {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a_64_from(self.0, bytes);
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.write(&x.to_le_bytes());
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `x`'s [`Fnv64`] hash.
pub fn fnv<T: Hash + ?Sized>(x: &T) -> u64 {
    let mut h = Fnv64::default();
    x.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a test vectors (the empty string and "a", "foobar").
    #[test]
    fn known_values() {
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn the_hasher_is_the_function() {
        let mut h = Fnv64::default();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a_64(b"foobar"));
    }
}
