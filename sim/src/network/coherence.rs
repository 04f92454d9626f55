//! Directory-coherence invalidations (`traffic.multicast = "invalidation"`):
//! the multicast traffic of a write miss to a shared line, as a directory
//! protocol generates it.
//!
//! A generated multicast becomes a *transaction* of four steps:
//!
//! 1. the **miss**: a unicast from the requester to the line's home node,
//!    drawn uniformly among the other nodes (a uniformly random address
//!    over homes interleaved line by line gives the same distribution; a
//!    home equal to the requester would be a local directory access with
//!    no network traffic, so it is not drawn);
//! 2. on the miss's delivery the home multicasts an **invalidation** to
//!    the line's k sharers: k drawn from the `traffic.sharers` histogram,
//!    the sharers uniformly among the nodes other than the requester and
//!    the home (so k ≤ N − 2);
//! 3. each sharer, on receiving its invalidation, sends an
//!    **acknowledgement** unicast straight to the requester;
//! 4. the transaction is done when the requester has all k acks: its
//!    latency runs from the miss's creation to the last ack's delivery.
//!
//! Every message of a transaction is an ordinary message of the run (the
//! scoreboard checks it, the multicast goes by the run's scheme: DSTM
//! trees, SPAM, path-based worms), with a length drawn like any generated
//! message's. The draws use the random stream of the node that sends
//! (requester, then home), so a run is deterministic per seed. The
//! per-destination delivery hook (`network::transactions`) is what lets a
//! sharer answer the moment its own copy arrives, before the invalidation
//! reaches the other sharers. This file holds the definitions the scenario
//! checks use; the running part is `network::transactions`, the report's
//! figures `network::stats::CoherenceStats`.

use super::multicast::MulticastModel;
use crate::error::{InputError, InputResult};
use crate::topology::NodeId;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// `traffic.sharers` made concrete: `(k, weight)` pairs with their total.
#[derive(Debug, Clone, PartialEq)]
pub struct SharerHistogram {
    pub bins: Vec<(u32, f64)>,
    pub total: f64,
}

impl SharerHistogram {
    /// Checks `traffic.sharers` on a network of `nodes`: at least one bin,
    /// each sharer count from 1 to `nodes − 2` and given once, weights
    /// finite and ≥ 0 with a positive sum.
    pub fn new(bins: &[(u32, f64)], nodes: u32) -> InputResult<SharerHistogram> {
        let field = "traffic.sharers";
        let shown = || {
            let v: Vec<String> = bins.iter().map(|(k, w)| format!("[{k}, {w}]")).collect();
            format!("[{}]", v.join(", "))
        };
        if nodes < 3 {
            return Err(InputError::new(
                "traffic.multicast",
                "invalidation",
                "a network of at least 3 nodes (requester, home and a sharer)",
            ));
        }
        let max_k = nodes - 2;
        if bins.is_empty() {
            return Err(InputError::new(
                field,
                "[]",
                format!("at least one [k, weight] pair with multicast = \"invalidation\", e.g. [[2, 0.5], [8, 0.3], [{}, 0.2]]", max_k.min(64)),
            ));
        }
        for (i, &(k, w)) in bins.iter().enumerate() {
            if !(1..=max_k).contains(&k) {
                return Err(InputError::new(
                    format!("{field}[{i}]"),
                    format!("[{k}, {w}]"),
                    format!("a sharer count k from 1 to {max_k} (nodes other than the requester and the home)"),
                ));
            }
            if !(w.is_finite() && w >= 0.0) {
                return Err(InputError::new(
                    format!("{field}[{i}]"),
                    format!("[{k}, {w}]"),
                    "a weight that is a finite number ≥ 0",
                ));
            }
            if bins[..i].iter().any(|&(j, _)| j == k) {
                return Err(InputError::new(
                    format!("{field}[{i}]"),
                    format!("[{k}, {w}]"),
                    "each sharer count once",
                ));
            }
        }
        let total: f64 = bins.iter().map(|&(_, w)| w).sum();
        if !(total > 0.0 && total.is_finite()) {
            return Err(InputError::new(
                field,
                shown(),
                "weights with a positive, finite sum",
            ));
        }
        Ok(SharerHistogram {
            bins: bins.to_vec(),
            total,
        })
    }

    /// One sharer count, with probability weight / total.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> u32 {
        let mut r = rng.gen::<f64>() * self.total;
        for &(k, w) in &self.bins {
            if r < w {
                return k;
            }
            r -= w;
        }
        // Rounding left r at the total: the last bin with weight.
        self.bins
            .iter()
            .rev()
            .find(|&&(_, w)| w > 0.0)
            .expect("a positive total")
            .0
    }

    /// The mean sharer count the histogram gives.
    pub fn mean(&self) -> f64 {
        self.bins.iter().map(|&(k, w)| k as f64 * w).sum::<f64>() / self.total
    }
}

