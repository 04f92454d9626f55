//! Two edge-disjoint spanning trees of any torus by matroid union, the
//! comparison baseline of \[DSTM\] §5.3 (Fig. 8) and §6 (DSTM-Tarjan).
//!
//! Roskind & Tarjan (Math. OR 10, 1985) find k edge-disjoint forests of
//! maximum total size (minimum cost) by considering the edges in cost order
//! and growing the forests with augmenting paths. With unit costs, as in the
//! paper, the order is free: "considering edges in two different orders can
//! yield two different pairs" (§5.3), so the paper samples 500 random orders.
//!
//! # Algorithm (k = 2, graphic matroids)
//! For each edge `e` in the order:
//! 1. if `e` joins two components of forest 0, it goes to forest 0; else if
//!    it joins two components of forest 1, to forest 1 (direct insertion);
//! 2. otherwise breadth-first search over the exchange graph (Edmonds'
//!    matroid partition, as Roskind–Tarjan do): an edge `x` scanned against a
//!    forest `F` that does not hold it is either a *sink* (its ends lie in
//!    different components of `F`) or labels every not yet labelled edge `y`
//!    of the cycle `x` closes in `F` (then `F − y + x` is a forest). The first
//!    sink found ends a shortest augmenting path, which is applied: the sink
//!    edge enters its forest and every edge on the path takes the place of its
//!    successor. Shortest paths keep both forests acyclic (Edmonds 1968,
//!    Knuth 1973 "Matroid partitioning").
//! 3. if the search exhausts, `e` is in the span of the union and is dropped.
//!
//! Cycle labelling walks the two ends of `x` up the rooted forest and skips
//! already labelled tree edges with a union–find ("jump") structure, the
//! same effect as Roskind–Tarjan's observation that labelled edges can be
//! passed over: every tree edge is labelled at most once per search, so a
//! search costs `O(N α(N))` after an `O(N)` rebuild of the rooted forests.
//! The component structure of each forest only ever merges (an exchange keeps
//! a forest's span), so per-forest union–finds answer "different
//! components?" exactly. 500 orders on a 33×33 torus take a few seconds.
//!
//! A 2-D torus has 2N edges and always two edge-disjoint spanning trees
//! (Theorem 4.1), so the result is always two spanning trees and two dropped
//! edges; anything else is a bug and is reported as such.
//!
//! # Roots
//! Roots never change tree distances (CD/AD). For routing, each tree is
//! rooted at its *centroid* (the node whose largest branch is smallest, ties
//! to the lowest node id): §6 notes that balance around the root matters for
//! DSTM's performance and that the Tarjan(best/average) trees the authors
//! used were "extremely well balanced"; the centroid is the most balanced
//! root a tree admits. The trees need not be binary (see `max_children`).

use crate::error::{InputError, InputResult};
use crate::topology::{EdgeId, NodeId, Topology};
use crate::trees::dist::{cd_sum_serial, par_map};
use crate::trees::SpanningTree;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt;

const NONE: u32 = u32::MAX;
const FREE: u8 = u8::MAX;

/// Union–find with path halving and union by size.
#[derive(Clone)]
struct Dsu {
    p: Vec<u32>,
    size: Vec<u32>,
}

