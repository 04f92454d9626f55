//! The per-node form of a generated fabric (`wormcast verilog --per-node`:
//! one thin module per distinct router, its tables tied off inside) is the
//! same logic as the shared form every other test simulates: under
//! iverilog against the native model, every router's ports every cycle,
//! with real unicast and multicast traffic. The synthesis flow at network
//! scale (`scripts/synth_fabric.py`, docs/fpga.md) reads this form, so a
//! wrong tie-off there would put a different network on the FPGA than the
//! one the equivalence suites prove.

use std::path::PathBuf;
use wormcast_rtl::generate::Instances;
use wormcast_testbench::lockstep::fabric_scenario;
use wormcast_testbench::vectors::{
    build, fabric_vectors, require_tool, run, write_fabric_dut_as, FabricDut, Simulator,
};

const CYCLES: usize = 2_000;

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn per_node_fabric_matches_native_and_a_swapped_node_is_caught() {
    require_tool("iverilog", "iverilog");
    let dir = out_dir("per_node_fabric");
    let sc = fabric_scenario("torus:3x3", 0.03, 91);
    let FabricDut {
        module: g, file, ..
    } = write_fabric_dut_as(&sc, &dir, Instances::PerNode);
    // Every node of a DSTM-1 torus has tables of its own.
    let nodes = g.verilog.matches("\nmodule wormcast_node_n").count();
    assert_eq!(nodes, 9, "one module per distinct router");
    // The fabric itself ties nothing off: every table is inside a node module.
    let at = g.verilog.find(&format!("module {}(", g.top)).unwrap();
    let fabric = &g.verilog[at..at + g.verilog[at..].find("endmodule").unwrap()];
    assert!(!fabric.contains(".t_"), "tables tied off in the fabric");
    let (vs, st) = fabric_vectors(&g.top, &sc, CYCLES, false, &mut |_| {});
    assert!(st.multicasts >= 10 && st.delivered >= 100, "{st:?}");
    let (vin, vexp) = vs.write_hex(&dir, "good").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, vs.testbench(CYCLES)).unwrap();
    let b = build(Simulator::Icarus, &dir.join("iverilog"), &tb, &file);
    let r = run(&b, &vin, &vexp, CYCLES, None);
    eprintln!(
        "per-node 3x3: {} messages ({} multicast), {} deliveries; {}",
        st.messages,
        st.multicasts,
        st.delivered,
        r.stdout.lines().last().unwrap_or("")
    );
    assert!(
        r.ok,
        "per-node fabric differs from the native model:\n{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains(&format!("PASS {}: {CYCLES} cycles", g.top)));

    // The same fabric with node 1 given node 0's router: caught.
    let bad = g
        .verilog
        .replace("wormcast_node_n1 r$1(", "wormcast_node_n0 r$1(");
    assert_ne!(bad, g.verilog);
    let bad_dir = dir.join("swapped");
    std::fs::create_dir_all(&bad_dir).unwrap();
    let bad_file = bad_dir.join(file.file_name().unwrap());
    std::fs::write(&bad_file, bad).unwrap();
    let b = build(Simulator::Icarus, &bad_dir.join("iverilog"), &tb, &bad_file);
    let r = run(&b, &vin, &vexp, CYCLES, None);
    let m = r.mismatches();
    eprintln!(
        "swapped node: first report: {}",
        m.first().unwrap_or(&"none")
    );
    assert!(
        !r.ok && !m.is_empty(),
        "a fabric with a wrong node module passed"
    );
}
