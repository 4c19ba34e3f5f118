//! The one random generator of the engine: PCG32 (PCG-XSH-RR 64/32, O'Neill 2014).
//!
//! Every random choice of a run (message latency, loss, timer values) is drawn from one
//! `Pcg32` seeded by the scenario. The algorithm is written out here rather than taken from a
//! crate so that its stream is fixed by this file alone: a link shared today replays the same run
//! after any dependency upgrade, natively and in wasm32 (only `u64`/`u32` arithmetic, no `usize`).
//! The unit tests pin the reference stream of the PCG paper's demo program.

/// PCG-XSH-RR with 64-bit state and 32-bit output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pcg32 {
    state: u64,
    inc: u64,
}

const MULTIPLIER: u64 = 6_364_136_223_846_793_005;

impl Pcg32 {
    /// Seeds a generator on `stream` (any value; streams are independent sequences).
    pub fn new(seed: u64, stream: u64) -> Self {
        let mut rng = Pcg32 { state: 0, inc: (stream << 1) | 1 };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    /// The generator a scenario with this seed uses (stream fixed to 0x5eed).
    pub fn for_seed(seed: u64) -> Self {
        Self::new(seed, 0x5eed)
    }

    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

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