impl Dsu {
    fn new(n: usize) -> Dsu {
        Dsu {
            p: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }
    fn find(&mut self, mut x: u32) -> u32 {
        while self.p[x as usize] != x {
            let g = self.p[self.p[x as usize] as usize];
            self.p[x as usize] = g;
            x = g;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.p[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }
}

/// The result of the matroid partition of a torus's links into two forests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgePartition {
    /// Edges of forest 0 and forest 1, sorted.
    pub forests: [Vec<EdgeId>; 2],
    /// Edges in neither forest (in the span of their union), in order of
    /// consideration.
    pub dropped: Vec<EdgeId>,
    /// How many edges needed an augmenting path (for the curious).
    pub augmentations: u32,
}

/// Matroid partition state for one order.
struct Partitioner<'a> {
    topo: &'a Topology,
    n: usize,
    /// Per edge: forest 0/1 or FREE.
    owner: Vec<u8>,
    comp: [Dsu; 2],
    // Scratch for augmenting searches.
    par_node: [Vec<u32>; 2],
    par_edge: [Vec<u32>; 2],
    depth: [Vec<u32>; 2],
    jump: [Vec<u32>; 2],
    pred: Vec<u32>,
    labelled: Vec<u32>,
    epoch: u32,
    queue: Vec<u32>,
    augmentations: u32,
}

impl<'a> Partitioner<'a> {
    fn new(topo: &'a Topology) -> Partitioner<'a> {
        let n = topo.nodes() as usize;
        let m = topo.edge_slots() as usize;
        Partitioner {
            topo,
            n,
            owner: vec![FREE; m],
            comp: [Dsu::new(n), Dsu::new(n)],
            par_node: [vec![NONE; n], vec![NONE; n]],
            par_edge: [vec![NONE; n], vec![NONE; n]],
            depth: [vec![0; n], vec![0; n]],
            jump: [vec![0; n], vec![0; n]],
            pred: vec![NONE; m],
            labelled: vec![0; m],
            epoch: 0,
            queue: Vec::with_capacity(m),
            augmentations: 0,
        }
    }

    /// Roots every tree of forest `f` at its lowest node id and records
    /// parents and depths (deterministic).
    fn root_forest(&mut self, f: usize) {
        let topo = self.topo;
        let (par_node, par_edge, depth) = (
            &mut self.par_node[f],
            &mut self.par_edge[f],
            &mut self.depth[f],
        );
        par_node.fill(NONE);
        let mut seen = vec![false; self.n];
        let mut bfs: Vec<u32> = Vec::with_capacity(self.n);
        for r in 0..self.n as u32 {
            if seen[r as usize] {
                continue;
            }
            seen[r as usize] = true;
            depth[r as usize] = 0;
            par_edge[r as usize] = NONE;
            bfs.clear();
            bfs.push(r);
            let mut i = 0;
            while i < bfs.len() {
                let u = bfs[i];
                i += 1;
                for d in crate::topology::Dir::ALL {
                    let Some(e) = topo.edge(u, d) else { continue };
                    if self.owner[e as usize] as usize != f || par_edge[u as usize] == e {
                        continue;
                    }
                    let v = topo.neighbor(u, d).expect("edge exists");
                    if seen[v as usize] {
                        // Only possible through the parent edge, excluded above;
                        // a forest has no other way back.
                        debug_assert!(false, "forest {f} has a cycle");
                        continue;
                    }
                    seen[v as usize] = true;
                    par_node[v as usize] = u;
                    par_edge[v as usize] = e;
                    depth[v as usize] = depth[u as usize] + 1;
                    bfs.push(v);
                }
            }
        }
        for (i, j) in self.jump[f].iter_mut().enumerate() {
            *j = i as u32;
        }
    }

    /// Nearest ancestor-or-self of `x` in forest `f` whose parent edge is not
    /// labelled (or the root).
    fn jfind(&mut self, f: usize, mut x: u32) -> u32 {
        let j = &mut self.jump[f];
        while j[x as usize] != x {
            let g = j[j[x as usize] as usize];
            j[x as usize] = g;
            x = g;
        }
        x
    }

    fn label(&mut self, y: u32, from: u32) {
        self.labelled[y as usize] = self.epoch;
        self.pred[y as usize] = from;
        self.queue.push(y);
    }

    fn insert(&mut self, e: EdgeId) {
        let (a, b) = self.topo.edge_ends(e);
        for f in 0..2 {
            if self.comp[f].find(a) != self.comp[f].find(b) {
                self.owner[e as usize] = f as u8;
                self.comp[f].union(a, b);
                return;
            }
        }
        self.augment(e);
    }

    /// Breadth-first search for a shortest augmenting path from `e`.
    /// Returns whether `e` could be added.
    fn augment(&mut self, e: EdgeId) -> bool {
        self.augmentations += 1;
        self.root_forest(0);
        self.root_forest(1);
        self.epoch += 1;
        self.queue.clear();
        self.label(e, NONE);
        let mut head = 0;
        while head < self.queue.len() {
            let x = self.queue[head];
            head += 1;
            let (u, v) = self.topo.edge_ends(x);
            for f in 0..2 {
                if self.owner[x as usize] as usize == f {
                    continue;
                }
                if self.comp[f].find(u) != self.comp[f].find(v) {
                    // Sink: apply the path x ← pred(x) ← … ← e.
                    let mut target = f as u8;
                    let mut y = x;
                    loop {
                        let old = self.owner[y as usize];
                        self.owner[y as usize] = target;
                        let p = self.pred[y as usize];
                        if p == NONE {
                            break;
                        }
                        target = old;
                        y = p;
                    }
                    self.comp[f].union(u, v);
                    return true;
                }
                // Label the unlabelled edges of the cycle x closes in f.
                let mut p = self.jfind(f, u);
                let mut q = self.jfind(f, v);
                while p != q {
                    if self.depth[f][p as usize] < self.depth[f][q as usize] {
                        std::mem::swap(&mut p, &mut q);
                    }
                    let y = self.par_edge[f][p as usize];
                    let up = self.par_node[f][p as usize];
                    debug_assert!(y != NONE && self.labelled[y as usize] != self.epoch);
                    self.label(y, x);
                    self.jump[f][p as usize] = up;
                    p = self.jfind(f, up);
                }
            }
        }
        false
    }
}

/// Partitions the links of a torus into two forests by matroid union,
/// considering the edges in `order` (every link exactly once).
pub fn partition(topo: &Topology, order: &[EdgeId]) -> InputResult<EdgePartition> {
    require_torus(topo)?;
    let m = topo.edge_slots() as usize;
    let mut seen = vec![false; m];
    for &e in order {
        if e as usize >= m || seen[e as usize] {
            return Err(InputError::new(
                "edge order",
                e,
                format!("each link id of {topo} (0..{m}) exactly once"),
            ));
        }
        seen[e as usize] = true;
    }
    if order.len() != m {
        return Err(InputError::new(
            "edge order",
            format!("{} edges", order.len()),
            format!("all {m} links of {topo}"),
        ));
    }
    Ok(partition_unchecked(topo, order))
}

fn partition_unchecked(topo: &Topology, order: &[EdgeId]) -> EdgePartition {
    let mut p = Partitioner::new(topo);
    for &e in order {
        p.insert(e);
    }
    let mut forests = [Vec::new(), Vec::new()];
    let mut dropped = Vec::new();
    for &e in order {
        match p.owner[e as usize] {
            FREE => dropped.push(e),
            f => forests[f as usize].push(e),
        }
    }
    forests[0].sort_unstable();
    forests[1].sort_unstable();
    EdgePartition {
        forests,
        dropped,
        augmentations: p.augmentations,
    }
}

fn require_torus(topo: &Topology) -> InputResult<()> {
    if !topo.is_torus() {
        return Err(InputError::new(
            "topology",
            topo,
            "a torus: a K×M mesh has fewer than 2(N−1) links, so no two edge-disjoint spanning trees (paper 000 §8)",
        ));
    }
    Ok(())
}

/// The random edge order of trial `trial` for `seed`: a Fisher–Yates
/// shuffle of all link ids by `ChaCha8Rng::seed_from_u64(seed)` on stream
/// `trial`, so any one trial can be rebuilt without the others.
pub fn random_order(topo: &Topology, seed: u64, trial: u64) -> Vec<EdgeId> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(trial);
    let mut order: Vec<EdgeId> = (0..topo.edge_slots()).collect();
    order.shuffle(&mut rng);
    order
}

/// Which coordinate the `i` of §5.3's `H_{i,j}` / `V_{i,j}` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HamiltonReading {
    /// Our edge names (`H(i,j)` joins column i to i+1 in row j; `V(i,j)`
    /// joins row j to j+1 in column i; paper §4 and `topology.rs`).
    Literal,
    /// `i` and `j` swapped in both families (`H_{i,j}` = our `H(j,i)`,
    /// `V_{i,j}` = our `V(j,i)`).
    Transposed,
    /// `H_{i,j}` = our `H(j,i)` (i = row), `V_{i,j}` = our `V(i,j)` (j = row):
    /// the row index comes first in `H`, second in `V`.
    RowFirstH,
    /// `H_{i,j}` = our `H(i,j)`, `V_{i,j}` = our `V(j,i)`.
    ColumnFirstV,
}

