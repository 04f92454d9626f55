//! The hand-written Verilog of the label comparators
//! (`rtl/src/compare.rs`) under iverilog, exhaustively on 5-bit labels: the
//! testbench checks every pair against Verilog's own `<=` on the low bits,
//! with the bits above them set at random (they must be ignored), and
//! reports each pair it checked. Skipped, with a note, where iverilog is
//! missing (CI installs it).

mod common;

use std::fmt::Write;
use wormcast_rtl::compare::verilog;

#[test]
fn compare_verilog_is_le_on_the_low_bits() {
    if !common::have("iverilog") {
        return;
    }
    let (w, lw, pairs) = (8usize, 5usize, 2usize);
    let dir = common::scratch("le_bank");
    let mut v = String::new();
    writeln!(v, "module bank(a$0, b$0, le$0, a$1, b$1, le$1);").unwrap();
    for j in 0..pairs {
        writeln!(v, "  input wire [{}:0] a${j}, b${j};", w - 1).unwrap();
        writeln!(v, "  output reg le${j};").unwrap();
    }
    v.push_str(&verilog(pairs, lw));
    writeln!(v, "endmodule").unwrap();
    writeln!(v, "module tb;").unwrap();
    writeln!(v, "  reg [{}:0] a0, b0, a1, b1;", w - 1).unwrap();
    writeln!(v, "  wire l0, l1;").unwrap();
    writeln!(
        v,
        "  bank u(.a$0(a0), .b$0(b0), .le$0(l0), .a$1(a1), .b$1(b1), .le$1(l1));"
    )
    .unwrap();
    writeln!(v, "  integer x, y, fo, bad, n;").unwrap();
    writeln!(v, "  initial begin").unwrap();
    writeln!(
        v,
        "    fo = $fopen(\"{}\", \"w\"); bad = 0; n = 0;",
        dir.join("out.txt").display()
    )
    .unwrap();
    let top = 1 << lw;
    let m = top - 1;
    writeln!(v, "    for (x = 0; x < {top}; x = x + 1)").unwrap();
    writeln!(v, "      for (y = 0; y < {top}; y = y + 1) begin").unwrap();
    writeln!(
        v,
        "        a0 = x | ($random << {lw}); b0 = y | ($random << {lw}); a1 = y; b1 = x; #1;"
    )
    .unwrap();
    writeln!(
        v,
        "        if (l0 !== ((a0 & {m}) <= (b0 & {m})) || l1 !== (y <= x)) begin bad = bad + 1; $fdisplay(fo, \"bad %0d %0d\", x, y); end"
    )
    .unwrap();
    writeln!(v, "        n = n + 1;").unwrap();
    writeln!(v, "      end").unwrap();
    writeln!(v, "    $fdisplay(fo, \"checked %0d bad %0d\", n, bad);").unwrap();
    writeln!(v, "    $fclose(fo); $finish;").unwrap();
    writeln!(v, "  end").unwrap();
    writeln!(v, "endmodule").unwrap();
    let out = common::run_tb(&dir, &v);
    assert_eq!(
        out.trim(),
        format!("checked {} bad 0", top * top),
        "iverilog output:\n{out}"
    );
}
