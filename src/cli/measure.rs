//! What the benchmarks (`bench`, `bench --verilator`) share to summarise
//! repeated timings.

/// The median of `v` (the upper one of an even count); `v` is not empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
