//! VH (Liu \[3\], \[THESIS\] §3.2.1.1, Figure 3.2.1.1): the union of the
//! dimension-ordered paths `s → d` (X, then Y, then Z). Time optimal in the
//! one-port model up to one delay hop: a node serves its X child first, then
//! Y, then Z (with this order the 8×8 example gives 25 links / 13 hops, as
//! the thesis).
//!
//! Two dimension-ordered paths from the same source that share a node share
//! the whole prefix up to it, so the union is a tree.

use super::local::{LocalTree, Lp};

/// VH inside one zone, origin at local `0`.
pub(crate) fn local_tree(shape: [usize; 3], _dims: usize, dests: &[Lp]) -> LocalTree {
    let mut t = LocalTree::new(shape);
    for &d in dests {
        t.add_path([0, 0, 0], d, false);
    }
    t
}
