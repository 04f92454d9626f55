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
//! per-destination delivery hook ([`Network::delivered_to`]) is what lets
//! a sharer answer the moment its own copy arrives, before the
//! invalidation reaches the other sharers.

use super::multicast::MulticastModel;
use super::stats::LatencyStats;
use super::Network;
use crate::error::{InputError, InputResult};
use crate::scenario::TrafficCfg;
use crate::topology::{NodeId, Topology};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
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

/// The checks of `traffic.sharers` with the keys it depends on (the model
/// itself is checked with the other workload keys): the histogram with
/// `multicast = "invalidation"`, nothing otherwise; no closed loop (a
/// transaction is not one request).
pub fn validate(t: &TrafficCfg, topo: &Topology) -> InputResult<Option<SharerHistogram>> {
    if t.multicast != MulticastModel::Invalidation {
        if !t.sharers.is_empty() {
            return Err(InputError::new(
                "traffic.sharers",
                format!("{:?}", t.sharers),
                "none unless multicast = \"invalidation\"",
            ));
        }
        return Ok(None);
    }
    if t.window != 0 {
        return Err(InputError::new(
            "traffic.window",
            t.window,
            "0 with multicast = \"invalidation\" (a transaction is a miss, k invalidations and k acks, not one request)",
        ));
    }
    SharerHistogram::new(&t.sharers, topo.nodes()).map(Some)
}

/// The role of a message in its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
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
    roles: HashMap<u32, (Role, u32)>,
    /// (message, node) deliveries of this cycle, answered after the NIs
    /// have consumed (as the closed loop's replies).
    pending: Vec<(u32, NodeId, u64)>,
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
    fn draw(&self, n: u32, u: NodeId, rng: &mut ChaCha8Rng) -> (NodeId, Vec<NodeId>) {
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

impl Network {
    /// A write miss generated at `u`: draws its home and sharers and
    /// queues the miss; its message number.
    pub(super) fn start_transaction(&mut self, u: NodeId) -> u32 {
        let n = self.v.topo.nodes();
        let tr = &self.scenario.traffic;
        let (length, length_max) = (tr.length, tr.length_max);
        let c = self.coherence.as_ref().expect("invalidation traffic");
        let rng = &mut self.rngs[u as usize];
        let (home, sharers) = c.draw(n, u, rng);
        let length = super::draw_length(rng, length, length_max);
        let k = sharers.len() as u32;
        let miss = self
            .submit(u, vec![home], length, None)
            .expect("a miss is a valid unicast");
        let c = self.coherence.as_mut().expect("invalidation traffic");
        let t = c.transactions.len() as u32;
        c.transactions.push(Transaction {
            requester: u,
            home,
            sharers,
            created: self.fabric.cycle,
            acks_left: k,
            done: None,
        });
        c.roles.insert(miss, (Role::Miss, t));
        miss
    }

    /// The per-destination delivery hook: message `msg` reached `node`,
    /// its TAIL delivered at `at`.
    pub(super) fn delivered_to(&mut self, msg: u32, node: NodeId, at: u64) {
        if let Some(c) = &mut self.coherence {
            if c.roles.contains_key(&msg) {
                c.pending.push((msg, node, at));
            }
        }
    }

    /// Answers this cycle's deliveries: a miss at its home sends the
    /// invalidation, an invalidation at a sharer sends its ack, an ack
    /// counts towards its transaction.
    pub(super) fn advance_transactions(&mut self) {
        let c = self.coherence.as_mut().expect("invalidation traffic");
        if c.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut c.pending);
        let tr = &self.scenario.traffic;
        let (length, length_max) = (tr.length, tr.length_max);
        for &(msg, node, at) in &pending {
            let c = self.coherence.as_mut().expect("invalidation traffic");
            let (role, t) = c.roles[&msg];
            match role {
                Role::Miss => {
                    c.roles.remove(&msg);
                    let sharers = c.transactions[t as usize].sharers.clone();
                    let length =
                        super::draw_length(&mut self.rngs[node as usize], length, length_max);
                    let inv = self
                        .submit(node, sharers, length, None)
                        .expect("an invalidation is a valid multicast");
                    let c = self.coherence.as_mut().expect("invalidation traffic");
                    c.roles.insert(inv, (Role::Invalidation, t));
                }
                Role::Invalidation => {
                    let to = c.transactions[t as usize].requester;
                    let length =
                        super::draw_length(&mut self.rngs[node as usize], length, length_max);
                    let ack = self
                        .submit(node, vec![to], length, None)
                        .expect("an ack is a valid unicast");
                    let c = self.coherence.as_mut().expect("invalidation traffic");
                    c.roles.insert(ack, (Role::Ack, t));
                }
                Role::Ack => {
                    c.roles.remove(&msg);
                    let x = &mut c.transactions[t as usize];
                    x.acks_left -= 1;
                    if x.acks_left == 0 {
                        x.done = Some(at);
                    }
                }
            }
        }
        // An invalidation leaves the table once every sharer has it.
        let c = self.coherence.as_mut().expect("invalidation traffic");
        for &(msg, _, _) in &pending {
            if self.msgs[msg as usize].complete() {
                c.roles.remove(&msg);
            }
        }
    }
}

/// `coherence` in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CoherenceStats {
    /// Transactions created in the measurement window and completed (all
    /// acks at the requester).
    pub transactions: u64,
    /// Transactions created in the window but not completed when the run
    /// stopped.
    pub unfinished: u64,
    pub transactions_per_node_cycle: f64,
    /// Mean sharers of the counted transactions, and what the histogram
    /// gives.
    pub sharers_mean: f64,
    pub sharers_expected: f64,
    /// Miss created to last ack delivered, cycles.
    pub latency: LatencyStats,
}

impl CoherenceStats {
    /// The figures of transactions created in `[w0, w1)` on `nodes` nodes.
    pub fn of(c: &Coherence, w0: u64, w1: u64, nodes: u64) -> CoherenceStats {
        let inside: Vec<&Transaction> = c
            .transactions
            .iter()
            .filter(|t| (w0..w1).contains(&t.created))
            .collect();
        let done: Vec<&&Transaction> = inside.iter().filter(|t| t.done.is_some()).collect();
        let lat = done
            .iter()
            .map(|t| t.done.expect("done") - t.created)
            .collect();
        let k: u64 = done.iter().map(|t| t.sharers.len() as u64).sum();
        CoherenceStats {
            transactions: done.len() as u64,
            unfinished: (inside.len() - done.len()) as u64,
            transactions_per_node_cycle: done.len() as f64
                / (nodes * w1.saturating_sub(w0).max(1)) as f64,
            sharers_mean: if done.is_empty() {
                0.0
            } else {
                k as f64 / done.len() as f64
            },
            sharers_expected: c.sharers.mean(),
            latency: LatencyStats::of(lat),
        }
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
