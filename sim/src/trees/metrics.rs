//! Combined diameter (CD) and average distance (AD) of a set of spanning
//! trees (\[DSTM\] §5).
//!
//! With several edge-disjoint trees a unicast takes the tree with the shorter
//! path (§3.2.1), so the distance between two nodes is `d(a,b) = min_t
//! dist_t(a,b)`; `CD = max d` and `AD = Σ_{a<b} d / (n(n−1)/2)`.
//!
//! Why per-source tree walks: a 64×64 torus has ~8.4 M unordered pairs; LCA
//! queries by walking parents (as [`SpanningTree::distance`] does) cost up to
//! the tree depth (~127) each. A walk of the whole tree from every source costs
//! `O(N)` per source and tree, `O(N²)` in all with a tiny constant, and the
//! sources are split over `std::thread::scope` threads (no extra crate). 64×64
//! takes well under a second in release.

use crate::topology::NodeId;
use crate::trees::SpanningTree;

/// CD/AD of a set of trees, plus a few extras useful when comparing trees.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// `max_{a,b} min_t dist_t(a,b)`.
    pub combined_diameter: u32,
    /// `Σ_{a<b} d(a,b) / (n(n−1)/2)`.
    pub average_distance: f64,
    /// `Σ_{a<b} d(a,b)`, exact.
    pub distance_sum: u64,
    /// Number of unordered pairs `n(n−1)/2`.
    pub pairs: u64,
    /// Per tree: its own diameter (longest path in that tree alone).
    pub tree_diameters: Vec<u32>,
    /// Unordered pairs whose two shortest tree paths have equal length (only
    /// meaningful for two trees): these are the ties of the DSTM policy.
    pub tied_pairs: u64,
}

/// Flat neighbour lists of a tree (parent + children), for fast walks.
struct Adjacency {
    start: Vec<u32>,
    list: Vec<NodeId>,
}

impl Adjacency {
    fn new(t: &SpanningTree) -> Adjacency {
        let n = t.topo.nodes() as usize;
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(2 * n);
        for u in 0..n as u32 {
            start.push(list.len() as u32);
            if let Some(p) = t.parent[u as usize] {
                list.push(p);
            }
            list.extend(t.children(u).map(|(_, v)| v));
        }
        start.push(list.len() as u32);
        Adjacency { start, list }
    }

    /// Hop distance from `src` to every node, written into `dist`.
    fn distances(&self, src: NodeId, dist: &mut [u32], stack: &mut Vec<(NodeId, NodeId)>) {
        stack.clear();
        dist[src as usize] = 0;
        stack.push((src, src));
        while let Some((u, from)) = stack.pop() {
            let du = dist[u as usize] + 1;
            let (a, b) = (self.start[u as usize], self.start[u as usize + 1]);
            for &v in &self.list[a as usize..b as usize] {
                if v != from {
                    dist[v as usize] = du;
                    stack.push((v, u));
                }
            }
        }
    }
}

/// Partial result of one block of sources.
#[derive(Default)]
struct Acc {
    cd: u32,
    sum: u64,
    ties: u64,
    diam: Vec<u32>,
}

/// CD and AD of `trees` (all on the same topology; at least one).
///
/// Panics only on a programming error (empty slice or trees of different
/// topologies), never on user input: trees come from [`crate::trees::construct()`].
pub fn metrics(trees: &[SpanningTree]) -> Metrics {
    metrics_with_progress(trees, &|_| {})
}

