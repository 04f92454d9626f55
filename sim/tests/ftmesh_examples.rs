//! The worked examples of \[FTTREE\] (Wu & Chen), exact: Fig. 7(a) (the
//! strategies at a separating point), Fig. 8(b) (the greedy MT of
//! Definition 6), Definition 1's example, and the Fig. 4 information transfer.

use wormcast_sim::ftmesh::{
    extended_safe, greedy_tree, multicast, multicast_with, safety_vector, Block, Coord, FaultyMesh,
    Strategy,
};
use wormcast_sim::topology::Topology;

/// Fig. 7(a): one block with corners (5,5) and (10,7), built from its two
/// corner faults by the disable rule.
fn fig7_mesh() -> FaultyMesh {
    let topo = Topology::mesh(20, 14).unwrap();
    let mesh = FaultyMesh::new(
        topo,
        &[(5, 5), (6, 6), (7, 7), (8, 6), (9, 7), (10, 6), (10, 5)],
    )
    .unwrap();
    assert_eq!(
        mesh.blocks,
        vec![Block {
            x0: 5,
            y0: 5,
            x1: 10,
            y1: 7
        }]
    );
    mesh
}

const FIG7_DESTS: [Coord; 3] = [(17, 7), (5, 10), (12, 11)];

#[test]
fn fig7a_totals_and_strategy2() {
    let mesh = fig7_mesh();
    for seed in 0..8 {
        let all_x = multicast_with(&mesh, (0, 0), &FIG7_DESTS, seed, &mut |c, _| {
            if c.u == (4, 4) {
                assert_eq!(c.undetermined.len(), 1, "(12,11) is the undetermined one");
                assert_eq!(c.dests[c.undetermined[0]], (12, 11));
            } else {
                assert!(c.undetermined.is_empty());
            }
            vec![true; c.undetermined.len()]
        })
        .unwrap();
        assert_eq!(all_x.traffic, 35, "(12,11) in the X group");
        assert_eq!(all_x.stats.separating_points, 2);
        let all_y = multicast_with(&mesh, (0, 0), &FIG7_DESTS, seed, &mut |c, _| {
            vec![false; c.undetermined.len()]
        })
        .unwrap();
        assert_eq!(all_y.traffic, 39, "(12,11) in the Y group");
        let s2 = multicast(&mesh, (0, 0), &FIG7_DESTS, Strategy::Offset, seed).unwrap();
        assert_eq!(s2.traffic, 35, "Strategy 2 puts (12,11) in X");
        let s3 = multicast(&mesh, (0, 0), &FIG7_DESTS, Strategy::Greedy, seed).unwrap();
        assert_eq!(
            s3.traffic, 35,
            "Strategy 3 also joins (12,11) to the X tree"
        );
        for m in [&all_x, &all_y, &s2, &s3] {
            assert_eq!(m.unicast_traffic, 24 + 15 + 23);
            assert_eq!(m.stats.overrides, 0);
            assert!(m.not_extended_safe.is_empty() && m.unreachable.is_empty());
        }
    }
}

#[test]
fn fig7a_tree_shape() {
    let mesh = fig7_mesh();
    let m = multicast(&mesh, (0, 0), &FIG7_DESTS, Strategy::Offset, 3).unwrap();
    let b = m.tree.branch_nodes();
    // The split at u = (4,4): one branch along L1 under the block, one along L3.
    let u = b
        .iter()
        .find(|n| n.at == (4, 4))
        .expect("u is a branch node");
    let mut kids = u.child_coords.clone();
    kids.sort();
    // Up L3 to the block's corner (4,8); along L1 under the block at least
    // to its corner (11,4), where the 2d-free header may turn.
    assert_eq!(kids.len(), 2);
    assert_eq!(kids[0], (4, 8));
    assert!(kids[1].1 == 4 && (11..=12).contains(&kids[1].0), "{kids:?}");
    // Split again at (12,7) towards (12,11) and (17,7).
    let v = b.iter().find(|n| n.at == (12, 7)).expect("second split");
    let mut kids = v.child_coords.clone();
    kids.sort();
    assert_eq!(kids, vec![(12, 11), (17, 7)]);
    assert_eq!(b.iter().filter(|n| n.destination).count(), 3);
}

