//! The self-checking FPGA top (issue 13, `rtl/src/fpga_top.rs`) under
//! Verilator against the native model's twin of the same generators and
//! checkers (`wormcast_sim::onchip`): every output port equal at every
//! cycle for 100 000 cycles, every message checked on chip, and a top built
//! from a broken router fails its own checks.
//!
//! Two Verilator builds (≈ 1 min each on the 2-core VM, cached in the
//! target directory).

use std::path::PathBuf;
use wormcast_rtl::fpga_top::fpga_top;
use wormcast_rtl::router::Fault;
use wormcast_rtl::verilated::{build, Verilated};
use wormcast_sim::onchip::{GenOptions, OnChip, Outputs, Plan};
use wormcast_sim::scenario::Scenario;

const CYCLES: u64 = 100_000;

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fpga-top-cache")
}

fn plan(sets: &[&str], opts: GenOptions) -> Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Plan::new(&Scenario::from_toml("", &sets, "test").unwrap(), opts).unwrap()
}

fn load(plan: &Plan, fault: Fault) -> Verilated {
    let g = fpga_top(plan, fault).unwrap();
    let t = std::time::Instant::now();
    let (so, built) = build(&g, &cache()).unwrap();
    eprintln!(
        "{} ({fault:?}): {} in {:.1} s",
        g.top,
        if built { "built" } else { "cached" },
        t.elapsed().as_secs_f64()
    );
    Verilated::load(&so, &g).unwrap()
}

/// The Verilog top's outputs, by the port names of `TOP_OUTPUTS`.
fn outputs(m: &mut Verilated) -> Outputs {
    let mut raw = vec![0u64; m.outputs_ports.len()];
    m.read(&mut raw);
    let get = |n: &str| {
        let i = m.outputs_ports.iter().position(|p| p.name == n).unwrap();
        raw[i]
    };
    Outputs {
        pass: get("pass") == 1,
        done: get("done") == 1,
        stall: get("stall") == 1,
        heartbeat: get("heartbeat") == 1,
        err_count: get("err_count") as u32,
        sent: get("sent") as u32,
        expected: get("expected") as u32,
        received: get("received") as u32,
    }
}

fn torus_2x2() -> Plan {
    plan(
        &["network.topology=torus:2x2", "network.flit_width=16"],
        GenOptions {
            rate: 48,
            multicast: 0.25,
            entries: 16,
            length: 4,
            messages: 0,
            seed: 7,
        },
    )
}

/// Runs `plan`'s top natively and under Verilator for `cycles`, every
/// output equal at every cycle; returns the native top.
fn lockstep(plan: Plan, cycles: u64) -> OnChip {
    let mut v = load(&plan, Fault::None);
    let mut native = OnChip::new(plan);
    for c in 0..cycles {
        let (a, b) = (native.outputs(), outputs(&mut v));
        assert_eq!(a, b, "cycle {c}: native left, Verilog right");
        native.step();
        v.tick(&[]);
    }
    eprintln!(
        "{cycles} cycles: {:?}; {} flits injected, {} consumed",
        native.outputs(),
        native.flits_in,
        native.flits_out
    );
    native
}

#[test]
fn verilog_top_equals_native_model_for_100k_cycles() {
    let o = lockstep(torus_2x2(), CYCLES).outputs();
    assert!(o.pass && !o.stall && o.err_count == 0, "{o:?}");
    // Real load: thousands of messages, multicasts among them, nearly all
    // delivered (the rest in flight).
    assert!(o.sent > 5_000, "{o:?}");
    assert!(o.expected > o.sent, "{o:?}: no multicast was sent");
    assert!(o.expected - o.received < 64, "{o:?}");
}

#[test]
fn a_broken_router_fails_the_on_chip_checks() {
    let plan = torus_2x2();
    let mut v = load(&plan, Fault::ReadyBeforeEdge);
    let mut failed_at = None;
    for c in 0..CYCLES {
        let o = outputs(&mut v);
        if !o.pass {
            failed_at = Some((c, o));
            break;
        }
        v.tick(&[]);
    }
    let (c, o) = failed_at.expect("the broken router passed 100 000 cycles");
    eprintln!("ReadyBeforeEdge: pass fell at cycle {c}: {o:?}");
    assert!(o.err_count > 0 || o.stall, "{o:?}");
}

/// Path-based multicast on a mesh: a message is several worms (dual-path),
/// each with its own HEADs and the same identity; a finite run ends `done`
/// with `pass` on chip, equal to the native model all the way.
#[test]
fn mesh_dual_path_top_finishes_and_passes() {
    let plan = plan(
        &[
            "network.topology=mesh:3x3",
            "network.routing=hamiltonian",
            "network.flit_width=16",
        ],
        GenOptions {
            rate: 32,
            multicast: 0.5,
            entries: 8,
            length: 5,
            messages: 300,
            seed: 3,
        },
    );
    assert!(
        plan.worms.iter().flatten().any(|&w| w > 1),
        "no multi-worm message"
    );
    let mut top = lockstep(plan, 40_000);
    let o = top.outputs();
    assert!(o.done && o.pass, "{o:?}");
    assert_eq!(o.sent, 300 * 9);
    // Done for good: nothing changes once all is delivered.
    top.step();
    assert_eq!(top.outputs(), o);
}
