//! Gate-level equivalence (issue 13 item 4): what yosys makes of the
//! generated Verilog is checked too, not only the Verilog itself.
//!
//! One router (node 5 of the 4×4 DSTM-1 torus, the design of
//! `scripts/synth.sh`) goes through `yosys synth_ice40` and `write_verilog`;
//! the netlist of SB_LUT4 / SB_DFF* / SB_CARRY cells runs under iverilog
//! with the cell models that ship with yosys
//! (`$(yosys-config --datdir)/ice40/cells_sim.v`, Debian: `/usr/share/yosys`)
//! and the router vector
//! testbench, and must equal the native router at every port on every
//! cycle. The netlist of a deliberately broken router (the arbiter's
//! priority rule, `Fault::ArbiterPriority`) must fail the same vectors.
//! Only ports are compared: synthesis flattens the design and renames its
//! registers.

use std::path::{Path, PathBuf};
use std::process::Command;
use wormcast_rtl::fabric_cfg::dstm_configs;
use wormcast_rtl::generate::{router_module_fault, Generated};
use wormcast_rtl::Fault;
use wormcast_sim::config::RouterParams;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
use wormcast_testbench::vectors::{build, require_tool, router_vectors, run, Simulator};

/// Cycles of stimulus: valid worms, malformed heads, garbage flits and
/// random back-pressure (the lockstep stimulus), enough for every routing
/// case of node 5 and for the broken arbiter to show.
const CYCLES: usize = 3_000;

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `synth_ice40` netlist of `g`, with the iCE40 cell models appended, in
/// one file ready for a simulator.
fn netlist(g: &Generated, dir: &Path, tag: &str) -> PathBuf {
    let rtl = dir.join(format!("{tag}_rtl.v"));
    std::fs::write(&rtl, &g.verilog).unwrap();
    let net = dir.join(format!("{tag}_netlist.v"));
    let script = format!(
        "read_verilog {}; synth_ice40 -top {}; write_verilog -noattr {}",
        rtl.display(),
        g.top,
        net.display()
    );
    let t0 = std::time::Instant::now();
    let o = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys runs");
    assert!(
        o.status.success(),
        "yosys failed on {tag}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!(
        "{tag}: synth_ice40 + write_verilog in {:.1}s",
        t0.elapsed().as_secs_f64()
    );
    let cells = yosys_datdir().join("ice40/cells_sim.v");
    // iverilog does not take default values on input ports, which the
    // cell models add unless told not to.
    let mut text = String::from("`define NO_ICE40_DEFAULT_ASSIGNMENTS\n");
    text.push_str(&std::fs::read_to_string(&net).unwrap());
    text.push_str(&std::fs::read_to_string(&cells).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the iCE40 cell models ship with yosys)",
            cells.display()
        )
    }));
    let sim = dir.join(format!("{tag}_gates.v"));
    std::fs::write(&sim, text).unwrap();
    sim
}

/// yosys's data directory: `yosys-config --datdir` where the Debian
/// package `yosys-dev` provides it, else the `yosys` package's own
/// `/usr/share/yosys` (the cell models are in `yosys`, not `yosys-dev`).
fn yosys_datdir() -> PathBuf {
    Command::new("yosys-config")
        .arg("--datdir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_else(|| PathBuf::from("/usr/share/yosys"))
}

#[test]
fn synthesised_router_netlist_equals_native_and_a_broken_one_is_caught() {
    require_tool("yosys", "yosys");
    require_tool("iverilog", "iverilog");
    let dir = out_dir("gate_level");
    let p = RouterParams::default();
    let topo = Topology::torus(4, 4).unwrap();
    let cfg = dstm_configs(&topo, Named::Dstm1, &p).unwrap();
    let node = 5;
    let good = router_module_fault(&p, &cfg[node], Fault::None).unwrap();
    let bad = router_module_fault(&p, &cfg[node], Fault::ArbiterPriority).unwrap();
    assert_ne!(good.verilog, bad.verilog, "the fault changes the logic");

    let vs = router_vectors(&good.top, &cfg[node], &p, 11, CYCLES, false);
    let (vin, vexp) = vs.write_hex(&dir, "native").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, vs.testbench(CYCLES)).unwrap();

    let gates = netlist(&good, &dir, "good");
    let b = build(Simulator::Icarus, &dir.join("good"), &tb, &gates);
    let r = run(&b, &vin, &vexp, CYCLES, None);
    eprintln!(
        "gate-level router: {CYCLES} cycles in {:.1}s: {}",
        r.seconds,
        r.stdout.lines().last().unwrap_or("")
    );
    assert!(
        r.ok,
        "the synthesised netlist differs from the native model:\n{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains(&format!("PASS {}: {CYCLES} cycles", good.top)));

    let gates_bad = netlist(&bad, &dir, "bad");
    let b = build(Simulator::Icarus, &dir.join("bad"), &tb, &gates_bad);
    let r = run(&b, &vin, &vexp, CYCLES, None);
    let m = r.mismatches();
    eprintln!(
        "gate-level broken router: exit {:?}, first report: {}",
        r.exit,
        m.first().unwrap_or(&"none")
    );
    assert!(!r.ok, "the netlist of a broken arbiter passed");
    assert!(
        !m.is_empty() && m[0].contains("cycle ") && m[0].contains("signal "),
        "a mismatch must name cycle and signal:\n{}",
        r.stdout
    );
}
