//! OTMS — optimal time multicast star: the minimum longest worm over all sets
//! of at most one worm per source port of a class, each visiting its
//! destinations in monotone label order with R.
//!
//! \[PATHOPT\] §4, Algorithm 2. The body of
//! Algorithm 2 is missing from the text; this is the reconstruction of
//! docs/references.md §B1. A state `(i+1, j, l1, l2)` says: after the first `i`
//! destinations (label order), one path ends at `u_i` with length `l1`, the
//! other at `q_j` with length `l2` (`q_0`, `q_1` = the empty paths at the two
//! source ports, `q_{t+1}` = `u_t`). From `(1, 0, 0, 0)`, `u_{i+1}` either
//! extends the latest path, giving `(i+2, j, l1 + c, l2)`, or the other one,
//! giving `(i+2, i+1, l2 + c, l1)`. The answer is the final state with the
//! least `max(l1, l2)`.
//!
//! Instead of the boolean array `T[i][j][l1][l2]` we keep, for each
//! `(i, j, l1)`, only the least reachable `l2` with its back-pointer. This is
//! exact: every continuation of a state is also open to the same state with a
//! smaller `l2` and ends with componentwise no larger lengths, and the
//! objective is monotone. It costs O(k²N) instead of O(k²N²).

use super::hamiltonian::{class_ports, r_dist, split};
use super::ocms::{first_port, star_worms, Star};
use super::worm::{check_request, PathMulticast};
use crate::error::InputResult;
use crate::topology::{NodeId, Topology};

#[derive(Clone, Copy)]
struct Cell {
    l2: u32,
    prev_j: u32,
    prev_l1: u32,
}

/// Algorithm 2 on one half. `set` must be sorted ascending in the class key.
pub fn otms_half(topo: &Topology, s: NodeId, set: &[NodeId], high: bool) -> Star {
    let ports = class_ports(topo, s, high);
    if set.is_empty() {
        return vec![];
    }
    if ports.len() == 1 {
        return vec![(ports[0], set.to_vec())];
    }
    let k = set.len();
    let n = topo.nodes() as usize;
    // c'(q_a, u_t) for t in 1..=k (1-based destination index).
    let cost = |a: usize, t: usize| -> Option<u32> {
        let v = set[t - 1];
        if a < 2 {
            (first_port(topo, s, v) == ports[a]).then(|| r_dist(topo, s, v))
        } else {
            Some(r_dist(topo, set[a - 2], v))
        }
    };
    // layers[i][j][l1]: state (i+1, j, l1, l2) after i destinations.
    let mut layers: Vec<Vec<Vec<Option<Cell>>>> = Vec::with_capacity(k + 1);
    let mut first = vec![vec![None; n]];
    first[0][0] = Some(Cell {
        l2: 0,
        prev_j: 0,
        prev_l1: 0,
    });
    layers.push(first);
    for i in 0..k {
        let a = i + 1; // index of the latest path's end
        let mut next: Vec<Vec<Option<Cell>>> = vec![vec![None; n]; i + 2];
        let mut put = |j: usize, l1: u32, l2: u32, pj: usize, pl1: u32| {
            let slot = &mut next[j][l1 as usize];
            if slot.is_none_or(|c| l2 < c.l2) {
                *slot = Some(Cell {
                    l2,
                    prev_j: pj as u32,
                    prev_l1: pl1,
                });
            }
        };
        for (j, row) in layers[i].iter().enumerate() {
            let c_latest = cost(a, i + 1);
            let c_other = cost(j, i + 1);
            for (l1, cell) in row.iter().enumerate() {
                let Some(cell) = cell else { continue };
                let l1 = l1 as u32;
                if let Some(c) = c_latest {
                    put(j, l1 + c, cell.l2, j, l1);
                }
                if let Some(c) = c_other {
                    put(a, cell.l2 + c, l1, j, l1);
                }
            }
        }
        layers.push(next);
    }
    // Best final state: least max(l1, l2), then least l1 + l2.
    let mut best: Option<(u32, u32, usize, u32)> = None;
    for (j, row) in layers[k].iter().enumerate() {
        for (l1, cell) in row.iter().enumerate() {
            let Some(cell) = cell else { continue };
            let l1 = l1 as u32;
            let cand = (l1.max(cell.l2), l1 + cell.l2, j, l1);
            if best.is_none_or(|b| (cand.0, cand.1) < (b.0, b.1)) {
                best = Some(cand);
            }
        }
    }
    let (_, _, mut j, mut l1) = best.expect("a star always exists (Lemma 1)");
    // Walk back: at layer i+1, destination u_{i+1} extended the latest path
    // if the previous j is unchanged, the other path otherwise.
    let mut moves = vec![false; k]; // true = extended the other path
    for i in (0..k).rev() {
        let cell = layers[i + 1][j][l1 as usize].expect("back-pointer");
        moves[i] = cell.prev_j as usize != j;
        j = cell.prev_j as usize;
        l1 = cell.prev_l1;
    }
    // Replay: the latest path starts as q_1 (port 1), the other as q_0.
    let mut paths: [Vec<NodeId>; 2] = [vec![], vec![]];
    let (mut latest, mut other) = (1usize, 0usize);
    for (i, &m) in moves.iter().enumerate() {
        if m {
            std::mem::swap(&mut latest, &mut other);
        }
        paths[latest].push(set[i]);
    }
    vec![(ports[0], paths[0].clone()), (ports[1], paths[1].clone())]
}

/// OTMS of a whole multicast: K_sup on the high class, K_inf on the low one.
pub fn otms(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    let (sup, inf) = split(topo, s, dests);
    let high = otms_half(topo, s, &sup, true);
    let low = otms_half(topo, s, &inf, false);
    Ok(star_worms(topo, s, high, low))
}
