//! Properties of the \[FTTREE\] algorithms on random meshes, faults and
//! multicast sets: Definition 1 gives separated rectangles; every tree is a
//! tree rooted at the source that uses no faulty or disabled node and reaches
//! every reachable destination on a minimal path; with an extended-safe
//! source the paper's rules alone suffice (no guard override).

use proptest::prelude::*;
use std::collections::HashMap;
use wormcast_sim::ftmesh::{
    extended_safe, greedy_tree, multicast, Coord, FaultyMesh, Strategy as Ft,
};
use wormcast_sim::topology::Topology;

mod common;
use common::faulty_mesh_case as instance;

/// Independent check: a monotone fault-free path from a to b exists.
fn monotone_path(mesh: &FaultyMesh, a: Coord, b: Coord) -> bool {
    let sx: i64 = if b.0 >= a.0 { 1 } else { -1 };
    let sy: i64 = if b.1 >= a.1 { 1 } else { -1 };
    let (w, h) = (a.0.abs_diff(b.0) as i64, a.1.abs_diff(b.1) as i64);
    let mut ok = vec![vec![false; (h + 1) as usize]; (w + 1) as usize];
    for i in 0..=w {
        for j in 0..=h {
            let c = ((a.0 as i64 + sx * i) as u32, (a.1 as i64 + sy * j) as u32);
            if mesh.is_blocked(c) {
                continue;
            }
            ok[i as usize][j as usize] = (i == 0 && j == 0)
                || (i > 0 && ok[(i - 1) as usize][j as usize])
                || (j > 0 && ok[i as usize][(j - 1) as usize]);
        }
    }
    ok[w as usize][h as usize]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn blocks_are_separated_rectangles((k, m, faults, _s, _d, _seed) in instance()) {
        let mesh = FaultyMesh::new(Topology::mesh(k, m).unwrap(), &faults).unwrap();
        for (i, b) in mesh.blocks.iter().enumerate() {
            prop_assert_eq!(mesh.component_sizes[i], b.area(), "block {:?} is not full", b);
            for x in b.x0..=b.x1 {
                for y in b.y0..=b.y1 {
                    prop_assert!(mesh.is_blocked((x, y)));
                }
            }
            for c in mesh.blocks.iter().skip(i + 1) {
                let touch = c.x0 <= b.x1 + 1 && b.x0 <= c.x1 + 1 && c.y0 <= b.y1 + 1 && b.y0 <= c.y1 + 1;
                prop_assert!(!touch, "blocks {:?} and {:?} touch", b, c);
            }
        }
        for &f in &faults {
            prop_assert!(mesh.is_faulty(f));
        }
        // Fixpoint: no healthy node has blocked neighbours in both dimensions.
        let blk = |x: i64, y: i64| mesh.in_mesh(x, y) && mesh.is_blocked((x as u32, y as u32));
        for x in 0..k as i64 {
            for y in 0..m as i64 {
                if !blk(x, y) {
                    let h = blk(x - 1, y) || blk(x + 1, y);
                    let v = blk(x, y - 1) || blk(x, y + 1);
                    prop_assert!(!(h && v), "({},{}) should be disabled", x, y);
                }
            }
        }
    }

    #[test]
    fn trees_are_minimal_and_fault_free((k, m, faults, s, d, seed) in instance()) {
        let mesh = FaultyMesh::new(Topology::mesh(k, m).unwrap(), &faults).unwrap();
        prop_assume!(!mesh.is_blocked(s));
        let mut dests: Vec<Coord> = Vec::new();
        for c in d {
            if c != s && !mesh.is_blocked(c) && !dests.contains(&c) {
                dests.push(c);
            }
        }
        prop_assume!(!dests.is_empty());
        for st in Ft::ALL {
            let r = multicast(&mesh, s, &dests, st, seed).unwrap();
            let t = &r.tree;
            prop_assert_eq!(t.visits[0].at, s);
            prop_assert!(t.visits[0].parent.is_none());
            for (i, v) in t.visits.iter().enumerate().skip(1) {
                let p = v.parent.expect("non-root visit has a parent");
                prop_assert!(p < i, "parents come first, so the visits form a tree");
                prop_assert!(t.visits[p].children.contains(&i));
                let a = t.visits[p].at;
                prop_assert_eq!(a.0.abs_diff(v.at.0) + a.1.abs_diff(v.at.1), 1, "links join neighbours");
                prop_assert!(!mesh.is_blocked(v.at), "visit {:?} is faulty or disabled", v.at);
            }
            let mut delivered: HashMap<Coord, u32> = HashMap::new();
            for (i, v) in t.visits.iter().enumerate() {
                if v.destination {
                    *delivered.entry(v.at).or_default() += 1;
                    let dist = s.0.abs_diff(v.at.0) + s.1.abs_diff(v.at.1);
                    prop_assert_eq!(t.depth(i), dist, "{:?} not reached minimally", v.at);
                }
            }
            for &c in &dests {
                let reachable = monotone_path(&mesh, s, c);
                prop_assert_eq!(r.routed.contains(&c), reachable);
                prop_assert_eq!(r.unreachable.contains(&c), !reachable);
                if extended_safe(&mesh, s, c) {
                    prop_assert!(reachable, "extended safe but no minimal path to {:?}", c);
                }
                prop_assert_eq!(delivered.get(&c).copied().unwrap_or(0), u32::from(reachable));
            }
            prop_assert_eq!(delivered.len(), r.routed.len());
            // Leaves are destinations: no link is reserved for nothing.
            for v in &t.visits {
                if v.children.is_empty() && v.parent.is_some() {
                    prop_assert!(v.destination);
                }
            }
            prop_assert!(r.traffic <= r.unicast_traffic);
            if r.not_extended_safe.is_empty() {
                prop_assert_eq!(r.stats.overrides, 0, "the paper's rules failed ({:?})", st);
            }
            let again = multicast(&mesh, s, &dests, st, seed).unwrap();
            prop_assert_eq!(&again.tree, t, "deterministic for a seed");
        }
    }

    /// Faults off row 0 and column 0 never put a block there (a disabled node
    /// needs a blocked neighbour in both dimensions), so the corner source is
    /// safe (Definition 2) and extended safe to every destination: the
    /// paper's assumption holds and its rules alone must give minimal paths.
    #[test]
    fn safe_source_needs_no_guard(
        (k, m) in (6u32..24, 6u32..24),
        raw in proptest::collection::vec((1u32..64, 1u32..64), 0..90),
        d in proptest::collection::vec((0u32..64, 0u32..64), 1..30),
        seed in any::<u64>(),
    ) {
        let faults: Vec<Coord> = raw.iter().map(|&(x, y)| (1 + x % (k - 1), 1 + y % (m - 1))).collect();
        let mesh = FaultyMesh::new(Topology::mesh(k, m).unwrap(), &faults).unwrap();
        let mut dests: Vec<Coord> = Vec::new();
        for (x, y) in d {
            let c = (x % k, y % m);
            if c != (0, 0) && !mesh.is_blocked(c) && !dests.contains(&c) {
                dests.push(c);
            }
        }
        prop_assume!(!dests.is_empty());
        for st in Ft::ALL {
            let r = multicast(&mesh, (0, 0), &dests, st, seed).unwrap();
            prop_assert!(r.not_extended_safe.is_empty() && r.unreachable.is_empty());
            prop_assert_eq!(r.stats.overrides, 0, "the paper's rules failed ({:?})", st);
            prop_assert_eq!(r.routed.len(), dests.len());
            for (i, v) in r.tree.visits.iter().enumerate() {
                prop_assert!(!mesh.is_blocked(v.at));
                if v.destination {
                    prop_assert_eq!(r.tree.depth(i), v.at.0 + v.at.1);
                }
            }
        }
    }

    #[test]
    fn greedy_tree_is_time_optimal((k, m, faults, _s, d, _seed) in instance()) {
        let mesh = FaultyMesh::new(Topology::mesh(k, m).unwrap(), &faults).unwrap();
        prop_assume!(!mesh.is_blocked((0, 0)));
        let mut dests: Vec<Coord> = Vec::new();
        for c in d {
            if c != (0, 0) && !mesh.is_blocked(c) && monotone_path(&mesh, (0, 0), c) && !dests.contains(&c) {
                dests.push(c);
            }
        }
        prop_assume!(!dests.is_empty());
        let edges = greedy_tree(&mesh, (0, 0), &dests).unwrap();
        // Theorem 2: edges go up-right, each node has one parent, and every
        // destination's tree path is minimal.
        let mut parent: HashMap<Coord, Coord> = HashMap::new();
        for &(a, b) in &edges {
            prop_assert!(a.0 <= b.0 && a.1 <= b.1 && a != b);
            prop_assert!(parent.insert(b, a).is_none(), "{:?} has two parents", b);
        }
        for &c in &dests {
            let (mut v, mut len) = (c, 0);
            while v != (0, 0) {
                let p = parent[&v];
                len += p.0.abs_diff(v.0) + p.1.abs_diff(v.1);
                v = p;
            }
            prop_assert_eq!(len, c.0 + c.1);
        }
        // The attachment point of each destination is eligible (a fault-free
        // minimal path from it to the destination exists).
        for &c in &dests {
            if let Some(&p) = parent.get(&c) {
                prop_assert!(monotone_path(&mesh, p, c), "ineligible w {:?} for {:?}", p, c);
            }
        }
    }
}