impl HamiltonReading {
    pub const ALL: [HamiltonReading; 4] = [
        HamiltonReading::Literal,
        HamiltonReading::Transposed,
        HamiltonReading::RowFirstH,
        HamiltonReading::ColumnFirstV,
    ];
}

/// The special order of §5.3 that "constructs two Hamilton paths" on an N×N
/// torus: first `H_{i,j}` for `i = 0..N−1` and, for each `i`,
/// `j = i, i+1, …, i−1 (mod N)`; then `V_{i,j}` for `j = 0..N−1` with
/// `i = j, j+1, …, j−1` for `j ≤ N−2` and `i = 0..N−2` for `j = N−1`.
/// The paper does not say which index is the row. Under our edge names
/// ([`HamiltonReading::Literal`]) neither forest is a path; only
/// [`HamiltonReading::RowFirstH`] gives two Hamilton paths (Fig. 7; tested
/// for N = 3…16 in `sim/tests/tarjan.rs`): each row, taken from its diagonal
/// node, leaves one wrap edge, and `V` of row `j` starts at the column where
/// row `j`'s path ends, so forest 0 snakes through the rows.
/// That lists `2N² − 1` links: `V_{N−1,N−1}` never appears in the text; it is
/// appended last (it cannot enter either forest: by then both are spanning).
pub fn hamilton_order(topo: &Topology, reading: HamiltonReading) -> InputResult<Vec<EdgeId>> {
    require_torus(topo)?;
    if topo.k != topo.m {
        return Err(InputError::new(
            "topology",
            topo,
            "a square N×N torus: the Hamilton-path order of paper 000 §5.3 is defined for N×N only",
        ));
    }
    let n = topo.k;
    let (swap_h, swap_v) = match reading {
        HamiltonReading::Literal => (false, false),
        HamiltonReading::Transposed => (true, true),
        HamiltonReading::RowFirstH => (true, false),
        HamiltonReading::ColumnFirstV => (false, true),
    };
    let h = |i: u32, j: u32| {
        if swap_h {
            topo.h_edge(j, i)
        } else {
            topo.h_edge(i, j)
        }
    };
    let v = |i: u32, j: u32| {
        if swap_v {
            topo.v_edge(j, i)
        } else {
            topo.v_edge(i, j)
        }
    };
    let mut order = Vec::with_capacity(2 * (n * n) as usize);
    for i in 0..n {
        for s in 0..n {
            order.push(h(i, (i + s) % n));
        }
    }
    for j in 0..n {
        if j + 1 < n {
            for s in 0..n {
                order.push(v((j + s) % n, j));
            }
        } else {
            for i in 0..n - 1 {
                order.push(v(i, j));
            }
        }
    }
    order.push(v(n - 1, n - 1));
    Ok(order)
}

