//! docs/architecture.md §2 check 3: the *generated Verilog* equals the native model,
//! under iverilog and Verilator, for one router (random stimuli: valid worms,
//! malformed heads, garbage, random back-pressure) and for the 4×4 DSTM-1
//! torus under real DSTM traffic. Deliberately wrong models must be caught
//! by both simulators, with cycle and signal. The iverilog run of the fabric
//! also dumps a VCD that is compared, signal by signal, with the native VCD
//! of the same run.
//!
//! Missing simulators fail these tests (with an install hint) instead of
//! skipping them: they are the only check of the Verilog.

use std::path::PathBuf;
use wormcast_rtl::fabric_cfg::dstm_configs;
use wormcast_rtl::generate::router_module;
use wormcast_rtl::Fault;
use wormcast_sim::config::{Hop, RouterConfig, RouterParams};
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
use wormcast_testbench::lockstep::fabric_scenario;
use wormcast_testbench::vcd_compare::{compare_fabric, Vcd};
use wormcast_testbench::vectors::{
    build, fabric_vectors, router_vectors, router_vectors_rtl_fault, router_vectors_vs, run,
    write_dut, write_fabric_dut, FabricDut, Simulator,
};

/// Cycles for the single router. iverilog runs the router at roughly
/// 2–3 k cycles/s here; 20 000 cycles keep each simulator run well under
/// the test budget (timings printed with `--nocapture`).
const ROUTER_CYCLES: usize = 20_000;
/// Cycles for the 4×4 fabric (16 routers, every register checked).
const FABRIC_CYCLES: usize = 2_000;

const SIMS: [Simulator; 2] = [Simulator::Icarus, Simulator::Verilator];

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Builds the DUT under each simulator and runs its vectors: the `good`
/// ones must pass (`PASS top: N cycles`), every `wrong` model must be
/// caught with a nonzero exit and a report naming cycle and signal.
#[allow(clippy::too_many_arguments)]
fn check_sims(
    label: &str,
    top: &str,
    dir: &std::path::Path,
    tb: &std::path::Path,
    dut: &std::path::Path,
    good: &(PathBuf, PathBuf),
    cycles: usize,
    wrong: &[(&str, (PathBuf, PathBuf))],
) {
    for sim in SIMS {
        let b = build(sim, &dir.join(sim.to_string()), tb, dut);
        let r = run(&b, &good.0, &good.1, cycles, None);
        eprintln!(
            "{label} {sim}: build {:.1}s, {cycles} cycles in {:.1}s ({:.0} cycles/s): {}",
            b.seconds,
            r.seconds,
            cycles as f64 / r.seconds,
            r.stdout.lines().last().unwrap_or("")
        );
        assert!(
            r.ok,
            "{sim}: {label} Verilog differs from the native model:\n{}",
            r.stdout
        );
        assert!(r.stdout.contains(&format!("PASS {top}: {cycles} cycles")));
        for (what, (wi, we)) in wrong {
            let r = run(&b, wi, we, cycles, None);
            let m = r.mismatches();
            eprintln!(
                "{label} {sim}, wrong model ({what}): exit {:?}, first report: {}",
                r.exit,
                m.first().unwrap_or(&"none")
            );
            assert!(!r.ok, "{sim} accepted a wrong model ({what})");
            assert_ne!(r.exit, Some(0), "{sim}: a mismatch must exit nonzero");
            assert!(
                !m.is_empty() && m[0].contains("cycle ") && m[0].contains("signal "),
                "{sim}: mismatch report must name cycle and signal:\n{}",
                r.stdout
            );
        }
    }
}

/// A whole generated fabric against the native `Network` of `sc`: every
/// router's ports every cycle (no internal registers: those are the fabric
/// lockstep's), under both simulators. `observe` sees the native network
/// after every edge. Returns the traffic it carried for the caller's checks.
fn fabric_ports_check(
    label: &str,
    dir: &std::path::Path,
    sc: &wormcast_sim::scenario::Scenario,
    cycles: usize,
    observe: &mut dyn FnMut(&wormcast_sim::network::Network),
) -> wormcast_testbench::vectors::FabricVectorStats {
    let FabricDut {
        module: g,
        file: dut,
        ..
    } = write_fabric_dut(sc, dir);
    let (vs, st) = fabric_vectors(&g.top, sc, cycles, false, observe);
    eprintln!(
        "{label}: {} cycles, {} messages ({} multicast), {} deliveries, {} signals per cycle",
        vs.cycles(),
        st.messages,
        st.multicasts,
        st.delivered,
        vs.checks.len()
    );
    let (vin, vexp) = vs.write_hex(dir, "good").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, vs.testbench(cycles)).unwrap();
    check_sims(label, &g.top, dir, &tb, &dut, &(vin, vexp), cycles, &[]);
    st
}

