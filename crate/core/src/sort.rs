//! Stable sorting compiled once. `slice::sort_by` compiles a whole sort (≈ 3.4 KB of wasm) for
//! every element type and comparison it is called with; these helpers sort a list of indices
//! with the comparison behind a `dyn` (one compiled sort for all of them), then move the
//! elements into that order. The result is exactly `sort_by`'s: a stable sort's order is
//! determined by the comparison. For lists outside the simulator's inner loop (imports,
//! experiment outputs, the page's tables), where a few more comparisons through a pointer
//! cost nothing that shows.

use std::cmp::Ordering;

/// `v.sort_by(cmp)`, stable.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    permute(v, order);
}

/// `v.sort_by_key(key)`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// The indices `0..n` in stable sorted order: position `i` of the sorted list holds element
/// `order[i]`.
fn order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Puts element `order[i]` at position `i`, following each cycle of the permutation by swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for i in 0..v.len() {
        let mut j = i;
        loop {
            let k = order[j];
            order[j] = j;
            if k == i {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Pcg32;

    #[test]
    fn sorts_exactly_as_the_standard_stable_sort() {
        let mut rng = Pcg32::for_seed(7);
        for n in [0usize, 1, 2, 3, 10, 33, 200] {
            // Few distinct keys, so equal keys are common and stability shows.
            let v: Vec<(u64, usize)> = (0..n).map(|i| (rng.range_inclusive(0, 4), i)).collect();
            let mut want = v.clone();
            want.sort_by_key(|x| x.0);
            let mut got = v.clone();
            sort_by_key(&mut got, |x| x.0);
            assert_eq!(got, want, "n = {n}");
            let mut want = v.clone();
            want.sort_by(|a, b| a.0.cmp(&b.0).reverse());
            let mut got = v;
            sort_by(&mut got, |a, b| a.0.cmp(&b.0).reverse());
            assert_eq!(got, want, "n = {n}, descending");
        }
    }
}
