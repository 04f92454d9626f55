//! The self-checking FPGA top (`rtl/src/fpga_top.rs`) under
//! Verilator against the native model's twin of the same generators and
//! checkers (`wormcast_sim::onchip`): every output port equal at every
//! cycle for 100 000 cycles, every message checked on chip, `pass` 0 until
//! the first epoch check and 1 from it on (for a million cycles), and tops
//! built from broken routers fail their own checks: one that corrupts
//! flits, and one that silently drops a branch of every multicast while
//! all other traffic flows (caught only by the per-node epoch check).
//!
//! Four Verilator builds (≈ 1 min each on the 2-core VM, cached in the
//! target directory).

use std::path::PathBuf;
use wormcast_rtl::fpga_top::fpga_top;
use wormcast_rtl::router::Fault;
use wormcast_rtl::verilated::{build, Verilated};
use wormcast_sim::onchip::{over, GenOptions, OnChip, Outputs, Plan, EPOCH, EPOCH_SEND};
use wormcast_testbench::gate::onchip_plan;

const CYCLES: u64 = 100_000;

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fpga-top-cache")
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
        mismatch: get("mismatch") == 1,
        heartbeat: get("heartbeat") == 1,
        err_count: get("err_count") as u32,
        sent: get("sent") as u32,
        expected: get("expected") as u32,
        received: get("received") as u32,
    }
}

