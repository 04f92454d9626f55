//! Roskind–Tarjan matroid partition (\[DSTM\] §5.3): two edge-disjoint
//! spanning trees for any torus and order, deterministic per seed, the
//! Hamilton-path order of Fig. 7, and bad input naming the field.

use proptest::prelude::*;
use wormcast_sim::topology::{EdgeId, Topology};
use wormcast_sim::trees::tarjan::{
    hamilton_order, partition, random_order, run_trials, select, tarjan_pair, HamiltonReading,
    TarjanSpec, TarjanWhich,
};
use wormcast_sim::trees::SpanningTree;

/// Re-derives everything from the edge lists, trusting nothing.
fn assert_two_spanning_trees(t: &Topology, forests: &[Vec<EdgeId>; 2], dropped: &[EdgeId]) {
    let mut count = vec![0u8; t.edge_slots() as usize];
    for f in forests {
        assert_eq!(f.len() as u32, t.nodes() - 1, "{t}: forest size");
        SpanningTree::from_edges(*t, 0, f, "forest").expect("a spanning tree");
        for &e in f {
            count[e as usize] += 1;
        }
    }
    for &e in dropped {
        count[e as usize] += 1;
    }
    assert!(
        count.iter().all(|&c| c == 1),
        "{t}: every link exactly once"
    );
    assert_eq!(dropped.len(), 2, "{t}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn random_orders_give_two_edge_disjoint_spanning_trees(
        k in 2u32..=12, m in 2u32..=12, seed in any::<u64>(), trial in 0u64..1000
    ) {
        let t = Topology::torus(k, m).unwrap();
        let order = random_order(&t, seed, trial);
        let p = partition(&t, &order).unwrap();
        assert_two_spanning_trees(&t, &p.forests, &p.dropped);
        let pair = tarjan_pair(&t, &order).unwrap();
        prop_assert_eq!(&pair.trees[0].edges, &p.forests[0]);
        prop_assert_eq!(pair.unused.len(), 2);
    }

    #[test]
    fn any_permutation_works(k in 2u32..=8, m in 2u32..=8, keys in prop::collection::vec(any::<u32>(), 128)) {
        // An arbitrary (not ChaCha) order: sort link ids by random keys.
        let t = Topology::torus(k, m).unwrap();
        let mut order: Vec<EdgeId> = (0..t.edge_slots()).collect();
        order.sort_by_key(|&e| (keys[e as usize % keys.len()], e));
        let p = partition(&t, &order).unwrap();
        assert_two_spanning_trees(&t, &p.forests, &p.dropped);
    }
}

#[test]
fn deterministic_per_seed() {
    let t = Topology::torus(9, 7).unwrap();
    assert_eq!(random_order(&t, 3, 5), random_order(&t, 3, 5));
    assert_ne!(random_order(&t, 3, 5), random_order(&t, 3, 6));
    assert_ne!(random_order(&t, 3, 5), random_order(&t, 4, 5));
    let a = run_trials(&t, 11, 40).unwrap();
    let b = run_trials(&t, 11, 40).unwrap();
    assert_eq!(a, b);
    let best = TarjanSpec::parse("tarjan-best:11:40")
        .unwrap()
        .build(&t)
        .unwrap();
    let again = TarjanSpec::parse("tarjan-best:11:40")
        .unwrap()
        .build(&t)
        .unwrap();
    assert_eq!(best.trees, again.trees);
}

#[test]
fn best_and_average_selection() {
    let t = Topology::torus(8, 8).unwrap();
    let trials = run_trials(&t, 1, 60).unwrap();
    let best = select(&trials, TarjanWhich::Best).unwrap();
    for x in &trials {
        assert!(
            (best.combined_diameter, best.distance_sum) <= (x.combined_diameter, x.distance_sum)
        );
    }
    // The selected pair really has the reported metrics.
    let p = TarjanSpec::parse("tarjan-best:1:60")
        .unwrap()
        .build(&t)
        .unwrap();
    let m = wormcast_sim::trees::metrics(&p.trees);
    assert_eq!(m.combined_diameter, best.combined_diameter);
    assert_eq!(m.distance_sum, best.distance_sum);
    let avg = select(&trials, TarjanWhich::Average).unwrap();
    let p = TarjanSpec::parse("tarjan-average:1:60")
        .unwrap()
        .build(&t)
        .unwrap();
    assert_eq!(
        wormcast_sim::trees::metrics(&p.trees).distance_sum,
        avg.distance_sum
    );
    assert!(avg.combined_diameter >= best.combined_diameter);
}

fn max_degree(tr: &SpanningTree) -> usize {
    (0..tr.topo.nodes())
        .map(|u| tr.child_count(u) + tr.parent[u as usize].is_some() as usize)
        .max()
        .unwrap()
}

#[test]
fn hamilton_order_gives_two_hamilton_paths() {
    for n in 3..=16 {
        let t = Topology::torus(n, n).unwrap();
        let order = hamilton_order(&t, HamiltonReading::RowFirstH).unwrap();
        assert_eq!(order.len() as u32, t.edge_slots());
        let p = tarjan_pair(&t, &order).unwrap();
        for tr in &p.trees {
            assert_eq!(max_degree(tr), 2, "{t}: a Hamilton path");
        }
        // The path spec uses that reading.
        let q = TarjanSpec::parse("tarjan-path").unwrap().build(&t).unwrap();
        assert_eq!(q.trees[0].edges, p.trees[0].edges);
    }
    // Our literal edge names do not give paths (reported in docs/results).
    let t = Topology::torus(5, 5).unwrap();
    let p = tarjan_pair(&t, &hamilton_order(&t, HamiltonReading::Literal).unwrap()).unwrap();
    assert_eq!(max_degree(&p.trees[0]), 3);
}

#[test]
fn bad_input_names_the_field() {
    let mesh = Topology::mesh(4, 4).unwrap();
    assert_eq!(run_trials(&mesh, 1, 10).unwrap_err().field, "topology");
    let order: Vec<EdgeId> = (0..mesh.edge_slots()).collect();
    assert_eq!(partition(&mesh, &order).unwrap_err().field, "topology");
    let t = Topology::torus(4, 4).unwrap();
    assert_eq!(run_trials(&t, 1, 0).unwrap_err().field, "trials");
    let mut dup: Vec<EdgeId> = (0..t.edge_slots()).collect();
    dup[3] = 2;
    assert_eq!(partition(&t, &dup).unwrap_err().field, "edge order");
    assert_eq!(partition(&t, &dup[..5]).unwrap_err().field, "edge order");
    let rect = Topology::torus(4, 5).unwrap();
    let e = hamilton_order(&rect, HamiltonReading::RowFirstH).unwrap_err();
    assert_eq!(e.field, "topology");
    for bad in [
        "tarjan",
        "tarjan-best:x",
        "tarjan-best:1:0",
        "tarjan-path:1:2:3",
    ] {
        assert_eq!(
            TarjanSpec::parse(bad).unwrap_err().field,
            "construction",
            "{bad}"
        );
    }
    let s = TarjanSpec::parse("Tarjan-Average").unwrap();
    assert_eq!((s.seed, s.trials), (1, 500));
    assert_eq!(TarjanSpec::parse(&s.to_string()).unwrap(), s);
}
