//! docs/architecture.md §2 check 2: the rust-hdl 4×4 DSTM-1 torus equals the native
//! network under real DSTM traffic (unicast + multicast), every link and NI
//! port every cycle.

use wormcast_rtl::Fault;
use wormcast_sim::config::Hop;
use wormcast_testbench::lockstep::{fabric_lockstep, fabric_scenario};

#[test]
fn fabric_4x4_lockstep_20k() {
    let sc = fabric_scenario("torus:4x4", 0.01, 7);
    let st = fabric_lockstep::<32>(&sc, Fault::None, 20_000)
        .unwrap_or_else(|m| panic!("fabric lockstep mismatch: {m}"));
    eprintln!("{st:?}");
    assert!(st.multicasts > 50 && st.delivered > 1000, "{st:?}");
}

#[test]
fn fabric_broken_arbiter_is_caught() {
    let sc = fabric_scenario("torus:4x4", 0.02, 8);
    let m = fabric_lockstep::<32>(&sc, Fault::ArbiterPriority, 20_000)
        .expect_err("a broken priority rule must be detected");
    eprintln!("caught: {m}");
}

#[test]
fn fabric_broken_ready_is_caught() {
    let sc = fabric_scenario("torus:4x4", 0.02, 9);
    let m = fabric_lockstep::<32>(&sc, Fault::ReadyBeforeEdge, 20_000)
        .expect_err("a ready that over-commits must be detected");
    eprintln!("caught: {m}");
}

#[test]
fn fabric_3x5_dstm2_lockstep() {
    // A non-square torus, the other construction, depth 1.
    let mut sc = fabric_scenario("torus:3x5", 0.015, 10);
    sc.network.construction = "dstm2".into();
    sc.network.buffer_depth = 1;
    let st = fabric_lockstep::<32>(&sc, Fault::None, 5_000)
        .unwrap_or_else(|m| panic!("fabric lockstep mismatch: {m}"));
    eprintln!("{st:?}");
    assert!(st.delivered > 100, "{st:?}");
}

/// The 4×4 SPAM scenario (BFS tree from node 0, one class, pool of two
/// consumption channels) with a header setup delay of 2 cycles.
fn spam_scenario(rate: f64, seed: u64, setup: u32) -> wormcast_sim::scenario::Scenario {
    let mut sc = fabric_scenario("torus:4x4", rate, seed);
    sc.network.routing = "spam".parse().unwrap();
    sc.network.construction = "bfs".into();
    sc.network.header_setup_cycles = setup;
    sc
}

#[test]
fn fabric_4x4_spam_setup2_lockstep() {
    let sc = spam_scenario(0.01, 31, 2);
    let st = fabric_lockstep::<32>(&sc, Fault::None, 6_000)
        .unwrap_or_else(|m| panic!("SPAM fabric lockstep mismatch: {m}"));
    eprintln!("{st:?}");
    assert!(st.multicasts > 20 && st.delivered > 300, "{st:?}");
}

#[test]
fn fabric_spam_setup_off_by_one_is_caught() {
    let sc = spam_scenario(0.01, 32, 2);
    let m = fabric_lockstep::<32>(&sc, Fault::SetupOffByOne, 2_000)
        .expect_err("a setup counter one short must be detected");
    eprintln!("caught: {m}");
}

// ---- [DSTM] §7: local fault information in the RTL ----

/// A 4×4 DSTM-1 torus whose link (2,1)+x is faulty, with local fault
/// information. The link joins node 6 to its child 7 on tree 1, and node 6
/// has a second child (10, via +y), so worms split there with one healthy
/// and one faulty branch. The routers at the link's ends divert every
/// branch that would cross it to their own NI, which re-injects it on the
/// good tree after a second start-up (native NI, same in both runs).
fn local_fault_scenario(seed: u64) -> wormcast_sim::scenario::Scenario {
    let mut sc = fabric_scenario("torus:4x4", 0.02, seed);
    sc.network.faulty_links = vec!["2,1,+x".parse().unwrap()];
    sc.network.fault_info = "local".parse().unwrap();
    sc
}

#[test]
fn fabric_4x4_local_fault_diversion_lockstep() {
    let sc = local_fault_scenario(71);
    let st = fabric_lockstep::<32>(&sc, Fault::None, 6_000)
        .unwrap_or_else(|m| panic!("local-fault fabric lockstep mismatch: {m}"));
    eprintln!("{st:?}");
    assert!(st.diverted >= 10, "diversions must occur: {st:?}");
    // Split points at the faulty link's ends whose healthy branches went on
    // ([DSTM] §7: only "the branch" is diverted).
    assert!(st.diverted_link_heads >= 5, "{st:?}");
    assert!(st.multicasts > 50 && st.delivered > 500, "{st:?}");
}

#[test]
fn fabric_ignoring_local_fault_is_caught() {
    let sc = local_fault_scenario(72);
    let m = fabric_lockstep::<32>(&sc, Fault::NoDiversion, 6_000)
        .expect_err("a router that ignores its faulty link must be detected");
    eprintln!("caught: {m}");
}

// ---- mesh fabrics under path-based multicast ----