fn torus_2x2() -> Plan {
    onchip_plan(
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
/// output equal at every cycle; returns the native top and `pass` at
/// every cycle.
fn lockstep(plan: Plan, cycles: u64) -> (OnChip, Vec<bool>) {
    let mut v = load(&plan, Fault::None);
    let mut native = OnChip::new(plan);
    let mut pass = Vec::new();
    for c in 0..cycles {
        let (a, b) = (native.outputs(), outputs(&mut v));
        assert_eq!(a, b, "cycle {c}: native left, Verilog right");
        pass.push(a.pass);
        native.step();
        v.tick(&[]);
    }
    eprintln!(
        "{cycles} cycles: {:?}; {} flits injected, {} consumed",
        native.outputs(),
        native.flits_in,
        native.flits_out
    );
    (native, pass)
}

#[test]
fn verilog_top_equals_native_model_for_100k_cycles() {
    let (top, pass) = lockstep(torus_2x2(), CYCLES);
    let o = top.outputs();
    assert!(
        o.pass && !o.stall && !o.mismatch && o.err_count == 0,
        "{o:?}"
    );
    // 0 from reset until the first epoch check, 1 from it on.
    let rose = pass.iter().position(|&p| p);
    assert_eq!(rose, Some(EPOCH as usize));
    assert!(pass[EPOCH as usize..].iter().all(|&p| p));
    // Real load: thousands of messages, multicasts among them, nearly all
    // delivered (the rest in flight).
    assert!(o.sent > 5_000, "{o:?}");
    assert!(o.expected > o.sent, "{o:?}: no multicast was sent");
    assert!(o.expected - o.received < 64, "{o:?}");
}

/// The good top under Verilator alone for a million cycles (61 epochs):
/// `pass` from the first epoch check to the end.
#[test]
fn verilog_top_passes_for_a_million_cycles() {
    let plan = torus_2x2();
    let mut v = load(&plan, Fault::None);
    let t = std::time::Instant::now();
    for c in 0..1_000_000u64 {
        let o = outputs(&mut v);
        assert_eq!(o.pass, c >= EPOCH as u64, "cycle {c}: {o:?}");
        v.tick(&[]);
    }
    let o = outputs(&mut v);
    eprintln!(
        "1 000 000 cycles in {:.1} s: {o:?}",
        t.elapsed().as_secs_f64()
    );
    assert!(
        o.pass && o.sent > 100_000 && o.expected - o.received < 64,
        "{o:?}"
    );
}

/// A router that corrupts flits (`Fault::ReadyBeforeEdge`: FIFO overrun):
/// the checkers count errors and `pass` never rises.
#[test]
fn a_broken_router_fails_the_on_chip_checks() {
    let plan = torus_2x2();
    let mut v = load(&plan, Fault::ReadyBeforeEdge);
    let mut failed_at = None;
    for c in 0..CYCLES {
        let o = outputs(&mut v);
        assert!(!o.pass, "cycle {c}: the broken router passes: {o:?}");
        if failed_at.is_none() && (o.err_count > 0 || o.stall || o.mismatch) {
            failed_at = Some((c, o));
        }
        v.tick(&[]);
    }
    let (c, o) = failed_at.expect("the broken router showed no failure in 100 000 cycles");
    eprintln!("ReadyBeforeEdge: first failure at cycle {c}: {o:?}");
    assert!(o.err_count > 0 || o.stall, "{o:?}");
}

/// A router that drops one branch of every multicast
/// (`Fault::DropBranch`), sending for ever: no flit is malformed and
/// traffic keeps flowing, so the checks of the top before epochs (no
/// checker error, no stall, `received` not above `expected`) all held; the
/// epoch check finds the missing deliveries at the end of the first drain
/// window, `mismatch` is set for good and `pass` never rises.
#[test]
fn a_router_dropping_a_multicast_branch_fails_the_epoch_check() {
    let plan = torus_2x2();
    let mut v = load(&plan, Fault::DropBranch);
    let mut at_send_end = None;
    let mut stall_at = None;
    let mut mismatch_at = None;
    let mut received_per_epoch = Vec::new();
    let mut last_received = 0;
    for c in 0..3 * EPOCH as u64 + 1 {
        let o = outputs(&mut v);
        assert!(!o.pass, "cycle {c}: the dropping router passes: {o:?}");
        assert_eq!(o.err_count, 0, "cycle {c}: a checker error: {o:?}");
        if c == EPOCH_SEND as u64 {
            at_send_end = Some(o);
        }
        if o.stall && stall_at.is_none() {
            stall_at = Some(c);
        }
        if o.mismatch && mismatch_at.is_none() {
            mismatch_at = Some(c);
        }
        if c > 0 && c % EPOCH as u64 == 0 {
            received_per_epoch.push(o.received - last_received);
            last_received = o.received;
        }
        v.tick(&[]);
    }
    let o = at_send_end.unwrap();
    eprintln!(
        "DropBranch: end of the first send window {o:?}; stall at {stall_at:?}, \
         mismatch at {mismatch_at:?}; deliveries per epoch {received_per_epoch:?}"
    );
    // Invisible to the checks before epochs: no error, no stall, no
    // duplicate, while far more deliveries are missing than the good run
    // ever has in flight (fewer than 64).
    assert!(
        !o.stall && !over(o.expected, o.received),
        "{o:?}: the old checks caught it"
    );
    assert!(o.expected - o.received > 500, "{o:?}: nothing lost");
    // Caught at the first epoch check, for good.
    assert_eq!(mismatch_at, Some(EPOCH as u64));
    assert!(outputs(&mut v).mismatch);
    // Other traffic keeps moving: thousands of deliveries every epoch.
    assert!(
        received_per_epoch.iter().all(|&r| r > 1_000),
        "{received_per_epoch:?}"
    );
}

/// Path-based multicast on a mesh: a message is several worms (dual-path),
/// each with its own HEADs and the same identity; a finite run ends `done`
/// with `pass` on chip, equal to the native model all the way.
#[test]
fn mesh_dual_path_top_finishes_and_passes() {
    let plan = onchip_plan(
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
    let (mut top, _) = lockstep(plan, 2 * EPOCH as u64 + 8);
    let o = top.outputs();
    assert!(o.done && o.pass, "{o:?}");
    assert_eq!(o.sent, 300 * 9);
    // Done for good: nothing changes once all is delivered.
    top.step();
    assert_eq!(top.outputs(), o);
}
