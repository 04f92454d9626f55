//! Hamiltonian ("snake") labelling, the routing function R, and the
//! Hamiltonian-path schemes built on it: dual-path and multi-path (Lin & Ni,
//! as fixed in docs/references.md §B1) and LIN's single path (\[THESIS\] §3.3.2).
//!
//! \[PATHOPT\] §2.1: for an n-column mesh,
//! `L(x,y) = y·n + x` on even rows and `y·n + n − x − 1` on odd rows, and
//! `R(u,v)` moves to the neighbour `w` with the largest `L(w) ≤ L(v)` when
//! `L(u) < L(v)`, the smallest `L(w) ≥ L(v)` otherwise. R is minimal on the
//! mesh (checked in `tests/pathbased_props.rs`). Label-increasing channels form
//! the high class ([`CLASS_HIGH`]), label-decreasing ones the low class
//! ([`CLASS_LOW`]).

use super::worm::{check_request, dir_between, PathMulticast, PathWorm, CLASS_HIGH, CLASS_LOW};
use crate::error::{InputError, InputResult};
use crate::topology::{Dir, NodeId, Topology};

/// Snake label of node `n` (\[PATHOPT\] eq. for L).
pub fn label(topo: &Topology, n: NodeId) -> u32 {
    let (x, y) = topo.coord(n);
    if y.is_multiple_of(2) {
        y * topo.k + x
    } else {
        y * topo.k + topo.k - x - 1
    }
}

/// The node carrying snake label `l`.
pub fn node_of_label(topo: &Topology, l: u32) -> NodeId {
    let y = l / topo.k;
    let r = l % topo.k;
    let x = if y.is_multiple_of(2) {
        r
    } else {
        topo.k - 1 - r
    };
    topo.id(x, y)
}

/// One step of R from `u` toward `v` (`u != v`).
pub fn r_next(topo: &Topology, u: NodeId, v: NodeId) -> NodeId {
    let (lu, lv) = (label(topo, u), label(topo, v));
    debug_assert_ne!(lu, lv);
    let nbrs = Dir::ALL.into_iter().filter_map(|d| topo.neighbor(u, d));
    if lu < lv {
        nbrs.filter(|&w| label(topo, w) <= lv)
            .max_by_key(|&w| label(topo, w))
    } else {
        nbrs.filter(|&w| label(topo, w) >= lv)
            .min_by_key(|&w| label(topo, w))
    }
    .expect("the snake neighbour always qualifies")
}

/// The R route from `u` to `v`: the nodes after `u`, up to and including `v`.
pub fn r_route(topo: &Topology, u: NodeId, v: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut at = u;
    while at != v {
        at = r_next(topo, at, v);
        out.push(at);
    }
    out
}

/// Hop length of the R route (equals the mesh distance: R is minimal).
pub fn r_dist(topo: &Topology, u: NodeId, v: NodeId) -> u32 {
    r_route(topo, u, v).len() as u32
}

/// Ordering key for one half: the label itself for the high half (K_sup), its
/// mirror `N − 1 − L` for the low half (K_inf), so both halves are
/// "ascending" in the key.
pub fn key(topo: &Topology, n: NodeId, high: bool) -> u32 {
    let l = label(topo, n);
    if high {
        l
    } else {
        topo.nodes() - 1 - l
    }
}

/// The source ports of one class: the neighbours whose key exceeds the
/// source's (at most two on a mesh), in port order.
pub fn class_ports(topo: &Topology, s: NodeId, high: bool) -> Vec<Dir> {
    Dir::ALL
        .into_iter()
        .filter(|&d| {
            topo.neighbor(s, d)
                .is_some_and(|w| key(topo, w, high) > key(topo, s, high))
        })
        .collect()
}

/// Splits destinations into K_sup (ascending label) and K_inf (descending).
pub fn split(topo: &Topology, s: NodeId, dests: &[NodeId]) -> (Vec<NodeId>, Vec<NodeId>) {
    let ls = label(topo, s);
    let mut sup: Vec<NodeId> = dests
        .iter()
        .copied()
        .filter(|&d| label(topo, d) > ls)
        .collect();
    let mut inf: Vec<NodeId> = dests
        .iter()
        .copied()
        .filter(|&d| label(topo, d) < ls)
        .collect();
    sup.sort_by_key(|&d| label(topo, d));
    inf.sort_by_key(|&d| std::cmp::Reverse(label(topo, d)));
    (sup, inf)
}

