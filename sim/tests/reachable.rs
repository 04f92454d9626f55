//! `routing::reachable_outputs`: every reservation any first HEAD can make
//! lies within it, under every routing function, with faults and pools of
//! every shape. The RTL masks each output's next owner with it
//! (`t_owners`), so a reservation outside it would be a lost grant in the
//! hardware; `router::step_edge` also asserts it at every grant of every
//! test that runs the native router.
//!
//! Exhaustive over the HEADs that matter: every `Node` value the address
//! field can hold up to a few past the last node, C, every O, S, every
//! class up to one past the last, at every input of every router, with
//! every consumption ownership (the pool choice depends on it).

mod common;

use wormcast_sim::config::spam_table::bfs_tree;
use wormcast_sim::config::{RouterConfig, RouterParams, RoutingKind};
use wormcast_sim::flit::Head;
use wormcast_sim::router::routing::{first_head, possible_owners, reachable_outputs};
use wormcast_sim::topology::{Dir, Topology};

/// Every first HEAD at every input of `cfg`; returns, per input, the union
/// of the masks requested, after checking each against the reachable set.
fn check(cfg: &RouterConfig, p: &RouterParams, what: &str) -> Vec<u8> {
    let n_cons = p.consumption;
    let mut union = vec![0u8; p.inputs()];
    for (i, u) in union.iter_mut().enumerate() {
        let reach = reachable_outputs(cfg, p, i);
        for node in 0..cfg.node_count + 3 {
            for c in [false, true] {
                for o in 0..16u8 {
                    for s in [false, true] {
                        for class in 0..=p.classes as u8 {
                            let f = p.flit.head(Head {
                                node,
                                c,
                                o,
                                s,
                                class,
                            });
                            for owned_cons in 0..1u8 << n_cons {
                                let owned = owned_cons << 4;
                                if let Ok((mask, _, _)) = first_head(cfg, p, i, f, owned) {
                                    assert_eq!(
                                        mask & !reach,
                                        0,
                                        "{what}: input {i} requests {mask:#010b}, \
                                         reachable {reach:#010b} (node {node}, C {c}, O {o:#06b}, \
                                         S {s}, class {class}, owned {owned:#010b})"
                                    );
                                    *u |= mask;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    union
}

/// The transpose agrees with the per-input sets.
fn check_owners(cfg: &RouterConfig, p: &RouterParams) {
    let own = possible_owners(cfg, p);
    for i in 0..p.inputs() {
        let r = reachable_outputs(cfg, p, i);
        for (o, m) in own.iter().enumerate() {
            assert_eq!(m >> i & 1, r >> o & 1, "output {o}, input {i}");
        }
    }
}

#[test]
fn dstm1_torus_node_5_reaches_its_class_only() {
    // Node 5 of the default router (scripts/synth.sh): links +x and +y
    // carry class 0, -x and -y class 1; class c's pool is channel c.
    let pair = common::dstm1_4x4();
    let cfg = &pair.cfg[5];
    let p = &pair.params;
    assert_eq!(cfg.in_class[..4], [Some(0), Some(1), Some(0), Some(1)]);
    let px = 1 << Dir::XPlus.index();
    let mx = 1 << Dir::XMinus.index();
    let py = 1 << Dir::YPlus.index();
    let my = 1 << Dir::YMinus.index();
    let (cons0, cons1) = (1 << 4, 1 << 5);
    let want = [
        px | py | cons0,
        mx | my | cons1,
        px | py | cons0,
        mx | my | cons1,
        0b11_1111,
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(reachable_outputs(cfg, p, i), *w, "input {i}");
    }
    // And every reachable output is requested by some HEAD (the set is
    // tight for tree routing: a HEAD for this node may name any link of
    // its class, the U-turn included, and each channel of its pool).
    assert_eq!(check(cfg, p, "DSTM-1 node 5"), want);
    check_owners(cfg, p);
}

#[test]
fn tree_routing_every_node_pool_shape_and_fault() {
    for (consumption, injection) in [(1, 1), (2, 1), (3, 2), (4, 1)] {
        let p = RouterParams {
            consumption,
            injection,
            ..RouterParams::default()
        };
        let pair = common::dstm1_4x4_with(p, &[]);
        for (u, cfg) in pair.cfg.iter().enumerate() {
            let got = check(cfg, &p, &format!("tree node {u}, {consumption} channels"));
            for (i, g) in got.iter().enumerate() {
                assert_eq!(*g, reachable_outputs(cfg, &p, i), "node {u} input {i}");
            }
            check_owners(cfg, &p);
        }
    }
    // Local fault information: the routers at both ends of a faulty tree
    // link divert; still within the reachable set.
    let pair = common::dstm1_4x4();
    for f in [0u32, 5, 17] {
        let mut cfg = pair.cfg.clone();
        RouterConfig::set_diversion(&mut cfg, &pair.topo, f);
        for (u, c) in cfg.iter().enumerate() {
            check(c, &pair.params, &format!("diversion edge {f}, node {u}"));
        }
    }
}

#[test]
fn spam_routing() {
    let topo = Topology::torus(4, 4).unwrap();
    let t = bfs_tree(&topo, 0, &[]).unwrap();
    let p = RouterParams {
        routing: RoutingKind::Spam,
        classes: 1,
        ..RouterParams::default()
    };
    for (u, cfg) in RouterConfig::for_spam(&topo, &t, &p, &[])
        .unwrap()
        .iter()
        .enumerate()
    {
        check(cfg, &p, &format!("SPAM node {u}"));
        check_owners(cfg, &p);
    }
}

#[test]
fn mesh_routing_functions() {
    for (routing, classes) in [
        (RoutingKind::Hamiltonian, 2),
        (RoutingKind::Dor, 1),
        (RoutingKind::NegativeFirst, 1),
    ] {
        for (consumption, injection) in [(2, 1), (4, 4)] {
            let p = RouterParams {
                routing,
                classes,
                consumption,
                injection,
                ..RouterParams::default()
            };
            let topo = Topology::mesh(4, 3).unwrap();
            for (u, cfg) in RouterConfig::for_mesh(&topo, &p)
                .unwrap()
                .iter()
                .enumerate()
            {
                let what = format!("{routing:?} node {u}, {consumption} channels");
                let got = check(cfg, &p, &what);
                for (i, g) in got.iter().enumerate() {
                    assert_eq!(*g, reachable_outputs(cfg, &p, i), "{what} input {i}");
                }
                check_owners(cfg, &p);
            }
        }
    }
}
