//! Path-based schemes: the thesis worked example, exhaustive small-mesh
//! checks of R and of the XY-path partition, and bad input.

mod pathbased_common;

use pathbased_common::{check, Rule};
use wormcast_sim::pathbased::brcp::{column_path, minimal_brcp, pure_brcp};
use wormcast_sim::pathbased::hamiltonian::{
    dual_path, label, lin, multi_path, node_of_label, r_dist,
};
use wormcast_sim::pathbased::ocms::ocms;
use wormcast_sim::pathbased::otms::otms;
use wormcast_sim::pathbased::xypath::{xy_path, XyPartition};
use wormcast_sim::pathbased::PathMulticast;
use wormcast_sim::topology::{NodeId, Topology};
use wormcast_sim::InputResult;

fn thesis_example() -> (Topology, Vec<NodeId>) {
    let t = Topology::mesh(10, 10).unwrap();
    let d = [(2, 0), (3, 1), (7, 2), (7, 5), (0, 4), (1, 3)]
        .iter()
        .map(|&(x, y)| t.id(x, y))
        .collect();
    (t, d)
}

/// \[THESIS\] Example 3.3.1: XY-path traffic 18, longest path 12; LIN 26.
#[test]
fn thesis_example_3_3_1() {
    let (t, d) = thesis_example();
    let xy = xy_path(&t, 0, &d).unwrap();
    assert_eq!(xy.traffic(), 18);
    assert_eq!(xy.time(), 12);
    assert_eq!(xy.time_with_message(20), 32);
    let part = XyPartition::new(&t).unwrap();
    check(&t, &xy, &d, &Rule::XyPath(&part));
    // The text: (2,0),(3,1),(7,2),(7,5) on X; (0,4),(1,3) on Y.
    let x = &xy.worms[0];
    assert_eq!(x.class, 0);
    assert_eq!(
        x.dests,
        vec![t.id(2, 0), t.id(3, 1), t.id(7, 2), t.id(7, 5)]
    );
    assert_eq!(xy.worms[1].dests, vec![t.id(0, 4), t.id(1, 3)]);
    // (2,0) → (3,0) → (3,1) as in the text.
    assert_eq!(&x.route[..5], &[0, 1, 2, t.id(3, 0), t.id(3, 1)]);
    let l = lin(&t, 0, &d).unwrap();
    assert_eq!(l.worms.len(), 1);
    assert_eq!(l.traffic(), 26);
    assert_eq!(l.time(), 26);
    check(
        &t,
        &l,
        &d,
        &Rule::Hamiltonian {
            forced_first: false,
        },
    );
}

/// \[PATHOPT\] Fig. 2: labels of a 3-row, 4-column mesh are a snake.
#[test]
fn snake_labels() {
    let t = Topology::mesh(4, 3).unwrap();
    let rows: Vec<Vec<u32>> = (0..3)
        .map(|y| (0..4).map(|x| label(&t, t.id(x, y))).collect())
        .collect();
    assert_eq!(
        rows,
        vec![vec![0, 1, 2, 3], vec![7, 6, 5, 4], vec![8, 9, 10, 11]]
    );
    for l in 0..12 {
        assert_eq!(label(&t, node_of_label(&t, l)), l);
    }
}

/// R is minimal on every pair of nodes of every mesh up to 7×7.
#[test]
fn r_is_minimal() {
    for k in 2..=7 {
        for m in 2..=7 {
            let t = Topology::mesh(k, m).unwrap();
            for u in 0..t.nodes() {
                for v in 0..t.nodes() {
                    if u != v {
                        assert_eq!(r_dist(&t, u, v), t.distance(u, v), "{t} {u}->{v}");
                    }
                }
            }
        }
    }
}

/// Proposition 3.3.1: X and Y cover the mesh, joined only at the source,
/// and each is a path of adjacent nodes; on every mesh up to 24×24.
#[test]
fn xy_partition_covers_every_mesh() {
    for k in 2..=24 {
        for m in 2..=24 {
            let t = Topology::mesh(k, m).unwrap();
            let p = XyPartition::new(&t).unwrap();
            assert!(
                p.covers_mesh(),
                "{t}: X {} + Y {}",
                p.paths[0].len(),
                p.paths[1].len()
            );
            for path in &p.paths {
                assert_eq!(path[0], 0);
                for w in path.windows(2) {
                    assert_eq!(t.distance(w[0], w[1]), 1, "{t}");
                }
            }
        }
    }
}

/// The thesis example's partition, as narrated in Example 3.3.1: Y takes
/// column 0, X rows 0–2 (from x = 1 on rows 1–2), Y then columns 1–4 from
/// row 3 down, X rows 3–6 from x = 5.
#[test]
fn xy_partition_of_the_example() {
    let t = Topology::mesh(10, 10).unwrap();
    let p = XyPartition::new(&t).unwrap();
    let owner = |x, y| p.owner[t.id(x, y) as usize];
    for y in 1..10 {
        assert_eq!(owner(0, y), 1);
    }
    for x in 1..10 {
        for y in 0..3 {
            assert_eq!(owner(x, y), 0, "({x},{y})");
        }
    }
    for x in 1..5 {
        for y in 3..10 {
            assert_eq!(owner(x, y), 1, "({x},{y})");
        }
    }
    for x in 5..10 {
        for y in 3..7 {
            assert_eq!(owner(x, y), 0, "({x},{y})");
        }
    }
}