/// A worm that follows R from the source through `dests` (already in
/// monotone label order).
pub fn r_worm(topo: &Topology, class: u8, s: NodeId, dests: Vec<NodeId>) -> PathWorm {
    PathWorm::build(topo, class, s, dests, |a, b| r_route(topo, a, b))
}

/// A worm whose first hop is forced through `port`, then follows R.
/// The caller guarantees the neighbour lies between the source and the first
/// destination in the class order.
pub fn r_worm_via(
    topo: &Topology,
    class: u8,
    s: NodeId,
    port: Dir,
    dests: Vec<NodeId>,
) -> PathWorm {
    let w = topo.neighbor(s, port).expect("port exists");
    PathWorm::build(topo, class, s, dests, |a, b| {
        if a == s {
            let mut r = vec![w];
            if w != b {
                r.extend(r_route(topo, w, b));
            }
            r
        } else {
            r_route(topo, a, b)
        }
    })
}

/// Dual-path (Lin & Ni; docs/references.md §B1): D_H ascending on the high class,
/// D_L descending on the low class, at most two worms, each routed by R.
pub fn dual_path(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    let (sup, inf) = split(topo, s, dests);
    let mut worms = Vec::new();
    if !sup.is_empty() {
        worms.push(r_worm(topo, CLASS_HIGH, s, sup));
    }
    if !inf.is_empty() {
        worms.push(r_worm(topo, CLASS_LOW, s, inf));
    }
    Ok(PathMulticast { source: s, worms })
}

/// Multi-path (Lin & Ni; docs/references.md §B1): each of D_H and D_L is split by
/// x relative to the source (left of it / at or right of it), giving up to
/// four worms.
///
/// Port rule (decision, see docs/decisions.md): in each class, the group on
/// the side the snake runs toward along the source row leaves through the
/// snake neighbour on that row (label ±1); the other group leaves through the
/// vertical neighbour of the class. The forced first hop always lies between
/// the source and the group's first destination in label order, so the worm
/// stays in its class; after it the worm follows R. If the row neighbour does
/// not exist (source at the row end, where the snake turns vertically), both
/// groups use R from the source and may share a port.
pub fn multi_path(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    let (sx, sy) = topo.coord(s);
    let (sup, inf) = split(topo, s, dests);
    let mut worms = Vec::new();
    for (high, set) in [(true, sup), (false, inf)] {
        let class = if high { CLASS_HIGH } else { CLASS_LOW };
        let (left, right): (Vec<NodeId>, Vec<NodeId>) =
            set.into_iter().partition(|&d| topo.coord(d).0 < sx);
        // Direction in which labels increase along the source row.
        let inc_right = sy.is_multiple_of(2);
        // The row neighbour of this class: the snake successor for the high
        // class, the predecessor for the low class.
        let row_dir = match (high, inc_right) {
            (true, true) | (false, false) => Dir::XPlus,
            _ => Dir::XMinus,
        };
        let vert_dir = if high { Dir::YPlus } else { Dir::YMinus };
        let row_side_is_right = row_dir == Dir::XPlus;
        let row_exists = topo.neighbor(s, row_dir).is_some();
        for (is_right, group) in [(false, left), (true, right)] {
            if group.is_empty() {
                continue;
            }
            let port = if is_right == row_side_is_right {
                row_dir
            } else {
                vert_dir
            };
            let worm = if row_exists && topo.neighbor(s, port).is_some() {
                r_worm_via(topo, class, s, port, group)
            } else {
                r_worm(topo, class, s, group)
            };
            worms.push(worm);
        }
    }
    Ok(PathMulticast { source: s, worms })
}

/// LIN's algorithm as reviewed in \[THESIS\] §3.3.2: a single worm along the
/// snake Hamiltonian path from the origin, visiting the destinations in label
/// order with R. The source must be the origin (label 0).
pub fn lin(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    if label(topo, s) != 0 {
        let (x, y) = topo.coord(s);
        return Err(InputError::new(
            "source",
            format!("{x},{y}"),
            "LIN's single Hamiltonian path starts at the origin 0,0",
        ));
    }
    let (sup, _) = split(topo, s, dests);
    let worms = if sup.is_empty() {
        vec![]
    } else {
        vec![r_worm(topo, CLASS_HIGH, s, sup)]
    };
    Ok(PathMulticast { source: s, worms })
}

/// Whether the hop `a → b` goes up (high class) or down in label.
pub fn hop_is_high(topo: &Topology, a: NodeId, b: NodeId) -> bool {
    debug_assert!(dir_between(topo, a, b).is_some());
    label(topo, b) > label(topo, a)
}
