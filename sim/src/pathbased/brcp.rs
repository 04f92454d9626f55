//! Negative-first BRCP multicast (\[BRCP\] §3)
//! and the column-path baseline.
//!
//! Orientation: the paper puts the origin bottom-left with north = +y; here
//! the origin is node (0,0) and "north" is +y, "east" +x, so the negative
//! subnetwork is the −X and −Y channels and the positive one +X and +Y.
//!
//! * [`nf_segment`]: the negative-first unicast route used between
//!   consecutive destinations of a worm: all −X then −Y hops, then +X then +Y.
//!   A routing list that is negative-first (Definition 8) thus gives a route
//!   whose negative hops all precede its positive ones (Definition 3).
//! * [`column_greedy`], [`row_greedy`]: Figs. 2 and 3.
//! * [`pure_brcp`]: Fig. 4, steps 1–10 (Theorem 1: minimum number of worms).
//! * [`minimal_brcp`]: Fig. 7 (Theorem 2: minimum number of worms such that
//!   each destination is reached on a minimal path).
//! * [`column_path`]: Boppana et al.'s column-path baseline (not in our
//!   papers beyond its name in \[BRCP\] §4): one worm per column and side
//!   of the source row, routed XY (e-cube).
//!
//! Every worm is class 0: negative-first routing needs no virtual channels.
//! Time = longest worm in hops, traffic = sum of hops (see [`super::worm`]).

use super::worm::{check_request, PathMulticast, PathWorm};
use crate::error::InputResult;
use crate::topology::{NodeId, Topology};

/// `b ≼ a`: `a` contains `b` (Definition 4).
pub fn contains(topo: &Topology, a: NodeId, b: NodeId) -> bool {
    let (ax, ay) = topo.coord(a);
    let (bx, by) = topo.coord(b);
    bx <= ax && by <= ay
}

/// Appends the XY walk from `from` to `to` (X first, then Y) and returns `to`.
fn walk(topo: &Topology, out: &mut Vec<NodeId>, from: (u32, u32), to: (u32, u32)) -> (u32, u32) {
    let (mut x, mut y) = from;
    while x != to.0 {
        x = if x < to.0 { x + 1 } else { x - 1 };
        out.push(topo.id(x, y));
    }
    while y != to.1 {
        y = if y < to.1 { y + 1 } else { y - 1 };
        out.push(topo.id(x, y));
    }
    to
}

/// Negative-first route from `a` to `b`: −X, −Y, then +X, +Y (nodes after
/// `a`, up to `b`).
pub fn nf_segment(topo: &Topology, a: NodeId, b: NodeId) -> Vec<NodeId> {
    let (ax, ay) = topo.coord(a);
    let (bx, by) = topo.coord(b);
    let mut out = Vec::new();
    // Negative phase: down to (min x, min y); then the positive phase.
    let low = walk(topo, &mut out, (ax, ay), (ax.min(bx), ay.min(by)));
    walk(topo, &mut out, low, (bx, by));
    out
}

/// XY (dimension-ordered, e-cube) route from `a` to `b`.
pub fn xy_segment(topo: &Topology, a: NodeId, b: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    walk(topo, &mut out, topo.coord(a), topo.coord(b));
    out
}

/// Whether `list` can be visited in order on a negative-first path from `s`
/// (Definition 8): a reverse-containment chain below `s`, then a
/// containment chain.
pub fn is_nf_list(topo: &Topology, s: NodeId, list: &[NodeId]) -> bool {
    let mut t = 0; // longest prefix s ≽ n1 ≽ … ≽ nt
    let mut prev = s;
    while t < list.len() && contains(topo, prev, list[t]) {
        prev = list[t];
        t += 1;
    }
    // Positive part from t (any t' ≤ t works; the longest prefix is the
    // least restrictive for the rest).
    (t..list.len().saturating_sub(1)).all(|i| contains(topo, list[i + 1], list[i]))
}

fn sorted_lex(topo: &Topology, d: &[NodeId]) -> Vec<NodeId> {
    let mut v = d.to_vec();
    v.sort_by_key(|&n| topo.coord(n));
    v
}

