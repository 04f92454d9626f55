//! Property tests of the path-based schemes against brute force on small
//! meshes: OCMS minimal total traffic, OTMS minimal longest path (\[PATHOPT\]
//! Theorems 1 and 3), pure negative-first BRCP the minimum number of
//! negative-first routing lists (\[BRCP\] Theorem 1); and for every scheme,
//! every worm valid (see `pathbased_common::check`).

mod pathbased_common;

use pathbased_common::{check, Rule};
use proptest::prelude::*;
use wormcast_sim::pathbased::brcp::{
    column_path, contains, is_nf_list, minimal_brcp, minimal_brcp_lists, pure_brcp, pure_brcp_lists,
};
use wormcast_sim::pathbased::hamiltonian::{class_ports, dual_path, multi_path, r_dist, split};
use wormcast_sim::pathbased::ocms::{first_port, ocms};
use wormcast_sim::pathbased::otms::otms;
use wormcast_sim::pathbased::xypath::{xy_path, XyPartition};
use wormcast_sim::topology::{NodeId, Topology};

/// A mesh up to 5×5, a source and up to `max` distinct other destinations.
fn instance(max: usize) -> impl Strategy<Value = (Topology, NodeId, Vec<NodeId>)> {
    (
        2u32..=5,
        2u32..=5,
        any::<u32>(),
        prop::collection::vec(any::<u32>(), 0..=max),
    )
        .prop_map(|(k, m, s, raw)| {
            let t = Topology::mesh(k, m).unwrap();
            let n = t.nodes();
            let s = s % n;
            let mut d: Vec<NodeId> = Vec::new();
            for r in raw {
                let v = r % n;
                if v != s && !d.contains(&v) {
                    d.push(v);
                }
            }
            (t, s, d)
        })
}

/// Brute force over every assignment of a half's destinations to the class
/// ports: (least total traffic, least longest path).
fn brute_half(t: &Topology, s: NodeId, set: &[NodeId], high: bool) -> (u32, u32) {
    if set.is_empty() {
        return (0, 0);
    }
    let ports = class_ports(t, s, high);
    let p = ports.len();
    let mut best = (u32::MAX, u32::MAX);
    let combos = p.pow(set.len() as u32);
    for mut c in 0..combos {
        let mut lens = vec![0u32; p];
        let mut at = vec![s; p];
        let mut ok = true;
        // `set` is in visiting (key) order, so each port's sublist is too.
        for &v in set {
            let i = c % p;
            c /= p;
            if at[i] == s && first_port(t, s, v) != ports[i] {
                ok = false;
                break;
            }
            lens[i] += r_dist(t, at[i], v);
            at[i] = v;
        }
        if ok {
            best.0 = best.0.min(lens.iter().sum());
            best.1 = best.1.min(*lens.iter().max().unwrap());
        }
    }
    best
}

/// Whether a set can be ordered as one negative-first routing list from `s`:
/// it splits into a chain below `s` and another chain (Lemma 1 and its
/// converse, Definition 3).
fn nf_able(t: &Topology, s: NodeId, block: &[NodeId]) -> bool {
    let chain = |v: &[NodeId]| {
        v.iter()
            .all(|&a| v.iter().all(|&b| contains(t, a, b) || contains(t, b, a)))
    };
    (0..1u32 << block.len()).any(|mask| {
        let mut a = Vec::new();
        let mut b = Vec::new();
        for (i, &n) in block.iter().enumerate() {
            if mask >> i & 1 == 1 {
                a.push(n)
            } else {
                b.push(n)
            }
        }
        a.iter().all(|&n| contains(t, s, n)) && chain(&a) && chain(&b)
    })
}

