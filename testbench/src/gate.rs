//! Gate-level runs of the self-checking FPGA top: the testbench that
//! prints the top's outputs every cycle, the native model's lines to
//! compare them with, and the iverilog run of a synthesised netlist.
//! Shared by the iCE40 and ECP5 gate-level tests
//! (`testbench/tests/gate_level.rs`, `gate_level_ecp5.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The FPGA top's testbench: one reset edge (as the Verilator harness),
/// then every cycle one line of the outputs before the edge: cycle, pass,
/// done, stall, heartbeat, err_count, sent, expected, received, mismatch
/// (the fields of [`native_lines`]).
pub fn fpga_tb(top: &str, cycles: u64) -> String {
    format!(
        "`timescale 1ns/1ps\nmodule tb;\n  reg clk = 0, rst = 1;\n  wire pass, done, stall, mismatch, heartbeat;\n  \
         wire [15:0] err_count;\n  wire [23:0] sent, expected, received;\n  \
         {top} dut(.clk(clk), .rst(rst), .pass(pass), .done(done), .stall(stall), .mismatch(mismatch), .heartbeat(heartbeat),\n    \
         .err_count(err_count), .sent(sent), .expected(expected), .received(received));\n  \
         integer c;\n  initial begin\n    #1 clk = 1; #1 clk = 0; rst = 0;\n    \
         for (c = 0; c < {cycles}; c = c + 1) begin\n      \
         #1 $display(\"%0d %b %b %b %b %0d %0d %0d %0d %b\", c, pass, done, stall, heartbeat, err_count, sent, expected, received, mismatch);\n      \
         clk = 1; #1 clk = 0;\n    end\n    $finish;\n  end\nendmodule\n"
    )
}

/// The on-chip traffic plan of the built-in scenario with `sets`
/// (`section.key=value`, as `--set`) and generator options `opts`.
pub fn onchip_plan(
    sets: &[&str],
    opts: wormcast_sim::onchip::GenOptions,
) -> wormcast_sim::onchip::Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = wormcast_sim::scenario::Scenario::from_toml("", &sets, "test").unwrap();
    wormcast_sim::onchip::Plan::new(&sc, opts).unwrap()
}

/// The gate-level run's length: `WORMCAST_GATE_CYCLES`, else `default`.
pub fn gate_cycles(default: u64) -> u64 {
    std::env::var("WORMCAST_GATE_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

pub fn native_lines(plan: wormcast_sim::onchip::Plan, cycles: u64) -> Vec<String> {
    let mut top = wormcast_sim::onchip::OnChip::new(plan);
    (0..cycles)
        .map(|c| {
            let o = top.outputs();
            top.step();
            format!(
                "{c} {} {} {} {} {} {} {} {} {}",
                o.pass as u8,
                o.done as u8,
                o.stall as u8,
                o.heartbeat as u8,
                o.err_count,
                o.sent,
                o.expected,
                o.received,
                o.mismatch as u8
            )
        })
        .collect()
}

/// Runs the netlist of the FPGA top (`files`: the netlist and its cell
/// models; `args`: iverilog's flags, such as the language generation
/// and include folders) for as
/// many cycles as `want` has lines; its output lines.
pub fn fpga_netlist_run(
    dir: &Path,
    tag: &str,
    files: &[PathBuf],
    args: &[String],
    top: &str,
    want: &[String],
) -> Vec<String> {
    let tb = dir.join(format!("{tag}_tb.v"));
    std::fs::write(&tb, fpga_tb(top, want.len() as u64)).unwrap();
    let exe = dir.join(format!("{tag}.vvp"));
    let o = Command::new("iverilog")
        .args(args)
        .arg("-o")
        .arg(&exe)
        .arg(&tb)
        .args(files)
        .output()
        .expect("iverilog runs");
    assert!(
        o.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let t0 = std::time::Instant::now();
    let o = Command::new("vvp")
        .arg("-n")
        .arg(&exe)
        .output()
        .expect("vvp runs");
    let got: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    eprintln!(
        "{tag}: {} cycles at gate level in {:.1}s",
        got.len(),
        t0.elapsed().as_secs_f64()
    );
    got
}

/// The first line where `got` differs from `want`: (want, got).
pub fn first_difference(want: &[String], got: &[String]) -> Option<(String, String)> {
    want.iter().enumerate().find_map(|(i, w)| {
        let g = got.get(i).cloned().unwrap_or_else(|| "(no line)".into());
        (&g != w).then(|| (w.clone(), g))
    })
}
