//! docs/architecture.md §2 check 1: the rust-hdl router equals the native router,
//! every output (and every shared register) every cycle, on random stimuli
//! with valid worms, malformed flits and random downstream back-pressure.

use wormcast_rtl::fabric_cfg::dstm_configs;
use wormcast_rtl::Fault;
use wormcast_sim::config::{Hop, RouterConfig, RouterParams, MAX_DEPTH};
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
use wormcast_testbench::lockstep::router_lockstep;

fn cfgs(p: &RouterParams) -> Vec<RouterConfig> {
    let topo = Topology::torus(4, 4).unwrap();
    dstm_configs(&topo, Named::Dstm1, p).unwrap()
}

#[test]
fn single_router_lockstep_100k() {
    let p = RouterParams::default();
    let cfg = cfgs(&p);
    // Node 0 (a tree root) and node 5 (inner node of both trees).
    let mut total = 0;
    for (node, seed, cycles) in [(0usize, 1u64, 60_000u64), (5, 2, 40_000)] {
        let st = router_lockstep::<32>(&cfg[node], &p, Fault::None, cycles, seed, true)
            .unwrap_or_else(|m| panic!("lockstep mismatch: {m}"));
        eprintln!("node {node}: {st:?}");
        assert!(st.grants > 1000 && st.errors > 100 && st.flits_out > 10_000);
        total += st.cycles;
    }
    assert!(total >= 100_000);
}

/// Local fault information (\[DSTM\] §7): routers whose `divert_out`
/// marks faulty ports, under the random stimulus (worms for every node, so
/// many would cross a faulty port): the RTL diverts exactly as the native
/// router, HEADs kept, every flit to the class's channel until the TAIL.
#[test]
fn local_fault_diversion_router_lockstep() {
    let p = RouterParams::default();
    let cfg = cfgs(&p);
    // Node 6 has two children on tree 1 (+x and +y): with +y faulty, split
    // points there have a healthy branch beside the diverted one.
    let mut link_heads = 0;
    for (node, mask, seed) in [(5usize, 0b0001u8, 21u64), (0, 0b1010, 22), (6, 0b0100, 23)] {
        let mut c = cfg[node].clone();
        c.divert_out = mask;
        let st = router_lockstep::<32>(&c, &p, Fault::None, 20_000, seed, true)
            .unwrap_or_else(|m| panic!("node {node} mask {mask:04b}: lockstep mismatch: {m}"));
        eprintln!("node {node} divert {mask:04b}: {st:?}");
        assert!(st.diverted > 100 && st.errors > 100, "{st:?}");
        link_heads += st.diverted_link_heads;
        // The same router without diversion in the RTL must be caught.
        wormcast_testbench::lockstep::router_lockstep_vs::<32>(
            &c,
            &c,
            &p,
            Fault::NoDiversion,
            20_000,
            seed,
            true,
        )
        .expect_err("an RTL that ignores divert_out must be detected");
    }
    // HEADs a diverted input sent on a healthy link (split points whose
    // other branch met the faulty port).
    assert!(link_heads > 20, "{link_heads}");
}

#[test]
fn single_router_lockstep_other_params() {
    // Depth 1, 3 and the largest (the FIFO's shifting slots: none, two,
    // seven), two injection channels, one consumption channel.
    for (depth, inj, cons, seed) in [(1, 1, 2, 3u64), (3, 2, 1, 4), (MAX_DEPTH, 1, 2, 5)] {
        let p = RouterParams {
            depth,
            injection: inj,
            consumption: cons,
            ..RouterParams::default()
        };
        let cfg = cfgs(&p);
        let st = router_lockstep::<32>(&cfg[6], &p, Fault::None, 10_000, seed, true)
            .unwrap_or_else(|m| panic!("depth {depth}: lockstep mismatch: {m}"));
        eprintln!("depth {depth} inj {inj} cons {cons}: {st:?}");
    }
}

#[test]
fn single_router_lockstep_16bit_flits() {
    let p = RouterParams {
        flit: wormcast_sim::flit::FlitFormat::new(16).unwrap(),
        ..RouterParams::default()
    };
    let cfg = cfgs(&p);
    router_lockstep::<16>(&cfg[3], &p, Fault::None, 10_000, 5, true)
        .unwrap_or_else(|m| panic!("lockstep mismatch: {m}"));
}