type Scheme = fn(&Topology, NodeId, &[NodeId]) -> InputResult<PathMulticast>;

const SCHEMES: [(&str, Scheme); 9] = [
    ("dual_path", dual_path),
    ("multi_path", multi_path),
    ("lin", lin),
    ("ocms", ocms),
    ("otms", otms),
    ("xy_path", xy_path),
    ("pure_brcp", pure_brcp),
    ("minimal_brcp", minimal_brcp),
    ("column_path", column_path),
];

#[test]
fn bad_input_is_an_input_error() {
    let mesh = Topology::mesh(4, 4).unwrap();
    let torus = Topology::torus(4, 4).unwrap();
    for (name, f) in SCHEMES {
        let e = f(&mesh, 0, &[3, 0]).unwrap_err();
        assert_eq!(e.field, "destinations", "{name}: source in dests");
        let e = f(&mesh, 0, &[3, 16]).unwrap_err();
        assert_eq!(e.field, "destinations", "{name}: out of range");
        assert_eq!(e.value, "16");
        let e = f(&mesh, 0, &[3, 3]).unwrap_err();
        assert_eq!(e.field, "destinations", "{name}: repeated");
        assert_eq!(e.value, "3", "{name}: repeated");
        // More than 16 destinations: the repeat is found with a flag per
        // node instead of a scan of the earlier entries.
        let mut long: Vec<u32> = (1..16).collect();
        long.extend([9, 7, 5]);
        let e = f(&mesh, 0, &long).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.value.as_str()),
            ("destinations", "9"),
            "{name}: repeated in a long list"
        );
        assert!(e.to_string().contains("repeated"), "{name}: {e}");
        let e = f(&mesh, 16, &[3]).unwrap_err();
        assert_eq!(e.field, "source", "{name}: source out of range");
        let e = f(&torus, 0, &[3]).unwrap_err();
        assert_eq!(e.field, "topology", "{name}: torus");
        assert!(e.to_string().contains("mesh"));
        // Empty destination set: no worm.
        assert!(f(&mesh, 0, &[]).unwrap().worms.is_empty(), "{name}");
    }
    // The origin-only schemes.
    for f in [lin as Scheme, xy_path as Scheme] {
        let e = f(&mesh, 5, &[3]).unwrap_err();
        assert_eq!(e.field, "source");
        assert_eq!(e.value, "1,1");
    }
    assert_eq!(XyPartition::new(&torus).unwrap_err().field, "topology");
}

/// \[BRCP\] Figs. 5–6: the 8×8 example. The quadrant sets printed in §3.2
/// put the source at (4,3). Lists (b) column-greedy, (c) row-greedy,
/// (d) column-greedy, (e) SW column-greedy; worms A = reversal(e) ∘ (b),
/// B = (c), C = (d).
#[test]
fn paper_004_figure_5_example() {
    use wormcast_sim::pathbased::brcp::{pure_brcp_lists, quadrants};
    let t = Topology::mesh(8, 8).unwrap();
    let ids = |v: &[(u32, u32)]| -> Vec<NodeId> { v.iter().map(|&(x, y)| t.id(x, y)).collect() };
    let nw = ids(&[(1, 4), (1, 5), (2, 7)]);
    let ne = ids(&[(5, 4), (6, 5), (6, 7), (7, 4)]);
    let sw = ids(&[(0, 2), (2, 0), (2, 2), (2, 3), (3, 1), (3, 2), (4, 2)]);
    let se = ids(&[(5, 0), (5, 1), (5, 2), (7, 2)]);
    let d: Vec<NodeId> = [nw.clone(), ne.clone(), sw.clone(), se.clone()].concat();
    let s = t.id(4, 3);
    let sorted = |mut v: Vec<NodeId>| {
        v.sort();
        v
    };
    let q = quadrants(&t, s, &d);
    assert_eq!(
        q.map(sorted),
        [nw, ne, sw, se].map(sorted),
        "the paper's NW, NE, SW, SE"
    );
    let lists = pure_brcp_lists(&t, s, &d);
    assert_eq!(
        lists,
        vec![
            ids(&[
                (4, 2),
                (3, 2),
                (3, 1),
                (0, 2),
                (1, 4),
                (1, 5),
                (2, 7),
                (6, 7)
            ]),
            ids(&[(2, 0), (5, 0), (5, 1), (5, 2), (7, 2), (7, 4)]),
            ids(&[(2, 2), (2, 3), (5, 4), (6, 5)]),
        ]
    );
    let mc = pure_brcp(&t, s, &d).unwrap();
    check(&t, &mc, &d, &Rule::NegativeFirst);
}
