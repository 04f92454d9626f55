//! The header encoder (\[DSTM\] Appendix A) checked by the reference walker
//! (docs/architecture.md §3 router contract): for random tori, constructions, sources
//! and destination sets the worm reaches exactly its destinations, reserves
//! every directed link at most once, never sends an S=1 header up, and its
//! header flits keep the §3.1.1 partial order with the LCA's flit first.

use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};
use wormcast_sim::dstm::encode;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::{construct, Construction, Method, Named, RootChoice};
use wormcast_sim::walker::walk;

fn construction(topo: &Topology, which: usize, r1: u32, r2: u32, inter: bool) -> Construction {
    match which {
        0 => Named::Dstm1.construction(topo, r1, None),
        1 => Named::Dstm2.construction(topo, r1, None),
        _ => Construction {
            method: Method::all()[which - 2],
            r1,
            r2,
            roots: if inter {
                RootChoice::Intersection
            } else {
                RootChoice::Start
            },
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encoder_and_walker_agree(
        k in 2u32..=12,
        m in 2u32..=12,
        which in 0usize..18,
        inter in any::<bool>(),
        r1 in any::<prop::sample::Index>(),
        r2 in any::<prop::sample::Index>(),
        src in any::<prop::sample::Index>(),
        tree in 0usize..2,
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..=20),
    ) {
        let topo = Topology::torus(k, m).unwrap();
        let n = topo.nodes() as usize;
        let c = construction(&topo, which, r1.index(n) as u32, r2.index(n) as u32, inter);
        let p = construct(&topo, &c).unwrap();
        let tr = &p.trees[tree];
        let source = src.index(n) as u32;
        // 1..=min(N−1, 20) distinct destinations, never the source.
        let others: Vec<u32> = (0..n as u32).filter(|&v| v != source).collect();
        let dests: BTreeSet<u32> = picks
            .iter()
            .take(others.len())
            .map(|i| others[i.index(others.len())])
            .collect();
        let dests: Vec<u32> = dests.into_iter().collect();
        let heads = encode(tr, source, &dests, tree as u8).unwrap();
        let w = walk(tr, source, &heads).map_err(|e| TestCaseError::fail(e.to_string()))?;

        // Exactly the destinations consume.
        prop_assert_eq!(&w.consumers, &dests);
        // Each directed link at most once, and only tree links.
        let set: HashSet<_> = w.links.iter().copied().collect();
        prop_assert_eq!(set.len(), w.links.len());
        for &(u, d) in &w.links {
            prop_assert!(tr.contains_edge(topo.edge(u, d).unwrap()));
        }
        prop_assert_eq!(w.hops as usize, w.links.len());
        // No S=1 header ever goes up.
        prop_assert!(w.moves.iter().all(|mv| !(mv.s && mv.up)));
        // A single destination is reached along the tree path.
        if dests.len() == 1 {
            prop_assert_eq!(w.hops, tr.distance(source, dests[0]));
            prop_assert_eq!(heads.len(), 1);
        }
        // Every header is stripped at the node it names.
        for (h, &at) in heads.iter().zip(&w.stripped_at) {
            prop_assert_eq!(tr.number[at as usize], h.node);
        }
        // Path length to each destination = source→LCA climb + LCA→dest.
        let nodes: Vec<u32> = heads.iter().map(|h| tr.node_of[h.node as usize]).collect();
        let lca = dests.iter().copied().reduce(|a, b| tr.lca(a, b)).unwrap();
        prop_assert_eq!(nodes[0], lca);
        for &(d, len) in &w.path_len {
            prop_assert_eq!(len, tr.distance(source, lca) + tr.distance(lca, d));
        }
        // Partial order: if a's flit must be seen before b's (a is an
        // ancestor of b), it comes first.
        for i in 0..nodes.len() {
            for j in 0..nodes.len() {
                if i != j && tr.is_ancestor(nodes[i], nodes[j]) {
                    prop_assert!(i < j, "flit {} for an ancestor after flit {}", i, j);
                }
            }
        }
        // Every node with a flit is a destination, a split or the LCA.
        for (h, &v) in heads.iter().zip(&nodes) {
            let split = h.o.count_ones() + h.c as u32 >= 2;
            prop_assert!(h.c == dests.contains(&v));
            prop_assert!(h.c || split || v == lca);
        }
    }
}