#[test]
fn broken_arbiter_is_caught() {
    let p = RouterParams::default();
    let cfg = cfgs(&p);
    let m = router_lockstep::<32>(&cfg[0], &p, Fault::ArbiterPriority, 100_000, 1, true)
        .expect_err("a broken priority rule must be detected");
    eprintln!("caught (registers): {m}");
    assert_eq!(m.signal, "prio");
    // Also from the ports alone, as a Verilog vector test would see it.
    let m = router_lockstep::<32>(&cfg[0], &p, Fault::ArbiterPriority, 100_000, 1, false)
        .expect_err("a broken priority rule must be visible at the ports");
    eprintln!("caught (ports): {m}");
    assert!(
        m.signal.starts_with("out") || m.signal.starts_with("in"),
        "{m}"
    );
}

#[test]
fn broken_ready_is_caught() {
    let p = RouterParams::default();
    let cfg = cfgs(&p);
    let m = router_lockstep::<32>(&cfg[5], &p, Fault::ReadyBeforeEdge, 100_000, 2, false)
        .expect_err("a ready that over-commits must be detected");
    eprintln!("caught: {m}");
    assert!(m.signal.ends_with("_ready"), "{m}");
}

// ---- SPAM routing, header setup delay, consumption pools ----

use wormcast_rtl::fabric_cfg::spam_configs;
use wormcast_sim::config::RoutingKind;
use wormcast_sim::router::RouterError;
use wormcast_testbench::lockstep::router_lockstep_vs;

fn spam_params(setup_cycles: u32) -> RouterParams {
    RouterParams {
        classes: 1,
        routing: RoutingKind::Spam,
        setup_cycles,
        ..RouterParams::default()
    }
}

/// SPAM tables on a BFS tree from node 0 of the 4×4 torus, as the simulator
/// builds them.
fn spam_cfgs(p: &RouterParams) -> Vec<RouterConfig> {
    spam_configs(&Topology::torus(4, 4).unwrap(), None, p).unwrap()
}

#[test]
fn spam_router_lockstep() {
    // Node 0 (BFS root: every input down-phase) and node 5 (an inner node
    // with up, down-cross and down-tree inputs); consumption pool of 2.
    for (node, seed, cycles) in [(0usize, 21u64, 8_000u64), (5, 22, 12_000)] {
        let p = spam_params(0);
        let cfg = spam_cfgs(&p);
        let st = router_lockstep::<32>(&cfg[node], &p, Fault::None, cycles, seed, true)
            .unwrap_or_else(|m| panic!("SPAM node {node}: lockstep mismatch: {m}"));
        eprintln!("SPAM node {node}: {st:?}");
        assert!(st.grants > 500 && st.flits_out > 3_000, "{st:?}");
        // Both channels of the consumption pool are used.
        assert!(st.loaded[4] > 50 && st.loaded[5] > 50, "{st:?}");
        if node == 5 {
            // The SPAM-only cases occur at an inner node: no legal path
            // from a down-phase input or an S=1 header going up
            // (DownPhaseUp), O bits on a cross link (BadLink). (The root
            // has neither: no parent, and all its links are tree links.)
            let code = |e: RouterError| st.err_codes[e.code() as usize];
            assert!(code(RouterError::DownPhaseUp) > 10, "{st:?}");
            assert!(code(RouterError::BadLink) > 10, "{st:?}");
        }
    }
}

#[test]
fn setup_delay_router_lockstep() {
    // SPAM with a setup delay of 3 and tree routing with 1 (depth 3).
    let p = spam_params(3);
    let st = router_lockstep::<32>(&spam_cfgs(&p)[5], &p, Fault::None, 8_000, 23, true)
        .unwrap_or_else(|m| panic!("SPAM setup 3: lockstep mismatch: {m}"));
    eprintln!("SPAM setup 3: {st:?}");
    assert!(st.setup_cycles > 500 && st.grants > 300, "{st:?}");
    let p = RouterParams {
        setup_cycles: 1,
        depth: 3,
        ..RouterParams::default()
    };
    let st = router_lockstep::<32>(&cfgs(&p)[5], &p, Fault::None, 5_000, 24, true)
        .unwrap_or_else(|m| panic!("tree setup 1: lockstep mismatch: {m}"));
    eprintln!("tree setup 1: {st:?}");
    assert!(st.setup_cycles > 300 && st.grants > 300, "{st:?}");
}

#[test]
fn consumption_pools_router_lockstep() {
    // Tree routing, 2 classes × 4 consumption channels: class c owns
    // channels c and c + 2, a C=1 header takes the lowest free one.
    let p = RouterParams {
        consumption: 4,
        ..RouterParams::default()
    };
    let cfg = cfgs(&p);
    let st = router_lockstep::<32>(&cfg[5], &p, Fault::None, 8_000, 25, true)
        .unwrap_or_else(|m| panic!("4 consumption channels: lockstep mismatch: {m}"));
    eprintln!("2 classes x 4 channels: {st:?}");
    for o in 4..8 {
        assert!(
            st.loaded[o] > 50,
            "consumption channel {} unused: {st:?}",
            o - 4
        );
    }
}

