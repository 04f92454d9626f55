//! DSTM traffic policy (\[DSTM\] §3.2.1, docs/references.md §A): a unicast takes
//! the tree with the shorter path, ties to tree 0 so that one pair of nodes
//! never uses two trees and cannot see its messages overtake each other; a
//! multicast takes a tree drawn from the caller's seeded RNG. With a faulty
//! link and global fault information (§7) the faulty tree's distances treat
//! the link as infinite ([`unicast_tree_global`], [`multicast_tree_global`]);
//! with local information sources use the fault-free rules.

use crate::topology::NodeId;
use crate::trees::faults::SingleFault;
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

/// Global fault information (\[DSTM\] §7, docs/references.md §A "Single-link
/// fault tolerance"): the distance table of the faulty tree counts the
/// faulty link as infinitely long, so a unicast whose path on that tree
/// crosses the link takes the other tree; otherwise the fault-free rule
/// (shorter path, ties to tree 0). `fault = None` (no fault, or a link on
/// neither tree) is [`unicast_tree`].
pub fn unicast_tree_global(
    trees: &[SpanningTree],
    fault: Option<&SingleFault>,
    s: NodeId,
    d: NodeId,
) -> usize {
    let Some(f) = fault else {
        return unicast_tree(trees, s, d);
    };
    let mut best = 0;
    let mut best_d = u32::MAX;
    for (i, t) in trees.iter().enumerate() {
        if i == f.tree && f.crosses(trees, s, d) {
            continue;
        }
        let dist = t.distance(s, d);
        if dist < best_d {
            best = i;
            best_d = dist;
        }
    }
    best
}

/// Global fault information: a multicast always uses the good tree (§7).
/// `drawn` is the fault-free choice ([`multicast_tree`]), kept when the
/// fault lies on neither tree; callers draw it anyway so that the random
/// traffic is the same with and without the fault.
pub fn multicast_tree_global(fault: Option<&SingleFault>, drawn: usize) -> usize {
    fault.map_or(drawn, |f| f.good)
}

/// The tree index a multicast uses: uniform over the trees.
pub fn multicast_tree<R: Rng>(trees: usize, rng: &mut R) -> usize {
    rng.gen_range(0..trees)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use crate::trees::{construct, Named};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn trees(k: u32, m: u32) -> [SpanningTree; 2] {
        let t = Topology::torus(k, m).unwrap();
        construct(&t, &Named::Dstm1.construction(&t, 0, None))
            .unwrap()
            .trees
    }

    #[test]
    fn unicast_takes_the_shorter_tree_ties_to_tree_0() {
        let tr = trees(6, 5);
        let n = tr[0].topo.nodes();
        let (mut ties, mut ones) = (0, 0);
        for s in 0..n {
            for d in (0..n).filter(|&d| d != s) {
                let (a, b) = (tr[0].distance(s, d), tr[1].distance(s, d));
                let pick = unicast_tree(&tr, s, d);
                assert_eq!(pick, if b < a { 1 } else { 0 }, "{s}->{d}");
                assert_eq!(tr[pick].distance(s, d), a.min(b));
                ties += (a == b) as u32;
                ones += pick as u32;
            }
        }
        // Both outcomes and ties actually occur, so the test is not vacuous.
        assert!(ties > 0 && ones > 0);
    }

    #[test]
    fn global_unicast_avoids_the_fault_multicast_takes_the_good_tree() {
        let tr = trees(6, 5);
        let topo = tr[0].topo;
        let n = topo.nodes();
        let mut checked = 0;
        for e in 0..topo.edge_slots() {
            let Some(f) = SingleFault::new(&tr, e) else {
                // A link on neither tree changes nothing.
                for (s, d) in [(0, 7), (3, 20)] {
                    assert_eq!(
                        unicast_tree_global(&tr, None, s, d),
                        unicast_tree(&tr, s, d)
                    );
                }
                continue;
            };
            assert_eq!(multicast_tree_global(Some(&f), f.tree), f.good);
            for s in 0..n {
                for d in (0..n).filter(|&d| d != s) {
                    let pick = unicast_tree_global(&tr, Some(&f), s, d);
                    if f.crosses(&tr, s, d) {
                        assert_eq!(pick, f.good, "{e}: {s}->{d}");
                        checked += 1;
                    } else {
                        assert_eq!(pick, unicast_tree(&tr, s, d), "{e}: {s}->{d}");
                    }
                }
            }
        }
        assert!(checked > 0);
    }

    #[test]
    fn unicast_is_deterministic_per_pair() {
        let tr = trees(4, 4);
        for s in 0..16 {
            for d in 0..16 {
                assert_eq!(unicast_tree(&tr, s, d), unicast_tree(&tr, s, d));
            }
        }
        // A single tree always gives tree 0.
        assert_eq!(unicast_tree(&tr[..1], 0, 5), 0);
    }

    #[test]
    fn multicast_is_seeded_and_uses_both_trees() {
        let draw = |seed| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            (0..200)
                .map(|_| multicast_tree(2, &mut r))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        let v = draw(7);
        let ones = v.iter().filter(|&&t| t == 1).count();
        assert!(v.iter().all(|&t| t < 2));
        assert!((60..140).contains(&ones), "{ones} of 200");
    }
}
