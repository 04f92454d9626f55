//! DIAG (\[THESIS\] §3.2.1: Alg. 3.2.1.1/3.2.1.2 in 2-D, 3.2.1.4/3.2.1.5 in
//! 3-D, §3.2.1.7 for n-D):
//!
//! 1. the diagonal node `d` = componentwise maximum of the destinations;
//! 2. the **diagonal path** DP from `s` to `d`: each step goes to the
//!    neighbour (+X, +Y or +Z, never beyond `d`) nearest to the line `s–d`,
//!    measured by the integer cross product `|u × d|²`; ties X, then Y, then
//!    Z (the thesis's `D(u', sd) ≤ D(u'', sd)` then `u = u'`);
//! 3. destinations sorted by distance from `s` (ties: least `(z, y, x)`,
//!    our choice — the thesis gives none), each joined by
//!    [`CONNECT`](super::connect);
//! 4. the tail of DP holding no destination and no branch is cut.
//!
//! One-port priority (Proposition 3.2.1.6): the DP child first, then X, Y, Z.

use super::connect::connect;
use super::local::{norm, zyx, LocalTree, Lp};

/// `|u × d|²`, proportional to the squared distance from `u` to the line
/// through `0` and `d`.
fn cross2(u: Lp, d: Lp) -> i64 {
    let (u, d) = (u.map(|v| v as i64), d.map(|v| v as i64));
    let cx = u[1] * d[2] - u[2] * d[1];
    let cy = u[2] * d[0] - u[0] * d[2];
    let cz = u[0] * d[1] - u[1] * d[0];
    cx * cx + cy * cy + cz * cz
}

/// The diagonal path from the origin to `d`, both ends included.
pub(crate) fn diagonal_path(d: Lp) -> Vec<Lp> {
    let mut u = [0, 0, 0];
    let mut path = vec![u];
    while u != d {
        let mut best: Option<(i64, Lp)> = None;
        for axis in 0..3 {
            if u[axis] < d[axis] {
                let mut v = u;
                v[axis] += 1;
                let c = cross2(v, d);
                if best.is_none_or(|(b, _)| c < b) {
                    best = Some((c, v));
                }
            }
        }
        u = best.unwrap().1;
        path.push(u);
    }
    path
}

/// DIAG inside one zone, origin at local `0`.
pub(crate) fn local_tree(shape: [usize; 3], _dims: usize, dests: &[Lp]) -> LocalTree {
    let mut t = LocalTree::new(shape);
    if dests.is_empty() {
        return t;
    }
    let mut d = [0, 0, 0];
    for p in dests {
        for a in 0..3 {
            d[a] = d[a].max(p[a]);
        }
    }
    let dp = diagonal_path(d);
    for w in dp.windows(2) {
        t.add_step(w[0], w[1], true);
    }
    let mut order = dests.to_vec();
    order.sort_by_key(|&p| (norm(p), zyx(p)));
    for &u in &order {
        connect(&mut t, u);
    }
    // Tail cut: drop DP ends that are neither destinations nor branch points.
    let mut is_dest = vec![false; t.parent.len()];
    for &p in dests {
        let i = t.id(p);
        is_dest[i] = true;
    }
    for &p in dp.iter().skip(1).rev() {
        let i = t.id(p);
        if is_dest[i] || t.kids[i] > 0 {
            break;
        }
        t.remove_leaf(p);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_diagonal_path_8x8() {
        // Figure 3.2.1.6: (1,0), then (1,1), ... through (4,4), (5,4), (6,6).
        let p = diagonal_path([7, 6, 0]);
        let xy: Vec<(usize, usize)> = p.iter().map(|v| (v[0], v[1])).collect();
        assert_eq!(
            xy,
            vec![
                (0, 0),
                (1, 0),
                (1, 1),
                (2, 1),
                (2, 2),
                (3, 2),
                (3, 3),
                (4, 3),
                (4, 4),
                (5, 4),
                (5, 5),
                (6, 5),
                (6, 6),
                (7, 6)
            ]
        );
    }
}