#[test]
fn spam_wrong_table_entry_is_caught() {
    let p = spam_params(0);
    let cfg = spam_cfgs(&p);
    let node = 5;
    // One entry of the RTL's table changed: target 12 in the up phase
    // (injection inputs) goes out by another existing port.
    let mut bad = cfg[node].clone();
    let sp = bad.spam.as_mut().unwrap();
    let target = 12usize;
    assert_ne!(target as u32, cfg[node].tree[0].own);
    let e = &mut sp.next[target][0];
    *e = (*e + 1) % 4;
    let m = router_lockstep_vs::<32>(&cfg[node], &bad, &p, Fault::None, 20_000, 26, false)
        .expect_err("one wrong SPAM table entry must be detected at the ports");
    eprintln!("caught (wrong SPAM entry): {m}");
}

#[test]
fn setup_counter_off_by_one_is_caught() {
    let p = spam_params(2);
    let cfg = spam_cfgs(&p);
    let m = router_lockstep::<32>(&cfg[5], &p, Fault::SetupOffByOne, 20_000, 27, true)
        .expect_err("a setup counter one short must be detected");
    eprintln!("caught (registers): {m}");
    // The first HEAD requests a cycle early: its FIFO drains a cycle early.
    assert!(m.cycle < 100, "{m}");
    let m = router_lockstep::<32>(&cfg[5], &p, Fault::SetupOffByOne, 20_000, 27, false)
        .expect_err("a setup counter one short must be visible at the ports");
    eprintln!("caught (ports): {m}");
}

// ---- mesh routing functions (router/mesh.rs) ----

use wormcast_rtl::fabric_cfg::mesh_configs;

fn mesh_params(kind: RoutingKind, consumption: usize) -> RouterParams {
    RouterParams {
        classes: kind.mesh_classes(),
        routing: kind,
        consumption,
        ..RouterParams::default()
    }
}

fn mesh_cfgs(topology: &str, p: &RouterParams) -> Vec<RouterConfig> {
    mesh_configs(&Topology::parse(topology).unwrap(), p).unwrap()
}

/// One mesh router in lockstep; returns the stats after the checks every
/// mesh run must pass: the trailing-HEAD cases and the routing errors occur.
fn mesh_router_run(
    kind: RoutingKind,
    topology: &str,
    node: usize,
    consumption: usize,
    cycles: u64,
    seed: u64,
) -> wormcast_testbench::lockstep::LockstepStats {
    let p = mesh_params(kind, consumption);
    let cfg = mesh_cfgs(topology, &p);
    let st = router_lockstep::<32>(&cfg[node], &p, Fault::None, cycles, seed, true)
        .unwrap_or_else(|m| panic!("{kind:?} {topology} node {node}: lockstep mismatch: {m}"));
    eprintln!("{kind:?} {topology} node {node}: {st:?}");
    assert!(st.grants > 300 && st.flits_out > 1_500, "{st:?}");
    let code = |e: RouterError| st.err_codes[e.code() as usize];
    for e in [
        RouterError::BackToArrival,
        RouterError::NodeOutOfRange,
        RouterError::BadClass,
        RouterError::NoOutput,
        RouterError::TrailingAtConsumer,
    ] {
        assert!(code(e) > 0, "{kind:?}: no {e:?} raised: {st:?}");
    }
    // An O bit on a missing link (mesh edge) or on a link of the other
    // class (Hamiltonian): BadLink. An inner dor/negative_first router has
    // neither.
    if kind == RoutingKind::Hamiltonian || cfg[node].out_class.contains(&None) {
        assert!(
            code(RouterError::BadLink) > 0,
            "{kind:?}: no BadLink: {st:?}"
        );
    }
    // A trailing HEAD for this node is legal on a mesh.
    assert_eq!(code(RouterError::HeadForMeAfterSplit), 0, "{st:?}");
    st
}

