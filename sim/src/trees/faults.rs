//! Combined diameter and average distance of a pair of edge-disjoint
//! spanning trees with one faulty link, \[DSTM\] §7 (Figs. 11 and 12).
//!
//! A single faulty link `f` disconnects at most one tree, the *faulty* tree
//! `T_i`; the other, `T_g`, stays spanning. If `f` is one of the two unused
//! links nothing changes. Removing `f` from `T_i` splits it into the subtree
//! `S` below `f` (rooted at the child end `c`) and the rest (holding the
//! parent end `p`); the `T_i` path between `a` and `b` uses `f` exactly when
//! one of them is in `S`.
//!
//! # Global fault information (Fig. 11)
//! Every node knows the fault, so distance tables treat `f` as infinitely
//! long (§7): `d(a,b) = d_g(a,b)` if the `T_i` path uses `f`, otherwise the
//! usual `min(d_0, d_1)`. Symmetric.
//!
//! # Local fault information (Fig. 12)
//! Only the two ends of `f` know. The source does not, so it picks the tree
//! exactly as without a fault (`dstm::policy::unicast_tree`: the shorter
//! fault-free path, ties to tree 0), call it `T_t`:
//! * if `t = g`, or the `T_t` path does not use `f`: the normal distance
//!   `d_t(a,b) = min(d_0, d_1)`;
//! * otherwise the message follows `T_i` up to `r`, the end of `f` on `a`'s
//!   side (`c` if `a ∈ S`, else `p`), which consumes it and re-injects it on
//!   the good tree "as if R is the source" (§7): `d = d_i(a,r) + d_g(r,b)`.
//!   If `a = r` this is just `d_g(a,b)` (the source's own router holds it back
//!   and it leaves again on `T_g`). The second start-up is a time cost, not a
//!   hop, so it is not in `d`.
//!
//! The local distance is not symmetric (`r` depends on the direction), so
//! local CD and AD run over ordered pairs: `AD = Σ_{a≠b} d / (n(n−1))`. For
//! global information this equals the unordered average.
//!
//! Faults are drawn uniformly from all 2N links of the torus, with
//! replacement, by `ChaCha8Rng::seed_from_u64(seed)`; the paper's "500 trials
//! with a single faulty link chosen at random".

use crate::error::{InputError, InputResult};
use crate::topology::{EdgeId, NodeId};
use crate::trees::dist::{par_map, DistTable};
use crate::trees::SpanningTree;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Who knows about the fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultInfo {
    Global,
    Local,
}

impl FaultInfo {
    /// Scenario spelling (`network.fault_info`).
    pub fn name(self) -> &'static str {
        match self {
            FaultInfo::Global => "global",
            FaultInfo::Local => "local",
        }
    }
}

/// `network.fault_info` as written.
impl std::str::FromStr for FaultInfo {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<FaultInfo> {
        [FaultInfo::Global, FaultInfo::Local]
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                InputError::new(
                    "fault_info",
                    s,
                    "global or local (who knows about the faulty link, paper 000 §7)",
                )
            })
    }
}

impl std::fmt::Display for FaultInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One faulty link that lies on a tree of a pair (§7): which tree it breaks,
/// which stays good, and the link's two ends in the broken tree. The one
/// definition used by the analytic metrics ([`FaultModel`]) and by the
/// simulated source policy (`dstm::policy`) and local diversion (`network`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SingleFault {
    pub link: EdgeId,
    /// Index of the tree holding the link (the faulty tree `T_i`).
    pub tree: usize,
    /// Index of the other tree (`T_g`), intact.
    pub good: usize,
    /// The link's end that is the child in `T_i`: the root of the subtree
    /// `S` cut off by the fault.
    pub child: NodeId,
    /// The other end (parent of `child` in `T_i`).
    pub parent: NodeId,
}