fn cfgs(p: &RouterParams) -> Vec<RouterConfig> {
    let topo = Topology::torus(4, 4).unwrap();
    dstm_configs(&topo, Named::Dstm1, p).unwrap()
}

#[test]
fn router_verilog_matches_native_and_wrong_models_are_caught() {
    let dir = out_dir("vectors_router");
    let p = RouterParams::default();
    let cfg = cfgs(&p);
    // Node 5 is an inner node of both DSTM-1 trees: every routing case occurs.
    let node = 5;
    let g = router_module(&p, &cfg[node]).unwrap();
    let dut = write_dut(&g, &dir);

    let t0 = std::time::Instant::now();
    let good = router_vectors(&g.top, &cfg[node], &p, 11, ROUTER_CYCLES, true);
    let (vin, vexp) = good.write_hex(&dir, "good").unwrap();
    eprintln!(
        "router: {} cycles of native vectors in {:.2}s, {} signals per cycle",
        good.cycles(),
        t0.elapsed().as_secs_f64(),
        good.checks.len()
    );
    let tb = dir.join("tb.v");
    std::fs::write(&tb, good.testbench(ROUTER_CYCLES)).unwrap();

    // Deliberately wrong models, each semantically different from the
    // router under test (not bit flips):
    // 1. a buffer one flit deeper: `ready` stays high one flit longer, so
    //    the first full FIFO differs;
    let deeper = RouterParams { depth: 3, ..p };
    let wrong_depth = router_vectors_vs(
        &g.top,
        &cfg[node],
        &p,
        &cfgs(&deeper)[node],
        &deeper,
        11,
        ROUTER_CYCLES,
        true,
    );
    // 2. another node's routing tables (node 6): own address and subtree
    //    ranges differ, so strips and routing decisions differ.
    let wrong_tables =
        router_vectors_vs(&g.top, &cfg[node], &p, &cfg[6], &p, 11, ROUTER_CYCLES, true);
    // 3. the arbiter of the rust-hdl twin with its priority rule broken
    //    (`Fault::ArbiterPriority`: the first blocked input does not keep
    //    the top priority): agrees for many cycles, then grants differ.
    let wrong_arbiter = router_vectors_rtl_fault::<32>(
        &g.top,
        &cfg[node],
        &p,
        Fault::ArbiterPriority,
        11,
        ROUTER_CYCLES,
        true,
    );
    let wrong = [
        (
            "depth 3 instead of 2",
            wrong_depth.write_hex(&dir, "depth3").unwrap(),
        ),
        (
            "node 6 tables",
            wrong_tables.write_hex(&dir, "node6").unwrap(),
        ),
        (
            "broken arbiter priority",
            wrong_arbiter.write_hex(&dir, "arbiter").unwrap(),
        ),
    ];

    check_sims(
        "router",
        &g.top,
        &dir,
        &tb,
        &dut,
        &(vin, vexp),
        ROUTER_CYCLES,
        &wrong,
    );
}

/// Local fault information (\[DSTM\] §7) in the generated Verilog: node 5
/// with its +x and -y ports faulty diverts, HEADs kept, every worm whose
/// branch would cross them; iverilog and Verilator equal the native router
/// every cycle, and the same vectors from a router that ignores the faulty
/// ports (`Fault::NoDiversion`) fail in both.
#[test]
fn diverting_router_verilog_matches_native() {
    let dir = out_dir("vectors_router_divert");
    let p = RouterParams::default();
    let mut cfg = cfgs(&p)[5].clone();
    cfg.divert_out = 0b1001;
    let g = router_module(&p, &cfg).unwrap();
    let dut = write_dut(&g, &dir);
    let cycles = MESH_ROUTER_CYCLES;
    let good = router_vectors(&g.top, &cfg, &p, 24, cycles, true);
    let (vin, vexp) = good.write_hex(&dir, "good").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, good.testbench(cycles)).unwrap();
    let ignoring =
        router_vectors_rtl_fault::<32>(&g.top, &cfg, &p, Fault::NoDiversion, 24, cycles, true);
    check_sims(
        "diverting router",
        &g.top,
        &dir,
        &tb,
        &dut,
        &(vin, vexp),
        cycles,
        &[(
            "faulty ports ignored",
            ignoring.write_hex(&dir, "nodivert").unwrap(),
        )],
    );
}