/// The checks of `traffic.sharers` (`sharers`) with the keys it depends
/// on, `traffic.multicast` (`model`) and `traffic.window` (`window`), on
/// `nodes` nodes (the model itself is checked with the other workload
/// keys): the histogram with `multicast = "invalidation"`, nothing
/// otherwise; no closed loop (a transaction is not one request).
pub fn validate(
    model: MulticastModel,
    sharers: &[(u32, f64)],
    window: u32,
    nodes: u32,
) -> InputResult<Option<SharerHistogram>> {
    if model != MulticastModel::Invalidation {
        if !sharers.is_empty() {
            return Err(InputError::new(
                "traffic.sharers",
                format!("{sharers:?}"),
                "none unless multicast = \"invalidation\"",
            ));
        }
        return Ok(None);
    }
    if window != 0 {
        return Err(InputError::new(
            "traffic.window",
            window,
            "0 with multicast = \"invalidation\" (a transaction is a miss, k invalidations and k acks, not one request)",
        ));
    }
    SharerHistogram::new(sharers, nodes).map(Some)
}

/// The role of a message in its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Miss,
    Invalidation,
    Ack,
}

/// One write miss and its invalidations.
#[derive(Debug, Clone)]
pub struct Transaction {
    pub requester: NodeId,
    pub home: NodeId,
    /// Sorted.
    pub sharers: Vec<NodeId>,
    /// Cycle the miss was created.
    pub created: u64,
    pub acks_left: u32,
    /// Cycle the last ack was delivered.
    pub done: Option<u64>,
}

/// The transactions of a run and the messages that belong to them.
#[derive(Debug, Clone)]
pub struct Coherence {
    pub sharers: SharerHistogram,
    pub transactions: Vec<Transaction>,
    /// Message number → (role, transaction).
    pub(super) roles: HashMap<u32, (Role, u32)>,
    /// (message, node, delivery stamp) of this cycle, answered after the
    /// NIs have consumed (as the closed loop's replies).
    pub(super) pending: Vec<(u32, NodeId, u64)>,
}

impl Coherence {
    pub fn new(sharers: SharerHistogram) -> Coherence {
        Coherence {
            sharers,
            transactions: Vec::new(),
            roles: HashMap::new(),
            pending: Vec::new(),
        }
    }

    /// Draws the home and the sharers of a miss from `u` on `n` nodes.
    pub(super) fn draw(&self, n: u32, u: NodeId, rng: &mut ChaCha8Rng) -> (NodeId, Vec<NodeId>) {
        let skip = |i: u32, x: NodeId| if i >= x { i + 1 } else { i };
        let home = skip(rng.gen_range(0..n - 1), u);
        let k = self.sharers.draw(rng);
        let (lo, hi) = (u.min(home), u.max(home));
        let mut sharers: Vec<NodeId> = rand::seq::index::sample(rng, (n - 2) as usize, k as usize)
            .into_iter()
            .map(|i| skip(skip(i as u32, lo), hi))
            .collect();
        sharers.sort_unstable();
        (home, sharers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn homes_and_sharers_are_distinct_other_nodes() {
        let h = SharerHistogram::new(&[(1, 1.0), (14, 1.0)], 16).unwrap();
        let c = Coherence::new(h);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut ks = [0u32; 2];
        for i in 0..2000 {
            let u = i % 16;
            let (home, s) = c.draw(16, u, &mut rng);
            assert_ne!(home, u);
            assert!(home < 16);
            assert!(s.iter().all(|&v| v != u && v != home && v < 16));
            assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
            ks[(s.len() == 14) as usize] += 1;
            assert!(s.len() == 1 || s.len() == 14);
        }
        // Equal weights: about half each (binomial, 2000 draws, 5 sigma).
        assert!((ks[0] as i64 - 1000).abs() < 120, "{ks:?}");
    }

    #[test]
    fn the_histogram_draws_its_weights() {
        let h = SharerHistogram::new(&[(2, 0.5), (8, 0.3), (64, 0.2), (3, 0.0)], 256).unwrap();
        assert!((h.mean() - (1.0 + 2.4 + 12.8)).abs() < 1e-9);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut count = HashMap::new();
        let n = 20_000;
        for _ in 0..n {
            *count.entry(h.draw(&mut rng)).or_insert(0u32) += 1;
        }
        assert_eq!(count.get(&3), None, "a zero weight is never drawn");
        for (k, p) in [(2, 0.5), (8, 0.3), (64, 0.2)] {
            let f = count[&k] as f64 / n as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((f - p).abs() < 5.0 * sd, "k = {k}: {f} vs {p}");
        }
    }

    #[test]
    fn bad_histograms_are_refused_by_name() {
        let e = |bins: &[(u32, f64)], n| SharerHistogram::new(bins, n).unwrap_err();
        assert_eq!(e(&[], 16).field, "traffic.sharers");
        let x = e(&[(2, 1.0), (15, 1.0)], 16);
        assert_eq!(x.field, "traffic.sharers[1]");
        assert!(x.allowed.contains("1 to 14"), "{x}");
        assert!(e(&[(0, 1.0)], 16).allowed.contains("1 to 14"));
        assert!(e(&[(2, -0.5)], 16).allowed.contains("≥ 0"));
        assert!(e(&[(2, f64::NAN)], 16).allowed.contains("finite"));
        assert!(e(&[(2, 0.0)], 16).allowed.contains("positive"));
        assert!(e(&[(2, 1.0), (2, 1.0)], 16).allowed.contains("once"));
        assert_eq!(e(&[(1, 1.0)], 2).field, "traffic.multicast");
    }
}
