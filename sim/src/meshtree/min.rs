//! MIN — the pro-traffic baseline the thesis compares against (\[THESIS\]
//! §3.2.2.1, §3.2.3; from Lin \[1\]/\[22\]). The thesis gives one sentence: "MIN
//! constructs the multicast tree by alternatively choosing the node with the
//! smallest coordinate in each dimension from the remaining destination nodes
//! and connecting it to the tree through a shortest path possible."
//!
//! **Our reading** (see `docs/decisions.md`):
//! * picks cycle through the axes X, Y[, Z], X, …; pick `i` takes the
//!   remaining destination with the smallest coordinate on axis `i mod n`
//!   (ties: least `(z, y, x)`);
//! * it is joined to the **nearest tree node in any direction** (Manhattan,
//!   inside the zone; ties least `(z, y, x)`) by the dimension-ordered path
//!   X, Y, Z — "a shortest path possible" to the tree, not from the source, so
//!   MIN is not a shortest-path tree and its time is not bounded by `D_max+K`;
//! * one-port priority X, Y, Z (+ before −).
//!
//! A node on a shortest path from the nearest tree node `c` to `u` is nearer
//! to `u` than `c`, so never in the tree: the result is a tree.

use super::local::{zyx, LocalTree, Lp};

/// The tree node nearest to `u` in any direction, ties to the least `(z,y,x)`.
fn nearest(t: &LocalTree, u: Lp) -> Lp {
    let s = t.shape;
    let max_r = (s[0] - 1) + (s[1] - 1) + (s[2] - 1);
    let (ux, uy, uz) = (u[0] as isize, u[1] as isize, u[2] as isize);
    let inside = |v: isize, a: usize| v >= 0 && (v as usize) < s[a];
    for r in 0..=max_r as isize {
        for dz in -r..=r {
            let cz = uz + dz;
            if !inside(cz, 2) {
                continue;
            }
            let rem = r - dz.abs();
            for dy in -rem..=rem {
                let cy = uy + dy;
                if !inside(cy, 1) {
                    continue;
                }
                let rx = rem - dy.abs();
                let xs: &[isize] = if rx == 0 { &[0] } else { &[-rx, rx] };
                for &dx in xs {
                    let cx = ux + dx;
                    if inside(cx, 0) {
                        let c = [cx as usize, cy as usize, cz as usize];
                        if t.has(c) {
                            return c;
                        }
                    }
                }
            }
        }
    }
    unreachable!("the zone origin is always in the tree")
}

/// The destinations in MIN's pick order.
pub(crate) fn min_order(dests: &[Lp], dims: usize) -> Vec<Lp> {
    // One list per axis sorted by (coordinate, z, y, x); a pick on axis `a`
    // takes the first not yet taken entry of list `a`.
    let lists: Vec<Vec<usize>> = (0..dims)
        .map(|a| {
            let mut v: Vec<usize> = (0..dests.len()).collect();
            v.sort_by_key(|&i| (dests[i][a], zyx(dests[i])));
            v
        })
        .collect();
    let mut head = vec![0usize; dims];
    let mut taken = vec![false; dests.len()];
    let mut out = Vec::with_capacity(dests.len());
    for pick in 0..dests.len() {
        let a = pick % dims;
        while taken[lists[a][head[a]]] {
            head[a] += 1;
        }
        let i = lists[a][head[a]];
        taken[i] = true;
        out.push(dests[i]);
    }
    out
}

/// MIN inside one zone, origin at local `0`.
pub(crate) fn local_tree(shape: [usize; 3], dims: usize, dests: &[Lp]) -> LocalTree {
    let mut t = LocalTree::new(shape);
    for u in min_order(dests, dims) {
        if !t.has(u) {
            let c = nearest(&t, u);
            t.add_path(c, u, false);
        }
    }
    t
}
