//! Thesis trees (VH, DIAG, DDS, MIN) as header-flit worms on mesh routers:
//! the reference walk of the encoded headers uses exactly the tree's links
//! and delivers exactly its destinations, under XY and negative-first
//! routing, sources anywhere.

use proptest::prelude::*;

mod common;
use wormcast_sim::flit::Head;
use wormcast_sim::meshtree::{build, Algorithm, Grid, Point};
use wormcast_sim::topology::{Dir, NodeId, Topology};
use wormcast_sim::treeworm::{encode, encode_worms, walk, worm_links, NodeTree, WalkError};

/// XY dimension-order routing on node ids.
fn xy(topo: &Topology) -> impl Fn(NodeId, NodeId) -> Option<Dir> + '_ {
    move |a, b| {
        let ((ax, ay), (bx, by)) = (topo.coord(a), topo.coord(b));
        Some(if bx > ax {
            Dir::ALL[0]
        } else if bx < ax {
            Dir::ALL[1]
        } else if by > ay {
            Dir::ALL[2]
        } else if by < ay {
            Dir::ALL[3]
        } else {
            return None;
        })
    }
}

/// A deterministic negative-first order: −X, −Y, then +X, +Y.
fn nf(topo: &Topology) -> impl Fn(NodeId, NodeId) -> Option<Dir> + '_ {
    move |a, b| {
        let ((ax, ay), (bx, by)) = (topo.coord(a), topo.coord(b));
        Some(if bx < ax {
            Dir::ALL[1]
        } else if by < ay {
            Dir::ALL[3]
        } else if bx > ax {
            Dir::ALL[0]
        } else if by > ay {
            Dir::ALL[2]
        } else {
            return None;
        })
    }
}

fn case() -> impl Strategy<Value = (u32, u32, u32, Vec<u32>, usize)> {
    (3u32..10, 3u32..10)
        .prop_flat_map(|(k, m)| {
            let n = k * m;
            (
                Just(k),
                Just(m),
                0..n,
                prop::collection::hash_set(0..n, 1..(n as usize).min(24)),
                0usize..4,
            )
        })
        .prop_map(|(k, m, s, d, a)| {
            let mut d: Vec<u32> = d.into_iter().filter(|&v| v != s).collect();
            d.sort_unstable();
            (k, m, s, d, a)
        })
}

fn thesis_tree(topo: &Topology, s: NodeId, dests: &[NodeId], alg: Algorithm) -> NodeTree {
    let g = Grid::mesh2(topo.k as usize, topo.m as usize).unwrap();
    let p = |v: NodeId| {
        let (x, y) = topo.coord(v);
        Point::xy(x as u16, y as u16)
    };
    let d: Vec<Point> = dests.iter().map(|&v| p(v)).collect();
    let t = build(alg, &g, p(s), &d).unwrap();
    NodeTree::from_meshtree(topo, &t).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn thesis_trees_walk_exactly(case in case()) {
        let (k, m, s, dests, a) = case;
        prop_assume!(!dests.is_empty());
        let topo = Topology::mesh(k, m).unwrap();
        let tree = thesis_tree(&topo, s, &dests, Algorithm::ALL[a]);
        for (name, route) in [
            ("xy", &xy(&topo) as &dyn Fn(NodeId, NodeId) -> Option<Dir>),
            ("nf", &nf(&topo)),
        ] {
            let worms = encode_worms(&topo, &tree, route, 0).unwrap();
            let mut consumed = Vec::new();
            let mut links = Vec::new();
            for (sub, heads) in &worms {
                prop_assert_eq!(sub.root(), s);
                prop_assert!(heads.len() <= sub.visits.len(), "{}: {} heads", name, heads.len());
                let got = walk(&topo, s, heads, route).map_err(|e| {
                    TestCaseError::fail(format!("{name}: {e:?} heads {heads:?}"))
                })?;
                prop_assert_eq!(&got.links, &sub.links(), "{} links", name);
                prop_assert_eq!(&got.consumed, &sub.destinations(), "{} consumed", name);
                consumed.extend(got.consumed);
                links.extend(got.links);
            }
            consumed.sort_unstable();
            prop_assert_eq!(&consumed, &dests, "{} every destination exactly once", name);
            // Every tree link is used; detached worms only repeat tree links.
            prop_assert_eq!(links.len(), worm_links(&worms));
            links.sort_unstable();
            links.dedup();
            prop_assert_eq!(&links, &tree.links(), "{} link set", name);
            // From a corner source, VH is the union of XY paths: one worm.
            // (Elsewhere the thesis's submesh split enters a negative zone
            // through its corner first: Y before X.)
            if Algorithm::ALL[a] == Algorithm::Vh && name == "xy" && s == 0 {
                prop_assert_eq!(worms.len(), 1, "VH under XY is one worm");
            }
        }
    }
}