/// A pair of edge-disjoint spanning trees from the matroid partition.
#[derive(Debug, Clone)]
pub struct TarjanPair {
    pub trees: [SpanningTree; 2],
    /// The two links in neither tree, sorted.
    pub unused: Vec<EdgeId>,
    pub partition: EdgePartition,
}

/// The centroid of a tree: the node minimising its largest branch (ties to
/// the lowest id).
pub fn centroid(t: &SpanningTree) -> NodeId {
    let n = t.topo.nodes();
    let size = |u: NodeId| t.number[u as usize] - t.low[u as usize] + 1;
    (0..n)
        .min_by_key(|&u| {
            let up = n - size(u);
            let down = t.children(u).map(|(_, v)| size(v)).max().unwrap_or(0);
            (up.max(down), u)
        })
        .expect("a tree has nodes")
}

/// Builds two spanning trees (rooted at their centroids) from an edge order.
pub fn tarjan_pair(topo: &Topology, order: &[EdgeId]) -> InputResult<TarjanPair> {
    let p = partition(topo, order)?;
    pair_from_partition(topo, p)
}

fn pair_from_partition(topo: &Topology, p: EdgePartition) -> InputResult<TarjanPair> {
    let mut trees = Vec::with_capacity(2);
    for (f, edges) in p.forests.iter().enumerate() {
        let what = format!("Roskind–Tarjan forest {f} (a bug: a torus always has two edge-disjoint spanning trees)");
        let t = SpanningTree::from_edges(*topo, 0, edges, &what)?;
        let c = centroid(&t);
        trees.push(SpanningTree::from_edges(*topo, c, edges, &what)?);
    }
    let t1 = trees.pop().expect("two");
    let t0 = trees.pop().expect("two");
    let mut unused = p.dropped.clone();
    unused.sort_unstable();
    Ok(TarjanPair {
        trees: [t0, t1],
        unused,
        partition: p,
    })
}

