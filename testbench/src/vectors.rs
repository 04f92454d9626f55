//! Verilog vector test (ARCHITECTURE §2 check 3): the native model's
//! per-cycle inputs and expected outputs of one router, written as
//! `$readmemh` files, plus a self-checking testbench around the *generated*
//! Verilog. This is the only check that sees the rust-hdl simulation /
//! Verilog disagreements listed in RUST_HDL.md.

use crate::lockstep::RouterStim;
use std::fmt::Write as _;
use std::path::Path;
use wormcast_rtl::hw::{ERR_CODE_W, ERR_COUNT_W};
use wormcast_rtl::names::{self, Reg};
use wormcast_sim::config::{RouterConfig, RouterParams};
use wormcast_sim::router::{self, RouterInputs, RouterState};

/// Per cycle: what the router saw and the native registers after the edge.
pub struct Vectors {
    pub inputs: Vec<RouterInputs>,
    pub expect: Vec<RouterState>,
}

/// Records `cycles` cycles of the random lockstep stimulus on the native model.
pub fn record(cfg: &RouterConfig, p: &RouterParams, cycles: usize, seed: u64) -> Vectors {
    let mut stim = RouterStim::new(cfg, p, seed);
    let mut cur = RouterState::reset();
    let mut next = RouterState::reset();
    let mut v = Vectors {
        inputs: Vec::with_capacity(cycles),
        expect: Vec::with_capacity(cycles),
    };
    for _ in 0..cycles {
        let io = stim.inputs(&cur);
        router::step(cfg, p, &cur, &io, &mut next);
        std::mem::swap(&mut cur, &mut next);
        v.inputs.push(io);
        v.expect.push(cur);
    }
    v
}

/// Bits packed LSB first; `fields` remembers (name, offset, width).
#[derive(Default)]
struct Packer {
    bits: Vec<bool>,
    fields: Vec<(String, usize, usize)>,
}

impl Packer {
    fn push(&mut self, name: String, value: u64, width: usize) {
        self.fields.push((name, self.bits.len(), width));
        for b in 0..width {
            self.bits.push(value >> b & 1 == 1);
        }
    }

    fn hex(&self) -> String {
        let digits = self.bits.len().div_ceil(4);
        let mut s = String::with_capacity(digits);
        for d in (0..digits).rev() {
            let mut n = 0;
            for b in 0..4 {
                if self.bits.get(d * 4 + b) == Some(&true) {
                    n |= 1 << b;
                }
            }
            s.push(char::from_digit(n, 16).unwrap());
        }
        s
    }
}

fn pack_in(p: &RouterParams, io: &RouterInputs) -> Packer {
    let w = p.flit.width as usize;
    let mut k = Packer::default();
    for i in 0..p.inputs() {
        k.push(names::port_in_flit(i), io.flit[i], w);
        k.push(names::port_in_valid(i), io.valid[i] as u64, 1);
    }
    for o in 0..p.outputs() {
        k.push(names::port_out_ready(o), io.ready[o] as u64, 1);
    }
    k
}

fn pack_out(p: &RouterParams, s: &RouterState) -> Packer {
    let w = p.flit.width as usize;
    let mut k = Packer::default();
    for o in 0..p.outputs() {
        k.push(Reg::OutFlit(o).native(), s.out[o].flit, w);
        k.push(Reg::OutValid(o).native(), s.out[o].valid as u64, 1);
    }
    for i in 0..p.inputs() {
        k.push(Reg::InReady(i).native(), s.inp[i].ready as u64, 1);
    }
    k.push(Reg::ErrCount.native(), s.err_count as u64, ERR_COUNT_W);
    k.push(Reg::ErrCode.native(), s.err_code as u64, ERR_CODE_W);
    k
}

/// Writes `vin.hex`, `vout.hex` and `tb.v` (top `tb`, instantiating `top`)
/// into `dir`. The testbench prints `MISMATCH cycle C signal: rtl X native Y`
/// for the first differences and ends with `PASS n` or `FAIL n`.
pub fn write_bench(dir: &Path, p: &RouterParams, top: &str, v: &Vectors) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut vin = String::new();
    let mut vout = String::new();
    for (io, s) in v.inputs.iter().zip(&v.expect) {
        vin.push_str(&pack_in(p, io).hex());
        vin.push('\n');
        vout.push_str(&pack_out(p, s).hex());
        vout.push('\n');
    }
    std::fs::write(dir.join("vin.hex"), vin)?;
    std::fs::write(dir.join("vout.hex"), vout)?;
    let fin = pack_in(p, &RouterInputs::default());
    let fout = pack_out(p, &RouterState::reset());
    let (iw, ow, n) = (fin.bits.len(), fout.bits.len(), v.inputs.len());
    let mut tb = String::new();
    let _ = writeln!(tb, "`timescale 1ns/1ps\nmodule tb;");
    let _ = writeln!(
        tb,
        "  reg [{}:0] vin [0:{}];\n  reg [{}:0] vout [0:{}];",
        iw - 1,
        n - 1,
        ow - 1,
        n - 1
    );
    let _ = writeln!(tb, "  reg [{}:0] cur;\n  reg [{}:0] exp;\n  reg clock;\n  reg rst;\n  integer k;\n  integer errors;", iw - 1, ow - 1);
    // Output wires, named after the native registers.
    for (name, _, w) in &fout.fields {
        let _ = writeln!(tb, "  wire [{}:0] {name};", w - 1);
    }
    let _ = write!(tb, "  {top} dut(.clock(clock), .rst(rst)");
    for (name, off, w) in &fin.fields {
        let _ = write!(tb, ",\n    .{name}(cur[{off} +: {w}])");
    }
    let port_of = |native: &str| -> String {
        // out5_flit -> o_flit$5, in3_ready -> i_ready$3, err_* -> err_*_o
        if let Some(r) = native.strip_prefix("out") {
            let (idx, f) = r.split_once('_').unwrap();
            format!("o_{f}${idx}")
        } else if let Some(r) = native.strip_prefix("in") {
            let (idx, f) = r.split_once('_').unwrap();
            format!("i_{f}${idx}")
        } else {
            format!("{native}_o")
        }
    };
    for (name, _, _) in &fout.fields {
        let _ = write!(tb, ",\n    .{}({name})", port_of(name));
    }
    let _ = writeln!(tb, "\n  );");
    let _ = writeln!(
        tb,
        "  initial begin\n    $readmemh(\"vin.hex\", vin);\n    $readmemh(\"vout.hex\", vout);\n    errors = 0;\n    cur = 0;\n    rst = 1;\n    clock = 0;\n    #1 clock = 1;\n    #1 clock = 0;\n    rst = 0;"
    );
    let _ = writeln!(tb, "    for (k = 0; k < {n}; k = k + 1) begin\n      cur = vin[k];\n      exp = vout[k];\n      #1 clock = 1;\n      #1;");
    for (name, off, w) in &fout.fields {
        let _ = writeln!(
            tb,
            "      if ({name} !== exp[{off} +: {w}]) begin\n        errors = errors + 1;\n        if (errors <= 10) $display(\"MISMATCH cycle %0d {name}: rtl %h native %h\", k + 1, {name}, exp[{off} +: {w}]);\n      end"
        );
    }
    let _ = writeln!(tb, "      clock = 0;\n    end\n    if (errors == 0) $display(\"PASS %0d\", {n});\n    else $display(\"FAIL %0d\", errors);\n    $finish;\n  end\nendmodule");
    std::fs::write(dir.join("tb.v"), tb)
}