/// The broken arbiter also shows at the router's ports alone (no internal
/// registers compared): a wrong priority rule changes which worm gets an
/// output, hence the flits on the outputs.
#[test]
fn broken_arbiter_is_visible_at_the_ports() {
    let dir = out_dir("vectors_router_ports");
    let p = RouterParams::default();
    let cfg = cfgs(&p);
    let node = 5;
    let g = router_module(&p, &cfg[node]).unwrap();
    let dut = write_dut(&g, &dir);
    let cycles = 5_000;
    let wrong = router_vectors_rtl_fault::<32>(
        &g.top,
        &cfg[node],
        &p,
        Fault::ArbiterPriority,
        11,
        cycles,
        false,
    );
    let (wi, we) = wrong.write_hex(&dir, "arbiter").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, wrong.testbench(cycles)).unwrap();
    // iverilog only: the Verilator build of this testbench would repeat the
    // one above for a few more seconds of CI; the report format is the same.
    let b = build(Simulator::Icarus, &dir.join("iverilog"), &tb, &dut);
    let r = run(&b, &wi, &we, cycles, None);
    let m = r.mismatches();
    eprintln!(
        "ports only, broken arbiter: {}",
        m.first().unwrap_or(&"none")
    );
    assert!(
        !r.ok && !m.is_empty(),
        "ports-only check missed the broken arbiter"
    );
}

#[test]
fn fabric_4x4_verilog_matches_native_and_waveforms_agree() {
    let dir = out_dir("vectors_fabric");
    let sc = fabric_scenario("torus:4x4", 0.02, 17);
    let FabricDut {
        module: g,
        file: dut,
        topo,
        params: p,
    } = write_fabric_dut(&sc, &dir);

    // Native vectors and the native VCD of the same run.
    let all: Vec<u32> = (0..topo.nodes()).collect();
    let native_path = dir.join("native.vcd");
    type Writer = wormcast_sim::waves::VcdWriter<std::io::BufWriter<std::fs::File>>;
    let mut writer: Option<Writer> = None;
    let (vs, st) = fabric_vectors(&g.top, &sc, FABRIC_CYCLES, true, &mut |net| {
        let w = writer.get_or_insert_with(|| {
            let f = std::fs::File::create(&native_path).unwrap();
            wormcast_sim::waves::VcdWriter::new(
                &net.fabric,
                &all,
                wormcast_sim::waves::Window::ALL,
                std::io::BufWriter::new(f),
            )
            .unwrap()
        });
        w.sample(&net.fabric).unwrap();
    });
    writer.take().unwrap().finish().unwrap();
    eprintln!(
        "fabric: {} cycles, {} messages ({} multicast), {} deliveries, {} signals per cycle",
        vs.cycles(),
        st.messages,
        st.multicasts,
        st.delivered,
        vs.checks.len()
    );
    assert!(st.multicasts >= 10 && st.delivered >= 100, "{st:?}");
    let (vin, vexp) = vs.write_hex(&dir, "good").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, vs.testbench(FABRIC_CYCLES)).unwrap();

    for sim in SIMS {
        let b = build(sim, &dir.join(sim.to_string()), &tb, &dut);
        let vcd = (sim == Simulator::Icarus).then(|| dir.join("verilog.vcd"));
        let r = run(&b, &vin, &vexp, FABRIC_CYCLES, vcd.as_deref());
        eprintln!(
            "fabric {sim}: build {:.1}s, {} cycles in {:.1}s: {}",
            b.seconds,
            FABRIC_CYCLES,
            r.seconds,
            r.stdout.lines().last().unwrap_or("")
        );
        assert!(
            r.ok,
            "{sim}: Verilog differs from the native model:\n{}",
            r.stdout
        );
    }

    // Waveforms: native VCD vs iverilog VCD, every router signal, every cycle.
    let native = Vcd::parse(&std::fs::read_to_string(&native_path).unwrap()).unwrap();
    let text = std::fs::read_to_string(dir.join("verilog.vcd")).unwrap();
    let verilog = Vcd::parse(&text).unwrap();
    let ws = compare_fabric(&native, &verilog, &topo, &p, "tb.dut", FABRIC_CYCLES as u64)
        .unwrap_or_else(|e| panic!("waveforms differ: {e}"));
    eprintln!(
        "waveforms: {} signals x {} cycles = {} samples equal",
        ws.signals,
        FABRIC_CYCLES + 1,
        ws.samples
    );
}