/// CD and AD of one random trial.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trial {
    pub index: u64,
    pub combined_diameter: u32,
    /// Exact `Σ_{a<b} d(a,b)`.
    pub distance_sum: u64,
    pub average_distance: f64,
    /// Largest number of children of any node in either tree (centroid roots).
    pub max_children: usize,
    pub augmentations: u32,
}

fn check_trials(trials: u32) -> InputResult<()> {
    if trials == 0 {
        return Err(InputError::new(
            "trials",
            trials,
            "at least 1 random edge order (the paper uses 500)",
        ));
    }
    Ok(())
}

/// Runs `trials` random orders (trial `t` = [`random_order`]`(seed, t)`) on a
/// few threads; results in trial order, independent of the thread count.
pub fn run_trials(topo: &Topology, seed: u64, trials: u32) -> InputResult<Vec<Trial>> {
    require_torus(topo)?;
    check_trials(trials)?;
    let n = topo.nodes() as u64;
    let pairs = n * (n - 1) / 2;
    par_map(trials as usize, |t| {
        let order = random_order(topo, seed, t as u64);
        let p = pair_from_partition(topo, partition_unchecked(topo, &order))?;
        let (cd, sum) = cd_sum_serial(&p.trees);
        Ok(Trial {
            index: t as u64,
            combined_diameter: cd,
            distance_sum: sum,
            average_distance: sum as f64 / pairs as f64,
            max_children: p.trees[0].max_children().max(p.trees[1].max_children()),
            augmentations: p.partition.augmentations,
        })
    })
    .into_iter()
    .collect()
}

/// Min and mean of CD and AD over a set of trials (Fig. 8's "minimum" and
/// "average" Roskind–Tarjan curves; AD's mean is over all pairs of all
/// trials, which equals the mean of the per-trial ADs since every trial has
/// the same number of pairs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialSummary {
    pub min_cd: u32,
    pub mean_cd: f64,
    pub max_cd: u32,
    pub min_ad: f64,
    pub mean_ad: f64,
    pub max_children: usize,
}

pub fn summarize(trials: &[Trial]) -> TrialSummary {
    let k = trials.len() as f64;
    TrialSummary {
        min_cd: trials
            .iter()
            .map(|t| t.combined_diameter)
            .min()
            .unwrap_or(0),
        max_cd: trials
            .iter()
            .map(|t| t.combined_diameter)
            .max()
            .unwrap_or(0),
        mean_cd: trials
            .iter()
            .map(|t| t.combined_diameter as f64)
            .sum::<f64>()
            / k,
        min_ad: trials
            .iter()
            .map(|t| t.average_distance)
            .fold(f64::INFINITY, f64::min),
        mean_ad: trials.iter().map(|t| t.average_distance).sum::<f64>() / k,
        max_children: trials.iter().map(|t| t.max_children).max().unwrap_or(0),
    }
}