impl SingleFault {
    /// `None` when `f` lies on neither tree (an unused link: nothing
    /// changes). Needs exactly two trees.
    pub fn new(trees: &[SpanningTree], f: EdgeId) -> Option<SingleFault> {
        if trees.len() != 2 {
            return None;
        }
        let i = trees.iter().position(|t| t.contains_edge(f))?;
        let ti = &trees[i];
        let topo = ti.topo;
        let (u, v) = topo.edge_ends(f);
        let child_of_f =
            |x: NodeId| ti.parent_port[x as usize].and_then(|d| topo.edge(x, d)) == Some(f);
        let (c, p) = if child_of_f(u) { (u, v) } else { (v, u) };
        debug_assert!(child_of_f(c));
        Some(SingleFault {
            link: f,
            tree: i,
            good: 1 - i,
            child: c,
            parent: p,
        })
    }

    /// Whether the `T_i` path between `a` and `b` uses the faulty link:
    /// exactly one of them lies in the cut-off subtree `S`.
    pub fn crosses(&self, trees: &[SpanningTree], a: NodeId, b: NodeId) -> bool {
        let t = &trees[self.tree];
        t.is_ancestor(self.child, a) != t.is_ancestor(self.child, b)
    }
}

/// CD/AD of a pair of trees with one faulty link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultMetrics {
    pub faulty_link: EdgeId,
    /// Index of the tree holding the faulty link, `None` for an unused link.
    pub faulty_tree: Option<usize>,
    pub combined_diameter: u32,
    /// Exact `Σ_{a≠b} d(a,b)` over ordered pairs.
    pub distance_sum: u64,
    /// `n(n−1)`.
    pub ordered_pairs: u64,
    pub average_distance: f64,
}

/// Precomputed all-pairs tables of both trees, reused across faults.
pub struct FaultModel<'a> {
    pub trees: &'a [SpanningTree; 2],
    tables: [DistTable; 2],
}

