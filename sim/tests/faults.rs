//! Single-link fault metrics (\[DSTM\] §7, Figs. 11/12) checked against a
//! brute force that follows explicit tree paths link by link.

use std::collections::VecDeque;
use wormcast_sim::topology::{EdgeId, NodeId, Topology};
use wormcast_sim::trees::faults::{fault_trials, random_faults, FaultInfo, FaultModel};
use wormcast_sim::trees::{construct, metrics, Named, SpanningTree, TarjanSpec};

/// The tree path from a to b as a list of (node, edge taken) by BFS over the
/// tree's edge list (independent of the post-order machinery).
fn path(t: &Topology, edges: &[EdgeId], a: NodeId, b: NodeId) -> Vec<(NodeId, EdgeId)> {
    let n = t.nodes() as usize;
    let mut prev: Vec<Option<(NodeId, EdgeId)>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[a as usize] = true;
    let mut q = VecDeque::from([a]);
    while let Some(u) = q.pop_front() {
        for &e in edges {
            let (x, y) = t.edge_ends(e);
            let v = if x == u {
                y
            } else if y == u {
                x
            } else {
                continue;
            };
            if !seen[v as usize] {
                seen[v as usize] = true;
                prev[v as usize] = Some((u, e));
                q.push_back(v);
            }
        }
    }
    let mut p = Vec::new();
    let mut v = b;
    while v != a {
        let (u, e) = prev[v as usize].unwrap();
        p.push((u, e));
        v = u;
    }
    p.reverse();
    p
}

/// d(a,b) by the definitions of docs/results/fig11-12-faults.md.
fn brute(trees: &[SpanningTree; 2], f: EdgeId, info: FaultInfo, a: NodeId, b: NodeId) -> u32 {
    let t = trees[0].topo;
    let p0 = path(&t, &trees[0].edges, a, b);
    let p1 = path(&t, &trees[1].edges, a, b);
    let paths = [&p0, &p1];
    let uses = |p: &Vec<(NodeId, EdgeId)>| p.iter().position(|&(_, e)| e == f);
    match info {
        FaultInfo::Global => paths
            .iter()
            .filter(|p| uses(p).is_none())
            .map(|p| p.len() as u32)
            .min()
            .unwrap(),
        FaultInfo::Local => {
            let chosen = if p1.len() < p0.len() { 1 } else { 0 };
            match uses(paths[chosen]) {
                None => paths[chosen].len() as u32,
                Some(k) => {
                    // k hops reach the router r before the faulty link.
                    let r = paths[chosen][k].0;
                    let good = 1 - chosen;
                    k as u32 + path(&t, &trees[good].edges, r, b).len() as u32
                }
            }
        }
    }
}

fn check_all_links(trees: &[SpanningTree; 2]) {
    let t = trees[0].topo;
    let model = FaultModel::new(trees).unwrap();
    let base = metrics(trees);
    let mut changed = 0;
    for f in 0..t.edge_slots() {
        for info in [FaultInfo::Global, FaultInfo::Local] {
            let got = model.metrics(f, info).unwrap();
            let (mut cd, mut sum) = (0, 0u64);
            for a in 0..t.nodes() {
                for b in (0..t.nodes()).filter(|&b| b != a) {
                    let d = brute(trees, f, info, a, b);
                    cd = cd.max(d);
                    sum += d as u64;
                }
            }
            assert_eq!(got.combined_diameter, cd, "{t} link {f} {info:?}");
            assert_eq!(got.distance_sum, sum, "{t} link {f} {info:?}");
            if got.faulty_tree.is_none() {
                assert_eq!(cd, base.combined_diameter);
                assert_eq!(sum, 2 * base.distance_sum);
            }
            if info == FaultInfo::Global {
                assert!(cd >= base.combined_diameter);
            }
            changed += (sum != 2 * base.distance_sum) as u32;
        }
    }
    assert!(changed > 0, "faults must matter somewhere");
}

#[test]
fn brute_force_4x4_dstm() {
    let t = Topology::torus(4, 4).unwrap();
    for named in [Named::Dstm1, Named::Dstm2] {
        let p = construct(&t, &named.construction(&t, 0, None)).unwrap();
        check_all_links(&p.trees);
    }
}

#[test]
fn brute_force_small_tarjan_and_odd() {
    let t = Topology::torus(4, 4).unwrap();
    let p = TarjanSpec::parse("tarjan-best:1:20")
        .unwrap()
        .build(&t)
        .unwrap();
    check_all_links(&p.trees);
    let t = Topology::torus(5, 3).unwrap();
    let p = construct(&t, &Named::Dstm2.construction(&t, 4, None)).unwrap();
    check_all_links(&p.trees);
    // 2-wide: parallel links between the same two nodes.
    let t = Topology::torus(2, 3).unwrap();
    let p = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap();
    check_all_links(&p.trees);
}

#[test]
fn trials_are_seeded_and_summarised() {
    let t = Topology::torus(7, 7).unwrap();
    let p = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap();
    let a = fault_trials(&p.trees, 5, 50).unwrap();
    let b = fault_trials(&p.trees, 5, 50).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.faults, fault_trials(&p.trees, 6, 50).unwrap().faults);
    let base = metrics(&p.trees);
    assert!(a.global.max_cd >= a.global.mean_cd.ceil() as u32);
    assert!(a.global.mean_ad >= base.average_distance - 1e-12);
}

#[test]
fn bad_input_names_the_field() {
    let t = Topology::torus(4, 4).unwrap();
    assert_eq!(random_faults(&t, 1, 0).unwrap_err().field, "trials");
    let p = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap();
    assert_eq!(fault_trials(&p.trees, 1, 0).unwrap_err().field, "trials");
    let model = FaultModel::new(&p.trees).unwrap();
    let e = model.metrics(t.edge_slots(), FaultInfo::Local).unwrap_err();
    assert_eq!(e.field, "faulty link");
    let same = [p.trees[0].clone(), p.trees[0].clone()];
    assert_eq!(FaultModel::new(&same).err().unwrap().field, "trees");
    // A mesh spanning tree pair cannot be a fault model.
    let mesh = Topology::mesh(2, 2).unwrap();
    let e0 = SpanningTree::from_edges(
        mesh,
        0,
        &[mesh.h_edge(0, 0), mesh.v_edge(0, 0), mesh.v_edge(1, 0)],
        "t",
    )
    .unwrap();
    let e1 = SpanningTree::from_edges(
        mesh,
        0,
        &[mesh.h_edge(0, 1), mesh.v_edge(0, 0), mesh.v_edge(1, 0)],
        "t",
    )
    .unwrap();
    assert_eq!(FaultModel::new(&[e0, e1]).err().unwrap().field, "topology");
}
