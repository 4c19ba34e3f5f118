//! The one random generator of the engine: PCG32 (PCG-XSH-RR 64/32, O'Neill 2014), from
//! `rand_pcg`, behind a thin wrapper that keeps the engine's own way of turning bits into choices.
//!
//! Every random choice of a run (message latency, loss, timer values) is drawn from one
//! [`Pcg32`] seeded by the scenario. A link shared today must replay the same run after a
//! dependency upgrade, natively and in wasm32, so each layer is pinned by something:
//!
//! * **The bits** come from `rand_pcg::Pcg32` (`Lcg64Xsh32`), the standard `pcg32`. The Rand
//!   project documents its generators as portable and checks them against reference vectors;
//!   the versions are pinned exactly in Cargo.toml, and the unit test below still pins the
//!   reference stream of the PCG paper's demo program (initstate 42, initseq 54).
//! * **Two words make a `u64` high word first** ([`Pcg32::next_u64`]). `rand_core`'s helper puts
//!   the first word in the low half instead; this wrapper keeps the order the engine has always
//!   used, so existing traces draw the same latencies. The [`rand_core::TryRng`] impl (hence
//!   `rand_core::Rng`) uses the same order, so the trait and the inherent methods agree.
//! * **Bits to choices** ([`Pcg32::range_inclusive`], [`Pcg32::chance`]) stay written here
//!   rather than using `rand`'s `random_range` / `random_bool`: the Rand book's reproducibility
//!   chapter allows value-breaking changes to sampling in minor releases, and `rand`'s integer
//!   range sampling is not the method used here, so taking it would change every replay today
//!   and could change them again on an upgrade. Both are a few lines, with the method named.
//!
//! Only `u64`/`u32` arithmetic, no `usize`, no `getrandom`, no clock: the stream is the same on
//! every target. `rand_core` and `rand_pcg` have no other dependencies.

use core::convert::Infallible;
use rand_core::{Rng, TryRng};

/// PCG-XSH-RR with 64-bit state and 32-bit output (`rand_pcg::Pcg32`), plus the engine's
/// sampling methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pcg32(rand_pcg::Pcg32);

impl Pcg32 {
    /// Seeds a generator on `stream` (any value; streams are independent sequences). The same
    /// initialisation as the PCG reference `pcg32_srandom_r(seed, stream)`.
    pub fn new(seed: u64, stream: u64) -> Self {
        Pcg32(rand_pcg::Pcg32::new(seed, stream))
    }

    /// The generator a scenario with this seed uses (stream fixed to 0x5eed).
    pub fn for_seed(seed: u64) -> Self {
        Self::new(seed, 0x5eed)
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// Two draws, the first one in the high half (see the module doc).
    pub fn next_u64(&mut self) -> u64 {
        let hi = self.next_u32() as u64;
        let lo = self.next_u32() as u64;
        (hi << 32) | lo
    }

    /// Uniform integer in `[lo, hi]` (inclusive), without modulo bias (Lemire's method).
    /// Draws nothing when the range holds one value, so fixed latencies cost no randomness.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if lo >= hi {
            return lo;
        }
        let span = hi - lo + 1;
        if span == 0 {
            // The whole u64 range.
            return self.next_u64();
        }
        let threshold = span.wrapping_neg() % span;
        loop {
            let product = (self.next_u64() as u128) * (span as u128);
            if (product as u64) >= threshold {
                return lo + (product >> 64) as u64;
            }
        }
    }

    /// One of `items`, uniformly: the draw of `range_inclusive(0, len − 1)`, so it draws nothing
    /// from a single item. Panics on an empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.range_inclusive(0, items.len() as u64 - 1) as usize]
    }

    /// True with probability `p`. Draws nothing when `p` is 0 or 1.
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        let unit = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        unit < p
    }
}

/// Lets the engine's generator drive anything written against `rand_core` (`rand_core::Rng`
/// comes with it), with the same `u64` word order as the inherent methods.
impl TryRng for Pcg32 {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(Pcg32::next_u32(self))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(Pcg32::next_u64(self))
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        self.0.try_fill_bytes(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_pcg_reference_stream() {
        // pcg32-global-demo: initstate 42, initseq 54.
        let mut rng = Pcg32::new(42, 54);
        let got: Vec<u32> = (0..6).map(|_| rng.next_u32()).collect();
        assert_eq!(got, vec![0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]);
    }

    #[test]
    fn u64_words_are_high_first_through_the_trait_too() {
        let mut a = Pcg32::new(42, 54);
        assert_eq!(a.next_u64(), 0xa15c02b7_7b47f409);
        let mut b = Pcg32::new(42, 54);
        assert_eq!(Rng::next_u64(&mut b), 0xa15c02b7_7b47f409);
        assert_eq!(Rng::next_u32(&mut b), 0xba1d3330);
    }

    /// The first draws of the scenario generator, as the hand-written PCG32 this module held
    /// before gave them: any change here changes every replay.
    #[test]
    fn scenario_stream_is_unchanged() {
        let mut rng = Pcg32::for_seed(425);
        let got: Vec<u64> = (0..4).map(|_| rng.range_inclusive(1, 1000)).collect();
        assert_eq!(got, vec![597, 615, 241, 852]);
        let coins: Vec<bool> = (0..8).map(|_| rng.chance(0.5)).collect();
        assert_eq!(coins, vec![false, false, false, true, true, true, false, true]);
        assert_eq!(rng.next_u64(), 0x96c4_7765_8a44_8877);
    }

    #[test]
    fn range_stays_inside_and_hits_both_ends() {
        let mut rng = Pcg32::for_seed(7);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let v = rng.range_inclusive(3, 7);
            assert!((3..=7).contains(&v));
            seen[(v - 3) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(rng.range_inclusive(4, 4), 4);
    }

    #[test]
    fn fixed_choices_draw_nothing() {
        let mut a = Pcg32::for_seed(1);
        let b = a.clone();
        a.range_inclusive(5, 5);
        a.chance(0.0);
        a.chance(1.0);
        assert_eq!(a, b);
    }

    #[test]
    fn chance_is_roughly_calibrated() {
        let mut rng = Pcg32::for_seed(99);
        let hits = (0..10_000).filter(|_| rng.chance(0.25)).count();
        assert!((2200..2800).contains(&hits), "{hits}");
    }
}