fn in_box(topo: &Topology, n: NodeId, p1: NodeId, p2: NodeId) -> bool {
    contains(topo, n, p1) && contains(topo, p2, n)
}

/// Fig. 2, column-greedy: a containment-ordered list of nodes of `d` lying
/// between `p1 ≼ p2`, taken column by column, each time every node at or
/// above the last one taken.
pub fn column_greedy(topo: &Topology, d: &[NodeId], p1: NodeId, p2: NodeId) -> Vec<NodeId> {
    let mut y = topo.coord(p1).1;
    let mut l = Vec::new();
    for n in sorted_lex(topo, d) {
        if !in_box(topo, n, p1, p2) {
            continue;
        }
        let (_, ny) = topo.coord(n);
        if ny >= y {
            l.push(n);
            y = ny;
        }
    }
    l
}

/// Fig. 3, row-greedy: as column-greedy with rows and columns exchanged.
pub fn row_greedy(topo: &Topology, d: &[NodeId], p1: NodeId, p2: NodeId) -> Vec<NodeId> {
    let mut v: Vec<NodeId> = d
        .iter()
        .copied()
        .filter(|&n| in_box(topo, n, p1, p2))
        .collect();
    v.sort_by_key(|&n| {
        let (x, y) = topo.coord(n);
        (y, x)
    });
    let mut x = topo.coord(p1).0;
    let mut l = Vec::new();
    for n in v {
        let (nx, _) = topo.coord(n);
        if nx >= x {
            l.push(n);
            x = nx;
        }
    }
    l
}

/// The quadrants of Fig. 4 step 2: (NW, NE, SW, SE).
pub fn quadrants(topo: &Topology, s: NodeId, d: &[NodeId]) -> [Vec<NodeId>; 4] {
    let (sx, sy) = topo.coord(s);
    let mut q: [Vec<NodeId>; 4] = Default::default();
    for &n in d {
        let (x, y) = topo.coord(n);
        let i = if x < sx && y > sy {
            0
        } else if x >= sx && y >= sy {
            1
        } else if x <= sx && y <= sy {
            2
        } else {
            3
        };
        q[i].push(n);
    }
    q
}

fn remove(d: &mut Vec<NodeId>, l: &[NodeId]) {
    d.retain(|n| !l.contains(n));
}

fn nf_worms(topo: &Topology, s: NodeId, lists: Vec<Vec<NodeId>>) -> PathMulticast {
    let worms = lists
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|l| PathWorm::build(topo, 0, s, l, |a, b| nf_segment(topo, a, b)))
        .collect();
    PathMulticast { source: s, worms }
}

/// The routing lists of pure negative-first BRCP (Fig. 4).
pub fn pure_brcp_lists(topo: &Topology, s: NodeId, dests: &[NodeId]) -> Vec<Vec<NodeId>> {
    let origin = topo.id(0, 0);
    let far = topo.id(topo.k - 1, topo.m - 1);
    let mut d = dests.to_vec();
    let [nw, ne, sw, se] = quadrants(topo, s, dests);
    let mut positive: Vec<Vec<NodeId>> = Vec::new();
    let mut either: Vec<Vec<NodeId>> = Vec::new();
    // Steps 3–5: lists that need the positive subnetwork, each built over
    // every remaining destination.
    for (quad, row) in [(&nw, false), (&se, true), (&ne, false)] {
        while d.iter().any(|n| quad.contains(n)) {
            let l = if row {
                row_greedy(topo, &d, origin, far)
            } else {
                column_greedy(topo, &d, origin, far)
            };
            debug_assert!(l.iter().any(|n| quad.contains(n)));
            remove(&mut d, &l);
            positive.push(l);
        }
    }
    // Step 6: the rest of SW, contained in s.
    while d.iter().any(|n| sw.contains(n)) {
        let l = column_greedy(topo, &d, origin, s);
        debug_assert!(!l.is_empty());
        remove(&mut d, &l);
        either.push(l);
    }
    debug_assert!(d.is_empty());
    // Steps 7–9.
    let mut out = Vec::new();
    while !either.is_empty() && !positive.is_empty() {
        let l1 = either.remove(0);
        let l2 = positive.remove(0);
        out.push(l1.into_iter().rev().chain(l2).collect());
    }
    while either.len() >= 2 {
        let l1 = either.remove(0);
        let l2 = either.remove(0);
        out.push(l1.into_iter().rev().chain(l2).collect());
    }
    if let Some(l) = either.pop() {
        out.push(l.into_iter().rev().collect());
    }
    out.extend(positive);
    out
}

