//! Theorem 4.1 of \[DSTM\] §4) as
//! properties: for any K×M torus, any starting nodes, any of the 16 methods
//! and both root choices, the two trees are spanning, edge-disjoint, leave
//! exactly two links unused and are binary. The checks are recomputed here
//! from the raw edge lists, not taken from the constructor.

use proptest::prelude::*;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::{
    construct, construct_with, Construction, Fig5Split, Method, RootChoice, SpanningTree,
};

fn check(topo: &Topology, trees: &[SpanningTree; 2], unused: &[u32]) -> Result<(), String> {
    let n = topo.nodes() as usize;
    let mut count = vec![0u32; topo.edge_slots() as usize];
    for t in trees {
        if t.edges.len() != n - 1 {
            return Err(format!("{} edges, want {}", t.edges.len(), n - 1));
        }
        // Spanning and acyclic: a union-find over the raw edges.
        let mut uf: Vec<usize> = (0..n).collect();
        fn find(uf: &mut [usize], mut x: usize) -> usize {
            while uf[x] != x {
                uf[x] = uf[uf[x]];
                x = uf[x];
            }
            x
        }
        for &e in &t.edges {
            count[e as usize] += 1;
            let (a, b) = topo.edge_ends(e);
            let (ra, rb) = (find(&mut uf, a as usize), find(&mut uf, b as usize));
            if ra == rb {
                return Err(format!("cycle through edge {e}"));
            }
            uf[ra] = rb;
        }
        let max_children = (0..topo.nodes()).map(|u| t.child_count(u)).max().unwrap();
        if max_children > 2 {
            return Err(format!("a node has {max_children} children"));
        }
    }
    if count.iter().any(|&c| c > 1) {
        return Err("trees share an edge".into());
    }
    let free: Vec<u32> = (0..topo.edge_slots())
        .filter(|&e| count[e as usize] == 0)
        .collect();
    if free.len() != 2 || free != unused {
        return Err(format!("unused {free:?}, constructor says {unused:?}"));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn theorem_4_1_holds(
        k in 2u32..=12,
        m in 2u32..=12,
        r1 in any::<prop::sample::Index>(),
        r2 in any::<prop::sample::Index>(),
        method in 0usize..16,
        intersection in any::<bool>(),
        split in 0usize..3,
    ) {
        let topo = Topology::torus(k, m).unwrap();
        let n = topo.nodes() as usize;
        let c = Construction {
            method: Method::all()[method],
            r1: r1.index(n) as u32,
            r2: r2.index(n) as u32,
            roots: if intersection { RootChoice::Intersection } else { RootChoice::Start },
        };
        let split = [Fig5Split::KeepHalf, Fig5Split::MoveHalfUp, Fig5Split::MoveCeilL][split];
        let p = construct_with(&topo, &c, split).unwrap();
        if let Err(e) = check(&topo, &p.trees, &p.unused) {
            return Err(TestCaseError::fail(format!("{topo} {c:?} {split:?}: {e}")));
        }
        if split == Fig5Split::MoveHalfUp {
            prop_assert_eq!(construct(&topo, &c).unwrap().trees, p.trees);
        }
    }
}
