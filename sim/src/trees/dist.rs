//! All-pairs tree distances as a flat table, for the metrics that must look
//! at one pair many times (500 random single-link faults per size in §7, 500
//! random Roskind–Tarjan pairs per size in §5.3).
//!
//! Why a table and not [`crate::trees::metrics()`]: the fault metrics need
//! `d_T(a, r)` for an arbitrary relay router `r`, so the per-source walks of
//! `metrics` are not enough. One walk per source fills a row in `O(N)`, the
//! whole table in `O(N²)` (33×33: 1.2 M `u16`, 2.4 MB per tree).

use crate::topology::NodeId;

/// Largest side of the all-pairs analyses (`wormcast trees --table`,
/// `--tarjan-table`, `--fault-table`).
///
/// A memory and time bound. A [`DistTable`] holds 2·N² bytes per tree and
/// the fault trials keep two, so 64×64 needs 64 MiB and 128×128 would need
/// 1 GiB; every analysis also visits all N²/2 pairs. The simulator itself
/// goes up to `topology::MAX_SIDE`.
pub const ALL_PAIRS_MAX_SIDE: u32 = 64;
use crate::trees::SpanningTree;

/// `d[a·n + b]` = hops between `a` and `b` along one tree.
#[derive(Debug, Clone)]
pub struct DistTable {
    pub n: usize,
    pub d: Vec<u16>,
}

/// Flat neighbour lists of a tree (parent + children), for fast walks.
pub(crate) struct TreeAdj {
    start: Vec<usize>,
    list: Vec<NodeId>,
}

impl TreeAdj {
    pub(crate) fn new(t: &SpanningTree) -> TreeAdj {
        let n = t.topo.nodes() as usize;
        let mut start = Vec::with_capacity(n + 1);
        let mut list: Vec<NodeId> = Vec::with_capacity(2 * n);
        for u in 0..n as NodeId {
            start.push(list.len());
            if let Some(p) = t.parent[u as usize] {
                list.push(p);
            }
            list.extend(t.children(u).map(|(_, v)| v));
        }
        start.push(list.len());
        TreeAdj { start, list }
    }

    /// Hops from `src` to every node, written into `row`.
    pub(crate) fn fill(&self, src: NodeId, row: &mut [u16], stack: &mut Vec<(NodeId, NodeId)>) {
        stack.clear();
        row[src as usize] = 0;
        stack.push((src, src));
        while let Some((u, from)) = stack.pop() {
            let du = row[u as usize] + 1;
            for &v in &self.list[self.start[u as usize]..self.start[u as usize + 1]] {
                if v != from {
                    row[v as usize] = du;
                    stack.push((v, u));
                }
            }
        }
    }
}

/// Combined diameter and exact distance sum over unordered pairs of two
/// trees, on the calling thread only (the callers parallelise over trials,
/// not over sources as [`crate::trees::metrics`] does).
pub(crate) fn cd_sum_serial(trees: &[SpanningTree]) -> (u32, u64) {
    let n = trees[0].topo.nodes() as usize;
    let adj: Vec<TreeAdj> = trees.iter().map(TreeAdj::new).collect();
    let mut rows = vec![vec![0u16; n]; trees.len()];
    let mut stack = Vec::with_capacity(n);
    let (mut cd, mut sum) = (0u32, 0u64);
    for a in 0..n {
        for (t, r) in adj.iter().zip(rows.iter_mut()) {
            t.fill(a as NodeId, r, &mut stack);
        }
        for b in a + 1..n {
            let d = rows.iter().map(|r| r[b]).min().expect("one tree") as u32;
            cd = cd.max(d);
            sum += d as u64;
        }
    }
    (cd, sum)
}

impl DistTable {
    pub fn new(t: &SpanningTree) -> DistTable {
        let n = t.topo.nodes() as usize;
        let adj = TreeAdj::new(t);
        let mut d = vec![0u16; n * n];
        let mut stack: Vec<(NodeId, NodeId)> = Vec::with_capacity(n);
        for src in 0..n {
            adj.fill(src as NodeId, &mut d[src * n..(src + 1) * n], &mut stack);
        }
        DistTable { n, d }
    }

    #[inline]
    pub fn get(&self, a: NodeId, b: NodeId) -> u32 {
        self.d[a as usize * self.n + b as usize] as u32
    }

    #[inline]
    pub fn row(&self, a: NodeId) -> &[u16] {
        &self.d[a as usize * self.n..(a as usize + 1) * self.n]
    }
}

/// Number of worker threads for embarrassingly parallel trial loops.
pub(crate) fn threads_for(jobs: usize) -> usize {
    std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1)
        .min(jobs)
        .max(1)
}

/// Runs `f(i)` for `i in 0..jobs` on a few scoped threads and returns the
/// results in index order, so the output never depends on scheduling.
pub(crate) fn par_map<T: Send>(jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads_for(jobs);
    if threads <= 1 {
        return (0..jobs).map(f).collect();
    }
    let f = &f;
    let parts: Vec<Vec<(usize, T)>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|w| s.spawn(move || (w..jobs).step_by(threads).map(|i| (i, f(i))).collect()))
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("trial worker"))
            .collect()
    });
    let mut out: Vec<Option<T>> = (0..jobs).map(|_| None).collect();
    for (i, v) in parts.into_iter().flatten() {
        out[i] = Some(v);
    }
    out.into_iter().map(|v| v.expect("every job ran")).collect()
}