/// Least number of blocks of a partition of `d` into NF-able blocks.
fn brute_min_lists(t: &Topology, s: NodeId, d: &[NodeId]) -> usize {
    fn rec(
        t: &Topology,
        s: NodeId,
        d: &[NodeId],
        i: usize,
        blocks: &mut Vec<Vec<NodeId>>,
        best: &mut usize,
    ) {
        if blocks.len() >= *best {
            return;
        }
        if i == d.len() {
            *best = blocks.len();
            return;
        }
        for b in 0..blocks.len() {
            blocks[b].push(d[i]);
            if nf_able(t, s, &blocks[b]) {
                rec(t, s, d, i + 1, blocks, best);
            }
            blocks[b].pop();
        }
        blocks.push(vec![d[i]]);
        rec(t, s, d, i + 1, blocks, best);
        blocks.pop();
    }
    let mut best = usize::MAX;
    rec(t, s, d, 0, &mut Vec::new(), &mut best);
    if d.is_empty() {
        0
    } else {
        best
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn ocms_minimal_traffic_otms_minimal_time((t, s, d) in instance(6)) {
        let (sup, inf) = split(&t, s, &d);
        let (bh, bl) = (brute_half(&t, s, &sup, true), brute_half(&t, s, &inf, false));
        let o = ocms(&t, s, &d).unwrap();
        check(&t, &o, &d, &Rule::Hamiltonian { forced_first: false });
        prop_assert_eq!(o.traffic(), bh.0 + bl.0);
        let q = otms(&t, s, &d).unwrap();
        check(&t, &q, &d, &Rule::Hamiltonian { forced_first: false });
        prop_assert_eq!(q.time(), bh.1.max(bl.1));
        // The optima bound the fixed schemes.
        let dual = dual_path(&t, s, &d).unwrap();
        prop_assert!(o.traffic() <= dual.traffic());
        prop_assert!(q.time() <= dual.time());
    }

    #[test]
    fn pure_brcp_minimum_number_of_lists((t, s, d) in instance(6)) {
        let lists = pure_brcp_lists(&t, s, &d);
        for l in &lists {
            prop_assert!(is_nf_list(&t, s, l), "{:?}", l);
            prop_assert!(nf_able(&t, s, l));
        }
        prop_assert_eq!(lists.len(), brute_min_lists(&t, s, &d));
    }

    #[test]
    fn every_worm_is_valid((t, s, d) in instance(12)) {
        check(&t, &dual_path(&t, s, &d).unwrap(), &d, &Rule::Hamiltonian { forced_first: false });
        let mp = multi_path(&t, s, &d).unwrap();
        check(&t, &mp, &d, &Rule::Hamiltonian { forced_first: true });
        prop_assert!(mp.worms.len() <= 4);
        check(&t, &ocms(&t, s, &d).unwrap(), &d, &Rule::Hamiltonian { forced_first: false });
        check(&t, &otms(&t, s, &d).unwrap(), &d, &Rule::Hamiltonian { forced_first: false });
        let pb = pure_brcp(&t, s, &d).unwrap();
        check(&t, &pb, &d, &Rule::NegativeFirst);
        let mb = minimal_brcp(&t, s, &d).unwrap();
        check(&t, &mb, &d, &Rule::NegativeFirst);
        prop_assert_eq!(mb.worms.len(), minimal_brcp_lists(&t, s, &d).len());
        prop_assert!(pb.worms.len() <= mb.worms.len());
        // Minimal BRCP: every destination reached on a minimal path.
        for w in &mb.worms {
            for (i, &dd) in w.dests.iter().enumerate() {
                prop_assert_eq!(w.dest_pos[i] as u32, t.distance(s, dd));
            }
        }
        check(&t, &column_path(&t, s, &d).unwrap(), &d, &Rule::Xy);
        // XY-path from the origin.
        let d0: Vec<NodeId> = d.iter().copied().filter(|&n| n != 0).collect();
        let part = XyPartition::new(&t).unwrap();
        let xy = xy_path(&t, 0, &d0).unwrap();
        check(&t, &xy, &d0, &Rule::XyPath(&part));
        // Proposition 3.3.5: R on a guiding path is a shortest path.
        for w in &xy.worms {
            let mut at = 0;
            let mut want = 0;
            for &dd in &w.dests {
                want += t.distance(at, dd);
                at = dd;
            }
            prop_assert_eq!(w.hops(), want);
        }
    }
}