// ---- SPAM routing and the header setup delay in the Verilog ----

fn spam_params(setup_cycles: u32) -> RouterParams {
    RouterParams {
        classes: 1,
        routing: wormcast_sim::config::RoutingKind::Spam,
        setup_cycles,
        ..RouterParams::default()
    }
}

/// Cycles for the SPAM router (one build per simulator).
const SPAM_ROUTER_CYCLES: usize = 6_000;
/// Cycles for the small SPAM fabric.
const SPAM_FABRIC_CYCLES: usize = 1_000;

#[test]
fn spam_router_verilog_matches_native_and_wrong_models_are_caught() {
    let dir = out_dir("vectors_spam_router");
    // SPAM on the BFS tree of the 4×4 torus, setup delay 2, pool of two
    // consumption channels; node 5 has up, down-cross and down-tree inputs.
    let p = spam_params(2);
    let topo = Topology::torus(4, 4).unwrap();
    let cfg = wormcast_rtl::fabric_cfg::spam_configs(&topo, None, &p).unwrap();
    let node = 5;
    let g = router_module(&p, &cfg[node]).unwrap();
    let dut = write_dut(&g, &dir);
    let good = router_vectors(&g.top, &cfg[node], &p, 41, SPAM_ROUTER_CYCLES, true);
    let (vin, vexp) = good.write_hex(&dir, "good").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, good.testbench(SPAM_ROUTER_CYCLES)).unwrap();

    // Wrong models: 1. one SPAM table entry changed (target 12, up phase,
    // another existing port); 2. a setup delay of 1 instead of 2.
    let mut bad = cfg[node].clone();
    let e = &mut bad.spam.as_mut().unwrap().next[12][0];
    *e = (*e + 1) % 4;
    let wrong_entry = router_vectors_vs(
        &g.top,
        &cfg[node],
        &p,
        &bad,
        &p,
        41,
        SPAM_ROUTER_CYCLES,
        true,
    );
    let setup1 = spam_params(1);
    let wrong_setup = router_vectors_vs(
        &g.top,
        &cfg[node],
        &p,
        &cfg[node],
        &setup1,
        41,
        SPAM_ROUTER_CYCLES,
        true,
    );
    let wrong = [
        (
            "one wrong SPAM entry",
            wrong_entry.write_hex(&dir, "entry").unwrap(),
        ),
        (
            "setup 1 instead of 2",
            wrong_setup.write_hex(&dir, "setup1").unwrap(),
        ),
    ];
    check_sims(
        "SPAM router",
        &g.top,
        &dir,
        &tb,
        &dut,
        &(vin, vexp),
        SPAM_ROUTER_CYCLES,
        &wrong,
    );
}

#[test]
fn spam_fabric_verilog_matches_native() {
    let dir = out_dir("vectors_spam_fabric");
    // A 3×3 SPAM torus with setup delay 2 under real unicast + multicast
    // traffic; every router's ports (every link's flit, valid and ready,
    // the NI ports, the error registers) checked every cycle. Internal
    // registers are left to the 4×4 SPAM fabric lockstep: with them the
    // testbench is 2.5× larger and the Verilator build alone takes over a
    // minute on 2 cores.
    let mut sc = fabric_scenario("torus:3x3", 0.03, 43);
    sc.network.routing = "spam".parse().unwrap();
    sc.network.construction = "bfs".into();
    sc.network.header_setup_cycles = 2;
    let st = fabric_ports_check("SPAM fabric", &dir, &sc, SPAM_FABRIC_CYCLES, &mut |_| {});
    assert!(st.multicasts >= 10 && st.delivered >= 100, "{st:?}");
}