/// Pure negative-first BRCP multicast (\[BRCP\] Fig. 4).
pub fn pure_brcp(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    Ok(nf_worms(topo, s, pure_brcp_lists(topo, s, dests)))
}

/// The routing lists of minimal negative-first BRCP (Fig. 7).
pub fn minimal_brcp_lists(topo: &Topology, s: NodeId, dests: &[NodeId]) -> Vec<Vec<NodeId>> {
    let far = topo.id(topo.k - 1, topo.m - 1);
    let origin = topo.id(0, 0);
    let [nw, ne, mut sw, se] = quadrants(topo, s, dests);
    let mut out = Vec::new();
    // Step 3: one list per NW column, increasing y.
    let mut nw = sorted_lex(topo, &nw);
    while let Some(&first) = nw.first() {
        let x = topo.coord(first).0;
        let col: Vec<NodeId> = nw
            .iter()
            .copied()
            .filter(|&n| topo.coord(n).0 == x)
            .collect();
        remove(&mut nw, &col);
        out.push(col);
    }
    // Step 4: one list per SE row, increasing x.
    let mut se: Vec<NodeId> = se;
    se.sort_by_key(|&n| {
        let (x, y) = topo.coord(n);
        (y, x)
    });
    while let Some(&first) = se.first() {
        let y = topo.coord(first).1;
        let row: Vec<NodeId> = se
            .iter()
            .copied()
            .filter(|&n| topo.coord(n).1 == y)
            .collect();
        remove(&mut se, &row);
        out.push(row);
    }
    // Step 5: SW, reversed column-greedy lists between (0,0) and s.
    while !sw.is_empty() {
        let l = column_greedy(topo, &sw, origin, s);
        remove(&mut sw, &l);
        out.push(l.into_iter().rev().collect());
    }
    // Step 6: NE, column-greedy lists between s and the far corner.
    let mut ne = ne;
    while !ne.is_empty() {
        let l = column_greedy(topo, &ne, s, far);
        remove(&mut ne, &l);
        out.push(l);
    }
    out
}

/// Minimal negative-first BRCP multicast (\[BRCP\] Fig. 7).
pub fn minimal_brcp(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    Ok(nf_worms(topo, s, minimal_brcp_lists(topo, s, dests)))
}

/// Column-path (Boppana et al., the baseline of \[BRCP\] §4): for every
/// column holding destinations, one worm for those at or above the source
/// row (increasing y) and one for those below it (decreasing y), each routed
/// XY: along the source row to the column, then along the column.
pub fn column_path(topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<PathMulticast> {
    check_request(topo, s, dests)?;
    let sy = topo.coord(s).1;
    let mut lists: Vec<Vec<NodeId>> = Vec::new();
    for x in 0..topo.k {
        let mut up: Vec<NodeId> = Vec::new();
        let mut down: Vec<NodeId> = Vec::new();
        for &d in dests {
            let (dx, dy) = topo.coord(d);
            if dx == x {
                if dy >= sy {
                    up.push(d)
                } else {
                    down.push(d)
                }
            }
        }
        up.sort_by_key(|&n| topo.coord(n).1);
        down.sort_by_key(|&n| std::cmp::Reverse(topo.coord(n).1));
        lists.push(up);
        lists.push(down);
    }
    let worms = lists
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|l| PathWorm::build(topo, 0, s, l, |a, b| xy_segment(topo, a, b)))
        .collect();
    Ok(PathMulticast { source: s, worms })
}
