//! Header encoding for tree multicast: \[DSTM\] Appendix A (only lines 31–36
//! of the pseudo-code survive; the rest is reconstructed in docs/references.md §A).
//!
//! Depth-first from the LCA of the destination set. At node `v` with the
//! sorted list `L(v)` of destinations in its subtree, `L(v)` is split into the
//! lists of `v`'s children by post-order range. `v` gets a header flit iff it
//! is a destination, has at least two non-empty child lists (a split) or is
//! the LCA; `C` says whether it is a destination and `Oi` which children lists
//! are non-empty. The flit of `v` is emitted before those of its subtree, so
//! the partial order of §3.1.1 holds on every root-to-leaf path, and the LCA's
//! flit comes first. Sorting is `O(D log D)`; each partition step costs a
//! binary search per child, so the whole encoding is `O(D log D + N)`
//! (Theorem 5.3).

use crate::error::{InputError, InputResult};
use crate::flit::Head;
use crate::topology::NodeId;
use crate::trees::SpanningTree;

/// Encodes the header flits of a multicast from `source` to `dests` on `tree`
/// (channel class `class`). A single destination gives one flit `{d, C=1}`.
pub fn encode(
    tree: &SpanningTree,
    source: NodeId,
    dests: &[NodeId],
    class: u8,
) -> InputResult<Vec<Head>> {
    let n = tree.topo.nodes();
    if source >= n {
        return Err(InputError::new(
            "source",
            source,
            format!("a node id below {n}"),
        ));
    }
    if dests.is_empty() {
        return Err(InputError::new(
            "destinations",
            "[]",
            "at least one destination",
        ));
    }
    let mut nums = Vec::with_capacity(dests.len());
    for &d in dests {
        if d >= n {
            return Err(InputError::new(
                "destination",
                d,
                format!("a node id below {n}"),
            ));
        }
        if d == source {
            let (x, y) = tree.topo.coord(d);
            return Err(InputError::new(
                "destination",
                format!("{x},{y}"),
                "destinations must not include the source",
            ));
        }
        nums.push(tree.number[d as usize]);
    }
    nums.sort_unstable();
    nums.dedup();
    // LCA: the lowest node whose range covers both the smallest and the
    // largest post-order number in the set.
    let lca = tree.lca(
        tree.node_of[nums[0] as usize],
        tree.node_of[*nums.last().unwrap() as usize],
    );
    let mut out = Vec::with_capacity(nums.len() + 4);
    // Explicit stack of (node, slice range into nums) — trees can be deep.
    let mut stack: Vec<(NodeId, usize, usize)> = vec![(lca, 0, nums.len())];
    while let Some((v, lo, hi)) = stack.pop() {
        let list = &nums[lo..hi];
        let own = tree.number[v as usize];
        // v has the largest number in its subtree, so it can only be last.
        let is_dest = list.last() == Some(&own);
        let body = if is_dest {
            &list[..list.len() - 1]
        } else {
            list
        };
        let mut o = 0u8;
        let mut parts: Vec<(NodeId, usize, usize)> = Vec::with_capacity(2);
        for (d, child) in tree.children(v) {
            let (clo, chi) = (tree.low[child as usize], tree.number[child as usize]);
            let a = body.partition_point(|&x| x < clo);
            let b = body.partition_point(|&x| x <= chi);
            if a < b {
                o |= 1 << d.index();
                parts.push((child, lo + a, lo + b));
            }
        }
        if is_dest || parts.len() >= 2 || v == lca {
            out.push(Head {
                node: own,
                c: is_dest,
                o,
                s: false,
                class,
            });
        }
        // Children are emitted in port order; the stack reverses them.
        stack.extend(parts.into_iter().rev());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use crate::trees::{construct, Named};

    #[test]
    fn unicast_is_one_flit() {
        let t = Topology::torus(4, 4).unwrap();
        let p = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap();
        let h = encode(&p.trees[0], 0, &[5], 0).unwrap();
        assert_eq!(
            h,
            vec![Head {
                node: p.trees[0].number[5],
                c: true,
                o: 0,
                s: false,
                class: 0
            }]
        );
    }

    #[test]
    fn lca_first_and_every_destination_flagged() {
        let t = Topology::torus(6, 5).unwrap();
        let p = construct(&t, &Named::Dstm2.construction(&t, 7, None)).unwrap();
        let tr = &p.trees[1];
        let dests = [1, 2, 13, 22, 29, 17];
        let h = encode(tr, 0, &dests, 1).unwrap();
        let lca = dests.iter().copied().reduce(|a, b| tr.lca(a, b)).unwrap();
        assert_eq!(h[0].node, tr.number[lca as usize]);
        for d in dests {
            assert_eq!(
                h.iter()
                    .filter(|f| f.node == tr.number[d as usize] && f.c)
                    .count(),
                1
            );
        }
        assert!(h.iter().all(|f| f.class == 1 && !f.s));
    }

    #[test]
    fn bad_input() {
        let t = Topology::torus(4, 4).unwrap();
        let p = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap();
        assert!(encode(&p.trees[0], 0, &[], 0).is_err());
        assert!(encode(&p.trees[0], 0, &[0], 0)
            .unwrap_err()
            .to_string()
            .contains("source"));
        assert!(encode(&p.trees[0], 0, &[16], 0).is_err());
        assert!(encode(&p.trees[0], 99, &[1], 0).is_err());
    }
}