/// VH is the union of XY paths: under XY routing it needs headers only at
/// destinations and replication points, never a turn point.
#[test]
fn vh_under_xy_needs_no_turn_points() {
    let topo = Topology::mesh(8, 8).unwrap();
    let pts = [(0, 2), (3, 0), (4, 0), (4, 6), (6, 6), (7, 4)];
    let dests: Vec<NodeId> = pts.iter().map(|&(x, y)| topo.id(x, y)).collect();
    let tree = thesis_tree(&topo, 0, &dests, Algorithm::Vh);
    let heads = encode(&topo, &tree, &xy(&topo), 0).unwrap();
    assert!(heads.iter().all(|h: &Head| h.c || h.o.count_ones() >= 2));
    assert_eq!(
        worm_links(&encode_worms(&topo, &tree, &xy(&topo), 0).unwrap()),
        25
    );
    // The same tree under negative-first routing (+X before +Y only once
    // all negative hops are done) is also XY for a corner source: identical.
    assert_eq!(heads, encode(&topo, &tree, &nf(&topo), 0).unwrap());
    // DIAG's staircase needs turn points under XY, and branches that cannot
    // ride behind their split become extra worms: more links than the
    // tree's 21 (thesis example).
    let diag = thesis_tree(&topo, 0, &dests, Algorithm::Diag);
    assert_eq!(diag.links().len(), 21);
    let worms = encode_worms(&topo, &diag, &xy(&topo), 0).unwrap();
    let all: Vec<_> = worms.iter().flat_map(|(_, h)| h.clone()).collect();
    assert!(all.iter().any(|h| !h.c && h.o.count_ones() == 1), "{all:?}");
    assert!(worm_links(&worms) >= 21);
}

/// The walk catches what the router would reject.
#[test]
fn walk_rejects_malformed_worms() {
    let topo = Topology::mesh(4, 4).unwrap();
    let r = xy(&topo);
    let h = |node, c, o| Head {
        node,
        c,
        o,
        s: false,
        class: 0,
    };
    // A split at 0 (+X and +Y) with only one header behind it.
    let e = walk(&topo, 0, &[h(0, false, 0b0101), h(3, true, 0)], &r).unwrap_err();
    assert_eq!(e, WalkError::BranchWithoutHeader(0, Dir::ALL[2]));
    // A trailing header towards a port the split did not reserve.
    let e = walk(&topo, 0, &[h(1, false, 0b0101), h(4, true, 0)], &r).unwrap_err();
    assert_eq!(e, WalkError::NotReserved(1, 4));
    // Behind a destination with one link, trailing headers take it
    // whatever their route (then route on from the next node).
    let w = walk(&topo, 0, &[h(1, true, 0b0100), h(2, true, 0)], &r).unwrap();
    assert_eq!(w.links, vec![(0, 1), (1, 5), (5, 6), (6, 2)]);
    assert_eq!(w.consumed, vec![1, 2]);
    // A header behind a pure consumption.
    let e = walk(&topo, 0, &[h(1, true, 0), h(2, true, 0)], &r).unwrap_err();
    assert_eq!(e, WalkError::TrailingAtConsumer(1));
    // A header with nothing to do, and an O bit off the mesh.
    let e = walk(&topo, 0, &[h(1, false, 0)], &r).unwrap_err();
    assert_eq!(e, WalkError::NoOutput(1));
    let e = walk(&topo, 0, &[h(0, false, 0b0010)], &r).unwrap_err();
    assert_eq!(e, WalkError::NoLink(0, Dir::ALL[1]));
}

/// A non-destination leaf or a tree edge that is not a link is bad input,
/// not a panic.
#[test]
fn bad_trees_are_errors() {
    let topo = Topology::mesh(4, 4).unwrap();
    let e = NodeTree::from_edges(&topo, 0, &[(0, 5)], &[5]).unwrap_err();
    assert_eq!(e.field, "tree.edge");
    let t = NodeTree::from_edges(&topo, 0, &[(0, 1), (1, 2)], &[1]).unwrap();
    let e = encode_worms(&topo, &t, &xy(&topo), 0).unwrap_err();
    assert_eq!(e.field, "tree.leaf");
    let e = NodeTree::from_edges(&topo, 0, &[(0, 1)], &[2]).unwrap_err();
    assert_eq!(e.field, "tree.destination");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    /// \[FTTREE\] trees on faulty meshes (all three strategies) as worms: the
    /// header walk uses exactly the tree's links (so never a faulty or
    /// disabled node) and reaches every routed destination exactly once.
    #[test]
    fn fault_tolerant_trees_walk_exactly(inst in common::faulty_mesh_case()) {
        use wormcast_sim::ftmesh::{multicast, FaultyMesh, Strategy as Ft};
        let (k, m, faults, s, dests, seed) = inst;
        let topo = Topology::mesh(k, m).unwrap();
        let Ok(mesh) = FaultyMesh::new(topo, &faults) else { return Ok(()) };
        prop_assume!(!mesh.is_blocked(s));
        let mut d: Vec<(u32, u32)> =
            dests.into_iter().filter(|&c| c != s && !mesh.is_blocked(c)).collect();
        d.sort_unstable();
        d.dedup();
        prop_assume!(!d.is_empty());
        for st in Ft::ALL {
            let r = multicast(&mesh, s, &d, st, seed).unwrap();
            let tree = NodeTree::from_ftree(&topo, &r.tree).unwrap();
            prop_assert_eq!(tree.visits.len() as u32 - 1, r.traffic);
            let route = xy(&topo);
            let worms = encode_worms(&topo, &tree, &route, 0).unwrap();
            let mut consumed = Vec::new();
            for (sub, heads) in &worms {
                let got = walk(&topo, sub.root(), heads, &route).map_err(|e| {
                    TestCaseError::fail(format!("{st:?}: {e:?} heads {heads:?}"))
                })?;
                prop_assert_eq!(&got.links, &sub.links());
                for &(a, b) in &got.links {
                    for v in [a, b] {
                        let (x, y) = topo.coord(v);
                        prop_assert!(!mesh.is_blocked((x, y)), "{:?} uses a blocked node", st);
                    }
                }
                consumed.extend(got.consumed);
            }
            consumed.sort_unstable();
            let mut want: Vec<u32> = r.routed.iter().map(|&(x, y)| topo.id(x, y)).collect();
            want.sort_unstable();
            prop_assert_eq!(consumed, want, "{:?}", st);
        }
    }
}