#[test]
fn fig8b_greedy_edges() {
    let mesh = FaultyMesh::new(Topology::mesh(8, 8).unwrap(), &[]).unwrap();
    let mut edges = greedy_tree(&mesh, (0, 0), &[(1, 2), (3, 5), (5, 4), (7, 3)]).unwrap();
    edges.sort();
    let mut want = vec![
        ((0, 0), (1, 2)),
        ((1, 2), (3, 3)),
        ((3, 3), (3, 4)),
        ((3, 4), (3, 5)),
        ((3, 4), (5, 4)),
        ((3, 3), (7, 3)),
    ];
    want.sort();
    assert_eq!(edges, want);
}

#[test]
fn definition1_example() {
    // "three faults (1,1), (2,2), (4,2): two faulty blocks", {(1..2)×(1..2)} and {(4,2)}.
    let mesh = FaultyMesh::new(Topology::mesh(8, 8).unwrap(), &[(1, 1), (2, 2), (4, 2)]).unwrap();
    assert_eq!(
        mesh.blocks,
        vec![
            Block {
                x0: 1,
                y0: 1,
                x1: 2,
                y1: 2
            },
            Block {
                x0: 4,
                y0: 2,
                x1: 4,
                y1: 2
            }
        ]
    );
    assert!(mesh.is_disabled((1, 2)) && mesh.is_disabled((2, 1)));
    assert!(!mesh.is_blocked((3, 2)));
}

#[test]
fn safety_vector_and_extended_safety() {
    let mesh = fig7_mesh();
    let v = safety_vector(&mesh, (0, 6));
    assert_eq!((v.e, v.s, v.w, v.n), (Some(5), None, None, None));
    assert!(safety_vector(&mesh, (0, 0)).is_safe());
    assert!(extended_safe(&mesh, (0, 6), (4, 13)));
    assert!(
        !extended_safe(&mesh, (0, 6), (12, 13)),
        "block east on the source row"
    );
    assert!(
        extended_safe(&mesh, (12, 6), (11, 0)),
        "west quadrant: the block starts 2 west"
    );
    assert!(!extended_safe(&mesh, (12, 6), (0, 0)));
}

/// Fig. 4(a): block A above block B with A's L3 running into B. A header on
/// B's L3 must not turn east while a destination is in R4 of A, although it
/// is outside R4 of B.
#[test]
fn fig4a_information_transfer() {
    let topo = Topology::mesh(16, 16).unwrap();
    // B: (2..5)×(4..5); A: (5..7)×(9..10): A's L3 is column 4, inside B.
    let mut faults = vec![];
    for x in 2..=5 {
        faults.push((x, 4));
        faults.push((x, 5));
    }
    for x in 5..=7 {
        faults.push((x, 9));
        faults.push((x, 10));
    }
    let mesh = FaultyMesh::new(topo, &faults).unwrap();
    assert_eq!(mesh.blocks.len(), 2);
    // Destination (7,12) is in R4 of A (x 4..8, y ≥ 11), not in R4 of B
    // (x 1..6); it is reachable only by staying west of B, then passing A on
    // A's L3 (column 4).
    // A second destination on the source row makes (1,0) a separating point.
    let dests = [(7, 12), (9, 0)];
    for s in Strategy::ALL {
        for seed in 0..6 {
            let m = multicast(&mesh, (1, 0), &dests, s, seed).unwrap();
            assert_eq!(
                m.stats.overrides, 0,
                "the rules alone keep (7,12) reachable"
            );
            assert_eq!(
                m.stats.separating_points, 1,
                "(1,0) is Y-bound only by A's information"
            );
            assert_eq!(m.traffic, (6 + 12) + 8, "separate branches from (1,0)");
        }
    }
}
