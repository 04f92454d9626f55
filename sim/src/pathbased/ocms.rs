//! OCMS — optimal channel multicast star: the minimum total traffic over all
//! sets of at most one worm per source port of a class, each visiting its
//! destinations in monotone label order with R.
//!
//! \[PATHOPT\] §3, Algorithm 1: a bipartite graph
//! `Q = {source copy per port of Ω(u0)} ∪ K`, `R = K ∪ {one end terminal per
//! copy}`; edges copy(ℓ) → u_j when R's first hop toward u_j uses ℓ, u_i → u_j
//! when L(u_i) < L(u_j), weight = R distance; every q → every end terminal
//! with weight 0. A minimum-weight perfect matching gives the paths
//! (Theorem 1). Applied to K_sup on the high class and, mirrored (labels
//! `N − 1 − L`), to K_inf on the low class.
//!
//! The matching is solved with `pathfinding`'s `kuhn_munkres`, which
//! maximises: weights are negated and a missing edge gets a large finite
//! cost (docs/references.md §B1).

use super::hamiltonian::{class_ports, key, r_dist, r_next, r_worm, r_worm_via, split};
use super::worm::{check_request, PathMulticast, CLASS_HIGH, CLASS_LOW};
use crate::error::InputResult;
use crate::topology::{Dir, NodeId, Topology};
use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix;

/// The source port R takes first from `s` toward `v`.
pub fn first_port(topo: &Topology, s: NodeId, v: NodeId) -> Dir {
    let w = r_next(topo, s, v);
    super::worm::dir_between(topo, s, w).expect("R moves to a neighbour")
}

/// One half (one class) of a path-based multicast star: per source port, the
/// destinations of its worm in visiting order (possibly empty).
pub type Star = Vec<(Dir, Vec<NodeId>)>;

/// Algorithm 1 on one half. `set` must be sorted ascending in the class key.
pub fn ocms_half(topo: &Topology, s: NodeId, set: &[NodeId], high: bool) -> Star {
    let ports = class_ports(topo, s, high);
    if set.is_empty() {
        return vec![];
    }
    if ports.len() == 1 {
        return vec![(ports[0], set.to_vec())];
    }
    let (p, k) = (ports.len(), set.len());
    let size = k + p;
    // Total weights are below N·k; a missing edge costs more than any
    // feasible matching.
    let missing: i64 = -((topo.nodes() as i64 + 1) * (size as i64 + 1));
    let mut w = Matrix::new(size, size, missing);
    // Rows 0..p: source copies; rows p..p+k: destinations.
    // Columns 0..k: destinations; columns k..k+p: end terminals.
    for (pi, &port) in ports.iter().enumerate() {
        for (j, &v) in set.iter().enumerate() {
            if first_port(topo, s, v) == port {
                w[(pi, j)] = -(r_dist(topo, s, v) as i64);
            }
        }
    }
    for (i, &u) in set.iter().enumerate() {
        for (j, &v) in set.iter().enumerate() {
            if key(topo, u, high) < key(topo, v, high) {
                w[(p + i, j)] = -(r_dist(topo, u, v) as i64);
            }
        }
    }
    for r in 0..size {
        for e in 0..p {
            w[(r, k + e)] = 0;
        }
    }
    let (total, assign) = kuhn_munkres(&w);
    // Lemma 1: a perfect matching without missing edges always exists.
    debug_assert!(total > missing);
    let mut star = Vec::new();
    for (pi, &port) in ports.iter().enumerate() {
        let mut dests = Vec::new();
        let mut col = assign[pi];
        while col < k {
            dests.push(set[col]);
            col = assign[p + col];
        }
        star.push((port, dests));
    }
    debug_assert_eq!(star.iter().map(|(_, d)| d.len()).sum::<usize>(), k);
    star
}

/// Hop length of a star, per worm, when each worm leaves by its port and
/// then follows R. `None` when a worm's first destination is not reached
/// through its port by R.
pub fn star_lengths(topo: &Topology, s: NodeId, star: &Star) -> Option<Vec<u32>> {
    star.iter()
        .map(|(port, dests)| {
            let mut len = 0;
            let mut at = s;
            for &d in dests {
                if at == s && first_port(topo, s, d) != *port {
                    return None;
                }
                len += r_dist(topo, at, d);
                at = d;
            }
            Some(len)
        })
        .collect()
}

/// Turns the two halves of a star into worms (empty paths dropped).
pub fn star_worms(topo: &Topology, s: NodeId, high: Star, low: Star) -> PathMulticast {
    let mut worms = Vec::new();
    for (class, star) in [(CLASS_HIGH, high), (CLASS_LOW, low)] {
        for (port, dests) in star {
            if dests.is_empty() {
                continue;
            }
            // R from the source takes `port` by construction; routing via the
            // port keeps the header's port explicit.
            let w = if first_port(topo, s, dests[0]) == port {
                r_worm(topo, class, s, dests)
            } else {
                r_worm_via(topo, class, s, port, dests)
            };
            worms.push(w);
        }
    }
    PathMulticast { source: s, worms }
}

/// OCMS of a whole multicast: K_sup on the high class, K_inf on the low one.
pub fn ocms(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    let (sup, inf) = split(topo, s, dests);
    let high = ocms_half(topo, s, &sup, true);
    let low = ocms_half(topo, s, &inf, false);
    Ok(star_worms(topo, s, high, low))
}