// ---- the deferred strip (docs/hardware.md 3h) ----

/// Cycles for the deferred-strip router (both simulators).
const STRIP_ROUTER_CYCLES: usize = 3_000;

#[test]
fn deferred_strip_router_verilog_matches_native() {
    // The default router with a one-cycle header setup delay and a
    // deferred strip, the fastest router on an iCE40 (3h); the wrong
    // model is today's contract (the stripped HEAD leaves at its grant).
    let p = RouterParams {
        setup_cycles: 1,
        strip_deferred: true,
        ..RouterParams::default()
    };
    let on_grant = RouterParams {
        strip_deferred: false,
        ..p
    };
    router_against_a_contract(
        "deferred-strip router",
        &p,
        ("strip at the grant", &on_grant),
        44,
        STRIP_ROUTER_CYCLES,
    );
}

/// Node 5's router of the 4×4 DSTM-1 torus generated with `p`, its
/// vectors (ports and registers, stimulus `seed`) under both simulators;
/// the vectors of the native model under the other contract `wrong` must
/// be caught.
fn router_against_a_contract(
    label: &str,
    p: &RouterParams,
    (what, wrong_p): (&str, &RouterParams),
    seed: u64,
    cycles: usize,
) {
    let dir = out_dir(&format!("vectors_{}", label.replace(' ', "_")));
    let cfg = cfgs(p);
    let node = 5;
    let g = router_module(p, &cfg[node]).unwrap();
    let dut = write_dut(&g, &dir);
    let good = router_vectors(&g.top, &cfg[node], p, seed, cycles, true);
    let (vin, vexp) = good.write_hex(&dir, "good").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, good.testbench(cycles)).unwrap();
    let wrong = router_vectors_vs(
        &g.top, &cfg[node], p, &cfg[node], wrong_p, seed, cycles, true,
    );
    check_sims(
        label,
        &g.top,
        &dir,
        &tb,
        &dut,
        &(vin, vexp),
        cycles,
        &[(what, wrong.write_hex(&dir, "wrong").unwrap())],
    );
}

// ---- the fast hop (docs/router.md "Link protocol and timing") ----

/// Cycles for the fast-hop router (both simulators).
const FAST_ROUTER_CYCLES: usize = 3_000;
/// Cycles for the fast-hop 3×3 torus.
const FAST_FABRIC_CYCLES: usize = 1_000;

#[test]
fn fast_hop_router_verilog_matches_native() {
    // The default router with the fast hop; the wrong model is the
    // standard contract (no bypass, no HEAD loaded at its grant).
    let p = RouterParams {
        hop: Hop::Fast,
        ..RouterParams::default()
    };
    let standard = RouterParams {
        hop: Hop::Standard,
        ..p
    };
    router_against_a_contract(
        "fast-hop router",
        &p,
        ("standard hop", &standard),
        45,
        FAST_ROUTER_CYCLES,
    );
}

#[test]
fn fast_hop_fabric_verilog_matches_native() {
    let dir = out_dir("vectors_fast_fabric");
    // A 3×3 DSTM-1 torus with the fast hop under unicast + multicast
    // traffic; every router's ports every cycle (internal registers: the
    // fast-hop fabric lockstep).
    let mut sc = fabric_scenario("torus:3x3", 0.03, 46);
    sc.network.hop = Hop::Fast;
    let st = fabric_ports_check(
        "fast-hop fabric",
        &dir,
        &sc,
        FAST_FABRIC_CYCLES,
        &mut |_| {},
    );
    assert!(st.multicasts >= 10 && st.delivered >= 100, "{st:?}");
}

// ---- mesh routing functions ----

/// Cycles per mesh router (each of three functions, both simulators).
const MESH_ROUTER_CYCLES: usize = 4_000;
/// Cycles for the 3×3 mesh fabric.
const MESH_FABRIC_CYCLES: usize = 1_000;

fn mesh_params(kind: wormcast_sim::config::RoutingKind) -> RouterParams {
    RouterParams {
        classes: kind.mesh_classes(),
        routing: kind,
        ..RouterParams::default()
    }
}

