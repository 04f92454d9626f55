//! DSTM traffic policy (paper 000 §3.2.1, ALGORITHMS.md §A): a unicast takes
//! the tree with the shorter path, ties to tree 0 so that one pair of nodes
//! never uses two trees and cannot see its messages overtake each other; a
//! multicast takes a tree drawn from the caller's seeded RNG.

use crate::topology::NodeId;
use crate::trees::SpanningTree;
use rand::Rng;

/// The tree index a unicast from `s` to `d` uses.
pub fn unicast_tree(trees: &[SpanningTree], s: NodeId, d: NodeId) -> usize {
    let mut best = 0;
    let mut best_d = u32::MAX;
    for (i, t) in trees.iter().enumerate() {
        let dist = t.distance(s, d);
        if dist < best_d {
            best = i;
            best_d = dist;
        }
    }
    best
}

/// The tree index a multicast uses: uniform over the trees.
pub fn multicast_tree<R: Rng>(trees: usize, rng: &mut R) -> usize {
    rng.gen_range(0..trees)
}
