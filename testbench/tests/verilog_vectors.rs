//! ARCHITECTURE §2 check 3: the *generated* router Verilog, run under
//! iverilog and Verilator by a self-checking `$readmemh` testbench, equals the native
//! model on its recorded inputs, every output every cycle. Skipped, with a
//! note, when iverilog is not installed (`scripts/test.sh` installs it).

use std::path::Path;
use std::process::Command;
use wormcast_rtl::fabric_cfg::dstm_configs;
use wormcast_rtl::generate::router_module;
use wormcast_sim::config::RouterParams;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
use wormcast_testbench::vectors::{record, write_bench};

fn have_iverilog() -> bool {
    let ok = Command::new("iverilog").arg("-V").output().is_ok();
    if !ok {
        eprintln!("note: iverilog not installed, vector test skipped");
    }
    ok
}

/// Builds and runs the bench in `dir`; returns vvp's stdout.
fn run_iverilog(dir: &Path, rtl_file: &str) -> String {
    let c = Command::new("iverilog")
        .current_dir(dir)
        .args(["-g2012", "-o", "sim.vvp", "tb.v", rtl_file])
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    let r = Command::new("vvp")
        .current_dir(dir)
        .arg("sim.vvp")
        .output()
        .unwrap();
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// The same bench under `verilator --binary` (a C++ build of a few
/// seconds); skipped when verilator is missing or `WORMCAST_NO_VERILATOR=1`.
fn verilator(dir: &Path, cycles: usize) {
    if std::env::var("WORMCAST_NO_VERILATOR").as_deref() == Ok("1")
        || Command::new("verilator").arg("--version").output().is_err()
    {
        eprintln!("note: verilator run of the vector bench skipped");
        return;
    }
    let b = Command::new("verilator")
        .current_dir(dir)
        .args([
            "--binary",
            "-j",
            "1",
            "--top-module",
            "tb",
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
            "tb.v",
            "router.v",
            "-o",
            "vtb",
        ])
        .output()
        .expect("verilator");
    assert!(
        b.status.success(),
        "verilator: {}",
        String::from_utf8_lossy(&b.stderr)
    );
    let r = Command::new(dir.join("obj_dir/vtb"))
        .current_dir(dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(out.contains(&format!("PASS {cycles}")), "verilator:\n{out}");
}

#[test]
fn generated_router_matches_native_vectors() {
    if !have_iverilog() {
        return;
    }
    let p = RouterParams::default();
    let cfg = dstm_configs(&Topology::torus(4, 4).unwrap(), Named::Dstm1, &p).unwrap();
    for (node, seed, cycles) in [(0usize, 11u64, 20_000usize), (5, 12, 10_000)] {
        let g = router_module(&p, &cfg[node]).unwrap();
        let dir = std::env::temp_dir().join(format!("wormcast_vectors_n{node}"));
        let _ = std::fs::remove_dir_all(&dir);
        let v = record(&cfg[node], &p, cycles, seed);
        write_bench(&dir, &p, &g.top, &v).unwrap();
        std::fs::write(dir.join("router.v"), &g.verilog).unwrap();
        let out = run_iverilog(&dir, "router.v");
        assert!(
            out.contains(&format!("PASS {cycles}")),
            "node {node}:\n{out}"
        );
        if node == 5 {
            verilator(&dir, cycles);
        }

        if node == 0 {
            // The bench is self-checking: one corrupted expected value fails it.
            let vout = std::fs::read_to_string(dir.join("vout.hex")).unwrap();
            let mut lines: Vec<String> = vout.lines().map(str::to_string).collect();
            let l = &mut lines[100];
            let last = l.pop().unwrap();
            let flipped = char::from_digit(last.to_digit(16).unwrap() ^ 1, 16).unwrap();
            l.push(flipped);
            std::fs::write(dir.join("vout.hex"), lines.join("\n") + "\n").unwrap();
            let out = run_iverilog(&dir, "router.v");
            assert!(out.contains("MISMATCH cycle 101 out0_flit"), "{out}");
            assert!(out.contains("FAIL 1"), "{out}");
        }
    }
}
