//! Properties of every tree of \[THESIS\] §3.2 on random 2-D/3-D meshes and
//! tori, sources anywhere: a tree rooted at the source reaching every
//! destination over grid links only; DIAG/DDS/VH shortest-path (tree depth =
//! grid distance); VH dimension-ordered; traffic and time lower bounds; the
//! thesis upper bounds (Props. 3.2.1.5/3.2.1.6: traffic ≤ Σ distances, time ≤
//! D_max + K − 1 on meshes with the source at a corner). Checks are
//! recomputed from the raw edge list.

use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use wormcast_sim::meshtree::{build, Algorithm, Grid, MulticastTree, Point};

fn case() -> impl Strategy<Value = (Grid, Point, Vec<Point>)> {
    (
        prop::bool::ANY,
        prop::bool::ANY,
        prop::collection::vec(2usize..9, 3),
    )
        .prop_flat_map(|(torus, three, sides)| {
            let dims = if three { 3 } else { 2 };
            let g = Grid::new(&sides[..dims], torus).unwrap();
            let n = g.nodes();
            (
                Just(g),
                0..n,
                prop::collection::hash_set(0..n, 0..n.min(40)),
            )
        })
        .prop_map(|(g, s, set)| {
            let src = g.point(s);
            let d: Vec<Point> = set
                .into_iter()
                .filter(|&i| i != s)
                .map(|i| g.point(i))
                .collect();
            (g, src, d)
        })
}

fn check_tree(t: &MulticastTree, g: &Grid, s: Point, d: &[Point]) -> Result<(), TestCaseError> {
    let edges = t.edge_links();
    let mut parent: HashMap<Point, Point> = HashMap::new();
    for &(p, c, l) in &edges {
        prop_assert!(g.contains(p) && g.contains(c));
        prop_assert!(g.links_between(p, c).contains(&l), "{p}->{c} not a link");
        if !g.is_torus() {
            prop_assert!(!l.wraparound);
        }
        prop_assert!(parent.insert(c, p).is_none(), "{c} has two parents");
        prop_assert!(c != s, "edge into the source");
    }
    // Every node walks up to the source without a cycle.
    for &(_, c, _) in &edges {
        let mut v = c;
        let mut seen = HashSet::new();
        while v != s {
            prop_assert!(seen.insert(v), "cycle through {v}");
            v = *parent
                .get(&v)
                .ok_or_else(|| TestCaseError::fail(format!("{v} orphan")))?;
        }
    }
    prop_assert_eq!(t.traffic(), edges.len());
    let dmax = d.iter().map(|&x| g.distance(s, x)).max().unwrap_or(0);
    for &x in d {
        prop_assert!(x == s || parent.contains_key(&x), "{x} not reached");
    }
    // Leaves are destinations (no useless links).
    let dset: HashSet<Point> = d.iter().copied().collect();
    for &(_, c, _) in &edges {
        if t.children(c).is_empty() {
            prop_assert!(dset.contains(&c), "leaf {c} is not a destination");
        }
    }
    prop_assert!(t.traffic() >= dmax);
    prop_assert!(t.time() as usize >= dmax);
    prop_assert!(t.traffic() >= d.len());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn trees_are_valid((g, s, d) in case()) {
        for alg in Algorithm::ALL {
            let t = build(alg, &g, s, &d).unwrap();
            check_tree(&t, &g, s, &d)?;
            if alg != Algorithm::Min {
                // Shortest-path trees (Props. 3.2.1.3, 3.2.2.4; VH by
                // construction); on tori the zone route may pass a wrap.
                for &x in &d {
                    prop_assert_eq!(t.depth(x).unwrap(), g.distance(s, x), "{} {}", alg, x);
                }
            }
        }
    }

    #[test]
    fn vh_paths_are_dimension_ordered((g, s, d) in case()) {
        let t = build(Algorithm::Vh, &g, s, &d).unwrap();
        for &x in &d {
            // Up the tree from x: the axes used, read source→x, never decrease
            // (zone links to the corners come first; they are skipped).
            let mut axes = Vec::new();
            let mut v = x;
            while v != s {
                let l = t.link_to(v).unwrap();
                if !(t.service_of(v).map(|sv| matches!(sv, wormcast_sim::meshtree::Service::ZoneLink(_))).unwrap_or(false)) {
                    axes.push(l.axis);
                }
                v = t.parent(v).unwrap();
            }
            axes.reverse();
            prop_assert!(axes.windows(2).all(|w| w[0] <= w[1]), "{x}: {:?}", axes);
        }
    }

    #[test]
    fn thesis_bounds_on_corner_meshes(
        three in prop::bool::ANY,
        sides in prop::collection::vec(2usize..10, 3),
        pick in prop::collection::hash_set(1usize..1000, 1..30),
    ) {
        let dims = if three { 3 } else { 2 };
        let g = Grid::new(&sides[..dims], false).unwrap();
        let s = Point::default();
        let d: Vec<Point> = pick.into_iter().map(|i| i % g.nodes()).filter(|&i| i != 0)
            .collect::<HashSet<_>>().into_iter().map(|i| g.point(i)).collect();
        let k = d.len();
        let dmax = d.iter().map(|&x| g.distance(s, x)).max().unwrap_or(0);
        let sum: usize = d.iter().map(|&x| g.distance(s, x)).sum();
        for alg in [Algorithm::Diag, Algorithm::Dds, Algorithm::Vh] {
            let t = build(alg, &g, s, &d).unwrap();
            prop_assert!(t.traffic() <= sum.max(dmax), "{} traffic", alg);
            if alg != Algorithm::Vh && k > 0 {
                prop_assert!((t.time() as usize) < dmax + k, "{} time {} dmax {} K {}", alg, t.time(), dmax, k);
            }
        }
        // VH worst case D_max + 1 (thesis Figure 3.2.3.1) holds in 2-D.
        if dims == 2 && k > 0 {
            let t = build(Algorithm::Vh, &g, s, &d).unwrap();
            prop_assert!(t.time() as usize <= dmax + 1);
        }
    }
}
