//! The hand-written Verilog of the crossbar (`rtl/src/crossbar.rs`) under
//! iverilog, on seeded random vectors: every output shows the flit of the
//! input its one-hot owner names, and 0 without an owner. The router-level
//! vector tests reach it only through real traffic; this drives every
//! (output, owner) pair directly. Skipped, with a note, where iverilog is
//! missing (CI installs it).

mod common;

use std::fmt::Write;
use wormcast_rtl::crossbar::verilog;
use wormcast_rtl::hw::SEL_W;

const W: usize = 32;

/// Runs the crossbar's Verilog on (owners per output, flits per input);
/// returns the outputs per vector.
fn simulate(n_in: usize, n_out: usize, vecs: &[(Vec<u64>, Vec<u64>)]) -> Vec<Vec<u64>> {
    let dir = common::scratch(&format!("xbar_{n_in}_{n_out}"));
    let sel: Vec<String> = (0..n_out).map(|o| format!("sel${o}")).collect();
    let flit: Vec<String> = (0..n_in).map(|i| format!("flit${i}")).collect();
    let out: Vec<String> = (0..n_out).map(|o| format!("out${o}")).collect();
    let mut v = String::new();
    let all = [sel.clone(), flit.clone(), out.clone()].concat();
    writeln!(v, "module xbar({});", all.join(", ")).unwrap();
    for s in &sel {
        writeln!(v, "  input wire [{}:0] {s};", SEL_W - 1).unwrap();
    }
    for f in &flit {
        writeln!(v, "  input wire [{}:0] {f};", W - 1).unwrap();
    }
    for o in &out {
        writeln!(v, "  output reg [{}:0] {o};", W - 1).unwrap();
    }
    v.push_str(&verilog(n_in, n_out, W));
    writeln!(v, "endmodule").unwrap();
    let k = n_out + n_in;
    writeln!(v, "module tb;").unwrap();
    writeln!(v, "  reg [{}:0] x[0:{}];", W - 1, k - 1).unwrap();
    writeln!(v, "  wire [{}:0] y[0:{}];", W - 1, n_out - 1).unwrap();
    let conn: Vec<String> = (0..n_out)
        .map(|o| format!(".sel${o}(x[{o}][{}:0]), .out${o}(y[{o}])", SEL_W - 1))
        .chain((0..n_in).map(|i| format!(".flit${i}(x[{}])", n_out + i)))
        .collect();
    writeln!(v, "  xbar u({});", conn.join(", ")).unwrap();
    writeln!(v, "  integer fi, fo, c;").unwrap();
    writeln!(v, "  initial begin").unwrap();
    writeln!(
        v,
        "    fi = $fopen(\"{}\", \"r\");",
        dir.join("in.txt").display()
    )
    .unwrap();
    writeln!(
        v,
        "    fo = $fopen(\"{}\", \"w\");",
        dir.join("out.txt").display()
    )
    .unwrap();
    writeln!(v, "    while (!$feof(fi)) begin").unwrap();
    let fmt: String = (0..k).map(|_| "%h ").collect();
    let args: Vec<String> = (0..k).map(|j| format!("x[{j}]")).collect();
    writeln!(
        v,
        "      c = $fscanf(fi, \"{}\\n\", {});",
        fmt.trim_end(),
        args.join(", ")
    )
    .unwrap();
    let outs: Vec<String> = (0..n_out).map(|o| format!("y[{o}]")).collect();
    let ofmt: String = (0..n_out).map(|_| "%h ").collect();
    writeln!(
        v,
        "      if (c == {k}) begin #1 $fdisplay(fo, \"{}\", {}); end",
        ofmt.trim_end(),
        outs.join(", ")
    )
    .unwrap();
    writeln!(v, "    end").unwrap();
    writeln!(v, "    $fclose(fo); $finish;").unwrap();
    writeln!(v, "  end").unwrap();
    writeln!(v, "endmodule").unwrap();
    let mut input = String::new();
    for (owners, flits) in vecs {
        let sel = owners
            .iter()
            .map(|&o| if o < n_in as u64 { 1u64 << o } else { 0 });
        for x in sel.chain(flits.iter().copied()) {
            write!(input, "{x:x} ").unwrap();
        }
        input.push('\n');
    }
    std::fs::write(dir.join("in.txt"), input).unwrap();
    common::run_tb(&dir, &v)
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|x| u64::from_str_radix(x, 16).unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn crossbar_verilog_gives_each_output_its_owners_flit() {
    if !common::have("iverilog") {
        return;
    }
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (n_in, n_out) in [(5usize, 6usize), (8, 8), (5, 5)] {
        // Owner n_in (and above) stands for "no owner".
        let vecs: Vec<(Vec<u64>, Vec<u64>)> = (0..1000)
            .map(|_| {
                let owners = (0..n_out).map(|_| next() % (n_in as u64 + 1)).collect();
                let flits = (0..n_in).map(|_| next() & 0xFFFF_FFFF).collect();
                (owners, flits)
            })
            .collect();
        let got = simulate(n_in, n_out, &vecs);
        assert_eq!(got.len(), vecs.len(), "every vector simulated");
        for ((owners, flits), out) in vecs.iter().zip(&got) {
            let want: Vec<u64> = owners
                .iter()
                .map(|&o| flits.get(o as usize).copied().unwrap_or(0))
                .collect();
            assert_eq!(out, &want, "{n_in} in, {n_out} out: owners {owners:?}");
        }
    }
}