#[test]
fn mesh_router_lockstep_each_function() {
    // Interior node 5 = (1,1) of the 4×4 mesh for each function, and a
    // corner (node 0) for Hamiltonian (class HIGH/LOW links on two ports).
    for (kind, node, seed) in [
        (RoutingKind::Dor, 5usize, 61u64),
        (RoutingKind::NegativeFirst, 5, 62),
        (RoutingKind::Hamiltonian, 5, 63),
        (RoutingKind::Hamiltonian, 0, 64),
    ] {
        let st = mesh_router_run(kind, "mesh:4x4", node, 2, 20_000, seed);
        // Both consumption channels are used (2 groups, or 4 groups on 2
        // channels for dor).
        assert!(st.loaded[4] > 20 && st.loaded[5] > 20, "{st:?}");
        if node == 5 {
            // Several O bits at an inner node: the split by the routing
            // function and its BelowNoBranch case.
            assert!(
                st.err_codes[RouterError::BelowNoBranch.code() as usize] > 0,
                "{st:?}"
            );
        }
    }
}

#[test]
fn mesh_router_lockstep_other_shapes() {
    // K = 3: packed addresses have holes (x = 3 names no node); edge node
    // (2,1) of a 3×5 mesh; 4 consumption channels (dor: one per group),
    // depth 1; negative_first on a 5×3 with 2 injection channels.
    let st = mesh_router_run(RoutingKind::Dor, "mesh:3x5", 5, 4, 5_000, 65);
    for o in 4..8 {
        assert!(st.loaded[o] > 5, "channel {}: {st:?}", o - 4);
    }
    let p = RouterParams {
        depth: 1,
        injection: 2,
        ..mesh_params(RoutingKind::NegativeFirst, 2)
    };
    let cfg = mesh_cfgs("mesh:5x3", &p);
    let st = router_lockstep::<32>(&cfg[7], &p, Fault::None, 4_000, 66, true)
        .unwrap_or_else(|m| panic!("negative_first 5x3: lockstep mismatch: {m}"));
    eprintln!("negative_first 5x3 node 7 depth 1: {st:?}");
    assert!(st.grants > 200, "{st:?}");
    // Hamiltonian with 16-bit flits and a setup delay of 2.
    let p = RouterParams {
        flit: wormcast_sim::flit::FlitFormat::new(16).unwrap(),
        setup_cycles: 2,
        ..mesh_params(RoutingKind::Hamiltonian, 2)
    };
    let cfg = mesh_cfgs("mesh:4x4", &p);
    let st = router_lockstep::<16>(&cfg[6], &p, Fault::None, 4_000, 67, true)
        .unwrap_or_else(|m| panic!("hamiltonian 16-bit: lockstep mismatch: {m}"));
    eprintln!("hamiltonian 16-bit setup 2 node 6: {st:?}");
    assert!(st.grants > 200 && st.setup_cycles > 200, "{st:?}");
}

#[test]
fn mesh_broken_models_are_caught() {
    // The arbiter masking with mesh routing (as tree routing does).
    let p = mesh_params(RoutingKind::Dor, 2);
    let cfg = mesh_cfgs("mesh:4x4", &p);
    let m = router_lockstep::<32>(&cfg[5], &p, Fault::MeshMasking, 20_000, 68, false)
        .expect_err("a masking arbiter on a mesh must be detected at the ports");
    eprintln!("caught (mesh masking): {m}");
    // A wrong consumption group: Hamiltonian input O1 in the other group.
    let p = mesh_params(RoutingKind::Hamiltonian, 2);
    let cfg = mesh_cfgs("mesh:4x4", &p);
    let mut bad = cfg[5].clone();
    let mc = bad.mesh.as_mut().unwrap();
    mc.cons_group[0] ^= 1;
    let m = router_lockstep_vs::<32>(&cfg[5], &bad, &p, Fault::None, 20_000, 69, false)
        .expect_err("a wrong consumption group must be detected at the ports");
    eprintln!("caught (consumption group): {m}");
    // negative_first at (1,1) built with the address of (2,1).
    let p = mesh_params(RoutingKind::NegativeFirst, 2);
    let cfg = mesh_cfgs("mesh:4x4", &p);
    let mut bad = cfg[5].clone();
    let mc = bad.mesh.as_mut().unwrap();
    mc.own += 1;
    let m = router_lockstep_vs::<32>(&cfg[5], &bad, &p, Fault::None, 20_000, 70, false)
        .expect_err("a wrong own address must be detected at the ports");
    eprintln!("caught (own address): {m}");
}

// ---- the deferred strip (docs/hardware.md 3h) ----

/// The default router with a deferred strip, without and with a one-cycle
/// header setup delay (the fastest router on an iCE40, docs/hardware.md 3h), registers
/// compared every cycle.
#[test]
fn deferred_strip_lockstep() {
    for (setup, seed) in [(0u32, 41u64), (1, 42)] {
        let p = RouterParams {
            setup_cycles: setup,
            strip_deferred: true,
            ..RouterParams::default()
        };
        let cfg = cfgs(&p);
        let st = router_lockstep::<32>(&cfg[5], &p, Fault::None, 20_000, seed, true)
            .unwrap_or_else(|m| panic!("setup {setup}: lockstep mismatch: {m}"));
        eprintln!("deferred strip, setup {setup}: {st:?}");
        assert!(st.grants > 100 && st.deferred_strips > 100, "{st:?}");
    }
}

