//! CONNECT(T, u) — the step shared by DIAG (Alg. 3.2.1.2 step 3, Alg. 3.2.1.5)
//! and DDS (Alg. 3.2.2.2 step 2) in \[THESIS\] §3.2:
//!
//! 1. if `u` is already in the tree, nothing is added;
//! 2. otherwise take the tree node `c` inside zone{s ⇔ u} (so `c ≤ u`
//!    componentwise, local coordinates) nearest to `u` (Manhattan);
//!    **ties:** the smallest coordinate in the highest dimension first, i.e.
//!    the least `(z, y, x)` (docs/references.md §C; it reproduces every example:
//!    DDS mesh connects (6,6) to (6,4), not to (4,6));
//! 3. add the dimension-ordered path `c → u` (X, then Y, then Z).
//!
//! No node of that path is in the tree already: it would be nearer to `u`
//! than `c`. So the result stays a tree, and because `c` was reached along a
//! shortest path from `s` and `c ≤ u`, so is `u` (Proposition 3.2.1.3).

use super::local::{norm, LocalTree, Lp};

/// The tree node `c ≤ u` nearest to `u`, ties to the least `(z, y, x)`.
pub(crate) fn nearest_dominated(t: &LocalTree, u: Lp) -> Lp {
    for r in 0..=norm(u) {
        // Candidates c = u − δ, |δ| = r, 0 ≤ δ ≤ u, in increasing (c_z, c_y,
        // c_x): δ_z decreasing, then δ_y decreasing.
        for dz in (0..=r.min(u[2])).rev() {
            let rem = r - dz;
            if rem > u[0] + u[1] {
                continue;
            }
            let lo = rem.saturating_sub(u[0]);
            for dy in (lo..=rem.min(u[1])).rev() {
                let dx = rem - dy;
                let c = [u[0] - dx, u[1] - dy, u[2] - dz];
                if t.has(c) {
                    return c;
                }
            }
        }
    }
    unreachable!("the zone origin is always in the tree")
}

/// CONNECT(T, u): joins `u` to the tree by a shortest dimension-ordered path
/// from the nearest dominated tree node. Returns the links added.
pub(crate) fn connect(t: &mut LocalTree, u: Lp) -> usize {
    if t.has(u) {
        return 0;
    }
    let c = nearest_dominated(t, u);
    t.add_path(c, u, false);
    norm(u) - norm(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tie_prefers_lower_highest_dimension() {
        // DDS 8×8 example: (6,6) is 2 away from both (6,4) and (4,6).
        let mut t = LocalTree::new([8, 8, 1]);
        t.add_path([0, 0, 0], [4, 0, 0], false);
        t.add_path([4, 0, 0], [4, 6, 0], false);
        t.add_path([4, 4, 0], [7, 4, 0], false);
        assert_eq!(nearest_dominated(&t, [6, 6, 0]), [6, 4, 0]);
        assert_eq!(connect(&mut t, [6, 6, 0]), 2);
        assert!(t.has([6, 5, 0]));
    }
}