impl<'a> FaultModel<'a> {
    pub fn new(trees: &'a [SpanningTree; 2]) -> InputResult<FaultModel<'a>> {
        if trees[0].topo != trees[1].topo {
            return Err(InputError::new(
                "trees",
                format!("{} and {}", trees[0].topo, trees[1].topo),
                "two trees of the same topology",
            ));
        }
        if !trees[0].topo.is_torus() {
            return Err(InputError::new(
                "topology",
                trees[0].topo,
                "a torus (two edge-disjoint spanning trees exist only there, paper 000 §8)",
            ));
        }
        if trees[0].edges.iter().any(|&e| trees[1].contains_edge(e)) {
            return Err(InputError::new(
                "trees",
                "sharing a link",
                "edge-disjoint trees: a single fault must leave one tree intact (§7)",
            ));
        }
        Ok(FaultModel {
            trees,
            tables: [DistTable::new(&trees[0]), DistTable::new(&trees[1])],
        })
    }

    /// CD and AD with link `f` faulty.
    pub fn metrics(&self, f: EdgeId, info: FaultInfo) -> InputResult<FaultMetrics> {
        let topo = self.trees[0].topo;
        if !topo.edge_exists(f) {
            return Err(InputError::new(
                "faulty link",
                f,
                format!("a link id of {topo} below {}", topo.edge_slots()),
            ));
        }
        let n = topo.nodes() as usize;
        let faulty = self.trees.iter().position(|t| t.contains_edge(f));
        let (t0, t1) = (&self.tables[0], &self.tables[1]);
        let (mut cd, mut sum) = (0u32, 0u64);
        match faulty {
            None => {
                for a in 0..n as NodeId {
                    let (r0, r1) = (t0.row(a), t1.row(a));
                    for b in (0..n).filter(|&b| b != a as usize) {
                        let d = r0[b].min(r1[b]) as u32;
                        cd = cd.max(d);
                        sum += d as u64;
                    }
                }
            }
            Some(_) => {
                let sf = SingleFault::new(&self.trees[..], f).expect("f is a tree link");
                let (i, g, c, p) = (sf.tree, sf.good, sf.child, sf.parent);
                let ti = &self.trees[i];
                let in_s: Vec<bool> = (0..n as NodeId).map(|x| ti.is_ancestor(c, x)).collect();
                let (di, dg) = (&self.tables[i], &self.tables[g]);
                for a in 0..n as NodeId {
                    let (r0, r1, rg) = (t0.row(a), t1.row(a), dg.row(a));
                    let sa = in_s[a as usize];
                    let r = if sa { c } else { p };
                    let (d_ar, rrow) = (di.get(a, r), dg.row(r));
                    for b in (0..n).filter(|&b| b != a as usize) {
                        let crossing = sa != in_s[b];
                        let (d0, d1) = (r0[b], r1[b]);
                        let d = match info {
                            FaultInfo::Global if crossing => rg[b] as u32,
                            FaultInfo::Local if crossing => {
                                let t = if d1 < d0 { 1 } else { 0 };
                                if t == i {
                                    d_ar + rrow[b] as u32
                                } else {
                                    d0.min(d1) as u32
                                }
                            }
                            _ => d0.min(d1) as u32,
                        };
                        cd = cd.max(d);
                        sum += d as u64;
                    }
                }
            }
        }
        let pairs = (n as u64) * (n as u64 - 1);
        Ok(FaultMetrics {
            faulty_link: f,
            faulty_tree: faulty,
            combined_diameter: cd,
            distance_sum: sum,
            ordered_pairs: pairs,
            average_distance: sum as f64 / pairs as f64,
        })
    }
}

/// The random faulty links of `trials` trials (uniform over all links, with
/// replacement).
pub fn random_faults(
    topo: &crate::topology::Topology,
    seed: u64,
    trials: u32,
) -> InputResult<Vec<EdgeId>> {
    if trials == 0 {
        return Err(InputError::new(
            "trials",
            trials,
            "at least 1 random faulty link (the paper uses 500)",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Ok((0..trials)
        .map(|_| rng.gen_range(0..topo.edge_slots()))
        .collect())
}

/// Average and maximum over trials of CD and AD for one kind of information.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultSummary {
    pub mean_cd: f64,
    pub max_cd: u32,
    pub mean_ad: f64,
    pub max_ad: f64,
}

fn summarize(ms: &[FaultMetrics]) -> FaultSummary {
    let k = ms.len() as f64;
    FaultSummary {
        mean_cd: ms.iter().map(|m| m.combined_diameter as f64).sum::<f64>() / k,
        max_cd: ms.iter().map(|m| m.combined_diameter).max().unwrap_or(0),
        mean_ad: ms.iter().map(|m| m.average_distance).sum::<f64>() / k,
        max_ad: ms.iter().map(|m| m.average_distance).fold(0.0, f64::max),
    }
}

/// Figs. 11/12 for one pair of trees: `trials` random faulty links.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultTrials {
    pub faults: Vec<EdgeId>,
    pub global: FaultSummary,
    pub local: FaultSummary,
    /// Trials whose link is one of the two unused ones (no change).
    pub unused_hits: u32,
}

pub fn fault_trials(trees: &[SpanningTree; 2], seed: u64, trials: u32) -> InputResult<FaultTrials> {
    let model = FaultModel::new(trees)?;
    let faults = random_faults(&trees[0].topo, seed, trials)?;
    let both: Vec<(FaultMetrics, FaultMetrics)> = par_map(faults.len(), |t| {
        let f = faults[t];
        (
            model.metrics(f, FaultInfo::Global).expect("valid link"),
            model.metrics(f, FaultInfo::Local).expect("valid link"),
        )
    });
    let (g, l): (Vec<FaultMetrics>, Vec<FaultMetrics>) = both.into_iter().unzip();
    Ok(FaultTrials {
        unused_hits: g.iter().filter(|m| m.faulty_tree.is_none()).count() as u32,
        global: summarize(&g),
        local: summarize(&l),
        faults,
    })
}