#[test]
fn mesh_routers_verilog_match_native_and_wrong_models_are_caught() {
    use wormcast_sim::config::RoutingKind;
    // Inner node (1,1) of the 4×4 mesh for dor and negative_first, edge
    // node (2,0) for Hamiltonian (a missing link and links of both
    // classes); every output and shared register checked every cycle.
    for (kind, node, seed) in [
        (RoutingKind::Hamiltonian, 2usize, 51u64),
        (RoutingKind::Dor, 5, 52),
        (RoutingKind::NegativeFirst, 5, 53),
    ] {
        let dir = out_dir(&format!("vectors_mesh_router_{}", kind.name()));
        let p = mesh_params(kind);
        let topo = Topology::mesh(4, 4).unwrap();
        let cfg = wormcast_rtl::fabric_cfg::mesh_configs(&topo, &p).unwrap();
        let g = router_module(&p, &cfg[node]).unwrap();
        let dut = write_dut(&g, &dir);
        let good = router_vectors(&g.top, &cfg[node], &p, seed, MESH_ROUTER_CYCLES, true);
        let (vin, vexp) = good.write_hex(&dir, "good").unwrap();
        let tb = dir.join("tb.v");
        std::fs::write(&tb, good.testbench(MESH_ROUTER_CYCLES)).unwrap();
        // Wrong models: 1. the constants of the next node (own address,
        // neighbours, link classes); 2. the arbiter masking the first
        // blocked input's free outputs, as with tree routing.
        let wrong_node = router_vectors_vs(
            &g.top,
            &cfg[node],
            &p,
            &cfg[node + 1],
            &p,
            seed,
            MESH_ROUTER_CYCLES,
            true,
        );
        let wrong_mask = router_vectors_rtl_fault::<32>(
            &g.top,
            &cfg[node],
            &p,
            Fault::MeshMasking,
            seed,
            MESH_ROUTER_CYCLES,
            true,
        );
        let wrong = [
            (
                "next node's constants",
                wrong_node.write_hex(&dir, "node").unwrap(),
            ),
            (
                "masking arbiter",
                wrong_mask.write_hex(&dir, "mask").unwrap(),
            ),
        ];
        check_sims(
            &format!("{} router", kind.name()),
            &g.top,
            &dir,
            &tb,
            &dut,
            &(vin, vexp),
            MESH_ROUTER_CYCLES,
            &wrong,
        );
    }
}

#[test]
fn mesh_fabric_verilog_matches_native() {
    let dir = out_dir("vectors_mesh_fabric");
    // A 3×3 Hamiltonian mesh (edge ports tied off) under dual-path
    // multicast and unicast worms; every router's ports checked every
    // cycle (internal registers: the 4×4 mesh fabric lockstep).
    let sc = wormcast_testbench::lockstep::mesh_fabric_scenario(
        "mesh:3x3",
        "hamiltonian",
        "dual-path",
        2,
        0.03,
        54,
    );
    let st = fabric_ports_check("mesh fabric", &dir, &sc, MESH_FABRIC_CYCLES, &mut |_| {});
    assert!(st.multicasts >= 10 && st.delivered >= 100, "{st:?}");
}

#[test]
fn faulty_mesh_tree_worms_verilog_match_native() {
    let dir = out_dir("vectors_faulty_mesh_trees");
    // [FTTREE] Strategy-3 trees (turn points, detached branches) as worms
    // on a 4×4 XY mesh with node (2,1) faulty: the generated fabric leaves
    // the node out exactly as the native one does (its links tied off),
    // and every router's ports are compared every cycle under both
    // simulators.
    let mut sc = wormcast_testbench::lockstep::mesh_fabric_scenario(
        "mesh:4x4", "dor", "ft-s3", 4, 0.006, 63,
    );
    sc.network.faulty_nodes = vec!["2,1".into()];
    let st = fabric_ports_check(
        "faulty mesh fabric (ft-s3)",
        &dir,
        &sc,
        FABRIC_CYCLES,
        &mut |net| {
            // The faulty node never carries a flit.
            let s = &net.fabric.state[net.fabric.topo.id(2, 1) as usize];
            assert!(s.out.iter().all(|o| !o.valid));
            assert!(s
                .inp
                .iter()
                .all(|i| i.state == wormcast_sim::router::InState::Idle));
        },
    );
    assert!(st.multicasts >= 5 && st.delivered >= 50, "{st:?}");
}