/// The Roskind–Tarjan pairs simulated in §6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TarjanWhich {
    /// Smallest CD among the trials, then smallest AD, then lowest index.
    Best,
    /// The trial closest to the trial means:
    /// minimise `|CD − mean CD| / mean CD + |AD − mean AD| / mean AD`, ties
    /// to the lowest index (§6: "roughly average combined diameter and
    /// average distance over 500 random trials").
    Average,
    /// The Hamilton-path order of §5.3 ([`HamiltonReading::RowFirstH`], the
    /// only reading of the index notation that gives two Hamilton paths; no
    /// trials).
    Path,
}

/// A named Roskind–Tarjan pair: `tarjan-best`, `tarjan-average`,
/// `tarjan-path`, optionally `:SEED` and `:SEED:TRIALS` (default seed 1,
/// 500 trials as in the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TarjanSpec {
    pub which: TarjanWhich,
    pub seed: u64,
    pub trials: u32,
}

impl TarjanSpec {
    pub const DEFAULT_SEED: u64 = 1;
    pub const DEFAULT_TRIALS: u32 = 500;

    pub fn parse(s: &str) -> InputResult<TarjanSpec> {
        let err = || {
            InputError::new(
                "construction",
                s,
                "`tarjan-best`, `tarjan-average` or `tarjan-path`, optionally followed by `:SEED` or `:SEED:TRIALS` (TRIALS ≥ 1)",
            )
        };
        let lower = s.trim().to_ascii_lowercase();
        let mut parts = lower.split(':');
        let which = match parts.next().unwrap_or("") {
            "tarjan-best" => TarjanWhich::Best,
            "tarjan-average" | "tarjan-avg" => TarjanWhich::Average,
            "tarjan-path" => TarjanWhich::Path,
            _ => return Err(err()),
        };
        let seed = match parts.next() {
            Some(x) => x.trim().parse().map_err(|_| err())?,
            None => Self::DEFAULT_SEED,
        };
        let trials = match parts.next() {
            Some(x) => x.trim().parse().map_err(|_| err())?,
            None => Self::DEFAULT_TRIALS,
        };
        if parts.next().is_some() || trials == 0 {
            return Err(err());
        }
        Ok(TarjanSpec {
            which,
            seed,
            trials,
        })
    }

    /// Builds the pair on `topo`. `Best`/`Average` run all the trials first.
    pub fn build(&self, topo: &Topology) -> InputResult<TarjanPair> {
        match self.which {
            TarjanWhich::Path => {
                tarjan_pair(topo, &hamilton_order(topo, HamiltonReading::RowFirstH)?)
            }
            w => {
                let trials = run_trials(topo, self.seed, self.trials)?;
                let pick = select(&trials, w).expect("at least one trial");
                tarjan_pair(topo, &random_order(topo, self.seed, pick.index))
            }
        }
    }
}

/// Picks the best or average trial (see [`TarjanWhich`]); `None` for `Path`
/// or no trials.
pub fn select(trials: &[Trial], which: TarjanWhich) -> Option<Trial> {
    match which {
        TarjanWhich::Best => trials
            .iter()
            .min_by_key(|t| (t.combined_diameter, t.distance_sum, t.index))
            .copied(),
        TarjanWhich::Average => {
            let s = summarize(trials);
            let score = |t: &Trial| {
                (t.combined_diameter as f64 - s.mean_cd).abs() / s.mean_cd
                    + (t.average_distance - s.mean_ad).abs() / s.mean_ad
            };
            trials
                .iter()
                .min_by(|a, b| score(a).total_cmp(&score(b)).then(a.index.cmp(&b.index)))
                .copied()
        }
        TarjanWhich::Path => None,
    }
}

impl fmt::Display for TarjanSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = match self.which {
            TarjanWhich::Best => "tarjan-best",
            TarjanWhich::Average => "tarjan-average",
            TarjanWhich::Path => "tarjan-path",
        };
        write!(f, "{w}:{}:{}", self.seed, self.trials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tori_give_two_spanning_trees() {
        for (k, m) in [(2, 2), (2, 3), (3, 3), (4, 5), (8, 8)] {
            let t = Topology::torus(k, m).unwrap();
            for trial in 0..20 {
                let p = tarjan_pair(&t, &random_order(&t, 7, trial)).unwrap();
                assert_eq!(p.unused.len(), 2, "{t}");
            }
        }
    }
}