/// [`metrics`], calling `progress(k)` as `k` more source nodes are done
/// (from several threads; the calls add up to the node count). On a
/// 255×255 torus the all-pairs walk takes tens of seconds, which the
/// command line shows.
pub fn metrics_with_progress(trees: &[SpanningTree], progress: &(dyn Fn(u64) + Sync)) -> Metrics {
    assert!(!trees.is_empty(), "metrics of no trees");
    let topo = trees[0].topo;
    assert!(
        trees.iter().all(|t| t.topo == topo),
        "trees of one topology"
    );
    let n = topo.nodes() as usize;
    let adj: Vec<Adjacency> = trees.iter().map(Adjacency::new).collect();
    let threads = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1)
        .min(n.div_ceil(64))
        .max(1);
    let work = |first: usize, step: usize| -> Acc {
        let mut acc = Acc {
            diam: vec![0; trees.len()],
            ..Acc::default()
        };
        let mut dist: Vec<Vec<u32>> = vec![vec![0; n]; trees.len()];
        let mut stack = Vec::with_capacity(n);
        let mut src = first;
        let mut since = 0;
        while src < n {
            since += 1;
            if since == 64 {
                progress(since);
                since = 0;
            }
            for (t, a) in adj.iter().enumerate() {
                a.distances(src as NodeId, &mut dist[t], &mut stack);
            }
            // Only pairs (src, b) with b > src: each unordered pair once.
            for b in src + 1..n {
                let mut best = u32::MAX;
                let mut count_best = 0;
                for (t, d) in dist.iter().enumerate() {
                    let x = d[b];
                    acc.diam[t] = acc.diam[t].max(x);
                    if x < best {
                        best = x;
                        count_best = 1;
                    } else if x == best {
                        count_best += 1;
                    }
                }
                acc.cd = acc.cd.max(best);
                acc.sum += best as u64;
                if count_best > 1 {
                    acc.ties += 1;
                }
            }
            src += step;
        }
        progress(since);
        acc
    };
    let parts: Vec<Acc> = if threads == 1 {
        vec![work(0, 1)]
    } else {
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads)
                .map(|i| s.spawn(move || work(i, threads)))
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("metrics worker"))
                .collect()
        })
    };
    let mut total = Acc {
        diam: vec![0; trees.len()],
        ..Acc::default()
    };
    for p in parts {
        total.cd = total.cd.max(p.cd);
        total.sum += p.sum;
        total.ties += p.ties;
        for (a, b) in total.diam.iter_mut().zip(p.diam) {
            *a = (*a).max(b);
        }
    }
    let pairs = (n as u64) * (n as u64 - 1) / 2;
    Metrics {
        combined_diameter: total.cd,
        average_distance: if pairs == 0 {
            0.0
        } else {
            total.sum as f64 / pairs as f64
        },
        distance_sum: total.sum,
        pairs,
        tree_diameters: total.diam,
        tied_pairs: if trees.len() > 1 { total.ties } else { 0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use crate::trees::{construct, Named};

    /// The progress calls add up to the node count, and the figures are
    /// those of [`metrics`].
    #[test]
    fn progress_counts_every_source_once() {
        let t = Topology::torus(17, 13).unwrap();
        let c = Named::Dstm1.construction(&t, 0, None);
        let p = construct(&t, &c).unwrap();
        let done = std::sync::atomic::AtomicU64::new(0);
        let m = metrics_with_progress(&p.trees, &|k| {
            done.fetch_add(k, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(done.into_inner(), 17 * 13);
        assert_eq!(m.average_distance, metrics(&p.trees).average_distance);
    }

    /// Brute force with the LCA-walking distance of `SpanningTree`.
    fn brute(trees: &[SpanningTree]) -> (u32, u64, Vec<u32>) {
        let n = trees[0].topo.nodes();
        let (mut cd, mut sum) = (0, 0u64);
        let mut diam = vec![0; trees.len()];
        for a in 0..n {
            for b in a + 1..n {
                let ds: Vec<u32> = trees.iter().map(|t| t.distance(a, b)).collect();
                for (m, d) in diam.iter_mut().zip(&ds) {
                    *m = (*m).max(*d);
                }
                let d = *ds.iter().min().unwrap();
                cd = cd.max(d);
                sum += d as u64;
            }
        }
        (cd, sum, diam)
    }

    #[test]
    fn matches_brute_force() {
        for (k, m) in [(2, 2), (3, 5), (4, 4), (7, 6), (9, 9)] {
            let t = Topology::torus(k, m).unwrap();
            for named in [Named::Dstm1, Named::Dstm2] {
                let p = construct(&t, &named.construction(&t, 0, None)).unwrap();
                let got = metrics(&p.trees);
                let (cd, sum, diam) = brute(&p.trees);
                assert_eq!(got.combined_diameter, cd, "{t} {named}");
                assert_eq!(got.distance_sum, sum, "{t} {named}");
                assert_eq!(got.tree_diameters, diam, "{t} {named}");
                let one = metrics(&p.trees[..1]);
                assert_eq!(one.combined_diameter, diam[0]);
            }
        }
    }
}
