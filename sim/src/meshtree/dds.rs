//! DDS — Dimensional Distance Sorted (\[THESIS\] §3.2.2): destinations are
//! sorted by the dimensional-distance comparator of Alg. 3.2.2.1 and joined
//! one by one with [`CONNECT`](super::connect) to a tree that starts as the
//! source alone (Alg. 3.2.2.2).
//!
//! The comparator: the smaller minimum coordinate first; on a tie the one
//! whose first minimal axis is lower first; on a tie again drop that axis from
//! both and repeat. In 2-D this is exactly the scan of Alg. 3.2.2.3 (for
//! `d = 0, 1, …`: column `x = d` from `y = d` up, then row `y = d` from
//! `x = d + 1`), and in 3-D the surface scan of Alg. 3.2.2.5.
//!
//! One-port priority (Proposition 3.2.2.6): X first, then Y, then Z.

use super::connect::connect;
use super::local::{LocalTree, Lp};
use std::cmp::Ordering;

/// Alg. 3.2.2.1 on the first `dims` axes.
pub(crate) fn dimensional_cmp(a: Lp, b: Lp, dims: usize) -> Ordering {
    let mut left: Vec<usize> = (0..dims).collect();
    let mut right = left.clone();
    while !left.is_empty() {
        let (ia, ma) = first_min(&left, a);
        let (ib, mb) = first_min(&right, b);
        match ma.cmp(&mb).then(left[ia].cmp(&right[ib])) {
            Ordering::Equal => {
                left.remove(ia);
                right.remove(ib);
            }
            o => return o,
        }
    }
    Ordering::Equal
}

/// Position in `axes` of the first axis with the minimum coordinate, and it.
fn first_min(axes: &[usize], p: Lp) -> (usize, usize) {
    let mut best = (0, p[axes[0]]);
    for (i, &a) in axes.iter().enumerate().skip(1) {
        if p[a] < best.1 {
            best = (i, p[a]);
        }
    }
    best
}

/// The destinations in DDS order.
pub(crate) fn dds_order(dests: &[Lp], dims: usize) -> Vec<Lp> {
    let mut v = dests.to_vec();
    v.sort_by(|&a, &b| dimensional_cmp(a, b, dims));
    v
}

/// DDS inside one zone, origin at local `0`.
pub(crate) fn local_tree(shape: [usize; 3], dims: usize, dests: &[Lp]) -> LocalTree {
    let mut t = LocalTree::new(shape);
    for u in dds_order(dests, dims) {
        connect(&mut t, u);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_order_8x8() {
        // Figure 3.2.2.2: (0,2), (3,0), (4,0), (4,6), (7,4), (6,6).
        let d = [
            [4, 6, 0],
            [6, 6, 0],
            [0, 2, 0],
            [7, 4, 0],
            [3, 0, 0],
            [4, 0, 0],
        ];
        let o = dds_order(&d, 2);
        assert_eq!(
            o,
            vec![
                [0, 2, 0],
                [3, 0, 0],
                [4, 0, 0],
                [4, 6, 0],
                [7, 4, 0],
                [6, 6, 0]
            ]
        );
    }

    #[test]
    fn comparator_matches_2d_scan() {
        // Scan order of Alg. 3.2.2.3 on a 6×5 mesh.
        let (m, n) = (6usize, 5usize);
        let mut scan = Vec::new();
        for d in 0..m.min(n) {
            for y in d..n {
                scan.push([d, y, 0]);
            }
            for x in d + 1..m {
                scan.push([x, d, 0]);
            }
        }
        let all: Vec<Lp> = (0..n)
            .flat_map(|y| (0..m).map(move |x| [x, y, 0]))
            .collect();
        assert_eq!(dds_order(&all, 2), scan);
    }
}