#[test]
fn fabric_4x4_mesh_lockstep_each_function() {
    for (routing, scheme, cons, seed) in [
        ("hamiltonian", "dual-path", 2, 41u64),
        ("hamiltonian", "multi-path", 2, 42),
        ("dor", "column-path", 4, 43),
        ("negative_first", "brcp-pure", 2, 44),
        ("negative_first", "brcp-minimal", 2, 45),
    ] {
        let sc = wormcast_testbench::lockstep::mesh_fabric_scenario(
            "mesh:4x4", routing, scheme, cons, 0.012, seed,
        );
        let st = fabric_lockstep::<32>(&sc, Fault::None, 3_000)
            .unwrap_or_else(|m| panic!("{routing}/{scheme}: fabric lockstep mismatch: {m}"));
        eprintln!("{routing}/{scheme}: {st:?}");
        assert!(st.multicasts > 50 && st.delivered > 300, "{st:?}");
    }
}

#[test]
fn fabric_mesh_masking_is_caught() {
    let sc = wormcast_testbench::lockstep::mesh_fabric_scenario(
        "mesh:4x4",
        "negative_first",
        "brcp-minimal",
        2,
        0.02,
        46,
    );
    let m = fabric_lockstep::<32>(&sc, Fault::MeshMasking, 3_000)
        .expect_err("a masking arbiter on a mesh fabric must be detected");
    eprintln!("caught: {m}");
}

// ---- tree worms (turn points, detached branches) on mesh fabrics ----

/// Thesis trees and \[FTTREE\] trees as worms (`sim/src/treeworm/`) on the
/// rust-hdl mesh fabric, fault-free and with a faulty node cut out of the
/// fabric (its links unwired in both models): cycle-for-cycle equal to the
/// native model. Tree worms can deadlock under concurrent load
/// (docs/results/mesh-trees-latency.md); the comparison holds either way.
#[test]
fn fabric_4x4_mesh_tree_worms_lockstep() {
    for (scheme, faulty, seed) in [
        ("diag", None, 61u64),
        ("dds", None, 62),
        ("ft-s3", Some("2,1"), 63),
    ] {
        let mut sc = wormcast_testbench::lockstep::mesh_fabric_scenario(
            "mesh:4x4", "dor", scheme, 4, 0.006, seed,
        );
        sc.network.faulty_nodes = faulty.into_iter().map(String::from).collect();
        let st = fabric_lockstep::<32>(&sc, Fault::None, 3_000)
            .unwrap_or_else(|m| panic!("{scheme}: fabric lockstep mismatch: {m}"));
        eprintln!("{scheme} (faulty {faulty:?}): {st:?}");
        assert!(st.multicasts > 10 && st.delivered > 50, "{scheme}: {st:?}");
    }
}

// ---- the deferred strip (docs/hardware.md 3h) ----

/// The 4×4 DSTM-1 torus of routers with a one-cycle header setup delay and
/// a deferred strip, under real unicast + multicast traffic.
#[test]
fn fabric_4x4_deferred_strip_lockstep() {
    let mut sc = fabric_scenario("torus:4x4", 0.01, 44);
    sc.network.header_setup_cycles = 1;
    sc.network.strip_deferred = true;
    let st = fabric_lockstep::<32>(&sc, Fault::None, 6_000)
        .unwrap_or_else(|m| panic!("deferred-strip fabric lockstep mismatch: {m}"));
    eprintln!("{st:?}");
    assert!(st.multicasts > 20 && st.delivered > 300, "{st:?}");
    let m = fabric_lockstep::<32>(&sc, Fault::StripOnGrant, 2_000)
        .expect_err("a strip at the grant must be detected");
    eprintln!("caught: {m}");
}

// ---- the fast hop (docs/router.md "Link protocol and timing") ----

/// The 4×4 DSTM-1 torus and the 4×4 Hamiltonian mesh of fast-hop routers
/// under unicast + multicast traffic, every register every cycle; the
/// standard-contract RTL under the fast native model is caught.
#[test]
fn fabric_fast_hop_lockstep() {
    let mut sc = fabric_scenario("torus:4x4", 0.01, 47);
    sc.network.hop = Hop::Fast;
    let st = fabric_lockstep::<32>(&sc, Fault::None, 4_000)
        .unwrap_or_else(|m| panic!("fast-hop torus lockstep mismatch: {m}"));
    eprintln!("torus: {st:?}");
    assert!(st.multicasts > 20 && st.delivered > 300, "{st:?}");
    let m = fabric_lockstep::<32>(&sc, Fault::StandardHop, 1_000)
        .expect_err("the standard contract must be detected");
    eprintln!("caught: {m}");
    let mut sc = wormcast_testbench::lockstep::mesh_fabric_scenario(
        "mesh:4x4",
        "hamiltonian",
        "dual-path",
        2,
        0.02,
        48,
    );
    sc.network.hop = Hop::Fast;
    let st = fabric_lockstep::<32>(&sc, Fault::None, 2_500)
        .unwrap_or_else(|m| panic!("fast-hop mesh lockstep mismatch: {m}"));
    eprintln!("mesh: {st:?}");
    assert!(st.multicasts > 10 && st.delivered > 100, "{st:?}");
}