/// An RTL that pops the stripped HEAD at its grant (today's contract)
/// while the native model defers it: caught at the registers and at the
/// ports.
#[test]
fn strip_on_grant_is_caught() {
    let p = RouterParams {
        setup_cycles: 1,
        strip_deferred: true,
        ..RouterParams::default()
    };
    let cfg = cfgs(&p);
    let m = router_lockstep::<32>(&cfg[5], &p, Fault::StripOnGrant, 20_000, 43, true)
        .expect_err("a strip at the grant must be detected");
    eprintln!("caught (registers): {m}");
    let m = router_lockstep::<32>(&cfg[5], &p, Fault::StripOnGrant, 20_000, 43, false)
        .expect_err("a strip at the grant must be visible at the ports");
    eprintln!("caught (ports): {m}");
}

// ---- the fast hop (docs/router.md "Link protocol and timing") ----

/// The fast hop (`Hop::Fast`: a forwarded first HEAD loads its output at
/// its grant, a BODY or TAIL bypasses an empty FIFO) on every routing
/// function's router, registers compared every cycle: tree routing at a
/// root and an inner node, with local fault information, at depths 1 and
/// 3, with a setup delay and a deferred strip; SPAM; each mesh function
/// (8 000 cycles each).
#[test]
fn fast_hop_router_lockstep() {
    let fast = |p: RouterParams| RouterParams {
        hop: Hop::Fast,
        ..p
    };
    let tree = RouterParams::default();
    let mut runs: Vec<(&str, RouterConfig, RouterParams, u64)> = vec![
        ("tree node 0", cfgs(&tree)[0].clone(), fast(tree), 81),
        ("tree node 5", cfgs(&tree)[5].clone(), fast(tree), 82),
    ];
    let mut diverted = cfgs(&tree)[6].clone();
    diverted.divert_out = 0b0100;
    runs.push(("tree node 6, +y faulty", diverted, fast(tree), 83));
    for depth in [1, 3] {
        let p = fast(RouterParams { depth, ..tree });
        runs.push((
            "tree node 5, depth 1 or 3",
            cfgs(&p)[5].clone(),
            p,
            84 + depth as u64,
        ));
    }
    let p = fast(RouterParams {
        setup_cycles: 1,
        strip_deferred: true,
        ..tree
    });
    runs.push((
        "tree node 5, setup 1, deferred strip",
        cfgs(&p)[5].clone(),
        p,
        88,
    ));
    let p = fast(spam_params(0));
    runs.push(("spam node 5", spam_cfgs(&p)[5].clone(), p, 89));
    for (k, kind) in [
        RoutingKind::Hamiltonian,
        RoutingKind::Dor,
        RoutingKind::NegativeFirst,
    ]
    .into_iter()
    .enumerate()
    {
        let p = fast(mesh_params(kind, 2));
        runs.push((
            "mesh node 5",
            mesh_cfgs("mesh:4x4", &p)[5].clone(),
            p,
            90 + k as u64,
        ));
    }
    for (what, cfg, p, seed) in runs {
        let st = router_lockstep::<32>(&cfg, &p, Fault::None, 8_000, seed, true)
            .unwrap_or_else(|m| panic!("{what} ({:?}): lockstep mismatch: {m}", p.routing));
        eprintln!("{what} ({:?}, depth {}): {st:?}", p.routing, p.depth);
        assert!(
            st.bypassed > 100 && st.forwarded_heads > 100 && st.grants > 300,
            "{what}: both shortcuts exercised: {st:?}"
        );
        if cfg.divert_out != 0 {
            assert!(st.diverted > 50, "{st:?}");
        }
    }
}

/// An RTL that keeps the standard contract while the native model runs
/// the fast hop: caught at the registers and at the ports.
#[test]
fn standard_rtl_under_fast_model_is_caught() {
    let p = RouterParams {
        hop: Hop::Fast,
        ..RouterParams::default()
    };
    let cfg = cfgs(&p);
    for internal in [true, false] {
        let m = router_lockstep::<32>(&cfg[5], &p, Fault::StandardHop, 5_000, 93, internal)
            .expect_err("the standard contract must be detected");
        eprintln!("caught (internal {internal}): {m}");
    }
}
